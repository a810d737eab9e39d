# Models made outside gsio: a shape-key animated mesh and an armature-animated
# mesh made and exported to glTF by Blender (convert_blender_make.py) ->
# `gsio convert` through the Assimp adapter -> MDL5 / MD5 -> mdl2gltf ->
# Blender shows the same number of shape keys / bones and the same pose at
# three frames (convert_blender_check.py). No corpus needed. Skips (77)
# without Blender, mdl2gltf or the adapter.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET gsio_tool AND TARGET mdl2gltf AND Python3_FOUND)
  add_test(NAME gsio_convert_blender_roundtrip
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/convert_blender.py $<TARGET_FILE:gsio_tool>
            $<TARGET_FILE:mdl2gltf> ${CMAKE_CURRENT_BINARY_DIR}/convert_blender ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(gsio_convert_blender_roundtrip PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
