/* gsio's importers as Assimp loaders (one Assimp::BaseImporter per gsio
 * importer), their registration ahead of Assimp's own, and the C API. */
#include "gsio_assimp_internal.hpp"

#include <assimp/BaseImporter.h>
#include <assimp/IOStream.hpp>
#include <assimp/IOSystem.hpp>
#include <assimp/Importer.hpp>
#include <assimp/cimport.h>
#include <assimp/importerdesc.h>
#include <assimp/scene.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gsioa {

// -- A gsio_io over Assimp's IOSystem

struct ai_io_user {
	Assimp::IOSystem *io;
	size_t max_size;
};

static void io_error(gsio_error *err, gsio_error_code code, const char *path, const char *msg)
{
	if (!err) return;
	set_error(err, code, msg);
	snprintf(err->file, sizeof(err->file), "%s", path ? path : "");
}

static int ai_read_file(void *user, const char *path, uint8_t **data, size_t *size, gsio_error *err)
{
	ai_io_user *u = static_cast<ai_io_user *>(user);
	Assimp::IOStream *st = u->io->Open(path, "rb");
	if (!st) {
		io_error(err, GSIO_ERR_IO, path, "cannot open the file through the program's Assimp IOSystem");
		return -1;
	}
	size_t n = st->FileSize();
	if (n > u->max_size) {
		u->io->Close(st);
		io_error(err, GSIO_ERR_LIMIT, path, "the file is larger than the memory limit");
		return -1;
	}
	uint8_t *buf = static_cast<uint8_t *>(malloc(n ? n : 1));
	if (!buf) {
		u->io->Close(st);
		io_error(err, GSIO_ERR_NOMEM, path, "out of memory reading the file");
		return -1;
	}
	size_t got = n ? st->Read(buf, 1, n) : 0;
	u->io->Close(st);
	if (got != n) {
		free(buf);
		io_error(err, GSIO_ERR_IO, path, "the file could not be read to its end");
		return -1;
	}
	*data = buf;
	*size = n;
	return 0;
}

static void ai_free_data(void *, uint8_t *data)
{
	free(data);
}

/* An IOSystem cannot list a folder: the names come from the file system (the
 * default io) and only those the program's IOSystem says exist are kept, so
 * an IOSystem that hides files hides them from gsio too. An IOSystem of
 * virtual files lists nothing; GSIO_ANIMS then names the animations. */
static int ai_list_dir(void *user, const char *dir, char ***names, gsio_error *err)
{
	ai_io_user *u = static_cast<ai_io_user *>(user);
	const gsio_io *def = gsio_default_io();
	char **all = nullptr;
	gsio_error sub;
	if (def->list_dir(def->user, dir, &all, &sub) || !all) {
		// Nothing to list is not a failure of the load.
		all = nullptr;
	}
	size_t n = 0;
	while (all && all[n]) n++;
	char **out = static_cast<char **>(calloc(n + 1, sizeof(char *)));
	if (!out) {
		if (all) def->free_list(def->user, all);
		io_error(err, GSIO_ERR_NOMEM, dir, "out of memory listing the folder");
		return -1;
	}
	size_t k = 0;
	std::string prefix = dir && *dir && strcmp(dir, ".") ? std::string(dir) + "/" : std::string();
	for (size_t i = 0; i < n; i++) {
		std::string full = prefix + all[i];
		if (!u->io->Exists(full.c_str())) continue;
		out[k] = strdup(all[i]);
		if (!out[k]) break;
		k++;
	}
	if (all) def->free_list(def->user, all);
	*names = out;
	return 0;
}

static void ai_free_list(void *, char **names)
{
	if (!names) return;
	for (size_t i = 0; names[i]; i++) free(names[i]);
	free(names);
}

// -- The loader

class loader : public Assimp::BaseImporter {
public:
	explicit loader(const gsio_importer *imp) : imp_(imp)
	{
		name_ = std::string("gsio ") + imp->name;
		memset(&desc_, 0, sizeof(desc_));
		desc_.mName = name_.c_str();
		desc_.mAuthor = "gsio";
		desc_.mMaintainer = "gsio";
		desc_.mComments = "gsio's reader (all frames, skins, joints and animations)";
		bool text = !strcmp(imp->extensions, "md5mesh md5anim md5camera") || strstr(imp->extensions, "md5");
		desc_.mFlags = text ? aiImporterFlags_SupportTextFlavour : aiImporterFlags_SupportBinaryFlavour;
		desc_.mMinMajor = static_cast<unsigned int>(imp->min_version);
		desc_.mMaxMajor = static_cast<unsigned int>(imp->max_version);
		desc_.mFileExtensions = imp->extensions;
	}

	/* gsio's magic decides, never the extension alone (Assimp asks every
	 * loader that claims the extension, in order, and the first that says
	 * yes reads the file). A file whose magic gsio does not know (Half-Life
	 * IDST/IDSQ, anything else named .mdl, .hmp, .md5mesh) or whose version
	 * it does not read (Quake IDPO, MDL6, MDL8) is refused, so that the next
	 * loader (Assimp's own) serves it. */
	bool CanRead(const std::string &file, Assimp::IOSystem *io, bool) const override
	{
		uint8_t head[256];
		size_t n = 0;
		if (io) {
			Assimp::IOStream *st = io->Open(file.c_str(), "rb");
			if (st) {
				n = st->Read(head, 1, sizeof(head));
				io->Close(st);
			}
		}
		if (!n) return false;
		std::string ext = extension(file);
		return imp_->can_read(head, n, ext.c_str()) == 2 && version_supported(head, n);
	}

	const aiImporterDesc *GetInfo() const override { return &desc_; }

	void SetupProperties(const Assimp::Importer *imp) override
	{
		fps_ = imp->GetPropertyFloat(GSIO_AI_PROP_FPS, 0.0f);
		palette_ = imp->GetPropertyString(GSIO_AI_PROP_PALETTE, "");
		anims_ = imp->GetPropertyString(GSIO_AI_PROP_ANIMS, "");
		no_animation_ = imp->GetPropertyInteger(GSIO_AI_PROP_NO_ANIMATION, 0) != 0;
		int mb = imp->GetPropertyInteger(GSIO_AI_PROP_MEMORY_LIMIT_MB, 0);
		memory_limit_ = mb > 0 ? static_cast<size_t>(mb) << 20 : 0;
	}

protected:
	void InternReadFile(const std::string &file, aiScene *scene, Assimp::IOSystem *io) override
	{
		gsio_opts opts;
		memset(&opts, 0, sizeof(opts));
		opts.memory_limit = memory_limit_;
		opts.fps = fps_;
		if (no_animation_) opts.flags |= GSIO_OPT_NO_ANIMATION;
		ai_io_user user = {io, memory_limit_ ? memory_limit_ : GSIO_DEFAULT_MEMORY_LIMIT};
		gsio_io gio = {ai_read_file, ai_free_data, ai_list_dir, ai_free_list, &user};
		opts.io = &gio;
		gsio_error err;
		gsio_error_clear(&err);

		uint8_t palette[768];
		if (!palette_.empty()) {
			uint8_t *pal = nullptr;
			size_t pal_size = 0;
			if (ai_read_file(&user, palette_.c_str(), &pal, &pal_size, &err)) fail(err);
			int rc = gsio_palette_from_memory(pal, pal_size, palette, &err);
			free(pal);
			if (rc) {
				snprintf(err.file, sizeof(err.file), "%s", palette_.c_str());
				fail(err);
			}
			opts.palette = palette;
		}
		std::vector<std::string> anim_names;
		std::vector<const char *> anim_ptrs;
		if (!anims_.empty()) {
			size_t start = 0;
			while (start <= anims_.size()) {
				size_t end = anims_.find(';', start);
				if (end == std::string::npos) end = anims_.size();
				if (end > start) anim_names.push_back(anims_.substr(start, end - start));
				start = end + 1;
			}
			for (const auto &a : anim_names) anim_ptrs.push_back(a.c_str());
			opts.anim_paths = anim_ptrs.data();
			opts.anim_paths_count = anim_ptrs.size();
		}

		uint8_t *data = nullptr;
		size_t size = 0;
		if (ai_read_file(&user, file.c_str(), &data, &size, &err)) fail(err);
		gsio_scene *s = imp_->read(data, size, file.c_str(), &opts, &err);
		free(data);
		if (!s) fail(err);
		int rc = gsio_scene_to_aiscene(s, scene, &err);
		gsio_scene_free(s);
		if (rc) fail(err);
	}

private:
	[[noreturn]] static void fail(const gsio_error &err)
	{
		// Debian's libassimp does not export DeadlyImportError's constructor;
		// BaseImporter::ReadFile catches any std::exception and
		// Importer::GetErrorString() returns what() (gsio's message).
		throw std::runtime_error(format_error(err));
	}

	static std::string extension(const std::string &file)
	{
		size_t slash = file.find_last_of("/\\");
		size_t dot = file.find_last_of('.');
		if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
		std::string e = file.substr(dot + 1);
		for (char &c : e) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
		return e.size() < 16 ? e : "";
	}

	bool version_supported(const uint8_t *head, size_t n) const
	{
		if (n >= 4 && !memcmp(head, "IDPO", 4)) return false; // Quake 1: Assimp's
		// Binary magics are three letters and the version digit ("MDL5").
		if (n >= 4 && isdigit(head[3]) && isalpha(head[0])) {
			int v = head[3] - '0';
			return v >= imp_->min_version && v <= imp_->max_version;
		}
		return true; // text (MD5): gsio reports a version it does not read
	}

	const gsio_importer *imp_;
	std::string name_;
	aiImporterDesc desc_;
	float fps_ = 0.0f;
	std::string palette_, anims_;
	bool no_animation_ = false;
	size_t memory_limit_ = 0;
};

static bool is_gsio_loader(const Assimp::BaseImporter *b)
{
	const aiImporterDesc *d = b ? b->GetInfo() : nullptr;
	return d && d->mName && !strncmp(d->mName, "gsio ", 5);
}

} // namespace gsioa

// -- Public API

void gsio_assimp_append_importers(std::vector<Assimp::BaseImporter *> &out)
{
	for (const gsio_importer *const *imp = gsio_importers(); *imp; imp++)
		out.push_back(new gsioa::loader(*imp));
}

void gsio_assimp_register(Assimp::Importer &importer)
{
	for (size_t i = 0; i < importer.GetImporterCount(); i++)
		if (gsioa::is_gsio_loader(importer.GetImporter(i))) return; // already registered

	// Assimp asks its loaders in order and the built-ins come first: take
	// out the ones that claim gsio's extensions, put gsio's in, and put the
	// built-ins back behind them (they serve what gsio's refuse).
	std::vector<Assimp::BaseImporter *> builtins;
	for (const gsio_importer *const *imp = gsio_importers(); *imp; imp++) {
		std::string exts = (*imp)->extensions;
		size_t start = 0;
		while (start < exts.size()) {
			size_t end = exts.find(' ', start);
			if (end == std::string::npos) end = exts.size();
			std::string ext = exts.substr(start, end - start);
			start = end + 1;
			for (;;) {
				size_t idx = importer.GetImporterIndex(ext.c_str());
				if (idx == static_cast<size_t>(-1)) break;
				Assimp::BaseImporter *b = importer.GetImporter(idx);
				if (!b) break;
				if (importer.UnregisterLoader(b) != AI_SUCCESS) break;
				builtins.push_back(b);
			}
		}
	}
	std::vector<Assimp::BaseImporter *> ours;
	gsio_assimp_append_importers(ours);
	for (Assimp::BaseImporter *b : ours) importer.RegisterLoader(b);
	for (Assimp::BaseImporter *b : builtins) importer.RegisterLoader(b);
}

std::string &gsioa::last_error()
{
	static thread_local std::string message;
	return message;
}

extern "C" const aiScene *gsio_ai_import_file(const char *path, unsigned int flags)
{
	gsioa::last_error().clear();
	if (!path) {
		gsioa::last_error() = "gsio_ai_import_file: path is NULL";
		return nullptr;
	}
	try {
		std::unique_ptr<Assimp::Importer> imp(new Assimp::Importer());
		gsio_assimp_register(*imp);
		if (!imp->ReadFile(path, flags)) {
			gsioa::last_error() = imp->GetErrorString();
			return nullptr;
		}
		// The scene outlives its importer; aiReleaseImport() deletes it.
		return imp->GetOrphanedScene();
	} catch (const std::exception &e) {
		gsioa::last_error() = e.what();
		return nullptr;
	}
}

extern "C" void gsio_ai_release_import(const aiScene *scene)
{
	aiReleaseImport(scene);
}

extern "C" const char *gsio_ai_get_error_string(void)
{
	return gsioa::last_error().c_str();
}
