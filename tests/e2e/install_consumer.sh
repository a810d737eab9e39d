#!/usr/bin/env bash
# Installs gsio from a build tree into a temporary prefix and builds a small
# consumer against it twice: with CMake's find_package(gsio) and with
# pkg-config. The consumer loads a file given on the command line (or, with
# no corpus, just prints the version) so the installed library really runs.
set -euo pipefail
build=$1; corpus=${2:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib* | head -n1)
mkdir -p "$tmp/app"

# find_package_consumer NAME ARGS...: (re)builds the consumer project and runs its
# NAME_static and NAME_shared programs with ARGS.
find_package_consumer() {
  local name=$1
  shift
  cmake -S "$tmp/app" -B "$tmp/app/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
  cmake --build "$tmp/app/build" >/dev/null
  "$tmp/app/build/${name}_static" "$@"
  LD_LIBRARY_PATH="$libdir" "$tmp/app/build/${name}_shared" "$@"
}

# pkg_config_consumer SOURCE PACKAGE OUT STATIC ARGS...: builds SOURCE with
# pkg-config's flags for PACKAGE (STATIC: --static or "") and runs it.
pkg_config_consumer() {
  local src=$1 pkg=$2 out=$3 static=$4
  shift 4
  # shellcheck disable=SC2046,SC2086 # pkg-config's words, an optional flag
  cc -o "$tmp/app/$out" "$tmp/app/$src" \
    $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs $static "$pkg")
  LD_LIBRARY_PATH="$libdir" "$tmp/app/$out" "$@"
}

cat > "$tmp/app/main.c" <<'C'
#include <gsio/gsio.h>
#include <gsio/gsio_mdl.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	size_t n = 0;
	while (gsio_importers()[n]) n++;
	printf("gsio %s, %zu importers\n", GSIO_VERSION_STRING, n);
	if (argc < 2) return 0;
	gsio_error err;
	gsio_scene *s = gsio_load_file(argv[1], NULL, &err);
	if (!s) { char m[512]; gsio_error_format(&err, m, sizeof m); fprintf(stderr, "%s\n", m); return 1; }
	printf("%s: %zu meshes, %zu frames\n", s->format, s->meshes_count, s->meshes[0].frames_count);
	gsio_scene_free(s);
	return 0;
}
C
cat > "$tmp/app/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(gsio REQUIRED)
add_executable(app_static main.c)
target_link_libraries(app_static PRIVATE gsio::gsio)
add_executable(app_shared main.c)
target_link_libraries(app_shared PRIVATE gsio::gsio_shared)
C
input=()
[ -n "$corpus" ] && [ -f "$corpus/mdl/minigun_mdl5.mdl" ] && input=("$corpus/mdl/minigun_mdl5.mdl")
find_package_consumer app "${input[@]}"
pkg_config_consumer main.c gsio pc --static "${input[@]}"
# The glTF writer library: a built scene written to GLB, linked through
# find_package (gsio::gsio_gltf, gsio::gsio_gltf_shared) and pkg-config.
cat > "$tmp/app/gltf.c" <<'C'
#include <gsio/gsio.h>
#include <gsio/gsio_gltf.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	if (!s) return 1;
	int32_t m = gsio_scene_add_mesh(s, "tri", 3, 3, GSIO_MESH_NORMALS, -1, &err);
	if (m < 0) return 1;
	const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, n[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
	memcpy(s->meshes[m].positions, p, sizeof p);
	memcpy(s->meshes[m].normals, n, sizeof n);
	for (uint32_t i = 0; i < 3; i++) s->meshes[m].indices[i] = i;
	int32_t node = gsio_scene_add_node(s, "tri", -1, &err);
	if (node < 0) return 1;
	s->nodes[node].mesh = m;
	gsio_gltf_output out;
	if (gsio_gltf_write(s, NULL, &out, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
	printf("gsio_gltf: %zu bytes of GLB\n", out.files[0].size);
	int ok = out.files_count == 1 && !memcmp(out.files[0].data, "glTF", 4);
	gsio_gltf_output_free(&out);
	gsio_scene_free(s);
	return ok ? 0 : 1;
}
C
cat >> "$tmp/app/CMakeLists.txt" <<'C'
add_executable(gltf_static gltf.c)
target_link_libraries(gltf_static PRIVATE gsio::gsio_gltf)
add_executable(gltf_shared gltf.c)
target_link_libraries(gltf_shared PRIVATE gsio::gsio_gltf_shared)
C
find_package_consumer gltf
pkg_config_consumer gltf.c gsio_gltf gltf_pc --static
pkg_config_consumer gltf.c gsio_gltf gltf_pc_shared ""
echo "install: find_package (static, shared) and pkg-config consumers built and ran (gsio, gsio_gltf)"
