/* Internals shared by the MD5 codec (md5_codec.c), scene builder
 * (md5_scene.c) and sibling-file finder (md5_siblings.c). Not installed. */
#ifndef GSIO_MD5_INTERNAL_H
#define GSIO_MD5_INTERNAL_H

#include "gsio_md5.h"
#include "gsioi_internal.h"
#include "gsioi_files.h"

#include <math.h>

// -- Quaternions (double precision inside, floats in and out)

typedef struct md5_quat {
	double x, y, z, w;
} md5_quat;

// id's convention: the stored x, y, z and a non-positive w. When x, y, z
// are longer than 1 (bad data or rounding) w is 0 and x, y, z are scaled to
// a unit quaternion, so a rotation is always a rotation.
static inline md5_quat quat_from_xyz(const float v[3])
{
	md5_quat q = {v[0], v[1], v[2], 0.0};
	double t = 1.0 - q.x * q.x - q.y * q.y - q.z * q.z;
	if (t > 0.0) {
		q.w = -sqrt(t);
	} else {
		double len = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
		if (len > 0.0) {
			q.x /= len;
			q.y /= len;
			q.z /= len;
		}
	}
	return q;
}

static inline md5_quat quat_mul(md5_quat a, md5_quat b)
{
	md5_quat r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
	              a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
	              a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
	              a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
	return r;
}

static inline md5_quat quat_conj(md5_quat q)
{
	md5_quat r = {-q.x, -q.y, -q.z, q.w};
	return r;
}

// q * v * q^-1 for a unit q: v + 2w (u x v) + 2 u x (u x v).
static inline void quat_rotate(md5_quat q, const double v[3], double out[3])
{
	double tx = 2.0 * (q.y * v[2] - q.z * v[1]);
	double ty = 2.0 * (q.z * v[0] - q.x * v[2]);
	double tz = 2.0 * (q.x * v[1] - q.y * v[0]);
	out[0] = v[0] + q.w * tx + (q.y * tz - q.z * ty);
	out[1] = v[1] + q.w * ty + (q.z * tx - q.x * tz);
	out[2] = v[2] + q.w * tz + (q.x * ty - q.y * tx);
}

static inline void quat_store(md5_quat q, float out[4])
{
	out[0] = (float)q.x;
	out[1] = (float)q.y;
	out[2] = (float)q.z;
	out[3] = (float)q.w;
}

// -- Shared between the three files

/** Bytes of a UTF-8 byte order mark at the start of data (0 or 3). */
size_t gsioi_md5_bom_size(const uint8_t *data, size_t size);
/** Set bits among the six hierarchy flags. */
unsigned gsioi_md5_popcount6(uint32_t flags);
/** Appends anim (already checked against the scene's skeleton) as `name`. */
GSIO_NODISCARD bool gsioi_md5_add_anim(gsio_scene *s, const gsio_md5_anim *a, const char *name,
                                       gsio_error *err);
bool gsioi_md5_anim_valid(const gsio_md5_anim *a, gsio_error *err);
/** The file name of path without folder and extension, as UTF-8, in the scene's arena. */
char *gsioi_md5_stem(gsio_scene *s, const char *path, const char *fallback, gsio_error *err);
/** What finding shaders' textures needs (12 KB of subfolder names, the
 *  folders to look in and their listings), made once per load in its
 *  temporary arena, reused for every shader, freed with
 *  gsioi_md5_candidates_free (the listings are the io's). */
typedef struct md5_candidates md5_candidates;
md5_candidates *gsioi_md5_candidates_new(gsio_arena *tmp, const gsio_opts *opts, gsio_error *err);
void gsioi_md5_candidates_free(md5_candidates *c);
/** Finds, reads and decodes the texture of one shader into mat: a shader
 *  path with folders is tried inside the model's folder as stored, then its
 *  base name (and with .tga, .png, .jpg) by the one rule of gsioi_files.h
 *  (the model's folder, then --path). A missing, unreadable or refused
 *  texture is a warning; false only when the scene fails. */
GSIO_NODISCARD bool gsioi_md5_resolve_texture(gsio_scene *s, md5_candidates *c, gsio_material *mat,
                                              const char *shader, const char *path,
                                              const gsio_opts *opts, gsio_error *err);
/** The animations of a mesh scene: opts->anim_paths, else the siblings. */
GSIO_NODISCARD bool gsioi_md5_load_anims(gsio_scene *s, gsio_arena *tmp, const gsio_md5_mesh *m,
                                         const char *path, const gsio_opts *opts,
                                         gsio_error *err);
/** Whether an image of the scene is called name. */
bool gsioi_md5_image_taken(const gsio_scene *s, const char *name);
/** name, or name.2, name.3, ... when an image has it; in the scene's arena. */
const char *gsioi_md5_unique_image_name(gsio_scene *s, const char *name, gsio_error *err);

#endif
