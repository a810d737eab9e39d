#!/usr/bin/env python3
"""Behaviour of the mdl2gltf command.

usage: cli_mdl2gltf.py CASE MDL2GLTF CORPUS_DIR WORK_DIR

CASE is one of:
  batch      a batch with one truncated MDL (written into WORK_DIR) converts
             the others, exits 1, and --report records the failure (code,
             offset) next to the successes (counts); a directory input is
             mirrored below -o
  noforce    an existing output is refused without --force and left
             byte-identical (.glb, and a .bin beside a --gltf output); with
             --force it is replaced
  jobs       -j 1 and -j 2 over the corpus give the same files, byte for byte
             (prints both times)
  usage      usage errors exit 2 and write nothing
  help       --help and --version exit 0; --help names every option
Exits 77 (skipped) when a case needs the corpus and it is absent.
"""
import filecmp
import glob
import json
import os
import shutil
import subprocess
import sys
import time


def skip(msg):
    print("SKIPPED: " + msg)
    sys.exit(77)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, expect=None):
    r = subprocess.run([CONV] + args, capture_output=True, text=True)
    if expect is not None and r.returncode != expect:
        fail("mdl2gltf %s: exit %d, expected %d\nstdout: %s\nstderr: %s"
             % (" ".join(args), r.returncode, expect, r.stdout, r.stderr))
    return r


def need_corpus():
    if not os.path.isdir(os.path.join(CORPUS, "mdl")):
        skip("corpus not found at %s (../shared/corpus)" % CORPUS)


def corpus(name):
    return os.path.join(CORPUS, "mdl", name)


def case_batch():
    need_corpus()
    src = open(corpus("minigun_mdl5.mdl"), "rb").read()
    broken = os.path.join(WORK, "broken.mdl")
    open(broken, "wb").write(src[:5000])  # inside the skin: truncated
    out = os.path.join(WORK, "out")
    report = os.path.join(WORK, "report.json")
    inputs = [corpus("trashcan.mdl"), broken, corpus("gate-101.mdl")]
    r = run(["-o", out, "--report", report] + inputs, expect=1)
    if "broken.mdl" not in r.stderr:
        fail("the failure is not named on stderr: %s" % r.stderr)
    for stem in ("trashcan", "gate-101"):
        p = os.path.join(out, stem + ".glb")
        if not os.path.isfile(p) or open(p, "rb").read(4) != b"glTF":
            fail("%s was not converted beside the broken file" % p)
    if os.path.exists(os.path.join(out, "broken.glb")):
        fail("the broken input left an output")
    if glob.glob(os.path.join(out, ".*")):
        fail("temporary files left: %s" % glob.glob(os.path.join(out, ".*")))
    rep = json.load(open(report))
    recs = {os.path.basename(x["input"]): x for x in rep["inputs"]}
    if [os.path.basename(x["input"]) for x in rep["inputs"]] != [os.path.basename(i) for i in inputs]:
        fail("report records are not in input order: %s" % list(recs))
    b = recs["broken.mdl"]
    if b["status"] != "error" or b["error"]["code"] != "truncated" or not isinstance(b["error"]["offset"], (int, float)):
        fail("report of the broken file: %s" % json.dumps(b))
    g = recs["gate-101.mdl"]
    if g["status"] != "ok" or g["error"] is not None or g["counts"]["frames"] != 30 or g["counts"]["skins"] != 1:
        fail("report of gate-101: %s" % json.dumps(g))
    for k in ("vertices", "triangles", "frames", "skins", "clips", "meshes", "joints", "animations"):
        if k not in g["counts"]:
            fail("report counts lack %s" % k)
    if rep["failed"] != 1 or rep["converted"] != 2:
        fail("report totals: %s failed, %s converted" % (rep["failed"], rep["converted"]))
    print("batch: exit 1, broken.mdl: %s at offset %s; the other two converted"
          % (b["error"]["message"], b["error"]["offset"]))

    # A directory input is searched recursively and mirrored below -o
    # (symbolic links to the corpus: no corpus bytes are copied).
    tree = os.path.join(WORK, "tree")
    os.makedirs(os.path.join(tree, "a", "b"))
    os.symlink(corpus("trashcan.mdl"), os.path.join(tree, "a", "b", "can.mdl"))
    os.symlink(corpus("mdl3-crystal.mdl"), os.path.join(tree, "crystal.MDL"))
    open(os.path.join(tree, "a", "notes.txt"), "w").write("not a model\n")
    mirror = os.path.join(WORK, "mirror")
    run(["--quiet", "-o", mirror, tree], expect=0)
    got = sorted(os.path.relpath(p, mirror) for p in glob.glob(os.path.join(mirror, "**", "*"), recursive=True)
                 if os.path.isfile(p))
    if got != ["a/b/can.glb", "crystal.glb"]:
        fail("mirrored tree: %s" % got)
    # Without -o: beside each input.
    run(["--quiet", os.path.join(tree, "a")], expect=0)
    if not os.path.isfile(os.path.join(tree, "a", "b", "can.glb")):
        fail("without -o the output is not beside the input")
    print("batch: directory tree mirrored: %s" % got)

    # MD5 folders: an .md5anim beside an .md5mesh belongs to the mesh, not
    # a second input (it would write the same Bob.glb).
    md5 = os.path.join(CORPUS, "md5")
    if os.path.isdir(md5):
        out5 = os.path.join(WORK, "md5")
        run(["--quiet", "-o", out5, md5], expect=0)
        got = sorted(os.path.relpath(p, out5) for p in glob.glob(os.path.join(out5, "**", "*"), recursive=True)
                     if os.path.isfile(p))
        want = sorted(os.path.relpath(os.path.splitext(p)[0] + ".glb", md5)
                      for p in glob.glob(os.path.join(md5, "**", "*.md5mesh"), recursive=True))
        if got != want:
            fail("md5 folder: wrote %s, expected one GLB per .md5mesh %s" % (got, want))
        print("batch: md5 folder: %s" % got)


def case_noforce():
    need_corpus()
    out = os.path.join(WORK, "can.glb")
    open(out, "wb").write(b"precious bytes")
    r = run(["-o", out, corpus("trashcan.mdl")], expect=1)
    if open(out, "rb").read() != b"precious bytes":
        fail("the existing output was changed without --force")
    if "exists" not in r.stderr:
        fail("the refusal does not say the output exists: %s" % r.stderr)
    run(["--quiet", "--force", "-o", out, corpus("trashcan.mdl")], expect=0)
    if open(out, "rb").read(4) != b"glTF":
        fail("--force did not replace the output")
    # --gltf: an existing .bin beside the .gltf also blocks, and nothing is written.
    gl = os.path.join(WORK, "sep.gltf")
    open(os.path.join(WORK, "sep.bin"), "wb").write(b"old bin")
    run(["--gltf", "-o", gl, corpus("trashcan.mdl")], expect=1)
    if os.path.exists(gl) or glob.glob(os.path.join(WORK, "sep_*.png")):
        fail("a refused --gltf output was partly written")
    if open(os.path.join(WORK, "sep.bin"), "rb").read() != b"old bin":
        fail("the existing .bin was changed")
    run(["--quiet", "--gltf", "--force", "-o", gl, corpus("trashcan.mdl")], expect=0)
    if not os.path.isfile(gl) or not glob.glob(os.path.join(WORK, "sep_*.png")):
        fail("--gltf --force wrote no .gltf / .png")
    print("noforce: refused and left byte-identical; --force replaces")


def tree_bytes(d):
    files = sorted(os.path.relpath(p, d) for p in glob.glob(os.path.join(d, "**", "*"), recursive=True)
                   if os.path.isfile(p))
    return files


def case_jobs():
    need_corpus()
    times = {}
    for mode in ([], ["--gltf"]):
        dirs = []
        for j in ("1", "2"):
            d = os.path.join(WORK, "j%s%s" % (j, "".join(mode)))
            t0 = time.monotonic()
            r = run(["--quiet", "-j", j, "-o", d] + mode + [os.path.join(CORPUS, "mdl")])
            times[(j, tuple(mode))] = time.monotonic() - t0
            if r.returncode not in (0, 1):  # 1: the MDL2/MDL7 files are refused
                fail("-j %s: exit %d: %s" % (j, r.returncode, r.stderr))
            dirs.append(d)
        a, b = (tree_bytes(x) for x in dirs)
        if a != b or not a:
            fail("-j 1 and -j 2 wrote different file sets: %s vs %s" % (a, b))
        for f in a:
            if not filecmp.cmp(os.path.join(dirs[0], f), os.path.join(dirs[1], f), shallow=False):
                fail("%s differs between -j 1 and -j 2" % f)
        size = sum(os.path.getsize(os.path.join(dirs[0], f)) for f in a)
        print("jobs%s: %d files, %d bytes, identical; -j1 %.2f s, -j2 %.2f s"
              % (" --gltf" if mode else "", len(a), size, times[("1", tuple(mode))], times[("2", tuple(mode))]))


def case_usage():
    for args in ([], ["--bogus", "x.mdl"], ["-j", "0", "x.mdl"], ["-j", "two", "x.mdl"],
                 ["--axes", "up", "x.mdl"], ["--fps", "-3", "x.mdl"], ["--scale", "0", "x.mdl"],
                 ["-o"], ["--quiet", "--verbose", "x.mdl"],
                 ["--palette", os.path.join(WORK, "no-such-palette.pcx"), "x.mdl"]):
        r = run(args, expect=2)
        if not r.stderr.strip():
            fail("usage error %s printed nothing" % args)
    if os.listdir(WORK):
        fail("a usage error wrote files: %s" % os.listdir(WORK))
    r = run([os.path.join(WORK, "missing.mdl")], expect=1)  # a missing input is a failure, not usage
    print("usage: 10 usage errors exit 2; a missing input exits 1: %s" % r.stderr.strip().splitlines()[0])


def case_help():
    r = run(["--help"], expect=0)
    for opt in ("-o", "--gltf", "-j", "--fps", "--palette", "--scale", "--axes", "--no-animation",
                "--force", "--report", "--quiet", "--verbose", "--version", "--help"):
        if opt not in r.stdout:
            fail("--help does not mention %s" % opt)
    v = run(["--version"], expect=0)
    if "mdl2gltf" not in v.stdout:
        fail("--version prints %r" % v.stdout)
    print("help: --help lists every option; %s" % v.stdout.strip())


CASES = {"batch": case_batch, "noforce": case_noforce, "jobs": case_jobs, "usage": case_usage,
         "help": case_help}

if len(sys.argv) != 5 or sys.argv[1] not in CASES:
    print(__doc__)
    sys.exit(2)
CASE, CONV, CORPUS, WORK = sys.argv[1:]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
CASES[CASE]()
print("PASS")
