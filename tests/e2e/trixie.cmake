# gsio where most Linux users are: a Debian 13 (trixie) tree with Blender 4.3
# and Assimp 5.4.3, made by trixie_tree.sh with mmdebstrap in the build tree
# (about 100 s and 2 GB the first time; kept, and reused by later runs).
# - blender_addon_trixie: the same zip and script as blender_addon, in
#   Blender 4.3;
# - assimp_adapter_trixie: the Assimp adapter built against trixie's
#   libassimp-dev (5.4.3) in the tree, and its test programs run there.
# Skipped (77) when the tree cannot be made (no mmdebstrap, network or root).
# Not in sanitizer or fuzzer builds: one tree (the plain build's) is enough.
if(NOT GSIO_SANITIZE AND NOT GSIO_BUILD_FUZZERS AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(gsio_trixie ${PROJECT_BINARY_DIR}/trixie)
  get_filename_component(gsio_trixie_corpus ${GSIO_CORPUS_DIR} REALPATH)
  # What the tree sees at the same paths: the sources, the build tree, the corpus.
  set(gsio_trixie_binds "${PROJECT_SOURCE_DIR}:${PROJECT_BINARY_DIR}:${gsio_trixie_corpus}")
  add_test(NAME trixie_tree COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/trixie_tree.sh ${gsio_trixie})
  set_tests_properties(trixie_tree PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800
    FIXTURES_SETUP gsio_trixie_tree RESOURCE_LOCK gsio_trixie_tree)
  if(TARGET blender-addon)
    add_test(NAME blender_addon_trixie
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/trixie_tree.sh ${gsio_trixie} run
              sh ${CMAKE_CURRENT_SOURCE_DIR}/blender_addon.sh ${PROJECT_BINARY_DIR}/gsio_blender.zip
              ${gsio_trixie_corpus} ${CMAKE_CURRENT_BINARY_DIR}/blender_addon_trixie
              ${CMAKE_CURRENT_SOURCE_DIR}/blender_addon.py)
    set_tests_properties(blender_addon_trixie PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900
      FIXTURES_REQUIRED gsio_trixie_tree ENVIRONMENT "GSIO_TREE_BINDS=${gsio_trixie_binds}")
  endif()
  if(TARGET gsio_assimp)
    add_test(NAME assimp_adapter_trixie
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/trixie_tree.sh ${gsio_trixie} run
              bash ${CMAKE_CURRENT_SOURCE_DIR}/assimp_adapter_trixie.sh ${PROJECT_SOURCE_DIR}
              ${PROJECT_BINARY_DIR}/trixie-build ${gsio_trixie_corpus})
    set_tests_properties(assimp_adapter_trixie PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 2400
      FIXTURES_REQUIRED gsio_trixie_tree ENVIRONMENT "GSIO_TREE_BINDS=${gsio_trixie_binds}")
  endif()
endif()
