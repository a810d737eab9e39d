#!/usr/bin/env python3
"""Checks a frame of the Qt 3D viewer: the model is there and textured.

usage: assimp_patched_viewer.py FRAME.png

The background is one flat colour (the corner pixel). At least 5% of the
frame must differ from it (the model is drawn), and at least a third of
those pixels must be coloured (max(r,g,b) - min(r,g,b) >= 24): the untextured
material Qt 3D gives a morph-target mesh is grey, gate-101's skin is brown
wood and green leaves. Reads 8-bit PNGs with the standard library (e2e_common).
"""
import sys

from e2e_common import read_png


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
