#!/usr/bin/env python3
"""`gsio convert` and `gsio info` from outside.

usage: gsio_convert.py GSIO_TOOL CORPUS_DIR WORK_DIR

- every usage error exits 2, prints a message, and writes nothing;
- --help of every verb and --version exit 0;
- `gsio info` takes a folder, `--` and `-` (standard input);
- corpus files converted to .glb, .md5mesh, .mdl and .hmp give files that
  load back (gsio info; a GLB is checked as a GLB); `-o -` piped into
  `gsio info -` works (MDL5; skipped with a note while the MDL5 writer is
  not built);
- a morph-animated model into MD5 fails with a message naming --no-animation
  and leaves no file;
- a level (lottershock's menue.wmp) with --path Game/Assets: one GLB whose
  models come from the Assets folder (only the two models missing from the
  game's snapshot are warnings); without --path the Assets models are
  warnings too;
- inputs only Assimp reads, through the adapter (skipped with a note when
  gsio is built without it): an OBJ written by Assimp (`assimp export`,
  Debian's assimp-utils) -> MDL5 keeps its triangle count; GLBs written by
  gsio read back through Assimp's glTF importer -> MDL5 keep triangles and
  morph frames, -> MD5 keep joints, triangles and animation frames.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

from e2e_common import fail

TOOL, CORPUS, WORK = sys.argv[1:4] if len(sys.argv) == 4 else (None, None, None)
notes = []


def run(args, expect, stdin=None):
    r = subprocess.run([TOOL] + args, capture_output=True, input=stdin)
    if expect is not None and r.returncode != expect:
        fail("gsio %s: exit %d, expected %d\n%s" % (" ".join(args), r.returncode, expect,
                                                    r.stderr.decode(errors="replace")))
    return r


def info(path):
    r = run(["info", "--json", path], 0)
    return [json.loads(l) for l in r.stdout.decode().splitlines() if l.strip()]


def corpus(rel):
    return os.path.join(CORPUS, rel)


def case_usage():
    d = os.path.join(WORK, "usage")
    os.makedirs(d)
    x = corpus("mdl/gate-101.mdl") if os.path.isdir(CORPUS) else "x.mdl"
    cases = [
        ["convert"], ["convert", x], ["convert", "-o"], ["convert", "--bogus", x, "-o", d + "/a.glb"],
        ["convert", x, "-o", d + "/x.obj"],                        # no writer for .obj
        ["convert", x, x, "-o", d + "/two.glb"],                   # several inputs, a file output
        ["convert", os.path.dirname(x) or WORK, "-o", d + "/tree.glb"],  # a folder input, a file output
        ["convert", x, "-o", d + "/folder/"],                      # a folder output without -f
        ["convert", x, "-f", "obj", "-o", d + "/a.glb"],
        ["convert", x, "-f", "md5", "-o", "-"],                    # several files to stdout
        ["convert", x, "-f", "gltf", "-o", "-"],
        ["convert", x, "--scale", "2", "-o", d + "/a.md5mesh"],    # glTF-only option
        ["convert", x, "--grid", "3x3", "-o", d + "/a.glb"],       # HMP-only option
        ["convert", x, "--fps", "-1", "-o", d + "/a.glb"],
        ["convert", x, "--quiet", "--verbose", "-o", d + "/a.glb"],
        ["convert", x, "--anim", "a.md5anim", "--no-animation", "-o", d + "/a.glb"],
        ["convert", "-", x, "-o", d + "/out/", "-f", "glb"],       # stdin with other inputs
        ["info"], ["info", "--bogus"], ["frobnicate"], [],
    ]
    for args in cases:
        r = run(args, 2)
        if not r.stderr.strip():
            fail("usage error %s printed nothing" % args)
    if os.listdir(d):
        fail("a usage error wrote files: %s" % os.listdir(d))
    for args in (["--help"], ["--version"], ["info", "--help"], ["info", "--version"],
                 ["convert", "--help"]):
        r = run(args, 0)
        if not r.stdout.strip():
            fail("gsio %s printed nothing" % " ".join(args))
    print("usage: %d usage errors exit 2 with a message; --help and --version exit 0" % len(cases))


def glb_ok(path):
    data = open(path, "rb").read()
    if data[:4] != b"glTF" or struct.unpack("<I", data[8:12])[0] != len(data):
        fail("%s is not a GLB" % path)
    n = struct.unpack("<I", data[12:16])[0]
    return json.loads(data[20:20 + n])


def corpus_case_dir(name, what):
    """A fresh folder WORK/name for a case on corpus files, or None (with a
    note that `what` is skipped) when the corpus is absent."""
    if not os.path.isdir(CORPUS):
        notes.append("corpus absent: %s skipped" % what)
        return None
    d = os.path.join(WORK, name)
    os.makedirs(d)
    return d


def case_convert():
    d = corpus_case_dir("convert", "conversions")
    if not d:
        return
    # glTF
    out = os.path.join(d, "gate.glb")
    run(["convert", corpus("mdl/gate-101.mdl"), "-o", out], 0)
    doc = glb_ok(out)
    print("gate-101.mdl -> .glb: %d meshes, %d animations" % (len(doc["meshes"]), len(doc.get("animations", []))))
    # an existing output needs --force
    r = run(["convert", corpus("mdl/gate-101.mdl"), "-o", out], 1)
    if b"--force" not in r.stderr:
        fail("an existing output does not say --force: %s" % r.stderr)
    # ... and is refused before the input is loaded (a broken input says so)
    bad = os.path.join(d, "broken.mdl")
    open(bad, "wb").write(b"MDL7 not a model")
    r = run(["convert", bad, "-o", out], 1)
    if b"exists (not replaced)" not in r.stderr:
        fail("an existing output was not refused before the load: %s" % r.stderr)
    run(["convert", "--force", corpus("mdl/gate-101.mdl"), "-o", out], 0)
    # Of several --axes the last counts (as in mdl2gltf): source then gltf
    # is the default output, gltf then source the source's axes.
    axes = {}
    for order in (("source", "gltf"), ("gltf", "source")):
        os.makedirs(os.path.join(d, order[1]), exist_ok=True)
        o = os.path.join(d, order[1], "gate.glb")  # names come from the output's
        run(["convert", corpus("mdl/gate-101.mdl"), "--axes", order[0], "--axes", order[1], "-o", o], 0)
        axes[order[1]] = open(o, "rb").read()
    if axes["gltf"] != open(out, "rb").read() or axes["source"] == axes["gltf"]:
        fail("--axes given twice: the last one does not count")
    # ... and back through the Assimp adapter (when built): the same place
    # and orientation, not turned by the difference between gsio's glTF axes
    # and Assimp's own Z-up convention
    back = os.path.join(d, "gate-back.mdl")
    r = run(["convert", out, "-o", back], None)
    if r.returncode and b"Assimp" in r.stderr:
        notes.append("no Assimp adapter: .glb -> .mdl skipped")
    elif r.returncode:
        fail("gate.glb -> .mdl: %s" % r.stderr)
    else:
        a, b = info(corpus("mdl/gate-101.mdl"))[0]["meshes"][0], info(back)[0]["meshes"][0]
        err = max(abs(x - y) for k in ("bbox_min", "bbox_max") for x, y in zip(a[k], b[k]))
        if err > 1e-3:
            fail("gate-101 -> .glb -> .mdl: bounds %s %s became %s %s"
                 % (a["bbox_min"], a["bbox_max"], b["bbox_min"], b["bbox_max"]))
        print("gate-101.mdl -> .glb -> .mdl: bounds within %.6f" % err)
    # MD5: Bob with its animation; loads back with the same counts
    out = os.path.join(d, "bob", "Bob.md5mesh")
    run(["convert", corpus("md5/bob/Bob.md5mesh"), "-o", out], 0)
    a, b = info(corpus("md5/bob/Bob.md5mesh"))[0], info(out)[0]
    for k in ("joints", "triangles"):
        if a[k] != b[k]:
            fail("Bob -> MD5: %s %s became %s" % (k, a[k], b[k]))
    if [(x["frames"], x["fps"]) for x in a["animations"]] != [(x["frames"], x["fps"]) for x in b["animations"]]:
        fail("Bob -> MD5: animations %s became %s" % (a["animations"], b["animations"]))
    print("Bob.md5mesh -> .md5mesh: %d joints, %d triangles, animations %s" % (b["joints"], b["triangles"], b["animations"]))
    # MD5 from a morph-animated MDL: refused, nothing left; the base pose with --no-animation
    md = os.path.join(d, "md5")
    r = run(["convert", corpus("mdl/gate-101.mdl"), "-o", os.path.join(md, "gate.md5mesh")], 1)
    if b"morph" not in r.stderr or b"--no-animation" not in r.stderr:
        fail("morph into MD5: %s" % r.stderr)
    if os.path.isdir(md) and os.listdir(md):
        fail("a refused MD5 write left %s" % os.listdir(md))
    run(["convert", "--no-animation", corpus("mdl/gate-101.mdl"), "-o", os.path.join(md, "gate.md5mesh")], 0)
    g = info(os.path.join(md, "gate.md5mesh"))[0]
    src = info(corpus("mdl/gate-101.mdl"))[0]
    if g["triangles"] != src["triangles"]:
        fail("gate-101 -> MD5: %d triangles, the MDL has %d" % (g["triangles"], src["triangles"]))
    print("gate-101.mdl -> .md5mesh (--no-animation): %d triangles, texture %s" % (g["triangles"], [s.get("path") for s in g["skins"]]))
    # A folder into a folder, mirrored, with a report in the shared schema
    tree = os.path.join(d, "tree")
    report = os.path.join(d, "report.json")
    run(["convert", "-q", "-f", "glb", corpus("md5"), "-o", tree, "--report", report], 0)
    got = sorted(os.path.relpath(os.path.join(r, f), tree) for r, _, fs in os.walk(tree) for f in fs)
    if got != ["SimpleCube.glb", "bob/Bob.glb"]:
        fail("folder conversion wrote %s" % got)
    rep = json.load(open(report))
    if rep["converted"] != 2 or rep["failed"] != 0 or any(x["status"] != "ok" for x in rep["inputs"]):
        fail("report: %s" % json.dumps(rep)[:400])
    keys = set(info(corpus("md5/SimpleCube.md5mesh"))[0])
    for x in rep["inputs"]:
        if set(x) != keys:
            fail("report record keys %s differ from info --json's %s" % (sorted(set(x) ^ keys), ""))
    print("md5/ -> glb folder: %s; report records have info --json's keys" % got)
    # gsio info: a folder, '--', and '-'
    recs = info(corpus("md5"))
    if [os.path.basename(x["input"]) for x in recs] != ["SimpleCube.md5mesh", "Bob.md5mesh"]:
        fail("gsio info on a folder: %s" % [x["input"] for x in recs])
    run(["info", "--", corpus("md5/SimpleCube.md5mesh")], 0)
    data = open(corpus("mdl/gate-101.mdl"), "rb").read()
    r = run(["info", "--json", "-"], 0, stdin=data)
    rec = json.loads(r.stdout.decode().splitlines()[0])
    if rec["input"] != "-" or rec["triangles"] != src["triangles"]:
        fail("gsio info - : %s" % rec)
    # MDL5 and HMP5, and -o - | gsio info -
    for fmt, src_rel, ext in (("mdl5", "mdl/gate-101.mdl", ".mdl"), ("hmp5", "hmp/shadow-5.hmp", ".hmp")):
        out = os.path.join(d, "x" + ext)
        r = run(["convert", corpus(src_rel), "-o", out], None)
        if r.returncode and b"built without" in r.stderr:
            notes.append("%s writer not built: %s skipped" % (fmt, ext))
            continue
        if r.returncode:
            fail("convert %s -> %s: %s" % (src_rel, ext, r.stderr))
        a, b = info(corpus(src_rel))[0], info(out)[0]
        if a["triangles"] != b["triangles"]:
            fail("%s -> %s: %d triangles became %d" % (src_rel, ext, a["triangles"], b["triangles"]))
        pipe = subprocess.run([TOOL, "convert", corpus(src_rel), "-f", fmt, "-o", "-"], capture_output=True)
        if pipe.returncode:
            fail("convert -o -: %s" % pipe.stderr)
        r = run(["info", "--json", "-"], 0, stdin=pipe.stdout)
        if json.loads(r.stdout.decode().splitlines()[0])["triangles"] != a["triangles"]:
            fail("-o - | gsio info - lost triangles")
        print("%s -> %s and -o - | gsio info -: %d triangles" % (src_rel, ext, a["triangles"]))
    # A GLB on standard output is a GLB (gsio does not read glTF back)
    pipe = subprocess.run([TOOL, "convert", corpus("md5/SimpleCube.md5mesh"), "-o", "-"], capture_output=True)
    if pipe.returncode or pipe.stdout[:4] != b"glTF":
        fail("convert -o - did not write a GLB: %s" % pipe.stderr)
    r = run(["info", "-"], 1, stdin=pipe.stdout)  # not a format gsio reads: a clear error
    if b"-" not in r.stderr:
        fail("gsio info - on a GLB: %s" % r.stderr)


def case_level():
    level = corpus("lottershock/Game/Level/menue.wmp")
    if not os.path.isfile(level):
        notes.append("lottershock absent: the level case skipped")
        return
    assets = corpus("lottershock/Game/Assets")
    d = os.path.join(WORK, "level")
    os.makedirs(d)
    out = os.path.join(d, "menue.glb")
    report = os.path.join(d, "menue.json")
    run(["convert", "-q", "--path", assets, level, "-o", out, "--report", report], 0)
    j = glb_ok(out)
    models = [n for n in j["nodes"] if n.get("extras", {}).get("wmp:element") == "model"]
    if len(models) != 12:
        fail("menue.glb: %d model nodes, expected 12" % len(models))
    warns = json.load(open(report))["inputs"][0]["warnings"]
    missing = sorted(w.split('"')[1] for w in warns if w.startswith("model \"") and "not found" in w)
    if missing != ["shotgunshell.mdl", "swordmenue.mdl"]:
        fail("menue with --path: models not found %s" % missing)
    run(["convert", "-q", "--force", level, "-o", out, "--report", report], 0)
    warns = json.load(open(report))["inputs"][0]["warnings"]
    lost = [w for w in warns if w.startswith("model \"") and "not found" in w]
    if len(lost) != 5:
        fail("menue without --path: %d models not found, expected 5: %s" % (len(lost), lost))
    print("menue.wmp --path Assets -> one GLB, 12 model nodes, 2 models missing (5 without --path)")


def obj_triangles(path):
    n = 0
    for line in open(path, errors="replace"):
        if line.startswith("f "):
            n += len(line.split()) - 3  # a polygon of k corners is k - 2 triangles
    return n


def case_assimp_inputs():
    d = corpus_case_dir("assimp", "Assimp inputs")
    if not d:
        return
    # Does this gsio have the adapter? A GLB it wrote tells.
    glb = os.path.join(d, "cube.glb")
    run(["convert", corpus("md5/SimpleCube.md5mesh"), "-o", glb], 0)
    r = run(["convert", glb, "-o", os.path.join(d, "cube.mdl")], None)
    if r.returncode and b"built without" in r.stderr:
        notes.append("gsio built without the Assimp adapter: Assimp inputs skipped")
        return
    if r.returncode:
        fail("GLB -> MDL5 through Assimp: %s" % r.stderr)
    # An OBJ written by Assimp's own exporter (the stock `assimp` command).
    src = info(corpus("mdl/minigun_mdl5.mdl"))[0]
    if shutil.which("assimp"):
        obj = os.path.join(d, "minigun.obj")
        a = subprocess.run(["assimp", "export", corpus("mdl/minigun_mdl5.mdl"), obj], capture_output=True)
        if a.returncode or not os.path.isfile(obj):
            fail("assimp export to OBJ: %s" % a.stdout[-400:])
        tris = obj_triangles(obj)
        out = os.path.join(d, "minigun.mdl")
        run(["convert", obj, "-o", out], 0)
        got = info(out)[0]
        if not (got["triangles"] == tris == src["triangles"]):
            fail("Assimp's OBJ (%d triangles) -> MDL5: %d triangles, the MDL had %d"
                 % (tris, got["triangles"], src["triangles"]))
        print("minigun_mdl5.mdl -> assimp export .obj (%d triangles) -> gsio convert .mdl: %d triangles, %d vertices"
              % (tris, got["triangles"], got["vertices"]))
    else:
        notes.append("the assimp command (assimp-utils) is not installed: OBJ case skipped")
    # GLBs written by gsio, read back through Assimp's glTF importer.
    for rel in ("mdl/minigun_mdl5.mdl", "mdl/gate-101.mdl"):
        stem = os.path.splitext(os.path.basename(rel))[0]
        g, m = os.path.join(d, stem + ".glb"), os.path.join(d, stem + ".mdl")
        run(["convert", corpus(rel), "-o", g], 0)
        run(["convert", g, "-o", m], 0)
        a, b = info(corpus(rel))[0], info(m)[0]
        if (a["triangles"], a["frames"]) != (b["triangles"], b["frames"]):
            fail("%s -> GLB -> Assimp -> MDL5: %d triangles, %d frames became %d, %d"
                 % (rel, a["triangles"], a["frames"], b["triangles"], b["frames"]))
        print("%s -> GLB -> (Assimp) -> MDL5: %d triangles, %d frames" % (rel, b["triangles"], b["frames"]))
    g = os.path.join(d, "Bob.glb")
    run(["convert", corpus("md5/bob/Bob.md5mesh"), "-o", g], 0)
    for ext in (".mdl", ".md5mesh"):
        out = os.path.join(d, "bob_from_glb" + ext)
        run(["convert", g, "-o", out], 0)
        a, b = info(corpus("md5/bob/Bob.md5mesh"))[0], info(out)[0]
        if a["triangles"] != b["triangles"]:
            fail("Bob -> GLB -> Assimp -> %s: %d triangles became %d" % (ext, a["triangles"], b["triangles"]))
        if ext == ".md5mesh":
            if a["joints"] != b["joints"] or [x["frames"] for x in a["animations"]] != [x["frames"] for x in b["animations"]]:
                fail("Bob -> GLB -> Assimp -> MD5: joints %s/%s, animations %s/%s"
                     % (a["joints"], b["joints"], a["animations"], b["animations"]))
            print("Bob.md5mesh -> GLB -> (Assimp) -> MD5: %d joints, %d triangles, animations %s"
                  % (b["joints"], b["triangles"], [(x["frames"], x["fps"]) for x in b["animations"]]))
        else:
            if b["frames"] < 2:
                fail("Bob -> GLB -> Assimp -> MDL5: the skeletal animation was not baked (%d frames)" % b["frames"])
            print("Bob.md5mesh -> GLB -> (Assimp) -> MDL5: %d triangles, %d baked frames" % (b["triangles"], b["frames"]))


def case_heightmap():
    """An 8-bit grey PNG heightmap (written here) -> HMP5: a 33 x 33 grid."""
    import struct
    import zlib
    d = os.path.join(WORK, "heightmap")
    os.makedirs(d)
    w = h = 33
    raw = b"".join(b"\x00" + bytes((x * 7 + y * 3) % 256 for x in range(w)) for y in range(h))

    def chunk(t, data):
        return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data) & 0xFFFFFFFF)
    src = os.path.join(d, "hm.png")
    with open(src, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    out = os.path.join(d, "hm.hmp")
    run(["convert", src, "-o", out], 0)
    rec = info(out)[0]
    t = rec.get("terrain") or {}
    if rec.get("format") != "HMP5" or t.get("columns") != w or t.get("rows") != h:
        fail("heightmap -> HMP5: %s %s" % (rec.get("format"), t))
    print("heightmap: hm.png (33 x 33) -> HMP5 %s x %s" % (t.get("columns"), t.get("rows")))


def main():
    if TOOL is None:
        print(__doc__)
        sys.exit(2)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    case_usage()
    case_convert()
    case_level()
    case_assimp_inputs()
    case_heightmap()
    for n in notes:
        print("NOTE: " + n)


main()
