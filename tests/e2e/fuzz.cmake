# Fuzz regressions: every input in tests/fuzz/regress/ (crashers, hangs and
# leaks the fuzzer found, each fixed) and every samples/*.mdl (as an MDL:
# --prefix 0) replays through fuzz_load_replay, which checks the scene it
# gets and aborts on any broken promise; the test fails when it aborts or
# crashes. Under GSIO_SANITIZE the same replay runs with ASan + UBSan (see
# also fuzz_regress in tests/fuzz/, which the `ctest -LE e2e` ASan run keeps).
file(GLOB gsio_fuzz_regress CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/fuzz/regress/*.bin)
file(GLOB gsio_fuzz_samples CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/samples/*.mdl)
add_test(NAME e2e_fuzz_regress
  COMMAND $<TARGET_FILE:fuzz_load_replay> -v ${gsio_fuzz_regress} --prefix 0 ${gsio_fuzz_samples})
set_tests_properties(e2e_fuzz_regress PROPERTIES TIMEOUT 300)
