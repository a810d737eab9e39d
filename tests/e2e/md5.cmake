# MD5 end to end (md5_e2e.sh): SimpleCube and Bob -> mdl2gltf -> GLB ->
# Khronos validator (0 errors, 0 warnings) -> md5_gltf_pose.py (skin, axis
# change, inverse bind matrices, Bob's animation against the .md5anim text
# within 1e-4) -> Blender import (meshes, bones, one 140-frame action at 24
# fps, 5 images, winding) and renders (md5_blender.py). Skips (77) without
# the corpus, mdl2gltf, node, numpy or Blender.
if(TARGET mdl2gltf)
  set(gsio_md5_converter $<TARGET_FILE:mdl2gltf>)
else()
  set(gsio_md5_converter "")
endif()
foreach(model cube bob)
  add_test(NAME md5_glb_blender_${model}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/md5_e2e.sh "${gsio_md5_converter}" ${GSIO_CORPUS_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/md5_${model} ${CMAKE_CURRENT_SOURCE_DIR} ${model})
  set_tests_properties(md5_glb_blender_${model} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
