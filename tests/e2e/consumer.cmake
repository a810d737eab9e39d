# A scene built by a program that sees only the installed gsio:
# builder -> validator -> GLB -> Khronos validator -> Blender.
if(TARGET gsio_gltf AND NOT GSIO_SANITIZE AND NOT GSIO_BUILD_FUZZERS)
  add_test(NAME installed_api_scene_glb
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consumer/scene_consumer.sh ${PROJECT_BINARY_DIR}
            ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(installed_api_scene_glb PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
