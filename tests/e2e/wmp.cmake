# WMP levels end to end (wmp_e2e.sh): a corpus level -> mdl2gltf --path
# Game/Assets -> GLB -> Khronos validator (0 errors, 0 warnings) -> Blender
# import (one object per entity and block, lights, images: wmp_blender.py).
# Cases: LEVEL ENTITIES BLOCKS LIGHTS (the sun counts as a light).
if(TARGET mdl2gltf)
  set(gsio_wmp_converter $<TARGET_FILE:mdl2gltf>)
else()
  set(gsio_wmp_converter "")
endif()
set(gsio_wmp_cases
  "bestiary|lottershock/Game/Level/bestiary.wmp|44|0|1"
  "menue|lottershock/Game/Level/menue.wmp|13|6|2"
  "prefab|wmp/prefab.wmp|0|34|1")
foreach(c ${gsio_wmp_cases})
  string(REPLACE "|" ";" f "${c}")
  list(GET f 0 name)
  list(GET f 1 level)
  list(GET f 2 ents)
  list(GET f 3 blocks)
  list(GET f 4 lights)
  add_test(NAME e2e_wmp_${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/wmp_e2e.sh "${gsio_wmp_converter}" ${GSIO_CORPUS_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/wmp-${name} ${CMAKE_CURRENT_SOURCE_DIR} ${level}
            ${ents} ${blocks} ${lights})
  set_tests_properties(e2e_wmp_${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS e2e)
endforeach()
