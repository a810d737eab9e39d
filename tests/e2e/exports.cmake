# libgsio.so exports the public API only (C_VISIBILITY_PRESET hidden, GSIO_API
# on each public declaration): nm -D lists gsio_* names and no gsioi_ ones,
# every name the installed headers declare is there, and no other (exports.sh).
# Not in a fuzzer build: its coverage sections add linker symbols
# (__start___sancov_*) to every shared object, and nobody ships that library.
find_program(GSIO_NM nm)
if(GSIO_NM AND TARGET gsio_shared AND NOT GSIO_BUILD_FUZZERS)
  add_test(NAME libgsio_exports_public_api
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/exports.sh $<TARGET_FILE:gsio_shared> ${GSIO_PUBLIC_HEADERS})
endif()
