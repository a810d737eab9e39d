#!/usr/bin/env bash
# A program compiled against the installed prefix only (pkg-config gsio_gltf,
# no source tree include path) builds a scene with the public builder,
# validates and writes it; the Khronos validator must report 0 errors and 0
# warnings, and Blender must import two objects sharing one mesh, both
# armatures and the light.
# usage: scene_consumer.sh BUILD_DIR E2E_DIR  (exit 77 when a tool is missing)
set -u
build=$1 e2e=$2
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null || fail "cmake --install"
libdir=$(ls -d "$tmp"/prefix/lib* | head -n1)
export PKG_CONFIG_PATH=$libdir/pkgconfig
pkg-config --exists gsio_gltf || fail "the installed prefix has no gsio_gltf.pc"
# Static libraries from the prefix only; -I/-L come from the .pc files.
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/scene_consumer" "$e2e/consumer/scene_consumer.c" \
  $(pkg-config --cflags --libs --static gsio_gltf) -lm || fail "the consumer does not build"
LD_LIBRARY_PATH=$libdir "$tmp/scene_consumer" "$tmp/scene.glb" || fail "the consumer failed"
command -v node >/dev/null 2>&1 || skip "node not installed (tools/setup-debian.sh)"
[ -d "$e2e/node_modules/gltf-validator" ] || skip "gltf-validator not installed"
node "$e2e/gltf_validate.js" "$tmp/scene.glb" || fail "the validator rejects the built scene"
command -v blender >/dev/null 2>&1 || skip "blender not installed"
# Blender embeds the system Python: hide a pyenv/virtualenv from it.
PATH=$(echo "$PATH" | tr ':' '\n' | grep -v -e pyenv -e virtualenv | paste -sd:) \
  env -u PYENV_VERSION -u VIRTUAL_ENV -u PYTHONHOME -u PYTHONPATH \
  blender -b --factory-startup --python-exit-code 1 -P "$e2e/consumer/scene_consumer_blender.py" \
  -- "$tmp/scene.glb" >"$tmp/blender.log" 2>&1
status=$?
grep "^scene_consumer_blender" "$tmp/blender.log"
[ $status -eq 0 ] || { tail -30 "$tmp/blender.log"; fail "the Blender check failed"; }
echo "PASS: built from installed headers, valid, Blender reads instances, 2 armatures, the light"
