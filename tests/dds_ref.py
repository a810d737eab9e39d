#!/usr/bin/env python3
"""A second DDS decoder, independent of common/dds.c, for the figures that
tests/test_dds.c checks the corpus's type-6 skins against.

    python3 tests/dds_ref.py FILE.mdl...

For each file: the first embedded DDS file ("DDS " + header size 124) and
the 28-byte MDL7 skin record before it (type 6, width = the DDS's byte
count, height 1), its size, format, distinct colours, transparent pixels,
the FNV-1a 64 hash of the RGBA8 image (top row first) and a few pixels.
Pure Python: a 1024 x 1024 skin takes a few seconds.
"""
import struct
import sys


def rgb565(c):
    r, g, b = (c >> 11) & 31, (c >> 5) & 63, c & 31
    return [(r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)]


def colours(blk, dxt1):
    c0, c1, idx = struct.unpack_from("<HHI", blk, 0)
    p0, p1 = rgb565(c0) + [255], rgb565(c1) + [255]
    if not dxt1 or c0 > c1:
        p2 = [(2 * a + b) // 3 for a, b in zip(p0[:3], p1[:3])] + [255]
        p3 = [(a + 2 * b) // 3 for a, b in zip(p0[:3], p1[:3])] + [255]
    else:
        p2 = [(a + b) // 2 for a, b in zip(p0[:3], p1[:3])] + [255]
        p3 = [0, 0, 0, 0]
    pal = [p0, p1, p2, p3]
    return [list(pal[(idx >> (2 * i)) & 3]) for i in range(16)]


def alphas(blk, fourcc):
    if fourcc == b"DXT3":
        return [((blk[i // 2] >> (4 * (i & 1))) & 15) * 17 for i in range(16)]
    a0, a1 = blk[0], blk[1]
    if a0 > a1:
        pal = [a0, a1] + [((7 - i) * a0 + i * a1) // 7 for i in range(1, 7)]
    else:
        pal = [a0, a1] + [((5 - i) * a0 + i * a1) // 5 for i in range(1, 5)] + [0, 255]
    bits = int.from_bytes(blk[2:8], "little")
    return [pal[(bits >> (3 * i)) & 7] for i in range(16)]


def decode(d):
    assert d[:4] == b"DDS " and struct.unpack_from("<I", d, 4)[0] == 124
    h, w = struct.unpack_from("<2I", d, 12)
    fourcc = d[84:88]
    bs = 8 if fourcc == b"DXT1" else 16
    img = bytearray(w * h * 4)
    off = 128
    for by in range((h + 3) // 4):
        for bx in range((w + 3) // 4):
            blk = d[off:off + bs]
            off += bs
            if fourcc == b"DXT1":
                px = colours(blk, True)
            else:
                px = colours(blk[8:], False)
                for i, a in enumerate(alphas(blk, fourcc)):
                    px[i][3] = a
            for i in range(16):
                x, y = bx * 4 + i % 4, by * 4 + i // 4
                if x < w and y < h:
                    img[(y * w + x) * 4:(y * w + x) * 4 + 4] = bytes(px[i])
    return w, h, fourcc.decode("latin-1"), img


def fnv1a64(b):
    h = 0xCBF29CE484222325
    for x in b:
        h = ((h ^ x) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    for path in sys.argv[1:]:
        d = open(path, "rb").read()
        at = d.find(b"DDS \x7c\0\0\0")
        if at < 28:
            print(f"{path}: no embedded DDS")
            continue
        rec = at - 28
        typ, size, one = d[rec], *struct.unpack_from("<iI", d, rec + 4)
        w, h, fourcc, img = decode(d[at:at + size])
        px = [bytes(img[i:i + 4]) for i in range(0, len(img), 4)]
        print(f"{path}: skin record at {rec} (type {typ}, width {size}, height {one}), "
              f"{fourcc} {w} x {h}, {len(set(px))} colours, "
              f"{sum(1 for p in px if p[3] == 0)} transparent, fnv1a64 {fnv1a64(img):#018x}")
        for x, y in [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1), (w // 2, h // 2)]:
            print(f"  pixel {x},{y}: {list(px[y * w + x])}")


if __name__ == "__main__":
    main()
