#!/usr/bin/env bash
# The main job: converts every model in samples/ to glTF 2.0 (.glb) in
# out/samples/, after installing what is missing (Debian 12) and building.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bash tools/setup-debian.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target mdl2gltf gsio_tool >/dev/null
mkdir -p out
./build/blender_bridge/mdl2gltf --force --verbose --report out/samples-report.json -o out/samples samples
echo "Converted samples/ to glTF 2.0 in out/samples/ (per-file report: out/samples-report.json)."
echo "Look inside a file with: ./build/tools/gsio info samples/clips.mdl"
