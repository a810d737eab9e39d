#!/usr/bin/env bash
# A Debian 13 (trixie) system tree for the tests that run gsio where users
# are: Blender 4.3 and Assimp 5.4 (blender_addon_trixie, assimp_adapter_trixie).
# Made once with mmdebstrap from Debian's archive (about 100 s and 2 GB) and
# kept: a run that finds a finished tree reuses it.
#
# usage: trixie_tree.sh DIR                 make DIR unless it is there
#        trixie_tree.sh DIR run CMD ARG...  run CMD inside DIR (chroot), with
#                                           /proc, /dev and the folders named in
#                                           GSIO_TREE_BINDS (':'-separated) bound
#                                           at the same paths, in a private
#                                           mount namespace (nothing stays mounted)
# Exit status 77 when the tree cannot be made or entered here (no mmdebstrap,
# no network, not root): the calling tests skip.
set -u
dir=${1:?usage: trixie_tree.sh DIR [run CMD...]}
shift
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
# What the tests need in the tree: Blender and numpy (its glTF add-on), and
# what building gsio's Assimp adapter against trixie's Assimp takes.
packages=blender,python3-numpy,libassimp-dev,build-essential,cmake,ninja-build,pkg-config,libcmocka-dev,libcjson-dev,libspng-dev,libisal-dev,zlib1g-dev,libdeflate-dev,libstb-dev

unavailable() { echo "SKIPPED: trixie tree: $*"; exit 77; }

make_tree() {
  [ -f "$dir/.gsio-tree-ready" ] && [ "$(cat "$dir/.gsio-tree-ready")" = "$packages" ] && return 0
  [ "$(id -u)" -eq 0 ] || unavailable "making a system tree needs root (mmdebstrap --mode=root)"
  command -v mmdebstrap >/dev/null 2>&1 || unavailable "mmdebstrap is not installed (tools/setup-debian.sh)"
  mkdir -p "$(dirname "$dir")"
  # One maker at a time: a second test waits for the first's tree.
  exec 8>"$dir.lock"
  flock 8
  if [ -f "$dir/.gsio-tree-ready" ] && [ "$(cat "$dir/.gsio-tree-ready")" = "$packages" ]; then return 0; fi
  if [ -f "$dir/.gsio-tree-ready" ]; then
    # A tree made for a shorter list: apt-get adds what is missing (seconds)
    # instead of a new tree (minutes).
    echo "trixie tree: installing $packages into $dir"
    if unshare --mount --propagation private -- sh -c 'mount -t proc proc "$1/proc" && exec chroot "$1" \
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive sh -c "apt-get update -qq && apt-get install -y -qq \$0" "$2"' \
        sh "$dir" "$(echo "$packages" | tr , ' ')" >"$dir.log" 2>&1; then
      echo "$packages" >"$dir/.gsio-tree-ready"
      return 0
    fi
    tail -n 20 "$dir.log"
    echo "trixie tree: apt-get in the tree failed: making it again"
  fi
  rm -rf "$dir"
  echo "trixie tree: mmdebstrap trixie $dir (about 100 s, 2 GB)"
  local t0
  t0=$(date +%s)
  if ! nice mmdebstrap --quiet --mode=root --variant=apt --include="$packages" trixie "$dir" \
      >"$dir.log" 2>&1; then
    tail -n 20 "$dir.log"
    rm -rf "$dir"
    unavailable "mmdebstrap failed (no network?): log $dir.log"
  fi
  echo "$packages" >"$dir/.gsio-tree-ready"
  echo "trixie tree: made in $(( $(date +%s) - t0 )) s"
}

make_tree
[ $# -eq 0 ] && exit 0
[ "$1" = run ] || { echo "usage: trixie_tree.sh DIR [run CMD...]" >&2; exit 2; }
shift
command -v unshare >/dev/null 2>&1 || unavailable "unshare is not installed (util-linux)"
binds=${GSIO_TREE_BINDS:-}
# The mounts live in a mount namespace of their own: they go when the
# command ends, whatever happens to it.
exec unshare --mount --propagation private -- bash -c '
  set -e
  dir=$1 binds=$2
  shift 2
  mount -t proc proc "$dir/proc"
  mount --rbind /dev "$dir/dev"
  IFS=:
  for b in $binds; do
    [ -n "$b" ] || continue
    mkdir -p "$dir$b"
    mount --bind "$b" "$dir$b"
  done
  unset IFS
  exec chroot "$dir" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 "$@"
' trixie_tree "$dir" "$binds" "$@"
