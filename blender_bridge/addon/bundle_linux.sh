#!/bin/sh
# Makes the add-on's Linux commands carry what they link: every shared
# library they need beyond the C/C++ runtime and zlib (which every Linux
# has) is copied into gsio_blender/lib/, and the commands and those libraries
# find them there through an $ORIGIN run path. The zip then runs in any
# Blender on any x86-64 Linux as new as the build machine's C library,
# whatever the user has installed.
#
# usage: bundle_linux.sh ADDON_DIR [ASSIMP_LIB_DIR]
#   ADDON_DIR       the staged gsio_blender/ folder (its bin/ holds the commands)
#   ASSIMP_LIB_DIR  a folder whose libassimp.so.5 replaces the system's (the
#                   patched Assimp of assimp_patch/build-assimp.sh, compiled
#                   from source; its own dependencies are bundled the same way)
# Needs ldd and patchelf. Exit 1 when a library cannot be found.
set -eu
addon=$1
assimp_dir=${2:-}
bin=$addon/bin
lib=$addon/lib
mkdir -p "$lib"
command -v patchelf >/dev/null 2>&1 || { echo "bundle_linux: patchelf is not installed (tools/setup-debian.sh)" >&2; exit 1; }

# The libraries every Linux has: the commands may use the system's.
system_lib() {
  case $1 in
    linux-vdso.so.*|ld-linux*.so.*|libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|libpthread.so.*|libdl.so.*|libz.so.*) return 0 ;;
  esac
  return 1
}

# The zip's copies lose their debugging information (the build tree's
# commands keep theirs). Before patchelf: strip may rewrite what it changed.
shrink() {
  if command -v strip >/dev/null 2>&1; then strip --strip-unneeded "$1"; fi
}

# Copies the libraries FILE names (DT_NEEDED), and theirs, into lib/. Only
# the direct ones: ldd also lists what the system's copy of a library needs,
# which the copy put in its place (ASSIMP_LIB_DIR's Assimp) may not.
bundle_deps() {
  for name in $(patchelf --print-needed "$1"); do
    system_lib "$name" && continue
    [ -e "$lib/$name" ] && continue
    if [ -n "$assimp_dir" ] && [ "$name" = libassimp.so.5 ]; then
      src=$assimp_dir/libassimp.so.5
    else
      src=$(ldd "$1" | awk -v n="$name" '$1 == n && $2 == "=>" { print $3 }')
    fi
    [ -n "$src" ] && [ -e "$src" ] || { echo "bundle_linux: $1 needs $name, which is not found" >&2; exit 1; }
    cp -L "$src" "$lib/$name"
    chmod 644 "$lib/$name"
    shrink "$lib/$name"
    patchelf --set-rpath '$ORIGIN' "$lib/$name"
    bundle_deps "$lib/$name"
  done
}

for f in "$bin"/*; do
  [ -f "$f" ] || continue
  shrink "$f"
  # The libraries beside the command win over the system's.
  patchelf --set-rpath '$ORIGIN/../lib' "$f"
  bundle_deps "$f"
done
