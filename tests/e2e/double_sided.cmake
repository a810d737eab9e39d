# Double-sided faces render like single-sided ones: a Cycles render
# of samples/double_sided.mdl against samples/pal8.mdl.
if(TARGET mdl2gltf)
  add_test(NAME double_sided_render
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/double_sided_render.sh $<TARGET_FILE:mdl2gltf>
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/double_sided)
  set_tests_properties(double_sided_render PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
