#!/bin/sh
# WMP level end to end: mdl2gltf (with --path to the game's Assets) -> GLB ->
# Khronos validator (0 errors, 0 warnings) -> Blender import (one object per
# entity and block, the lights, images with pixels: wmp_blender.py).
# usage: wmp_e2e.sh MDL2GLTF CORPUS OUTDIR E2EDIR LEVEL ENTITIES BLOCKS LIGHTS MESHES ARMATURES
# Exit 77 (skipped) without the corpus, mdl2gltf, node, the validator or Blender.
set -u
conv=$1 corpus=$2 out=$3 e2e=$4 level=$5 ents=$6 blocks=$7 lights=$8 meshes=$9 arms=${10}
. "$e2e/e2e_common.sh"
[ -f "$corpus/$level" ] || skip "corpus not found at $corpus"
e2e_need_tools "$conv" "$e2e"
mkdir -p "$out" || fail "cannot create $out"
glb="$out/$(basename "$level" .wmp).glb"
e2e_convert "$glb" "$conv" --force --path "$corpus/lottershock/Game/Assets" "$corpus/$level" -o "$glb"
e2e_validate "$glb" "$e2e"
# Blender without a pyenv/virtualenv interpreter in the way.
env -u PYTHONPATH -u PYTHONHOME -u VIRTUAL_ENV PATH=/usr/local/bin:/usr/bin:/bin \
  blender -b --factory-startup -P "$e2e/wmp_blender.py" -- "$glb" "$ents" "$blocks" "$lights" "$meshes" "$arms" 2>&1 |
  grep '^wmp_blender' > "$out/blender.txt"
cat "$out/blender.txt"
tail -1 "$out/blender.txt" | grep -q 'wmp_blender: PASS'
