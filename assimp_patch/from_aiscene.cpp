/* aiScene -> gsio scene through the public builder (gsio_scene_new,
 * gsio_scene_add_*), so gsio's writers take anything Assimp reads. The
 * mapping is documented in gsio_assimp.h. An aiScene from any loader is
 * input to distrust: every index is checked before use, every float that
 * gsio_scene_validate() bounds is clamped, and the result is validated. */
#include "gsio_assimp_internal.hpp"
#include "gsioi_math.h"

#include <assimp/GltfMaterial.h>
#include <assimp/material.h>
#include <assimp/metadata.h>
#include <assimp/scene.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

/* The image decoder of libgsio (stb_image with gsio's limits). Internal to
 * libgsio, so the adapter links the static library. */
extern "C" bool gsioi_image_file_decode(const uint8_t *data, size_t size, const char *file,
                                        gsio_arena *arena, gsio_image *out, gsio_error *err);

namespace gsioa {

namespace {

/** Frames of one animation are capped: a malformed duration must not ask
 *  for billions of samples. */
const size_t max_anim_frames = 1u << 20;

float clamp01(float x)
{
	return std::isfinite(x) ? std::min(1.0f, std::max(0.0f, x)) : 0.0f;
}

float finite_or(float x, float d)
{
	return std::isfinite(x) ? x : d;
}

struct node_job {
	const aiNode *ai;
	int32_t parent;
};

struct builder {
	gsio_scene *s = nullptr;
	gsio_error *err = nullptr;
	const aiScene &ai;
	const gsio_ai_opts &opts;
	aiMatrix4x4 root_fix; // Assimp's Y up back to gsio's Z up
	bool root_fix_used = false;
	int32_t root_node = -1;

	std::map<std::string, int32_t> image_by_path;
	std::set<std::string> used_image_names, used_material_names, used_anim_names;
	std::vector<int32_t> material_of; // aiMaterial -> gsio material
	std::multimap<std::string, int32_t> nodes_by_name;
	std::map<std::vector<unsigned int>, int32_t> mesh_of_group;
	struct placed {
		int32_t node;
		std::vector<unsigned int> group;
	};
	std::vector<placed> placements;
	// Per gsio mesh: its ai meshes, and whether frame 0 is an added base.
	struct mesh_info {
		std::vector<unsigned int> group;
		bool base_added = false;
		size_t anim_meshes = 0;
	};
	std::vector<mesh_info> mesh_infos;
	std::vector<std::pair<gsio_skin, int32_t>> skins_seen;

	builder(const aiScene &a, const gsio_ai_opts &o) : ai(a), opts(o) {}

	void check(bool ok)
	{
		if (!ok) throw gsio_failure(*err);
	}
	int32_t checked(int32_t idx)
	{
		check(idx >= 0);
		return idx;
	}
	template <class T> T *alloc(size_t n)
	{
		T *p = static_cast<T *>(gsio_scene_alloc(s, n ? n : 1, sizeof(T), err));
		check(p != nullptr);
		return p;
	}
	void warn(const std::string &w) { (void)gsio_scene_add_warning(s, err, "%s", w.c_str()); }
	[[noreturn]] void fail(gsio_error_code code, const std::string &msg)
	{
		set_error(err, code, msg.c_str());
		throw gsio_failure(*err);
	}
	static std::string unique(std::set<std::string> &used, std::string name, const char *fallback, size_t i)
	{
		if (name.empty()) name = std::string(fallback) + std::to_string(i);
		std::string n = name;
		for (int k = 2; used.count(n); k++) n = name + "#" + std::to_string(k);
		used.insert(n);
		return n;
	}

	// -- Extras

	void extras_from(gsio_extras *x, const aiMetadata *md)
	{
		if (!md) return;
		for (unsigned int i = 0; i < md->mNumProperties; i++) {
			if (!md->mKeys || !md->mValues || !md->mValues[i].mData) continue;
			std::string key = md->mKeys[i].C_Str();
			if (key.empty()) continue;
			const void *d = md->mValues[i].mData;
			int rc = 0;
			switch (md->mValues[i].mType) {
			case AI_BOOL: rc = gsio_extras_set_int(s, x, key.c_str(), *static_cast<const bool *>(d), err); break;
			case AI_INT32: rc = gsio_extras_set_int(s, x, key.c_str(), *static_cast<const int32_t *>(d), err); break;
			case AI_UINT64: {
				uint64_t v = *static_cast<const uint64_t *>(d);
				rc = v <= INT64_MAX ? gsio_extras_set_int(s, x, key.c_str(), static_cast<int64_t>(v), err)
				                    : gsio_extras_set_float(s, x, key.c_str(), static_cast<double>(v), err);
				break;
			}
			case AI_FLOAT: {
				float v = *static_cast<const float *>(d);
				if (std::isfinite(v)) rc = gsio_extras_set_float(s, x, key.c_str(), v, err);
				break;
			}
			case AI_DOUBLE: {
				double v = *static_cast<const double *>(d);
				if (std::isfinite(v)) rc = gsio_extras_set_float(s, x, key.c_str(), v, err);
				break;
			}
			case AI_AISTRING:
				rc = gsio_extras_set_string(s, x, key.c_str(), static_cast<const aiString *>(d)->C_Str(), err);
				break;
			case AI_AIVECTOR3D: {
				const aiVector3D *v = static_cast<const aiVector3D *>(d);
				float f[3] = {v->x, v->y, v->z};
				if (std::isfinite(f[0]) && std::isfinite(f[1]) && std::isfinite(f[2]))
					rc = gsio_extras_set_floats(s, x, key.c_str(), f, 3, err);
				break;
			}
			default: break; // nested lists: no gsio extra type
			}
			check(rc == 0);
		}
	}

	// -- Images and materials

	int32_t image_for(const std::string &path_in)
	{
		auto it = image_by_path.find(path_in);
		if (it != image_by_path.end()) return it->second;
		int32_t idx = -1;
		const aiTexture *tex = nullptr;
		if (!path_in.empty() && path_in[0] == '*') {
			char *end = nullptr;
			unsigned long k = strtoul(path_in.c_str() + 1, &end, 10);
			if (end && !*end && k < ai.mNumTextures && ai.mTextures) tex = ai.mTextures[k];
		} else {
			for (unsigned int k = 0; k < ai.mNumTextures && ai.mTextures; k++)
				if (ai.mTextures[k] && path_in == ai.mTextures[k]->mFilename.C_Str()) tex = ai.mTextures[k];
		}
		if (tex) {
			std::string base = tex->mFilename.length ? tex->mFilename.C_Str() : "texture" + path_in.substr(1);
			std::string name = unique(used_image_names, base, "texture", image_by_path.size());
			gsio_image img;
			memset(&img, 0, sizeof(img));
			if (!tex->pcData || !tex->mWidth) {
				warn("texture " + path_in + " has no data: left out");
			} else if (tex->mHeight == 0) {
				if (gsioi_image_file_decode(reinterpret_cast<const uint8_t *>(tex->pcData), tex->mWidth,
				                            name.c_str(), s->arena, &img, err)) {
					idx = checked(gsio_scene_add_image(s, name.c_str(), img.width, img.height, nullptr, err));
					memcpy(s->images[idx].rgba, img.rgba, static_cast<size_t>(img.width) * img.height * 4);
				} else {
					warn("texture " + path_in + " does not decode (" + err->message + "): left out");
					gsio_error_clear(err);
				}
			} else {
				if (static_cast<uint64_t>(tex->mWidth) * tex->mHeight > (1u << 28))
					fail(GSIO_ERR_LIMIT, "an embedded texture is too large");
				idx = checked(gsio_scene_add_image(s, name.c_str(), tex->mWidth, tex->mHeight, nullptr, err));
				uint8_t *px = s->images[idx].rgba;
				size_t n = static_cast<size_t>(tex->mWidth) * tex->mHeight;
				for (size_t i = 0; i < n; i++) { // aiTexel is BGRA
					px[4 * i + 0] = tex->pcData[i].r;
					px[4 * i + 1] = tex->pcData[i].g;
					px[4 * i + 2] = tex->pcData[i].b;
					px[4 * i + 3] = tex->pcData[i].a;
				}
			}
		} else if (!path_in.empty() && path_in[0] != '*') {
			std::string uri = path_in;
			std::replace(uri.begin(), uri.end(), '\\', '/');
			std::string base = uri.substr(uri.find_last_of('/') == std::string::npos ? 0 : uri.find_last_of('/') + 1);
			std::string name = unique(used_image_names, base, "texture", image_by_path.size());
			idx = checked(gsio_scene_add_image(s, name.c_str(), 0, 0, uri.c_str(), err));
		} else {
			warn("texture " + path_in + " is not in the scene: left out");
		}
		image_by_path[path_in] = idx;
		return idx;
	}

	void texture_from(const aiMaterial *m, aiTextureType type, unsigned int slot, gsio_texture *t)
	{
		aiString path;
		if (m->Get(AI_MATKEY_TEXTURE(type, slot), path) != AI_SUCCESS || !path.length) return;
		t->image = image_for(path.C_Str());
		int mode;
		auto wrap = [](int v) {
			return v == aiTextureMapMode_Clamp || v == aiTextureMapMode_Decal ? GSIO_WRAP_CLAMP
			       : v == aiTextureMapMode_Mirror                           ? GSIO_WRAP_MIRROR
			                                                                : GSIO_WRAP_REPEAT;
		};
		if (m->Get(AI_MATKEY_MAPPINGMODE_U(type, slot), mode) == AI_SUCCESS) t->wrap_u = wrap(mode);
		if (m->Get(AI_MATKEY_MAPPINGMODE_V(type, slot), mode) == AI_SUCCESS) t->wrap_v = wrap(mode);
		aiUVTransform uv;
		if (m->Get(AI_MATKEY_UVTRANSFORM(type, slot), uv) == AI_SUCCESS && uv.mScaling.x == uv.mScaling.y &&
		    std::isfinite(uv.mScaling.x) && uv.mScaling.x > 0)
			t->tiling = uv.mScaling.x;
	}

	void materials()
	{
		material_of.assign(ai.mNumMaterials, -1);
		for (unsigned int i = 0; i < ai.mNumMaterials && ai.mMaterials; i++) {
			const aiMaterial *m = ai.mMaterials[i];
			if (!m) continue;
			aiString aname;
			m->Get(AI_MATKEY_NAME, aname);
			std::string name = unique(used_material_names, aname.C_Str(), "material", i);
			int32_t idx = checked(gsio_scene_add_material(s, name.c_str(), err));
			material_of[i] = idx;
			gsio_material mat = s->materials[idx];
			aiColor4D c(1, 1, 1, 1);
			if (m->Get(AI_MATKEY_BASE_COLOR, c) != AI_SUCCESS) {
				if (m->Get(AI_MATKEY_COLOR_DIFFUSE, c) != AI_SUCCESS) c = aiColor4D(1, 1, 1, 1);
				float opacity;
				if (m->Get(AI_MATKEY_OPACITY, opacity) == AI_SUCCESS) c.a = opacity;
			}
			mat.base_color[0] = clamp01(c.r);
			mat.base_color[1] = clamp01(c.g);
			mat.base_color[2] = clamp01(c.b);
			mat.base_color[3] = clamp01(c.a);
			aiColor3D e(0, 0, 0);
			if (m->Get(AI_MATKEY_COLOR_EMISSIVE, e) == AI_SUCCESS) {
				mat.emissive[0] = clamp01(e.r);
				mat.emissive[1] = clamp01(e.g);
				mat.emissive[2] = clamp01(e.b);
			}
			int two = 0, shading = 0;
			if (m->Get(AI_MATKEY_TWOSIDED, two) == AI_SUCCESS) mat.double_sided = two != 0;
			if (m->Get(AI_MATKEY_SHADING_MODEL, shading) == AI_SUCCESS) mat.unlit = shading == aiShadingMode_Unlit;
			aiString alpha;
			if (m->Get(AI_MATKEY_GLTF_ALPHAMODE, alpha) == AI_SUCCESS) {
				if (!strcmp(alpha.C_Str(), "MASK")) mat.alpha_mode = GSIO_ALPHA_MASK;
				else if (!strcmp(alpha.C_Str(), "BLEND")) mat.alpha_mode = GSIO_ALPHA_BLEND;
			} else if (mat.base_color[3] < 1.0f) {
				mat.alpha_mode = GSIO_ALPHA_BLEND;
			}
			float cutoff;
			if (m->Get(AI_MATKEY_GLTF_ALPHACUTOFF, cutoff) == AI_SUCCESS && std::isfinite(cutoff) && cutoff >= 0)
				mat.alpha_cutoff = cutoff;
			aiString shader;
			if (m->Get("$mat.gsio.shader", 0, 0, shader) == AI_SUCCESS)
				mat.shader = gsio_scene_strdup(s, shader.C_Str(), err);
			s->materials[idx] = mat; // image_for may add images, never materials
			gsio_texture base = s->materials[idx].base_color_texture;
			texture_from(m, aiTextureType_BASE_COLOR, 0, &base);
			if (base.image < 0) texture_from(m, aiTextureType_DIFFUSE, 0, &base);
			s->materials[idx].base_color_texture = base;
			gsio_texture detail = s->materials[idx].detail_texture;
			texture_from(m, aiTextureType_DIFFUSE, 1, &detail);
			s->materials[idx].detail_texture = detail;
		}
	}

	// -- Nodes

	void set_trs(int32_t idx, const aiMatrix4x4 &m)
	{
		aiVector3D sc, pos;
		aiQuaternion q;
		m.Decompose(sc, q, pos);
		float t[3] = {pos.x, pos.y, pos.z}, r[4] = {q.x, q.y, q.z, q.w}, k[3] = {sc.x, sc.y, sc.z};
		bool ok = true;
		for (float v : t) ok = ok && std::isfinite(v);
		for (float v : r) ok = ok && std::isfinite(v);
		for (float v : k) ok = ok && std::isfinite(v);
		gsio_node &n = s->nodes[idx];
		if (!ok) {
			warn(std::string("node ") + n.name + ": its matrix does not decompose: identity used");
			return;
		}
		gsioi_quat_normalize(r);
		for (float &v : k)
			if (std::fabs(v) < 1e-12f) v = 1e-12f; // gsio needs non-zero scales
		memcpy(n.translation, t, sizeof(t));
		memcpy(n.rotation, r, sizeof(r));
		memcpy(n.scale, k, sizeof(k));
	}

	static bool near(const aiMatrix4x4 &a, const aiMatrix4x4 &b)
	{
		for (unsigned int r = 0; r < 4; r++)
			for (unsigned int c = 0; c < 4; c++)
				if (!(std::fabs(a[r][c] - b[r][c]) <= 1e-6f)) return false;
		return true;
	}

	int32_t add_node(const std::string &name, int32_t parent)
	{
		int32_t idx = checked(gsio_scene_add_node(s, name.c_str(), parent, err));
		nodes_by_name.emplace(name, idx);
		return idx;
	}

	void nodes()
	{
		const aiNode *root = ai.mRootNode;
		root_fix = z_up_to_y_up();
		if (!opts.gltf_axes && near(root->mTransformation, root_fix)) {
			// A Z-up file that a loader turned to Y up with this very
			// rotation (gsio's loaders, Assimp's MDL/HMP/MD5): undo it, the
			// file's axes come back exactly.
			root_fix.Inverse();
		} else {
			// A Y-up scene in glTF's convention (front +Z; always so when the
			// caller says the input is glTF, opts.gltf_axes): its front becomes
			// gsio's +X, the inverse of what gsio's glTF writer does
			// ((x, y, z)_gltf = (y, z, x)_gsio), so a model made facing the
			// front in Blender faces forward in the engine and a glTF round
			// trip through gsio keeps its axes.
			root_fix = aiMatrix4x4(0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1);
		}
		std::vector<node_job> stack;
		aiMatrix4x4 root_m = root_fix * root->mTransformation;
		bool skip_root = !strcmp(root->mName.C_Str(), "gsio:root") && root->mNumMeshes == 0 && root_m.IsIdentity();
		if (skip_root) {
			for (unsigned int c = root->mNumChildren; c-- > 0;)
				if (root->mChildren && root->mChildren[c]) stack.push_back({root->mChildren[c], -1});
		} else {
			stack.push_back({root, -1});
		}
		size_t visited = 0;
		while (!stack.empty()) {
			node_job job = stack.back();
			stack.pop_back();
			if (++visited > (1u << 24)) fail(GSIO_ERR_LIMIT, "the node tree is too large or has a cycle");
			const aiNode *an = job.ai;
			std::string name = an->mName.length ? an->mName.C_Str() : "node" + std::to_string(s->nodes_count);
			int32_t idx = add_node(name, job.parent);
			if (an == root) {
				root_node = idx;
				set_trs(idx, root_m);
				root_fix_used = true;
			} else {
				set_trs(idx, an->mTransformation);
			}
			extras_from(&s->nodes[idx].extras, an->mMetaData);
			if (an->mNumMeshes && an->mMeshes) {
				std::vector<unsigned int> group;
				for (unsigned int k = 0; k < an->mNumMeshes; k++) {
					unsigned int m = an->mMeshes[k];
					if (m >= ai.mNumMeshes || !ai.mMeshes || !ai.mMeshes[m])
						fail(GSIO_ERR_CORRUPT, "node " + name + " names mesh " + std::to_string(m) +
						                           " of " + std::to_string(ai.mNumMeshes));
					group.push_back(m);
				}
				if (mergeable(group)) {
					placements.push_back({idx, group});
				} else {
					for (size_t k = 0; k < group.size(); k++) {
						int32_t child = add_node(name + "#mesh" + std::to_string(k), idx);
						placements.push_back({child, {group[k]}});
					}
				}
			}
			for (unsigned int c = an->mNumChildren; c-- > 0;)
				if (an->mChildren && an->mChildren[c]) stack.push_back({an->mChildren[c], idx});
		}
	}

	bool mergeable(const std::vector<unsigned int> &g) const
	{
		const aiMesh *a = ai.mMeshes[g[0]];
		for (unsigned int m : g) {
			const aiMesh *b = ai.mMeshes[m];
			if (b->mNumAnimMeshes != a->mNumAnimMeshes || b->HasBones() != a->HasBones()) return false;
		}
		return true;
	}

	// -- Meshes

	static bool same_positions(const aiMesh *m, const aiAnimMesh *a)
	{
		if (!a->mVertices || a->mNumVertices != m->mNumVertices) return false;
		for (unsigned int v = 0; v < m->mNumVertices; v++)
			if ((a->mVertices[v] - m->mVertices[v]).SquareLength() > 1e-12f) return false;
		return true;
	}

	int32_t mesh_for(const std::vector<unsigned int> &group)
	{
		auto it = mesh_of_group.find(group);
		if (it != mesh_of_group.end()) return it->second;
		size_t vcount = 0, icount = 0;
		bool normals = true, uvs = false, dropped = false;
		for (unsigned int m : group) {
			const aiMesh *am = ai.mMeshes[m];
			if (!am->mVertices && am->mNumVertices) fail(GSIO_ERR_CORRUPT, "a mesh has no vertex array");
			vcount += am->mNumVertices;
			if (!am->mNormals) normals = false;
			if (am->mTextureCoords[0]) uvs = true;
			for (unsigned int f = 0; f < am->mNumFaces && am->mFaces; f++) {
				const aiFace &face = am->mFaces[f];
				if (face.mNumIndices >= 3 && face.mIndices) icount += 3 * (face.mNumIndices - 2);
				else dropped = true;
			}
		}
		if (vcount > UINT32_MAX || icount > UINT32_MAX) fail(GSIO_ERR_LIMIT, "a mesh is too large");
		if (dropped) warn("points and lines of a mesh are left out (gsio meshes are triangles)");
		const aiMesh *first = ai.mMeshes[group[0]];
		int32_t mat0 = first->mMaterialIndex < material_of.size() ? material_of[first->mMaterialIndex] : -1;
		uint32_t flags = (normals && vcount ? static_cast<uint32_t>(GSIO_MESH_NORMALS) : 0u) |
		                 (uvs ? static_cast<uint32_t>(GSIO_MESH_UVS) : 0u);
		int32_t idx = checked(gsio_scene_add_mesh(s, first->mName.C_Str(), vcount, icount, flags, mat0, err));
		gsio_mesh *gm = &s->meshes[idx];
		gsio_mesh_part *parts = alloc<gsio_mesh_part>(group.size());
		size_t nparts = 0, vbase = 0, ibase = 0;
		for (unsigned int m : group) {
			const aiMesh *am = ai.mMeshes[m];
			for (unsigned int v = 0; v < am->mNumVertices; v++) {
				float *p = gm->positions + 3 * (vbase + v);
				p[0] = finite_or(am->mVertices[v].x, 0);
				p[1] = finite_or(am->mVertices[v].y, 0);
				p[2] = finite_or(am->mVertices[v].z, 0);
				if (gm->normals) {
					float *n = gm->normals + 3 * (vbase + v);
					n[0] = finite_or(am->mNormals[v].x, 0);
					n[1] = finite_or(am->mNormals[v].y, 0);
					n[2] = finite_or(am->mNormals[v].z, 1);
				}
				if (gm->uvs && am->mTextureCoords[0]) {
					gm->uvs[2 * (vbase + v)] = finite_or(am->mTextureCoords[0][v].x, 0);
					gm->uvs[2 * (vbase + v) + 1] = 1.0f - finite_or(am->mTextureCoords[0][v].y, 0); // top-left origin
				}
			}
			size_t start = ibase;
			for (unsigned int f = 0; f < am->mNumFaces && am->mFaces; f++) {
				const aiFace &face = am->mFaces[f];
				if (face.mNumIndices < 3 || !face.mIndices) continue;
				for (unsigned int k = 0; k < face.mNumIndices; k++)
					if (face.mIndices[k] >= am->mNumVertices)
						fail(GSIO_ERR_CORRUPT, "a face of mesh " + std::string(am->mName.C_Str()) +
						                           " names vertex " + std::to_string(face.mIndices[k]) +
						                           " of " + std::to_string(am->mNumVertices));
				for (unsigned int k = 1; k + 1 < face.mNumIndices; k++) { // a fan
					gm->indices[ibase++] = static_cast<uint32_t>(vbase + face.mIndices[0]);
					gm->indices[ibase++] = static_cast<uint32_t>(vbase + face.mIndices[k]);
					gm->indices[ibase++] = static_cast<uint32_t>(vbase + face.mIndices[k + 1]);
				}
			}
			if (ibase > start) {
				gsio_mesh_part &p = parts[nparts++];
				p.first_index = start;
				p.index_count = ibase - start;
				p.material = am->mMaterialIndex < material_of.size() ? material_of[am->mMaterialIndex] : -1;
			}
			vbase += am->mNumVertices;
		}
		if (nparts) {
			gm->parts = parts;
			gm->parts_count = nparts;
		}
		bbox(gm->positions, vcount, gm->bbox_min, gm->bbox_max);

		// Morph targets -> frames (frame 0 is the base: added in front when
		// the first target is not the base itself).
		mesh_info info;
		info.group = group;
		size_t na = first->mNumAnimMeshes;
		if (na && first->mAnimMeshes) {
			info.anim_meshes = na;
			info.base_added = !(first->mAnimMeshes[0] && same_positions(first, first->mAnimMeshes[0]));
			size_t nf = na + (info.base_added ? 1 : 0);
			gsio_morph_frame *frames = alloc<gsio_morph_frame>(nf);
			for (size_t f = 0; f < nf; f++) {
				gsio_morph_frame &fr = frames[f];
				fr.positions = alloc<float>(3 * vcount);
				if (gm->normals) fr.normals = alloc<float>(3 * vcount);
				long a = static_cast<long>(f) - (info.base_added ? 1 : 0);
				std::string fname = "frame" + std::to_string(f);
				size_t vb = 0;
				for (unsigned int m : group) {
					const aiMesh *am = ai.mMeshes[m];
					const aiAnimMesh *anim = a >= 0 && am->mAnimMeshes ? am->mAnimMeshes[a] : nullptr;
					if (anim && anim->mNumVertices != am->mNumVertices) anim = nullptr;
					if (anim && m == group[0] && anim->mName.length) fname = anim->mName.C_Str();
					for (unsigned int v = 0; v < am->mNumVertices; v++) {
						const aiVector3D &p = anim && anim->mVertices ? anim->mVertices[v] : am->mVertices[v];
						float *dst = fr.positions + 3 * (vb + v);
						dst[0] = finite_or(p.x, 0);
						dst[1] = finite_or(p.y, 0);
						dst[2] = finite_or(p.z, 0);
						if (fr.normals) {
							const aiVector3D &n = anim && anim->mNormals ? anim->mNormals[v] : am->mNormals[v];
							float *dn = fr.normals + 3 * (vb + v);
							dn[0] = finite_or(n.x, 0);
							dn[1] = finite_or(n.y, 0);
							dn[2] = finite_or(n.z, 1);
						}
					}
					vb += am->mNumVertices;
				}
				fr.name = gsio_scene_strdup(s, fname.c_str(), err);
				check(fr.name != nullptr);
				bbox(fr.positions, vcount, fr.bbox_min, fr.bbox_max);
			}
			gm = &s->meshes[idx];
			gm->frames = frames;
			gm->frames_count = nf;
		}

		// Bones -> a skin (joints sorted by node index) and CSR weights.
		if (first->HasBones()) skin_for(idx, group);
		mesh_infos.resize(s->meshes_count);
		mesh_infos[idx] = info;
		mesh_of_group[group] = idx;
		return idx;
	}

	static void bbox(const float *p, size_t n, float mn[3], float mx[3])
	{
		for (int k = 0; k < 3; k++) {
			mn[k] = n ? p[k] : 0;
			mx[k] = n ? p[k] : 0;
		}
		for (size_t v = 1; v < n; v++)
			for (int k = 0; k < 3; k++) {
				mn[k] = std::min(mn[k], p[3 * v + k]);
				mx[k] = std::max(mx[k], p[3 * v + k]);
			}
	}

	int32_t node_named(const std::string &name)
	{
		auto it = nodes_by_name.find(name);
		return it == nodes_by_name.end() ? -1 : it->second;
	}

	void skin_for(int32_t mesh_idx, const std::vector<unsigned int> &group)
	{
		std::map<int32_t, aiMatrix4x4> joints; // node -> offset matrix
		for (unsigned int m : group) {
			const aiMesh *am = ai.mMeshes[m];
			for (unsigned int b = 0; b < am->mNumBones && am->mBones; b++) {
				const aiBone *bone = am->mBones[b];
				if (!bone) continue;
				int32_t node = node_named(bone->mName.C_Str());
				if (node < 0) {
					warn(std::string("bone ") + bone->mName.C_Str() + " has no node: a root node made for it");
					node = add_node(bone->mName.C_Str(), -1);
					aiMatrix4x4 bind = bone->mOffsetMatrix;
					set_trs(node, bind.Inverse());
				}
				joints.emplace(node, bone->mOffsetMatrix);
			}
		}
		if (joints.empty()) return;
		std::vector<int32_t> order;
		for (const auto &kv : joints) order.push_back(kv.first);
		// The same joints and matrices as a skin made before: share it.
		int32_t skin = -1;
		for (size_t k = 0; k < s->skins_count && skin < 0; k++) {
			const gsio_skin &sk = s->skins[k];
			if (sk.joints_count != order.size()) continue;
			bool same = true;
			for (size_t j = 0; j < order.size() && same; j++) {
				float m[16];
				mat_to_colmajor(joints[order[j]], m);
				same = sk.joints[j] == order[j] && !memcmp(m, sk.inverse_bind + 16 * j, sizeof(m));
			}
			if (same) skin = static_cast<int32_t>(k);
		}
		if (skin < 0) {
			std::string name = std::string(s->meshes[mesh_idx].name ? s->meshes[mesh_idx].name : "mesh") + "_skin";
			skin = checked(gsio_scene_add_skin(s, name.c_str(), order.size(), err));
			for (size_t j = 0; j < order.size(); j++) {
				s->skins[skin].joints[j] = order[j];
				float m[16];
				mat_to_colmajor(joints[order[j]], m);
				for (float &v : m) v = finite_or(v, 0);
				memcpy(s->skins[skin].inverse_bind + 16 * j, m, sizeof(m));
			}
		}
		std::map<int32_t, uint32_t> slot;
		for (size_t j = 0; j < order.size(); j++) slot[order[j]] = static_cast<uint32_t>(j);
		gsio_mesh &gm = s->meshes[mesh_idx];
		std::vector<std::vector<std::pair<uint32_t, float>>> per_vertex(gm.vertex_count);
		size_t vb = 0, total = 0;
		for (unsigned int m : group) {
			const aiMesh *am = ai.mMeshes[m];
			for (unsigned int b = 0; b < am->mNumBones && am->mBones; b++) {
				const aiBone *bone = am->mBones[b];
				if (!bone || !bone->mWeights) continue;
				uint32_t j = slot[node_named(bone->mName.C_Str())];
				for (unsigned int w = 0; w < bone->mNumWeights; w++) {
					const aiVertexWeight &vw = bone->mWeights[w];
					if (vw.mVertexId >= am->mNumVertices)
						fail(GSIO_ERR_CORRUPT, std::string("bone ") + bone->mName.C_Str() + " weighs vertex " +
						                           std::to_string(vw.mVertexId) + " of " +
						                           std::to_string(am->mNumVertices));
					if (!(vw.mWeight > 0) || !std::isfinite(vw.mWeight)) continue;
					per_vertex[vb + vw.mVertexId].emplace_back(j, vw.mWeight);
					total++;
				}
			}
			vb += am->mNumVertices;
		}
		gsio_weights w;
		w.offsets = alloc<uint32_t>(gm.vertex_count + 1);
		w.joints = alloc<uint32_t>(total);
		w.values = alloc<float>(total);
		w.count = total;
		size_t k = 0;
		for (size_t v = 0; v < per_vertex.size(); v++) {
			w.offsets[v] = static_cast<uint32_t>(k);
			for (const auto &jw : per_vertex[v]) {
				w.joints[k] = jw.first;
				w.values[k] = jw.second;
				k++;
			}
		}
		w.offsets[per_vertex.size()] = static_cast<uint32_t>(k);
		s->meshes[mesh_idx].skin = skin;
		s->meshes[mesh_idx].weights = w;
	}

	void meshes()
	{
		for (const placed &p : placements) {
			int32_t m = mesh_for(p.group);
			s->nodes[p.node].mesh = m;
		}
	}

	// -- Cameras and lights

	/** The node that carries a camera or light looking along `dir` with
	 *  `up` at `pos` in the node's space: the node itself when that is
	 *  gsio's frame (+X forward, +Z up at the origin), else a child. */
	int32_t frame_node(int32_t node, const aiVector3D &pos, aiVector3D dir, aiVector3D up, const char *what)
	{
		if (dir.SquareLength() < 1e-12f) dir = aiVector3D(1, 0, 0);
		dir.Normalize();
		up = up - dir * (up * dir);
		if (up.SquareLength() < 1e-12f) up = std::fabs(dir.z) < 0.9f ? aiVector3D(0, 0, 1) : aiVector3D(0, 1, 0);
		up = up - dir * (up * dir);
		up.Normalize();
		bool gsio_frame = pos.SquareLength() < 1e-12f && (dir - aiVector3D(1, 0, 0)).SquareLength() < 1e-10f &&
		                  (up - aiVector3D(0, 0, 1)).SquareLength() < 1e-10f;
		if (gsio_frame) return node;
		aiVector3D side = up ^ dir; // y = z x x
		aiMatrix4x4 m(dir.x, side.x, up.x, pos.x, dir.y, side.y, up.y, pos.y, dir.z, side.z, up.z, pos.z, 0, 0, 0, 1);
		int32_t child = add_node(std::string(s->nodes[node].name) + "#" + what, node);
		set_trs(child, m);
		return child;
	}

	void cameras_and_lights()
	{
		for (unsigned int i = 0; i < ai.mNumCameras && ai.mCameras; i++) {
			const aiCamera *c = ai.mCameras[i];
			if (!c) continue;
			int32_t node = node_named(c->mName.C_Str());
			if (node < 0) {
				warn(std::string("camera ") + c->mName.C_Str() + " has no node: left out");
				continue;
			}
			int32_t cam = checked(gsio_scene_add_camera(s, c->mName.C_Str(), err));
			gsio_camera &gc = s->cameras[cam];
			float fov = static_cast<float>(c->mHorizontalFOV * 360.0 / M_PI); // Assimp: half angle
			gc.fov = std::isfinite(fov) && fov > 0 && fov < 180 ? fov : 60.0f;
			gc.aspect = std::isfinite(c->mAspect) && c->mAspect > 0 ? c->mAspect : 0;
			gc.znear = std::isfinite(c->mClipPlaneNear) && c->mClipPlaneNear > 0 ? c->mClipPlaneNear : 0;
			gc.zfar = std::isfinite(c->mClipPlaneFar) && c->mClipPlaneFar > gc.znear ? c->mClipPlaneFar : 0;
			int32_t carrier = frame_node(node, c->mPosition, c->mLookAt, c->mUp, "camera");
			s->nodes[carrier].camera = cam;
		}
		for (unsigned int i = 0; i < ai.mNumLights && ai.mLights; i++) {
			const aiLight *l = ai.mLights[i];
			if (!l) continue;
			int32_t node = node_named(l->mName.C_Str());
			if (node < 0) {
				warn(std::string("light ") + l->mName.C_Str() + " has no node: left out");
				continue;
			}
			gsio_light_type type = l->mType == aiLightSource_SPOT          ? GSIO_LIGHT_SPOT
			                       : l->mType == aiLightSource_DIRECTIONAL ? GSIO_LIGHT_DIRECTIONAL
			                                                               : GSIO_LIGHT_POINT;
			int32_t li = checked(gsio_scene_add_light(s, l->mName.C_Str(), type, err));
			gsio_light &gl = s->lights[li];
			float c[3] = {l->mColorDiffuse.r, l->mColorDiffuse.g, l->mColorDiffuse.b};
			float k = std::max(c[0], std::max(c[1], c[2]));
			if (!std::isfinite(k) || k <= 0) k = 1;
			for (int j = 0; j < 3; j++) gl.color[j] = clamp01(c[j] / k);
			gl.intensity = k;
			if (type == GSIO_LIGHT_SPOT) {
				float outer = finite_or(l->mAngleOuterCone / 2, static_cast<float>(M_PI / 4));
				float inner = finite_or(l->mAngleInnerCone / 2, 0);
				gl.outer_cone = std::min(static_cast<float>(M_PI / 2), std::max(1e-3f, outer));
				gl.inner_cone = std::min(gl.outer_cone * 0.999f, std::max(0.0f, inner));
			}
			aiVector3D up = l->mUp;
			int32_t carrier = frame_node(node, l->mPosition, l->mDirection, up, "light");
			s->nodes[carrier].light = li;
		}
	}

	// -- Animations

	template <class K> static size_t key_at(const K *keys, unsigned int n, double t)
	{
		// The last key with time <= t (0 when t is before the first).
		size_t lo = 0, hi = n;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;
			if (keys[mid].mTime <= t) lo = mid;
			else hi = mid;
		}
		return lo;
	}

	static aiVector3D sample(const aiVectorKey *keys, unsigned int n, double t)
	{
		size_t i = key_at(keys, n, t);
		if (i + 1 >= n || t <= keys[i].mTime) return keys[i].mValue;
		double span = keys[i + 1].mTime - keys[i].mTime;
		float f = span > 0 ? static_cast<float>((t - keys[i].mTime) / span) : 0.0f;
		return keys[i].mValue + (keys[i + 1].mValue - keys[i].mValue) * f;
	}

	static aiQuaternion sample(const aiQuatKey *keys, unsigned int n, double t)
	{
		size_t i = key_at(keys, n, t);
		if (i + 1 >= n || t <= keys[i].mTime) return keys[i].mValue;
		double span = keys[i + 1].mTime - keys[i].mTime;
		float f = span > 0 ? static_cast<float>((t - keys[i].mTime) / span) : 0.0f;
		aiQuaternion out;
		aiQuaternion::Interpolate(out, keys[i].mValue, keys[i + 1].mValue, f);
		return out;
	}

	void animations()
	{
		for (unsigned int ai_i = 0; ai_i < ai.mNumAnimations && ai.mAnimations; ai_i++) {
			const aiAnimation *a = ai.mAnimations[ai_i];
			if (!a) continue;
			double tps = std::isfinite(a->mTicksPerSecond) && a->mTicksPerSecond > 0 ? a->mTicksPerSecond : 25.0;
			// The smallest step between keys, and the first and last keys'
			// times: sampling starts at the first key, not at tick 0, so an
			// animation whose keys start later (Blender's exporter puts frame
			// 1 at 1/fps seconds) does not gain a leading frame that repeats
			// its first pose: the file's frame 0 is the first key.
			double step = 0, begin = HUGE_VAL, end = 0;
			auto look = [&](double t0, double t1) {
				if (std::isfinite(t1) && t1 > t0 && (step == 0 || t1 - t0 < step)) step = t1 - t0;
			};
			auto last = [&](double t) {
				if (std::isfinite(t)) {
					end = std::max(end, t);
					begin = std::min(begin, t);
				}
			};
			for (unsigned int c = 0; c < a->mNumChannels && a->mChannels; c++) {
				const aiNodeAnim *na = a->mChannels[c];
				if (!na) continue;
				for (unsigned int k = 0; k < na->mNumPositionKeys && na->mPositionKeys; k++) {
					if (k) look(na->mPositionKeys[k - 1].mTime, na->mPositionKeys[k].mTime);
					last(na->mPositionKeys[k].mTime);
				}
				for (unsigned int k = 0; k < na->mNumRotationKeys && na->mRotationKeys; k++) {
					if (k) look(na->mRotationKeys[k - 1].mTime, na->mRotationKeys[k].mTime);
					last(na->mRotationKeys[k].mTime);
				}
				for (unsigned int k = 0; k < na->mNumScalingKeys && na->mScalingKeys; k++) {
					if (k) look(na->mScalingKeys[k - 1].mTime, na->mScalingKeys[k].mTime);
					last(na->mScalingKeys[k].mTime);
				}
			}
			for (unsigned int c = 0; c < a->mNumMorphMeshChannels && a->mMorphMeshChannels; c++) {
				const aiMeshMorphAnim *ma = a->mMorphMeshChannels[c];
				if (!ma || !ma->mKeys) continue;
				for (unsigned int k = 0; k < ma->mNumKeys; k++) {
					if (k) look(ma->mKeys[k - 1].mTime, ma->mKeys[k].mTime);
					last(ma->mKeys[k].mTime);
				}
			}
			double fps = opts.fps > 0 ? opts.fps : step > 0 ? tps / step : 30.0;
			if (std::fabs(fps - std::round(fps)) < 1e-3 * fps) fps = std::round(fps);
			fps = std::min(240.0, std::max(1.0, fps));
			if (!(begin <= end)) begin = end = 0; // no keys
			double frames_d = std::floor((end - begin) / tps * fps + 0.5) + 1;
			if (!(frames_d >= 1) || frames_d > static_cast<double>(max_anim_frames))
				fail(GSIO_ERR_LIMIT, std::string("animation ") + a->mName.C_Str() + " is too long to sample");
			size_t frames = static_cast<size_t>(frames_d);

			struct pending {
				int32_t node;
				gsio_channel_path path;
				float *values;
				uint32_t *frames;
			};
			std::vector<pending> chans;
			for (unsigned int c = 0; c < a->mNumChannels && a->mChannels; c++) {
				const aiNodeAnim *na = a->mChannels[c];
				if (!na) continue;
				int32_t node = node_named(na->mNodeName.C_Str());
				if (node < 0) {
					warn(std::string("animation channel for ") + na->mNodeName.C_Str() + ": no such node");
					continue;
				}
				bool fix = node == root_node && root_fix_used;
				const aiQuaternion qfix{aiMatrix3x3(root_fix)};
				if (na->mNumPositionKeys && na->mPositionKeys) {
					float *v = alloc<float>(3 * frames);
					for (size_t f = 0; f < frames; f++) {
						aiVector3D p = sample(na->mPositionKeys, na->mNumPositionKeys, begin + f / fps * tps);
						if (fix) p = root_fix * p;
						v[3 * f] = finite_or(p.x, 0);
						v[3 * f + 1] = finite_or(p.y, 0);
						v[3 * f + 2] = finite_or(p.z, 0);
					}
					chans.push_back({node, GSIO_PATH_TRANSLATION, v, nullptr});
				}
				if (na->mNumRotationKeys && na->mRotationKeys) {
					float *v = alloc<float>(4 * frames);
					for (size_t f = 0; f < frames; f++) {
						aiQuaternion q = sample(na->mRotationKeys, na->mNumRotationKeys, begin + f / fps * tps);
						if (fix) q = qfix * q;
						float r[4] = {q.x, q.y, q.z, q.w};
						bool ok = std::isfinite(r[0]) && std::isfinite(r[1]) && std::isfinite(r[2]) && std::isfinite(r[3]) &&
						          r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3] > 1e-12f;
						if (!ok) {
							r[0] = r[1] = r[2] = 0;
							r[3] = 1;
						}
						gsioi_quat_normalize(r);
						memcpy(v + 4 * f, r, sizeof(r));
					}
					chans.push_back({node, GSIO_PATH_ROTATION, v, nullptr});
				}
				if (na->mNumScalingKeys && na->mScalingKeys) {
					float *v = alloc<float>(3 * frames);
					for (size_t f = 0; f < frames; f++) {
						aiVector3D p = sample(na->mScalingKeys, na->mNumScalingKeys, begin + f / fps * tps);
						float k[3] = {p.x, p.y, p.z};
						for (float &x : k)
							if (!std::isfinite(x) || std::fabs(x) < 1e-12f) x = 1e-12f;
						memcpy(v + 3 * f, k, sizeof(k));
					}
					chans.push_back({node, GSIO_PATH_SCALE, v, nullptr});
				}
			}
			for (unsigned int c = 0; c < a->mNumMorphMeshChannels && a->mMorphMeshChannels; c++) {
				const aiMeshMorphAnim *ma = a->mMorphMeshChannels[c];
				if (!ma || !ma->mKeys || !ma->mNumKeys) continue;
				// The channel names the mesh (or, from some loaders, the node).
				bool any = false;
				for (const placed &p : placements) {
					int32_t m = s->nodes[p.node].mesh;
					if (m < 0 || s->meshes[m].frames_count < 2) continue;
					const mesh_info &info = mesh_infos[m];
					bool match = !strcmp(ma->mName.C_Str(), s->nodes[p.node].name);
					for (unsigned int g : info.group) match = match || ma->mName == ai.mMeshes[g]->mName;
					if (!match) continue;
					any = true;
					size_t nf = s->meshes[m].frames_count, shift = info.base_added ? 1 : 0;
					// One-hot keys (one frame at weight 1) become frame indices.
					bool one_hot = true;
					for (unsigned int k = 0; k < ma->mNumKeys && one_hot; k++) {
						const aiMeshMorphKey &key = ma->mKeys[k];
						int hot = 0;
						for (unsigned int i = 0; i < key.mNumValuesAndWeights && key.mWeights; i++) {
							double w = key.mWeights[i];
							if (std::fabs(w - 1.0) < 1e-6) hot++;
							else if (std::fabs(w) > 1e-6) one_hot = false;
						}
						if (hot != 1) one_hot = false;
					}
					if (one_hot) {
						uint32_t *fr = alloc<uint32_t>(frames);
						for (size_t f = 0; f < frames; f++) {
							const aiMeshMorphKey &key = ma->mKeys[key_at(ma->mKeys, ma->mNumKeys, begin + f / fps * tps + 1e-6 * tps / fps)];
							uint32_t idx = 0;
							for (unsigned int i = 0; i < key.mNumValuesAndWeights; i++)
								if (std::fabs(key.mWeights[i] - 1.0) < 1e-6 && key.mValues) idx = key.mValues[i];
							idx += static_cast<uint32_t>(shift);
							fr[f] = idx < nf ? idx : 0;
						}
						chans.push_back({p.node, GSIO_PATH_MORPH, nullptr, fr});
					} else {
						float *v = alloc<float>(frames * nf);
						for (size_t f = 0; f < frames; f++) {
							const aiMeshMorphKey &key = ma->mKeys[key_at(ma->mKeys, ma->mNumKeys, begin + f / fps * tps + 1e-6 * tps / fps)];
							for (unsigned int i = 0; i < key.mNumValuesAndWeights && key.mValues && key.mWeights; i++) {
								size_t idx = key.mValues[i] + shift;
								if (idx < nf) v[f * nf + idx] = finite_or(static_cast<float>(key.mWeights[i]), 0);
							}
							// Targets are absolute positions (Assimp adds the base), blended
							// as base + sum w (target - base): frame 0 (the base, or a first
							// target equal to it) takes the weight the others leave.
							float rest = 1.0f;
							for (size_t i = 0; i < nf; i++) rest -= v[f * nf + i];
							v[f * nf] += rest;
						}
						chans.push_back({p.node, GSIO_PATH_MORPH, v, nullptr});
					}
				}
				if (!any) warn(std::string("morph channel ") + ma->mName.C_Str() + ": no mesh with targets of that name");
			}
			if (chans.empty()) continue;
			std::string name = unique(used_anim_names, a->mName.C_Str(), "animation", ai_i);
			int32_t idx = checked(gsio_scene_add_animation(s, name.c_str(), static_cast<float>(fps), frames,
			                                               chans.size(), err));
			for (size_t k = 0; k < chans.size(); k++) {
				gsio_channel &ch = s->animations[idx].channels[k];
				ch.node = chans[k].node;
				ch.path = chans[k].path;
				ch.values = chans[k].values;
				ch.frames = chans[k].frames;
			}
		}
	}

	void build()
	{
		if (!ai.mRootNode) fail(GSIO_ERR_ARGUMENT, "the aiScene has no root node");
		materials();
		nodes();
		meshes();
		cameras_and_lights();
		animations();
		extras_from(&s->extras, ai.mMetaData);
	}
};

} // namespace
} // namespace gsioa

extern "C" gsio_scene *gsio_scene_from_aiscene(const aiScene *ai, const gsio_ai_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!ai) {
		gsioa::set_error(err, GSIO_ERR_ARGUMENT, "gsio_scene_from_aiscene: the aiScene is NULL");
		return nullptr;
	}
	gsio_ai_opts zero;
	memset(&zero, 0, sizeof(zero));
	if (!opts) opts = &zero;
	gsio_scene *s = gsio_scene_new(&opts->base, err);
	if (!s) return nullptr;
	try {
		gsioa::builder b(*ai, *opts);
		b.s = s;
		b.err = err;
		b.build();
	} catch (const gsioa::gsio_failure &f) {
		*err = f.err;
		gsio_scene_free(s);
		return nullptr;
	} catch (const std::bad_alloc &) {
		gsioa::set_error(err, GSIO_ERR_NOMEM, "out of memory while converting the aiScene");
		gsio_scene_free(s);
		return nullptr;
	}
	if (gsio_scene_validate(s, err)) {
		gsio_scene_free(s);
		return nullptr;
	}
	return s;
}
