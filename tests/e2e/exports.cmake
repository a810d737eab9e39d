# libgsio.so exports the public API only (C_VISIBILITY_PRESET hidden, GSIO_API
# on each public declaration): nm -D lists gsio_* names and no gsioi_ ones,
# and every name the installed headers declare is there (exports.sh).
find_program(GSIO_NM nm)
if(GSIO_NM AND TARGET gsio_shared)
  add_test(NAME exports
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/exports.sh $<TARGET_FILE:gsio_shared> ${GSIO_PUBLIC_HEADERS})
endif()
