# HMP terrain end to end (hmp_e2e.sh): corpus terrain -> mdl2gltf -> GLB ->
# Khronos validator (0 errors, 0 warnings) -> Blender import (vertex count,
# texture loaded) and a top-down render compared with the colour map
# (hmp_blender.py). shadow-5.hmp is the HMP5, lgs-small.hmp an HMP7 with a
# detail map. Skips (77) without the corpus, mdl2gltf, node or Blender.
if(TARGET mdl2gltf)
  set(gsio_hmp_converter $<TARGET_FILE:mdl2gltf>)
else()
  set(gsio_hmp_converter "")
endif()
foreach(gsio_hmp_case shadow-5 lgs-small)
  add_test(NAME hmp_glb_blender_${gsio_hmp_case}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hmp_e2e.sh "${gsio_hmp_converter}" ${GSIO_CORPUS_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/hmp-${gsio_hmp_case} ${CMAKE_CURRENT_SOURCE_DIR}
            hmp/${gsio_hmp_case}.hmp)
  set_tests_properties(hmp_glb_blender_${gsio_hmp_case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
