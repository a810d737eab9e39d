# The files a model or level names, found by the commands
# (named_files.py): a level naming its model in CP1252 finds the model
# named in UTF-8 and names it in UTF-8; a model's texture in a --path
# folder; a folder input searched; one warning with --path otherwise. The
# corpus cases are skipped with a note when it is absent.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET gsio_tool AND TARGET mdl2gltf AND Python3_FOUND)
  add_test(NAME cli_named_files
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/named_files.py $<TARGET_FILE:gsio_tool>
            $<TARGET_FILE:mdl2gltf> ${PROJECT_SOURCE_DIR} ${GSIO_CORPUS_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/named_files)
  set_tests_properties(cli_named_files PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
