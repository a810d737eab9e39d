#!/usr/bin/env bash
# The Qt 3D viewer (assimp_patch/viewer/viewer.qml) opens gate-101.mdl
# through Qt 3D's Assimp scene-import plugin with LD_LIBRARY_PATH at the
# patched libassimp (so gsio reads it), under Xvfb, and saves a frame:
# the frame must show the model textured (assimp_patched_viewer.py).
# usage: assimp_patched_viewer.sh PREFIX VIEWER_DIR CORPUS_DIR OUT_DIR
# Exit 77 (skipped) without the patched build, the corpus, Qt 6's qml
# runtime, the plugin or Xvfb (tools/setup-debian.sh installs them).
set -u
prefix=$1 viewer=$2 corpus=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
model=$corpus/mdl/gate-101.mdl
[ -f "$model" ] || skip "corpus not found ($model)"
[ -x "$prefix/bin/assimp" ] || skip "the patched Assimp is not built ($prefix; assimp_patched_build)"
qml=/usr/lib/qt6/bin/qml
[ -x "$qml" ] || skip "Qt 6's qml runtime is not installed (qml-qt6)"
ls /usr/lib/*/qt6/plugins/sceneparsers/libassimpsceneimport.so >/dev/null 2>&1 \
  || skip "Qt 3D's Assimp scene-import plugin is not installed (qt6-3d-assimpsceneimport-plugin)"
command -v xvfb-run >/dev/null 2>&1 || skip "xvfb-run is not installed (xvfb)"

rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
# The skin, decoded by gsio inside the patched library: Qt 3D's plugin draws
# no embedded texture and none on a mesh with morph targets, so the viewer
# is handed the image (see viewer.qml).
# assimp extract cuts its output name at the first '.' of the whole path (a
# build under /tmp/tmp.XXXX wrote /tmp/tmp_img0.png): it runs inside $out
# with a name that has no dot.
(cd "$out" && "$prefix/bin/assimp" extract "$model" gate-101) >"$out/extract.log" 2>&1 \
  || { cat "$out/extract.log"; fail "assimp extract failed"; }
skin=$out/gate-101_img0.png
[ -f "$skin" ] || { cat "$out/extract.log"; fail "assimp extract wrote no $skin"; }

png=$out/gate-101_qt3d.png
LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} XDG_RUNTIME_DIR=$out \
  timeout 120 xvfb-run -a -s "-screen 0 1024x768x24" \
  "$qml" "$viewer/viewer.qml" -- "$model" "$png" --texture "$skin" >"$out/viewer.log" 2>&1
status=$?
grep "viewer:" "$out/viewer.log"
if [ $status -eq 139 ] || [ $status -eq 134 ]; then
  # Qt 3D's plugin looks up the node each aiMeshMorphAnim names and uses it
  # unchecked: a morph animation named after the mesh, not its node, crashes it.
  fail "the viewer crashed (status $status) in Qt 3D's Assimp plugin: does every aiMeshMorphAnim name the node holding its mesh? (log: $out/viewer.log)"
fi
[ $status -eq 0 ] || { tail -n 20 "$out/viewer.log"; fail "the viewer exited with $status (log: $out/viewer.log)"; }
grep -q "viewer: loaded" "$out/viewer.log" || fail "the viewer did not load $model"
# Stock Assimp reads gate-101's first frame only (no morph targets): a mesh
# with morph targets means the plugin's libassimp was the patched one.
grep -q "viewer: 1 morph-target meshes drawn" "$out/viewer.log" \
  || fail "the viewer found no morph-target mesh: gsio's frames did not reach Qt 3D"
python3 "$here/assimp_patched_viewer.py" "$png" || fail "the frame does not show the textured model ($png)"
echo "PASS: $png"
