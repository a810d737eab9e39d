# The `gsio info` command (tools/gsio.c): its --json keys against the README's
# table, known numbers from samples/ and the corpus, exit statuses
# (gsio_info.py; the corpus part is skipped with a note when it is absent).
find_package(Python3 COMPONENTS Interpreter)
if(TARGET gsio_tool AND Python3_FOUND)
  add_test(NAME cli_gsio_info
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gsio_info.py $<TARGET_FILE:gsio_tool>
            ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/samples ${GSIO_CORPUS_DIR})
endif()
