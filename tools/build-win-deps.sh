#!/usr/bin/env bash
# Cross-builds the libraries gsio needs for Windows (x86_64, mingw-w64) that
# Debian has no mingw package for: cJSON and ISA-L (igzip, crc) from Debian's
# own source packages, fetched with `apt-get source` through a private apt
# configuration (the machine's /etc/apt stays as it is), and stb_image's
# header from libstb-dev. zlib is Debian's libz-mingw-w64-dev.
# Installs include/, lib/ and lib/pkgconfig/ into PREFIX; a rerun with
# everything in place does nothing.
#
# usage: build-win-deps.sh PREFIX
# environment: GSIO_WIN_DEPS_JOBS  parallel compile jobs (default 2)
# Exit status: 0 on success; 3 when a source or a tool cannot be had (the
# tests skip on 3); 1 on any other failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 PREFIX" >&2; exit 2; }
mkdir -p "$1"
prefix=$(cd "$1" && pwd)
jobs=${GSIO_WIN_DEPS_JOBS:-2}
host=x86_64-w64-mingw32
work=$prefix/.work

unavailable() { echo "build-win-deps: $*" >&2; exit 3; }
die() { echo "build-win-deps: $*" >&2; exit 1; }
step() { echo "== build-win-deps: $*"; }

[ -f "$prefix/.gsio-deps-done-deflate" ] && exit 0
for tool in $host-gcc $host-ar nasm cmake make; do
  command -v $tool >/dev/null 2>&1 || unavailable "$tool is not installed (tools/setup-debian.sh)"
done
[ -f /usr/$host/include/zlib.h ] || unavailable "libz-mingw-w64-dev is not installed"
[ -f /usr/include/stb/stb_image.h ] || unavailable "libstb-dev is not installed"
mkdir -p "$work" "$prefix/include" "$prefix/lib/pkgconfig"
exec 9>"$work/.lock"
flock 9

# -- Sources: Debian 12's, through a private apt configuration
fetch() { # fetch SOURCE-PACKAGE: unpacks into $work/src/SOURCE-PACKAGE
  local pkg=$1 apt=$work/apt
  [ -f "$work/src/$pkg/.gsio-fetched" ] && return 0
  step "fetching Debian's $pkg source (apt-get source)"
  if [ ! -f "$apt/.updated" ]; then
    rm -rf "$apt"; mkdir -p "$apt/lists/partial" "$apt/archives/partial"
    local keyring=/usr/share/keyrings/debian-archive-keyring.gpg mirror
    [ -f "$keyring" ] || unavailable "$keyring not found (debian-archive-keyring)"
    mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' "Created-By: Packages" 2>/dev/null \
             | awk '$2 == "bookworm" && $3 == "main" { print $1; exit }')
    [ -n "$mirror" ] || unavailable "no bookworm main source in the machine's apt sources (not Debian 12?)"
    echo "deb-src [signed-by=$keyring] $mirror bookworm main" >"$apt/sources.list"
  fi
  local aptopts=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o "Dir::Etc::sourceparts=-"
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt" -o "Dir::Cache::archives=$apt/archives"
    -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "APT::Sandbox::User=$(id -un)"
    -o "Acquire::Retries=2")
  if [ ! -f "$apt/.updated" ]; then
    apt-get "${aptopts[@]}" -qq update >"$apt/update.log" 2>&1 \
      || { cat "$apt/update.log" >&2; unavailable "apt-get update (deb-src) failed: no network?"; }
    touch "$apt/.updated"
  fi
  rm -rf "$work/fetch" "$work/src/$pkg"; mkdir -p "$work/fetch" "$work/src"
  (cd "$work/fetch" && apt-get "${aptopts[@]}" -qq source "$pkg") >"$apt/source-$pkg.log" 2>&1 \
    || { cat "$apt/source-$pkg.log" >&2; unavailable "apt-get source $pkg failed"; }
  local unpacked
  unpacked=$(find "$work/fetch" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  [ -n "$unpacked" ] || die "apt-get source $pkg gave no unpacked tree"
  mv "$unpacked" "$work/src/$pkg"
  rm -rf "$work/fetch"
  touch "$work/src/$pkg/.gsio-fetched"
}

# -- cJSON: its own CMake build, static
fetch cjson
step "building cJSON"
cmake -S "$work/src/cjson" -B "$work/cjson-build" -DCMAKE_TOOLCHAIN_FILE="$here/../cmake/mingw-w64-x86_64.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DENABLE_CJSON_TEST=OFF -DENABLE_CJSON_UTILS=OFF \
  -DENABLE_CUSTOM_COMPILER_FLAGS=OFF -DCMAKE_INSTALL_PREFIX="$prefix" >"$work/cjson.log" 2>&1 \
  && cmake --build "$work/cjson-build" -j"$jobs" >>"$work/cjson.log" 2>&1 \
  && cmake --install "$work/cjson-build" >>"$work/cjson.log" 2>&1 \
  || { tail -n 30 "$work/cjson.log" >&2; die "cannot build cJSON"; }

# -- ISA-L: its Makefile.unx knows mingw (arch=mingw); nasm assembles win64
fetch libisal
step "building ISA-L"
make -C "$work/src/libisal" -f Makefile.unx -j"$jobs" arch=mingw CC=$host-gcc AR=$host-ar AS=nasm \
  host_cpu=x86_64 lib >"$work/isal.log" 2>&1 \
  || { tail -n 30 "$work/isal.log" >&2; die "cannot build ISA-L"; }
mkdir -p "$prefix/include/isa-l"
cp "$work"/src/libisal/include/*.h "$prefix/include/isa-l/"
cp "$work/src/libisal/bin/isa-l.a" "$prefix/lib/libisal.a"
ver=$(sed -n 's/^version *= *\([0-9.]*\).*/\1/p' "$work/src/libisal/Makefile.unx" | head -n 1)
cat >"$prefix/lib/pkgconfig/libisal.pc" <<PC
prefix=$prefix
Name: libisal
Description: ISA-L (cross-built for $host)
Version: ${ver:-2}
Cflags: -I\${prefix}/include
Libs: -L\${prefix}/lib -lisal
PC

# -- stb_image (a header) and zlib (Debian's mingw package)
fetch libdeflate
step "building libdeflate"
# Debian 12's libdeflate (1.14) has a Makefile only: its library sources
# compiled and archived directly.
rm -rf "$work/deflate-build"; mkdir -p "$work/deflate-build"
( cd "$work/deflate-build" &&
  for c in "$work"/src/libdeflate/lib/*.c "$work"/src/libdeflate/lib/x86/*.c; do
    $host-gcc -O2 -std=c99 -I"$work/src/libdeflate" -c "$c" -o "$(basename "$(dirname "$c")")_$(basename "$c" .c).o" || exit 1
  done && $host-ar rcs "$prefix/lib/libdeflate.a" ./*.o ) >"$work/deflate.log" 2>&1 \
  || { tail -n 30 "$work/deflate.log" >&2; die "cannot build libdeflate"; }
cp "$work/src/libdeflate/libdeflate.h" "$prefix/include/"
[ -f "$prefix/lib/libdeflate.a" ] || die "libdeflate.a was not installed"
cat >"$prefix/lib/pkgconfig/libdeflate.pc" <<PC
prefix=$prefix
Name: libdeflate
Description: libdeflate (cross-built for $host, static)
Version: 1
Cflags: -I\${prefix}/include
Libs: -L\${prefix}/lib -ldeflate
PC

mkdir -p "$prefix/include/stb"
cp /usr/include/stb/stb_image.h "$prefix/include/stb/"
# zlib linked statically: one DLL fewer to ship beside the programs.
cat >"$prefix/lib/pkgconfig/zlib.pc" <<PC
Name: zlib
Description: zlib (Debian's libz-mingw-w64-dev, static)
Version: $(sed -n 's/^Version: //p' /usr/$host/lib/pkgconfig/zlib.pc)
Cflags:
Libs: -L/usr/$host/lib -l:libz.a
PC
touch "$prefix/.gsio-deps-done-deflate"
step "done: $prefix"
