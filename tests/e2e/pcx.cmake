# PCX external textures against Pillow's reading (pcx_pillow.py; skipped
# with a note when the corpus or Pillow is absent).
find_package(Python3 COMPONENTS Interpreter)
if(TARGET mdl2gltf AND Python3_FOUND)
  add_test(NAME pcx_vs_pillow
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/pcx_pillow.py $<TARGET_FILE:mdl2gltf>
            ${GSIO_CORPUS_DIR} ${CMAKE_CURRENT_BINARY_DIR}/pcx_pillow)
  set_tests_properties(pcx_vs_pillow PROPERTIES LABELS e2e SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
