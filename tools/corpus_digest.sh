#!/usr/bin/env bash
# Prints one line per conversion of every file in a corpus folder: the
# command's mode, the input, its exit status and a SHA-256 of everything it
# wrote (output files, stdout, stderr). Two builds that give the same lines
# convert the corpus byte for byte alike; run it before and after a change
# that must not change any output and diff the two:
#
#   bash tools/corpus_digest.sh build ../shared/corpus > before.txt
#   ... change, rebuild ...
#   bash tools/corpus_digest.sh build ../shared/corpus > after.txt
#   diff before.txt after.txt
#
# Modes: gsio convert to .glb, .gltf (with its .bin and PNGs), --compact
# .glb, --axes source .glb, MDL5, HMP5 (terrains), MD5 (--no-animation for
# models without bones), mdl2gltf to .glb, and gsio info (text and --json).
# Levels get every folder of the corpus that holds models as --path.
set -uo pipefail
build=${1:?usage: corpus_digest.sh BUILD_DIR CORPUS_DIR}
corpus=${2:?usage: corpus_digest.sh BUILD_DIR CORPUS_DIR}
build=$(cd "$build" && pwd)
corpus=$(cd "$corpus" && pwd)
gsio="$build/tools/gsio"
mdl2gltf="$build/blender_bridge/mdl2gltf"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Every folder that holds a model, for the levels' --path.
paths=()
while IFS= read -r d; do paths+=(--path "$d"); done < <(
  find "$corpus" -type f -iname '*.mdl' -printf '%h\n' | LC_ALL=C sort -u)

# Paths and timings are taken out of what a command prints.
norm() {
  sed -E "s#$work/o#OUT#g; s#$corpus#CORPUS#g; s#\"seconds\":[-+.0-9eE]+#\"seconds\":T#g; s#in [0-9]+\.[0-9]+ s#in T s#g"
}

# run MODE INPUT CMD...: runs CMD in an empty folder $work/o, prints the line.
run() {
  local mode=$1 input=$2
  shift 2
  rm -rf "$work/o"
  mkdir -p "$work/o"
  (cd "$work/o" && "$@" > "$work/stdout" 2> "$work/stderr")
  local rc=$?
  local sum
  sum=$( (cd "$work/o" && find . -type f | LC_ALL=C sort | while IFS= read -r f; do
            printf '%s ' "$f"; sha256sum < "$f"; done
          norm < "$work/stdout" | sha256sum
          norm < "$work/stderr" | sha256sum) | sha256sum)
  printf '%-10s %-70s %3d %s\n' "$mode" "${input#$corpus/}" "$rc" "${sum%% *}"
}

find "$corpus" -type f \( -iname '*.mdl' -o -iname '*.hmp' -o -iname '*.md5mesh' \
    -o -iname '*.md5anim' -o -iname '*.md5camera' -o -iname '*.wmp' \) | LC_ALL=C sort |
while IFS= read -r f; do
  extra=()
  case "${f,,}" in *.wmp) extra=("${paths[@]}") ;; esac
  o="$work/o"
  run glb "$f" "$gsio" convert "$f" -o "$o/x.glb" "${extra[@]}"
  run gltf "$f" "$gsio" convert "$f" -o "$o/x.gltf" "${extra[@]}"
  run m2g "$f" "$mdl2gltf" -j 1 "$f" -o "$o/x.glb" "${extra[@]}"
  run m2g-cmp "$f" "$mdl2gltf" -j 1 --compact "$f" -o "$o/x.glb" "${extra[@]}"
  run m2g-src "$f" "$mdl2gltf" -j 1 --axes source --no-animation "$f" -o "$o/x.glb" "${extra[@]}"
  case "${f,,}" in
    *.wmp) ;;
    *.hmp)
      run hmp5 "$f" "$gsio" convert "$f" -o "$o/x.hmp"
      run hmp5-565 "$f" "$gsio" convert "$f" -o "$o/x.hmp" --skin-format 565 --mipmaps ;;
    *)
      run mdl5 "$f" "$gsio" convert "$f" -o "$o/x.mdl"
      run mdl5-pal "$f" "$gsio" convert "$f" -o "$o/x.mdl" --skin-format pal8 --dither
      run md5 "$f" "$gsio" convert "$f" -o "$o/x.md5mesh"
      run md5-noan "$f" "$gsio" convert "$f" -o "$o/x.md5mesh" --no-animation ;;
  esac
  run info "$f" "$gsio" info "$f" "${extra[@]}"
  run info-json "$f" "$gsio" info --json "$f" "${extra[@]}"
done
