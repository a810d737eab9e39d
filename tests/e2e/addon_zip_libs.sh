#!/bin/sh
# The add-on zip depends on nothing the user installs (blender_addon.cmake):
# unpacked, `ldd` of every binary in it (the commands in bin/, the libraries
# in lib/) names only the C/C++ runtime and zlib from the system, and every
# other library it names resolves inside the unpacked zip. The commands run
# from there (`gsio --version`, `mdl2gltf --help`).
# usage: addon_zip_libs.sh ZIP OUTDIR
set -u
zip=$1 out=$2
[ -f "$zip" ] || { echo "FAIL: $zip not built"; exit 1; }
command -v ldd >/dev/null || { echo "SKIPPED: ldd not found"; exit 77; }
rm -rf "$out" && mkdir -p "$out" || exit 1
python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$zip" "$out" || exit 1
root=$(cd "$out" && pwd)
chmod +x "$root"/gsio_blender/bin/* 2>/dev/null
echo "zip: $(wc -c <"$zip") bytes"
fails=0 binaries=0
for f in $(find "$root" -type f); do
  head -c 4 "$f" | grep -q 'ELF' || continue
  binaries=$((binaries + 1))
  ldd "$f" >"$out/ldd.txt" 2>&1
  while read -r name arrow path rest; do
    case $name in
      linux-vdso.so.*|ld-linux*.so.*|/lib*/ld-linux*.so.*|libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|libpthread.so.*|libdl.so.*|libz.so.*)
        continue ;;
    esac
    if [ "$arrow" != "=>" ] || [ "$path" = "not" ]; then
      echo "FAIL: ${f#$root/}: $name $arrow $path $rest"
      fails=$((fails + 1))
    else
      case $path in
        "$root"/*) ;;
        *) echo "FAIL: ${f#$root/} loads $name from the system: $path"; fails=$((fails + 1)) ;;
      esac
    fi
  done <"$out/ldd.txt"
  echo "${f#$root/}: $(awk '{print $1}' "$out/ldd.txt" | tr '\n' ' ')"
done
[ $binaries -ge 2 ] || { echo "FAIL: $binaries binaries in the zip (expected gsio and mdl2gltf at least)"; exit 1; }
"$root/gsio_blender/bin/gsio" --version >/dev/null 2>&1 || { echo "FAIL: the zip's gsio does not run"; fails=$((fails + 1)); }
"$root/gsio_blender/bin/mdl2gltf" --help >/dev/null 2>&1 || { echo "FAIL: the zip's mdl2gltf does not run"; fails=$((fails + 1)); }
[ $fails -eq 0 ] || exit 1
echo "PASS: $binaries binaries, system libraries only the C/C++ runtime and zlib"
