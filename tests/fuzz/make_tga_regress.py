#!/usr/bin/env python3
"""Writes the TGA regression inputs and fuzzer seeds (regress/tga/*.tga):
uncompressed 24- and 32-bit files both ways up (common/tga.c), and the
forms stb_image reads instead (run-length encoded, colour-mapped, grey),
plus a file cut short. usage: make_tga_regress.py [OUT_DIR]"""
import os
import struct
import sys


def tga(w, h, bpp, image_type=2, top=False, ident=b"", cmap=b"", cmap_bits=0, pixels=None):
    comp = bpp // 8
    if pixels is None:
        pixels = bytes((x * 7 + y * 13 + c * 29) & 0xFF for y in range(h) for x in range(w) for c in range(comp))
    cmap_len = len(cmap) // (cmap_bits // 8) if cmap_bits else 0
    head = struct.pack("<BBBHHBHHHHBB", len(ident), 1 if cmap else 0, image_type, 0, cmap_len, cmap_bits,
                       0, 0, w, h, bpp, (0x20 if top else 0) | (8 if bpp == 32 else 0))
    return head + ident + cmap + pixels


def rle_raw(w, h, comp):
    out = bytearray()
    for i in range(w * h):
        out.append(0)  # a raw packet of one pixel
        out += bytes((i * 31 + c * 5) & 0xFF for c in range(comp))
    return bytes(out)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "regress", "tga")
    os.makedirs(out, exist_ok=True)
    files = {
        "rgb24_bottom_up.tga": tga(9, 5, 24),
        "rgba32_top_down_id.tga": tga(6, 7, 32, top=True, ident=b"seed"),
        "rgb24_odd_width.tga": tga(13, 3, 24, top=True),
        "rle24.tga": tga(5, 4, 24, image_type=10, pixels=rle_raw(5, 4, 3)),
        "grey8.tga": tga(8, 2, 8, image_type=3),
        "mapped8.tga": tga(4, 4, 8, image_type=1, cmap=bytes(range(6)), cmap_bits=24,
                           pixels=bytes(i & 1 for i in range(16))),
        "rgb24_cut.tga": tga(9, 5, 24)[:-7],
    }
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
