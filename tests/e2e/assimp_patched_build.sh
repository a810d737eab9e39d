#!/usr/bin/env bash
# Builds (or incrementally rebuilds) the patched Assimp for the other
# assimp_patched_* tests.
# usage: assimp_patched_build.sh BUILD_ASSIMP_SH CACHE_DIR PREFIX [SUITE]
# Exit 77 (skipped) when build-assimp.sh says the build cannot be made here
# (its exit status 3: no network for apt-get source, a missing package).
set -u
script=$1 cache=$2 prefix=$3 suite=${4:-bookworm}
GSIO_ASSIMP_CACHE=$cache bash "$script" "$prefix" "$suite"
status=$?
if [ $status -eq 3 ]; then
  echo "SKIPPED: the patched Assimp cannot be built here (see the message above)"
  exit 77
fi
[ $status -eq 0 ] || { echo "FAIL: build-assimp.sh exited with $status"; exit 1; }
"$prefix/bin/assimp" version | head -n 3
echo "PASS: $prefix/bin/assimp"
