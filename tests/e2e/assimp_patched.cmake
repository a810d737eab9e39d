# The patched Assimp (assimp_patch/build-assimp.sh): Debian's Assimp 5.2.5
# with gsio's loaders compiled in and its glTF 2 exporter taught morph
# animations. One test builds it (cached in the build tree: the first build
# is a few minutes of CPU, a rerun an incremental rebuild of seconds); the
# others use it:
# - `assimp info` on corpus files reports gsio's counts (gsio info --json);
# - `assimp export X out.glb` for gate-101, mdl4-golem, shadow-5 and Bob:
#   the Khronos validator reports 0 errors, and the morph targets, weight
#   animations, skin and animations gsio reads are in the file;
# - `assimp export minigun_mdl5.mdl m.obj`;
# - gsio's writers as export formats: `assimp export X out.mdl -f gsio_mdl5`
#   (also from Assimp's own OBJ), `-f gsio_hmp5`;
# - the Qt 3D viewer (assimp_patch/viewer/) renders gate-101 through the
#   patched library under Xvfb.
# Every test skips (77) with a message when the build cannot be made (no
# network for `apt-get source`, a missing package) or the corpus is absent.
# Not in sanitizer or fuzzer builds: the patched library is a plain build of
# its own, and one copy (the plain build tree's) is enough for the suite.
if(NOT GSIO_SANITIZE AND NOT GSIO_BUILD_FUZZERS AND TARGET gsio_tool)
  find_package(Python3 COMPONENTS Interpreter)
  set(gsio_ap_cache ${PROJECT_BINARY_DIR}/assimp-patched)
  set(gsio_ap_prefix ${gsio_ap_cache}/install)
  add_test(NAME assimp_patched_build
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/assimp_patched_build.sh
            ${PROJECT_SOURCE_DIR}/assimp_patch/build-assimp.sh ${gsio_ap_cache} ${gsio_ap_prefix})
  # The first build on a loaded machine can take several minutes.
  set_tests_properties(assimp_patched_build PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 2400 FIXTURES_SETUP gsio_assimp_patched
    RESOURCE_LOCK gsio_assimp_patched_build)
  if(Python3_FOUND)
    set(gsio_ap_checks info export_gate export_golem export_shadow export_bob obj gsio_writers)
    foreach(check ${gsio_ap_checks})
      add_test(NAME assimp_patched_${check}
        COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/assimp_patched.py ${check}
                ${gsio_ap_prefix} $<TARGET_FILE:gsio_tool> ${GSIO_CORPUS_DIR}
                ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/assimp_patched_${check})
      set_tests_properties(assimp_patched_${check} PROPERTIES
        SKIP_RETURN_CODE 77 TIMEOUT 300 FIXTURES_REQUIRED gsio_assimp_patched)
    endforeach()
  endif()
  add_test(NAME assimp_patched_viewer
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/assimp_patched_viewer.sh
            ${gsio_ap_prefix} ${PROJECT_SOURCE_DIR}/assimp_patch/viewer ${GSIO_CORPUS_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/assimp_patched_viewer)
  set_tests_properties(assimp_patched_viewer PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 300 FIXTURES_REQUIRED gsio_assimp_patched)
endif()
