# The Blender add-on (blender_bridge/addon/, blender_addon.sh): the zip is
# installed with the README's one-line command into a fresh Blender user
# folder (temporary BLENDER_USER_CONFIG / BLENDER_USER_SCRIPTS), then a second
# Blender using that folder runs blender_addon.py: imports and exports
# through the add-on's operators. Skips (77) without Blender or the corpus.
if(TARGET blender-addon)
  add_test(NAME blender_addon
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/blender_addon.sh ${PROJECT_BINARY_DIR}/gsio_blender.zip
            ${GSIO_CORPUS_DIR} ${CMAKE_CURRENT_BINARY_DIR}/blender_addon ${CMAKE_CURRENT_SOURCE_DIR}/blender_addon.py)
  set_tests_properties(blender_addon PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
# The zip carries what its commands link: ldd of every binary in it names
# only the C/C++ runtime and zlib from the system (addon_zip_libs.sh).
if(TARGET blender-addon AND GSIO_ADDON_BUNDLE_TOOLS AND CMAKE_SYSTEM_NAME STREQUAL "Linux" AND NOT GSIO_SANITIZE)
  add_test(NAME blender_addon_zip_libs
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/addon_zip_libs.sh ${PROJECT_BINARY_DIR}/gsio_blender.zip
            ${CMAKE_CURRENT_BINARY_DIR}/blender_addon_zip_libs)
  set_tests_properties(blender_addon_zip_libs PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
