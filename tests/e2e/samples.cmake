# samples/ holds files the project generates itself (tools/gen_samples.c).
# They are committed; this test fails when they differ from what the
# generator writes now (regenerate with `cmake --build . --target samples`).
if(TARGET gsio_gen_samples)
  add_test(NAME samples_fresh
    COMMAND gsio_gen_samples --check ${PROJECT_SOURCE_DIR}/samples)
endif()
