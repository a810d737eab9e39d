#!/usr/bin/env bash
# Checks what libgsio.so exports (tests/e2e/exports.cmake):
#  1. every defined dynamic symbol is public API: its name starts with gsio_
#     (never gsioi_, the internal prefix, and nothing else such as stb_image);
#  2. every function and object the public headers declare at file scope
#     (gsio_name( ... or extern ... gsio_name) is exported, so a declaration
#     without GSIO_API, hidden by -fvisibility=hidden, is caught too;
#  3. every exported name is declared in a public (installed) header.
# Usage: exports.sh LIBGSIO.so HEADER...   Exit 0 when all three hold.
set -euo pipefail
lib=$1; shift
command -v nm >/dev/null || { echo "exports: nm not found (binutils)"; exit 1; }
[ -f "$lib" ] || { echo "exports: no library at $lib"; exit 1; }

# Under ASan each exported variable gets an ODR indicator, __odr_asan.NAME:
# an artefact of the sanitizer build, not an export of its own.
exported=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' \
  | { grep -v '^__odr_asan\.gsio_' || true; } | sort -u)
if [ -z "$exported" ]; then
  echo "exports: $lib exports nothing"; exit 1
fi
fail=0

bad=$(printf '%s\n' "$exported" | grep -v '^gsio_' || true)
bad+=$'\n'$(printf '%s\n' "$exported" | grep '^gsioi_' || true)
bad=$(printf '%s\n' "$bad" | sed '/^$/d' | sort -u)
if [ -n "$bad" ]; then
  echo "exports: $(printf '%s\n' "$bad" | wc -l) symbol(s) exported that are not public API (gsio_*):"
  printf '  %s\n' $bad
  fail=1
fi

# Declarations start at column 0 in the public headers; struct members,
# comments and macros do not, and typedefs / static inline are skipped.
declared=$(awk '
  /^[ \t]/ || /^#/ || /^\/[\/*]/ || /^\*/ || /^typedef/ || /^static/ || /^}/ { next }
  match($0, /gsio_[A-Za-z0-9_]*[ \t]*\(/) {
    name = substr($0, RSTART, RLENGTH); sub(/[ \t]*\($/, "", name); print name; next }
  /^(GSIO_API[ \t]+)?extern[ \t]/ && match($0, /gsio_[A-Za-z0-9_]*[ \t]*(\[[^;]*)?;/) {
    name = substr($0, RSTART, RLENGTH); sub(/[ \t]*(\[.*)?;$/, "", name); print name }
' "$@" | sort -u)
if [ -z "$declared" ]; then
  echo "exports: no declarations found in $*"; exit 1
fi
missing=$(comm -23 <(printf '%s\n' "$declared") <(printf '%s\n' "$exported"))
if [ -n "$missing" ]; then
  echo "exports: $(printf '%s\n' "$missing" | wc -l) public declaration(s) not exported (GSIO_API missing, or not defined):"
  for m in $missing; do
    where=$(grep -n "\b$m\b" "$@" | head -n1 | cut -d: -f1,2)
    echo "  $m ($where)"
  done
  fail=1
fi

# 3. and nothing else: an exported gsio_ name that no installed header
#    declares is API nobody can call without copying a prototype.
extra=$(comm -13 <(printf '%s\n' "$declared") <(printf '%s\n' "$exported" | grep '^gsio_' | grep -v '^gsioi_'))
if [ -n "$extra" ]; then
  echo "exports: $(printf '%s\n' "$extra" | wc -l) exported name(s) that no public header declares:"
  printf '  %s\n' $extra
  fail=1
fi

echo "exports: $(printf '%s\n' "$exported" | wc -l) exported, $(printf '%s\n' "$declared" | wc -l) declared in $# header(s)"
exit $fail
