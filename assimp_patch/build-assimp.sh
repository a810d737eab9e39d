#!/usr/bin/env bash
# Builds the patched Assimp: the Assimp source of a Debian suite (bookworm's
# 5.2.5 by default, trixie's 5.4.3, ...) with Debian's patches and gsio's
# (assimp_patch/patches/<major.minor>/), trimmed to the loaders and
# writers gsio cares about, with gsio's adapter (assimp_patch/*.cpp) and a
# static libgsio compiled into libassimp.so.5. Installs bin/assimp,
# lib/libassimp.so.5* and include/assimp/ into PREFIX.
#
# usage: build-assimp.sh PREFIX [SUITE]
#   SUITE              the Debian suite whose Assimp source is built:
#                      bookworm (default, 5.2.5), trixie (5.4.3), or any
#                      suite of Debian's archive whose Assimp gsio has
#                      patches for
# environment:
#   GSIO_ASSIMP_CACHE  where the source, the gsio build and the Assimp build
#                      are kept (default: <gsio>/build/assimp-patched for
#                      bookworm, <gsio>/build/assimp-patched-SUITE else); a
#                      rerun rebuilds only what changed (seconds)
#   GSIO_ASSIMP_JOBS   parallel compile jobs (default 2)
#   GSIO_ASSIMP_SOURCE an already unpacked Debian source tree to use instead
#                      of `apt-get source` (Debian's patches applied)
#
# Exit status: 0 on success; 3 when the source cannot be had (no network,
# apt-get source fails, a build dependency is missing: the tests skip on 3);
# 1 on any other failure (a patch that does not apply, a compile error).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
[ $# -eq 1 ] || [ $# -eq 2 ] || { echo "usage: $0 PREFIX [SUITE]" >&2; exit 2; }
prefix=$1
suite=${2:-bookworm}
case $prefix in /*) ;; *) prefix=$PWD/$prefix ;; esac
case $suite in bookworm) default_cache=$root/build/assimp-patched ;; *) default_cache=$root/build/assimp-patched-$suite ;; esac
cache=${GSIO_ASSIMP_CACHE:-$default_cache}
jobs=${GSIO_ASSIMP_JOBS:-2}

unavailable() { echo "build-assimp: $*" >&2; exit 3; }
die() { echo "build-assimp: $*" >&2; exit 1; }
step() { echo "== build-assimp: $*"; }

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
# One build at a time per cache (two ctest runs, or a test and a person).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache/.lock"
  flock 9
fi

for tool in cmake c++ patch; do
  command -v $tool >/dev/null 2>&1 || unavailable "$tool is not installed (tools/setup-debian.sh)"
done
# Debian's patches make Assimp include the system's utf8cpp and stb_image.
[ -f /usr/include/utf8cpp/utf8.h ] || [ -f /usr/include/utf8.h ] \
  || unavailable "libutfcpp-dev is not installed (Debian's patches need it; tools/setup-debian.sh)"
[ -f /usr/include/stb/stb_image.h ] || [ -f /usr/include/stb_image.h ] \
  || unavailable "libstb-dev is not installed (tools/setup-debian.sh)"
[ -f /usr/include/zlib.h ] || unavailable "zlib1g-dev is not installed"

# -- The source: `apt-get source` through a private apt configuration
# deb-src is enabled only in a sources file of our own, with our own state
# and cache folders, so the machine's /etc/apt stays as it is.
pristine=$cache/pristine
if [ -n "${GSIO_ASSIMP_SOURCE:-}" ]; then
  pristine=$(cd "$GSIO_ASSIMP_SOURCE" && pwd)
elif [ "$(cat "$pristine/.gsio-fetched" 2>/dev/null)" != "$suite" ]; then
  step "fetching the assimp source of Debian $suite (apt-get source)"
  command -v apt-get >/dev/null 2>&1 || unavailable "apt-get not found (not Debian?): set GSIO_ASSIMP_SOURCE"
  command -v dpkg-source >/dev/null 2>&1 || unavailable "dpkg-source not found (dpkg-dev)"
  apt=$cache/apt
  rm -rf "$apt" "$pristine"
  mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/fetch"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -f "$keyring" ] || unavailable "$keyring not found (debian-archive-keyring)"
  # The mirror the machine's own apt sources use for Debian main, as deb-src
  # of the suite asked for.
  mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT) $(ORIGIN)' "Created-By: Packages" 2>/dev/null \
           | awk '$3 == "main" && $4 == "Debian" && $1 !~ /security/ { print $1; exit }')
  [ -n "$mirror" ] || unavailable "no Debian main source in the machine's apt sources (not Debian?)"
  echo "deb-src [signed-by=$keyring] $mirror $suite main" >"$apt/sources.list"
  aptopts=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o "Dir::Etc::sourceparts=-"
           -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt" -o "Dir::Cache::archives=$apt/archives"
           -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
           -o "APT::Sandbox::User=$(id -un)" -o "Acquire::Retries=2")
  apt-get "${aptopts[@]}" -qq update >"$apt/update.log" 2>&1 \
    || { cat "$apt/update.log" >&2; unavailable "apt-get update (deb-src) failed: no network?"; }
  (cd "$apt/fetch" && apt-get "${aptopts[@]}" -qq source assimp) >"$apt/source.log" 2>&1 \
    || { cat "$apt/source.log" >&2; unavailable "apt-get source assimp ($suite) failed"; }
  unpacked=$(find "$apt/fetch" -mindepth 1 -maxdepth 1 -type d -name 'assimp-*' | head -n 1)
  [ -n "$unpacked" ] && [ -f "$unpacked/debian/patches/series" ] \
    || die "apt-get source gave no unpacked tree (log: $apt/source.log)"
  # dpkg-source applied Debian's patches (debian/patches/series). All but
  # one are kept: use-system-libdraco makes CMake require libdraco-dev,
  # which a build without Draco compression does not use.
  if grep -qx 'use-system-libdraco.patch' "$unpacked/debian/patches/series"; then
    (cd "$unpacked" && patch -R -p1 -s <debian/patches/use-system-libdraco.patch) \
      || die "cannot take back use-system-libdraco.patch"
  fi
  mv "$unpacked" "$pristine"
  rm -rf "$apt/fetch"
  echo "$suite" >"$pristine/.gsio-fetched"
fi
[ -f "$pristine/code/Common/ImporterRegistry.cpp" ] || die "$pristine is not an Assimp source tree"
# gsio's patches for this Assimp's major.minor version (patches/5.2, 5.4, ...).
version=$(sed -n 's/^ *PROJECT *( *Assimp *VERSION *\([0-9][0-9.]*\).*/\1/ip' "$pristine/CMakeLists.txt" | head -n 1)
[ -n "$version" ] || die "cannot find Assimp's version in $pristine/CMakeLists.txt"
series=${version%.*}
[ -d "$here/patches/$series" ] || unavailable "gsio has no patches for Assimp $version (assimp_patch/patches/$series)"
step "Assimp $version (Debian $suite), gsio's patches for $series"

# -- gsio's patches, applied to a working copy of the pristine tree
# The working copy is made once; when the patches change, only the files the
# old and the new patches touch are put back from the pristine tree (with a
# new time, so they recompile) and patched again: the rebuild stays small.
work=$cache/src
patches=("$here"/patches/"$series"/*.patch)
patch_sum=$(cat "${patches[@]}" | cksum | cut -d' ' -f1)
if [ ! -f "$work/.gsio-copied" ]; then
  step "copying the source to $work"
  rm -rf "$work"
  cp -a "$pristine" "$work"
  rm -f "$work/.gsio-patched"
  touch "$work/.gsio-copied"
fi
if [ "$(cat "$work/.gsio-patched" 2>/dev/null)" != "$patch_sum" ]; then
  step "applying gsio's patches"
  touched=$(cat "$work/.gsio-touched" 2>/dev/null || true)
  new_touched=$(sed -n 's|^+++ [^/]*/\([^[:space:]]*\).*|\1|p' "${patches[@]}" | sort -u)
  for f in $(printf '%s\n%s\n' "$touched" "$new_touched" | sort -u); do
    if [ -f "$pristine/$f" ]; then cp "$pristine/$f" "$work/$f"; else rm -f "$work/$f"; fi
  done
  rm -f "$work/.gsio-patched"
  for p in "${patches[@]}"; do
    (cd "$work" && patch -p1 -s --no-backup-if-mismatch <"$p") || die "$(basename "$p") does not apply"
  done
  printf '%s\n' "$new_touched" >"$work/.gsio-touched"
  echo "$patch_sum" >"$work/.gsio-patched"
fi

# Ninja when there is one (its no-op rebuild is instant), else make.
generator="Unix Makefiles"
command -v ninja >/dev/null 2>&1 && generator=Ninja

# -- A static, position-independent libgsio (no tests, no tools, no Assimp)
step "building libgsio (static)"
gsio_build=$cache/gsio-build
cmake -S "$root" -B "$gsio_build" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DGSIO_BUILD_TESTS=OFF -DGSIO_BUILD_TOOLS=OFF -DGSIO_WITH_ASSIMP=OFF >"$cache/gsio-configure.log" 2>&1 \
  || { cat "$cache/gsio-configure.log" >&2; die "cannot configure gsio"; }
cmake --build "$gsio_build" --target gsio_static -j"$jobs" >"$cache/gsio-build.log" 2>&1 \
  || { tail -n 40 "$cache/gsio-build.log" >&2; die "cannot build libgsio"; }

# -- Assimp, trimmed: the importers and exporters the tests and the viewer use
# MDL, HMP and MD5 are Assimp's own loaders of gsio's formats (the fallback
# for what gsio refuses); MD2, OBJ and glTF are there to compare with. The
# exporters: glTF 2 (GLB), OBJ, and the assbin/assxml dumps of `assimp dump`.
step "configuring Assimp"
build=$cache/build
importers=(MDL HMP MD5 MD2 OBJ GLTF)
exporters=(GLTF OBJ ASSBIN ASSXML)
opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
      -DBUILD_SHARED_LIBS=ON -DASSIMP_BUILD_ASSIMP_TOOLS=ON -DASSIMP_BUILD_TESTS=OFF
      -DASSIMP_BUILD_SAMPLES=OFF -DASSIMP_BUILD_DOCS=OFF -DASSIMP_BUILD_ZLIB=OFF
      -DASSIMP_WARNINGS_AS_ERRORS=OFF -DASSIMP_IGNORE_GIT_HASH=ON -DASSIMP_INJECT_DEBUG_POSTFIX=OFF
      -DASSIMP_LIB_INSTALL_DIR=lib -DASSIMP_INSTALL_PDB=OFF
      -DASSIMP_BUILD_ALL_IMPORTERS_BY_DEFAULT=OFF -DASSIMP_BUILD_ALL_EXPORTERS_BY_DEFAULT=OFF
      # Debian's export list: programs linked against Debian's libassimp.so.5
      # find the same symbols in this one.
      "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,--version-script=$work/debian/libassimp.ver -Wl,--as-needed"
      # bin/assimp loads the patched library beside it, not the system's.
      "-DCMAKE_INSTALL_RPATH=\$ORIGIN/../lib"
      -DGSIO_ASSIMP_CMAKE="$here/patches/gsio-in-assimp.cmake"
      -DGSIO_ROOT="$root" -DGSIO_BUILD_DIR="$gsio_build")
for i in "${importers[@]}"; do opts+=("-DASSIMP_BUILD_${i}_IMPORTER=ON"); done
for e in "${exporters[@]}"; do opts+=("-DASSIMP_BUILD_${e}_EXPORTER=ON"); done
cmake -S "$work" -B "$build" -G "$generator" "${opts[@]}" >"$cache/assimp-configure.log" 2>&1 \
  || { tail -n 40 "$cache/assimp-configure.log" >&2; die "cannot configure Assimp (log: $cache/assimp-configure.log)"; }

step "building Assimp (-j$jobs; the first build takes a few minutes)"
t0=$(date +%s)
cmake --build "$build" -j"$jobs" >"$cache/assimp-build.log" 2>&1 \
  || { grep -E -B2 -A8 'error|FAILED' "$cache/assimp-build.log" | head -n 80 >&2; die "Assimp does not build (log: $cache/assimp-build.log)"; }
echo "build-assimp: built in $(( $(date +%s) - t0 )) s"
cmake --install "$build" >"$cache/assimp-install.log" 2>&1 \
  || { tail -n 20 "$cache/assimp-install.log" >&2; die "cannot install into $prefix"; }
[ -x "$prefix/bin/assimp" ] && [ -e "$prefix/lib/libassimp.so.5" ] || die "the install in $prefix lacks bin/assimp or lib/libassimp.so.5"
echo "build-assimp: installed $prefix/bin/assimp and $prefix/lib/libassimp.so.5"
