# The add-on's Python as on Windows (os.name "nt", bpy stood in for): it
# finds gsio.exe and mdl2gltf.exe and passes Windows paths as one argument
# each (addon_windows_names.py).
add_test(NAME addon_finds_exe_and_passes_windows_paths
  COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/addon_windows_names.py
          ${PROJECT_SOURCE_DIR}/blender_bridge/addon/gsio_blender/__init__.py)
