#!/usr/bin/env bash
# Runs every test: installs what is missing (Debian 12), builds twice (a
# normal build and an ASan+UBSan build) and runs every test on both. Exit status non-zero when anything failed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bash tools/setup-debian.sh
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -d ../shared/corpus ]; then
  echo "NOTE: ../shared/corpus is absent: every conformance test that needs it is SKIPPED (ctest lists them as skipped)."
fi

echo "== build (RelWithDebInfo, warnings as errors)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGSIO_BUILD_TESTS=ON >/dev/null
cmake --build build -j"$jobs"
echo "== tests"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== build (ASan + UBSan)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGSIO_SANITIZE=ON -DGSIO_BUILD_TESTS=ON >/dev/null
cmake --build build-asan -j"$jobs"
echo "== every test again under ASan + UBSan (the tools the e2e tests run are sanitized too)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"
