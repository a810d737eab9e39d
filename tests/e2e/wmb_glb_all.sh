#!/bin/sh
# Every compiled level of the corpus (WMB6 and WMB7) -> mdl2gltf --path
# Game/Assets -> GLB -> Khronos validator: 0 errors, 0 warnings each.
# usage: wmb_glb_all.sh MDL2GLTF CORPUS OUTDIR E2EDIR
# Exit 77 (skipped) without the corpus, mdl2gltf, node or the validator.
set -u
conv=$1 corpus=$2 out=$3 e2e=$4
. "$e2e/e2e_common.sh"
[ -d "$corpus/wmb" ] || skip "corpus not found at $corpus"
e2e_need_tools "$conv" "$e2e"
mkdir -p "$out" || fail "cannot create $out"
n=0
for level in "$corpus"/wmp/*.wmb "$corpus"/wmb/*.wmb "$corpus"/lottershock/Game/Level/*.wmb; do
	glb="$out/$(basename "$level" .wmb).glb"
	e2e_convert "$glb" "$conv" --force --path "$corpus/lottershock/Game/Assets" "$level" -o "$glb"
	e2e_validate "$glb" "$e2e"
	n=$((n + 1))
done
[ "$n" -ge 13 ] || fail "only $n compiled levels found"
echo "wmb_glb_all: $n compiled levels, each 0 errors and 0 warnings"
