/* An MDL7 file of one group whose skins are external files, for the tests
 * and the bench that make their own: the group (its skins, UVs, vertices
 * and triangles as given, no bones, no frames) in the header of an A7/A8
 * file (the structure sizes GameStudio's A8 writes), encoded by gsio's
 * MDL7 codec. Include it once, in one source file. */
#ifndef GSIO_TEST_MDL7_ONE_GROUP_H
#define GSIO_TEST_MDL7_ONE_GROUP_H

#include "gsio_mdl7.h"

#include <stdio.h>
#include <string.h>

/* Skin `index` as an external texture (type 7): `file`, its name stored
 * with its terminating zero. `file` must outlive the skin. */
static void mdl7_external_skin(gsio_mdl7_skin *sk, const char *file, int index)
{
	memset(sk, 0, sizeof(*sk));
	sk->type = GSIO_MDL7_SKIN_EXTERNAL;
	sk->data = (const uint8_t *)file;
	sk->data_size = strlen(file) + 1;
	sk->width = (int32_t)sk->data_size;
	sk->height = 1;
	snprintf(sk->name, sizeof(sk->name), "skin%d", index);
}

/* The whole file of one group "body" of nv vertices (and as many UV pairs)
 * and nt triangles whose skins are external (mdl7_external_skin); as
 * gsio_mdl7_encode. */
static int mdl7_one_group_encode(gsio_mdl7_skin *skins, size_t skins_count, float *uvs, gsio_mdl7_vertex *verts,
                                 size_t nv, gsio_mdl7_triangle *tris, size_t nt, uint8_t **out, size_t *size,
                                 gsio_error *err)
{
	gsio_mdl7_group g;
	memset(&g, 0, sizeof(g));
	g.type = 1;
	snprintf(g.name, sizeof(g.name), "body");
	g.skins = skins;
	g.skins_count = skins_count;
	g.uvs = uvs;
	g.uvs_count = nv;
	g.triangles = tris;
	g.triangles_count = nt;
	g.verts = verts;
	g.verts_count = nv;
	// The group's bytes in the file: its 44-byte head, each skin's 28-byte
	// record and stored name, 8 bytes a UV pair, 26 a triangle and a vertex.
	size_t group_bytes = 44 + nv * 8 + nt * 26 + nv * 26;
	for (size_t i = 0; i < skins_count; i++) group_bytes += 28 + skins[i].data_size;
	g.groupdata_size = (int32_t)group_bytes;
	gsio_mdl7_file f;
	memset(&f, 0, sizeof(f));
	gsio_mdl7_header *h = &f.header;
	memcpy(h->magic, "MDL7", 4);
	h->groups_num = 1;
	h->data_size = (uint32_t)(GSIO_MDL7_HEADER_SIZE + group_bytes);
	h->bone_stc_size = 36;
	h->skin_stc_size = 28;
	h->colorvalue_stc_size = 16;
	h->material_stc_size = 68;
	h->skinpoint_stc_size = 8;
	h->triangle_stc_size = 26;
	h->mainvertex_stc_size = 26;
	h->framevertex_stc_size = 26;
	h->bonetrans_stc_size = 68;
	h->frame_stc_size = 24;
	f.groups = &g;
	f.groups_count = 1;
	return gsio_mdl7_encode(&f, out, size, err);
}

#endif
