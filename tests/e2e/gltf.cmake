# glTF bridge end to end (blender_bridge/): mdl2gltf over the corpus and the
# samples with the Khronos validator (gltf_corpus.py), Blender imports
# (gltf_blender.py + gltf_blender_check.py), the synthetic scenes of
# test_gltf_scene and test_gltf_morph through the validator, and the
# command's behaviour (cli_mdl2gltf.py). Tests that need the corpus, node or
# Blender exit 77 and are reported as skipped when those are absent.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET mdl2gltf AND Python3_FOUND)
  set(gsio_gltf_e2e ${CMAKE_CURRENT_SOURCE_DIR})
  set(gsio_gltf_work ${CMAKE_CURRENT_BINARY_DIR}/gltf)

  add_test(NAME gltf_corpus_validator
    COMMAND ${Python3_EXECUTABLE} ${gsio_gltf_e2e}/gltf_corpus.py $<TARGET_FILE:mdl2gltf>
            ${GSIO_CORPUS_DIR} ${PROJECT_SOURCE_DIR}/samples ${gsio_gltf_work}/corpus ${gsio_gltf_e2e})
  set_tests_properties(gltf_corpus_validator PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

  # test_gltf_scene and test_gltf_morph write their synthetic scenes
  # (instances, skins, lights, extras, morphs) when GSIO_GLTF_DUMP_DIR is
  # set; the validator checks them.
  add_test(NAME gltf_synthetic_validator
    COMMAND sh -c "rm -rf \"$1\" && mkdir -p \"$1\" && for t in \"$2\" \"$4\"; do GSIO_GLTF_DUMP_DIR=\"$1\" \"$t\" >/dev/null 2>&1; done; command -v node >/dev/null || { echo 'SKIPPED: node is not installed'; exit 77; }; [ -d \"$3/node_modules/gltf-validator\" ] || { echo 'SKIPPED: gltf-validator is not installed (tools/setup-debian.sh)'; exit 77; }; node \"$3/gltf_validate.js\" \"$1\"/*.glb"
            sh ${gsio_gltf_work}/synthetic $<TARGET_FILE:test_gltf_scene> ${gsio_gltf_e2e}
            $<TARGET_FILE:test_gltf_morph>)
  set_tests_properties(gltf_synthetic_validator PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
    FIXTURES_SETUP gltf_synthetic)

  # --compact (KHR_mesh_quantization): the validator on every corpus
  # MDL/HMP/MD5, golem.glb no larger than golem.mdl, and Blender's import
  # of the compact golem against the float one.
  add_test(NAME gltf_compact_validator
    COMMAND ${Python3_EXECUTABLE} ${gsio_gltf_e2e}/gltf_compact.py $<TARGET_FILE:mdl2gltf>
            ${GSIO_CORPUS_DIR} ${gsio_gltf_work}/compact ${gsio_gltf_e2e})
  add_test(NAME gltf_compact_blender
    COMMAND ${Python3_EXECUTABLE} ${gsio_gltf_e2e}/gltf_compact.py $<TARGET_FILE:mdl2gltf>
            ${GSIO_CORPUS_DIR} ${gsio_gltf_work}/compact_blender ${gsio_gltf_e2e} blender)
  set_tests_properties(gltf_compact_validator gltf_compact_blender PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

  add_test(NAME gltf_blender_import
    COMMAND ${Python3_EXECUTABLE} ${gsio_gltf_e2e}/gltf_blender.py $<TARGET_FILE:mdl2gltf>
            $<TARGET_FILE:gsio_tool> ${GSIO_CORPUS_DIR} ${PROJECT_SOURCE_DIR}/samples
            ${gsio_gltf_work}/blender ${gsio_gltf_e2e} ${gsio_gltf_work}/synthetic)
  set_tests_properties(gltf_blender_import PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800
    FIXTURES_REQUIRED gltf_synthetic)

  foreach(gsio_cli_case batch noforce jobs usage options help sigint writeerr)
    add_test(NAME cli_mdl2gltf_${gsio_cli_case}
      COMMAND ${Python3_EXECUTABLE} ${gsio_gltf_e2e}/cli_mdl2gltf.py ${gsio_cli_case}
              $<TARGET_FILE:mdl2gltf> ${GSIO_CORPUS_DIR} ${gsio_gltf_work}/cli_${gsio_cli_case})
    set_tests_properties(cli_mdl2gltf_${gsio_cli_case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  endforeach()
endif()

