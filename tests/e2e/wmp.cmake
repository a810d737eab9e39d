# WMP levels (and their compiled WMBs: the same entities, the WMB6 polygons
# one block mesh) end to end (wmp_e2e.sh): a corpus level -> mdl2gltf --path
# Game/Assets -> GLB -> Khronos validator (0 errors, 0 warnings) -> Blender
# import (one object per entity and block, lights, images: wmp_blender.py).
# Cases: LEVEL ENTITIES BLOCKS LIGHTS (the sun counts as a light) MESHES
# (mesh objects: blocks, sprites, every placed model's meshes) ARMATURES (one
# per skinned model instance: bestiary's 7 doors of corridor_02_short_door
# and 7 single skinned models; menue's trident).
if(TARGET mdl2gltf)
  set(gsio_wmp_converter $<TARGET_FILE:mdl2gltf>)
else()
  set(gsio_wmp_converter "")
endif()
set(gsio_wmp_cases
  "bestiary|lottershock/Game/Level/bestiary.wmp|44|0|1|47|14"
  "menue|lottershock/Game/Level/menue.wmp|13|6|2|11|1"
  "prefab|wmp/prefab.wmp|0|34|1|34|0"
  "bestiary_wmb|lottershock/Game/Level/bestiary.wmb|44|0|1|47|14"
  "menue_wmb|lottershock/Game/Level/menue.wmb|13|6|2|11|1"
  "prefab_wmb|wmp/prefab.wmb|0|1|1|1|0"
  "block_wmb|wmp/block.wmb|0|1|1|1|0")
foreach(c ${gsio_wmp_cases})
  string(REPLACE "|" ";" f "${c}")
  list(GET f 0 name)
  list(GET f 1 level)
  list(GET f 2 ents)
  list(GET f 3 blocks)
  list(GET f 4 lights)
  list(GET f 5 meshes)
  list(GET f 6 arms)
  add_test(NAME wmp_glb_blender_${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/wmp_e2e.sh "${gsio_wmp_converter}" ${GSIO_CORPUS_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/wmp-${name} ${CMAKE_CURRENT_SOURCE_DIR} ${level}
            ${ents} ${blocks} ${lights} ${meshes} ${arms})
  set_tests_properties(wmp_glb_blender_${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS e2e)
endforeach()

# Every corpus WMB through the validator (wmb_glb_all.sh).
add_test(NAME wmb_glb_validator_all
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/wmb_glb_all.sh "${gsio_wmp_converter}" ${GSIO_CORPUS_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/wmb-all ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(wmb_glb_validator_all PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS e2e)
