#!/bin/sh
# MD5 end to end: a corpus model -> GLB with mdl2gltf -> Khronos glTF
# validator (0 errors, 0 warnings) -> numeric pose check of the GLB against
# the MD5 text (md5_gltf_pose.py: skin, axis change, inverse bind matrices,
# animation at several frames within 1e-4) -> Blender's glTF importer
# (md5_blender.py: meshes, bones, one action, images, winding, renders).
#
# usage: md5_e2e.sh MDL2GLTF CORPUS_DIR OUT_DIR E2E_DIR bob|cube
# Exit 77 (ctest SKIP_RETURN_CODE) when the corpus, mdl2gltf, node, the
# validator, numpy or Blender is missing; 1 on any failure.
set -u
conv=$1 corpus=$2 out=$3 e2e=$4 model=$5
case $model in
bob) src=$corpus/md5/bob/Bob.md5mesh anims=$corpus/md5/bob/Bob.md5anim base=Bob
     meshes=6 bones=33 frames=140 images=5 ;;
cube) src=$corpus/md5/SimpleCube.md5mesh anims= base=SimpleCube
      meshes=1 bones=3 frames=0 images=0 ;;
*) echo "unknown model $model"; exit 1 ;;
esac
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$src" ] || skip "corpus not found ($src)"
[ -n "$conv" ] && [ -x "$conv" ] || skip "mdl2gltf is not built (blender_bridge/)"
command -v node >/dev/null 2>&1 || skip "node not installed (tools/setup-debian.sh)"
[ -d "$e2e/node_modules/gltf-validator" ] || skip "gltf-validator not installed in $e2e/node_modules"
command -v blender >/dev/null 2>&1 || skip "blender not installed"
py=
for p in /usr/bin/python3 python3; do
	if "$p" -c "import numpy" >/dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || skip "no python3 with numpy (python3-numpy)"

rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
t0=$(date +%s%N)
"$conv" -o "$out" "$src" || fail "mdl2gltf failed on $src"
t1=$(date +%s%N)
glb=$out/$base.glb
[ -f "$glb" ] || glb=$out/$base.gltf
[ -f "$glb" ] || fail "mdl2gltf wrote no $out/$base.glb or .gltf"
echo "mdl2gltf: $(wc -c <"$glb") bytes in $(( (t1 - t0) / 1000000 )) ms"

# The validator's report: every error and warning is printed, and counted.
if [ -f "$e2e/gltf_validate.js" ]; then
	node "$e2e/gltf_validate.js" "$glb" || fail "the validator rejects $glb"
else
	NODE_PATH=$e2e/node_modules node -e '
const fs = require("fs"), path = require("path"), v = require("gltf-validator");
const file = process.argv[1];
const ext = (uri) => new Promise((ok, bad) => fs.readFile(path.join(path.dirname(file), uri), (e, d) => e ? bad(e) : ok(new Uint8Array(d))));
v.validateBytes(new Uint8Array(fs.readFileSync(file)), {uri: file, maxIssues: 100, externalResourceFunction: ext}).then((r) => {
  const i = r.issues;
  for (const m of i.messages) if (m.severity <= 1) console.log((m.severity ? "warning " : "error ") + m.code + " " + m.pointer + ": " + m.message);
  console.log("validator: " + i.numErrors + " errors, " + i.numWarnings + " warnings, " + i.numInfos + " infos, " + i.numHints + " hints");
  process.exit(i.numErrors || i.numWarnings ? 1 : 0);
}).catch((e) => { console.log("validator: " + e); process.exit(1); });' "$glb" || fail "the validator rejects $glb"
fi

# shellcheck disable=SC2086 # anims is a list
"$py" "$e2e/md5_gltf_pose.py" "$glb" "$src" $anims || fail "pose check failed"

blender -b --factory-startup --python-exit-code 1 -P "$e2e/md5_blender.py" -- "$glb" "$out" \
	$meshes $bones $frames $images "$model" >"$out/blender.log" 2>&1
status=$?
grep -E "^md5_blender|Error|Traceback" "$out/blender.log"
[ $status -eq 0 ] || fail "Blender check failed (log: $out/blender.log)"
echo "PASS: renders in $out/${model}_*.png"
