# `gsio convert` and `gsio info`'s inputs (a folder, `--`, `-`; tools/):
# usage errors exit 2 with a message, `-o -` into `gsio info -`, corpus
# files converted to .glb, .mdl, .hmp and .md5mesh load back
# (gsio_convert.py; the corpus part is skipped with a note when it is
# absent, MDL5/HMP5 while their writers are not built).
find_package(Python3 COMPONENTS Interpreter)
if(TARGET gsio_tool AND Python3_FOUND)
  add_test(NAME cli_gsio_convert
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gsio_convert.py $<TARGET_FILE:gsio_tool>
            ${GSIO_CORPUS_DIR} ${CMAKE_CURRENT_BINARY_DIR}/gsio_convert)
  set_tests_properties(cli_gsio_convert PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
