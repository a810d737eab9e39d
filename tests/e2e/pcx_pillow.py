#!/usr/bin/env python3
"""PCX external textures as a user meets them, checked against an independent
reader (Pillow, Debian's python3-pil).

usage: pcx_pillow.py MDL2GLTF CORPUS_DIR WORK_DIR

lottershock's level models corridor_01_end.mdl, corridor_02_short_door.mdl and
room_quarters_01.mdl name room_atlas_01.pcx as their external texture; the
corpus does not have it. For each PCX layout Pillow writes (8-bit palettised
and 24-bit RGB, both run-length encoded) and for the corpus's own
palette.pcx: Pillow writes the texture beside a copy of a model in WORK_DIR,
mdl2gltf converts the model, and the PNG inside the .glb, decoded by Pillow,
must equal Pillow's own reading of the .pcx pixel for pixel. Without the
PCX decoder the texture is left out with a warning and the test fails.

Exits 77 (skipped) when the corpus or Pillow is absent."""
import io
import json
import os
import shutil
import struct
import subprocess
import sys

try:
    from PIL import Image
except ImportError:
    print("SKIPPED: Pillow (python3-pil) is not installed")
    sys.exit(77)

MODELS = ["corridor_01_end.mdl", "corridor_02_short_door.mdl", "room_quarters_01.mdl"]


def glb_images(path):
    data = open(path, "rb").read()
    jlen = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + jlen])
    bin_off = 20 + jlen + 8
    out = []
    for im in doc.get("images", []):
        view = doc["bufferViews"][im["bufferView"]]
        start = bin_off + view.get("byteOffset", 0)
        out.append((im.get("name", ""), data[start:start + view["byteLength"]]))
    return out


def pattern_image(mode):
    im = Image.new("RGB", (96, 40))
    px = im.load()
    for y in range(40):
        for x in range(96):
            px[x, y] = ((x // 6) * 23 % 256, (y * 9 + x // 3) % 256, (x * y) % 256)
    if mode == "P":
        im = im.quantize(colors=200)
    return im


def main():
    mdl2gltf, corpus, work = sys.argv[1:4]
    level = os.path.join(corpus, "lottershock", "Game", "Level")
    if not os.path.isdir(level):
        print("SKIPPED: %s is absent (../shared/corpus)" % level)
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cases = [("p8", pattern_image("P")), ("rgb", pattern_image("RGB")),
             ("palette.pcx", Image.open(os.path.join(level, "palette.pcx")))]
    failures = 0
    for i, (label, im) in enumerate(cases):
        model = MODELS[i % len(MODELS)]
        folder = os.path.join(work, label.replace(".", "_"))
        os.makedirs(folder)
        shutil.copy(os.path.join(level, model), folder)
        tex = os.path.join(folder, "room_atlas_01.pcx")
        if label.endswith(".pcx"):
            shutil.copy(os.path.join(level, label), tex)
        else:
            im.save(tex, format="PCX")
        want = Image.open(tex).convert("RGBA")
        out = os.path.join(folder, "out.glb")
        r = subprocess.run([mdl2gltf, os.path.join(folder, model), "-o", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL %s: mdl2gltf exit %d: %s" % (label, r.returncode, r.stderr.strip()))
            failures += 1
            continue
        if "pcx" in r.stderr.lower():
            print("FAIL %s: mdl2gltf warned about the texture: %s" % (label, r.stderr.strip()))
            failures += 1
        found = [png for name, png in glb_images(out)
                 if Image.open(io.BytesIO(png)).size == want.size]
        if not found:
            print("FAIL %s: no %dx%d image in %s" % (label, want.size[0], want.size[1], out))
            failures += 1
            continue
        got = Image.open(io.BytesIO(found[0])).convert("RGBA")
        if got.tobytes() != want.tobytes():
            diff = sum(1 for a, b in zip(got.getdata(), want.getdata()) if a != b)
            print("FAIL %s: %d of %d pixels differ from Pillow's reading" %
                  (label, diff, want.size[0] * want.size[1]))
            failures += 1
            continue
        print("ok %s (%s, %s %dx%d): the .glb's PNG equals Pillow's reading of the .pcx" %
              (label, model, Image.open(tex).mode, want.size[0], want.size[1]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
