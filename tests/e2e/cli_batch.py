#!/usr/bin/env python3
"""--update and --files-from of mdl2gltf and `gsio convert`, on a real game
folder (the corpus' lottershock/) and the MD5 folder.

usage: cli_batch.py CASE MDL2GLTF GSIO CORPUS_DIR WORK_DIR

CASE is one of:
  update      the whole game folder converted (levels with --path at its
              Game/Assets and Game/Level), every GLB through the Khronos
              validator (0 errors, 0 warnings), then again with --update:
              nothing converted, exit 0, every record "up to date"; a model
              made newer (os.utime) is converted alone, a model a level
              places with that level, a WAD with its level; a missing output
              is written; `gsio convert --update` converts an .md5mesh again
              when the .md5anim beside it is newer; --update with --force is
              a usage error. Prints the times of the first run and the rerun.
  files_from  a list split in two (one part in a file, one NUL-separated on
              standard input) gives, run twice, the same files byte for byte
              as one run over the whole list, and .jsonl reports that joined
              are the whole run's records; an empty list converts nothing
              (exit 0); an input outside --base fails; -0 without
              --files-from is a usage error
Exits 77 (skipped) when the corpus is absent.
"""
import json
import os
import shutil
import subprocess
import sys
import time

from e2e_common import skip, fail  # noqa: E402

LEVEL_PATHS = ["--path", "Game/Assets", "--path", "Game/Level"]


def run(cmd, args, expect, cwd=None, stdin=None):
    t0 = time.monotonic()
    r = subprocess.run([cmd] + args, capture_output=True, cwd=cwd, input=stdin)
    r.seconds = time.monotonic() - t0
    r.out, r.err = r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")
    if r.returncode != expect:
        fail("%s %s: exit %d, expected %d\nstdout: %s\nstderr: %s"
             % (os.path.basename(cmd), " ".join(args), r.returncode, expect, r.out[-2000:], r.err[-2000:]))
    return r


def records(path):
    """The records of a report: an object's "inputs", or a .jsonl file's lines."""
    with open(path) as f:
        if path.endswith(".jsonl"):
            return [json.loads(line) for line in f if line.strip()]
        return json.load(f)["inputs"]


def statuses(path):
    return {r["input"]: r["status"] for r in records(path)}


def tree(root):
    """{path below root: bytes} of every file below root."""
    got = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                got[os.path.relpath(p, root)] = fh.read()
    return got


def make_newer(path):
    """Sets path's time to now as the file system tells it, so that the outputs
    written so far are older and those written next are not. The kernel stamps
    files from a clock that can lag time.time_ns() by a tick (4-10 ms): an
    input set to time.time_ns() could be newer than an output written right
    after it. So the time is read off a file made for it, after a pause longer
    than a tick, as `touch` would set it."""
    time.sleep(0.02)
    stamp = path + ".stamp"
    with open(stamp, "w"):
        pass
    now = os.stat(stamp).st_mtime_ns
    os.unlink(stamp)
    os.utime(path, ns=(now, now))


def game_copy():
    src = os.path.join(CORPUS, "lottershock")
    if not os.path.isdir(os.path.join(src, "Game")):
        skip("corpus lottershock/ not found at %s (../shared/corpus)" % CORPUS)
    game = os.path.join(WORK, "lottershock")
    shutil.copytree(src, game)  # the corpus is read-only: times are set on the copy
    for d, _, files in os.walk(game):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)
    return game


def validate(outputs, total):
    """The Khronos validator on every output: 0 errors and 0 warnings."""
    e2e = os.path.dirname(os.path.abspath(__file__))
    if not shutil.which("node") or not os.path.isdir(os.path.join(e2e, "node_modules", "gltf-validator")):
        skip("node or gltf-validator is not installed (tools/setup-debian.sh)")
    glbs = [p for p in outputs if p.endswith(".glb")]
    if len(glbs) != total:
        fail("%d inputs converted but %d GLBs written" % (total, len(glbs)))
    r = subprocess.run(["node", os.path.join(e2e, "gltf_validate.js")] + glbs, capture_output=True, text=True)
    if r.returncode != 0:
        fail("the validator reports errors or warnings:\n%s%s" % (r.stdout[-4000:], r.stderr[-2000:]))
    print("the whole game folder: %d GLBs, 0 validator errors and 0 warnings" % len(glbs))


def converted_by(report):
    return sorted(i for i, s in statuses(report).items() if s == "ok")


def case_update():
    game = game_copy()
    out = os.path.join(WORK, "out")
    rep = os.path.join(WORK, "report.json")
    args = ["--quiet", "-o", out, "--report", rep] + LEVEL_PATHS + ["."]
    first = run(MDL2GLTF, args, 0, cwd=game)
    total = len(records(rep))
    if total < 30 or any(s != "ok" for s in statuses(rep).values()):
        fail("the first run: %s" % statuses(rep))
    validate(sorted(os.path.join(out, p) for p in tree(out)), total)
    levels = sum(r["input"].lower().endswith(".wmp") for r in records(rep))
    if levels < 3:
        fail("the game folder's levels were not converted: %d" % levels)
    before = {p: os.stat(os.path.join(out, p)).st_mtime_ns for p in tree(out)}
    again = run(MDL2GLTF, ["--update", "--verbose"] + args[1:], 0, cwd=game)
    st = statuses(rep)
    if set(st.values()) != {"up to date"}:
        fail("--update on a converted folder: %s" % st)
    whole = json.load(open(rep))
    if (whole["converted"], whole["failed"], whole["up_to_date"]) != (0, 0, total):
        fail("report counts: %s" % {k: whole[k] for k in ("converted", "failed", "up_to_date")})
    if again.out.count(" up to date\n") != total:
        fail("--verbose says up to date %d times, not %d:\n%s" % (again.out.count(" up to date\n"), total, again.out))
    if "converted 0 of %d files (0 failed, %d up to date)" % (total, total) not in again.err:
        fail("the summary: %r" % again.err)
    if {p: os.stat(os.path.join(out, p)).st_mtime_ns for p in tree(out)} != before:
        fail("--update rewrote outputs that were up to date")
    print("lottershock: %d files converted in %.2f s; --update rerun %.3f s, all up to date"
          % (total, first.seconds, again.seconds))
    # Without --update an existing output is still an error.
    run(MDL2GLTF, args, 1, cwd=game)

    def newer_then_update(touched, expected, what="newer"):
        for t in touched:
            make_newer(os.path.join(game, t))
        run(MDL2GLTF, ["--update"] + args, 0, cwd=game)
        got = converted_by(rep)
        if got != sorted("./" + e for e in expected):
            fail("after %s %s, --update converted %s, not %s" % (", ".join(touched), what, got, expected))
        print("%s %s: converted %s" % (", ".join(touched), what, ", ".join(expected)))

    newer_then_update(["Game/Assets/griechin.mdl"], ["Game/Assets/griechin.mdl"])
    newer_then_update(["Game/Assets/KisteA.mdl"], ["Game/Assets/KisteA.mdl", "Game/Level/bestiary.wmp"])
    newer_then_update(["Game/Level/Texturset.wad"], ["Game/Level/menue.wmp"])
    newer_then_update(["Game/Assets/poster01.tga"], ["Game/Level/bestiary.wmp"])
    os.unlink(os.path.join(out, "Game", "Assets", "plank.glb"))
    newer_then_update([], ["Game/Assets/plank.mdl"], "plank.glb removed")
    run(MDL2GLTF, ["--update", "--force"] + args, 2, cwd=game)

    # gsio convert: an .md5mesh is made from the .md5anim beside it.
    md5 = os.path.join(WORK, "md5")
    shutil.copytree(os.path.join(CORPUS, "md5"), md5)
    for d, _, files in os.walk(md5):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)
    md5_out = os.path.join(WORK, "md5_out")
    crep = os.path.join(WORK, "convert.json")
    cargs = ["convert", "-q", "-f", "glb", md5, "-o", md5_out, "--report", crep]
    run(GSIO, cargs, 0)
    run(GSIO, cargs[:1] + ["--update"] + cargs[1:], 0)
    if set(statuses(crep).values()) != {"up to date"}:
        fail("gsio convert --update: %s" % statuses(crep))
    make_newer(os.path.join(md5, "bob", "Bob.md5anim"))
    run(GSIO, cargs[:1] + ["--update"] + cargs[1:], 0)
    got = sorted(os.path.relpath(i, md5) for i, s in statuses(crep).items() if s == "ok")
    if got != ["bob/Bob.md5mesh"]:
        fail("after Bob.md5anim changed, gsio convert --update converted %s" % got)
    run(GSIO, ["convert", "--update", os.path.join(md5, "SimpleCube.md5mesh"), "-o", "-"], 2)
    print("gsio convert --update: Bob.md5anim newer converts Bob.md5mesh alone")


def case_files_from():
    src = os.path.join(CORPUS, "lottershock")
    if not os.path.isdir(os.path.join(src, "Game")):
        skip("corpus lottershock/ not found at %s (../shared/corpus)" % CORPUS)
    listed = []
    for d, _, files in os.walk(src):
        for f in files:
            if f.lower().endswith((".mdl", ".wmp")):
                listed.append(os.path.relpath(os.path.join(d, f), src))
    listed.sort()
    whole_list = os.path.join(WORK, "all.txt")
    with open(whole_list, "w") as f:
        f.write("".join(p + "\n" for p in listed))
    one, two = os.path.join(WORK, "one"), os.path.join(WORK, "two")
    common = ["--quiet"] + LEVEL_PATHS
    run(MDL2GLTF, common + ["--files-from", whole_list, "-o", one, "--report", os.path.join(WORK, "one.jsonl")], 0, cwd=src)
    half = len(listed) // 2
    part = os.path.join(WORK, "part1.txt")
    with open(part, "w") as f:
        f.write("".join(p + "\r\n" for p in listed[:half]))  # a list written on Windows
    run(MDL2GLTF, common + ["--files-from", part, "-o", two, "--report", os.path.join(WORK, "p1.jsonl")], 0, cwd=src)
    nul = "".join(p + "\0" for p in listed[half:]).encode()
    run(MDL2GLTF, common + ["-0", "--files-from", "-", "-o", two, "--report", os.path.join(WORK, "p2.jsonl")], 0,
        cwd=src, stdin=nul)
    a, b = tree(one), tree(two)
    if len(a) != len(listed):
        fail("one run wrote %d files for %d listed inputs" % (len(a), len(listed)))
    if a != b:
        fail("a split list wrote other files than the whole: %s"
             % sorted(p for p in set(a) | set(b) if a.get(p) != b.get(p))[:5])
    # flamemother.mdl is in two folders: mirrored paths keep them apart.
    if sum(p.endswith("flamemother.glb") for p in a) != 2:
        fail("the two flamemother.mdl do not have an output each: %s" % sorted(a))
    joined = records(os.path.join(WORK, "p1.jsonl")) + records(os.path.join(WORK, "p2.jsonl"))
    whole = records(os.path.join(WORK, "one.jsonl"))
    if sorted(r["input"] for r in joined) != sorted(r["input"] for r in whole) or len(joined) != len(listed):
        fail("the parts' .jsonl records joined are not the whole run's")
    print("%d listed inputs: two parts (a file, NUL-separated on standard input) wrote the same %d files as one run"
          % (len(listed), len(a)))

    # gsio convert: the same rule.
    g1, g2 = os.path.join(WORK, "g1"), os.path.join(WORK, "g2")
    models = [p for p in listed if p.startswith("Game/Assets/")]
    with open(os.path.join(WORK, "models.txt"), "w") as f:
        f.write("\n".join(models))
    run(GSIO, ["convert", "-q", "-f", "glb", "--files-from", os.path.join(WORK, "models.txt"), "-o", g1], 0, cwd=src)
    for m in models:
        run(GSIO, ["convert", "-q", "-f", "glb", "--files-from", "-", "-o", g2], 0, cwd=src, stdin=m.encode())
    if tree(g1) != tree(g2) or len(tree(g1)) != len(models):
        fail("gsio convert: one list and one run per listed input differ")
    print("gsio convert: %d inputs listed at once or one a run: the same files" % len(models))

    # --base: the paths below it are mirrored; an input outside it fails.
    base_out = os.path.join(WORK, "base")
    run(MDL2GLTF, ["--quiet", "--base", "Game", "--files-from", "-", "-o", base_out], 0, cwd=src,
        stdin=b"Game/Assets/KisteA.mdl\n")
    if list(tree(base_out)) != ["Assets/KisteA.glb"]:
        fail("--base Game: %s" % list(tree(base_out)))
    r = run(MDL2GLTF, ["--base", "Game/Level", "-o", base_out, "Game/Assets/plank.mdl"], 1, cwd=src)
    if "is not below Game/Level" not in r.err:
        fail("an input outside --base: %r" % r.err)
    # An empty part of a split list: nothing to do.
    empty = os.path.join(WORK, "empty.jsonl")
    run(MDL2GLTF, ["--files-from", "-", "-o", os.path.join(WORK, "none"), "--report", empty], 0, stdin=b"")
    if records(empty):
        fail("an empty list has records")
    run(MDL2GLTF, ["-0", "-o", base_out, os.path.join(src, "Game/Assets/KisteA.mdl")], 2)
    run(GSIO, ["convert", "--files-from", "-", "-", "-o", base_out, "-f", "glb"], 2, stdin=b"x.mdl\n")
    print("--base, an empty list, -0 alone, '-' with --files-from -: as documented")


CASES = {"update": case_update, "files_from": case_files_from}

if len(sys.argv) != 6 or sys.argv[1] not in CASES:
    print(__doc__)
    sys.exit(2)
CASE, MDL2GLTF, GSIO, CORPUS, WORK = sys.argv[1:]
MDL2GLTF, GSIO, CORPUS = (os.path.abspath(p) for p in (MDL2GLTF, GSIO, CORPUS))  # runs elsewhere
WORK = os.path.abspath(WORK)
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
CASES[CASE]()
print("PASS")
