/* gsio_bench: the synthetic large files (bench.c lists them), generated
 * into the temporary folder. */
#define _GNU_SOURCE
#include "bench.h"
#include "gsio.h"
#include "gsio_hmp.h"
#include "gsio_md5.h"
#include "gsio_mdl.h"
#include "gsio_mdl7.h"
#include "../mdl7_one_group.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// -- Synthetic files

static uint32_t rng = 12345;

static uint32_t rnd(void)
{
	rng = rng * 1664525u + 1013904223u;
	return rng >> 8;
}

/** MDL5: a grid of 200 x 100 = 20 000 vertices, word-packed frames that
 *  ripple, one 1024x1024 RGB565 skin with a smooth pattern. */
static bool make_mdl5(const char *path, int frames)
{
	enum { GW = 200, GH = 100, NV = GW * GH, SKIN = 1024 };
	gsio_mdl_file f;
	memset(&f, 0, sizeof(f));
	f.version = 5;
	gsio_mdl_header *h = &f.header;
	memcpy(h->version, "MDL5", 4);
	for (int k = 0; k < 3; k++) {
		h->scale[k] = 0.01f;
		h->offset[k] = -300.0f;
	}
	h->radius = 400;
	h->numskins = 1;
	h->numverts = NV;
	h->numtris = 2 * (GW - 1) * (GH - 1);
	h->numframes = frames;
	h->numskinverts = NV;
	gsio_mdl_skin skin = {2, SKIN, SKIN, NULL, (size_t)SKIN * SKIN * 2};
	uint8_t *px = xmalloc(skin.pixels_size);
	for (size_t y = 0; y < SKIN; y++)
		for (size_t x = 0; x < SKIN; x++) {
			unsigned r = (unsigned)(x / 32) & 31, g = (unsigned)((x + y) / 16) & 63,
			         b = (unsigned)(y / 32) & 31;
			uint16_t v = (uint16_t)(r << 11 | g << 5 | b | (rnd() & 1));
			px[2 * (y * SKIN + x)] = (uint8_t)v;
			px[2 * (y * SKIN + x) + 1] = (uint8_t)(v >> 8);
		}
	skin.pixels = px;
	f.skins = &skin;
	f.skins_count = 1;
	f.uvs = xmalloc(NV * sizeof(*f.uvs));
	f.uvs_count = NV;
	for (int i = 0; i < NV; i++) {
		f.uvs[i].u = (int16_t)((i % GW) * (SKIN - 1) / (GW - 1));
		f.uvs[i].v = (int16_t)((i / GW) * (SKIN - 1) / (GH - 1));
	}
	f.triangles_count = (size_t)h->numtris;
	f.triangles = xmalloc(f.triangles_count * sizeof(*f.triangles));
	size_t t = 0;
	for (int y = 0; y + 1 < GH; y++)
		for (int x = 0; x + 1 < GW; x++) {
			int16_t a = (int16_t)(y * GW + x), b = (int16_t)(a + 1), c = (int16_t)(a + GW),
			        d = (int16_t)(c + 1);
			gsio_mdl_triangle t1 = {{a, c, b}, {a, c, b}}, t2 = {{b, c, d}, {b, c, d}};
			f.triangles[t++] = t1;
			f.triangles[t++] = t2;
		}
	f.frames_count = (size_t)frames;
	f.frames = xmalloc((size_t)frames * sizeof(*f.frames));
	gsio_mdl_vertex *verts = xmalloc((size_t)frames * NV * sizeof(*verts));
	for (int fr = 0; fr < frames; fr++) {
		gsio_mdl_frame *F = &f.frames[fr];
		memset(F, 0, sizeof(*F));
		F->type = GSIO_MDL_FRAME_WORD;
		snprintf(F->name, sizeof(F->name), "walk%d", fr);
		F->verts = verts + (size_t)fr * NV;
		for (int i = 0; i < NV; i++) {
			gsio_mdl_vertex *v = &F->verts[i];
			int x = i % GW, y = i / GW;
			v->pos[0] = (uint16_t)(x * 300);
			v->pos[1] = (uint16_t)(y * 300);
			v->pos[2] = (uint16_t)(30000 + 2000 * sin(0.1 * x + 0.2 * fr) + 1000 * cos(0.1 * y));
			v->normal = (uint8_t)(rnd() % 162);
		}
		F->bbox_max.pos[0] = F->bbox_max.pos[1] = F->bbox_max.pos[2] = 60000;
	}
	uint8_t *out;
	size_t size;
	gsio_error err;
	bool ok = !gsio_mdl_encode(&f, &out, &size, &err) && write_file(path, out, size);
	if (!ok) fprintf(stderr, "gsio_bench: cannot make %s: %s\n", path, err.message);
	free(out);
	free(verts);
	free(f.frames);
	free(f.triangles);
	free(f.uvs);
	free(px);
	return ok;
}

/** HMP5: n x n heights (rolling hills), one 256x256 RGB565 skin. */
static bool make_hmp5(const char *path, int n)
{
	enum { SKIN = 256 };
	gsio_hmp_file f;
	memset(&f, 0, sizeof(f));
	f.version = 5;
	gsio_hmp_header *h = &f.header;
	memcpy(h->version, "HMP5", 4);
	h->scale[2] = 0.05f;
	h->offset[0] = h->offset[1] = -1000;
	h->ftrisize_x = h->ftrisize_y = 16;
	h->fnumverts_x = (float)n;
	h->numskins = 1;
	h->numverts = n * n;
	h->numframes = 1;
	f.columns = f.rows = (uint32_t)n;
	gsio_mdl_skin skin = {2, SKIN, SKIN, NULL, (size_t)SKIN * SKIN * 2};
	uint8_t *px = xmalloc(skin.pixels_size);
	for (size_t i = 0; i < (size_t)SKIN * SKIN; i++) {
		uint16_t v = (uint16_t)(((i % SKIN) / 8) << 11 | ((i / SKIN) / 4) << 5 | 7);
		px[2 * i] = (uint8_t)v;
		px[2 * i + 1] = (uint8_t)(v >> 8);
	}
	skin.pixels = px;
	f.skins = &skin;
	f.skins_count = 1;
	gsio_hmp_frame fr;
	memset(&fr, 0, sizeof(fr));
	fr.type = GSIO_HMP_FRAME_WORD;
	snprintf(fr.name, sizeof(fr.name), "frame0");
	fr.heights = xmalloc((size_t)n * n * sizeof(*fr.heights));
	for (size_t i = 0; i < (size_t)n * n; i++) {
		double x = (double)(i % (size_t)n), y = (double)(i / (size_t)n);
		fr.heights[i].z = (uint16_t)(30000 + 8000 * sin(x / 40) * cos(y / 30));
		fr.heights[i].normal = (uint8_t)(rnd() % 162);
		fr.heights[i].pad = 0;
	}
	fr.bbox_max.pos[2] = 60000;
	f.frames = &fr;
	f.frames_count = 1;
	uint8_t *out;
	size_t size;
	gsio_error err;
	bool ok = !gsio_hmp_encode(&f, &out, &size, &err) && write_file(path, out, size);
	if (!ok) fprintf(stderr, "gsio_bench: cannot make %s: %s\n", path, err.message);
	free(out);
	free(fr.heights);
	free(px);
	return ok;
}

/** MD5: 150 joints in a chain of 10-joint limbs, one mesh of 30 000
 *  vertices with 2 weights each (60 000), ~60 000 triangles; an md5anim of
 *  `frames` frames animating every component of every joint. */
static bool make_md5(const char *mesh_path, const char *anim_path, int frames)
{
	enum { NJ = 150, GW = 300, GH = 100, NV = GW * GH, NW = 2 * NV };
	static char names[NJ][16];
	gsio_md5_joint *joints = xmalloc(NJ * sizeof(*joints));
	for (int j = 0; j < NJ; j++) {
		snprintf(names[j], sizeof(names[j]), "joint%d", j);
		joints[j] = (gsio_md5_joint){names[j], j == 0 ? -1 : (j % 10 ? j - 1 : 0),
		                             {(float)(j % 10), (float)(j / 10), 0},
		                             {0, 0, 0}};
	}
	gsio_md5_submesh sm;
	memset(&sm, 0, sizeof(sm));
	sm.shader = "synthetic";
	sm.verts = xmalloc(NV * sizeof(*sm.verts));
	sm.verts_count = NV;
	sm.weights = xmalloc(NW * sizeof(*sm.weights));
	sm.weights_count = NW;
	sm.tris_count = 2 * (GW - 1) * (GH - 1);
	sm.tris = xmalloc(sm.tris_count * sizeof(*sm.tris));
	for (uint32_t i = 0; i < NV; i++) {
		sm.verts[i] = (gsio_md5_vert){{(float)(i % GW) / GW, (float)(i / GW) / GH}, 2 * i, 2};
		for (uint32_t k = 0; k < 2; k++) {
			gsio_md5_weight *w = &sm.weights[2 * i + k];
			w->joint = (i / 200 + k) % NJ;
			w->bias = k ? 0.25f : 0.75f;
			w->pos[0] = (float)(i % GW) * 0.125f;
			w->pos[1] = (float)(i / GW) * 0.25f;
			w->pos[2] = (float)sin(i * 0.01);
		}
	}
	size_t t = 0;
	for (uint32_t y = 0; y + 1 < GH; y++)
		for (uint32_t x = 0; x + 1 < GW; x++) {
			uint32_t a = y * GW + x, b = a + 1, c = a + GW, d = c + 1;
			sm.tris[t++] = (gsio_md5_tri){{a, b, c}};
			sm.tris[t++] = (gsio_md5_tri){{b, d, c}};
		}
	gsio_md5_mesh mesh;
	memset(&mesh, 0, sizeof(mesh));
	mesh.version = GSIO_MD5_VERSION;
	mesh.commandline = "gsio_bench";
	mesh.joints = joints;
	mesh.joints_count = NJ;
	mesh.meshes = &sm;
	mesh.meshes_count = 1;

	gsio_md5_anim an;
	memset(&an, 0, sizeof(an));
	an.version = GSIO_MD5_VERSION;
	an.commandline = "gsio_bench";
	an.frames_count = (size_t)frames;
	an.joints_count = NJ;
	an.frame_rate = 24;
	an.components_count = 6 * NJ;
	an.hierarchy = xmalloc(NJ * sizeof(*an.hierarchy));
	an.baseframe = xmalloc(NJ * sizeof(*an.baseframe));
	an.bounds = xmalloc((size_t)frames * sizeof(*an.bounds));
	an.frames = xmalloc((size_t)frames * 6 * NJ * sizeof(float));
	for (int j = 0; j < NJ; j++) {
		an.hierarchy[j] = (gsio_md5_hierarchy){names[j], joints[j].parent, 63, (uint32_t)(6 * j)};
		an.baseframe[j] = (gsio_md5_baseframe){{1, 0, 0}, {0, 0, 0}};
	}
	for (int f = 0; f < frames; f++) {
		an.bounds[f] = (gsio_md5_bounds){{-50, -50, -50}, {50, 50, 50}};
		for (int j = 0; j < NJ; j++) {
			float *c = an.frames + ((size_t)f * NJ + (size_t)j) * 6;
			c[0] = 1.0f + 0.1f * (float)sin(f * 0.1 + j);
			c[1] = 0.05f * (float)cos(f * 0.07);
			c[2] = 0;
			c[3] = 0.1f * (float)sin(f * 0.05 + j * 0.3);
			c[4] = 0.05f * (float)cos(f * 0.03);
			c[5] = 0.02f;
		}
	}
	uint8_t *m = NULL, *a = NULL;
	size_t ms = 0, as = 0;
	gsio_error err;
	bool ok = !gsio_md5_mesh_encode(&mesh, &m, &ms, &err) && write_file(mesh_path, m, ms) &&
	          !gsio_md5_anim_encode(&an, &a, &as, &err) && write_file(anim_path, a, as);
	if (!ok) fprintf(stderr, "gsio_bench: cannot make %s: %s\n", mesh_path, err.message);
	free(m);
	free(a);
	free(an.frames);
	free(an.bounds);
	free(an.baseframe);
	free(an.hierarchy);
	free(sm.tris);
	free(sm.weights);
	free(sm.verts);
	free(joints);
	return ok;
}

/** A 24-bit uncompressed TGA (bottom-up, BGR), or with `bmp` a 24-bit
 *  uncompressed BMP (the same rows: bottom-up, BGR, each a multiple of 4
 *  bytes at these sizes), of size x size texels that compresses like a
 *  painted texture: smooth colour gradients, panel seams every 64 texels
 *  and a little grain (about a third of its raw size as a PNG), neither
 *  one flat colour nor noise. `seed` varies the colours. */
static bool make_texture(const char *path, int size, int seed, bool bmp)
{
	const size_t head = bmp ? 54 : 18, n = head + (size_t)size * size * 3;
	uint8_t *d = xmalloc(n);
	memset(d, 0, head);
	if (bmp) {
		const uint32_t fields[] = {(uint32_t)n, 0, 54, 40, (uint32_t)size, (uint32_t)size};
		d[0] = 'B', d[1] = 'M';
		for (int i = 0; i < 6; i++)
			for (int b = 0; b < 4; b++) d[2 + 4 * i + b] = (uint8_t)(fields[i] >> (8 * b));
		d[26] = 1;  // planes
		d[28] = 24; // bits a pixel; compression 0: none
	} else {
		d[2] = 2; // uncompressed true colour
		d[12] = (uint8_t)size, d[13] = (uint8_t)(size >> 8);
		d[14] = (uint8_t)size, d[15] = (uint8_t)(size >> 8);
		d[16] = 24;
	}
	uint8_t *px = d + head;
	double f = 512.0 / size; // the same features at every size
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			double u = x * f, v = y * f;
			double base[3] = {110 + 50 * sin(u / 41.0 + seed) + 30 * cos(v / 29.0),
			                  90 + 40 * sin((u + v) / 57.0 + 2 * seed) + 20 * cos(v / 13.0 + seed),
			                  70 + 45 * cos(u / 23.0 - seed) * sin(v / 37.0)};
			double seam = (x % 64 < 2 || y % 64 < 2) ? -35 : 0;
			for (int c = 0; c < 3; c++) {
				double g = base[c] + seam + (double)(rnd() % 5) - 2;
				px[((size_t)y * size + x) * 3 + (2 - c)] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
			}
		}
	bool ok = write_file(path, d, n);
	free(d);
	return ok;
}

/** MDL7 without bones: one group of a 64 x 64 vertex grid (7 938 triangles),
 *  `skins` external skins (type 7: a file name) "<stem>0.<ext>", ... (ext
 *  "tga" or "bmp") of size x size texels written beside it, the triangles shared among them by
 *  column. Built as the codec's gsio_mdl7_file and encoded by the codec. */
static bool make_mdl7_skins(const char *path, const char *stem, int skins, int size, const char *ext)
{
	enum { GW = 64, NV = GW * GW, NT = 2 * (GW - 1) * (GW - 1) };
	char tex[4200];
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int)(slash - path) : 1;
	const char *dir = slash ? path : ".";
	gsio_mdl7_skin sk[4];
	char names[4][32];
	if (skins > 4) return false;
	for (int i = 0; i < skins; i++) {
		snprintf(names[i], sizeof(names[i]), "%s%d.%s", stem, i, ext);
		snprintf(tex, sizeof(tex), "%.*s/%s", dir_len, dir, names[i]);
		if (!make_texture(tex, size, i, !strcmp(ext, "bmp"))) return false;
		mdl7_external_skin(&sk[i], names[i], i);
	}
	float *uvs = xmalloc(NV * 2 * sizeof(float));
	gsio_mdl7_vertex *verts = xmalloc(NV * sizeof(*verts));
	gsio_mdl7_triangle *tris = xmalloc(NT * sizeof(*tris));
	for (int i = 0; i < NV; i++) {
		int x = i % GW, y = i / GW;
		uvs[2 * i] = (float)x / (GW - 1);
		uvs[2 * i + 1] = (float)y / (GW - 1);
		gsio_mdl7_vertex *v = &verts[i];
		memset(v, 0, sizeof(*v));
		v->pos[0] = (float)x;
		v->pos[1] = (float)y;
		v->pos[2] = (float)(4 * sin(0.2 * x) * cos(0.15 * y));
		v->bone = 0xFFFF;
		v->normal[2] = -1; // stored inward
	}
	size_t t = 0;
	for (int y = 0; y + 1 < GW; y++)
		for (int x = 0; x + 1 < GW; x++) {
			uint16_t a = (uint16_t)(y * GW + x), b = (uint16_t)(a + 1), c = (uint16_t)(a + GW),
			         e = (uint16_t)(c + 1);
			int32_t m = x * skins / (GW - 1);
			gsio_mdl7_triangle t1 = {{a, c, b}, {a, c, b}, m, {0xFFFF, 0xFFFF, 0xFFFF}, -1};
			gsio_mdl7_triangle t2 = {{b, c, e}, {b, c, e}, m, {0xFFFF, 0xFFFF, 0xFFFF}, -1};
			tris[t++] = t1;
			tris[t++] = t2;
		}
	uint8_t *out = NULL;
	size_t out_size;
	gsio_error err;
	bool ok = !mdl7_one_group_encode(sk, (size_t)skins, uvs, verts, NV, tris, NT, &out, &out_size, &err) &&
	          write_file(path, out, out_size);
	if (!ok) fprintf(stderr, "gsio_bench: cannot make %s: %s\n", path, err.message);
	free(out);
	free(tris);
	free(verts);
	free(uvs);
	return ok;
}

void make_synthetic(const char *dir)
{
	char p[4096], q[4096];
	static const int mdl_frames[] = {31, 125, 500};
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/synth-mdl5-20000v-%df.mdl", dir, mdl_frames[i]);
		if (matches(p) && make_mdl5(p, mdl_frames[i])) add_file(p, true);
	}
	static const int hmp_n[] = {257, 513, 1025};
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/synth-hmp5-%d.hmp", dir, hmp_n[i]);
		if (matches(p) && make_hmp5(p, hmp_n[i])) add_file(p, true);
	}
	static const int md5_frames[] = {500, 1000, 5000};
	for (int i = 0; i < 3; i++) {
		// One directory each: mdl2gltf and Assimp load the .md5anim of the
		// same name beside the mesh.
		snprintf(p, sizeof(p), "%s/md5-%d", dir, md5_frames[i]);
		mkdir(p, 0700);
		snprintf(p, sizeof(p), "%s/md5-%d/synth-md5-%df.md5mesh", dir, md5_frames[i], md5_frames[i]);
		snprintf(q, sizeof(q), "%s/md5-%d/synth-md5-%df.md5anim", dir, md5_frames[i], md5_frames[i]);
		if ((matches(p) || matches(q)) && make_md5(p, q, md5_frames[i])) {
			add_file(p, true);
			add_file(q, true);
		}
	}
	// MDL7 with external TGA skins (the corpus's MDL7 files name TGAs, and
	// two BMPs), and the four-skin grid with BMP skins, each in a folder of
	// its own with its skins.
	static const struct {
		const char *name, *stem;
		int skins, size;
		const char *ext;
	} ext[] = {{"synth-mdl7-4x512-tga", "panel", 4, 512, "tga"},
	           {"synth-mdl7-2048-tga", "hull", 1, 2048, "tga"},
	           {"synth-mdl7-4x512-bmp", "panel", 4, 512, "bmp"}};
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, ext[i].name);
		mkdir(p, 0700);
		snprintf(p, sizeof(p), "%s/%s/%s.mdl", dir, ext[i].name, ext[i].name);
		if (matches(p) && make_mdl7_skins(p, ext[i].stem, ext[i].skins, ext[i].size, ext[i].ext))
			add_file(p, true);
	}
}
