/* gsio's writers as Assimp export formats: "gsio_mdl5", "gsio_mdl7",
 * "gsio_hmp5" and "gsio_md5". Each callback turns the aiScene into a gsio scene
 * (gsio_scene_from_aiscene), runs the writer into memory and writes the
 * result through the IOSystem Assimp hands it, so an Exporter with its own
 * IOSystem (a blob, an archive) gets the files. */
#include "gsio_assimp_internal.hpp"

#include "gsio_md5_write.h"
#include "gsio_write.h"

#include <assimp/DefaultLogger.hpp>
#include <assimp/Exporter.hpp>
#include <assimp/IOStream.hpp>
#include <assimp/IOSystem.hpp>
#include <assimp/scene.h>

#include <cstdlib>
#include <strings.h>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gsioa {

// -- Failing and warning

/* Assimp's Exporter::Export reports a DeadlyExportError's message through
 * GetErrorString(), but the stock libassimp does not export the constructor
 * of its base class, so only Assimp can make one. Any other exception makes
 * Export() fail too; the message goes to Assimp's logger and to
 * gsio_ai_get_error_string(). */
[[noreturn]] static void export_fail(gsio_error err, const char *path = nullptr)
{
	if (path && !err.file[0]) snprintf(err.file, sizeof(err.file), "%s", path);
	std::string msg = format_error(err);
	last_error() = msg;
	Assimp::DefaultLogger::get()->error(("gsio: " + msg).c_str());
	throw std::runtime_error(msg);
}

static void log_warning(void *, const char *message)
{
	Assimp::DefaultLogger::get()->warn((std::string("gsio: ") + message).c_str());
}

// -- Properties

/* An ExportProperties string property, "" when unset. */
static std::string prop_string(const Assimp::ExportProperties *p, const char *name)
{
	return p && p->HasPropertyString(name) ? p->GetPropertyString(name) : std::string();
}

static gsio_skin_encoding skin_encoding(const Assimp::ExportProperties *p)
{
	std::string s = prop_string(p, GSIO_AI_EXPORT_SKIN_FORMAT);
	if (s == "pal8") return GSIO_SKIN_PAL8;
	if (s == "565") return GSIO_SKIN_RGB565;
	if (s == "4444") return GSIO_SKIN_ARGB4444;
	if (s == "888") return GSIO_SKIN_BGR888;
	if (s == "8888") return GSIO_SKIN_BGRA8888;
	if (!s.empty() && s != "auto") {
		gsio_error err;
		set_error(&err, GSIO_ERR_ARGUMENT, ("GSIO_SKIN_FORMAT: unknown skin format '" + s +
		                                     "' (auto, pal8, 565, 4444, 888 or 8888)").c_str());
		export_fail(err);
	}
	return GSIO_SKIN_AUTO;
}

static bool prop_flag(const Assimp::ExportProperties *p, const char *name)
{
	return p && p->HasPropertyInteger(name) && p->GetPropertyInteger(name) != 0;
}

static float prop_float(const Assimp::ExportProperties *p, const char *name)
{
	return p && p->HasPropertyFloat(name) ? static_cast<float>(p->GetPropertyFloat(name)) : 0.0f;
}

// -- The scene and the output

/* The gsio scene of an aiScene (owned by the returned pointer). */
struct scene_deleter {
	void operator()(gsio_scene *s) const { gsio_scene_free(s); }
};
using scene_ptr = std::unique_ptr<gsio_scene, scene_deleter>;

static scene_ptr to_gsio(const aiScene *ai, const Assimp::ExportProperties *props, const char *path)
{
	gsio_ai_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.fps = prop_float(props, GSIO_AI_EXPORT_FPS);
	gsio_error err;
	gsio_error_clear(&err);
	scene_ptr s(gsio_scene_from_aiscene(ai, &ao, &err));
	if (!s) export_fail(err, path);
	for (size_t i = 0; i < s->warnings_count; i++) log_warning(nullptr, s->warnings[i]);
	return s;
}

/* Writes one file through the IOSystem. A failure leaves what Assimp's
 * IOSystem left (it has no rename: atomic placement is the default
 * IOSystem's business, not ours). */
static void write_through(Assimp::IOSystem *io, const std::string &path, const uint8_t *data, size_t size)
{
	gsio_error err;
	if (!io) {
		set_error(&err, GSIO_ERR_ARGUMENT, "the exporter got no IOSystem");
		export_fail(err);
	}
	Assimp::IOStream *st = io->Open(path.c_str(), "wb");
	if (!st) {
		set_error(&err, GSIO_ERR_IO, "cannot create the file through Assimp's IOSystem");
		snprintf(err.file, sizeof(err.file), "%s", path.c_str());
		export_fail(err);
	}
	size_t put = size ? st->Write(data, 1, size) : 0;
	io->Close(st);
	if (put != size) {
		set_error(&err, GSIO_ERR_IO, "the file could not be written to its end");
		snprintf(err.file, sizeof(err.file), "%s", path.c_str());
		export_fail(err);
	}
}

/* The folder part of path (with its separator), "" when none. */
static std::string dir_of(const std::string &path)
{
	size_t slash = path.find_last_of("/\\");
	return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

/* The file name of path without its extension when it is one of exts. */
static std::string stem_of(const std::string &path, std::initializer_list<const char *> exts)
{
	std::string base = path.substr(dir_of(path).size());
	for (const char *e : exts) {
		size_t n = strlen(e);
		if (base.size() > n && !strcasecmp(base.c_str() + base.size() - n, e)) return base.substr(0, base.size() - n);
	}
	return base;
}

// -- The formats

/* A one-file export (MDL5, MDL7, HMP5): the aiScene as a gsio scene, the
 * writer's options (those the three share, then `own` sets the writer's
 * own), the writer into memory, its bytes through io. */
template <typename Opts, typename Own>
static void export_one(const char *path, Assimp::IOSystem *io, const aiScene *ai,
                       const Assimp::ExportProperties *props,
                       int (*write)(const gsio_scene *, const Opts *, uint8_t **, size_t *, gsio_error *),
                       Own own)
{
	scene_ptr s = to_gsio(ai, props, path);
	Opts o;
	memset(&o, 0, sizeof(o));
	o.skin_encoding = skin_encoding(props);
	o.mipmaps = prop_flag(props, GSIO_AI_EXPORT_MIPMAPS);
	o.dither = prop_flag(props, GSIO_AI_EXPORT_DITHER);
	own(o);
	o.warn = log_warning;
	uint8_t *data = nullptr;
	size_t size = 0;
	gsio_error err;
	gsio_error_clear(&err);
	if (write(s.get(), &o, &data, &size, &err)) export_fail(err, path); // before data and size are read
	std::unique_ptr<uint8_t, void (*)(uint8_t *)> owned(data, [](uint8_t *d) { gsio_write_free(nullptr, d); });
	write_through(io, path, data, size);
}

static void export_mdl5(const char *path, Assimp::IOSystem *io, const aiScene *ai,
                        const Assimp::ExportProperties *props)
{
	export_one<gsio_mdl5_write_opts>(path, io, ai, props, gsio_mdl5_write, [props](gsio_mdl5_write_opts &mo) {
		mo.bake_fps = prop_float(props, GSIO_AI_EXPORT_BAKE_FPS);
	});
}

/* MDL7: bones, weights and bone-matrix frames (an A7/A8 model). */
static void export_mdl7(const char *path, Assimp::IOSystem *io, const aiScene *ai,
                        const Assimp::ExportProperties *props)
{
	export_one<gsio_mdl7_write_opts>(path, io, ai, props, gsio_mdl7_write, [props](gsio_mdl7_write_opts &mo) {
		mo.bake_fps = prop_float(props, GSIO_AI_EXPORT_BAKE_FPS);
		mo.skin_external = prop_flag(props, GSIO_AI_EXPORT_SKIN_EXTERNAL);
	});
}

static void export_hmp5(const char *path, Assimp::IOSystem *io, const aiScene *ai,
                        const Assimp::ExportProperties *props)
{
	export_one<gsio_hmp5_write_opts>(path, io, ai, props, gsio_hmp5_write, [props](gsio_hmp5_write_opts &ho) {
		ho.cell_size = prop_float(props, GSIO_AI_EXPORT_CELL_SIZE);
	});
}

/* MD5 is several files (the .md5mesh, one .md5anim per animation, textures):
 * all are made in memory first, then written beside `path` through the
 * IOSystem, named after its stem. */
static void export_md5(const char *path, Assimp::IOSystem *io, const aiScene *ai,
                       const Assimp::ExportProperties *props)
{
	scene_ptr s = to_gsio(ai, props, path);
	gsio_md5_write_opts mo;
	memset(&mo, 0, sizeof(mo));
	if (prop_flag(props, GSIO_AI_EXPORT_NO_ANIMATION)) mo.flags |= GSIO_MD5_WRITE_NO_ANIMATION;
	mo.commandline = "gsio_md5 (Assimp exporter)";
	mo.warn = log_warning;
	std::string p(path);
	std::string stem = stem_of(p, {".md5mesh", ".md5anim", ".md5camera", ".md5"});
	gsio_md5_output out;
	memset(&out, 0, sizeof(out));
	gsio_error err;
	gsio_error_clear(&err);
	if (gsio_md5_write(s.get(), stem.c_str(), &mo, &out, &err)) export_fail(err, path);
	std::unique_ptr<gsio_md5_output, void (*)(gsio_md5_output *)> owned(&out, gsio_md5_output_free);
	// The .md5mesh goes to the path itself, whatever its name: Assimp's blob
	// IOSystem (ExportToBlob) takes the file at the path it gave as the
	// main blob and the others as its chain.
	std::string dir = dir_of(p);
	bool mesh_done = false;
	for (size_t i = 0; i < out.files_count; i++) {
		const gsio_md5_out_file &f = out.files[i];
		bool main = !mesh_done && f.kind == GSIO_MD5_MESH;
		mesh_done = mesh_done || main;
		write_through(io, main ? p : dir + f.name, f.data, f.size);
	}
}

} // namespace gsioa

// -- Public API

void gsio_assimp_append_exporters(std::vector<Assimp::Exporter::ExportFormatEntry> &out)
{
	out.emplace_back(GSIO_AI_EXPORT_MDL5, "3D GameStudio model, MDL5 (gsio)", "mdl", gsioa::export_mdl5);
	out.emplace_back(GSIO_AI_EXPORT_MDL7, "3D GameStudio model with bones, MDL7 for A7/A8 (gsio)", "mdl",
	                 gsioa::export_mdl7);
	out.emplace_back(GSIO_AI_EXPORT_HMP5, "3D GameStudio terrain, HMP5 (gsio)", "hmp", gsioa::export_hmp5);
	out.emplace_back(GSIO_AI_EXPORT_MD5, "id Tech 4 MD5 mesh and animations (gsio)", "md5mesh",
	                 gsioa::export_md5);
}

void gsio_assimp_register_exporters(Assimp::Exporter &exporter)
{
	std::vector<Assimp::Exporter::ExportFormatEntry> entries;
	gsio_assimp_append_exporters(entries);
	// RegisterExporter refuses an id it already has: registering twice is fine.
	for (const auto &e : entries) (void)exporter.RegisterExporter(e);
}

extern "C" int gsio_ai_export_scene(const aiScene *scene, const char *format_id, const char *path,
                                    unsigned int preprocessing)
{
	std::string &msg = gsioa::last_error();
	msg.clear();
	if (!scene || !format_id || !path) {
		msg = "gsio_ai_export_scene: scene, format_id and path must not be NULL";
		return -1;
	}
	try {
		Assimp::Exporter exporter;
		gsio_assimp_register_exporters(exporter);
		if (exporter.Export(scene, format_id, path, preprocessing) != AI_SUCCESS) {
			// gsio's own message (set by export_fail) is the precise one.
			if (msg.empty()) msg = exporter.GetErrorString();
			if (msg.empty()) msg = std::string("the ") + format_id + " export failed";
			return -1;
		}
		return 0;
	} catch (const std::exception &e) {
		msg = e.what();
		return -1;
	}
}
