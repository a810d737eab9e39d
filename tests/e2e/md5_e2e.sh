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
. "$e2e/e2e_common.sh"
[ -f "$src" ] || skip "corpus not found ($src)"
e2e_need_tools "$conv" "$e2e"
py=
for p in /usr/bin/python3 python3; do
	if "$p" -c "import numpy" >/dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || skip "no python3 with numpy (python3-numpy)"

rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
glb=$out/$base.glb
e2e_convert "$glb" "$conv" -o "$out" "$src"
e2e_validate "$glb" "$e2e"

# shellcheck disable=SC2086 # anims is a list
"$py" "$e2e/md5_gltf_pose.py" "$glb" "$src" $anims || fail "pose check failed"

# shellcheck disable=SC2086 # counts
e2e_blender md5_blender "$out/blender.log" "$e2e/md5_blender.py" "$glb" "$out" \
	$meshes $bones $frames $images "$model"
echo "PASS: renders in $out/${model}_*.png"
