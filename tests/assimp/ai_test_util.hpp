/* Helpers of the Assimp adapter tests (C++, cmocka): the corpus, files, an
 * Assimp logger that counts warnings and errors. */
#ifndef GSIO_AI_TEST_UTIL_HPP
#define GSIO_AI_TEST_UTIL_HPP

#include "gsio_assimp.h"

#include <assimp/DefaultLogger.hpp>
#include <assimp/Importer.hpp>
#include <assimp/LogStream.hpp>
#include <assimp/importerdesc.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

// cmocka last: its fail() macro would break <ios>. It needs these four first.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
extern "C" {
#include <cmocka.h>
}

namespace fs = std::filesystem;

/** The corpus directory, or "" when it is absent. */
inline std::string t_corpus()
{
	std::error_code ec;
	return fs::is_directory(GSIO_CORPUS_DIR, ec) ? std::string(GSIO_CORPUS_DIR) : std::string();
}

#define T_REQUIRE_CORPUS()                                                              \
	do {                                                                                \
		if (t_corpus().empty()) {                                                       \
			print_message("SKIPPED: corpus not found at %s (../shared/corpus)\n",       \
			              GSIO_CORPUS_DIR);                                             \
			skip();                                                                     \
		}                                                                               \
	} while (0)

inline std::vector<uint8_t> t_read(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

inline void t_write(const std::string &path, const uint8_t *data, size_t size)
{
	std::ofstream f(path, std::ios::binary | std::ios::trunc);
	f.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
	assert_true(static_cast<bool>(f));
}

/** Every corpus file (sorted) whose first bytes start with one of the
 *  magics, with the file's magic. */
inline std::vector<std::pair<std::string, std::string>> t_corpus_files(const std::vector<std::string> &magics)
{
	std::vector<std::pair<std::string, std::string>> out;
	std::string dir = t_corpus();
	if (dir.empty()) return out;
	for (const auto &e : fs::recursive_directory_iterator(dir)) {
		if (!e.is_regular_file()) continue;
		std::ifstream f(e.path(), std::ios::binary);
		char head[16] = {0};
		f.read(head, sizeof(head));
		std::string h(head, static_cast<size_t>(f.gcount()));
		for (const auto &m : magics)
			if (h.compare(0, m.size(), m) == 0) {
				out.emplace_back(e.path().string(), m);
				break;
			}
	}
	std::sort(out.begin(), out.end());
	return out;
}

/** Counts Assimp's warnings and errors while it lives (DefaultLogger). */
class t_log_counter : public Assimp::LogStream {
public:
	std::vector<std::string> messages;
	void write(const char *message) override { messages.emplace_back(message); }
};

struct t_logger {
	t_log_counter *stream;
	t_logger()
	{
		Assimp::DefaultLogger::create("", Assimp::Logger::NORMAL, 0);
		stream = new t_log_counter();
		Assimp::DefaultLogger::get()->attachStream(stream, Assimp::Logger::Warn | Assimp::Logger::Err);
	}
	~t_logger() { Assimp::DefaultLogger::kill(); } // deletes the stream
	/** Warnings and errors logged since the last call, then forgets them. */
	std::vector<std::string> take()
	{
		std::vector<std::string> m;
		m.swap(stream->messages);
		return m;
	}
};

/** The name of the loader that served the last ReadFile of `imp`. */
inline std::string t_loader_name(const Assimp::Importer &imp)
{
	int idx = imp.GetPropertyInteger("importerIndex", -1);
	if (idx < 0) return "";
	const aiImporterDesc *d = imp.GetImporterInfo(static_cast<size_t>(idx));
	return d && d->mName ? d->mName : "";
}

inline size_t t_total_vertices(const aiScene *s)
{
	size_t n = 0;
	for (unsigned int i = 0; i < s->mNumMeshes; i++) n += s->mMeshes[i]->mNumVertices;
	return n;
}

#endif
