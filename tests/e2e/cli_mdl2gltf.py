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
  options    --fps, --scale, --axes source, --no-animation, --palette and
             --anim change the output as documented, on .mdl, .hmp and
             .md5mesh inputs (read back from the GLB), and every output
             passes the validator when it is installed
  help       --help and --version exit 0; --help names every option
  sigint     SIGINT during a -j2 batch (many symlinks to golem and human)
             kills the command and leaves no temporary file in the output
             folder (gsioi_install_cleanup_handlers)
  writeerr   an output that cannot be written (a path whose parent is a
             file, a read-only folder) fails with exit 1 and a message naming
             the output asked for, never a temporary name
Exits 77 (skipped) when a case needs the corpus and it is absent.
"""
import filecmp
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import time

from e2e_common import skip, fail, png_decode  # noqa: E402


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
    # The records are gsio's shared ones (README "Records"), as gsio info --json.
    if g["status"] != "ok" or g["error"] is not None or g["frames"] != 30 or len(g["skins"]) != 1:
        fail("report of gate-101: %s" % json.dumps(g))
    for k in ("vertices", "triangles", "frames", "skins", "clips", "meshes", "joints", "animations",
              "format", "output", "warnings", "seconds"):
        if k not in g:
            fail("report record lacks %s" % k)
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
    # Refused before the input is loaded: a broken input with an existing
    # output is reported as the output's refusal, not as a load error.
    bad = os.path.join(WORK, "broken_in.mdl")
    open(bad, "wb").write(b"MDL7 not a model")
    r = run(["-o", out, bad], expect=1)
    if "exists (not replaced)" not in r.stderr or "corrupt" in r.stderr.lower() or "truncated" in r.stderr.lower():
        fail("an existing output was not refused before the load: %s" % r.stderr)
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
                 ["-o"], ["--quiet", "--verbose", "x.mdl"], ["--anim"],
                 ["--anim", "a.md5anim", "--no-animation", "x.md5mesh"],
                 ["--palette", os.path.join(WORK, "no-such-palette.pcx"), "x.mdl"],
                 # no writer for .obj; a file name for several inputs or a folder
                 ["-o", os.path.join(WORK, "x.obj"), "x.mdl"],
                 ["-o", os.path.join(WORK, "two.glb"), "x.mdl", "y.mdl"],
                 ["-o", os.path.join(WORK, "tree.glb"), os.path.dirname(WORK) or "."]):
        r = run(args, expect=2)
        if not r.stderr.strip():
            fail("usage error %s printed nothing" % args)
    if os.listdir(WORK):
        fail("a usage error wrote files: %s" % os.listdir(WORK))
    r = run([os.path.join(WORK, "missing.mdl")], expect=1)  # a missing input is a failure, not usage
    print("usage: 15 usage errors exit 2; a missing input exits 1: %s" % r.stderr.strip().splitlines()[0])


def glb_json(path):
    data = open(path, "rb").read()
    if data[:4] != b"glTF":
        fail("%s is not a GLB" % path)
    n = struct.unpack("<I", data[12:16])[0]
    return json.loads(data[20:20 + n])


def glb_images(path):
    # The embedded PNGs, by bufferView (GLB chunk 1 is the binary buffer).
    data = open(path, "rb").read()
    n = struct.unpack("<I", data[12:16])[0]
    doc = json.loads(data[20:20 + n])
    binary = data[20 + n + 8:]
    out = []
    for im in doc.get("images", []):
        v = doc["bufferViews"][im["bufferView"]]
        out.append(binary[v.get("byteOffset", 0):v.get("byteOffset", 0) + v["byteLength"]])
    return out


def bounds(doc):
    # min/max of every POSITION accessor, and the longest animation (s).
    acc = doc["accessors"]
    pos = [acc[p["attributes"]["POSITION"]] for m in doc["meshes"] for p in m["primitives"]]
    mn = [min(a["min"][k] for a in pos) for k in range(3)]
    mx = [max(a["max"][k] for a in pos) for k in range(3)]
    return mn, mx


def anim_end(doc):
    acc = doc["accessors"]
    return max((acc[s["input"]]["max"][0] for a in doc.get("animations", []) for s in a["samplers"]),
               default=0.0)


def targets(doc):
    return sum(len(p.get("targets", [])) for m in doc["meshes"] for p in m["primitives"])


def close(a, b, tol=1e-3):
    return all(abs(x - y) <= tol * max(1.0, abs(y)) for x, y in zip(a, b))


def case_options():
    need_corpus()
    outputs = []

    def conv(name, src, *opts):
        out = os.path.join(WORK, name + ".glb")
        run(["--quiet", "-o", out] + list(opts) + [src], expect=0)
        outputs.append(out)
        return glb_json(out)

    models = [("mdl", corpus("minigun_mdl5.mdl")),
              ("hmp", os.path.join(CORPUS, "hmp", "shadow-5.hmp")),
              ("md5", os.path.join(CORPUS, "md5", "bob", "Bob.md5mesh"))]
    for tag, src in models:
        if not os.path.isfile(src):
            fail("corpus file %s is missing" % src)
        base = conv(tag, src)
        mn, mx = bounds(base)
        # --scale 2: every position twice as far from the origin.
        s2 = conv(tag + "_scale", src, "--scale", "2")
        smn, smx = bounds(s2)
        if not (close(smn, [2 * v for v in mn]) and close(smx, [2 * v for v in mx])):
            fail("%s --scale 2: bounds %s..%s, default %s..%s" % (tag, smn, smx, mn, mx))
        # --axes source: the file's (x, y, z); the default writes (y, z, x).
        src_axes = conv(tag + "_axes", src, "--axes", "source")
        amn, amx = bounds(src_axes)
        if not (close(amn, [mn[2], mn[0], mn[1]]) and close(amx, [mx[2], mx[0], mx[1]])):
            fail("%s --axes source: bounds %s..%s, default %s..%s" % (tag, amn, amx, mn, mx))
        # --no-animation: no animation, no morph targets.
        na = conv(tag + "_noanim", src, "--no-animation")
        if na.get("animations") or targets(na):
            fail("%s --no-animation: %d animations, %d targets" % (tag, len(na.get("animations", [])), targets(na)))
        print("options: %s: --scale 2 doubles %s..%s; --axes source gives %s..%s; --no-animation "
              "drops %d animations, %d targets" % (tag, [round(v, 2) for v in mn], [round(v, 2) for v in mx],
                                                   [round(v, 2) for v in amn], [round(v, 2) for v in amx],
                                                   len(base.get("animations", [])), targets(base)))
        if tag == "hmp":
            # Heights are the source z, unscaled and unmoved: -229.08 .. 601.25.
            if not (abs(amn[2] + 229.08) < 0.01 and abs(amx[2] - 601.25) < 0.01):
                fail("hmp --axes source: z range %s..%s" % (amn[2], amx[2]))

    # --fps: minigun's 8-frame clip `shot` ends at 7 / fps seconds.
    for fps, want in ((None, 0.7), ("20", 0.35)):
        doc = conv("mdl_fps%s" % (fps or ""), corpus("minigun_mdl5.mdl"), *(["--fps", fps] if fps else []))
        if abs(anim_end(doc) - want) > 1e-4:
            fail("--fps %s: the clip ends at %s s, expected %s" % (fps, anim_end(doc), want))
    # MD5 keeps its stored frameRate (24): 140 frames end at 139/24 s.
    doc = conv("md5_fps", models[2][1], "--fps", "10")
    if abs(anim_end(doc) - 139 / 24) > 1e-4:
        fail("md5 with --fps 10: the animation ends at %s s, expected 139/24" % anim_end(doc))
    print("options: --fps 20 ends minigun's clip at 0.35 s (default 0.7); MD5 keeps its 24 fps")

    # --anim: the named files instead of the siblings, named after the file;
    # a skeleton that does not match is a failure of that input.
    walk = os.path.join(WORK, "walk.md5anim")
    os.symlink(os.path.join(CORPUS, "md5", "bob", "Bob.md5anim"), walk)
    doc = conv("md5_anim", models[2][1], "--anim", walk)
    names = [a["name"] for a in doc.get("animations", [])]
    if names != ["walk"]:
        fail("--anim walk.md5anim: animations %s, expected ['walk']" % names)
    doc = conv("md5_anim2", models[2][1], "--anim", walk, "--anim", os.path.join(CORPUS, "md5", "bob", "Bob.md5anim"))
    names = [a["name"] for a in doc.get("animations", [])]
    if names != ["walk", "Bob"]:
        fail("--anim twice: animations %s, expected ['walk', 'Bob']" % names)
    cube = os.path.join(CORPUS, "md5", "SimpleCube.md5mesh")
    bad = os.path.join(WORK, "cube_bad.glb")
    r = run(["--quiet", "-o", bad, "--anim", walk, cube], expect=1)
    if os.path.exists(bad) or "walk.md5anim" not in r.stderr:
        fail("--anim with another skeleton: output %s, stderr %s" % (os.path.exists(bad), r.stderr))
    print("options: --anim picks [walk], then [walk, Bob]; on SimpleCube: %s" % r.stderr.strip())

    # --palette: the 8-bit sample through an all-black palette is all black,
    # and differs from the built-in palette's.
    pal8 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "pal8.mdl")
    if os.path.isfile(pal8):
        black = os.path.join(WORK, "black.raw")
        open(black, "wb").write(bytes(768))
        conv("pal_default", pal8)
        conv("pal_black", pal8, "--palette", black)
        d_img = glb_images(os.path.join(WORK, "pal_default.glb"))
        b_img = glb_images(os.path.join(WORK, "pal_black.glb"))
        if len(d_img) != 1 or len(b_img) != 1 or d_img == b_img:
            fail("--palette did not change the 8-bit skin")
        w, h, ch, rows = png_decode(b_img[0])
        lit = sum(1 for row in rows for k in range(0, len(row), ch) if any(row[k:k + 3]))
        if lit:
            fail("--palette black.raw: %d of %d texels are not black" % (lit, w * h))
        w, h, ch, rows = png_decode(d_img[0])
        lit = sum(1 for row in rows for k in range(0, len(row), ch) if any(row[k:k + 3]))
        if not lit:
            fail("the built-in palette gives an all-black skin")
        print("options: --palette black.raw: all %dx%d texels black (built-in palette: %d lit)" % (w, h, lit))
    else:
        print("note: samples/pal8.mdl not found: --palette not checked")

    validator = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node_modules", "gltf-validator")
    if shutil.which("node") and os.path.isdir(validator):
        r = subprocess.run(["node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gltf_validate.js")]
                           + outputs, capture_output=True, text=True)
        if r.returncode != 0:
            fail("the validator reports errors or warnings:\n" + r.stdout + r.stderr)
        print("options: %d outputs valid (0 errors, 0 warnings)" % len(outputs))
    else:
        print("note: validator not installed: outputs not validated")


def case_help():
    r = run(["--help"], expect=0)
    for opt in ("-o", "--gltf", "-j", "--fps", "--palette", "--scale", "--axes", "--no-animation",
                "--anim", "--force", "--report", "--quiet", "--verbose", "--version", "--help"):
        if opt not in r.stdout:
            fail("--help does not mention %s" % opt)
    v = run(["--version"], expect=0)
    if "mdl2gltf" not in v.stdout:
        fail("--version prints %r" % v.stdout)
    print("help: --help lists every option; %s" % v.stdout.strip())


def leftovers(folder):
    """Temporary files (".<name>.<pid>.<n>.tmp") anywhere below folder."""
    out = []
    for root, _, files in os.walk(folder):
        out += [os.path.join(root, f) for f in files if f.endswith(".tmp")]
    return out


def case_sigint():
    need_corpus()
    import signal
    src = os.path.join(WORK, "in")
    os.makedirs(src)
    for i in range(60):
        for name in ("mdl4-golem.mdl", "mdl4-human.mdl"):
            os.symlink(corpus(name), os.path.join(src, "%02d_%s" % (i, name)))
    out = os.path.join(WORK, "out")
    interrupted = 0
    # Several tries at different moments: one of them lands mid-write.
    for delay in (0.3, 0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 1.7):
        shutil.rmtree(out, ignore_errors=True)
        p = subprocess.Popen([CONV, "--quiet", "--gltf", "-j2", "-o", out, src],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(delay)
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
            interrupted += 1
        p.wait(timeout=300)
        if p.returncode == 0 and delay == 0.3:
            fail("the batch finished within %.1f s: make it bigger" % delay)
        left = leftovers(out) if os.path.isdir(out) else []
        if left:
            fail("SIGINT after %.1f s left %d temporary files: %s" % (delay, len(left), left[:3]))
        written = len(glob.glob(os.path.join(out, "**", "*.gltf"), recursive=True))
        print("SIGINT after %.1f s: exit %d, %d outputs written, no temporary file"
              % (delay, p.returncode, written))
    if not interrupted:
        fail("the batch always finished before the signal")


def case_writeerr():
    need_corpus()
    blocker = os.path.join(WORK, "afile")
    with open(blocker, "w") as f:
        f.write("x")
    target = os.path.join(blocker, "sub", "out.glb")
    r = run(["--quiet", "-o", target, corpus("trashcan.mdl")], expect=1)
    if target not in r.stderr and os.path.join(blocker, "sub") not in r.stderr:
        fail("the error does not name the output: %r" % r.stderr)
    if ".tmp" in r.stderr:
        fail("the error names a temporary file: %r" % r.stderr)
    ro = os.path.join(WORK, "readonly")
    os.makedirs(ro)
    os.chmod(ro, 0o555)
    try:
        if os.access(ro, os.W_OK):
            print("writeerr: running as root, the read-only folder is writable: part skipped")
        else:
            target = os.path.join(ro, "out.glb")
            r = run(["--quiet", "-o", target, corpus("trashcan.mdl")], expect=1)
            if target not in r.stderr:
                fail("the error does not name the output %s: %r" % (target, r.stderr))
            if ".tmp" in r.stderr:
                fail("the error names a temporary file: %r" % r.stderr)
            if os.listdir(ro):
                fail("the read-only folder got files: %s" % os.listdir(ro))
            print("writeerr: %s" % r.stderr.strip())
    finally:
        os.chmod(ro, 0o755)
    print("writeerr: errors name the output asked for")
    # A file size limit (ulimit -f, as a full disk) while a .gltf set is
    # written over an older one: a reported error (not SIGXFSZ's kill), the
    # old .gltf, .bin and skin as they were, no temporary file.
    import resource
    out = os.path.join(WORK, "set")
    os.makedirs(out)
    target = os.path.join(out, "s.gltf")
    run(["--quiet", "-o", target, corpus("mdl4-golem.mdl")], expect=0)

    def contents():
        return {f: open(os.path.join(out, f), "rb").read() for f in tree_bytes(out)}

    before = contents()
    limit = 1000000  # the golem set's .bin is 4.8 MB, shadow-5's skin 2 MB

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    r = subprocess.run([CONV, "--quiet", "--force", "-o", target, os.path.join(CORPUS, "hmp", "shadow-5.hmp")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=small_files)
    if r.returncode != 1:
        fail("a write past the file size limit: exit %d (1 expected): %r" % (r.returncode, r.stderr))
    if "File too large" not in r.stderr or out not in r.stderr:
        fail("the error does not say what and where: %r" % r.stderr)
    if leftovers(out):
        fail("temporary files left: %s" % leftovers(out))
    now = contents()
    if now != before:
        fail("the old .gltf set changed: %s" % sorted(f for f in set(now) | set(before) if now.get(f) != before.get(f)))
    print("writeerr: past the file size limit, %s; the old set as it was" % r.stderr.strip())


CASES = {"sigint": case_sigint, "writeerr": case_writeerr, "batch": case_batch, "noforce": case_noforce, "jobs": case_jobs, "usage": case_usage,
         "options": case_options, "help": case_help}

if len(sys.argv) != 5 or sys.argv[1] not in CASES:
    print(__doc__)
    sys.exit(2)
CASE, CONV, CORPUS, WORK = sys.argv[1:]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
CASES[CASE]()
print("PASS")
