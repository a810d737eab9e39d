/* gsio's writers as Assimp export formats (assimp_patch/exporter.cpp) with
 * the stock libassimp: registration; corpus files read by Assimp (gsio's
 * loaders registered) exported as gsio_mdl5 / gsio_mdl7 / gsio_hmp5 / gsio_md5 load back
 * in gsio with the source's counts; inputs only Assimp reads (an OBJ and a
 * GLB, both read by Assimp's own importers) exported as MDL5 / MD5; writing
 * goes through the Exporter's IOSystem (ExportToBlob); refused scenes fail
 * with gsio's message and leave no file. */
#include "ai_test_util.hpp"

#include "gsio_write.h"

#include <assimp/Exporter.hpp>
#include <assimp/cexport.h>

#ifdef GSIO_HAVE_GLTF
#include "gsio_gltf.h"
#endif

// -- Helpers

/* Counts of a gsio scene that every writer must keep. */
struct counts {
	size_t triangles = 0, frames = 0, joints = 0, anim_frames = 0, animations = 0;
	uint32_t columns = 0, rows = 0;
};

static counts counts_of(const gsio_scene *s)
{
	counts c;
	for (size_t i = 0; i < s->meshes_count; i++) {
		c.triangles += s->meshes[i].index_count / 3;
		c.frames = std::max(c.frames, s->meshes[i].frames_count);
	}
	for (size_t i = 0; i < s->skins_count; i++) c.joints = std::max(c.joints, s->skins[i].joints_count);
	c.animations = s->animations_count;
	for (size_t i = 0; i < s->animations_count; i++) c.anim_frames += s->animations[i].frames_count;
	if (s->terrain) {
		c.columns = s->terrain->columns;
		c.rows = s->terrain->rows;
	}
	return c;
}

static gsio_scene *gsio_load(const std::string &path)
{
	gsio_error err;
	gsio_error_clear(&err);
	gsio_scene *s = gsio_load_file(path.c_str(), nullptr, &err);
	if (!s) print_message("gsio cannot read %s: %s\n", path.c_str(), err.message);
	assert_non_null(s);
	return s;
}

static counts counts_of_file(const std::string &path)
{
	gsio_scene *s = gsio_load(path);
	counts c = counts_of(s);
	gsio_scene_free(s);
	return c;
}

static std::string work_dir(const char *name)
{
	std::string d = std::string(GSIO_BINARY_DIR) + "/tests/assimp_export/" + name;
	fs::remove_all(d);
	fs::create_directories(d);
	return d;
}

/* Reads a file with Assimp, gsio's loaders registered. */
static const aiScene *ai_read(Assimp::Importer &imp, const std::string &path)
{
	gsio_assimp_register(imp);
	const aiScene *s = imp.ReadFile(path, aiProcess_Triangulate);
	if (!s) print_message("Assimp cannot read %s: %s\n", path.c_str(), imp.GetErrorString());
	assert_non_null(s);
	return s;
}

static void ai_export(Assimp::Exporter &ex, const aiScene *s, const char *id, const std::string &path)
{
	aiReturn r = ex.Export(s, id, path);
	if (r != AI_SUCCESS)
		print_message("export %s -> %s: '%s' / '%s'\n", id, path.c_str(), ex.GetErrorString(),
		              gsio_ai_get_error_string());
	assert_int_equal(r, AI_SUCCESS);
}

// -- Registration

static void test_register(void **state)
{
	(void)state;
	Assimp::Exporter ex;
	size_t before = ex.GetExportFormatCount();
	gsio_assimp_register_exporters(ex);
	gsio_assimp_register_exporters(ex); // twice: no duplicates
	assert_int_equal(ex.GetExportFormatCount(), before + 4);
	std::set<std::string> ids;
	for (size_t i = 0; i < ex.GetExportFormatCount(); i++) {
		const aiExportFormatDesc *d = ex.GetExportFormatDescription(i);
		assert_non_null(d);
		if (!strncmp(d->id, "gsio_", 5)) ids.insert(std::string(d->id) + ":" + d->fileExtension);
	}
	assert_true(ids == std::set<std::string>({"gsio_mdl5:mdl", "gsio_mdl7:mdl", "gsio_hmp5:hmp", "gsio_md5:md5mesh"}));

	std::vector<Assimp::Exporter::ExportFormatEntry> entries;
	gsio_assimp_append_exporters(entries);
	assert_int_equal(entries.size(), 4);
	for (const auto &e : entries) assert_non_null(e.mExportFunction);
}

// -- Corpus files through Assimp into gsio's writers

static void test_mdl5_from_corpus(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	std::string dir = work_dir("mdl5");
	t_logger log;
	size_t done = 0;
	for (const auto &fm : t_corpus_files({"MDL3", "MDL4", "MDL5", "MDL7"})) {
		const std::string &src = fm.first;
		if (src.find("/invalid/") != std::string::npos) continue;
		gsio_error err;
		gsio_scene *probe = gsio_load_file(src.c_str(), nullptr, &err);
		if (!probe) continue; // a file gsio refuses is not this test's business
		counts want = counts_of(probe);
		gsio_scene_free(probe);

		Assimp::Importer imp;
		const aiScene *ai = ai_read(imp, src);
		Assimp::Exporter ex;
		gsio_assimp_register_exporters(ex);
		std::string out = dir + "/" + fs::path(src).stem().string() + ".mdl";
		ai_export(ex, ai, GSIO_AI_EXPORT_MDL5, out);
		counts got = counts_of_file(out);
		print_message("%s -> gsio_mdl5: %zu triangles, %zu frames (source %zu, %zu)\n",
		              fs::path(src).filename().c_str(), got.triangles, got.frames, want.triangles, want.frames);
		assert_int_equal(got.triangles, want.triangles);
		// Morph frames stay; a static model (0 or 1 stored frames) is written
		// with one frame; skeletal animation (MDL7 bones) is baked to frames.
		if (want.frames >= 2) assert_int_equal(got.frames, want.frames);
		else if (want.animations == 0) assert_int_equal(got.frames, 1);
		else assert_true(got.frames >= 2);
		done++;
	}
	assert_true(done >= 5);
}

static void test_hmp5_from_corpus(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	std::string dir = work_dir("hmp5");
	for (const char *rel : {"hmp/shadow-5.hmp", "hmp/lgs-small.hmp"}) {
		std::string src = t_corpus() + "/" + rel;
		counts want = counts_of_file(src);
		Assimp::Importer imp;
		const aiScene *ai = ai_read(imp, src);
		Assimp::Exporter ex;
		gsio_assimp_register_exporters(ex);
		std::string out = dir + "/" + fs::path(src).stem().string() + ".hmp";
		ai_export(ex, ai, GSIO_AI_EXPORT_HMP5, out);
		counts got = counts_of_file(out);
		print_message("%s -> gsio_hmp5: %ux%u grid, %zu triangles (source %ux%u, %zu)\n", rel, got.columns,
		              got.rows, got.triangles, want.columns, want.rows, want.triangles);
		assert_int_equal(got.columns, want.columns);
		assert_int_equal(got.rows, want.rows);
		assert_int_equal(got.triangles, want.triangles);
	}
}

static void test_md5_from_corpus(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	std::string dir = work_dir("md5");
	std::string src = t_corpus() + "/md5/bob/Bob.md5mesh";
	counts want = counts_of_file(src);
	Assimp::Importer imp;
	const aiScene *ai = ai_read(imp, src);
	Assimp::Exporter ex;
	gsio_assimp_register_exporters(ex);
	std::string out = dir + "/Bob.md5mesh";
	ai_export(ex, ai, GSIO_AI_EXPORT_MD5, out);
	std::vector<std::string> files;
	for (const auto &e : fs::directory_iterator(dir)) files.push_back(e.path().filename().string());
	std::sort(files.begin(), files.end());
	counts got = counts_of_file(out);
	print_message("Bob.md5mesh -> gsio_md5: %zu files, %zu joints, %zu triangles, %zu animation frames "
	              "(source %zu, %zu, %zu)\n", files.size(), got.joints, got.triangles, got.anim_frames,
	              want.joints, want.triangles, want.anim_frames);
	assert_true(std::find(files.begin(), files.end(), "Bob.md5anim") != files.end() ||
	            std::any_of(files.begin(), files.end(), [](const std::string &f) {
		            return f.size() > 8 && f.compare(f.size() - 8, 8, ".md5anim") == 0;
	            }));
	assert_int_equal(got.joints, want.joints);
	assert_int_equal(got.triangles, want.triangles);
	assert_int_equal(got.animations, want.animations);
	assert_int_equal(got.anim_frames, want.anim_frames);
}

// -- Inputs only Assimp reads

/* An OBJ written by Assimp's own exporter, read back by Assimp's own OBJ
 * importer (gsio reads no OBJ), exported as MDL5: the triangles stay. */
static void test_obj_to_mdl5(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	std::string dir = work_dir("obj");
	std::string src = t_corpus() + "/mdl/minigun_mdl5.mdl";
	counts want = counts_of_file(src);
	std::string obj = dir + "/minigun.obj";
	{
		Assimp::Importer imp;
		const aiScene *ai = ai_read(imp, src);
		Assimp::Exporter ex;
		ai_export(ex, ai, "obj", obj);
	}
	Assimp::Importer imp; // no gsio loaders: this is Assimp's OBJ importer
	const aiScene *ai = imp.ReadFile(obj, aiProcess_Triangulate);
	assert_non_null(ai);
	assert_true(t_loader_name(imp).find("gsio") == std::string::npos);
	size_t obj_tris = 0;
	for (unsigned int i = 0; i < ai->mNumMeshes; i++) obj_tris += ai->mMeshes[i]->mNumFaces;
	Assimp::Exporter ex;
	gsio_assimp_register_exporters(ex);
	std::string out = dir + "/minigun.mdl";
	ai_export(ex, ai, GSIO_AI_EXPORT_MDL5, out);
	counts got = counts_of_file(out);
	print_message("minigun_mdl5.mdl -> Assimp OBJ (%zu triangles, loader '%s') -> gsio_mdl5: %zu triangles\n",
	              obj_tris, t_loader_name(imp).c_str(), got.triangles);
	assert_int_equal(obj_tris, want.triangles);
	assert_int_equal(got.triangles, want.triangles);
	assert_true(got.frames <= 1);
}

#ifdef GSIO_HAVE_GLTF
/* gsio's GLB of Bob read by Assimp's glTF2 importer, exported as MD5 and
 * MDL5 (skeletal animation baked to frames). */
static void test_glb_to_md5_and_mdl5(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	std::string dir = work_dir("glb");
	std::string src = t_corpus() + "/md5/bob/Bob.md5mesh";
	gsio_scene *s = gsio_load(src);
	counts want = counts_of(s);
	gsio_gltf_output gout;
	memset(&gout, 0, sizeof(gout));
	gsio_error err;
	gsio_error_clear(&err);
	assert_int_equal(gsio_gltf_write(s, nullptr, &gout, &err), 0);
	gsio_scene_free(s);
	std::string glb = dir + "/Bob.glb";
	t_write(glb, gout.files[0].data, gout.files[0].size);
	gsio_gltf_output_free(&gout);

	Assimp::Importer imp;
	const aiScene *ai = imp.ReadFile(glb, aiProcess_Triangulate);
	assert_non_null(ai);
	Assimp::Exporter ex;
	gsio_assimp_register_exporters(ex);
	std::string md5 = dir + "/Bob.md5mesh";
	ai_export(ex, ai, GSIO_AI_EXPORT_MD5, md5);
	counts got = counts_of_file(md5);
	print_message("Bob -> gsio GLB -> Assimp glTF2 (loader '%s') -> gsio_md5: %zu joints, %zu triangles, "
	              "%zu animation frames (source %zu, %zu, %zu)\n", t_loader_name(imp).c_str(), got.joints,
	              got.triangles, got.anim_frames, want.joints, want.triangles, want.anim_frames);
	assert_int_equal(got.joints, want.joints);
	assert_int_equal(got.triangles, want.triangles);
	assert_int_equal(got.animations, want.animations);

	std::string mdl = dir + "/Bob.mdl";
	ai_export(ex, ai, GSIO_AI_EXPORT_MDL5, mdl);
	counts m = counts_of_file(mdl);
	print_message("... -> gsio_mdl5: %zu triangles, %zu frames (baked)\n", m.triangles, m.frames);
	assert_int_equal(m.triangles, want.triangles);
	assert_true(m.frames > 1);

	// MDL7 keeps the skeleton: bones, not baked frames.
	std::string mdl7 = dir + "/Bob7.mdl";
	ai_export(ex, ai, GSIO_AI_EXPORT_MDL7, mdl7);
	counts m7 = counts_of_file(mdl7);
	print_message("... -> gsio_mdl7: %zu joints, %zu triangles, %zu animation frames\n", m7.joints, m7.triangles,
	              m7.anim_frames);
	assert_int_equal(m7.joints, want.joints);
	assert_int_equal(m7.triangles, want.triangles);
	assert_true(m7.anim_frames > 1);
}
#endif

// -- Through the IOSystem, and refusals

/* ExportToBlob hands the exporter Assimp's in-memory IOSystem: the blob is
 * the file; for MD5 the files are the blob and its `next` chain. */
static void test_blob(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	Assimp::Importer imp;
	const aiScene *ai = ai_read(imp, t_corpus() + "/mdl/gate-101.mdl");
	Assimp::Exporter ex;
	gsio_assimp_register_exporters(ex);
	const aiExportDataBlob *b = ex.ExportToBlob(ai, GSIO_AI_EXPORT_MDL5);
	assert_non_null(b);
	assert_true(b->size > 84);
	assert_memory_equal(b->data, "MDL5", 4);
	gsio_error err;
	gsio_scene *s = gsio_load_memory(static_cast<const uint8_t *>(b->data), b->size, "blob.mdl", nullptr, &err);
	assert_non_null(s);
	counts got = counts_of(s);
	gsio_scene_free(s);
	counts want = counts_of_file(t_corpus() + "/mdl/gate-101.mdl");
	assert_int_equal(got.triangles, want.triangles);
	assert_int_equal(got.frames, want.frames);

	Assimp::Importer imp2;
	const aiScene *bob = ai_read(imp2, t_corpus() + "/md5/bob/Bob.md5mesh");
	b = ex.ExportToBlob(bob, GSIO_AI_EXPORT_MD5);
	assert_non_null(b);
	size_t n = 0;
	bool mesh = false, anim = false;
	for (const aiExportDataBlob *p = b; p; p = p->next, n++) {
		print_message("  blob '%s': %zu bytes\n", p->name.C_Str(), p->size);
		std::string head(static_cast<const char *>(p->data), std::min<size_t>(p->size, 16));
		mesh = mesh || head.rfind("MD5Version 10", 0) == 0;
		anim = anim || (p->name.length && strstr(p->name.C_Str(), "md5anim"));
	}
	print_message("gate-101 -> an MDL5 blob; Bob -> %zu MD5 blobs\n", n);
	assert_true(n >= 2);
	assert_true(mesh);
	assert_true(anim);
}

/* A morph-animated model into MD5 is refused with gsio's message; no file
 * is left. GSIO_NO_ANIMATION writes the base pose. */
static void test_refused(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	std::string dir = work_dir("refused");
	Assimp::Importer imp;
	const aiScene *ai = ai_read(imp, t_corpus() + "/mdl/gate-101.mdl");
	Assimp::Exporter ex;
	gsio_assimp_register_exporters(ex);
	std::string out = dir + "/gate.md5mesh";
	t_logger log;
	assert_int_not_equal(ex.Export(ai, GSIO_AI_EXPORT_MD5, out), AI_SUCCESS);
	std::string why = gsio_ai_get_error_string();
	print_message("morph into gsio_md5: GetErrorString '%s'; gsio: '%s'\n", ex.GetErrorString(), why.c_str());
	assert_true(why.find("morph") != std::string::npos);
	bool logged = false;
	for (const auto &m : log.take()) logged = logged || m.find("morph") != std::string::npos;
	assert_true(logged);
	assert_true(fs::is_empty(dir));

	// The C entry point says the same.
	assert_int_equal(gsio_ai_export_scene(ai, GSIO_AI_EXPORT_MD5, out.c_str(), 0), -1);
	assert_true(std::string(gsio_ai_get_error_string()).find("morph") != std::string::npos);
	assert_true(fs::is_empty(dir));

	Assimp::ExportProperties props;
	props.SetPropertyInteger(GSIO_AI_EXPORT_NO_ANIMATION, 1);
	assert_int_equal(ex.Export(ai, GSIO_AI_EXPORT_MD5, out, 0, &props), AI_SUCCESS);
	assert_true(fs::exists(out));

	// An unknown skin format is an error too.
	Assimp::ExportProperties bad;
	bad.SetPropertyString(GSIO_AI_EXPORT_SKIN_FORMAT, "rgb332");
	assert_int_not_equal(ex.Export(ai, GSIO_AI_EXPORT_MDL5, dir + "/x.mdl", 0, &bad), AI_SUCCESS);
	assert_false(fs::exists(dir + "/x.mdl"));
	// A known one is used: 565 skins.
	Assimp::ExportProperties p565;
	p565.SetPropertyString(GSIO_AI_EXPORT_SKIN_FORMAT, "565");
	assert_int_equal(ex.Export(ai, GSIO_AI_EXPORT_MDL5, dir + "/x.mdl", 0, &p565), AI_SUCCESS);
	gsio_scene *s = gsio_load(dir + "/x.mdl");
	assert_true(s->images_count >= 1);
	assert_int_equal(s->images[0].source_format, GSIO_PIXEL_RGB565);
	gsio_scene_free(s);

	// The C entry point exports too.
	assert_int_equal(gsio_ai_export_scene(ai, GSIO_AI_EXPORT_MDL5, (dir + "/c.mdl").c_str(), 0), 0);
	assert_int_equal(counts_of_file(dir + "/c.mdl").triangles, counts_of_file(t_corpus() + "/mdl/gate-101.mdl").triangles);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_register),
	    cmocka_unit_test(test_mdl5_from_corpus),
	    cmocka_unit_test(test_hmp5_from_corpus),
	    cmocka_unit_test(test_md5_from_corpus),
	    cmocka_unit_test(test_obj_to_mdl5),
#ifdef GSIO_HAVE_GLTF
	    cmocka_unit_test(test_glb_to_md5_and_mdl5),
#endif
	    cmocka_unit_test(test_blob),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
