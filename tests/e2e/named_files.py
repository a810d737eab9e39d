#!/usr/bin/env python3
"""The files a model or level names, found by the commands.

usage: named_files.py GSIO_TOOL MDL2GLTF SOURCE_DIR CORPUS_DIR WORK_DIR

- a level (a tiny binary WMP written here) names its model in CP1252
  ("R\\xfcstung.mdl") and its object "R\\xfcstung"; the model beside it is
  named in UTF-8, as a file copied to Linux is (one of the project's
  samples), and then with the raw byte: `gsio convert --report` and
  mdl2gltf find it with no warning, the GLB's node and the report's file
  record say "Rüstung" in UTF-8, and the GLB holds the model's mesh;
- lottershock's plank.mdl names room_atlas_01.pcx, which lies in the game's
  Level folder: with `--path Game/Level` (mdl2gltf, gsio convert, gsio
  info) the GLB has one image of the PCX's width x height; without, exactly
  one warning, which names the folder looked in and --path; placed in a
  level (written here) converted with --path Game/Assets --path Game/Level,
  textured too;
- a folder converted: the folder given is searched as well (plank.mdl and
  the PCX copied into a temporary game folder, the model one folder down);
  the game's folder converted without --path warns with --path.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

from e2e_common import fail, skip

GSIO, MDL2GLTF, SRC, CORPUS, WORK = sys.argv[1:6]
RUESTUNG = "R\u00fcstung"


def chunk(cid, ctype, payload):
    return bytes([cid, ctype, ctype + 1, 0]) + struct.pack("<I", 8 + len(payload)) + payload


def node(kind, sub, klass, name, payload, children=b"", count=0):
    vec = lambda cid, v: chunk(cid, 0, struct.pack("<3d", *v))
    return chunk(1, 5, bytes([kind, sub]) + struct.pack("<HI", count, 0) + chunk(2, 1, klass + b"\0") +
                 chunk(3, 1, name + b"\0") + vec(1, (0, 0, 0)) + vec(3, (0, 0, 0)) + vec(5, (1, 1, 1)) +
                 payload + children)


def write_level(path, obj, model):
    """A WED 8 binary level (docs/FORMATS.md 7.5-7.7): a root and one
    object placing the model file `model` (bytes as stored)."""
    entity = chunk(9, 5, struct.pack("<3I2f", 3, 0, 0x200, 0, 50) + chunk(3, 1, obj + b"\0") +
                   chunk(0x0B, 1, model + b"\0"))
    header = chunk(1, 4, struct.pack("<6I", 710, 2, 2, 0, 1, 0) + chunk(1, 1, b"file created\n\0"))
    root = node(0x01, 0, b"level", b"Root", b"", node(0x35, 2, b"model", obj, entity), 1)
    with open(path, "wb") as f:
        f.write(b"WMPB" + header + chunk(2, 4, b"") + root)


def glb_parts(path):
    with open(path, "rb") as f:
        d = f.read()
    jl = struct.unpack("<I", d[12:16])[0]
    return json.loads(d[20:20 + jl].decode("utf-8")), d[28 + jl:]


def glb_image_sizes(path):
    doc, bin_ = glb_parts(path)
    sizes = []
    for im in doc.get("images", []):
        v = doc["bufferViews"][im["bufferView"]]
        png = bin_[v.get("byteOffset", 0):v.get("byteOffset", 0) + v["byteLength"]]
        sizes.append(struct.unpack(">II", png[16:24]))
    return sizes


def run(cmd, expect=0):
    r = subprocess.run(cmd, capture_output=True)
    if r.returncode != expect:
        fail("%s: exit %d\n%s" % (cmd, r.returncode, r.stderr.decode(errors="replace")))
    return r.stdout.decode("utf-8"), r.stderr.decode("utf-8")


def warnings(stderr):
    return [l for l in stderr.splitlines() if "warning:" in l]


def case_cp1252_level():
    d = os.path.join(WORK, "cp1252")
    os.makedirs(d)
    level = os.path.join(d, "l.wmp")
    write_level(level, b"R\xfcstung", b"R\xfcstung.mdl")
    sample = os.path.join(SRC, "samples", "clips.mdl")
    for model in (os.path.join(d, RUESTUNG + ".mdl").encode(), os.path.join(d, "R").encode() + b"\xfcstung.mdl"):
        shutil.copy(sample, model)
        glb, report = os.path.join(d, "l.glb"), os.path.join(d, "r.json")
        _, err = run([GSIO, "convert", "--force", level, "-o", glb, "--report", report])
        if warnings(err):
            fail("CP1252 level: warnings %s" % warnings(err))
        doc, _ = glb_parts(glb)
        names = [n.get("name") for n in doc["nodes"]]
        if RUESTUNG not in names or not doc.get("meshes"):
            fail("CP1252 level (model %r): nodes %s, %d meshes" % (model, names, len(doc.get("meshes", []))))
        with open(report, "rb") as f:
            rec = json.loads(f.read().decode("utf-8"))["inputs"][0]
        files = [(x["name"], x["found"]) for x in rec["files"]]
        if files != [(RUESTUNG + ".mdl", True)] or rec["warnings"]:
            fail("CP1252 level: report files %s, warnings %s" % (files, rec["warnings"]))
        _, err = run([MDL2GLTF, "--force", level, "-o", glb])
        if warnings(err) or RUESTUNG not in [n.get("name") for n in glb_parts(glb)[0]["nodes"]]:
            fail("CP1252 level through mdl2gltf: %s" % err)
        os.remove(model)
    print("CP1252 level: the model named in UTF-8 and with the raw byte found; node and record %s" % RUESTUNG)


def pcx_size(path):
    with open(path, "rb") as f:
        h = f.read(12)
    x0, y0, x1, y1 = struct.unpack("<4H", h[4:12])
    return x1 - x0 + 1, y1 - y0 + 1


def case_plank():
    d = os.path.join(WORK, "plank")
    os.makedirs(d)
    assets, levels = (os.path.join(CORPUS, "lottershock/Game", x) for x in ("Assets", "Level"))
    plank = os.path.join(assets, "plank.mdl")
    want = [pcx_size(os.path.join(levels, "room_atlas_01.pcx"))]
    glb = os.path.join(d, "p.glb")
    for cmd in ([MDL2GLTF], [GSIO, "convert"]):
        _, err = run(cmd + ["--force", "--path", levels, plank, "-o", glb])
        if glb_image_sizes(glb) != want or warnings(err):
            fail("%s with --path: images %s (want %s), %s" % (cmd, glb_image_sizes(glb), want, err))
        _, err = run(cmd + ["--force", plank, "-o", glb])
        w = warnings(err)
        if glb_image_sizes(glb) or len(w) != 1 or "--path" not in w[0] or assets not in w[0]:
            fail("%s without --path: images %s, warnings %s" % (cmd, glb_image_sizes(glb), w))
    out, _ = run([GSIO, "info", "--json", "--path", levels, plank])
    rec = json.loads(out)
    if [(s["width"], s["height"]) for s in rec["skins"]] != want or rec["warnings"]:
        fail("gsio info --path: skins %s, warnings %s" % (rec["skins"], rec["warnings"]))
    # Placed in a level beside neither: found through the level's folders.
    level = os.path.join(d, "planks.wmp")
    write_level(level, b"plank", b"plank.mdl")
    _, err = run([GSIO, "convert", "--force", level, "-o", glb, "--path", assets, "--path", levels])
    if glb_image_sizes(glb) != want or warnings(err):
        fail("plank.mdl in a level: images %s (want %s), %s" % (glb_image_sizes(glb), want, err))
    print("plank.mdl: textured %dx%d with --path (single model, in a level); one warning without" % want[0])


def case_folder():
    d = os.path.join(WORK, "folder")
    game = os.path.join(d, "game")
    os.makedirs(os.path.join(game, "models"))
    shutil.copy(os.path.join(CORPUS, "lottershock/Game/Assets/plank.mdl"), os.path.join(game, "models"))
    shutil.copy(os.path.join(CORPUS, "lottershock/Game/Level/room_atlas_01.pcx"), game)
    out = os.path.join(d, "out")
    _, err = run([MDL2GLTF, game, "-o", out + "/"])
    sizes = glb_image_sizes(os.path.join(out, "models", "plank.glb"))
    if len(sizes) != 1 or warnings(err):
        fail("a folder converted: images %s, %s" % (sizes, err))
    _, err = run([MDL2GLTF, os.path.join(CORPUS, "lottershock/Game"), "-o", os.path.join(d, "game_out") + "/"])
    w = [l for l in warnings(err) if "plank.mdl" in l]
    if len(w) != 1 or "--path DIR" not in w[0]:
        fail("the game's folder without --path: plank.mdl warnings %s" % w)
    print("folders: the folder converted is searched; the game's folder without --path hints at it")


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
case_cp1252_level()
if not os.path.isdir(os.path.join(CORPUS, "lottershock")):
    skip("corpus not found at %s: the plank.mdl cases" % CORPUS)
case_plank()
case_folder()
print("named_files: PASS")
