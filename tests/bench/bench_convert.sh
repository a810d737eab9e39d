#!/usr/bin/env bash
# Conversion benchmark: mdl2gltf against `assimp export` (Assimp's own
# loaders and glTF exporter) on the same files, in the same run. Prints per
# file the best of N wall times, the output size, and what the Khronos
# validator says of each output (errors/warnings). Figures, not a test.
# usage: tests/bench/bench_convert.sh BUILD_DIR [N] FILE...
set -uo pipefail
build=$1; shift
n=3
if [[ ${1:-} =~ ^[0-9]+$ ]]; then n=$1; shift; fi
here=$(cd "$(dirname "$0")/../.." && pwd)
validate="$here/tests/e2e/gltf_validate.js"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
best() { # best wall seconds of n runs of "$@"
  local b=999999 s e t
  for _ in $(seq "$n"); do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; local rc=$?; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc); (( $(echo "$t < $b" | bc) )) && b=$t
  done
  [ $rc -eq 0 ] && printf '%.3f' "$b" || printf 'failed'
}
verdict() {
  [ -f "$1" ] || { printf 'no output'; return; }
  node "$validate" "$1" 2>/dev/null | head -n1 | sed -E 's/.*: ([0-9]+) errors, ([0-9]+) warnings.*/\1 err, \2 warn/'
}
printf '%-28s %10s %10s %-16s %10s %10s %-16s\n' file gsio_s gsio_KB gsio_valid assimp_s assimp_KB assimp_valid
for f in "$@"; do
  b=$(basename "$f"); stem=${b%.*}
  g="$tmp/$stem.gsio.glb"; a="$tmp/$stem.assimp.glb"
  tg=$(best "$build/blender_bridge/mdl2gltf" --force -j 1 --quiet "$f" -o "$g")
  ta=$(best assimp export "$f" "$a" -fglb2)
  sg=$([ -f "$g" ] && echo $(( $(stat -c %s "$g") / 1024 )) || echo -)
  sa=$([ -f "$a" ] && echo $(( $(stat -c %s "$a") / 1024 )) || echo -)
  printf '%-28s %10s %10s %-16s %10s %10s %-16s\n' "$b" "$tg" "$sg" "$(verdict "$g")" "$ta" "$sa" "$(verdict "$a")"
done
