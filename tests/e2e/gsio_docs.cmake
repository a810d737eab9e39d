# Man pages (tools/man/) and bash completions (tools/completion/): they
# format cleanly, document every option of --help, and complete (gsio_docs.sh).
if(TARGET gsio_tool AND TARGET mdl2gltf)
  add_test(NAME man_pages_completions
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gsio_docs.sh ${PROJECT_SOURCE_DIR}
            $<TARGET_FILE:gsio_tool> $<TARGET_FILE:mdl2gltf>)
endif()
