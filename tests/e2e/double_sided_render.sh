#!/usr/bin/env bash
# A model whose every face is stored twice (once each way round) must render
# like the same model stored once: samples/double_sided.mdl against
# samples/pal8.mdl (the same box, the same skin drawn through another pixel
# format), both converted with mdl2gltf and rendered with Cycles
# (blender_bridge/render.py); the mean RGB difference must stay under 2/255.
# Splitting the pair into two coincident faces with their own normals renders
# the box black (difference ~90): that is what this test catches.
# usage: double_sided_render.sh MDL2GLTF SOURCE_DIR OUT_DIR  (77: skipped)
set -u
conv=$1 src=$2 out=$3
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
command -v blender >/dev/null 2>&1 || skip "blender not installed"
rm -rf "$out" && mkdir -p "$out"
for m in double_sided pal8; do
  "$conv" --quiet --force -o "$out/$m.glb" "$src/samples/$m.mdl" || fail "mdl2gltf $m"
  PATH=$(echo "$PATH" | tr ':' '\n' | grep -v -e pyenv -e virtualenv | paste -sd:) \
    env -u PYENV_VERSION -u VIRTUAL_ENV -u PYTHONHOME -u PYTHONPATH \
    blender -b --factory-startup --python-exit-code 1 -P "$src/blender_bridge/render.py" -- \
    "$out/$m.glb" "$out/$m.png" >"$out/$m.log" 2>&1 || { tail -20 "$out/$m.log"; fail "render $m"; }
done
d=$(python3 "$src/tests/e2e/png_diff.py" "$out/double_sided.png" "$out/pal8.png") || fail "png_diff"
echo "double-sided vs single-sided render: mean RGB difference $d (of 255)"
python3 -c "import sys; sys.exit(0 if float('$d') < 2.0 else 1)" || fail "renders differ by $d"
echo "PASS: $out/double_sided.png renders like $out/pal8.png"
