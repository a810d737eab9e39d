/* Mutated corpus files through the adapter (meant for the ASan + UBSan build
 * with the stock libassimp): an Importer whose only MDL, HMP and MD5
 * loaders are gsio's reads deterministic mutations of every corpus file
 * gsio reads (bytes flipped, 32-bit fields overwritten with edge values,
 * truncations; for MD5 text, characters replaced). Nothing may crash; a
 * load succeeds with a scene that passes Assimp's validation, or fails with
 * an error string that is gsio's message (it starts with the file's path).
 * The magic (first 4 bytes) is kept: which loader a file goes to is
 * test_adapter_import's matter. Assimp's own loaders are not registered
 * here: on such files they crash (the reason for gsio). */
#include "ai_test_util.hpp"

#include <assimp/BaseImporter.h>

#include <unistd.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return static_cast<uint32_t>(rng_state >> 11);
}

/* gsio's loaders only. */
static void register_gsio_only(Assimp::Importer &imp)
{
	for (const char *ext : {"mdl", "hmp", "md5mesh", "md5anim", "md5camera"}) {
		for (;;) {
			size_t idx = imp.GetImporterIndex(ext);
			if (idx == static_cast<size_t>(-1)) break;
			Assimp::BaseImporter *b = imp.GetImporter(idx);
			if (!b || imp.UnregisterLoader(b) != AI_SUCCESS) break;
			delete b; // unregistered loaders are the caller's
		}
	}
	std::vector<Assimp::BaseImporter *> ours;
	gsio_assimp_append_importers(ours);
	for (Assimp::BaseImporter *b : ours) imp.RegisterLoader(b);
}

static std::vector<uint8_t> mutate(const std::vector<uint8_t> &in, bool text, int kind)
{
	std::vector<uint8_t> out = in;
	size_t n = out.size();
	if (n <= 8) return out;
	switch (kind % 4) {
	case 0: // a few random bytes anywhere after the magic
		for (int k = 0, c = 1 + rnd() % 8; k < c; k++) {
			size_t at = 4 + rnd() % (n - 4);
			out[at] = text ? static_cast<uint8_t>("0123456789-.{}()\" \nxe+"[rnd() % 22]) : static_cast<uint8_t>(rnd());
		}
		break;
	case 1: { // an edge value in a 32-bit field of the header (first 512 bytes)
		static const uint32_t edges[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xffff, 0x10000, 0x7f7fffff};
		size_t at = 4 + (rnd() % (std::min<size_t>(n, 512) - 8) & ~static_cast<size_t>(3));
		uint32_t v = text ? 0 : edges[rnd() % 8];
		if (text) {
			const char *num = rnd() % 2 ? "99999999999" : "-1";
			for (size_t k = 0; num[k] && at + k < n; k++) out[at + k] = static_cast<uint8_t>(num[k]);
		} else {
			memcpy(&out[at], &v, 4);
		}
		break;
	}
	case 2: // truncated
		out.resize(4 + rnd() % (n - 4));
		break;
	default: // a run of bytes replaced
		{
			size_t at = 4 + rnd() % (n - 4), len = std::min<size_t>(n - at, 1 + rnd() % 64);
			for (size_t k = 0; k < len; k++) out[at + k] = text ? static_cast<uint8_t>('0' + rnd() % 10) : static_cast<uint8_t>(rnd());
		}
	}
	return out;
}

static void test_mutations(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	char tmpl[] = "/tmp/gsio_ai_mutate_XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	std::string dir = tmpl;
	size_t loads = 0, ok = 0, failed = 0;
	for (const auto &[path, magic] :
	     t_corpus_files({"MDL3", "MDL4", "MDL5", "HMP4", "HMP5", "HMP7", "MD5Version"})) {
		if (path.find("/invalid/") != std::string::npos) continue;
		std::vector<uint8_t> data = t_read(path);
		bool text = magic == "MD5Version";
		// Big files get fewer mutations (the suite runs under ASan).
		int count = data.size() > (1u << 21) ? 6 : data.size() > (1u << 19) ? 16 : 40;
		std::string name = fs::path(path).filename().string();
		std::string out = dir + "/" + name;
		for (int i = 0; i < count; i++) {
			std::vector<uint8_t> m = mutate(data, text, i);
			t_write(out, m.data(), m.size());
			Assimp::Importer imp;
			register_gsio_only(imp);
			const aiScene *s = imp.ReadFile(out, aiProcess_ValidateDataStructure);
			loads++;
			if (s) {
				ok++;
				continue;
			}
			failed++;
			std::string msg = imp.GetErrorString();
			if (msg.rfind(out, 0) != 0) {
				print_message("%s mutation %d: the error is not gsio's: %s\n", name.c_str(), i, msg.c_str());
				fail();
			}
		}
		unlink(out.c_str());
	}
	rmdir(dir.c_str());
	print_message("%zu mutated loads through gsio's Assimp loaders: %zu loaded and validated, %zu failed "
	              "with gsio's message, 0 crashes\n",
	              loads, ok, failed);
	assert_true(loads >= 300);
	assert_true(failed > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_mutations)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
