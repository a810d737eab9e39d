# Inputs checked before they are read and files the glTF must take
# (inputs_checked.py): WADs named for what they are, compiled levels read, a
# 100 MB file of zeros named x.mdl refused after its first bytes, a FIFO
# refused at once; empty MD5 meshes, PNG textures with colour statements
# and the corpus's lottershock and Bob through the validator.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET mdl2gltf AND TARGET gsio_tool AND Python3_FOUND)
  set(gsio_inputs_work ${CMAKE_CURRENT_BINARY_DIR}/inputs_checked)
  add_test(NAME cli_inputs_checked
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/inputs_checked.py cli
            $<TARGET_FILE:gsio_tool> $<TARGET_FILE:mdl2gltf> ${GSIO_CORPUS_DIR} ${gsio_inputs_work}/cli)
  add_test(NAME gltf_inputs_validator
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/inputs_checked.py gltf
            $<TARGET_FILE:mdl2gltf> ${GSIO_CORPUS_DIR} ${gsio_inputs_work}/gltf
            ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/tests/data)
  set_tests_properties(cli_inputs_checked gltf_inputs_validator PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
