# --update and --files-from of mdl2gltf and `gsio convert` (cli_batch.py):
# the corpus' game folder converted and converted again with --update, a
# split list against one run. Skipped (77) without the corpus.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET mdl2gltf AND TARGET gsio_tool AND Python3_FOUND)
  foreach(gsio_batch_case update files_from)
    add_test(NAME cli_mdl2gltf_${gsio_batch_case}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli_batch.py ${gsio_batch_case}
              $<TARGET_FILE:mdl2gltf> $<TARGET_FILE:gsio_tool> ${GSIO_CORPUS_DIR}
              ${CMAKE_CURRENT_BINARY_DIR}/batch_${gsio_batch_case})
    set_tests_properties(cli_mdl2gltf_${gsio_batch_case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  endforeach()
endif()
