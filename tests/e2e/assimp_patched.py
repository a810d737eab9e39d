#!/usr/bin/env python3
"""Checks of the patched Assimp (assimp_patch/build-assimp.sh) on corpus files.

usage: assimp_patched.py CHECK PREFIX GSIO_TOOL CORPUS_DIR E2E_DIR OUT_DIR

CHECK is one of:
- info: `assimp info` on corpus MDL, HMP and MD5 files reports the counts
  `gsio info --json` gives for the same files (faces, meshes' vertices,
  embedded textures, animations), loaded by gsio's importer (the log names
  it), and Assimp's ValidateDataStructure step accepts each scene.
- export_gate, export_golem, export_shadow, export_bob: `assimp export X
  out.glb`; the Khronos validator (gltf_validate.js) reports 0 errors; the
  GLB holds what gsio reads: one morph target per frame and a `weights`
  channel per animation for vertex-animated models, the skin's joints and
  the animation for Bob, the texture, the vertex count.
- obj: `assimp export minigun_mdl5.mdl m.obj` writes an OBJ with gsio's
  vertex and face counts and its material file.
Exit 0 on success, 1 on a failure, 77 (skipped) without the corpus, the
patched build (see assimp_patched_build), node or the validator.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

from e2e_common import skip, fail  # noqa: E402

MODELS = {
    "export_gate": "mdl/gate-101.mdl",
    "export_golem": "mdl/mdl4-golem.mdl",
    "export_shadow": "hmp/shadow-5.hmp",
    "export_bob": "md5/bob/Bob.md5mesh",
}
INFO_FILES = ["mdl/gate-101.mdl", "mdl/mdl4-golem.mdl", "mdl/minigun_mdl5.mdl",
              "mdl/minigun_mdl3.mdl", "hmp/shadow-5.hmp", "md5/bob/Bob.md5mesh"]


def run(cmd, **kw):
    print("$ " + " ".join(cmd))
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, **kw)


def animation_count(g):
    # gsio info lists vertex-animation clips and skeletal animations apart;
    # each is one aiAnimation (and one glTF animation).
    return len(g.get("clips", [])) + len(g.get("animations", []))


def gsio_info(tool, path):
    r = run([tool, "info", "--json", path])
    if r.returncode != 0:
        fail("gsio info failed on %s:\n%s" % (path, r.stdout))
    data = json.loads(r.stdout)
    return data[0] if isinstance(data, list) else data


def assimp_info(assimp, path):
    # -vds: Assimp's ValidateDataStructure only (no other post-processing, so
    # the counts are the importer's); -l: the log, which names the importer.
    r = run([assimp, "info", path, "-vds", "-l"])
    if r.returncode != 0:
        fail("assimp info failed on %s:\n%s" % (path, r.stdout[-3000:]))
    counts = {}
    for key in ("Meshes", "Animations", "Textures (embed.)", "Materials", "Vertices", "Faces", "Bones"):
        m = re.search(r"^%s:\s+(\d+)" % re.escape(key), r.stdout, re.M)
        if not m:
            fail("assimp info printed no %s line for %s" % (key, path))
        counts[key] = int(m.group(1))
    return counts, r.stdout


def check_info(assimp, tool, corpus):
    for rel in INFO_FILES:
        path = os.path.join(corpus, rel)
        if not os.path.exists(path):
            fail("corpus file missing: " + path)
        g = gsio_info(tool, path)
        counts, text = assimp_info(assimp, path)
        if not re.search(r"gsio", text, re.I) or "Found a matching importer" not in text:
            fail("%s: the log does not show gsio's importer reading it" % rel)
        m = re.search(r"Found a matching importer for this file format: (.*)\.", text)
        importer = m.group(1) if m else "?"
        if "gsio" not in importer.lower():
            fail("%s: read by %r, not by gsio's importer" % (rel, importer))
        if "Validate" in text and re.search(r"(?i)validation failed|Error, T\d+: .*Validat", text):
            fail("%s: ValidateDataStructure complains:\n%s" % (rel, text[-2000:]))
        faces = sum(m_["triangles"] for m_ in g["meshes"])
        verts = sum(m_["vertices"] for m_ in g["meshes"])
        want = {"Faces": faces, "Textures (embed.)": len(g["skins"]),
                "Animations": animation_count(g)}
        for k, v in want.items():
            if counts[k] != v:
                fail("%s: assimp info says %s %d, gsio %d" % (rel, k, counts[k], v))
        # One aiMesh per mesh part: a mesh of several parts may duplicate a
        # vertex two parts share, never lose one.
        if counts["Vertices"] < verts:
            fail("%s: assimp info says %d vertices, gsio %d" % (rel, counts["Vertices"], verts))
        if g.get("joints", 0) and counts["Bones"] == 0:
            fail("%s: gsio has %d joints, assimp info no bones" % (rel, g["joints"]))
        print("ok %s: importer %s; vertices %d (gsio %d), faces %d, textures %d, animations %d, bones %d"
              % (rel, importer, counts["Vertices"], verts, faces, counts["Textures (embed.)"],
                 counts["Animations"], counts["Bones"]))


def read_glb(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    if magic != b"glTF" or version != 2 or length != len(data):
        fail("%s is not a GLB 2 file" % path)
    clen, ctype = struct.unpack_from("<I4s", data, 12)
    if ctype != b"JSON":
        fail("%s: first chunk is not JSON" % path)
    return json.loads(data[20:20 + clen].decode("utf-8"))


def validate(e2e, glb):
    r = run(["node", os.path.join(e2e, "gltf_validate.js"), glb])
    print(r.stdout.rstrip())
    m = re.search(r": (\d+) errors, (\d+) warnings", r.stdout)
    if not m:
        fail("the validator printed no report for " + glb)
    if int(m.group(1)) != 0:
        fail("the validator reports %s errors in %s" % (m.group(1), glb))
    return int(m.group(2))


def check_export(assimp, tool, corpus, e2e, out, rel):
    src = os.path.join(corpus, rel)
    if not os.path.exists(src):
        skip("corpus file missing: " + src)
    if not shutil.which("node"):
        skip("node not installed (tools/setup-debian.sh)")
    # As gltf_validate.js finds it: beside the script, or through NODE_PATH.
    r = subprocess.run(["node", "-e", "require('gltf-validator')"], cwd=e2e,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        skip("gltf-validator not installed (npm install in %s: tools/setup-debian.sh)" % e2e)
    g = gsio_info(tool, src)
    glb = os.path.join(out, os.path.splitext(os.path.basename(rel))[0] + ".glb")
    r = run([assimp, "export", src, glb])
    print(r.stdout[-1500:].rstrip())
    if r.returncode != 0 or not os.path.exists(glb):
        fail("assimp export failed on " + rel)
    warnings = validate(e2e, glb)
    j = read_glb(glb)

    acc = j.get("accessors", [])
    prims = [p for m in j.get("meshes", []) for p in m["primitives"]]
    verts = sum(acc[p["attributes"]["POSITION"]]["count"] for p in prims)
    tris = sum(acc[p["indices"]]["count"] // 3 for p in prims)
    gverts = sum(m["vertices"] for m in g["meshes"])
    gtris = sum(m["triangles"] for m in g["meshes"])
    # Assimp's glTF 2 exporter runs JoinIdenticalVertices first: fewer
    # vertices than gsio's meshes (never more), the same triangles.
    if tris != gtris:
        fail("%s: %d triangles in the GLB, gsio reads %d" % (rel, tris, gtris))
    if not 0 < verts <= gverts:
        fail("%s: %d vertices in the GLB, gsio's meshes have %d" % (rel, verts, gverts))
    if g["skins"] and not j.get("images"):
        fail("%s: gsio reads %d skins, the GLB has no image" % (rel, len(g["skins"])))

    frames = g.get("vertex_frames", 0)  # morph targets come from vertex frames only
    targets = [len(p.get("targets", [])) for p in prims]
    anims = j.get("animations", [])
    for a in anims:
        if not a.get("channels"):
            fail("%s: animation %r has no channel" % (rel, a.get("name")))
    if frames >= 2:
        if not prims or any(t != frames for t in targets):
            fail("%s: morph targets per primitive %s, gsio reads %d frames" % (rel, targets, frames))
        names = [m.get("extras", {}).get("targetNames", []) for m in j["meshes"]]
        if any(len(n) != frames for n in names):
            fail("%s: target names %s, want %d per mesh" % (rel, [len(n) for n in names], frames))
        if not all("NORMAL" in t for p in prims for t in p["targets"]):
            fail("%s: morph targets without normals" % rel)
        clips = [c for c in g.get("clips", [])]
        if len(anims) != animation_count(g):
            fail("%s: %d animations in the GLB, gsio reads %d" % (rel, len(anims), animation_count(g)))
        for a in anims:
            w = [c for c in a["channels"] if c["target"]["path"] == "weights"]
            if not w:
                fail("%s: animation %r has no weights channel" % (rel, a.get("name")))
            s = a["samplers"][w[0]["sampler"]]
            keys = acc[s["input"]]["count"]
            if acc[s["output"]]["count"] != keys * frames:
                fail("%s: weights sampler of %r: %d outputs for %d keys x %d targets"
                     % (rel, a.get("name"), acc[s["output"]]["count"], keys, frames))
        print("ok %s: %d primitives x %d morph targets (with normals and names), %d animations "
              "with weights channels (%d clips in gsio)" % (rel, len(prims), frames, len(anims), len(clips)))
    if g.get("joints", 0):
        skins = j.get("skins", [])
        if not skins:
            fail("%s: gsio reads %d joints, the GLB has no skin" % (rel, g["joints"]))
        joints = len(skins[0]["joints"])
        if joints != g["joints"]:
            fail("%s: %d joints in the GLB skin, gsio reads %d" % (rel, joints, g["joints"]))
        if len(anims) != animation_count(g):
            fail("%s: %d animations in the GLB, gsio reads %d" % (rel, len(anims), animation_count(g)))
        for a, ga in zip(anims, g["animations"]):
            s = a["samplers"][0]
            keys = acc[s["input"]]["count"]
            if keys != ga["frames"]:
                fail("%s: animation %r has %d keys, gsio %d frames" % (rel, a.get("name"), keys, ga["frames"]))
        print("ok %s: skin of %d joints, %d meshes, %d animations (%s keys)"
              % (rel, joints, len(j["meshes"]), len(anims),
                 ", ".join(str(acc[a["samplers"][0]["input"]]["count"]) for a in anims)))
    print("PASS %s: %d triangles, %d vertices (gsio's meshes %d, before Assimp joins identical ones), "
          "validator 0 errors, %d warnings" % (rel, tris, verts, gverts, warnings))


def check_obj(assimp, tool, corpus, out):
    src = os.path.join(corpus, "mdl/minigun_mdl5.mdl")
    if not os.path.exists(src):
        skip("corpus file missing: " + src)
    g = gsio_info(tool, src)
    obj = os.path.join(out, "m.obj")
    r = run([assimp, "export", src, obj], cwd=out)
    print(r.stdout[-1500:].rstrip())
    if r.returncode != 0 or not os.path.exists(obj):
        fail("assimp export failed on " + src)
    v = f = 0
    mtl = None
    with open(obj) as fh:
        for line in fh:
            if line.startswith("v "):
                v += 1
            elif line.startswith("f "):
                f += 1
            elif line.startswith("mtllib "):
                mtl = line.split(None, 1)[1].strip()
    faces = sum(m["triangles"] for m in g["meshes"])
    verts = sum(m["vertices"] for m in g["meshes"])
    if f != faces:
        fail("m.obj has %d faces, gsio reads %d triangles" % (f, faces))
    # The OBJ exporter writes each distinct position once.
    if not 0 < v <= verts:
        fail("m.obj has %d vertices, gsio's mesh %d" % (v, verts))
    if not mtl or not os.path.exists(os.path.join(out, mtl)):
        fail("m.obj names no material file, or %s is missing" % mtl)
    print("PASS minigun_mdl5.mdl -> m.obj: %d vertices (gsio %d), %d faces, %s" % (v, verts, f, mtl))


def check_gsio_writers(assimp, tool, corpus, out):
    """gsio's writers as the patched Assimp's export formats: the list names
    them; gate-101.mdl -> -f gsio_mdl5 keeps its 30 frames and 927
    triangles; Assimp's own OBJ of the minigun -> gsio_mdl5 keeps its 576
    triangles; shadow-5.hmp -> gsio_hmp5 keeps the 65 x 59 grid."""
    r = run([assimp, "listexport"])
    ids = r.stdout.split()
    for fid in ("gsio_mdl5", "gsio_hmp5", "gsio_md5"):
        if fid not in ids:
            fail("assimp listexport does not list %s: %s" % (fid, ids))
    cases = [("mdl/gate-101.mdl", "gate.mdl", "gsio_mdl5"), ("hmp/shadow-5.hmp", "shadow.hmp", "gsio_hmp5")]
    for rel, name, fid in cases:
        src = os.path.join(corpus, rel)
        if not os.path.exists(src):
            skip("corpus file missing: " + src)
        dst = os.path.join(out, name)
        r = run([assimp, "export", src, dst, "-f" + fid], cwd=out)
        if r.returncode != 0 or not os.path.exists(dst):
            fail("assimp export -f %s failed on %s: %s" % (fid, rel, r.stdout[-800:] + r.stderr[-800:]))
        a, b = gsio_info(tool, src), gsio_info(tool, dst)
        for key in ("triangles", "frames"):
            if a.get(key) != b.get(key):
                fail("%s -> %s: %s %s, gsio reads %s" % (rel, fid, key, b.get(key), a.get(key)))
        if fid == "gsio_hmp5" and a.get("terrain", {}).get("columns") != b.get("terrain", {}).get("columns"):
            fail("%s -> %s: terrain %s vs %s" % (rel, fid, b.get("terrain"), a.get("terrain")))
        print("PASS %s -> assimp export -f %s: %s triangles, %s frames" % (rel, fid, b.get("triangles"), b.get("frames")))
    src = os.path.join(corpus, "mdl/minigun_mdl5.mdl")
    obj = os.path.join(out, "m.obj")
    r = run([assimp, "export", src, obj], cwd=out)
    if r.returncode != 0:
        fail("assimp export to OBJ failed")
    mdl = os.path.join(out, "from_obj.mdl")
    r = run([assimp, "export", obj, mdl, "-fgsio_mdl5"], cwd=out)
    if r.returncode != 0 or not os.path.exists(mdl):
        fail("assimp export m.obj -f gsio_mdl5 failed: " + r.stdout[-800:] + r.stderr[-800:])
    b = gsio_info(tool, mdl)
    if b.get("triangles") != 576:
        fail("m.obj -> gsio_mdl5: %s triangles, expected 576" % b.get("triangles"))
    print("PASS m.obj (Assimp's own OBJ) -> assimp export -f gsio_mdl5: 576 triangles")


def main():
    if len(sys.argv) != 7:
        print(__doc__)
        sys.exit(2)
    check = sys.argv[1]
    prefix, tool, corpus, e2e, out = (os.path.abspath(a) for a in sys.argv[2:])
    if not os.path.isdir(corpus):
        skip("corpus not found (%s)" % corpus)
    assimp = os.path.join(prefix, "bin", "assimp")
    if not os.access(assimp, os.X_OK):
        skip("the patched Assimp is not built (%s; assimp_patched_build skipped or failed)" % assimp)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    if check == "info":
        check_info(assimp, tool, corpus)
        print("PASS")
    elif check in MODELS:
        check_export(assimp, tool, corpus, e2e, out, MODELS[check])
    elif check == "obj":
        check_obj(assimp, tool, corpus, out)
    elif check == "gsio_writers":
        check_gsio_writers(assimp, tool, corpus, out)
    else:
        print("unknown check " + check)
        sys.exit(2)


if __name__ == "__main__":
    main()
