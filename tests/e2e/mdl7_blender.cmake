# The add-on's MDL7 export in Blender (mdl7_blender.py, run by
# blender_addon.sh in a fresh user folder): a rig made in Blender, exported
# as MDL7 through Blender's glTF exporter and gsio convert -f mdl7, imported
# again with the same bones, actions and poses. Skips (77) without Blender
# or the corpus.
if(TARGET blender-addon)
  add_test(NAME mdl7_blender
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/blender_addon.sh ${PROJECT_BINARY_DIR}/gsio_blender.zip
            ${GSIO_CORPUS_DIR} ${CMAKE_CURRENT_BINARY_DIR}/mdl7_blender ${CMAKE_CURRENT_SOURCE_DIR}/mdl7_blender.py)
  set_tests_properties(mdl7_blender PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS e2e)
endif()
