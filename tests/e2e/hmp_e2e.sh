#!/bin/sh
# HMP end to end: a corpus terrain (default hmp/shadow-5.hmp) -> GLB with
# mdl2gltf -> Khronos glTF validator (0 errors, 0 warnings) -> Blender's glTF
# importer (vertex count, texture, a top-down render compared with the colour
# map: hmp_blender.py).
#
# usage: hmp_e2e.sh MDL2GLTF CORPUS_DIR OUT_DIR E2E_DIR [CORPUS_FILE]
# Exit 77 (ctest SKIP_RETURN_CODE) when the corpus, mdl2gltf, node, the
# validator or Blender is missing; 1 on any failure.
set -u
conv=$1 corpus=$2 out=$3 e2e=$4 rel=${5:-hmp/shadow-5.hmp}
hmp=$corpus/$rel
. "$e2e/e2e_common.sh"
[ -f "$hmp" ] || skip "corpus not found ($hmp)"
e2e_need_tools "$conv" "$e2e"

rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
glb=$out/$(basename "$rel" .hmp).glb
e2e_convert "$glb" "$conv" -o "$glb" "$hmp"
e2e_validate "$glb" "$e2e"
e2e_blender hmp_blender "$out/blender.log" "$e2e/hmp_blender.py" "$glb" "$hmp" "$out"
echo "PASS: render $out/hmp_top.png, colour map $out/hmp_colormap.png"
