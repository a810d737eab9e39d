# A real game engine reads gsio's GLB output: mdl2gltf converts corpus MDL,
# HMP and MD5 files, and every MDL under lottershock with bones or
# more than one frame (the test walks the folder), into fresh Godot 3
# projects, the headless editor (Debian's godot3-server 3.2.3) imports them,
# and a GDScript reports the meshes, blend shapes, skeletons, animations and
# skin binds (at rest and mid-animation) Godot made, which godot_import.py
# compares with the .glb; test_gltf_morph's GLB of 1100 frames in clips
# (sparse weights) too. Skipped (exit 77) without the
# corpus or godot3-server. Every Godot run has its own time limit (3.2.3
# spins for ever on some glTF inputs), well inside the test's TIMEOUT.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET mdl2gltf AND TARGET gsio_tool AND TARGET test_gltf_morph AND Python3_FOUND)
  add_test(NAME godot_import
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/godot_import.py
            $<TARGET_FILE:mdl2gltf> $<TARGET_FILE:gsio_tool> ${GSIO_CORPUS_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/godot ${CMAKE_CURRENT_SOURCE_DIR}/godot
            $<TARGET_FILE:test_gltf_morph>)
  set_tests_properties(godot_import PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
