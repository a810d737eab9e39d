/* MDL7: the scene of a decoded file (see gsio_mdl7.h for the codec).
 *
 * - Materials are global: triangles index the concatenation of every
 *   group's skins in file order (PhosphoricAcid's groups 1-7 have no skins
 *   and use group 0's). One material per skin; -1 (MED writes it when a
 *   group has one skin) means the group's first skin. The 68-byte record
 *   gives the base colour (diffuse), the opacity (ambient alpha; BLEND
 *   below 1), the emissive colour, and specular, ambient and power as
 *   extras. Skins of type 0-5 are decoded, 6 (DDS) through gsioi_dds.h, 7
 *   (external file name) loaded from beside the model.
 * - One mesh per group, one part per material it uses; a scene vertex is a
 *   (vertex, texture coordinate) pair. UVs are stored with a top-left
 *   origin, as glTF wants them. Stored normals point inward and triangles
 *   are clockwise: both are turned round. Double-sided pairs of a one-part
 *   group fold into one face with a double-sided material.
 * - Frames replace the vertices they list (their u16 is the index of the
 *   vertex replaced; partial frames are common). A group whose frames carry
 *   vertices gets one morph frame per file frame.
 * - Bones are joint nodes (bind pose: the stored parent-relative position,
 *   no rotation) with one skin; weights come from the deformers, else from
 *   the vertex's bone with weight 1; a vertex with neither is bound to an
 *   extra joint "unskinned" that never moves.
 * - Bone matrices, read from the corpus (docs/FORMATS.md §5.10; not the
 *   reading first inferred, which applied each matrix alone): matrix M of bone b is row-vector
 *   (v' = v M, translation in m[12..14]) and is b's own motion expressed in
 *   the bind pose's model space, a rotation about b's bind position p_b
 *   (plus a translation for roots and a few moved bones); the skinning
 *   transform composes down the tree, S_b = S_parent * M_b^T. Evidence: on
 *   the four boned corpus models with hierarchies, p_b M_b = p_b exactly for
 *   every non-root bone that never translates (so M is not a model-space
 *   skinning transform: a child's would carry its parent's motion), and the
 *   composed reading keeps every child joint on its parent's (mean gap 0.2
 *   to 0.6 quants, against 1.4 to 15 for the direct reading). In glTF terms
 *   the joint's local transform is then T(p_b - p_parent) * M_b^T with the
 *   pivot folded in: rotation = M's 3x3, translation = M^T p_b + m[12..14] -
 *   p_parent. Renders of mid-animation frames confirmed it (report).
 * - Animations group the frames by name ("walk 0".."walk 39" -> "walk")
 *   with the clip builder of gsioi_scene_util.h; each has a morph channel per
 *   animated group and a translation and a rotation channel per bone. */
#include "gsio_mdl7.h"

#include "gsioi_dds.h"
#include "gsioi_image_file.h"
#include "gsioi_internal.h"
#include "gsioi_scene_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NONE16 0xFFFFu

typedef struct build {
	gsio_scene *s;
	const gsio_mdl7_file *f;
	const gsio_opts *opts;
	const char *path;
	gsio_arena *tmp;
	gsio_error *err;
	const uint8_t *palette;
	const uint8_t *lend;   /**< the file's bytes stored skins may point into (gsioi_mdl7_to_scene_lent) */
	size_t lend_size;
	size_t skins_total;
	size_t *skin_first;    /**< per group: global index of its first skin */
	int32_t *mat_of_skin;  /**< per global skin: material */
	int32_t *bone_node;    /**< per bone: node */
	int32_t *bone_parent;  /**< per bone: parent bone, -1 for roots (after repairs) */
	float *bind_world;     /**< per bone: xyz */
	int32_t skeleton_node; /**< a plain parent of the joints when they need one, else -1 */
	int32_t *mesh_of_group; /**< per group: mesh or -1 */
	int32_t *node_of_group; /**< per group: node or -1 */
	bool need_static;      /**< some vertex has no bone: an "unskinned" joint */
	size_t bad_materials, bad_weights, bad_matrices;
	/** Bad stored normals by kind: [BAD_INDEX] a table index >= 162 (16-byte
	 *  vertices), [BAD_ZERO] float normals zero or not finite (26-byte):
	 *  each kind has its own warning, as each is replaced differently. */
	size_t bad_normals[2];
	const gsio_mdl7_group *main_group; /**< the group main_pos and main_nrm are of */
	float *main_pos, *main_nrm; /**< its main vertices as frame_vertices() takes them */
	size_t main_bad[2];    /**< bad normals among them, by kind */
} build;

enum { BAD_INDEX, BAD_ZERO };

// -- Names

/* strlen bounded by n (strnlen is POSIX, not C11). */
static size_t bounded_len(const char *p, size_t n)
{
	const char *z = memchr(p, 0, n);
	return z ? (size_t)(z - p) : n;
}

/* A name from up to n stored bytes (maybe unterminated), as UTF-8
 * (gsioi_text_utf8); `fallback` with the index when empty. */
static const char *stored_name(build *b, const char *raw, size_t n, const char *fallback,
                               size_t index)
{
	size_t len = bounded_len(raw, n < 63 ? n : 63);
	if (len) return gsioi_text_utf8_dup(b->s->arena, raw, len, b->err);
	char buf[64];
	snprintf(buf, sizeof(buf), "%s%zu", fallback, index);
	return gsioi_arena_strdup(b->s->arena, buf, b->err);
}

// -- Materials and images

static float clamp01(float x)
{
	return isfinite(x) ? (x < 0 ? 0 : x > 1 ? 1 : x) : 1;
}

static bool skin_image(build *b, const gsio_mdl7_skin *sk, size_t gidx, int32_t *image)
{
	gsio_scene *s = b->s;
	*image = -1;
	unsigned fmt = sk->type & 7u;
	gsio_image *im = &s->images[s->images_count];
	if (fmt == GSIO_MDL7_SKIN_DDS) {
		bool decoded;
		GSIO_CHECK(gsioi_dds_skin_image(s, sk->data, sk->data_size, gidx, im,
		                                b->opts && (b->opts->flags & GSIO_OPT_NO_PIXELS), &decoded,
		                                b->err));
		if (decoded) *image = (int32_t)s->images_count++;
		return true;
	}
	if (fmt == GSIO_MDL7_SKIN_EXTERNAL) {
		char stored[512];
		size_t n = bounded_len((const char *)sk->data, sk->data_size);
		if (n >= sizeof(stored)) n = sizeof(stored) - 1;
		memcpy(stored, sk->data, n);
		stored[n] = 0;
		// Two skins naming one file share its image.
		bool loaded;
		GSIO_CHECK(gsioi_external_image_load(s, stored, b->path, b->opts, im, &loaded, image,
		                                     b->err));
		if (loaded) {
			im->source_type = sk->type;
			*image = (int32_t)s->images_count++;
		}
		return true;
	}
	if (fmt == 1) {
		return gsioi_scene_warn(s, b->err, "skin %zu: type 0x%02x (a reference to another skin) "
		                                 "is not followed", gidx, (unsigned)sk->type);
	}
	if (sk->width <= 0 || sk->height <= 0) return true; // a material-only skin
	char name[32];
	snprintf(name, sizeof(name), "skin%zu", gidx);
	GSIO_CHECK((im->name = gsioi_arena_strdup(s->arena, name, b->err)));
	im->width = (uint32_t)sk->width;
	im->height = (uint32_t)sk->height;
	im->source_type = sk->type;
	im->source_format = (gsio_pixel_format)fmt;
	im->source_mip_count = (sk->type & GSIO_MDL7_SKIN_MIPS) ? 3 : 0;
	// < 2^28 texels, checked at decode
	int rc = gsioi_skin_pixels(s->arena, im, sk->data, b->palette,
	                           b->opts && (b->opts->flags & GSIO_OPT_NO_PIXELS), b->lend, b->lend_size, b->err);
	if (rc > 0) {
		GSIO_FAIL(b->err, GSIO_ERR_UNSUPPORTED, NULL, -1, "skin %zu: type 0x%02x", gidx,
		          (unsigned)sk->type);
		return false;
	}
	GSIO_CHECK(rc == 0);
	*image = (int32_t)s->images_count++;
	return true;
}

static bool build_materials(build *b)
{
	gsio_scene *s = b->s;
	const gsio_mdl7_file *f = b->f;
	GSIO_CHECK((b->skin_first = GSIO_NEW_ARRAY(b->tmp, size_t, f->groups_count, b->err)));
	size_t total = 0;
	for (size_t g = 0; g < f->groups_count; g++) {
		b->skin_first[g] = total;
		total += f->groups[g].skins_count;
	}
	b->skins_total = total;
	GSIO_CHECK((b->mat_of_skin = GSIO_NEW_ARRAY(b->tmp, int32_t, total, b->err)));
	s->images = GSIO_NEW_ARRAY(s->arena, gsio_image, total, b->err);
	s->materials = GSIO_NEW_ARRAY(s->arena, gsio_material, total, b->err);
	GSIO_CHECK(s->images && s->materials);
	gsioi_unique names; // a scan per suffix tried was cubic in skins of one name
	gsioi_unique_init(&names, b->tmp);
	for (size_t g = 0, gidx = 0; g < f->groups_count; g++)
		for (size_t i = 0; i < f->groups[g].skins_count; i++, gidx++) {
			const gsio_mdl7_skin *sk = &f->groups[g].skins[i];
			int32_t image;
			GSIO_CHECK(skin_image(b, sk, gidx, &image));
			gsio_material *mat = &s->materials[gidx];
			gsioi_material_defaults(mat);
			const char *nm = stored_name(b, sk->name, 16, "skin", gidx);
			GSIO_CHECK(nm && (nm = gsioi_unique_name(&names, s->arena, nm, 80, b->err)));
			mat->name = nm;
			mat->base_color_texture.image = image;
			GSIO_CHECK(!gsio_extras_set_int(s, &mat->extras, "gsio:skin_type", sk->type, b->err));
			if ((sk->type & 7u) == GSIO_MDL7_SKIN_EXTERNAL && image < 0) {
				char stored[256];
				gsioi_text_utf8(stored, sizeof(stored), (const char *)sk->data,
				                bounded_len((const char *)sk->data, sk->data_size));
				GSIO_CHECK(!gsio_extras_set_string(s, &mat->extras, "gsio:external_texture",
				                                   stored, b->err));
			}
			if (sk->type & GSIO_MDL7_SKIN_MATERIAL) {
				const gsio_mdl7_material *r = &sk->material;
				for (int k = 0; k < 3; k++) mat->base_color[k] = clamp01(r->diffuse[k]);
				float opacity = clamp01(r->ambient[3]);
				mat->base_color[3] = opacity;
				if (opacity < 1) mat->alpha_mode = GSIO_ALPHA_BLEND;
				for (int k = 0; k < 3; k++) mat->emissive[k] = isfinite(r->emissive[k]) && r->emissive[k] > 0 ? clamp01(r->emissive[k]) : 0;
				float v[4];
				for (int k = 0; k < 4; k++) v[k] = isfinite(r->diffuse[k]) ? r->diffuse[k] : 0;
				GSIO_CHECK(!gsio_extras_set_floats(s, &mat->extras, "gsio:diffuse", v, 4, b->err));
				for (int k = 0; k < 4; k++) v[k] = isfinite(r->ambient[k]) ? r->ambient[k] : 0;
				GSIO_CHECK(!gsio_extras_set_floats(s, &mat->extras, "gsio:ambient", v, 4, b->err));
				for (int k = 0; k < 4; k++) v[k] = isfinite(r->specular[k]) ? r->specular[k] : 0;
				GSIO_CHECK(!gsio_extras_set_floats(s, &mat->extras, "gsio:specular", v, 4, b->err));
				for (int k = 0; k < 4; k++) v[k] = isfinite(r->emissive[k]) ? r->emissive[k] : 0;
				GSIO_CHECK(!gsio_extras_set_floats(s, &mat->extras, "gsio:emissive", v, 4, b->err));
				GSIO_CHECK(!gsio_extras_set_float(s, &mat->extras, "gsio:power",
				                                  isfinite(r->power) ? r->power : 0, b->err));
			}
			b->mat_of_skin[gidx] = (int32_t)gidx;
		}
	s->materials_count = total;
	return true;
}

// -- Bones

static bool build_bones(build *b)
{
	gsio_scene *s = b->s;
	const gsio_mdl7_file *f = b->f;
	size_t nb = f->bones_count;
	if (!nb) return true;
	b->bone_node = GSIO_NEW_ARRAY(b->tmp, int32_t, nb, b->err);
	b->bone_parent = GSIO_NEW_ARRAY(b->tmp, int32_t, nb, b->err);
	b->bind_world = GSIO_NEW_ARRAY(b->tmp, float, 3 * nb, b->err);
	uint32_t *depth = GSIO_NEW_ARRAY(b->tmp, uint32_t, nb, b->err);
	uint32_t *order = GSIO_NEW_ARRAY(b->tmp, uint32_t, nb, b->err);
	uint32_t *start = GSIO_NEW_ARRAY(b->tmp, uint32_t, nb + 1, b->err);
	GSIO_CHECK(b->bone_node && b->bone_parent && b->bind_world && depth && order && start);
	// Parents out of range or in a cycle make the bone a root (warned).
	size_t repaired = 0;
	for (size_t i = 0; i < nb; i++)
		b->bone_parent[i] = f->bones[i].parent < nb ? (int32_t)f->bones[i].parent : -1;
	for (size_t i = 0; i < nb; i++) {
		if (f->bones[i].parent != NONE16 && b->bone_parent[i] < 0) repaired++;
		size_t steps = 0;
		for (int32_t p = b->bone_parent[i]; p >= 0 && steps <= nb; p = b->bone_parent[p]) steps++;
		if (steps > nb) { // a cycle through i or above it: cut at i
			b->bone_parent[i] = -1;
			repaired++;
		}
	}
	for (size_t i = 0; i < nb; i++) {
		uint32_t dd = 0;
		for (int32_t p = b->bone_parent[i]; p >= 0; p = b->bone_parent[p]) dd++;
		depth[i] = dd; // < nb once the cycles are cut
		start[dd + 1]++;
	}
	if (repaired)
		GSIO_CHECK(gsioi_scene_warn(s, b->err, "%zu bones have a parent that is not a bone or "
		                                      "that loops: made roots", repaired));
	for (size_t d = 0; d < nb; d++) start[d + 1] += start[d];
	for (size_t i = 0; i < nb; i++) order[start[depth[i]]++] = (uint32_t)i;
	// glTF wants the joints of a skin under one common root: several root
	// bones, or the extra "unskinned" joint, get a plain parent node.
	size_t roots = 0;
	for (size_t i = 0; i < nb; i++) roots += b->bone_parent[i] < 0;
	b->skeleton_node = -1;
	if (roots > 1 || b->need_static)
		GSIO_CHECK((b->skeleton_node = gsio_scene_add_node(s, "skeleton", -1, b->err)) >= 0);
	// Parents first (by depth): node indices follow that order.
	for (size_t k = 0; k < nb; k++) {
		uint32_t i = order[k];
		const gsio_mdl7_bone *bn = &f->bones[i];
		int32_t p = b->bone_parent[i];
		const char *nm = stored_name(b, bn->name, (size_t)f->header.bone_stc_size - 16, "bone", i);
		GSIO_CHECK(nm);
		int32_t node = gsio_scene_add_node(s, nm, p >= 0 ? b->bone_node[p] : b->skeleton_node, b->err);
		GSIO_CHECK(node >= 0);
		b->bone_node[i] = node;
		for (int c = 0; c < 3; c++) {
			float v = bn->pos[c];
			if (!isfinite(v) || fabsf(v) > 1e30f) {
				GSIO_FAIL(b->err, GSIO_ERR_CORRUPT, NULL, -1, "bone %u: position is not finite", i);
				return false;
			}
			s->nodes[node].translation[c] = v;
			b->bind_world[3 * i + (size_t)c] = v + (p >= 0 ? b->bind_world[3 * (size_t)p + (size_t)c] : 0);
		}
	}
	return true;
}

// -- Meshes

static void vertex_normal(build *b, const gsio_mdl7_vertex *v, size_t vsize, float out[3])
{
	float n[3];
	if (vsize == 16) {
		unsigned ni = v->normal_index;
		if (ni >= GSIO_NORMAL_COUNT) {
			b->bad_normals[BAD_INDEX]++;
			ni = 0;
		}
		for (int k = 0; k < 3; k++) n[k] = gsio_anorms[ni][k];
	} else {
		for (int k = 0; k < 3; k++) n[k] = v->normal[k];
	}
	double len = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
	if (!isfinite(len) || len < 1e-12) { // a float normal: every table row is unit
		b->bad_normals[BAD_ZERO]++;
		out[0] = out[1] = 0;
		out[2] = 1;
		return;
	}
	// Stored normals point into the model: negate.
	for (int k = 0; k < 3; k++) out[k] = (float)(-n[k] / len);
}

/* Positions and normals of every stored vertex in a frame, in *vp and
 * *vn: the main vertices with the frame's replacements applied. The main
 * vertices are made once per group (in b->tmp); a frame that replaces
 * none (a static group's only frame, or no frame) is them, not a copy,
 * and pos and nrm may then be NULL; else they are copied into pos and
 * nrm (room for the group's vertex count) and the replacements applied
 * there. Their bad normals count once a frame, as when they were made for
 * each. */
static bool frame_vertices(build *b, const gsio_mdl7_group *g, const gsio_mdl7_frame *fr, float *pos,
                           float *nrm, const float **vp, const float **vn)
{
	const gsio_mdl7_header *h = &b->f->header;
	if (b->main_group != g) {
		b->main_group = NULL;
		b->main_pos = gsioi_arena_array_uninit(b->tmp, 3 * g->verts_count, sizeof(float), b->err);
		b->main_nrm = gsioi_arena_array_uninit(b->tmp, 3 * g->verts_count, sizeof(float), b->err);
		GSIO_CHECK(b->main_pos && b->main_nrm);
		size_t bad[2] = {b->bad_normals[0], b->bad_normals[1]};
		for (size_t v = 0; v < g->verts_count; v++) {
			memcpy(&b->main_pos[3 * v], g->verts[v].pos, 3 * sizeof(float));
			vertex_normal(b, &g->verts[v], h->mainvertex_stc_size, &b->main_nrm[3 * v]);
		}
		for (int k = 0; k < 2; k++) {
			b->main_bad[k] = b->bad_normals[k] - bad[k];
			b->bad_normals[k] = bad[k];
		}
		b->main_group = g;
	}
	for (int k = 0; k < 2; k++) b->bad_normals[k] += b->main_bad[k];
	if (!fr || !fr->verts_count) {
		pos = b->main_pos;
		nrm = b->main_nrm;
	} else {
		memcpy(pos, b->main_pos, 3 * g->verts_count * sizeof(float));
		memcpy(nrm, b->main_nrm, 3 * g->verts_count * sizeof(float));
		for (size_t k = 0; k < fr->verts_count; k++) {
			const gsio_mdl7_vertex *v = &fr->verts[k];
			size_t i = v->bone; // < verts_count, checked at decode
			memcpy(&pos[3 * i], v->pos, 3 * sizeof(float));
			vertex_normal(b, v, h->framevertex_stc_size, &nrm[3 * i]);
		}
	}
	if (!gsioi_floats_finite(pos, 3 * g->verts_count)) {
		GSIO_FAIL(b->err, GSIO_ERR_CORRUPT, NULL, -1, "group \"%.16s\": positions are not finite",
		          g->name);
		return false;
	}
	*vp = pos;
	*vn = nrm;
	return true;
}

/* The morph frames of mesh m from its group's frames. Frame 0 is the mesh's
 * own positions and normals (made from the same frame). The others are
 * kept once per file vertex (gsio_packed_format with coord_size 4: 3
 * floats of position, 3 of normal, 24 bytes), not per mesh vertex: the
 * mesh has more (split along UV seams: cbabe_male 2 has 3 223 for 2 249;
 * 1.7 MB less over the corpus). The box is taken over the vertices in
 * their order (gsioi_bbox3_rows), as over float arrays of them. spos,
 * snrm: scratch of the group's vertex count. */
static bool mesh_frames(build *b, const gsio_mdl7_group *g, gsio_mesh *m, float *spos, float *snrm)
{
	gsio_scene *s = b->s;
	gsio_error *err = b->err;
	const size_t nv = g->verts_count, count = m->vertex_count;
	const uint32_t *sv = m->source_vertex;
	GSIO_CHECK((m->frames = GSIO_NEW_ARRAY(s->arena, gsio_morph_frame, g->frames_count, err)));
	m->frames_count = g->frames_count;
	gsio_packed_format *pf = GSIO_NEW_ARRAY(s->arena, gsio_packed_format, 1, err);
	GSIO_CHECK(pf);
	pf->coord_size = 4;
	pf->vertex_stride = 24;
	pf->normal_offset = 12;
	pf->normal_floats = true;
	pf->source_count = nv;
	for (int k = 0; k < 3; k++) pf->scale[k] = 1, pf->offset[k] = 0;
	m->packed = pf;
	for (size_t i = 0; i < g->frames_count; i++) {
		gsio_morph_frame *mf = &m->frames[i];
		GSIO_CHECK((mf->name = stored_name(b, g->frames[i].name, 16, "frame", i)));
		// Frame 0 is made again for its count of bad normals (a bad normal
		// counts in the base pose and in every frame).
		const float *fp, *fn;
		GSIO_CHECK(frame_vertices(b, g, &g->frames[i], spos, snrm, &fp, &fn));
		if (i == 0) { // frame 0 made m->positions and m->normals
			mf->positions = m->positions;
			mf->normals = m->normals;
			memcpy(mf->bbox_min, m->bbox_min, sizeof(m->bbox_min));
			memcpy(mf->bbox_max, m->bbox_max, sizeof(m->bbox_max));
			continue;
		}
		float *rec = gsioi_arena_array_uninit(s->arena, 6 * nv, sizeof(float), err);
		GSIO_CHECK(rec);
		for (size_t u = 0; u < nv; u++) {
			memcpy(&rec[6 * u], &fp[3 * u], 3 * sizeof(float));
			memcpy(&rec[6 * u + 3], &fn[3 * u], 3 * sizeof(float));
		}
		mf->packed = (const uint8_t *)rec;
		mf->packed_size = 24 * nv;
		gsioi_bbox3_rows(rec, 6, sv, count, mf->bbox_min, mf->bbox_max);
	}
	return true;
}

static int32_t triangle_material(build *b, size_t gi, const gsio_mdl7_triangle *t)
{
	const gsio_mdl7_group *g = &b->f->groups[gi];
	if (t->material == -1 || b->f->header.triangle_stc_size == 12)
		return g->skins_count ? b->mat_of_skin[b->skin_first[gi]] : (b->skins_total ? 0 : -1);
	if (t->material < 0 || (size_t)t->material >= b->skins_total) {
		b->bad_materials++;
		return -1;
	}
	return b->mat_of_skin[t->material];
}

/* Weights of the group's stored vertices, CSR over the stored vertices:
 * the deformers' first, else the vertex's bone with weight 1, else the
 * unskinned joint (index bones_count). `count_only` just finds whether the
 * group is skinned and needs that joint. */
typedef struct src_weights {
	uint32_t *off;
	uint32_t *joint;
	float *value;
} src_weights;

static bool group_weights(build *b, const gsio_mdl7_group *g, src_weights *out, bool *skinned)
{
	size_t nb = b->f->bones_count, nv = g->verts_count;
	*skinned = false;
	if (!nb) return true;
	uint32_t *cnt = GSIO_NEW_ARRAY(b->tmp, uint32_t, nv + 1, b->err);
	GSIO_CHECK(cnt);
	size_t bad = 0;
	for (size_t d = 0; d < g->deformers_count; d++)
		for (size_t e = 0; e < g->deformers[d].elements_count; e++) {
			const gsio_mdl7_deformer_element *el = &g->deformers[d].elements[e];
			for (size_t w = 0; w < el->weights_count; w++) {
				const gsio_mdl7_weight *wt = &el->weights[w];
				if (el->index < 0 || (size_t)el->index >= nb || wt->vertex < 0 ||
				    (size_t)wt->vertex >= nv || !isfinite(wt->weight) || wt->weight < 0) {
					bad++;
					continue;
				}
				if (cnt[wt->vertex] == UINT32_MAX) continue;
				cnt[wt->vertex]++;
			}
		}
	size_t fallback = 0;
	for (size_t v = 0; v < nv; v++) {
		if (cnt[v]) {
			*skinned = true;
			continue;
		}
		cnt[v] = 1;
		if (g->verts[v].bone < nb) *skinned = true;
		else fallback++;
	}
	if (!*skinned) return true;
	if (fallback) b->need_static = true;
	if (!out) return true;
	b->bad_weights += bad;
	out->off = GSIO_NEW_ARRAY(b->tmp, uint32_t, nv + 1, b->err);
	GSIO_CHECK(out->off);
	for (size_t v = 0; v < nv; v++) {
		if ((size_t)out->off[v] + cnt[v] > UINT32_MAX) {
			GSIO_FAIL(b->err, GSIO_ERR_LIMIT, NULL, -1, "too many weights");
			return false;
		}
		out->off[v + 1] = out->off[v] + cnt[v];
	}
	size_t total = out->off[nv];
	out->joint = GSIO_NEW_ARRAY(b->tmp, uint32_t, total, b->err);
	out->value = GSIO_NEW_ARRAY(b->tmp, float, total, b->err);
	uint32_t *fill = GSIO_NEW_ARRAY(b->tmp, uint32_t, nv, b->err);
	bool *has = GSIO_NEW_ARRAY(b->tmp, bool, nv, b->err); // a deformer weighted the vertex
	GSIO_CHECK(out->joint && out->value && fill && has);
	memcpy(fill, out->off, nv * sizeof(*fill));
	for (size_t d = 0; d < g->deformers_count; d++)
		for (size_t e = 0; e < g->deformers[d].elements_count; e++) {
			const gsio_mdl7_deformer_element *el = &g->deformers[d].elements[e];
			for (size_t w = 0; w < el->weights_count; w++) {
				const gsio_mdl7_weight *wt = &el->weights[w];
				if (el->index < 0 || (size_t)el->index >= nb || wt->vertex < 0 ||
				    (size_t)wt->vertex >= nv || !isfinite(wt->weight) || wt->weight < 0)
					continue;
				size_t v = (size_t)wt->vertex;
				if (fill[v] >= out->off[v + 1]) continue;
				has[v] = true;
				out->joint[fill[v]] = (uint32_t)el->index;
				out->value[fill[v]++] = wt->weight;
			}
		}
	for (size_t v = 0; v < nv; v++) {
		if (has[v]) continue;
		out->joint[fill[v]] = g->verts[v].bone < nb ? g->verts[v].bone : (uint32_t)nb;
		out->value[fill[v]++] = 1.0f;
	}
	return true;
}

/* The group's parts, indices and welded vertices (source_vertex, and
 * source_uv and uvs when it has texture coordinates) in m, in the scene's
 * arena at their final size (made in a scratch arena and copied to the
 * scene, they and the first frame's positions and normals were there twice
 * at the load's peak); the tables that get there in `work`, which the
 * caller frees once they are made. */
static bool weld_group(build *b, size_t gi, gsio_mesh *m, gsio_arena *work)
{
	gsio_scene *s = b->s;
	gsio_arena *tmp = work;
	gsio_error *err = b->err;
	const gsio_mdl7_group *g = &b->f->groups[gi];
	size_t nt = g->triangles_count, nv = g->verts_count, nuv = g->uvs_count;

	// Triangles in part order: by material, in order of first use.
	int32_t *tmat = GSIO_NEW_ARRAY(tmp, int32_t, nt, err);
	uint32_t *tord = GSIO_NEW_ARRAY(tmp, uint32_t, nt, err);
	// A part a material (key: material, skins_total for none), so at most
	// min(nt, skins_total + 1) parts; sized by nt, the two zeroed arrays
	// were 12 bytes a triangle (corridor_02_short_door: 12 KB of its load).
	size_t most_parts = nt < b->skins_total + 1 ? nt : b->skins_total + 1;
	int32_t *pmats = GSIO_NEW_ARRAY(tmp, int32_t, most_parts, err);
	size_t *pcount = GSIO_NEW_ARRAY(tmp, size_t, most_parts, err);
	int32_t *part_of_mat = GSIO_NEW_ARRAY(tmp, int32_t, b->skins_total + 1, err);
	GSIO_CHECK(tmat && tord && pmats && pcount && part_of_mat);
	for (size_t i = 0; i <= b->skins_total; i++) part_of_mat[i] = -1;
	size_t nparts = 0;
	for (size_t t = 0; t < nt; t++) {
		tmat[t] = triangle_material(b, gi, &g->triangles[t]);
		size_t key = tmat[t] < 0 ? b->skins_total : (size_t)tmat[t];
		if (part_of_mat[key] < 0) {
			part_of_mat[key] = (int32_t)nparts;
			pmats[nparts++] = tmat[t];
		}
		pcount[part_of_mat[key]]++;
	}
	size_t *pstart = GSIO_NEW_ARRAY(tmp, size_t, nparts + 1, err);
	GSIO_CHECK(pstart);
	for (size_t p = 0; p < nparts; p++) pstart[p + 1] = pstart[p] + pcount[p];
	GSIO_CHECK((m->parts = GSIO_NEW_ARRAY(s->arena, gsio_mesh_part, nparts, err)));
	m->parts_count = nparts;
	for (size_t p = 0; p < nparts; p++) {
		m->parts[p].first_index = 3 * pstart[p];
		m->parts[p].index_count = 3 * pcount[p];
		m->parts[p].material = pmats[p];
	}
	for (size_t t = 0; t < nt; t++) {
		size_t key = tmat[t] < 0 ? b->skins_total : (size_t)tmat[t];
		tord[pstart[part_of_mat[key]]++] = (uint32_t)t;
	}

	// Corners in that order, winding reversed (stored clockwise).
	size_t nc = 3 * nt;
	uint32_t *cv = GSIO_NEW_ARRAY(tmp, uint32_t, nc, err);  // stored vertex
	uint32_t *cuv = GSIO_NEW_ARRAY(tmp, uint32_t, nc, err); // uv index, nuv = none
	GSIO_CHECK(cv && cuv);
	static const int rev[3] = {0, 2, 1};
	for (size_t k = 0; k < nt; k++) {
		const gsio_mdl7_triangle *t = &g->triangles[tord[k]];
		for (int c = 0; c < 3; c++) {
			cv[3 * k + (size_t)c] = t->v[rev[c]];
			uint16_t uv = t->uv[rev[c]];
			cuv[3 * k + (size_t)c] = uv == NONE16 ? (uint32_t)nuv : uv;
		}
	}
	// Weld (vertex, uv) pairs in corner order (gsioi_weld; uv nuv: none).
	m->indices = GSIO_NEW_ARRAY_UNINIT(s->arena, uint32_t, nc, err);
	GSIO_CHECK(m->indices);
	m->index_count = nc;
	const gsioi_corner_keys v_keys = {cv, 3 * sizeof(*cv), sizeof(*cv)};
	const gsioi_corner_keys uv_keys = {cuv, 3 * sizeof(*cuv), sizeof(*cuv)};
	size_t nout;
	GSIO_CHECK(gsioi_weld(v_keys, uv_keys, nc, nv, nuv + 1, m->indices, &nout, tmp, err));
	// One output vertex a group, made in the scene at its final size from
	// its first corner.
	m->vertex_count = nout;
	m->source_vertex = GSIO_NEW_ARRAY_UNINIT(s->arena, uint32_t, nout, err);
	GSIO_CHECK(m->source_vertex);
	if (nuv) {
		// Zeroed: a vertex whose corners have no uv keeps 0, 0 (and uv 0).
		m->source_uv = GSIO_NEW_ARRAY(s->arena, uint32_t, nout, err);
		m->uvs = GSIO_NEW_ARRAY(s->arena, float, 2 * nout, err);
		GSIO_CHECK(m->source_uv && m->uvs);
	}
	size_t bad_uvs = 0, made = 0;
	for (size_t c = 0; c < nc; c++) {
		if (m->indices[c] != made) continue;
		uint32_t o = (uint32_t)made++;
		m->source_vertex[o] = cv[c];
		if (!nuv) continue;
		if (cuv[c] < nuv) {
			m->source_uv[o] = cuv[c];
			// Top-left origin, like glTF: as stored.
			float u = g->uvs[2 * cuv[c]], v = g->uvs[2 * cuv[c] + 1];
			if (!isfinite(u) || !isfinite(v)) {
				bad_uvs++;
				u = v = 0;
			}
			m->uvs[2 * o] = u;
			m->uvs[2 * o + 1] = v;
		}
	}
	if (bad_uvs)
		GSIO_CHECK(gsioi_scene_warn(s, err, "group %zu: %zu texture coordinates are not finite; "
		                                   "used 0, 0", gi, bad_uvs));
	return true;
}

/* Group gi's mesh in m: welded (weld_group, its tables freed before the
 * pose is made: skelett's single group of 2 519 triangles has 260 KB of
 * them), then its first frame, folded double-sided faces, and its morph
 * frames when any frame moves a vertex. */
static bool build_mesh(build *b, size_t gi, gsio_mesh *m, bool *morph)
{
	gsio_scene *s = b->s;
	gsio_arena *tmp = b->tmp;
	gsio_error *err = b->err;
	const gsio_mdl7_group *g = &b->f->groups[gi];
	size_t nv = g->verts_count;
	*morph = false;
	gsio_arena *work = gsioi_arena_for(b->opts, "MDL7 welding", err);
	if (!work) return false;
	bool welded = weld_group(b, gi, m, work);
	gsioi_arena_destroy(work);
	GSIO_CHECK(welded);
	size_t nout = m->vertex_count;

	// Frames: morph frames when any frame moves a vertex; else the first
	// frame (if any) is the pose.
	bool animate = !(b->opts && (b->opts->flags & GSIO_OPT_NO_ANIMATION));
	bool moves = false;
	for (size_t i = 0; i < g->frames_count; i++) moves = moves || g->frames[i].verts_count;
	*morph = animate && moves && g->frames_count >= 2;
	// Scratch for a frame that replaces vertices: not needed by a static
	// group (corridor_02_short_door: 11 KB of its load's peak).
	const gsio_mdl7_frame *f0 = g->frames_count ? &g->frames[0] : NULL;
	float *spos = NULL, *snrm = NULL;
	if (*morph || (f0 && f0->verts_count)) {
		spos = gsioi_arena_array_uninit(tmp, 3 * nv, sizeof(float), err);
		snrm = gsioi_arena_array_uninit(tmp, 3 * nv, sizeof(float), err);
		GSIO_CHECK(spos && snrm);
	}
	// A static group reads its main vertices once, for the pose below:
	// they are made in an arena of their own, freed before the fold
	// (corridor_02_short_door: 11 KB of its load's peak). A group with
	// frames keeps them in the group's scratch for every frame.
	gsio_arena *pose = NULL;
	if (!spos) {
		GSIO_CHECK((pose = gsioi_arena_for(b->opts, "MDL7 pose", err)));
		b->tmp = pose;
		b->main_group = NULL;
	}
	const float *pos0, *nrm0;
	bool posed = frame_vertices(b, g, f0, spos, snrm, &pos0, &nrm0);
	if (posed) {
		m->positions = gsioi_arena_array_uninit(s->arena, 3 * nout, sizeof(float), err);
		m->normals = gsioi_arena_array_uninit(s->arena, 3 * nout, sizeof(float), err);
		posed = m->positions && m->normals;
	}
	for (size_t v = 0; posed && v < nout; v++) {
		memcpy(&m->positions[3 * v], &pos0[3 * (size_t)m->source_vertex[v]], 3 * sizeof(float));
		memcpy(&m->normals[3 * v], &nrm0[3 * (size_t)m->source_vertex[v]], 3 * sizeof(float));
	}
	if (pose) {
		b->tmp = tmp;
		b->main_group = NULL; // its main vertices were in the pose's arena
		gsioi_arena_destroy(pose);
	}
	GSIO_CHECK(posed);

	// Double-sided pairs fold into one face with a double-sided copy of its
	// part's material, decided on the first frame (gsioi_scene_util.h).
	// Materials are global across groups: never changed, only copied.
	size_t pairs = 0;
	GSIO_CHECK(gsioi_mesh_fold_double_sided(s, m, tmp, true, &pairs, err));
	gsioi_bbox3(m->positions, m->vertex_count, m->bbox_min, m->bbox_max);

	if (*morph) GSIO_CHECK(mesh_frames(b, g, m, spos, snrm));
	return true;
}

/* The mesh's weights from the stored vertices' (split copies included). */
static bool mesh_weights(build *b, gsio_mesh *m, const src_weights *sw)
{
	gsio_scene *s = b->s;
	size_t nv = m->vertex_count, total = 0;
	for (size_t v = 0; v < nv; v++) {
		uint32_t sv = m->source_vertex[v];
		total += sw->off[sv + 1] - sw->off[sv];
	}
	if (total > UINT32_MAX) {
		GSIO_FAIL(b->err, GSIO_ERR_LIMIT, NULL, -1, "too many weights");
		return false;
	}
	gsio_weights *w = &m->weights;
	w->offsets = GSIO_NEW_ARRAY(s->arena, uint32_t, nv + 1, b->err);
	w->joints = GSIO_NEW_ARRAY(s->arena, uint32_t, total, b->err);
	w->values = GSIO_NEW_ARRAY(s->arena, float, total, b->err);
	GSIO_CHECK(w->offsets && w->joints && w->values);
	size_t k = 0;
	for (size_t v = 0; v < nv; v++) {
		uint32_t sv = m->source_vertex[v];
		for (uint32_t i = sw->off[sv]; i < sw->off[sv + 1]; i++, k++) {
			w->joints[k] = sw->joint[i];
			w->values[k] = sw->value[i];
		}
		w->offsets[v + 1] = (uint32_t)k;
	}
	w->count = total;
	return true;
}

/* Group gi's mesh, made in m, with its weights when skinned. What the group
 * needs only while it is made (corner orders, welding tables, its vertices'
 * weights, its first frame's positions) is in a scratch arena of its own,
 * freed when the group is done: in b->tmp it stayed until the whole model
 * was made, and a level's model of 223 groups (concept_02) held 466 KB of
 * it beside a scene of 237 KB (the load's peak 983 KB, now 461 KB). */
static bool group_mesh(build *b, size_t gi, gsio_mesh *m, bool *skinned)
{
	const gsio_mdl7_group *g = &b->f->groups[gi];
	gsio_arena *outer = b->tmp;
	if (!(b->tmp = gsioi_arena_for(b->opts, "MDL7 group scratch", b->err))) {
		b->tmp = outer;
		return false;
	}
	src_weights sw = {0};
	bool morph, ok = group_weights(b, g, &sw, skinned);
	m->skin = -1;
	ok = ok && (m->name = stored_name(b, g->name, 16, "group", gi)) && build_mesh(b, gi, m, &morph);
	if (ok && *skinned) {
		m->skin = 0;
		ok = mesh_weights(b, m, &sw);
	}
	gsioi_arena_destroy(b->tmp);
	b->tmp = outer;
	b->main_group = NULL; // its main vertices were in the group's arena
	return ok;
}

// -- Skeletal animation

/* Quaternion (x, y, z, w) of the rotation in a column-major 4x4's 3x3. */
static void quat_from_matrix(const float *a, float q[4])
{
#define R(r, c) ((double)a[4 * (c) + (r)])
	double t = R(0, 0) + R(1, 1) + R(2, 2), x, y, z, w;
	if (t > 0) {
		double s = sqrt(t + 1.0) * 2;
		w = 0.25 * s;
		x = (R(2, 1) - R(1, 2)) / s;
		y = (R(0, 2) - R(2, 0)) / s;
		z = (R(1, 0) - R(0, 1)) / s;
	} else if (R(0, 0) > R(1, 1) && R(0, 0) > R(2, 2)) {
		double s = sqrt(1.0 + R(0, 0) - R(1, 1) - R(2, 2)) * 2;
		w = (R(2, 1) - R(1, 2)) / s;
		x = 0.25 * s;
		y = (R(0, 1) + R(1, 0)) / s;
		z = (R(0, 2) + R(2, 0)) / s;
	} else if (R(1, 1) > R(2, 2)) {
		double s = sqrt(1.0 + R(1, 1) - R(0, 0) - R(2, 2)) * 2;
		w = (R(0, 2) - R(2, 0)) / s;
		x = (R(0, 1) + R(1, 0)) / s;
		y = 0.25 * s;
		z = (R(1, 2) + R(2, 1)) / s;
	} else {
		double s = sqrt(1.0 + R(2, 2) - R(0, 0) - R(1, 1)) * 2;
		w = (R(1, 0) - R(0, 1)) / s;
		x = (R(0, 2) + R(2, 0)) / s;
		y = (R(1, 2) + R(2, 1)) / s;
		z = 0.25 * s;
	}
#undef R
	double n = sqrt(x * x + y * y + z * z + w * w);
	if (!isfinite(n) || n < 1e-12) {
		q[0] = q[1] = q[2] = 0;
		q[3] = 1;
		return;
	}
	if (w < 0) n = -n; // one hemisphere: keys interpolate the short way
	q[0] = (float)(x / n);
	q[1] = (float)(y / n);
	q[2] = (float)(z / n);
	q[3] = (float)(w / n);
}

/* Bone i's local translation and rotation in frame fr (see the top). */
static void bone_pose(build *b, size_t i, const gsio_mdl7_bone_matrix *bm, float t[3], float q[4])
{
	const float *pb = &b->bind_world[3 * i];
	int32_t p = b->bone_parent[i];
	float pp[3] = {0, 0, 0};
	if (p >= 0) memcpy(pp, &b->bind_world[3 * (size_t)p], sizeof(pp));
	if (!bm) {
		for (int k = 0; k < 3; k++) t[k] = pb[k] - pp[k];
		q[0] = q[1] = q[2] = 0;
		q[3] = 1;
		return;
	}
	// The row-major file matrix is the column-major column-vector matrix.
	const float *a = bm->m;
	float tt[3];
	for (int r = 0; r < 3; r++)
		tt[r] = a[r] * pb[0] + a[4 + r] * pb[1] + a[8 + r] * pb[2] + a[12 + r] - pp[r];
	float qq[4];
	quat_from_matrix(a, qq);
	if (!gsioi_floats_finite(tt, 3) || !gsioi_floats_finite(qq, 4) || fabsf(tt[0]) > 1e30f ||
	    fabsf(tt[1]) > 1e30f || fabsf(tt[2]) > 1e30f) {
		b->bad_matrices++;
		bone_pose(b, i, NULL, t, q);
		return;
	}
	memcpy(t, tt, sizeof(tt));
	memcpy(q, qq, sizeof(qq));
}

static bool build_animations(build *b, int32_t skin_static_node)
{
	(void)skin_static_node;
	gsio_scene *s = b->s;
	const gsio_mdl7_file *f = b->f;
	if (b->opts && (b->opts->flags & GSIO_OPT_NO_ANIMATION)) return true;
	// The group whose frames drive the clips: the first with bone matrices,
	// else the first with morph frames.
	size_t ag = SIZE_MAX;
	bool skeletal = false;
	for (size_t g = 0; g < f->groups_count && ag == SIZE_MAX; g++)
		for (size_t i = 0; i < f->groups[g].frames_count; i++)
			if (f->groups[g].frames[i].matrices_count && f->bones_count) {
				ag = g;
				skeletal = true;
				break;
			}
	for (size_t g = 0; g < f->groups_count && ag == SIZE_MAX; g++)
		if (b->mesh_of_group[g] >= 0 && s->meshes[b->mesh_of_group[g]].frames_count >= 2) ag = g;
	if (ag == SIZE_MAX || f->groups[ag].frames_count < 2) return true;
	const gsio_mdl7_group *G = &f->groups[ag];
	// Clip runs from the frame names (a mesh that carries only the names).
	gsio_mesh names = {0};
	names.frames_count = G->frames_count;
	GSIO_CHECK((names.frames = GSIO_NEW_ARRAY(b->tmp, gsio_morph_frame, G->frames_count, b->err)));
	for (size_t i = 0; i < G->frames_count; i++)
		GSIO_CHECK((names.frames[i].name = stored_name(b, G->frames[i].name, 16, "frame", i)));
	size_t first_anim = s->animations_count;
	GSIO_CHECK(gsioi_scene_build_clips(s, &names, -1, GSIO_DEFAULT_FPS, b->err));
	float fps = b->opts && b->opts->fps > 0 ? b->opts->fps : GSIO_DEFAULT_FPS;
	size_t nb = skeletal ? f->bones_count : 0;
	size_t nmorph = 0;
	for (size_t g = 0; g < f->groups_count; g++)
		if (b->mesh_of_group[g] >= 0 && s->meshes[b->mesh_of_group[g]].frames_count) nmorph++;
	const gsio_mdl7_bone_matrix **by_bone = GSIO_NEW_ARRAY(b->tmp, const gsio_mdl7_bone_matrix *, nb, b->err);
	GSIO_CHECK(by_bone || !nb);
	size_t frame0 = 0;
	for (size_t ai = first_anim; ai < s->animations_count; ai++) {
		gsio_animation *an = &s->animations[ai];
		an->fps = fps;
		size_t nk = an->frames_count;
		size_t nch = nmorph + 2 * nb;
		GSIO_CHECK((an->channels = GSIO_NEW_ARRAY(s->arena, gsio_channel, nch, b->err)));
		an->channels_count = nch;
		size_t c = 0;
		for (size_t g = 0; g < f->groups_count; g++) {
			int32_t mi = b->mesh_of_group[g];
			if (mi < 0 || !s->meshes[mi].frames_count) continue;
			gsio_channel *ch = &an->channels[c++];
			ch->node = b->node_of_group[g];
			ch->path = GSIO_PATH_MORPH;
			GSIO_CHECK((ch->frames = GSIO_NEW_ARRAY(s->arena, uint32_t, nk, b->err)));
			size_t last = s->meshes[mi].frames_count - 1;
			for (size_t k = 0; k < nk; k++)
				ch->frames[k] = (uint32_t)(frame0 + k < last ? frame0 + k : last);
		}
		for (size_t i = 0; i < nb; i++) {
			gsio_channel *tc = &an->channels[c++], *rc = &an->channels[c++];
			tc->node = rc->node = b->bone_node[i];
			tc->path = GSIO_PATH_TRANSLATION;
			rc->path = GSIO_PATH_ROTATION;
			tc->values = GSIO_NEW_ARRAY(s->arena, float, 3 * nk, b->err);
			rc->values = GSIO_NEW_ARRAY(s->arena, float, 4 * nk, b->err);
			GSIO_CHECK(tc->values && rc->values);
		}
		for (size_t k = 0; k < nk && nb; k++) {
			const gsio_mdl7_frame *fr = &G->frames[frame0 + k];
			memset(by_bone, 0, nb * sizeof(*by_bone));
			for (size_t m = 0; m < fr->matrices_count; m++) by_bone[fr->matrices[m].bone] = &fr->matrices[m];
			for (size_t i = 0; i < nb; i++) {
				gsio_channel *tc = &an->channels[nmorph + 2 * i], *rc = tc + 1;
				bone_pose(b, i, by_bone[i], &tc->values[3 * k], &rc->values[4 * k]);
			}
			// Keep consecutive rotation keys in one hemisphere.
			for (size_t i = 0; k && i < nb; i++) {
				float *q = &an->channels[nmorph + 2 * i + 1].values[4 * k], *p = q - 4;
				if (q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3] < 0)
					for (int j = 0; j < 4; j++) q[j] = -q[j];
			}
		}
		frame0 += nk;
	}
	if (b->bad_matrices)
		GSIO_CHECK(gsioi_scene_warn(s, b->err, "%zu bone matrices are not finite: used the bind pose",
		                           b->bad_matrices));
	return true;
}

// -- The scene

static bool build_skin(build *b)
{
	gsio_scene *s = b->s;
	size_t nb = b->f->bones_count;
	size_t nj = nb + (b->need_static ? 1 : 0);
	int32_t static_node = -1;
	if (b->need_static)
		GSIO_CHECK((static_node = gsio_scene_add_node(s, "unskinned", b->skeleton_node, b->err)) >= 0);
	// Marked so a writer knows it for no bone (exporters/mdl7_write.c).
	if (b->need_static)
		GSIO_CHECK(!gsio_extras_set_int(s, &s->nodes[static_node].extras, "gsio:unskinned", 1, b->err));
	int32_t k = gsio_scene_add_skin(s, "skeleton", nj, b->err);
	GSIO_CHECK(k >= 0);
	gsio_skin *sk = &s->skins[k];
	size_t roots = 0;
	int32_t root = -1;
	for (size_t i = 0; i < nb; i++) {
		sk->joints[i] = b->bone_node[i];
		float *ib = &sk->inverse_bind[16 * i];
		for (int c = 0; c < 3; c++) ib[12 + c] = -b->bind_world[3 * i + (size_t)c];
		if (b->bone_parent[i] < 0) {
			roots++;
			root = b->bone_node[i];
		}
	}
	if (b->need_static) sk->joints[nb] = static_node;
	sk->skeleton = b->skeleton_node >= 0 ? b->skeleton_node : roots == 1 ? root : -1;
	return true;
}

gsio_scene *gsio_mdl7_to_scene(const gsio_mdl7_file *f, const char *name, const gsio_opts *opts,
                               gsio_error *err)
{
	return gsioi_mdl7_to_scene_lent(f, name, opts, NULL, 0, err);
}

gsio_scene *gsioi_mdl7_to_scene_lent(const gsio_mdl7_file *f, const char *name, const gsio_opts *opts,
                                     const uint8_t *lend, size_t lend_size, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_scene *s = gsioi_scene_create(opts, err);
	if (!s) return NULL;
	build b = {0};
	b.s = s;
	b.f = f;
	b.opts = opts;
	b.path = name;
	b.err = err;
	b.lend = lend;
	b.lend_size = lend_size;
	uint8_t palette_buf[768];
	b.palette = opts ? opts->palette : NULL;
	if (!b.palette && opts && opts->palette_path) {
		if (gsioi_palette_load_io(opts, opts->palette_path, palette_buf, err)) goto fail;
		b.palette = palette_buf;
	}
	s->format = "MDL7";
	s->format_version = 7;
	for (size_t g = 0; g < f->groups_count; g++) {
		s->source.vertices += f->groups[g].verts_count;
		s->source.triangles += f->groups[g].triangles_count;
		s->source.uvs += f->groups[g].uvs_count;
		if (f->groups[g].frames_count > s->source.frames) s->source.frames = f->groups[g].frames_count;
	}
	if (!(b.tmp = gsioi_arena_for(opts, "MDL7 scratch", err))) goto fail;
	size_t ng = f->groups_count;
	b.skeleton_node = -1;
	for (size_t g = 0; g < ng; g++) { // whether an "unskinned" joint is needed
		bool sk;
		if (!group_weights(&b, &f->groups[g], NULL, &sk)) goto fail;
	}
	if (!build_materials(&b) || !build_bones(&b)) goto fail;

	b.mesh_of_group = GSIO_NEW_ARRAY(b.tmp, int32_t, ng, err);
	b.node_of_group = GSIO_NEW_ARRAY(b.tmp, int32_t, ng, err);
	if (!b.mesh_of_group || !b.node_of_group) goto fail;
	if (!(s->meshes = GSIO_NEW_ARRAY(s->arena, gsio_mesh, ng, err))) goto fail;
	size_t empty = 0;
	bool any_skinned = false;
	for (size_t g = 0; g < ng; g++) {
		b.mesh_of_group[g] = b.node_of_group[g] = -1;
		const gsio_mdl7_group *G = &f->groups[g];
		if (!G->triangles_count || !G->verts_count) {
			empty++;
			continue;
		}
		bool skinned;
		if (!group_mesh(&b, g, &s->meshes[s->meshes_count], &skinned)) goto fail;
		any_skinned = any_skinned || skinned;
		b.mesh_of_group[g] = (int32_t)s->meshes_count++;
	}
	if (empty && !gsioi_scene_warn(s, err, "%zu groups have no triangles or no vertices: no mesh", empty))
		goto fail;
	if (b.bad_materials &&
	    !gsioi_scene_warn(s, err, "%zu triangles name a material that does not exist: none used",
	                      b.bad_materials))
		goto fail;
	if (b.bad_weights &&
	    !gsioi_scene_warn(s, err, "%zu deformer weights name a bone or vertex that does not exist "
	                             "or are negative: skipped", b.bad_weights))
		goto fail;
	// Worded as MDL2-5 word a bad table index; MDL7's float normals have no table.
	if (b.bad_normals[BAD_INDEX] &&
	    !gsioi_scene_warn(s, err, "%zu vertex normal indices are >= 162; used normal 0",
	                      b.bad_normals[BAD_INDEX]))
		goto fail;
	if (b.bad_normals[BAD_ZERO] &&
	    !gsioi_scene_warn(s, err, "%zu vertex normals are zero or not finite: used +z",
	                      b.bad_normals[BAD_ZERO]))
		goto fail;
	if (any_skinned && !build_skin(&b)) goto fail;

	// Nodes: one group is placed by the model's node; several are children
	// of it, unless skinned (a skinned mesh's node is a root in glTF).
	int32_t meshes = (int32_t)s->meshes_count;
	if (meshes == 1 || (meshes && !any_skinned)) {
		int32_t root = gsioi_scene_add_model_node(s, name, meshes == 1 ? 0 : -1, err);
		if (root < 0) goto fail;
		for (size_t g = 0; g < ng; g++) {
			if (b.mesh_of_group[g] < 0) continue;
			if (meshes == 1) {
				b.node_of_group[g] = root;
				continue;
			}
			int32_t n = gsio_scene_add_node(s, s->meshes[b.mesh_of_group[g]].name, root, err);
			if (n < 0) goto fail;
			s->nodes[n].mesh = b.mesh_of_group[g];
			b.node_of_group[g] = n;
		}
	} else {
		for (size_t g = 0; g < ng; g++) {
			if (b.mesh_of_group[g] < 0) continue;
			int32_t n = gsio_scene_add_node(s, s->meshes[b.mesh_of_group[g]].name, -1, err);
			if (n < 0) goto fail;
			s->nodes[n].mesh = b.mesh_of_group[g];
			b.node_of_group[g] = n;
		}
	}
	if (!build_animations(&b, -1)) goto fail;
	gsioi_arena_destroy(b.tmp);
	return s;
fail:
	if (name && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", name);
	if (err->code == GSIO_OK) GSIO_FAIL(err, GSIO_ERR_NOMEM, name, -1, "building the MDL7 scene failed");
	gsioi_arena_destroy(b.tmp);
	gsio_scene_free(s);
	return NULL;
}
