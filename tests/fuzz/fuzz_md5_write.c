/* Fuzz target: the MD5 writer by round trip. Byte 0 picks what the rest is
 * (% 2: an .md5mesh with its .md5anim appended after a NUL byte, or an
 * .md5camera). Whatever decodes and builds a scene is written back as MD5
 * (gsio_md5_write); the write succeeds or fails with an error code, and
 * every file it writes decodes again: the mesh with the same joint and
 * triangle counts, each animation with the mesh's hierarchy, a camera with
 * the same frames and cuts. libFuzzer target with GSIO_LIBFUZZER, else a
 * replay program (fuzz_replay.h). */
#include "gsio_md5_write.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

static void check_written(const gsio_md5_output *out, size_t joints, size_t tris, size_t cam_frames,
                          size_t cam_cuts, const gsio_opts *opts)
{
	gsio_error err;
	gsio_md5_mesh *mesh = NULL;
	for (size_t i = 0; i < out->files_count; i++) {
		const gsio_md5_out_file *f = &out->files[i];
		if (f->kind == GSIO_MD5_MESH) {
			if (mesh) abort(); // one mesh at most, and first
			mesh = gsio_md5_mesh_decode(f->data, f->size, f->name, opts, &err);
			if (!mesh) abort();
			size_t t = 0;
			for (size_t m = 0; m < mesh->meshes_count; m++) t += mesh->meshes[m].tris_count;
			if (t != tris || mesh->joints_count != joints) abort();
			gsio_scene *s = gsio_md5_mesh_to_scene(mesh, NULL, opts, &err);
			if (!s) {
				if (err.code == GSIO_OK) abort();
			} else {
				if (gsio_scene_validate(s, &err)) abort();
				gsio_scene_free(s);
			}
		} else if (f->kind == GSIO_MD5_ANIM) {
			gsio_md5_anim *a = gsio_md5_anim_decode(f->data, f->size, f->name, opts, &err);
			if (!a || !mesh || gsio_md5_anim_check(mesh, a, f->name, &err)) abort();
			gsio_md5_anim_free(a);
		} else if (f->kind == GSIO_MD5_CAMERA) {
			gsio_md5_camera *c = gsio_md5_camera_decode(f->data, f->size, f->name, opts, &err);
			if (!c || c->frames_count != cam_frames || c->cuts_count != cam_cuts) abort();
			gsio_md5_camera_free(c);
		}
	}
	gsio_md5_mesh_free(mesh);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) return 0;
	int kind = data[0] % 2;
	data++;
	size--;
	gsio_opts opts = fuzz_opts();
	gsio_error err;
	gsio_scene *s = NULL;
	size_t joints = 0, tris = 0, cam_frames = 0, cam_cuts = 0;
	if (kind == 0) {
		const uint8_t *nul = memchr(data, 0, size);
		size_t msize = nul ? (size_t)(nul - data) : size;
		gsio_md5_mesh *m = gsio_md5_mesh_decode(data, msize, "in.md5mesh", &opts, &err);
		if (!m) return 0;
		s = gsio_md5_mesh_to_scene(m, NULL, &opts, &err);
		if (s && nul) {
			gsio_md5_anim *a = gsio_md5_anim_decode(nul + 1, size - msize - 1, "in.md5anim", &opts, &err);
			if (a && gsio_md5_scene_add_anim(s, m, a, "anim", &err)) {
				/* not this skeleton's: the mesh alone */
			}
			gsio_md5_anim_free(a);
		}
		joints = m->joints_count;
		for (size_t i = 0; i < m->meshes_count; i++) tris += m->meshes[i].tris_count;
		gsio_md5_mesh_free(m);
	} else {
		gsio_md5_camera *c = gsio_md5_camera_decode(data, size, "in.md5camera", &opts, &err);
		if (!c) return 0;
		s = gsio_md5_camera_to_scene(c, NULL, &opts, &err);
		cam_frames = c->frames_count;
		if (s && s->animations_count) cam_cuts = s->animations[0].cuts_count;
		gsio_md5_camera_free(c);
	}
	if (!s) return 0;
	if (gsio_scene_validate(s, &err)) abort(); // the importer's promise
	gsio_md5_write_opts wo = {.memory_limit = FUZZ_MEMORY_LIMIT};
	gsio_md5_output out;
	if (gsio_md5_write(s, "out", &wo, &out, &err)) {
		fuzz_check_failure(&err);
	} else {
		// The mesh keeps every joint (no mesh is unskinned: no "origin").
		check_written(&out, joints, tris, cam_frames, cam_cuts, &opts);
		gsio_md5_output_free(&out);
	}
	gsio_scene_free(s);
	return 0;
}

#include "fuzz_replay.h"
