/* The glTF writer's materials: each scene material as a metallic-roughness
 * material (unlit with KHR_materials_unlit), the textures and samplers it
 * names made on first use, and KHR_materials_variants for a model's extra
 * skins. Relies on the images already written (gltf_image.c). */
#define _GNU_SOURCE // cpu_set_t (gltf_internal.h)
#include "gltf_internal.h"

#include <stdio.h>

// -- Textures

static int wrap_code(gsio_wrap w)
{
	switch (w) {
	case GSIO_WRAP_CLAMP: return GLTF_CLAMP_TO_EDGE;
	case GSIO_WRAP_MIRROR: return GLTF_MIRRORED_REPEAT;
	default: return GLTF_REPEAT;
	}
}

/** The glTF texture of a scene texture (image + sampler), made on first use.
 *  -1 when there is no image or it was left out. */
static int texture_of(gltf_ctx *c, const gsio_texture *t)
{
	if (t->image < 0 || (size_t)t->image >= c->s->images_count) return -1;
	int image = c->image_index[t->image];
	if (image < 0) return -1;
	int wu = t->wrap_u <= GSIO_WRAP_MIRROR ? (int)t->wrap_u : 0;
	int wv = t->wrap_v <= GSIO_WRAP_MIRROR ? (int)t->wrap_v : 0;
	if (c->sampler_of[wu][wv] < 0) {
		cJSON *sm = gsioi_gltf_jobj(c);
		gsioi_gltf_jnum(c, sm, "magFilter", GLTF_LINEAR);
		gsioi_gltf_jnum(c, sm, "minFilter", GLTF_LINEAR_MIPMAP_LINEAR);
		gsioi_gltf_jnum(c, sm, "wrapS", wrap_code((gsio_wrap)wu));
		gsioi_gltf_jnum(c, sm, "wrapT", wrap_code((gsio_wrap)wv));
		c->sampler_of[wu][wv] = gsioi_gltf_jpush(c, c->samplers, sm);
	}
	int sampler = c->sampler_of[wu][wv];
	int *known = &c->tex_of[t->image][3 * wu + wv]; // a sampler per wrap pair
	if (*known >= 0) return *known;
	cJSON *j = gsioi_gltf_jobj(c);
	gsioi_gltf_jnum(c, j, "sampler", sampler);
	gsioi_gltf_jnum(c, j, "source", image);
	const gsio_image *im = &c->s->images[t->image];
	char name[300];
	snprintf(name, sizeof(name), "%s_%s", c->name, gsioi_gltf_or_default(im->name, "image"));
	gsioi_gltf_jstr(c, j, "name", name);
	return *known = gsioi_gltf_jpush(c, c->textures, j);
}

// -- Materials

void gsioi_gltf_use_extension(gltf_ctx *c, const char *name, bool *flag)
{
	if (*flag) return;
	*flag = true;
	gsioi_gltf_jadd(c, c->extensions_used, cJSON_CreateString(name));
}

bool gsioi_gltf_write_materials(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	for (size_t i = 0; i < s->materials_count; i++) {
		const gsio_material *m = &s->materials[i];
		cJSON *j = gsioi_gltf_jobj(c), *pbr = gsioi_gltf_jobj(c);
		char name[300], fallback[32];
		snprintf(fallback, sizeof(fallback), "material%zu", i);
		snprintf(name, sizeof(name), "%s_%s", c->name, gsioi_gltf_or_default(m->name, fallback));
		gsioi_gltf_jstr(c, j, "name", name);
		float f[4];
		bool white = true;
		for (int k = 0; k < 4; k++) {
			float v = m->base_color[k];
			f[k] = v < 0 ? 0 : v > 1 ? 1 : v;
			white = white && f[k] == 1.0f;
		}
		if (!white) gsioi_gltf_jset(c, pbr, "baseColorFactor", gsioi_gltf_jfloats(c, f, 4));
		int tex = texture_of(c, &m->base_color_texture);
		if (tex >= 0) {
			cJSON *t = gsioi_gltf_jobj(c);
			gsioi_gltf_jnum(c, t, "index", tex);
			gsioi_gltf_jset(c, pbr, "baseColorTexture", t);
		} else if (m->base_color_texture.image >= 0) {
			gsioi_gltf_warn(c, "material %zu (%s): its image was left out: no texture", i, name);
		}
		gsioi_gltf_jnum(c, pbr, "metallicFactor", 0);
		gsioi_gltf_jnum(c, pbr, "roughnessFactor", 1);
		gsioi_gltf_jset(c, j, "pbrMetallicRoughness", pbr);
		int lightmap = texture_of(c, &m->lightmap_texture);
		if (lightmap >= 0) { // the lightmap: occlusion on the second uv set
			cJSON *t = gsioi_gltf_jobj(c);
			gsioi_gltf_jnum(c, t, "index", lightmap);
			gsioi_gltf_jnum(c, t, "texCoord", 1);
			gsioi_gltf_jset(c, j, "occlusionTexture", t);
		}
		if (m->emissive[0] > 0 || m->emissive[1] > 0 || m->emissive[2] > 0) {
			float e[3];
			for (int k = 0; k < 3; k++) e[k] = m->emissive[k] < 0 ? 0 : m->emissive[k] > 1 ? 1 : m->emissive[k];
			gsioi_gltf_jset(c, j, "emissiveFactor", gsioi_gltf_jfloats(c, e, 3));
		}
		if (m->alpha_mode == GSIO_ALPHA_MASK) {
			gsioi_gltf_jstr(c, j, "alphaMode", "MASK");
			float cut = m->alpha_cutoff >= 0 ? m->alpha_cutoff : 0.5f;
			if (cut != 0.5f) gsioi_gltf_jset(c, j, "alphaCutoff", gsioi_gltf_jfloat(cut));
		} else if (m->alpha_mode == GSIO_ALPHA_BLEND) {
			gsioi_gltf_jstr(c, j, "alphaMode", "BLEND");
		}
		if (m->double_sided) gsioi_gltf_jset(c, j, "doubleSided", cJSON_CreateTrue());
		if (m->unlit) {
			cJSON *ext = gsioi_gltf_jobj(c);
			gsioi_gltf_jset(c, ext, "KHR_materials_unlit", gsioi_gltf_jobj(c));
			gsioi_gltf_jset(c, j, "extensions", ext);
			gsioi_gltf_use_extension(c, "KHR_materials_unlit", &c->used_unlit);
		}
		cJSON *extras = NULL;
		int detail = texture_of(c, &m->detail_texture);
		if (detail >= 0) {
			// glTF has no detail map: keep it in extras (texture index and how
			// often it repeats over the terrain).
			extras = gsioi_gltf_jobj(c);
			cJSON *d = gsioi_gltf_jobj(c);
			gsioi_gltf_jnum(c, d, "index", detail);
			float tiling = m->detail_texture.tiling > 0 ? m->detail_texture.tiling : 1.0f;
			gsioi_gltf_jnum(c, d, "tiling", tiling);
			gsioi_gltf_jset(c, extras, "detailTexture", d);
		} else if (m->detail_texture.image >= 0) {
			gsioi_gltf_warn(c, "material %zu: detail image %d was left out; dropped", i,
			          (int)m->detail_texture.image);
		}
		if (m->base_color_texture.tiling > 0 && m->base_color_texture.tiling != 1.0f) {
			if (!extras) extras = gsioi_gltf_jobj(c);
			gsioi_gltf_jnum(c, extras, "baseColorTiling", m->base_color_texture.tiling);
		}
		if (m->shader) {
			if (!extras) extras = gsioi_gltf_jobj(c);
			gsioi_gltf_jstr(c, extras, "shader", m->shader);
		}
		extras = gsioi_gltf_extras_json(c, extras, &m->extras);
		if (extras) gsioi_gltf_jset(c, j, "extras", extras);
		gsioi_gltf_jadd(c, c->materials, j);
	}
	return true;
}

/** KHR_materials_variants when every mesh part uses the same material and
 *  some materials are used by none: the extra MDL skins. Each material
 *  becomes a variant of its own name. Returns the variant count (0: not used). */
int gsioi_gltf_plan_variants(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	if (s->materials_count < 2 || !s->meshes_count || s->materials_count > 4096) return 0;
	int32_t shared = -2;
	for (size_t i = 0; i < s->meshes_count; i++)
		for (size_t p = 0; p < s->meshes[i].parts_count; p++) {
			int32_t m = s->meshes[i].parts[p].material;
			if (shared == -2) shared = m;
			if (m != shared) return 0;
		}
	if (shared < 0) return 0;
	cJSON *ext = gsioi_gltf_jobj(c), *list = gsioi_gltf_jarr(c);
	for (size_t i = 0; i < s->materials_count; i++) {
		cJSON *v = gsioi_gltf_jobj(c);
		char name[64];
		snprintf(name, sizeof(name), "variant%zu", i);
		gsioi_gltf_jstr(c, v, "name", gsioi_gltf_or_default(s->materials[i].name, name));
		gsioi_gltf_jadd(c, list, v);
	}
	gsioi_gltf_jset(c, ext, "variants", list);
	cJSON *exts = cJSON_GetObjectItemCaseSensitive(c->root, "extensions");
	if (!exts) {
		exts = gsioi_gltf_jobj(c);
		gsioi_gltf_jset(c, c->root, "extensions", exts);
	}
	gsioi_gltf_jset(c, exts, "KHR_materials_variants", ext);
	gsioi_gltf_jadd(c, c->extensions_used, cJSON_CreateString("KHR_materials_variants"));
	return (int)s->materials_count;
}
