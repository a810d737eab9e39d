#!/usr/bin/env python3
"""Writes the BMP regression inputs and fuzzer seeds (regress/bmp/*.bmp):
uncompressed files gsio reads itself (common/bmp.c: 1-, 4-, 8-, 24- and
32-bit, 40-, 108- and 124-byte headers, both ways up), the forms stb_image
reads instead (OS/2 header, 16-bit, BI_BITFIELDS, RLE8), and damaged ones
(cut short, a palette out of range). usage: make_bmp_regress.py [OUT_DIR]"""
import os
import struct
import sys


def bmp(w, h, bpp, hsz=40, compression=0, colours=None, masks=b"", pixels=None, offset=None):
    if colours is None:
        colours = (1 << bpp) if bpp <= 8 else 0
    palette = bytes((i * 37 + c * 11) & 0xFF for i in range(colours) for c in range(4))
    stride = ((w * bpp + 31) // 32) * 4
    if pixels is None:
        rows = []
        for y in range(abs(h)):
            if bpp <= 8:
                bits = 0
                for x in range(w):
                    bits = (bits << bpp) | ((x * 3 + y) % max(colours, 1))
                pad_bits = stride * 8 - w * bpp
                rows.append((bits << pad_bits).to_bytes(stride, "big"))
            else:
                row = bytes((x * 7 + y * 13 + c * 29) & 0xFF for x in range(w) for c in range(bpp // 8))
                rows.append(row + bytes(stride - len(row)))
        pixels = b"".join(rows)
    if hsz == 12:
        info = struct.pack("<IHHHH", 12, w, h, 1, bpp)
    else:
        info = struct.pack("<IiiHHIIiiII", hsz, w, h, 1, bpp, compression, len(pixels), 2835, 2835, colours, 0)
        if hsz >= 108:
            info += struct.pack("<IIII", 0xFF0000, 0xFF00, 0xFF, 0xFF000000) + b"BGRs" + bytes(hsz - 60)
    entry_palette = palette if hsz != 12 else bytes(b for i, b in enumerate(palette) if i % 4 != 3)
    if offset is None:
        offset = 14 + len(info) + len(masks) + len(entry_palette)
    head = struct.pack("<2sIHHI", b"BM", offset + len(pixels), 0, 0, offset)
    return head + info + masks + entry_palette + pixels


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "regress", "bmp")
    os.makedirs(out, exist_ok=True)
    files = {
        "rgb24_bottom_up.bmp": bmp(5, 3, 24),
        "rgba32_top_down_v5.bmp": bmp(6, -4, 32, hsz=124),
        "pal8_v4.bmp": bmp(7, 5, 8, hsz=108),
        "pal8_short_palette.bmp": bmp(3, 2, 8, colours=3),
        "pal4_top_down.bmp": bmp(9, -3, 4),
        "mono1.bmp": bmp(13, 2, 1),
        "os2_rgb24.bmp": bmp(4, 2, 24, hsz=12),
        "rgb16.bmp": bmp(5, 3, 16),
        "bitfields32.bmp": bmp(3, 3, 32, compression=3, masks=struct.pack("<III", 0xFF0000, 0xFF00, 0xFF)),
        "rle8.bmp": bmp(4, 2, 8, compression=1, pixels=bytes([4, 1, 0, 0, 4, 2, 0, 1])),
        "rgb24_cut.bmp": bmp(5, 3, 24)[:-9],
        "pal8_no_palette.bmp": bmp(3, 2, 8, offset=54),
    }
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
