#!/usr/bin/env python3
"""Inputs checked before they are read, and files the glTF must take.

usage: inputs_checked.py cli GSIO MDL2GLTF CORPUS_DIR WORK_DIR
       inputs_checked.py gltf MDL2GLTF CORPUS_DIR WORK_DIR E2E_DIR DATA_DIR

cli (needs no corpus; the corpus's levels are added when it is there):
- `gsio info` on a WAD says what the file is and what to convert instead,
  exit 1 as for any unsupported file; so does mdl2gltf. The corpus's
  Texturset.wad, and a crafted one.
- `gsio info` on a compiled level (.wmb) reads it: the corpus's WMB6/WMB7
  files print their version and lists, exit 0, and mdl2gltf converts them;
  a crafted WMB7 whose directory is empty is refused (exit 1) after its
  first bytes, a WMB3 too, naming the versions gsio reads.
- A 100 MB file of zeros named x.mdl is refused for its magic after its
  first bytes: under 1 s and 40 MB of peak memory more than 4 KB of zeros take (reading it whole
  takes 100 MB).
- A FIFO named x.mdl is refused at once, not waited on.

gltf (skipped without node or the validator):
- tests/data/empty_meshes.md5mesh (two meshes without vertices before a
  triangle) converts; the GLB passes the validator with 0 warnings.
- A model whose PNG texture has iCCP, cHRM, gAMA and a non-square pHYs,
  as a GLB and as a .gltf with its PNG file: no IMAGE_FEATURES_UNSUPPORTED
  (nor any warning).
- With the corpus: lottershock's Game/Assets and Game/Level converted with
  --path to both, and Bob (the corpus's PNG textures): no
  IMAGE_FEATURES_UNSUPPORTED in any output.
"""
import os
import resource
import shutil
import struct
import subprocess
import sys
import time
import zlib

from e2e_common import fail, skip


def run(cmd, timeout=60):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def fresh(work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)


def not_read_files(corpus, work):
    """[(path, what the message must say)]: crafted ones, and the corpus's."""
    files = []
    p = os.path.join(work, "textures.wad")
    with open(p, "wb") as f:
        f.write(b"WAD7" + bytes(60))
    files.append((p, "WAD texture archive (WAD7)"))
    p = os.path.join(corpus, "lottershock/Game/Level/Texturset.wad")
    if os.path.exists(p):
        files.append((p, "WAD texture archive (WAD7)"))
    return files


def check_not_read(gsio, conv, corpus, work):
    files = not_read_files(corpus, work)
    for path, want in files:
        for cmd in ([gsio, "info", path], [conv, "-o", os.path.join(work, "out"), path]):
            r = run(cmd)
            text = r.stdout + r.stderr
            if r.returncode != 1:
                fail("%s: exit %d, not 1:\n%s" % (" ".join(cmd), r.returncode, text))
            for part in (want, "convert the .wmp level", "--path"):
                if part not in text:
                    fail("%s: the message lacks %r:\n%s" % (" ".join(cmd), part, text))
    print("%d WADs named, exit 1" % len(files))


def check_wmb_read(gsio, conv, corpus, work):
    """The corpus's compiled levels are read; broken ones refused."""
    n = 0
    for rel in ("wmp/block.wmb", "wmp/empty.wmb", "wmb/wmb6-test.wmb",
                "lottershock/Game/Level/menue.wmb", "lottershock/Game/Level/bestiary.wmb"):
        p = os.path.join(corpus, rel)
        if not os.path.exists(p):
            continue
        with open(p, "rb") as f:
            v = f.read(4)[3:].decode()
        r = run([gsio, "info", p])
        text = r.stdout + r.stderr
        for part in ("WMB (version %s)" % v, "compiled: WMB%s" % v, "lists: "):
            if r.returncode != 0 or part not in text:
                fail("gsio info %s: exit %d, or no %r:\n%s" % (p, r.returncode, part, text))
        out = os.path.join(work, "wmb%d.glb" % n)
        r = run([conv, "-o", out, p])
        if r.returncode != 0 or not os.path.getsize(out):
            fail("mdl2gltf %s: exit %d:\n%s" % (p, r.returncode, r.stdout + r.stderr))
        n += 1
    for head, want in ((b"WMB7", "the list directory is empty"), (b"WMB3", "gsio reads WMB4 to WMB7")):
        p = os.path.join(work, "broken.wmb")
        with open(p, "wb") as f:
            f.write(head + bytes(8 << 20))
        r = run([gsio, "info", p])
        if r.returncode != 1 or want not in r.stdout + r.stderr:
            fail("gsio info on %s + zeros: exit %d, no %r:\n%s" % (head, r.returncode, want, r.stdout + r.stderr))
    print("%d compiled levels read, 2 broken ones refused" % n)


def run_peak(gsio, path):
    """gsio info PATH: (exit status, seconds, peak memory in MB, output)."""
    t0 = time.monotonic()
    child = subprocess.Popen([gsio, "info", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = child.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(child.pid, 0)
    return (os.waitstatus_to_exitcode(status), time.monotonic() - t0, usage.ru_maxrss / 1024.0, out)


def check_zeros(gsio, work):
    # Against the same command on 4 KB of zeros, so that a sanitizer's own
    # memory does not count: reading 100 MB whole would add 100 MB.
    small = os.path.join(work, "small.mdl")
    with open(small, "wb") as f:
        f.truncate(4096)
    _, base_secs, base_mb, _ = run_peak(gsio, small)
    p = os.path.join(work, "x.mdl")
    with open(p, "wb") as f:
        f.truncate(100 << 20)  # sparse: no disk space
    rc, secs, peak_mb, out = run_peak(gsio, p)
    print("100 MB of zeros as x.mdl: exit %d in %.3f s, peak %.1f MB (4 KB of zeros: %.1f MB): %s" %
          (rc, secs, peak_mb, base_mb, out.strip()))
    if rc != 1 or "magic 00 00 00 00" not in out:
        fail("x.mdl of zeros: expected exit 1 and the magic error")
    if peak_mb > base_mb + 40 or secs > base_secs + 1.0:
        fail("x.mdl of zeros was read whole (peak %.1f MB, %.3f s)" % (peak_mb, secs))
    os.remove(p)
    os.remove(small)


def check_fifo(gsio, work):
    p = os.path.join(work, "fifo.mdl")
    os.mkfifo(p)
    try:
        r = run([gsio, "info", p], timeout=10)
    except subprocess.TimeoutExpired:
        fail("gsio info blocked on a FIFO named x.mdl")
    if r.returncode != 1 or "FIFO" not in r.stderr + r.stdout:
        fail("FIFO: exit %d: %s" % (r.returncode, r.stderr + r.stdout))
    print("FIFO refused: %s" % (r.stderr + r.stdout).strip())


def validate(e2e, files):
    """{file: [(severity, code)]} of the Khronos validator on files."""
    r = run(["node", os.path.join(e2e, "gltf_validate.js")] + files, timeout=900)
    issues, cur = {}, None
    for line in r.stdout.splitlines():
        if not line.startswith("  ") and ": " in line:
            cur = line.split(": ")[0]
            issues[cur] = []
        elif cur and line.startswith("  "):
            parts = line.split()
            issues[cur].append((parts[0], parts[1]))
    missing = [f for f in files if f not in issues]
    if missing:
        fail("the validator did not report on %s:\n%s%s" % (missing, r.stdout, r.stderr))
    return issues


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def profiled_png():
    """A 2x2 RGB PNG with an ICC profile, custom primaries and gamma, and
    non-square pixels: every colour statement the validator warns about."""
    raw = b"".join(b"\0" + bytes([255, 0, 0, 0, 255, 0]) for _ in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)) +
            chunk(b"iCCP", b"custom\0\0" + zlib.compress(b"not a real profile")) +
            chunk(b"cHRM", struct.pack(">8I", *[10000 * (i + 1) for i in range(8)])) +
            chunk(b"gAMA", struct.pack(">I", 50000)) +
            chunk(b"pHYs", struct.pack(">IIB", 2835, 5670, 1)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


MESH = """MD5Version 10
commandline ""
numJoints 1
numMeshes 1
joints {
"root" -1 ( 0 0 0 ) ( 0 0 0 )
}
mesh {
shader "skin"
numverts 3
vert 0 ( 0 0 ) 0 1
vert 1 ( 1 0 ) 1 1
vert 2 ( 0 1 ) 2 1
numtris 1
tri 0 0 2 1
numweights 3
weight 0 0 1 ( 0 0 0 )
weight 1 0 1 ( 1 0 0 )
weight 2 0 1 ( 0 1 0 )
}
"""


def gltf_mode(conv, corpus, work, e2e, data):
    if not shutil.which("node"):
        skip("node is not installed (tools/setup-debian.sh)")
    if not os.path.isdir(os.path.join(e2e, "node_modules", "gltf-validator")):
        skip("gltf-validator is not installed in %s/node_modules" % e2e)
    fresh(work)
    outputs, strict = [], []
    # Empty MD5 meshes.
    glb = os.path.join(work, "empty_meshes.glb")
    r = run([conv, "-o", glb, os.path.join(data, "empty_meshes.md5mesh")])
    if r.returncode != 0:
        fail("empty_meshes.md5mesh did not convert: %s" % r.stderr)
    strict.append(glb)
    # A PNG texture with colour statements, as a GLB and as a .gltf.
    model = os.path.join(work, "profiled")
    os.makedirs(model)
    with open(os.path.join(model, "m.md5mesh"), "w") as f:
        f.write(MESH)
    with open(os.path.join(model, "skin.png"), "wb") as f:
        f.write(profiled_png())
    for ext in ("glb", "gltf"):
        out = os.path.join(work, "profiled." + ext)
        cmd = [conv, "-o", out] + (["--gltf"] if ext == "gltf" else []) + [os.path.join(model, "m.md5mesh")]
        r = run(cmd)
        if r.returncode != 0:
            fail("%s: %s" % (" ".join(cmd), r.stderr))
        strict.append(out)
    # The corpus: lottershock's game folders, and Bob.
    game = os.path.join(corpus, "lottershock", "Game")
    if os.path.isdir(game):
        out = os.path.join(work, "lottershock")
        assets, level = os.path.join(game, "Assets"), os.path.join(game, "Level")
        r = run([conv, "--path", assets, "--path", level, "-o", out + "/", assets, level], timeout=600)
        if r.returncode != 0:
            fail("lottershock: %s" % r.stderr[-2000:])
        outputs += sorted(os.path.join(out, f) for f in os.listdir(out) if f.endswith(".glb"))
    bob = os.path.join(corpus, "md5", "bob", "Bob.md5mesh")
    if os.path.exists(bob):
        out = os.path.join(work, "bob.glb")
        r = run([conv, "-o", out, bob], timeout=600)
        if r.returncode != 0:
            fail("Bob: %s" % r.stderr)
        outputs.append(out)
    issues = validate(e2e, strict + outputs)
    bad = 0
    for f in strict + outputs:
        flagged = [i for i in issues[f] if i[1] == "IMAGE_FEATURES_UNSUPPORTED"]
        wrong = issues[f] if f in strict else flagged
        if wrong:
            print("%s: %s" % (f, wrong))
            bad += 1
    print("%d outputs validated (%d of them required to be free of warnings): %d with "
          "IMAGE_FEATURES_UNSUPPORTED or, where required, other issues" %
          (len(strict) + len(outputs), len(strict), bad))
    if bad:
        fail("%d outputs with issues" % bad)


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == "cli":
        gsio, conv, corpus, work = sys.argv[2:6]
        fresh(work)
        check_not_read(gsio, conv, corpus, work)
        check_wmb_read(gsio, conv, corpus, work)
        check_zeros(gsio, work)
        check_fifo(gsio, work)
    elif len(sys.argv) >= 7 and sys.argv[1] == "gltf":
        gltf_mode(*sys.argv[2:7])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
