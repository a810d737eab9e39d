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
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$hmp" ] || skip "corpus not found ($hmp)"
[ -n "$conv" ] && [ -x "$conv" ] || skip "mdl2gltf is not built (blender_bridge/)"
command -v node >/dev/null 2>&1 || skip "node not installed (tools/setup-debian.sh)"
[ -d "$e2e/node_modules/gltf-validator" ] || skip "gltf-validator not installed in $e2e/node_modules"
command -v blender >/dev/null 2>&1 || skip "blender not installed"

rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
t0=$(date +%s%N)
glb=$out/$(basename "$rel" .hmp).glb
"$conv" -o "$glb" "$hmp" || fail "mdl2gltf failed on $hmp"
t1=$(date +%s%N)
[ -f "$glb" ] || fail "mdl2gltf wrote no $glb"
echo "mdl2gltf: $(wc -c <"$glb") bytes in $(( (t1 - t0) / 1000000 )) ms"

# The validator's report: every error and warning is printed, and counted.
if [ -f "$e2e/gltf_validate.js" ]; then
	node "$e2e/gltf_validate.js" "$glb" || fail "the validator rejects $glb"
else
	NODE_PATH=$e2e/node_modules node -e '
const fs = require("fs"), v = require("gltf-validator");
const file = process.argv[1];
v.validateBytes(new Uint8Array(fs.readFileSync(file)), {uri: file, maxIssues: 100}).then((r) => {
  const i = r.issues;
  for (const m of i.messages) if (m.severity <= 1) console.log((m.severity ? "warning " : "error ") + m.code + " " + m.pointer + ": " + m.message);
  console.log("validator: " + i.numErrors + " errors, " + i.numWarnings + " warnings, " + i.numInfos + " infos, " + i.numHints + " hints");
  process.exit(i.numErrors || i.numWarnings ? 1 : 0);
}).catch((e) => { console.log("validator: " + e); process.exit(1); });' "$glb" || fail "the validator rejects $glb"
fi

blender -b --factory-startup --python-exit-code 1 -P "$e2e/hmp_blender.py" -- "$glb" "$hmp" "$out" \
	>"$out/blender.log" 2>&1
status=$?
grep -E "^hmp_blender|Error|Traceback" "$out/blender.log"
[ $status -eq 0 ] || fail "Blender check failed (log: $out/blender.log)"
echo "PASS: render $out/hmp_top.png, colour map $out/hmp_colormap.png"
