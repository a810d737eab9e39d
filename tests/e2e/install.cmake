# cmake --install gives a usable package: find_package(gsio) and pkg-config.
add_test(NAME install_consumer
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install_consumer.sh ${PROJECT_BINARY_DIR} ${GSIO_CORPUS_DIR})
