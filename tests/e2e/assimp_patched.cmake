# The patched Assimp (assimp_patch/build-assimp.sh), from the source of each
# Debian suite: bookworm's Assimp 5.2.5 (tests assimp_patched_*) and
# trixie's 5.4.3 (assimp_patched_trixie_*), with gsio's loaders compiled in
# and its glTF 2 exporter taught morph animations. One test per suite builds
# it (cached in the build tree: the first build is a few minutes of CPU, a
# rerun an incremental rebuild of seconds); the others use it:
# - `assimp info` on corpus files reports gsio's counts (gsio info --json);
# - `assimp export X out.glb` for gate-101, mdl4-golem, shadow-5 and Bob:
#   the Khronos validator reports 0 errors, and the morph targets, weight
#   animations, skin and animations gsio reads are in the file;
# - `assimp export minigun_mdl5.mdl m.obj`;
# - gsio's writers as export formats: `assimp export X out.mdl -f gsio_mdl5`
#   (also from Assimp's own OBJ), `-f gsio_hmp5`;
# - the Qt 3D viewer (assimp_patch/viewer/) renders gate-101 through the
#   patched library under Xvfb (bookworm's);
# - Assimp's own test models (bookworm's source, against the system's stock
#   `assimp`): assimp_testmodels.py.
# Every test skips (77) with a message when the build cannot be made (no
# network for `apt-get source`, a missing package) or the corpus is absent.
# Not in sanitizer or fuzzer builds: the patched library is a plain build of
# its own, and one copy (the plain build tree's) is enough for the suite.
if(NOT GSIO_SANITIZE AND NOT GSIO_BUILD_FUZZERS AND TARGET gsio_tool)
  find_package(Python3 COMPONENTS Interpreter)
  foreach(suite bookworm trixie)
    if(suite STREQUAL "bookworm")
      set(gsio_ap_name assimp_patched)
      set(gsio_ap_cache ${PROJECT_BINARY_DIR}/assimp-patched)
    else()
      set(gsio_ap_name assimp_patched_${suite})
      set(gsio_ap_cache ${PROJECT_BINARY_DIR}/assimp-patched-${suite})
    endif()
    set(gsio_ap_prefix ${gsio_ap_cache}/install)
    add_test(NAME ${gsio_ap_name}_build
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/assimp_patched_build.sh
              ${PROJECT_SOURCE_DIR}/assimp_patch/build-assimp.sh ${gsio_ap_cache} ${gsio_ap_prefix} ${suite})
    # The first build on a loaded machine can take several minutes.
    set_tests_properties(${gsio_ap_name}_build PROPERTIES
      SKIP_RETURN_CODE 77 TIMEOUT 2400 FIXTURES_SETUP gsio_${gsio_ap_name}
      RESOURCE_LOCK gsio_assimp_patched_build)
    if(Python3_FOUND)
      set(gsio_ap_checks info export_gate export_golem export_shadow export_bob obj gsio_writers)
      foreach(check ${gsio_ap_checks})
        add_test(NAME ${gsio_ap_name}_${check}
          COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/assimp_patched.py ${check}
                  ${gsio_ap_prefix} $<TARGET_FILE:gsio_tool> ${GSIO_CORPUS_DIR}
                  ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/${gsio_ap_name}_${check})
        set_tests_properties(${gsio_ap_name}_${check} PROPERTIES
          SKIP_RETURN_CODE 77 TIMEOUT 300 FIXTURES_REQUIRED gsio_${gsio_ap_name})
      endforeach()
    endif()
  endforeach()
  set(gsio_ap_cache ${PROJECT_BINARY_DIR}/assimp-patched)
  set(gsio_ap_prefix ${gsio_ap_cache}/install)
  # Assimp's own test models (MDL, HL1, HMP, MD5 in the unpacked source):
  # what stock `assimp info` reads, the patched one and a program calling
  # gsio_assimp_register() read too (assimp_testmodels.py).
  find_program(GSIO_STOCK_ASSIMP assimp)
  if(Python3_FOUND AND TARGET ai_register_info AND GSIO_STOCK_ASSIMP)
    add_test(NAME assimp_patched_testmodels
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/assimp_testmodels.py ${GSIO_STOCK_ASSIMP}
              ${gsio_ap_prefix} $<TARGET_FILE:ai_register_info> $<TARGET_FILE:gsio_tool>
              ${gsio_ap_cache}/pristine)
    set_tests_properties(assimp_patched_testmodels PROPERTIES
      SKIP_RETURN_CODE 77 TIMEOUT 300 FIXTURES_REQUIRED gsio_assimp_patched)
  endif()
  add_test(NAME assimp_patched_viewer
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/assimp_patched_viewer.sh
            ${gsio_ap_prefix} ${PROJECT_SOURCE_DIR}/assimp_patch/viewer ${GSIO_CORPUS_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/assimp_patched_viewer)
  set_tests_properties(assimp_patched_viewer PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 300 FIXTURES_REQUIRED gsio_assimp_patched)
endif()
