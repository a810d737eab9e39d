#!/usr/bin/env bash
# The Windows build (cross-built with mingw-w64) run under Wine against the
# Linux build of the same sources:
#  - `gsio info --json` of the whole corpus: the same records (seconds aside);
#  - mdl2gltf over the whole corpus (levels with --path): the same GLBs, byte
#    for byte, and the same messages;
#  - `gsio convert` of the corpus to MDL5, HMP5 and MD5: the same files;
#  - Windows' own cases: non-ASCII folder and file names, '\' and a drive
#    letter, an existing output refused without --force and replaced with
#    it, a read-only folder (an error, nothing left), a link out of a
#    level's folder not followed.
#
# usage: windows_under_wine.sh LINUX_BUILD WINDOWS_BUILD CORPUS
# Wine's prefix is WINDOWS_BUILD/wineprefix (made by the first run, kept).
# Exit status: 0 all passed, 1 a check failed, 77 skipped (no wine, no
# corpus, no Windows build).
set -uo pipefail
lin=$(cd "${1:?usage: windows_under_wine.sh LINUX_BUILD WINDOWS_BUILD CORPUS}" && pwd)
win=$(cd "${2:?}" && pwd)
corpus=${3:?}
skip() { echo "SKIPPED: $*"; exit 77; }
command -v wine >/dev/null 2>&1 || skip "wine is not installed (tools/setup-debian.sh)"
[ -d "$corpus" ] || skip "no corpus at $corpus"
corpus=$(cd "$corpus" && pwd)
for f in "$win/tools/gsio.exe" "$win/blender_bridge/mdl2gltf.exe" "$lin/tools/gsio" "$lin/blender_bridge/mdl2gltf"; do
  [ -x "$f" ] || [ -f "$f" ] || skip "$f is not built"
done
export WINEPREFIX=${WINEPREFIX:-$win/wineprefix} WINEDEBUG=-all
# The prefix made once, before anything is compared (its first start prints
# what it sets up).
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  wineboot --init >/dev/null 2>&1
  wineserver -w >/dev/null 2>&1
fi
# One wineserver for every run below (each Wine start then takes a fraction
# of a second instead of several).
wineserver -p 60 >/dev/null 2>&1 || true
wgsio() { wine "$win/tools/gsio.exe" "$@"; }
wm2g() { wine "$win/blender_bridge/mdl2gltf.exe" "$@"; }
lgsio() { "$lin/tools/gsio" "$@"; }
lm2g() { "$lin/blender_bridge/mdl2gltf" "$@"; }

work=$(mktemp -d)
trap 'chattr -i "$work/ro" 2>/dev/null; rm -rf "$work"' EXIT
failed=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; failed=1; }

# Every folder that holds a model, for the levels' --path.
paths=()
while IFS= read -r d; do paths+=(--path "$d"); done < <(
  find "$corpus" -type f -iname '*.mdl' -printf '%h\n' | LC_ALL=C sort -u)

# What a command printed, with its timings taken out.
norm() { sed -E 's#"seconds":[-+.0-9eE]+#"seconds":T#g; s#in [0-9]+\.[0-9]+ s#in T s#g'; }

# both NAME ARGS...: runs `gsio ARGS` (or mdl2gltf with NAME m2g*) on both
# builds, each in its own folder, outputs under OUT; compares exit status,
# messages and every file written.
both() {
  local name=$1 rc_l rc_w
  shift
  for side in lin win; do
    rm -rf "$work/$side"
    mkdir -p "$work/$side"
  done
  local args=("$@")
  if [[ $name == m2g* ]]; then
    (cd "$work/lin" && lm2g "${args[@]}" >../lin.out 2>../lin.err); rc_l=$?
    (cd "$work/win" && wm2g "${args[@]}" >../win.out 2>../win.err); rc_w=$?
  else
    (cd "$work/lin" && lgsio "${args[@]}" >../lin.out 2>../lin.err); rc_l=$?
    (cd "$work/win" && wgsio "${args[@]}" >../win.out 2>../win.err); rc_w=$?
  fi
  local files
  files=$(cd "$work/lin" && find . -type f | wc -l)
  if [ "$rc_l" != "$rc_w" ]; then
    fail "$name: exit status $rc_l on Linux, $rc_w on Windows"
  elif ! diff -r "$work/lin" "$work/win" >"$work/diff" 2>&1; then
    fail "$name: the files differ: $(head -c 600 "$work/diff")"
  elif ! diff <(norm <"$work/lin.out") <(norm <"$work/win.out") >"$work/diff"; then
    fail "$name: standard output differs: $(head -c 600 "$work/diff")"
  elif ! diff <(norm <"$work/lin.err") <(norm <"$work/win.err") >"$work/diff"; then
    fail "$name: messages differ: $(head -c 600 "$work/diff")"
  else
    pass "$name: exit $rc_l, $files files, $(wc -l <"$work/lin.out") lines of output and $(wc -l <"$work/lin.err") of messages alike"
  fi
}

echo "== the corpus, Linux build against Windows build"
both info-json info --json "$corpus" "${paths[@]}"
both m2g m2g -j 1 "$corpus" -o out/ "${paths[@]}"
both m2g-compact m2g -j 1 --compact "$corpus" -o out/ "${paths[@]}"
both m2g-gltf m2g -j 1 --gltf "$corpus" -o out/ "${paths[@]}"
both convert-mdl5 convert "$corpus/mdl" "$corpus/md5" "$corpus/lottershock/Game/Assets" -o out/ -f mdl5
both convert-hmp5 convert "$corpus/hmp" -o out/ -f hmp5
both convert-md5 convert "$corpus/mdl" "$corpus/md5" -o out/ -f md5

echo "== Windows' own cases"
# A model that loads without a warning (a warning names the model's folder
# as given, which differs between the runs below by design).
model=
while IFS= read -r m; do
  if lgsio info --json "$m" 2>/dev/null | grep -q '"status":"ok".*"warnings":\[\]'; then model=$m; break; fi
done < <(find "$corpus" -iname '*.mdl' | LC_ALL=C sort)
[ -n "$model" ] || { echo "FAIL no corpus model loads without warnings"; exit 1; }
echo "     (the model: ${model#$corpus/})"
# A folder and a file named with letters outside ASCII.
dir="$work/Jürgen Spiele/Lötter"
mkdir -p "$dir"
cp "$model" "$dir/Rüstung.mdl"
# What Linux's mdl2gltf (or with a second word, gsio convert) writes for it
# under a name (a GLB holds its file's name and the program's).
expect() {
  mkdir -p "$work/expected"
  rm -f "$work/expected/$1"
  if [ $# -gt 1 ]; then
    lgsio convert "$dir/Rüstung.mdl" -o "$work/expected/$1" >/dev/null 2>&1
  else
    lm2g --quiet "$dir/Rüstung.mdl" -o "$work/expected/$1" >/dev/null 2>&1
  fi
  echo "$work/expected/$1"
}
wm2g --quiet "$dir/Rüstung.mdl" -o "$dir/Ausgabe/Rüstung äöü.glb" >/dev/null 2>"$work/err"
if cmp -s "$(expect "Rüstung äöü.glb")" "$dir/Ausgabe/Rüstung äöü.glb"; then
  pass "non-ASCII folder and file names: the same GLB"
else
  fail "non-ASCII folder and file names: $(cat "$work/err")"
fi
wgsio info --json "$dir" >"$work/out" 2>&1
if grep -q '"input":"[^"]*Jürgen Spiele/Lötter/Rüstung.mdl","output":null,"status":"ok"' "$work/out"; then
  pass "non-ASCII names found by walking a folder"
else
  fail "non-ASCII names in a folder walk: $(head -c 400 "$work/out")"
fi
# Backslashes and a drive letter (Wine's Z: is the Linux root).
wdir="Z:${dir//\//\\}"
wm2g --quiet "$wdir\\Rüstung.mdl" -o "$wdir\\back\\slash.glb" >/dev/null 2>"$work/err"
if cmp -s "$(expect slash.glb)" "$dir/back/slash.glb"; then
  pass "a path with a drive letter and backslashes ($wdir\\Rüstung.mdl)"
else
  fail "drive letter and backslashes: $(cat "$work/err")"
fi
# A path in the \\?\ (UNC-style) form, the output folder made on the way.
# Wine has no SMB shares, so \\server\share\ itself is not tried.
wm2g --quiet "\\\\?\\$wdir\\Rüstung.mdl" -o "\\\\?\\$wdir\\unc\\unc.glb" >/dev/null 2>"$work/err"
if cmp -s "$(expect unc.glb)" "$dir/unc/unc.glb"; then
  pass "a \\\\?\\Z:\\... path"
else
  fail "a \\\\?\\ path: $(cat "$work/err")"
fi
# An existing output: refused without --force (left as it was), replaced with it.
out="$dir/exists.glb"
printf 'old' >"$out"
wgsio convert "$dir/Rüstung.mdl" -o "$out" >/dev/null 2>"$work/err"; rc=$?
if [ $rc -ne 0 ] && [ "$(cat "$out")" = old ] && grep -q "exists" "$work/err"; then
  pass "an existing output is refused without --force (exit $rc: $(head -n 1 "$work/err"))"
else
  fail "existing output without --force: exit $rc, $(cat "$work/err")"
fi
wgsio convert "$dir/Rüstung.mdl" -o "$out" --force >/dev/null 2>"$work/err"; rc=$?
if [ $rc -eq 0 ] && cmp -s "$(expect exists.glb gsio)" "$out"; then
  pass "an existing output is replaced with --force"
else
  fail "existing output with --force: exit $rc, $(cat "$work/err")"
fi
# A read-only folder (immutable for root as for anyone): an error, nothing left.
mkdir -p "$work/ro"
if chattr +i "$work/ro" 2>/dev/null; then
  wgsio convert "$dir/Rüstung.mdl" -o "$work/ro/x.glb" >/dev/null 2>"$work/err"; rc=$?
  left=$(find "$work/ro" -mindepth 1 | wc -l)
  if [ $rc -ne 0 ] && [ "$left" -eq 0 ] && grep -q "cannot write" "$work/err"; then
    pass "a read-only folder: exit $rc, nothing left ($(head -n 1 "$work/err"))"
  else
    fail "read-only folder: exit $rc, $left files left, $(cat "$work/err")"
  fi
  chattr -i "$work/ro"
else
  echo "skip a read-only folder: chattr +i is not allowed here"
fi
# A level whose models are links to files outside the level's folder. Wine 8
# cannot make a junction (mklink /J fails), so the link is a Linux symbolic
# link, which Wine shows Windows programs as a link that the final path
# (GetFinalPathNameByHandleW) resolves.
level=$(find "$corpus" -iname 'assettest.wmp' | head -n 1)
if [ -n "$level" ]; then
  mkdir -p "$work/level" "$work/outside"
  cp "$(dirname "$level")"/*.wmp "$(dirname "$level")"/*.wmb "$work/level/"
  cp "$(dirname "$level")"/*.mdl "$work/outside/"
  for w in "$work"/outside/*.mdl; do ln -s "../outside/$(basename "$w")" "$work/level/$(basename "$w")"; done
  lgsio info --json "$work/level/assettest.wmp" >"$work/lin.json" 2>&1
  wgsio info --json "$work/level/assettest.wmp" >"$work/win.json" 2>&1
  if grep -q "leads outside" "$work/win.json" && diff <(norm <"$work/lin.json") <(norm <"$work/win.json") >/dev/null; then
    pass "a level's model linked from outside its folder is not followed: $(grep -o '"[^"]*leads outside[^"]*"' "$work/win.json" | head -n 1)"
  else
    fail "a link out of a level's folder: $(head -c 600 "$work/win.json")"
  fi
fi
exit $failed
