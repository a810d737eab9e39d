/* gsio scene -> aiScene (the mapping is documented in gsio_assimp.h).
 *
 * Ownership: every object is attached to its parent (scene, mesh, node,
 * animation) as soon as it is allocated, and every array's count is set
 * together with the array (entries nullptr until filled), so when a step
 * throws, the aiScene destructor frees exactly what was built. Allocation
 * failures arrive as std::bad_alloc and are turned into a gsio_error. */
#include "gsio_assimp_internal.hpp"
#include "gsioi_png.h"
#include "gsioi_math.h"

#include <assimp/GltfMaterial.h>
#include <assimp/commonMetaData.h>
#include <assimp/material.h>
#include <assimp/metadata.h>
#include <assimp/scene.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace gsioa {

// -- Small conversions

aiMatrix4x4 mat_from_colmajor(const float m[16])
{
	return aiMatrix4x4(m[0], m[4], m[8], m[12], m[1], m[5], m[9], m[13], m[2], m[6], m[10], m[14],
	                   m[3], m[7], m[11], m[15]);
}

void mat_to_colmajor(const aiMatrix4x4 &a, float m[16])
{
	const float r[16] = {a.a1, a.b1, a.c1, a.d1, a.a2, a.b2, a.c2, a.d2,
	                     a.a3, a.b3, a.c3, a.d3, a.a4, a.b4, a.c4, a.d4};
	memcpy(m, r, sizeof(r));
}

aiMatrix4x4 z_up_to_y_up()
{
	// (x, y, z) -> (x, z, -y): Assimp's MDL, HMP and MD5 loaders use it too.
	return aiMatrix4x4(1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1);
}

// The capacity of an aiString, from the struct itself: Assimp 5.2 names it
// MAXLEN (a macro), 5.4 AI_MAXLEN (a constant in C++, a macro in C).
static const size_t ai_string_capacity = sizeof(aiString::data);

static void set_string(aiString &dst, const char *s)
{
	// aiString holds at most its capacity - 1 bytes; longer names are cut.
	std::string v = s ? s : "";
	if (v.size() >= ai_string_capacity) v.resize(ai_string_capacity - 1);
	dst.Set(v);
}

static unsigned int to_uint(size_t n, const char *what)
{
	if (n > UINT_MAX) throw std::length_error(std::string(what) + " does not fit Assimp's 32-bit count");
	return static_cast<unsigned int>(n);
}

// -- Metadata from extras

static void set_meta(aiMetadata *md, unsigned int i, const gsio_extra &x)
{
	const std::string key = x.key ? x.key : "";
	switch (x.type) {
	case GSIO_EXTRA_INT:
		if (x.i >= INT32_MIN && x.i <= INT32_MAX) md->Set(i, key, static_cast<int32_t>(x.i));
		else md->Set(i, key, static_cast<double>(x.i));
		break;
	case GSIO_EXTRA_FLOAT: md->Set(i, key, x.f); break;
	case GSIO_EXTRA_STRING: {
		aiString s;
		set_string(s, x.s);
		md->Set(i, key, s);
		break;
	}
	case GSIO_EXTRA_FLOATS:
		if (x.floats_count == 3) {
			md->Set(i, key, aiVector3D(x.floats[0], x.floats[1], x.floats[2]));
		} else {
			aiMetadata list;
			list.mNumProperties = to_uint(x.floats_count, "an extra's float list");
			list.mKeys = new aiString[list.mNumProperties];
			list.mValues = new aiMetadataEntry[list.mNumProperties];
			for (unsigned int k = 0; k < list.mNumProperties; k++)
				list.Set(k, std::to_string(k), x.floats[k]);
			md->Set(i, key, list);
		}
		break;
	}
}

/** Extras plus optional fixed string entries as a new aiMetadata, or nullptr
 *  when there is nothing to say. */
static aiMetadata *metadata_from(const gsio_extras &x,
                                 const std::vector<std::pair<std::string, std::string>> &more = {})
{
	size_t n = x.count + more.size();
	if (!n) return nullptr;
	aiMetadata *md = aiMetadata::Alloc(to_uint(n, "extras"));
	unsigned int i = 0;
	try {
		for (const auto &kv : more) {
			aiString s;
			set_string(s, kv.second.c_str());
			md->Set(i++, kv.first, s);
		}
		for (size_t k = 0; k < x.count; k++) set_meta(md, i++, x.items[k]);
	} catch (...) {
		delete md;
		throw;
	}
	return md;
}

// -- Materials and textures

static aiTextureMapMode map_mode(gsio_wrap w)
{
	switch (w) {
	case GSIO_WRAP_CLAMP: return aiTextureMapMode_Clamp;
	case GSIO_WRAP_MIRROR: return aiTextureMapMode_Mirror;
	default: return aiTextureMapMode_Wrap;
	}
}

static void add_texture(aiMaterial *mat, const gsio_texture &t, aiTextureType type, unsigned int slot,
                        const std::vector<std::string> &image_paths)
{
	if (t.image < 0 || static_cast<size_t>(t.image) >= image_paths.size()) return;
	const std::string &path = image_paths[t.image];
	if (path.empty()) return;
	aiString p;
	set_string(p, path.c_str());
	mat->AddProperty(&p, AI_MATKEY_TEXTURE(type, slot));
	int mu = map_mode(t.wrap_u), mv = map_mode(t.wrap_v);
	mat->AddProperty(&mu, 1, AI_MATKEY_MAPPINGMODE_U(type, slot));
	mat->AddProperty(&mv, 1, AI_MATKEY_MAPPINGMODE_V(type, slot));
	if (t.tiling != 0.0f && t.tiling != 1.0f) {
		aiUVTransform uv;
		uv.mScaling = aiVector2D(t.tiling, t.tiling);
		mat->AddProperty(&uv, 1, AI_MATKEY_UVTRANSFORM(type, slot));
	}
}

static void add_extras_as_properties(aiMaterial *mat, const gsio_extras &x)
{
	for (size_t k = 0; k < x.count; k++) {
		const gsio_extra &e = x.items[k];
		std::string key = std::string("$extra.") + (e.key ? e.key : "");
		switch (e.type) {
		case GSIO_EXTRA_INT: {
			int v = static_cast<int>(e.i);
			if (e.i >= INT_MIN && e.i <= INT_MAX) mat->AddProperty(&v, 1, key.c_str(), 0, 0);
			else {
				double d = static_cast<double>(e.i);
				mat->AddProperty(&d, 1, key.c_str(), 0, 0);
			}
			break;
		}
		case GSIO_EXTRA_FLOAT: mat->AddProperty(&e.f, 1, key.c_str(), 0, 0); break;
		case GSIO_EXTRA_STRING: {
			aiString s;
			set_string(s, e.s);
			mat->AddProperty(&s, key.c_str(), 0, 0);
			break;
		}
		case GSIO_EXTRA_FLOATS:
			if (e.floats_count)
				mat->AddProperty(e.floats, to_uint(e.floats_count, "floats"), key.c_str(), 0, 0);
			break;
		}
	}
}

static aiMaterial *make_material(const gsio_material &m, const std::vector<std::string> &image_paths)
{
	aiMaterial *mat = new aiMaterial();
	try {
		aiString name;
		set_string(name, m.name);
		mat->AddProperty(&name, AI_MATKEY_NAME);
		aiColor4D base(m.base_color[0], m.base_color[1], m.base_color[2], m.base_color[3]);
		mat->AddProperty(&base, 1, AI_MATKEY_COLOR_DIFFUSE);
		mat->AddProperty(&base, 1, AI_MATKEY_BASE_COLOR);
		float opacity = m.base_color[3];
		mat->AddProperty(&opacity, 1, AI_MATKEY_OPACITY);
		aiColor3D emissive(m.emissive[0], m.emissive[1], m.emissive[2]);
		mat->AddProperty(&emissive, 1, AI_MATKEY_COLOR_EMISSIVE);
		float metallic = 0.0f, roughness = 1.0f;
		mat->AddProperty(&metallic, 1, AI_MATKEY_METALLIC_FACTOR);
		mat->AddProperty(&roughness, 1, AI_MATKEY_ROUGHNESS_FACTOR);
		int two_sided = m.double_sided ? 1 : 0;
		mat->AddProperty(&two_sided, 1, AI_MATKEY_TWOSIDED);
		int shading = m.unlit ? aiShadingMode_Unlit : aiShadingMode_Gouraud;
		mat->AddProperty(&shading, 1, AI_MATKEY_SHADING_MODEL);
		aiString alpha;
		alpha.Set(m.alpha_mode == GSIO_ALPHA_MASK    ? "MASK"
		          : m.alpha_mode == GSIO_ALPHA_BLEND ? "BLEND"
		                                             : "OPAQUE");
		mat->AddProperty(&alpha, AI_MATKEY_GLTF_ALPHAMODE);
		if (m.alpha_mode == GSIO_ALPHA_MASK) mat->AddProperty(&m.alpha_cutoff, 1, AI_MATKEY_GLTF_ALPHACUTOFF);
		// The colour skin: DIFFUSE for classic consumers, BASE_COLOR for PBR ones.
		add_texture(mat, m.base_color_texture, aiTextureType_DIFFUSE, 0, image_paths);
		add_texture(mat, m.base_color_texture, aiTextureType_BASE_COLOR, 0, image_paths);
		// The terrain detail map: the second diffuse layer, tiled.
		add_texture(mat, m.detail_texture, aiTextureType_DIFFUSE, 1, image_paths);
		if (m.lightmap_texture.image >= 0) { // a compiled level's: on the second uv channel
			add_texture(mat, m.lightmap_texture, aiTextureType_LIGHTMAP, 0, image_paths);
			int channel = 1;
			mat->AddProperty(&channel, 1, AI_MATKEY_UVWSRC(aiTextureType_LIGHTMAP, 0));
		}
		if (m.shader) {
			aiString sh;
			set_string(sh, m.shader);
			mat->AddProperty(&sh, "$mat.gsio.shader", 0, 0);
		}
		add_extras_as_properties(mat, m.extras);
	} catch (...) {
		delete mat;
		throw;
	}
	return mat;
}

// An image Assimp can embed: pixels (encoded as PNG here), or an undecoded
// PNG, JPEG, DDS, TGA or BMP file (GSIO_OPT_NO_PIXELS), stored as it is.
static bool embeddable(const gsio_image &img)
{
	return img.width && img.height && (img.rgba || (img.file_data && img.file_size));
}

static aiTexture *make_texture(const gsio_image &img)
{
	uint8_t *png = nullptr;
	size_t png_size = 0;
	const char *hint = "png";
	if (img.rgba) {
		gsio_error err;
		if (gsioi_png_encode(img.rgba, img.width, img.height, &png, &png_size, &err))
			throw gsio_failure(err);
	} else {
		png = static_cast<uint8_t *>(malloc(img.file_size ? img.file_size : 1));
		if (!png) throw std::bad_alloc();
		memcpy(png, img.file_data, img.file_size);
		png_size = img.file_size;
		// The file's kind (Assimp's format hint is the extension): PNG,
		// JPEG, an embedded DDS skin, or an uncompressed TGA or BMP (the
		// undecoded forms of GSIO_OPT_NO_PIXELS).
		switch (gsioi_kept_file_kind(png, png_size, nullptr, nullptr)) {
		case GSIOI_KEPT_JPEG: hint = "jpg"; break;
		case GSIOI_KEPT_DDS: hint = "dds"; break;
		case GSIOI_KEPT_TGA: hint = "tga"; break;
		case GSIOI_KEPT_BMP: hint = "bmp"; break;
		case GSIOI_KEPT_PNG: hint = "png"; break;
		case GSIOI_KEPT_OTHER: hint = ""; break;
		}
	}
	aiTexture *t = new (std::nothrow) aiTexture();
	if (!t || png_size > UINT_MAX) {
		delete t;
		free(png);
		throw std::length_error("cannot embed an image of this size");
	}
	// Compressed texture: mWidth = byte size, mHeight = 0, pcData the bytes
	// (aiTexel-sized chunks because the destructor deletes an aiTexel[]).
	t->pcData = new (std::nothrow) aiTexel[(png_size + 3) / 4];
	if (!t->pcData) {
		delete t;
		free(png);
		throw std::bad_alloc();
	}
	memcpy(t->pcData, png, png_size);
	free(png);
	t->mWidth = static_cast<unsigned int>(png_size);
	t->mHeight = 0;
	strncpy(t->achFormatHint, hint, sizeof(t->achFormatHint) - 1);
	set_string(t->mFilename, img.name);
	return t;
}

// -- Meshes

/** Which gsio vertices one part uses, in order of first use (or all). */
struct part_vertices {
	std::vector<uint32_t> src;   // aiMesh vertex -> gsio vertex
	std::vector<int64_t> local;  // gsio vertex -> aiMesh vertex, -1 unused (empty: identity)
};

static part_vertices collect_part(const gsio_mesh &m, const gsio_mesh_part &p)
{
	part_vertices pv;
	if (m.parts_count == 1) {
		pv.src.resize(m.vertex_count);
		for (size_t v = 0; v < m.vertex_count; v++) pv.src[v] = static_cast<uint32_t>(v);
		return pv;
	}
	pv.local.assign(m.vertex_count, -1);
	for (size_t k = 0; k < p.index_count; k++) {
		uint32_t v = m.indices[p.first_index + k];
		if (pv.local[v] < 0) {
			pv.local[v] = static_cast<int64_t>(pv.src.size());
			pv.src.push_back(v);
		}
	}
	return pv;
}

static aiVector3D *copy_vec3(const float *xyz, const std::vector<uint32_t> &src)
{
	aiVector3D *out = new aiVector3D[src.size()];
	for (size_t i = 0; i < src.size(); i++) {
		const float *p = xyz + 3 * static_cast<size_t>(src[i]);
		out[i] = aiVector3D(p[0], p[1], p[2]);
	}
	return out;
}

/** A terrain kept as its grid (GSIO_OPT_GRID) as a mesh with arrays, read
 *  through the public accessors; the arrays live as long as this. */
struct grid_arrays {
	std::vector<float> positions, normals, uvs;
	std::vector<uint32_t> indices;
	gsio_mesh mesh{};

	const gsio_mesh &of(const gsio_mesh &m)
	{
		mesh = m;
		positions.resize(m.vertex_count * 3);
		normals.resize(m.vertex_count * 3);
		uvs.resize(m.vertex_count * 2);
		indices.resize(m.index_count);
		int got = gsio_mesh_grid_get(&m, 0, m.vertex_count, positions.data(), normals.data(), uvs.data());
		if (got < 0 || gsio_mesh_grid_indices(&m, 0, m.index_count / 3, indices.data()))
			throw std::runtime_error("a terrain grid cannot be read");
		mesh.positions = positions.data();
		mesh.normals = got == 1 ? normals.data() : nullptr;
		mesh.uvs = uvs.data();
		mesh.indices = indices.data();
		mesh.grid = nullptr;
		return mesh;
	}
};

/** Fills one aiMesh (already attached to the scene) from one part. */
static void fill_mesh(aiMesh *am, const gsio_scene &s, const gsio_mesh &m, const gsio_mesh_part &p,
                      unsigned int material, const std::vector<std::string> &node_names)
{
	part_vertices pv = collect_part(m, p);
	const std::vector<uint32_t> &src = pv.src;
	auto local = [&](uint32_t v) -> unsigned int {
		return pv.local.empty() ? v : static_cast<unsigned int>(pv.local[v]);
	};
	set_string(am->mName, m.name);
	am->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
	am->mMaterialIndex = material;
	am->mVertices = copy_vec3(m.positions, src);
	am->mNumVertices = to_uint(src.size(), "a mesh's vertex count");
	if (m.normals) am->mNormals = copy_vec3(m.normals, src);
	if (m.uvs) {
		am->mTextureCoords[0] = new aiVector3D[src.size()];
		am->mNumUVComponents[0] = 2;
		for (size_t i = 0; i < src.size(); i++) {
			const float *uv = m.uvs + 2 * static_cast<size_t>(src[i]);
			am->mTextureCoords[0][i] = aiVector3D(uv[0], 1.0f - uv[1], 0.0f); // bottom-left origin
		}
	}
	if (m.lightmap_uvs) { // a lightmap's
		am->mTextureCoords[1] = new aiVector3D[src.size()];
		am->mNumUVComponents[1] = 2;
		for (size_t i = 0; i < src.size(); i++) {
			const float *uv = m.lightmap_uvs + 2 * static_cast<size_t>(src[i]);
			am->mTextureCoords[1][i] = aiVector3D(uv[0], 1.0f - uv[1], 0.0f);
		}
	}
	size_t tri = p.index_count / 3;
	am->mFaces = new aiFace[tri];
	am->mNumFaces = to_uint(tri, "a mesh's triangle count");
	for (size_t t = 0; t < tri; t++) {
		aiFace &f = am->mFaces[t];
		f.mIndices = new unsigned int[3];
		f.mNumIndices = 3;
		for (int k = 0; k < 3; k++) f.mIndices[k] = local(m.indices[p.first_index + 3 * t + k]);
	}

	// Every frame as an aiAnimMesh (absolute positions; frame 0 is the base).
	if (m.frames_count >= 2) {
		am->mAnimMeshes = new aiAnimMesh *[m.frames_count]();
		am->mNumAnimMeshes = to_uint(m.frames_count, "a mesh's frame count");
		am->mMethod = aiMorphingMethod_MORPH_RELATIVE;
		// One frame at a time through the accessor (packed frames included).
		std::vector<float> fp(m.vertex_count * 3), fn(m.vertex_count * 3);
		for (size_t f = 0; f < m.frames_count; f++) {
			const gsio_morph_frame &fr = m.frames[f];
			aiAnimMesh *a = new aiAnimMesh();
			am->mAnimMeshes[f] = a;
			set_string(a->mName, fr.name);
			int got = gsio_mesh_frame_get(&m, f, fp.data(), fn.data());
			if (got < 0) throw std::runtime_error("a mesh frame cannot be read");
			a->mVertices = copy_vec3(fp.data(), src);
			a->mNumVertices = am->mNumVertices;
			const float *n = got == 1 ? fn.data() : m.normals;
			if (n) a->mNormals = copy_vec3(n, src);
			a->mWeight = 0.0f;
		}
	}

	// Bones: the skin's joints (the offset matrix is the inverse bind).
	if (m.skin >= 0 && static_cast<size_t>(m.skin) < s.skins_count) {
		const gsio_skin &sk = s.skins[m.skin];
		std::vector<std::vector<aiVertexWeight>> per_joint(sk.joints_count);
		if (m.weights.count) {
			for (size_t i = 0; i < src.size(); i++) {
				uint32_t v = src[i];
				for (uint32_t w = m.weights.offsets[v]; w < m.weights.offsets[v + 1]; w++) {
					float value = m.weights.values[w];
					if (value > 0.0f)
						per_joint[m.weights.joints[w]].emplace_back(static_cast<unsigned int>(i), value);
				}
			}
		}
		// Every joint is a bone, so the skin survives whole (an exporter
		// rebuilds it from the bones). A joint without weights here gets an
		// empty but non-null weight array: Assimp's JoinIdenticalVertices
		// logs an error for a null one, and ValidateDS accepts zero weights.
		if (sk.joints_count) {
			am->mBones = new aiBone *[sk.joints_count]();
			am->mNumBones = to_uint(sk.joints_count, "a skin's joint count");
			for (size_t j = 0; j < sk.joints_count; j++) {
				aiBone *b = new aiBone();
				am->mBones[j] = b;
				set_string(b->mName, node_names[sk.joints[j]].c_str());
				b->mOffsetMatrix = mat_from_colmajor(sk.inverse_bind + 16 * j);
				b->mWeights = new aiVertexWeight[per_joint[j].size()];
				b->mNumWeights = to_uint(per_joint[j].size(), "a bone's weight count");
				std::copy(per_joint[j].begin(), per_joint[j].end(), b->mWeights);
			}
		}
	}
}

// -- Animations

static aiNodeAnim *make_node_anim(const gsio_animation &a, const gsio_node &node,
                                  const std::string &name, const gsio_channel *ch[3])
{
	aiNodeAnim *na = new aiNodeAnim();
	try {
		set_string(na->mNodeName, name.c_str());
		size_t n = a.frames_count;
		// Translation
		{
			size_t k = ch[0] ? n : 1;
			na->mPositionKeys = new aiVectorKey[k];
			na->mNumPositionKeys = to_uint(k, "keys");
			for (size_t i = 0; i < k; i++) {
				const float *v = ch[0] ? ch[0]->values + 3 * i : node.translation;
				na->mPositionKeys[i] = aiVectorKey(static_cast<double>(i), aiVector3D(v[0], v[1], v[2]));
			}
		}
		// Rotation (gsio x,y,z,w; aiQuaternion takes w first)
		{
			size_t k = ch[1] ? n : 1;
			na->mRotationKeys = new aiQuatKey[k];
			na->mNumRotationKeys = to_uint(k, "keys");
			for (size_t i = 0; i < k; i++) {
				const float *q = ch[1] ? ch[1]->values + 4 * i : node.rotation;
				na->mRotationKeys[i] = aiQuatKey(static_cast<double>(i), aiQuaternion(q[3], q[0], q[1], q[2]));
			}
		}
		// Scale
		{
			size_t k = ch[2] ? n : 1;
			na->mScalingKeys = new aiVectorKey[k];
			na->mNumScalingKeys = to_uint(k, "keys");
			for (size_t i = 0; i < k; i++) {
				const float *v = ch[2] ? ch[2]->values + 3 * i : node.scale;
				na->mScalingKeys[i] = aiVectorKey(static_cast<double>(i), aiVector3D(v[0], v[1], v[2]));
			}
		}
	} catch (...) {
		delete na;
		throw;
	}
	return na;
}

// The channel names the node that places the mesh, as Assimp's glTF 2
// importer does: Qt 3D's Assimp plugin looks that node up and uses it
// unchecked (a mesh name crashed it), and Assimp's glTF 2 exporter finds it.
static aiMeshMorphAnim *make_morph_anim(const gsio_animation &a, const gsio_mesh &m, const gsio_channel &c,
                                        const std::string &node_name)
{
	aiMeshMorphAnim *ma = new aiMeshMorphAnim();
	try {
		set_string(ma->mName, node_name.c_str());
		size_t n = a.frames_count;
		ma->mKeys = new aiMeshMorphKey[n];
		ma->mNumKeys = to_uint(n, "keys");
		for (size_t k = 0; k < n; k++) {
			aiMeshMorphKey &key = ma->mKeys[k];
			key.mTime = static_cast<double>(k);
			std::vector<std::pair<unsigned int, double>> vw;
			if (c.frames) {
				vw.emplace_back(c.frames[k], 1.0);
			} else if (c.values) {
				for (size_t f = 0; f < m.frames_count; f++) {
					float w = c.values[k * m.frames_count + f];
					if (w != 0.0f) vw.emplace_back(static_cast<unsigned int>(f), w);
				}
			}
			if (vw.empty()) continue;
			key.mValues = new unsigned int[vw.size()];
			try {
				key.mWeights = new double[vw.size()];
			} catch (...) {
				delete[] key.mValues;
				key.mValues = nullptr;
				throw;
			}
			key.mNumValuesAndWeights = to_uint(vw.size(), "morph values");
			for (size_t i = 0; i < vw.size(); i++) {
				key.mValues[i] = vw[i].first;
				key.mWeights[i] = vw[i].second;
			}
		}
	} catch (...) {
		delete ma;
		throw;
	}
	return ma;
}

// -- The scene

static std::vector<std::string> unique_node_names(const gsio_scene &s)
{
	std::vector<std::string> names(s.nodes_count);
	std::unordered_map<std::string, int> used;
	used["gsio:root"] = 1;
	for (size_t i = 0; i < s.nodes_count; i++) {
		std::string base = s.nodes[i].name && *s.nodes[i].name ? s.nodes[i].name : "node" + std::to_string(i);
		if (base.size() > ai_string_capacity - 16) base.resize(ai_string_capacity - 16);
		std::string name = base;
		for (int k = 2; used.count(name); k++) name = base + "#" + std::to_string(k);
		used[name] = 1;
		names[i] = name;
	}
	return names;
}

static void convert(const gsio_scene &s, aiScene *out)
{
	std::vector<std::string> node_names = unique_node_names(s);

	// Images: embedded PNGs referenced as "*N", or the external file's uri.
	std::vector<std::string> image_paths(s.images_count);
	size_t embedded = 0;
	for (size_t i = 0; i < s.images_count; i++)
		if (embeddable(s.images[i])) embedded++;
	if (embedded) {
		out->mTextures = new aiTexture *[embedded]();
		out->mNumTextures = to_uint(embedded, "images");
		size_t k = 0;
		for (size_t i = 0; i < s.images_count; i++) {
			const gsio_image &img = s.images[i];
			if (embeddable(img)) {
				out->mTextures[k] = make_texture(img);
				image_paths[i] = "*" + std::to_string(k);
				k++;
			} else if (img.uri) {
				image_paths[i] = img.uri;
			}
		}
	} else {
		for (size_t i = 0; i < s.images_count; i++)
			if (s.images[i].uri) image_paths[i] = s.images[i].uri;
	}

	// Materials, plus a default one when a part has none (Assimp needs one).
	bool need_default = s.materials_count == 0;
	for (size_t m = 0; m < s.meshes_count; m++)
		for (size_t p = 0; p < s.meshes[m].parts_count; p++)
			if (s.meshes[m].parts[p].material < 0) need_default = true;
	size_t nmat = s.materials_count + (need_default ? 1 : 0);
	out->mMaterials = new aiMaterial *[nmat]();
	out->mNumMaterials = to_uint(nmat, "materials");
	for (size_t i = 0; i < s.materials_count; i++)
		out->mMaterials[i] = make_material(s.materials[i], image_paths);
	unsigned int default_material = static_cast<unsigned int>(s.materials_count);
	if (need_default) {
		aiMaterial *mat = new aiMaterial();
		out->mMaterials[default_material] = mat;
		aiString name("gsio:default");
		mat->AddProperty(&name, AI_MATKEY_NAME);
		aiColor4D white(1, 1, 1, 1);
		mat->AddProperty(&white, 1, AI_MATKEY_COLOR_DIFFUSE);
	}

	// Meshes: one aiMesh per part.
	std::vector<std::vector<unsigned int>> mesh_ai(s.meshes_count);
	size_t nparts = 0;
	for (size_t m = 0; m < s.meshes_count; m++) nparts += s.meshes[m].parts_count;
	if (nparts) {
		out->mMeshes = new aiMesh *[nparts]();
		out->mNumMeshes = to_uint(nparts, "mesh parts");
		unsigned int k = 0;
		for (size_t m = 0; m < s.meshes_count; m++) {
			grid_arrays expanded;
			const gsio_mesh &mesh = s.meshes[m].grid ? expanded.of(s.meshes[m]) : s.meshes[m];
			for (size_t p = 0; p < mesh.parts_count; p++) {
				aiMesh *am = new aiMesh();
				out->mMeshes[k] = am;
				const gsio_mesh_part &part = mesh.parts[p];
				unsigned int mat = part.material >= 0 ? static_cast<unsigned int>(part.material) : default_material;
				fill_mesh(am, s, mesh, part, mat, node_names);
				mesh_ai[m].push_back(k++);
			}
		}
	}

	// Nodes: a root carrying the axis change, then the gsio tree below it.
	aiNode *root = new aiNode("gsio:root");
	out->mRootNode = root;
	root->mTransformation = z_up_to_y_up();
	std::vector<aiNode *> nodes(s.nodes_count, nullptr);
	// children[i]: the nodes whose parent is node i (last: the root's). A
	// node sits in one list until its parent adopts the list, so on a throw
	// every node is owned either by its parent or by a list.
	std::vector<std::vector<aiNode *>> children(s.nodes_count + 1);
	try {
		for (size_t i = 0; i < s.nodes_count; i++) {
			const gsio_node &n = s.nodes[i];
			auto &list = children[n.parent >= 0 ? static_cast<size_t>(n.parent) : s.nodes_count];
			list.reserve(list.size() + 1);
			aiNode *an = new aiNode(node_names[i]);
			list.push_back(an);
			nodes[i] = an;
			float m[16];
			gsioi_mat4_from_trs(n.translation, n.rotation, n.scale, m);
			an->mTransformation = mat_from_colmajor(m);
			if (n.mesh >= 0 && !mesh_ai[n.mesh].empty()) {
				const auto &ml = mesh_ai[n.mesh];
				an->mMeshes = new unsigned int[ml.size()];
				an->mNumMeshes = to_uint(ml.size(), "meshes");
				std::copy(ml.begin(), ml.end(), an->mMeshes);
			}
			an->mMetaData = metadata_from(n.extras);
		}
		// Parents come before children, so linking in index order builds
		// the tree bottom-up without cycles; addChildren takes ownership.
		for (size_t i = 0; i <= s.nodes_count; i++) {
			auto &c = children[i];
			if (c.empty()) continue;
			aiNode *parent = i < s.nodes_count ? nodes[i] : root;
			parent->addChildren(to_uint(c.size(), "children"), c.data());
			c.clear();
		}
	} catch (...) {
		for (auto &c : children)
			for (aiNode *n : c) delete n;
		throw;
	}

	// Cameras and lights: one per node placing one, named like the node.
	size_t ncam = 0, nlight = 0;
	for (size_t i = 0; i < s.nodes_count; i++) {
		if (s.nodes[i].camera >= 0) ncam++;
		if (s.nodes[i].light >= 0) nlight++;
	}
	if (ncam) {
		out->mCameras = new aiCamera *[ncam]();
		out->mNumCameras = to_uint(ncam, "cameras");
	}
	if (nlight) {
		out->mLights = new aiLight *[nlight]();
		out->mNumLights = to_uint(nlight, "lights");
	}
	size_t ci = 0, li = 0;
	for (size_t i = 0; i < s.nodes_count; i++) {
		const gsio_node &n = s.nodes[i];
		if (n.camera >= 0) {
			const gsio_camera &c = s.cameras[n.camera];
			aiCamera *ac = new aiCamera();
			out->mCameras[ci++] = ac;
			set_string(ac->mName, node_names[i].c_str());
			ac->mPosition = aiVector3D(0, 0, 0);
			ac->mLookAt = aiVector3D(1, 0, 0);
			ac->mUp = aiVector3D(0, 0, 1);
			ac->mHorizontalFOV = static_cast<float>(c.fov * M_PI / 360.0); // half angle, radians
			ac->mAspect = c.aspect > 0 ? c.aspect : 4.0f / 3.0f;
			if (c.znear > 0) ac->mClipPlaneNear = c.znear;
			if (c.zfar > 0) ac->mClipPlaneFar = c.zfar;
		}
		if (n.light >= 0) {
			const gsio_light &l = s.lights[n.light];
			aiLight *al = new aiLight();
			out->mLights[li++] = al;
			set_string(al->mName, node_names[i].c_str());
			al->mType = l.type == GSIO_LIGHT_SPOT          ? aiLightSource_SPOT
			            : l.type == GSIO_LIGHT_DIRECTIONAL ? aiLightSource_DIRECTIONAL
			                                               : aiLightSource_POINT;
			al->mPosition = aiVector3D(0, 0, 0);
			al->mDirection = aiVector3D(1, 0, 0);
			al->mUp = aiVector3D(0, 0, 1);
			float k = l.intensity > 0 ? l.intensity : 1.0f;
			al->mColorDiffuse = aiColor3D(l.color[0] * k, l.color[1] * k, l.color[2] * k);
			al->mColorSpecular = al->mColorDiffuse;
			al->mAttenuationConstant = 0.0f;
			al->mAttenuationLinear = 0.0f;
			al->mAttenuationQuadratic = l.type == GSIO_LIGHT_DIRECTIONAL ? 0.0f : 1.0f; // inverse square
			if (l.type == GSIO_LIGHT_SPOT) {
				al->mAngleInnerCone = 2.0f * l.inner_cone; // Assimp: full angles
				al->mAngleOuterCone = 2.0f * l.outer_cone;
			}
		}
	}

	// Animations.
	std::vector<aiAnimation *> anims;
	try {
		for (size_t ai = 0; ai < s.animations_count; ai++) {
			const gsio_animation &a = s.animations[ai];
			std::map<int32_t, const gsio_channel *[3]> node_ch;
			std::vector<const gsio_channel *> morph;
			for (size_t c = 0; c < a.channels_count; c++) {
				const gsio_channel &ch = a.channels[c];
				if (ch.node < 0 || static_cast<size_t>(ch.node) >= s.nodes_count) continue;
				if (ch.path <= GSIO_PATH_SCALE) {
					auto it = node_ch.find(ch.node);
					if (it == node_ch.end()) {
						it = node_ch.emplace(std::piecewise_construct, std::forward_as_tuple(ch.node),
						                     std::forward_as_tuple())
						         .first;
						it->second[0] = it->second[1] = it->second[2] = nullptr;
					}
					it->second[ch.path] = &ch;
				} else if (ch.path == GSIO_PATH_MORPH && s.nodes[ch.node].mesh >= 0) {
					morph.push_back(&ch);
				}
			}
			if (node_ch.empty() && morph.empty()) continue; // FOV only: nothing Assimp can hold
			aiAnimation *an = new aiAnimation();
			anims.push_back(an);
			set_string(an->mName, a.name);
			an->mTicksPerSecond = a.fps;
			an->mDuration = a.frames_count > 1 ? static_cast<double>(a.frames_count - 1) : 0.0;
			if (!node_ch.empty()) {
				an->mChannels = new aiNodeAnim *[node_ch.size()]();
				an->mNumChannels = to_uint(node_ch.size(), "channels");
				unsigned int k = 0;
				for (auto &kv : node_ch)
					an->mChannels[k++] = make_node_anim(a, s.nodes[kv.first], node_names[kv.first], kv.second);
			}
			if (!morph.empty()) {
				an->mMorphMeshChannels = new aiMeshMorphAnim *[morph.size()]();
				an->mNumMorphMeshChannels = to_uint(morph.size(), "channels");
				for (size_t k = 0; k < morph.size(); k++)
					an->mMorphMeshChannels[k] = make_morph_anim(a, s.meshes[s.nodes[morph[k]->node].mesh], *morph[k],
					                                            node_names[morph[k]->node]);
			}
		}
		if (!anims.empty()) {
			out->mAnimations = new aiAnimation *[anims.size()];
			out->mNumAnimations = to_uint(anims.size(), "animations");
			std::copy(anims.begin(), anims.end(), out->mAnimations);
			anims.clear();
		}
	} catch (...) {
		for (aiAnimation *a : anims) delete a;
		throw;
	}

	// Scene facts.
	std::vector<std::pair<std::string, std::string>> facts;
	if (s.format) facts.emplace_back(AI_METADATA_SOURCE_FORMAT, s.format);
	if (s.format_version) facts.emplace_back(AI_METADATA_SOURCE_FORMAT_VERSION, std::to_string(s.format_version));
	facts.emplace_back(AI_METADATA_SOURCE_GENERATOR, "gsio " GSIO_VERSION_STRING);
	if (s.warnings_count) {
		std::string w;
		for (size_t i = 0; i < s.warnings_count; i++) {
			if (i) w += "\n";
			w += s.warnings[i];
		}
		facts.emplace_back("gsio:warnings", w);
	}
	out->mMetaData = metadata_from(s.extras, facts);
	// An animation-only file (.md5anim, .md5camera) has no mesh: say so, or
	// Assimp's validation refuses the scene (its MD5 loader does the same).
	if (!out->mNumMeshes) out->mFlags |= AI_SCENE_FLAGS_INCOMPLETE;
}

} // namespace gsioa

extern "C" int gsio_scene_to_aiscene(const gsio_scene *scene, aiScene *out, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!scene || !out) {
		gsioa::set_error(err, GSIO_ERR_ARGUMENT, "gsio_scene_to_aiscene: scene and out are required");
		return -1;
	}
	if (gsio_scene_validate(scene, err)) return -1;
	try {
		gsioa::convert(*scene, out);
	} catch (const gsioa::gsio_failure &f) {
		*err = f.err;
		return -1;
	} catch (const std::bad_alloc &) {
		gsioa::set_error(err, GSIO_ERR_NOMEM, "out of memory while building the aiScene");
		return -1;
	} catch (const std::exception &e) {
		gsioa::set_error(err, GSIO_ERR_LIMIT, e.what());
		return -1;
	}
	return 0;
}
