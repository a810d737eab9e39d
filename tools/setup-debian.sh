#!/usr/bin/env bash
# Installs everything gsio needs to build, run and test on Debian 12.
# Safe to run again: apt-get and npm skip what is already there.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pkgs=(build-essential cmake pkg-config git clang libclang-rt-14-dev
      libcmocka-dev libcjson-dev libspng-dev libisal-dev zlib1g-dev libdeflate-dev libpng-dev libmeshoptimizer-dev libstb-dev
      libassimp-dev assimp-utils
      blender python3-numpy libsquish0)
# Pillow: an independent PCX reader for tests/e2e/pcx_pillow.py.
pkgs+=(python3-pil)
# Godot 3 (headless editor) for the game-engine import test (tests/e2e/godot.cmake).
pkgs+=(godot3-server)
# The patched Assimp (assimp_patch/build-assimp.sh; Debian's patches need utfcpp)
# and its Qt 3D viewer (assimp_patch/viewer/) under Xvfb.
pkgs+=(libutfcpp-dev zlib1g-dev dpkg-dev debian-archive-keyring)
# Assimp 5.4's Debian source uses the system's pugixml and RapidJSON.
pkgs+=(libpugixml-dev rapidjson-dev)
# The add-on zip's bundled libraries (blender_bridge/addon/bundle_linux.sh)
# and the Debian 13 tree of the Blender 4.3 / Assimp 5.4 tests (tests/e2e/trixie_tree.sh).
pkgs+=(patchelf mmdebstrap)
pkgs+=(qml-qt6 qml6-module-qtquick qml6-module-qtquick-window qml6-module-qtquick-scene3d
       qml6-module-qtqml-workerscript qml6-module-qt3d-core qml6-module-qt3d-render qml6-module-qt3d-extras qml6-module-qt3d-input
       qt6-3d-assimpsceneimport-plugin qt6-qpa-plugins xvfb xauth libgl1-mesa-dri)
# Windows: the mingw-w64 cross compiler, zlib for it, nasm (ISA-L's assembly),
# and Wine to run the results (tools/build-win-deps.sh, tests/wine/).
pkgs+=(gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 libz-mingw-w64-dev nasm mingw-w64-tools wine wine64)
# Node.js and npm: Debian's packages unless the machine already has them
# (a NodeSource node ships its own npm, which Debian's npm conflicts with).
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The Khronos glTF validator, pinned in tests/e2e/package.json.
if [ ! -d "$here/tests/e2e/node_modules/gltf-validator" ]; then
  echo "setup: installing the Khronos glTF validator (npm)"
  (cd "$here/tests/e2e" && npm install --no-audit --no-fund --silent >/dev/null)
fi
