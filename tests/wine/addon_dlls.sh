#!/usr/bin/env bash
# The windows-x64 add-on zip carries what its programs need: every DLL that
# a program (or DLL) in the zip imports (x86_64-w64-mingw32-objdump -p, "DLL
# Name") is either in the zip or one of Windows' own. Also: the manifest
# names the platform, and both commands are there.
# usage: addon_dlls.sh ZIP        exit 0 passed, 1 failed, 77 skipped
set -uo pipefail
zip=${1:?usage: addon_dlls.sh ZIP}
case $zip in /*) ;; *) zip=$PWD/$zip ;; esac
objdump=x86_64-w64-mingw32-objdump
command -v $objdump >/dev/null 2>&1 || { echo "SKIPPED: $objdump is not installed"; exit 77; }
[ -f "$zip" ] || { echo "SKIPPED: no $zip"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && python3 -m zipfile -e "$zip" .) || exit 1
failed=0
# Windows' own DLLs (present on every Windows 7+ system).
system=" kernel32.dll msvcrt.dll shell32.dll user32.dll advapi32.dll ws2_32.dll ntdll.dll bcrypt.dll
  ole32.dll shlwapi.dll gdi32.dll ucrtbase.dll "
for prog in gsio.exe mdl2gltf.exe; do
  [ -f "$work/gsio_blender/bin/$prog" ] || { echo "FAIL $prog is not in the zip"; failed=1; }
done
grep -q '^platforms = \["windows-x64"\]' "$work/gsio_blender/blender_manifest.toml" \
  || { echo "FAIL the manifest names no windows-x64 platform"; failed=1; }
shipped=$(cd "$work" && find . -iname '*.dll' -printf '%f\n' | tr 'A-Z' 'a-z')
while IFS= read -r f; do
  while IFS= read -r dll; do
    low=$(echo "$dll" | tr 'A-Z' 'a-z')
    if [[ $system == *" $low "* || $low == api-ms-win-* ]]; then
      echo "ok   ${f#$work/} imports $dll (Windows)"
    elif grep -qx "$low" <<<"$shipped"; then
      echo "ok   ${f#$work/} imports $dll (in the zip)"
    else
      echo "FAIL ${f#$work/} imports $dll, which is neither in the zip nor Windows' own"
      failed=1
    fi
  done < <($objdump -p "$f" | sed -n 's/^[[:space:]]*DLL Name: //p')
done < <(find "$work" -type f \( -iname '*.exe' -o -iname '*.dll' \))
exit $failed
