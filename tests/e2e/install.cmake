# cmake --install gives a usable package: find_package(gsio) and pkg-config.
# Not in a sanitizer build: its libgsio needs the sanitizer runtimes, which a
# plain consumer does not link.
if(NOT GSIO_SANITIZE AND NOT GSIO_BUILD_FUZZERS)
  add_test(NAME install_consumer
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install_consumer.sh ${PROJECT_BINARY_DIR} ${GSIO_CORPUS_DIR})
endif()
