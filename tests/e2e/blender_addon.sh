#!/bin/sh
# The Blender add-on end to end (blender_addon.cmake).
# usage: blender_addon.sh ZIP CORPUS OUTDIR SCRIPT
# Exit 77 (skipped) without Blender or the corpus.
set -u
zip=$1 corpus=$2 out=$3 script=$4
command -v blender >/dev/null || { echo "SKIPPED: blender not found"; exit 77; }
[ -f "$corpus/mdl/gate-101.mdl" ] && [ -f "$corpus/lottershock/Game/Level/bestiary.wmp" ] ||
  { echo "SKIPPED: corpus not found at $corpus"; exit 77; }
[ -f "$zip" ] || { echo "FAIL: $zip not built (cmake --build build --target blender-addon)"; exit 1; }
rm -rf "$out" && mkdir -p "$out/user/config" "$out/user/scripts" "$out/tmp" "$out/files" || exit 1
# A fresh user folder, a private TMPDIR (the script checks that no temporary
# file is left), and no pyenv/virtualenv interpreter in Blender's way.
set -- env -u PYTHONPATH -u PYTHONHOME -u VIRTUAL_ENV PATH=/usr/local/bin:/usr/bin:/bin \
  BLENDER_USER_CONFIG="$out/user/config" BLENDER_USER_SCRIPTS="$out/user/scripts" TMPDIR="$out/tmp"
# The README's one-line install.
"$@" blender -b --python-expr "import bpy; bpy.ops.preferences.addon_install(filepath='$zip', overwrite=True); bpy.ops.preferences.addon_enable(module='gsio_blender'); bpy.ops.wm.save_userpref()" \
  > "$out/install.txt" 2>&1 || { cat "$out/install.txt"; echo "FAIL: install"; exit 1; }
"$@" blender -b -P "$script" -- "$corpus" "$out/files" > "$out/blender.txt" 2>&1
status=$?
grep '^blender_addon\|Error\|Traceback' "$out/blender.txt"
[ $status -eq 0 ] && tail -1 "$out/blender.txt" | grep -q 'blender_addon: PASS'
