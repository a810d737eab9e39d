#!/usr/bin/env bash
# Runs every test: installs what is missing (Debian 12); builds everything
# in Release (-O3) with gcc and with clang and runs the C tests on both (the
# optimiser finds warnings the other builds do not); then a normal build and
# an ASan+UBSan build, with every test on both; last the Windows cross
# build (mingw-w64) with its commands run under Wine against the Linux build.
# Every build treats warnings as errors (-DGSIO_WERROR=ON; the library's own
# default is off). Exit status non-zero when anything failed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bash tools/setup-debian.sh
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -d ../shared/corpus ]; then
  echo "NOTE: ../shared/corpus is absent: every conformance test that needs it is SKIPPED (ctest lists them as skipped)."
fi

# The C tests (cmocka programs, corpus conformance, fuzz regressions: a few
# seconds) but not the e2e ones (validator, Blender, CLI), which the build
# below runs.
for cc in gcc clang; do
  echo "== build (Release, $cc, warnings as errors)"
  cmake -S . -B "build-release-$cc" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" \
    -DGSIO_WERROR=ON -DGSIO_BUILD_TESTS=ON >/dev/null
  cmake --build "build-release-$cc" -j"$jobs"
  echo "== C tests (Release, $cc)"
  ctest --test-dir "build-release-$cc" --output-on-failure -j"$jobs" -LE e2e
done

echo "== build (RelWithDebInfo, warnings as errors)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGSIO_WERROR=ON -DGSIO_BUILD_TESTS=ON >/dev/null
cmake --build build -j"$jobs"
echo "== tests"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== build (ASan + UBSan)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGSIO_SANITIZE=ON -DGSIO_WERROR=ON -DGSIO_BUILD_TESTS=ON >/dev/null
cmake --build build-asan -j"$jobs"
echo "== every test again under ASan + UBSan (the tools the e2e tests run are sanitized too)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

# Windows: the cross build (mingw-w64; its libraries cross-built once into
# build-win/win-deps) with warnings as errors, its add-on zip checked for the
# DLLs its programs import, and its commands run under Wine against the
# Linux build above (tests/wine/windows_under_wine.sh; 77 = skipped).
echo "== Windows: cross build (mingw-w64, warnings as errors), tests under Wine"
win_start=$SECONDS
cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake -DGSIO_WERROR=ON >/dev/null
cmake --build build-win -j"$jobs"
for t in "tests/wine/addon_dlls.sh build-win/gsio_blender.zip" \
         "tests/wine/windows_under_wine.sh build build-win ../shared/corpus"; do
  rc=0
  bash $t || rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 77 ] || { echo "FAILED: $t"; exit 1; }
done
echo "== Windows stage: $((SECONDS - win_start)) s"
