#!/usr/bin/env python3
"""The `gsio info` command: its JSON keys against the README, its numbers
against known files, its exit status.

usage: gsio_info.py GSIO_TOOL README.md SAMPLES_DIR CORPUS_DIR

- Every key `gsio info --json` prints, at the top level and inside skins,
  clips, meshes, animations, cameras, terrain and error, is one the README's
  "Records" table documents, and every documented key without '?' is
  present (`error` is null on success, `terrain` only on terrains; a failed
  input has only input, output, status, error, warnings, seconds): the
  README stays true. The same records are what --report writes.
- Known numbers: samples/clips.mdl (three clips), and from the corpus
  minigun_mdl5.mdl, shadow-5.hmp, Bob.md5mesh; `frames` counts the file's
  frames, vertex or skeletal (griechin.mdl: 175 of bone matrices,
  mdl4-golem.mdl: 231 of vertices); trashcan.mdl's 76 stored triangles are
  38 written, with the reason.
- Levels: bestiary.wmp and menue.wmp of lottershock with --path Game/Assets
  list their elements per kind, what they place by file with how many times
  each, and every file they name, found or not (menue's two models missing
  from the game's snapshot are not found); without --path the Assets models
  are not found. The text is a summary: bestiary's at most 40 lines, naming
  each model file placed with its count; --verbose has a line per file.
- Exit status 0 when every file loads, 1 when any fails (the others are
  still printed), 2 on a usage error; the text mode prints the format line;
  a folder holding nothing gsio reads (a FIFO, a folder named x.mdl) is said
  to and exits 1.
The corpus part is skipped with a note when ../shared/corpus is absent.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from e2e_common import fail


def documented_keys(readme):
    """{key: (optional, subkeys {name: optional} or None)} from the README table."""
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"^## Records \(`gsio info --json`, `--report`\)\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        fail("%s has no '## Records (`gsio info --json`, `--report`)' section" % readme)
    keys = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        sub = None
        b = re.search(r"`\[?\{([^}]*)\}\]?", cells[1])
        if b:
            sub = {}
            for k in b.group(1).split(","):
                k = k.strip()
                sub[k.rstrip("?")] = k.endswith("?")
        for k in re.findall(r"`([a-z_]+)`", cells[0]):
            keys[k] = sub
    if not keys:
        fail("no keys found in the README's table")
    return keys


def check_record(rec, keys, where):
    ok = rec.get("status") == "ok"
    for k in rec:
        if k not in keys:
            fail("%s: key %r is not documented in the README" % (where, k))
    want = ({"input", "output", "status", "error", "warnings", "seconds"} if not ok
            else set(keys) - {"terrain", "elements", "placed", "files"})
    for k in want:
        if k not in rec:
            fail("%s: documented key %r is missing" % (where, k))
    for k, sub in keys.items():
        if sub is None or k not in rec:
            continue
        items = rec[k] if isinstance(rec[k], list) else [rec[k]]
        for it in items:
            if it is None and k == "error":
                continue
            if not isinstance(it, dict):
                fail("%s: %s holds %r, the README documents objects" % (where, k, it))
            for s in it:
                if s not in sub:
                    fail("%s: %s.%s is not documented in the README" % (where, k, s))
            for s, optional in sub.items():
                if not optional and s not in it:
                    fail("%s: documented %s.%s is missing" % (where, k, s))


def run(tool, args, expect):
    r = subprocess.run([tool] + args, capture_output=True, text=True)
    if r.returncode != expect:
        fail("gsio %s: exit %d, expected %d\n%s" % (" ".join(args), r.returncode, expect, r.stderr))
    return r


def info(tool, files, keys, expect=0, extra=()):
    r = run(tool, ["info", "--json"] + list(extra) + files, expect)
    recs = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
    if len(recs) != len(files):
        fail("%d records for %d files" % (len(recs), len(files)))
    for f, rec in zip(files, recs):
        if rec["input"] != f:
            fail("record for %s names %s" % (f, rec["input"]))
        check_record(rec, keys, os.path.basename(f))
    return recs


def expect_eq(where, got, want):
    if got != want:
        fail("%s: %r, expected %r" % (where, got, want))


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        sys.exit(2)
    tool, readme, samples, corpus = sys.argv[1:]
    keys = documented_keys(readme)
    codes = None
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"`code` is one of ([^|]*)", text)
    if m:
        codes = set(re.findall(r"[a-z-]+", m.group(1).replace("`", " "))) - {"and", "or"}
    print("README documents %d keys: %s" % (len(keys), ", ".join(sorted(keys))))

    sample_files = sorted(os.path.join(samples, f) for f in os.listdir(samples) if f.endswith(".mdl"))
    recs = info(tool, sample_files, keys)
    clips = next(r for r in recs if r["input"].endswith("clips.mdl"))
    expect_eq("clips.mdl clips", [c["name"] for c in clips["clips"]], ["stand", "walk", "die"])
    expect_eq("clips.mdl frames", clips["frames"], 18)
    two = next(r for r in recs if r["input"].endswith("two_skins.mdl"))
    expect_eq("two_skins.mdl skins", [(s["type"], s["width"], s["height"]) for s in two["skins"]],
              [(4, 96, 64), (2, 48, 32)])
    print("samples: %d files, keys as documented" % len(recs))

    # A failure among good files: exit 1, every file still reported.
    bad = os.path.join(os.path.dirname(readme), "README.md")  # not a model
    recs = info(tool, [sample_files[0], bad, sample_files[-1]], keys, expect=1)
    expect_eq("statuses", [r["status"] for r in recs], ["ok", "error", "ok"])
    err = recs[1]["error"]
    if codes is not None and err["code"] not in codes:
        fail("error code %r is not among the README's %s" % (err["code"], sorted(codes)))
    if "README.md" not in err["text"]:
        fail("the error text does not name the file: %r" % err["text"])
    print("a bad file: exit 1, error %s: %s" % (err["code"], err["text"]))
    run(tool, ["info"], 2)
    run(tool, ["info", "--bogus", sample_files[0]], 2)
    run(tool, ["frobnicate"], 2)
    t = run(tool, ["info", sample_files[0]], 0)
    if "MDL5 (version 5)" not in t.stdout:
        fail("text output lacks the format line: %r" % t.stdout[:200])
    print("usage errors exit 2; text mode prints the format line")
    nothing_to_read(tool)

    if not os.path.isdir(os.path.join(corpus, "mdl")):
        print("note: corpus not found at %s: corpus files not checked" % corpus)
        print("PASS")
        return
    files = [os.path.join(corpus, p) for p in
             ("mdl/minigun_mdl5.mdl", "hmp/shadow-5.hmp", "md5/bob/Bob.md5mesh")]
    mini, hmp, bob = info(tool, files, keys)
    for k, v in (("format", "MDL5"), ("version", 5), ("vertices", 314), ("triangles", 576),
                 ("skin_vertices", 117), ("welded_vertices", 433), ("frames", 8)):
        expect_eq("minigun_mdl5 " + k, mini[k], v)
    expect_eq("minigun_mdl5 skins", [(s["type"], s["width"], s["height"]) for s in mini["skins"]],
              [(2, 1272, 1114)])
    expect_eq("minigun_mdl5 clips", [(c["name"], c["frames"]) for c in mini["clips"]], [("shot", 8)])
    expect_eq("minigun_mdl5 frame_names", mini["frame_names"], ["shot%d" % i for i in range(8)])
    expect_eq("shadow-5 format", hmp["format"], "HMP5")
    expect_eq("shadow-5 terrain", (hmp["terrain"]["columns"], hmp["terrain"]["rows"]), (65, 59))
    expect_eq("shadow-5 vertices", hmp["vertices"], 3835)
    expect_eq("shadow-5 skins", [(s["type"], s["width"], s["mips"]) for s in hmp["skins"]], [(12, 1024, 3)])
    expect_eq("Bob format", bob["format"], "MD5")
    expect_eq("Bob joints", bob["joints"], 33)
    expect_eq("Bob meshes", len(bob["meshes"]), 6)
    expect_eq("Bob animations", [(a["name"], a["frames"], a["fps"]) for a in bob["animations"]],
              [("Bob", 140, 24)])
    expect_eq("Bob images", len(bob["skins"]), 5)
    print("corpus: minigun_mdl5, shadow-5 (65 x 59), Bob (33 joints, 6 meshes, Bob 140 frames "
          "at 24 fps) as expected")
    frames_and_triangles(tool, corpus, keys)
    levels(tool, corpus, keys)
    print("PASS")


def nothing_to_read(tool):
    """A folder with nothing gsio reads: said on stderr, exit 1, as mdl2gltf."""
    with tempfile.TemporaryDirectory() as d:
        os.mkfifo(os.path.join(d, "pipe.mdl"))
        os.mkdir(os.path.join(d, "x.mdl"))
        for arg in (d, os.path.join(d, "x.mdl")):
            for extra in ([], ["--json"]):
                r = run(tool, ["info"] + extra + [arg], 1)
                if "nothing to read" not in r.stderr or arg not in r.stderr:
                    fail("gsio info %s: stderr %r does not say there is nothing to read" % (arg, r.stderr))
                if r.stdout:
                    fail("gsio info %s: printed %r" % (arg, r.stdout))
    print("a folder holding only a FIFO and a folder named x.mdl: exit 1, said on stderr")


def frames_and_triangles(tool, corpus, keys):
    """`frames` is the file's, vertex or skeletal; triangles as stored and as
    written, with the reason where they differ."""
    game = os.path.join(corpus, "lottershock", "Game", "Assets", "griechin.mdl")
    files = [os.path.join(corpus, "mdl", n) for n in ("mdl4-golem.mdl", "trashcan.mdl")]
    if os.path.isfile(game):
        files.append(game)
    recs = info(tool, files, keys)
    golem, trash = recs[0], recs[1]
    expect_eq("golem frames", (golem["frames"], golem["vertex_frames"], golem["skeletal_frames"]),
              (231, 231, 0))
    expect_eq("golem frame_names", len(golem["frame_names"]), 231)
    expect_eq("trashcan triangles", (trash["triangles"], trash["triangles_written"]), (76, 38))
    if "38 faces stored twice" not in (trash["triangles_note"] or ""):
        fail("trashcan triangles_note: %r" % trash["triangles_note"])
    expect_eq("golem triangles_note", golem["triangles_note"], None)
    if len(recs) > 2:
        g = recs[2]
        expect_eq("griechin frames", (g["frames"], g["vertex_frames"], g["skeletal_frames"]), (175, 0, 175))
        t = run(tool, ["info", game], 0).stdout
        if "frames 175 (skeletal)" not in t:
            fail("gsio info griechin.mdl: no 'frames 175 (skeletal)' in %r" % t)
    print("frames: golem 231 vertex, griechin 175 skeletal; trashcan 76 triangles stored, 38 written")


def level_summary(tool, level, assets, best):
    """The text of a level is a summary: at most 40 lines, each model file
    placed named with its count; --verbose lists every file named."""
    t = run(tool, ["info", "--path", assets, level], 0).stdout
    lines = t.splitlines()
    if len(lines) > 40:
        fail("gsio info bestiary.wmp: %d lines, want at most 40:\n%s" % (len(lines), t))
    placed = [p for p in best["placed"] if p["kind"] == "model"]
    expect_eq("bestiary models placed", sum(p["count"] for p in placed), 43)
    expect_eq("bestiary corridor_01_end.mdl placed",
              [p["count"] for p in placed if p["name"] == "corridor_01_end.mdl"], [9])
    for p in placed:
        if "%s x%d" % (p["name"], p["count"]) not in t:
            fail("gsio info bestiary.wmp does not name %s x%d:\n%s" % (p["name"], p["count"], t))
    if "models placed 43 times, from 14 files:" not in t:
        fail("gsio info bestiary.wmp: no 'models placed 43 times, from 14 files:' in\n%s" % t)
    if "level geometry: 0 blocks, 0 vertices, 0 triangles" not in t:
        fail("gsio info bestiary.wmp: the level's own geometry is not its blocks':\n%s" % t)
    v = run(tool, ["info", "-v", "--path", assets, level], 0).stdout
    for f in best["files"]:
        want = "  file %s %s: %s" % (f["kind"], f["name"], f["path"] or "not found")
        if want not in v:
            fail("gsio info -v bestiary.wmp lacks %r" % want)
    print("bestiary: a summary of %d lines naming %d model files with their counts; -v: %d lines"
          % (len(lines), len(placed), len(v.splitlines())))


def levels(tool, corpus, keys):
    game = os.path.join(corpus, "lottershock", "Game")
    if not os.path.isdir(game):
        print("note: lottershock not in the corpus: levels not checked")
        return
    lv = [os.path.join(game, "Level", n) for n in ("bestiary.wmp", "menue.wmp")]
    assets = os.path.join(game, "Assets")
    best, menue = info(tool, lv, keys, extra=["--path", assets])
    zero = {k: 0 for k in ("level", "block", "model", "sprite", "light", "start", "sound", "path", "region")}
    expect_eq("bestiary elements", best["elements"], dict(zero, level=1, model=43, sprite=1))
    expect_eq("menue elements", menue["elements"],
              dict(zero, level=1, block=6, model=12, sprite=1, light=1, start=1))
    bm = {f["name"]: f for f in best["files"] if f["kind"] == "model"}
    expect_eq("bestiary model files", len(bm), 14)
    for n, f in bm.items():
        if not f["found"] or not os.path.isfile(f["path"]):
            fail("bestiary: model %s not found: %r" % (n, f))
    wads = {f["name"]: f["found"] for f in best["files"] if f["kind"] == "wad"}
    expect_eq("bestiary wads", wads, {"standard.wad": False})
    expect_eq("menue placed", sorted((p["kind"], p["name"], p["count"]) for p in menue["placed"]),
              [("model", "flamemother.mdl", 1), ("model", "milk.mdl", 1),
               ("model", "shotgunshell.mdl", 7), ("model", "swordmenue.mdl", 1),
               ("model", "trident_of_lightning.mdl", 1), ("model", "triple_shotgun.mdl", 1),
               ("sprite", "menueB2.tga", 1)])
    mm = {f["name"]: f["found"] for f in menue["files"] if f["kind"] == "model"}
    expect_eq("menue missing models", sorted(n for n, ok in mm.items() if not ok),
              ["shotgunshell.mdl", "swordmenue.mdl"])
    expect_eq("menue wad", [(f["name"], f["found"], os.path.dirname(f["path"]))
                            for f in menue["files"] if f["kind"] == "wad"],
              [("Texturset.wad", True, os.path.join(game, "Level"))])
    expect_eq("menue sprite", [(f["name"], f["found"]) for f in menue["files"] if f["kind"] == "sprite"],
              [("menueB2.tga", True)])
    for f in best["files"] + menue["files"]:
        if f["found"] != (f["path"] is not None):
            fail("file record %r: found and path disagree" % f)
    # Without --path, the models of Game/Assets are not found.
    (alone,) = info(tool, lv[:1], keys)
    lost = sorted(f["name"] for f in alone["files"] if f["kind"] == "model" and not f["found"])
    expect_eq("bestiary without --path: models not found", len(lost), 9)
    t = run(tool, ["info", "--path", assets, lv[1]], 0).stdout
    for want in ("elements: level 1, block 6, model 12, sprite 1, light 1, start 1",
                 "swordmenue.mdl x1 (not found)", "shotgunshell.mdl x7 (not found)",
                 "level geometry: 6 blocks, 48 vertices, 72 triangles"):
        if want not in t:
            fail("gsio info menue.wmp: text lacks %r" % want)
    t = run(tool, ["info", "--verbose", "--path", assets, lv[1]], 0).stdout
    for want in ("file model swordmenue.mdl: not found", "file wad Texturset.wad: "):
        if want not in t:
            fail("gsio info --verbose menue.wmp: text lacks %r" % want)
    level_summary(tool, lv[0], assets, best)
    run(tool, ["info", lv[1], "--path"], 2)
    print("levels: bestiary (43 models of 14 files, all found with --path; 9 not found without), "
          "menue (6 blocks, 2 models not found, Texturset.wad found) as expected")


main()
