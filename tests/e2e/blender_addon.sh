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
rm -rf "$out" && mkdir -p "$out/user/config" "$out/user/scripts" "$out/user/extensions" "$out/tmp" "$out/files" || exit 1
# A fresh user folder, a private TMPDIR (the script checks that no temporary
# file is left), and no pyenv/virtualenv interpreter in Blender's way.
set -- env -u PYTHONPATH -u PYTHONHOME -u VIRTUAL_ENV PATH=/usr/local/bin:/usr/bin:/bin \
  BLENDER_USER_CONFIG="$out/user/config" BLENDER_USER_SCRIPTS="$out/user/scripts" \
  BLENDER_USER_EXTENSIONS="$out/user/extensions" TMPDIR="$out/tmp"
version=$("$@" blender -b --version 2>/dev/null | sed -n 's/^Blender \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' | head -n 1)
echo "blender_addon: Blender $version"
set -- "$@" blender -b
if [ "${version% *}" -gt 4 ] || { [ "${version% *}" -eq 4 ] && [ "${version#* }" -ge 2 ]; }; then
  # Blender 4.2+: the zip is an extension; its manifest passes Blender's
  # own check, and the README's 4.2+ command installs it from disk.
  "$@" --command extension validate "$zip" > "$out/validate.txt" 2>&1 \
    || { cat "$out/validate.txt"; echo "FAIL: blender --command extension validate"; exit 1; }
  "$@" --python-expr "import bpy; bpy.ops.extensions.package_install_files(filepath='$zip', repo='user_default', enable_on_install=True); bpy.ops.wm.save_userpref()" \
    > "$out/install.txt" 2>&1 || { cat "$out/install.txt"; echo "FAIL: install"; exit 1; }
else
  # The README's one-line install.
  "$@" --python-expr "import bpy; bpy.ops.preferences.addon_install(filepath='$zip', overwrite=True); bpy.ops.preferences.addon_enable(module='gsio_blender'); bpy.ops.wm.save_userpref()" \
    > "$out/install.txt" 2>&1 || { cat "$out/install.txt"; echo "FAIL: install"; exit 1; }
fi
"$@" -P "$script" -- "$corpus" "$out/files" > "$out/blender.txt" 2>&1
status=$?
grep '^blender_addon\|Error\|Traceback' "$out/blender.txt"
[ $status -eq 0 ] && tail -1 "$out/blender.txt" | grep -q 'blender_addon: PASS'
