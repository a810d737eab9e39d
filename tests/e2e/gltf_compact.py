#!/usr/bin/env python3
"""mdl2gltf --compact (KHR_mesh_quantization) end to end.

usage: gltf_compact.py MDL2GLTF CORPUS_DIR WORK_DIR E2E_DIR [blender]

1. Every corpus MDL (mdl/ and lottershock), HMP, MD5 mesh and lottershock
   level (.wmp, with --path Game/Assets) converted with --compact to .glb; the Khronos validator must report 0 errors and 0
   warnings on each, and each must declare KHR_mesh_quantization in
   extensionsUsed and extensionsRequired.
2. Each is converted again without --compact: the images of both outputs
   must be the same PNGs but for their deflate streams (same count, same
   IHDR, the same filtered rows once inflated), so --compact changes how the
   rows are compressed and nothing they hold; each compact image at most
   1.02 times the default's (a few KB of rows can come out slightly larger
   through libdeflate than through the default's fitted codes), and each
   compact file at most 1.05 times the size it
   has with its images' rows compressed by zlib at level 9 (compress2's
   stream, what --compact wrote before it compressed each image once).
3. golem.glb --compact must be at most the size of mdl4-golem.mdl (both
   printed).
4. With "blender": the float and the compact golem are imported by Blender
   (gltf_compact_blender.py): 232 shape keys, and every vertex of the compact
   one within one quantisation step of the float one at frame 0 and a mid
   frame.
Exits 77 (skipped) without the corpus, node, the validator or Blender.
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

from e2e_common import skip, fail  # noqa: E402


def glb_json(path):
    with open(path, "rb") as f:
        b = f.read()
    n = struct.unpack("<I", b[12:16])[0]
    return json.loads(b[20:20 + n])


def glb_images(path):
    """(IHDR, inflated IDAT rows, length of the zlib stream) of each image."""
    with open(path, "rb") as f:
        b = f.read()
    n = struct.unpack("<I", b[12:16])[0]
    j = json.loads(b[20:20 + n])
    binc = b[20 + n + 8:]
    out = []
    for im in j.get("images", []):
        v = j["bufferViews"][im["bufferView"]]
        o = v.get("byteOffset", 0)
        png = binc[o:o + v["byteLength"]]
        if png[:8] != b"\x89PNG\r\n\x1a\n":
            fail("%s: an image that is not a PNG" % path)
        i, ihdr, idat = 8, None, []
        while i + 8 <= len(png):
            ln, typ = struct.unpack(">I4s", png[i:i + 8])
            if typ == b"IHDR":
                ihdr = png[i + 8:i + 8 + ln]
            elif typ == b"IDAT":
                idat.append(png[i + 8:i + 8 + ln])
            i += 12 + ln
        stream = b"".join(idat)
        out.append((ihdr, zlib.decompress(stream), len(stream)))
    return out


def same_pixels(conv, src, compact_out, work):
    """Checks 2: returns (compact bytes, zlib 9 bytes) of the file's images."""
    plain = os.path.join(work, "plain.glb")
    convert(conv, src, plain, compact=False)
    a, c = glb_images(plain), glb_images(compact_out)
    if len(a) != len(c):
        fail("%s: %d images compact, %d default" % (src, len(c), len(a)))
    ours = ref = 0
    for k, (x, y) in enumerate(zip(a, c)):
        if x[0] != y[0] or x[1] != y[1]:
            fail("%s: image %d: --compact changed the PNG's header or rows" % (src, k))
        if y[2] > 1.02 * x[2]:
            fail("%s: image %d: compact stream %d bytes, default %d" % (src, k, y[2], x[2]))
        ours += y[2]
        ref += len(zlib.compress(y[1], 9))
    return ours, ref


def convert(conv, src, out, compact=True):
    cmd = [conv, "--quiet", "--force", "-o", out, src] + (["--compact"] if compact else [])
    if src.lower().endswith(".wmp"):
        cmd += ["--path", os.path.join(os.path.dirname(os.path.dirname(src)), "Assets")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: exit %d: %s" % (src, r.returncode, r.stderr.strip()))


def blender_check(conv, golem, work, e2e):
    blender = shutil.which("blender")
    if not blender:
        skip("blender is not installed")
    flt = os.path.join(work, "golem_float.glb")
    cmp_ = os.path.join(work, "golem_compact.glb")
    convert(conv, golem, flt, compact=False)
    convert(conv, golem, cmp_)
    j = glb_json(cmp_)
    scale = max(n.get("scale", [0])[0] for n in j["nodes"] if "mesh" in n)
    step = scale / 127.0  # one morph-delta step, the coarser of the two grids
    # Blender's Python must not see a pyenv / virtualenv interpreter.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYENV", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH"))}
    env["PATH"] = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                  if ".pyenv" not in p and "virtualenv" not in p)
    r = subprocess.run([blender, "-b", "--factory-startup", "-P", os.path.join(e2e, "gltf_compact_blender.py"),
                        "--", flt, cmp_, "232", repr(step)], capture_output=True, text=True, env=env)
    lines = [l for l in r.stdout.splitlines() if l.startswith("gltf_compact")]
    print("\n".join(lines))
    if r.returncode != 0 or "gltf_compact: PASS" not in lines:
        fail("Blender check failed (exit %d)\n%s" % (r.returncode, r.stderr[-2000:]))


def main():
    if len(sys.argv) not in (5, 6):
        print(__doc__)
        sys.exit(2)
    conv, corpus, work, e2e = sys.argv[1:5]
    golem = os.path.join(corpus, "mdl", "mdl4-golem.mdl")
    if not os.path.isfile(golem):
        skip("corpus not found at %s (../shared/corpus)" % corpus)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if len(sys.argv) == 6 and sys.argv[5] == "blender":
        blender_check(conv, golem, work, e2e)
        print("PASS")
        return
    if not shutil.which("node"):
        skip("node is not installed (tools/setup-debian.sh)")
    if not os.path.isdir(os.path.join(e2e, "node_modules", "gltf-validator")):
        skip("gltf-validator is not installed in %s/node_modules" % e2e)

    inputs = [p for p in sorted(glob.glob(os.path.join(corpus, "mdl", "*.mdl")))
              if open(p, "rb").read(4) in (b"MDL2", b"MDL3", b"MDL4", b"MDL5", b"MDL7")]
    game = os.path.join(corpus, "lottershock")
    inputs += sorted(p for p in glob.glob(os.path.join(game, "**", "*"), recursive=True)
                     if p.lower().endswith(".mdl") and open(p, "rb").read(4) != b"IDPO")
    inputs += sorted(glob.glob(os.path.join(corpus, "hmp", "*.hmp")))
    inputs += sorted(glob.glob(os.path.join(corpus, "md5", "**", "*.md5mesh"), recursive=True))
    inputs += sorted(glob.glob(os.path.join(game, "Game", "Level", "*.wmp")))
    outputs = []
    quantised = 0
    images_ours = images_ref = 0
    worst = (0.0, "")
    for i, src in enumerate(inputs):
        out = os.path.join(work, "%03d_%s.glb" % (i, os.path.splitext(os.path.basename(src))[0]))
        convert(conv, src, out)
        j = glb_json(out)
        if "KHR_mesh_quantization" in j.get("extensionsUsed", []):
            if "KHR_mesh_quantization" not in j.get("extensionsRequired", []):
                fail("%s: KHR_mesh_quantization used but not required" % out)
            quantised += 1
        else:
            fail("%s: no KHR_mesh_quantization in extensionsUsed" % out)
        ours, ref = same_pixels(conv, src, out, work)
        if ref:
            size = os.path.getsize(out)
            with_zlib9 = size - ours + ref
            images_ours += ours
            images_ref += ref
            worst = max(worst, (size / with_zlib9, os.path.basename(src)))
            if size > 1.05 * with_zlib9:
                fail("%s: %d bytes, over 1.05 x the %d it has with zlib 9's images" % (src, size, with_zlib9))
        outputs.append(out)
    print("images: the same rows as the default output in all %d files; compact %d bytes, zlib 9 %d (%.3f), "
          "worst file %.3f of its size with zlib 9's images (%s)" % (len(inputs), images_ours, images_ref,
                                     images_ours / max(images_ref, 1), worst[0], worst[1]))
    r = subprocess.run(["node", os.path.join(e2e, "gltf_validate.js")] + outputs, capture_output=True, text=True)
    print(r.stdout, end="")
    if r.returncode != 0:
        fail("the validator reports errors or warnings on compact outputs (above)\n" + r.stderr)

    out = os.path.join(work, "golem.glb")
    convert(conv, golem, out)
    gs, ms = os.path.getsize(out), os.path.getsize(golem)
    print("golem: mdl4-golem.mdl %d bytes, golem.glb --compact %d bytes (%.3f)" % (ms, gs, gs / ms))
    if gs > ms:
        fail("compact golem.glb (%d bytes) is larger than golem.mdl (%d bytes)" % (gs, ms))
    print("PASS: %d compact outputs valid (0 errors, 0 warnings), golem %d <= %d bytes" % (len(outputs), gs, ms))


main()
