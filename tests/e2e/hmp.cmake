# HMP5 terrain end to end (hmp_e2e.sh): shadow-5.hmp -> mdl2gltf -> GLB ->
# Khronos validator (0 errors, 0 warnings) -> Blender import (3835 vertices,
# texture loaded) and a top-down render compared with the colour map
# (hmp_blender.py). Skips (77) without the corpus, mdl2gltf, node or Blender.
if(TARGET mdl2gltf)
  set(gsio_hmp_converter $<TARGET_FILE:mdl2gltf>)
else()
  set(gsio_hmp_converter "")
endif()
add_test(NAME e2e_hmp_shadow5
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hmp_e2e.sh "${gsio_hmp_converter}" ${GSIO_CORPUS_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/hmp ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(e2e_hmp_shadow5 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
