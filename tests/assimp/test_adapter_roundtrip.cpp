/* The round trip through Assimp: gsio's GLB of a model, read back by
 * Assimp's own glTF2 importer, and gsio's aiScene of the same model agree
 * (meshes, vertex and frame counts, positions of every triangle corner of
 * every frame within 1e-5 relative); aiScene -> gsio on those GLBs and on
 * gsio's own aiScenes gives scenes that validate, keep the counts, and that
 * gsio's glTF writer takes. Axes: gsio's aiScene keeps the file's axes in
 * its vertices, gsio's GLB stores (x, y, z)_gltf = (y, z, x)_file. */
#include "ai_test_util.hpp"

#ifdef GSIO_HAVE_GLTF
#include "gsio_gltf.h"

static const char *models[] = {"mdl/gate-101.mdl", "mdl/mdl4-golem.mdl", "mdl/mdl3-crystal.mdl",
                               "hmp/shadow-5.hmp", "md5/bob/Bob.md5mesh"};

static bool close(const aiVector3D &a, const aiVector3D &b, double *worst)
{
	const float pa[3] = {a.x, a.y, a.z}, pb[3] = {b.x, b.y, b.z};
	bool ok = true;
	for (int k = 0; k < 3; k++) {
		double e = std::fabs(pa[k] - pb[k]) / std::max(1.0, static_cast<double>(std::fabs(pa[k])));
		*worst = std::max(*worst, e);
		if (e > 1e-5) ok = false;
	}
	return ok;
}

/* gsio's GLB in memory. */
static std::vector<uint8_t> glb_of(const gsio_scene *s)
{
	gsio_gltf_output out;
	memset(&out, 0, sizeof(out));
	gsio_error err;
	if (gsio_gltf_write(s, nullptr, &out, &err)) print_message("gltf: %s\n", err.message);
	assert_true(out.files_count >= 1);
	std::vector<uint8_t> glb(out.files[0].data, out.files[0].data + out.files[0].size);
	gsio_gltf_output_free(&out);
	return glb;
}

/* A corpus model loaded by gsio (gs) and by Assimp through the adapter (a,
 * owned by `ours`). */
struct loaded_both_ways {
	const char *rel;
	gsio_scene *gs;
	Assimp::Importer ours;
	const aiScene *a;
	explicit loaded_both_ways(const char *r) : rel(r)
	{
		std::string path = t_corpus() + "/" + rel;
		gsio_error err;
		gs = gsio_load_file(path.c_str(), nullptr, &err);
		assert_non_null(gs);
		gsio_assimp_register(ours);
		a = ours.ReadFile(path, 0);
		assert_non_null(a);
	}
	~loaded_both_ways() { gsio_scene_free(gs); }
	loaded_both_ways(const loaded_both_ways &) = delete;
	loaded_both_ways &operator=(const loaded_both_ways &) = delete;
	/** gsio's GLB of the model as `stock` (Assimp's own glTF2 importer) reads it. */
	const aiScene *glb_through(Assimp::Importer &stock) const
	{
		std::vector<uint8_t> glb = glb_of(gs);
		const aiScene *b = stock.ReadFileFromMemory(glb.data(), glb.size(), 0, "glb");
		if (!b) print_message("%s: %s\n", rel, stock.GetErrorString());
		assert_non_null(b);
		return b;
	}
};

/* Compares every triangle corner of mesh a (gsio's aiScene, file axes) with
 * mesh b (Assimp's reading of the GLB), for the base pose and every frame. */
static void compare_mesh(const aiMesh *a, const aiMesh *b, double *worst)
{
	assert_int_equal(a->mNumFaces, b->mNumFaces);
	assert_int_equal(a->mNumAnimMeshes, b->mNumAnimMeshes);
	for (int frame = -1; frame < static_cast<int>(a->mNumAnimMeshes); frame++) {
		const aiVector3D *pa = frame < 0 ? a->mVertices : a->mAnimMeshes[frame]->mVertices;
		const aiVector3D *pb = frame < 0 ? b->mVertices : b->mAnimMeshes[frame]->mVertices;
		for (unsigned int f = 0; f < a->mNumFaces; f++) {
			assert_int_equal(b->mFaces[f].mNumIndices, 3);
			for (int k = 0; k < 3; k++) {
				aiVector3D p = pa[a->mFaces[f].mIndices[k]];
				aiVector3D in_gltf(p.y, p.z, p.x);
				if (!close(in_gltf, pb[b->mFaces[f].mIndices[k]], worst)) {
					print_message("%s frame %d face %u corner %d differs\n", a->mName.C_Str(), frame, f, k);
					fail();
				}
			}
		}
	}
}

static void test_glb_agrees_with_aiscene(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	for (const char *rel : models) {
		loaded_both_ways model(rel);
		gsio_scene *gs = model.gs;
		const aiScene *a = model.a;
		Assimp::Importer stock; // Assimp's own glTF2 importer
		const aiScene *b = model.glb_through(stock);

		assert_int_equal(a->mNumMeshes, b->mNumMeshes);
		double worst = 0;
		for (unsigned int m = 0; m < a->mNumMeshes; m++) {
			if (gs->meshes_count == a->mNumMeshes) // one part a mesh: same vertices
				assert_int_equal(a->mMeshes[m]->mNumVertices, b->mMeshes[m]->mNumVertices);
			compare_mesh(a->mMeshes[m], b->mMeshes[m], &worst);
		}
		assert_int_equal(a->mNumAnimations, b->mNumAnimations);
		for (unsigned int i = 0; i < a->mNumAnimations; i++) {
			const aiAnimation *x = a->mAnimations[i], *y = b->mAnimations[i];
			assert_int_equal(x->mNumMorphMeshChannels, y->mNumMorphMeshChannels);
			for (unsigned int c = 0; c < x->mNumMorphMeshChannels; c++)
				assert_int_equal(x->mMorphMeshChannels[c]->mNumKeys, y->mMorphMeshChannels[c]->mNumKeys);
			assert_int_equal(x->mNumChannels > 0, y->mNumChannels > 0);
			for (unsigned int c = 0; c < x->mNumChannels; c++)
				if (x->mChannels[c]->mNumRotationKeys > 1) {
					bool found = false;
					for (unsigned int d = 0; d < y->mNumChannels; d++)
						if (y->mChannels[d]->mNodeName == x->mChannels[c]->mNodeName) {
							found = true;
							assert_int_equal(y->mChannels[d]->mNumRotationKeys, x->mChannels[c]->mNumRotationKeys);
						}
					assert_true(found);
				}
		}
		print_message("%-22s %u meshes, %zu vertices, %zu frames, %u animations: worst relative "
		              "position difference %.2g\n",
		              rel, a->mNumMeshes, t_total_vertices(a), static_cast<size_t>(a->mMeshes[0]->mNumAnimMeshes),
		              a->mNumAnimations, worst);
	}
}

// -- aiScene -> gsio

static size_t triangles(const gsio_scene *s)
{
	size_t n = 0;
	for (size_t m = 0; m < s->meshes_count; m++) n += s->meshes[m].index_count / 3;
	return n;
}

static size_t max_frames(const gsio_scene *s)
{
	size_t n = 0;
	for (size_t m = 0; m < s->meshes_count; m++) n = std::max(n, s->meshes[m].frames_count);
	return n >= 2 ? n : 0; // static either way
}

static void test_aiscene_to_gsio(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	for (const char *rel : models) {
		loaded_both_ways model(rel);
		gsio_scene *gs = model.gs;
		gsio_error err;

		// gsio's own aiScene back to gsio: the same scene.
		gsio_scene *back = gsio_scene_from_aiscene(model.a, nullptr, &err);
		if (!back) print_message("%s: %s\n", rel, err.message);
		assert_non_null(back);
		assert_int_equal(back->meshes_count, gs->meshes_count);
		assert_int_equal(back->nodes_count, gs->nodes_count);
		assert_int_equal(back->skins_count, gs->skins_count);
		assert_int_equal(back->animations_count, gs->animations_count);
		for (size_t m = 0; m < gs->meshes_count; m++) {
			const gsio_mesh &x = gs->meshes[m], &y = back->meshes[m];
			assert_int_equal(x.vertex_count, y.vertex_count);
			assert_int_equal(x.index_count, y.index_count);
			// A static mesh (0 or 1 frame) has no aiAnimMesh: 0 frames back.
			assert_int_equal(x.frames_count >= 2 ? x.frames_count : 0, y.frames_count);
			assert_int_equal(x.weights.count, y.weights.count);
			assert_memory_equal(x.positions, y.positions, x.vertex_count * 3 * sizeof(float));
			assert_memory_equal(x.indices, y.indices, x.index_count * sizeof(uint32_t));
		}
		for (size_t i = 0; i < gs->animations_count; i++) {
			assert_int_equal(back->animations[i].frames_count, gs->animations[i].frames_count);
			assert_true(std::fabs(back->animations[i].fps - gs->animations[i].fps) < 1e-4);
		}
		std::vector<uint8_t> glb1 = glb_of(back); // and a writer takes it
		assert_true(glb1.size() > 0);
		gsio_scene_free(back);

		// gsio's GLB read by Assimp's glTF2 importer, then to gsio.
		Assimp::Importer stock;
		const aiScene *b = model.glb_through(stock);
		gsio_scene *g2 = gsio_scene_from_aiscene(b, nullptr, &err);
		if (!g2) print_message("%s: %s\n", rel, err.message);
		assert_non_null(g2);
		assert_int_equal(triangles(g2), triangles(gs));
		assert_int_equal(max_frames(g2), max_frames(gs));
		assert_int_equal(g2->animations_count, gs->animations_count);
		for (size_t i = 0; i < gs->animations_count; i++)
			assert_int_equal(g2->animations[i].frames_count, gs->animations[i].frames_count);
		assert_int_equal(g2->skins_count > 0, gs->skins_count > 0);
		size_t images = 0;
		for (size_t i = 0; i < g2->images_count; i++) images += g2->images[i].rgba ? 1 : 0;
		print_message("%-22s -> GLB -> Assimp -> gsio: %zu meshes, %zu nodes, %zu skins, %zu animations, "
		              "%zu decoded images, %zu warnings; validates\n",
		              rel, g2->meshes_count, g2->nodes_count, g2->skins_count, g2->animations_count, images,
		              g2->warnings_count);
		for (size_t w = 0; w < g2->warnings_count; w++) print_message("  warning: %s\n", g2->warnings[w]);
		std::vector<uint8_t> glb2 = glb_of(g2);
		assert_true(glb2.size() > 0);
		gsio_scene_free(g2);
	}
}

/* Bob loaded with GSIO_OPT_NO_PIXELS (its five PNGs undecoded): the adapter
 * embeds each file as it is (a compressed aiTexture, hint "png"), where a
 * normal load's textures are the pixels encoded again; the materials name
 * the same embedded textures. */
static void test_undecoded_images_to_aiscene(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	std::string path = t_corpus() + "/md5/bob/Bob.md5mesh";
	gsio_opts o;
	memset(&o, 0, sizeof(o));
	o.flags = GSIO_OPT_NO_PIXELS;
	gsio_error err;
	gsio_scene *gs = gsio_load_file(path.c_str(), &o, &err);
	assert_non_null(gs);
	assert_int_equal(gs->images_count, 5);
	aiScene flagged, normal;
	assert_int_equal(gsio_scene_to_aiscene(gs, &flagged, &err), 0);
	gsio_scene *gn = gsio_load_file(path.c_str(), nullptr, &err);
	assert_non_null(gn);
	assert_int_equal(gsio_scene_to_aiscene(gn, &normal, &err), 0);
	assert_int_equal(flagged.mNumTextures, 5);
	assert_int_equal(normal.mNumTextures, 5);
	for (unsigned i = 0; i < flagged.mNumTextures; i++) {
		const aiTexture *t = flagged.mTextures[i];
		const gsio_image &im = gs->images[i];
		assert_null(im.rgba);
		assert_int_equal(t->mHeight, 0);
		assert_int_equal(t->mWidth, im.file_size);
		assert_memory_equal(t->pcData, im.file_data, im.file_size);
		assert_string_equal(t->achFormatHint, "png");
	}
	assert_int_equal(flagged.mNumMaterials, normal.mNumMaterials);
	for (unsigned m = 0; m < flagged.mNumMaterials; m++) {
		aiString a, b;
		bool ha = flagged.mMaterials[m]->GetTexture(aiTextureType_DIFFUSE, 0, &a) == AI_SUCCESS;
		bool hb = normal.mMaterials[m]->GetTexture(aiTextureType_DIFFUSE, 0, &b) == AI_SUCCESS;
		assert_int_equal(ha, hb);
		if (ha) assert_string_equal(a.C_Str(), b.C_Str());
	}
	gsio_scene_free(gs);
	gsio_scene_free(gn);
}

/* The adapter embeds each undecoded image's file as it is and names its
 * kind by the file's signature (Assimp's achFormatHint is an extension):
 * a PNG, a JPEG, a DDS, an uncompressed BMP and TGA, kept as GSIO_OPT_NO_PIXELS
 * keeps them, each get their own hint, and a decoded image is encoded as
 * PNG. The PNG, JPEG and DDS files are only their first bytes (their
 * signature names them); the TGA and the BMP are whole 2 x 2 files, since
 * those are known by their headers and sizes. */
static void test_undecoded_image_kinds(void **state)
{
	(void)state;
	static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
	static const uint8_t jpg[] = {0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0};
	static const uint8_t dds[] = {'D', 'D', 'S', ' ', 124, 0, 0, 0, 7, 0x10, 0, 0};
	// 24 bits, 2 x 2, bottom up: a 14-byte file header, a 40-byte info
	// header, two rows of 6 bytes padded to 8.
	static const uint8_t bmp[70] = {'B', 'M', 70, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 2, 0, 0, 0,
	                                2, 0, 0, 0, 1, 0, 24, 0};
	// Uncompressed true colour (type 2), 2 x 2, 32 bits: an 18-byte header
	// and 16 bytes of pixels.
	static const uint8_t tga[34] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 32, 8};
	const struct {
		const uint8_t *data;
		size_t size;
		const char *hint;
	} kinds[] = {{png, sizeof(png), "png"}, {jpg, sizeof(jpg), "jpg"}, {dds, sizeof(dds), "dds"},
	             {bmp, sizeof(bmp), "bmp"}, {tga, sizeof(tga), "tga"}, {nullptr, 0, "png"}};
	const size_t n = sizeof(kinds) / sizeof(kinds[0]);
	gsio_error err;
	gsio_scene *s = gsio_scene_new(nullptr, &err);
	assert_non_null(s);
	for (size_t k = 0; k < n; k++) {
		char name[16];
		snprintf(name, sizeof(name), "image%zu", k);
		int32_t i = gsio_scene_add_image(s, name, 2, 2, nullptr, &err);
		assert_int_equal(i, static_cast<int32_t>(k));
		if (kinds[k].data) {
			s->images[i].rgba = nullptr;
			s->images[i].file_data = kinds[k].data;
			s->images[i].file_size = kinds[k].size;
		}
	}
	aiScene out;
	assert_int_equal(gsio_scene_to_aiscene(s, &out, &err), 0);
	assert_int_equal(out.mNumTextures, n);
	for (size_t k = 0; k < n; k++) {
		const aiTexture *t = out.mTextures[k];
		assert_int_equal(t->mHeight, 0);
		assert_string_equal(t->achFormatHint, kinds[k].hint);
		if (kinds[k].data) {
			assert_int_equal(t->mWidth, kinds[k].size);
			assert_memory_equal(t->pcData, kinds[k].data, kinds[k].size);
		} else {
			assert_true(t->mWidth > 8);
			assert_memory_equal(t->pcData, png, 8);
		}
	}
	gsio_scene_free(s);
}

/* Every corpus terrain loaded with GSIO_OPT_GRID (no arrays: the adapter
 * reads the grid through gsio_mesh_grid_get / _indices) gives the aiScene
 * of the expanded load: the same vertices, normals, uvs and faces, bit for
 * bit. */
static void test_grid_to_aiscene(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	size_t terrains = 0;
	for (const char *rel : {"/hmp/shadow-5.hmp", "/hmp/lgs-small.hmp", "/hmp/assimp-terrain.hmp"}) {
		std::string path = t_corpus() + rel;
		gsio_opts o;
		memset(&o, 0, sizeof(o));
		o.flags = GSIO_OPT_GRID;
		gsio_error err;
		gsio_scene *gg = gsio_load_file(path.c_str(), &o, &err);
		gsio_scene *ge = gsio_load_file(path.c_str(), nullptr, &err);
		assert_non_null(gg);
		assert_non_null(ge);
		assert_non_null(gg->meshes[0].grid);
		assert_null(gg->meshes[0].positions);
		aiScene g, e;
		assert_int_equal(gsio_scene_to_aiscene(gg, &g, &err), 0);
		assert_int_equal(gsio_scene_to_aiscene(ge, &e, &err), 0);
		assert_int_equal(g.mNumMeshes, e.mNumMeshes);
		for (unsigned m = 0; m < g.mNumMeshes; m++) {
			const aiMesh *a = g.mMeshes[m], *b = e.mMeshes[m];
			assert_int_equal(a->mNumVertices, b->mNumVertices);
			assert_int_equal(a->mNumFaces, b->mNumFaces);
			assert_non_null(a->mNormals);
			assert_non_null(a->mTextureCoords[0]);
			size_t nv = a->mNumVertices;
			assert_memory_equal(a->mVertices, b->mVertices, nv * sizeof(aiVector3D));
			assert_memory_equal(a->mNormals, b->mNormals, nv * sizeof(aiVector3D));
			assert_memory_equal(a->mTextureCoords[0], b->mTextureCoords[0], nv * sizeof(aiVector3D));
			for (unsigned f = 0; f < a->mNumFaces; f++) {
				assert_int_equal(a->mFaces[f].mNumIndices, 3);
				assert_memory_equal(a->mFaces[f].mIndices, b->mFaces[f].mIndices, 3 * sizeof(unsigned));
			}
			assert_int_equal(a->mNumAnimMeshes, b->mNumAnimMeshes);
		}
		terrains++;
		gsio_scene_free(gg);
		gsio_scene_free(ge);
	}
	assert_int_equal(terrains, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_glb_agrees_with_aiscene),
	    cmocka_unit_test(test_aiscene_to_gsio),
	    cmocka_unit_test(test_undecoded_images_to_aiscene),
	    cmocka_unit_test(test_undecoded_image_kinds),
	    cmocka_unit_test(test_grid_to_aiscene),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
	printf("skipped: gsio's glTF writer is not built (GSIO_BUILD_TOOLS=OFF)\n");
	return 77;
}
#endif
