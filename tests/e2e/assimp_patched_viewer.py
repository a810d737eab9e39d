#!/usr/bin/env python3
"""Checks a frame of the Qt 3D viewer: the model is there and textured.

usage: assimp_patched_viewer.py FRAME.png

The background is one flat colour (the corner pixel). At least 5% of the
frame must differ from it (the model is drawn), and at least a third of
those pixels must be coloured (max(r,g,b) - min(r,g,b) >= 24): the untextured
material Qt 3D gives a morph-target mesh is grey, gate-101's skin is brown
wood and green leaves. Reads 8-bit RGB/RGBA PNGs with the standard library.
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("only 8-bit RGB/RGBA non-interlaced PNGs (got depth %d type %d)" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = read_png(sys.argv[1])
    bg = tuple(rows[0][0:3])
    drawn = coloured = 0
    for line in rows:
        for x in range(0, w * bpp, bpp):
            px = line[x:x + 3]
            if max(abs(px[k] - bg[k]) for k in range(3)) > 12:
                drawn += 1
                if max(px) - min(px) >= 24:
                    coloured += 1
    total = w * h
    print("assimp_patched_viewer: %dx%d, background %s, model %.1f%% of the frame, %.1f%% of it coloured"
          % (w, h, bg, 100.0 * drawn / total, 100.0 * coloured / max(drawn, 1)))
    if drawn < 0.05 * total:
        print("FAIL: the model covers less than 5% of the frame")
        return 1
    if coloured < drawn / 3:
        print("FAIL: the model is drawn untextured (grey)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
