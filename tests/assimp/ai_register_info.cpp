/* What a program linked against a stock libassimp reads after
 * gsio_assimp_register(): `ai_register_info FILE...` prints, per file, one
 * line "FILE<TAB>reader<TAB>meshes<TAB>vertices<TAB>faces" (reader "gsio"
 * when one of gsio's loaders claims the file, else "assimp") or
 * "FILE<TAB>error<TAB>message". Exit 0 when every file printed a line.
 * Used by tests/e2e/assimp_testmodels.py over Assimp's own test models. */
#include "gsio_assimp.h"

#include <assimp/BaseImporter.h>
#include <assimp/Importer.hpp>
#include <assimp/importerdesc.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <cstdio>
#include <cstring>
#include <string>

static const char *reader_of(Assimp::Importer &imp, const char *path)
{
	for (size_t i = 0; i < imp.GetImporterCount(); i++) {
		Assimp::BaseImporter *b = imp.GetImporter(i);
		const aiImporterDesc *d = b ? b->GetInfo() : nullptr;
		if (d && d->mName && !strncmp(d->mName, "gsio ", 5) && b->CanRead(path, imp.GetIOHandler(), false))
			return "gsio";
	}
	return "assimp";
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		Assimp::Importer imp;
		gsio_assimp_register(imp);
		// ValidateDataStructure only: the counts are the loader's, as
		// `assimp info FILE -vds` gives them.
		const aiScene *s = imp.ReadFile(argv[i], aiProcess_ValidateDataStructure);
		if (!s) {
			std::string msg = imp.GetErrorString();
			for (char &c : msg)
				if (c == '\n' || c == '\t') c = ' ';
			printf("%s\terror\t%s\n", argv[i], msg.c_str());
			continue;
		}
		unsigned long verts = 0, faces = 0;
		for (unsigned m = 0; m < s->mNumMeshes; m++) {
			verts += s->mMeshes[m]->mNumVertices;
			faces += s->mMeshes[m]->mNumFaces;
		}
		printf("%s\t%s\t%u\t%lu\t%lu\n", argv[i], reader_of(imp, argv[i]), s->mNumMeshes, verts, faces);
	}
	return 0;
}
