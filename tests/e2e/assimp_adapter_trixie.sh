#!/usr/bin/env bash
# Runs inside the trixie tree (trixie.cmake): builds gsio's Assimp adapter
# and its test programs against the tree's libassimp-dev (Assimp 5.4.3) in
# BUILD_DIR (kept: a rerun rebuilds what changed) and runs them.
# usage: assimp_adapter_trixie.sh SOURCE_DIR BUILD_DIR CORPUS_DIR
set -u
src=$1 build=$2 corpus=$3
echo "Assimp in the tree: $(pkg-config --modversion assimp)"
gen=; command -v ninja >/dev/null && gen="-G Ninja"
# The corpus path the tests read is compiled in (GSIO_CORPUS_DIR).
cmake -S "$src" -B "$build" $gen -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGSIO_WERROR=ON \
  -DGSIO_BUILD_TESTS=ON -DGSIO_WITH_ASSIMP=ON -DGSIO_CORPUS_DIR="$corpus" >"$build.configure.log" 2>&1 \
  || { tail -n 30 "$build.configure.log"; echo "FAIL: cannot configure gsio against trixie's Assimp"; exit 1; }
targets=$(cd "$src/tests/assimp" && ls test_adapter_*.cpp | sed 's/\.cpp$//')
# shellcheck disable=SC2086
nice cmake --build "$build" -j2 --target $targets >"$build.build.log" 2>&1 \
  || { grep -E -A6 'error|FAILED' "$build.build.log" | head -n 60; echo "FAIL: the adapter does not build against trixie's Assimp"; exit 1; }
status=0
for t in $targets; do
  sh "$src/tests/run_test.sh" "$build/assimp_patch/$t" >"$build/$t.log" 2>&1
  rc=$?
  tail -n 3 "$build/$t.log"
  if [ $rc -ne 0 ]; then echo "FAIL: $t (exit $rc; log $build/$t.log)"; status=1; fi
done
[ $status -eq 0 ] && echo "PASS: $targets against Assimp $(pkg-config --modversion assimp)"
exit $status
