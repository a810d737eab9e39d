/* An MDL7 file of one group, for the tests and the bench that make their
 * own: the header of an A7/A8 file (one group; the structure sizes
 * GameStudio's A8 writes) around the caller's group, encoded by gsio's
 * MDL7 codec. Include it once, in one source file. */
#ifndef GSIO_TEST_MDL7_ONE_GROUP_H
#define GSIO_TEST_MDL7_ONE_GROUP_H

#include "gsio_mdl7.h"

#include <string.h>

/* Encodes g (group_bytes: the group's size in the file, as its
 * groupdata_size says) as a whole MDL7 file; as gsio_mdl7_encode. */
static int mdl7_one_group_encode(gsio_mdl7_group *g, size_t group_bytes, uint8_t **out, size_t *size,
                                 gsio_error *err)
{
	g->groupdata_size = (int32_t)group_bytes;
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
	f.groups = g;
	f.groups_count = 1;
	return gsio_mdl7_encode(&f, out, size, err);
}

#endif
