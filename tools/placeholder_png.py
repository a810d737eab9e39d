#!/usr/bin/env python3
"""Prints the C array of the PNG file a level's placeholder texture is
(importers/wmp_textures.c: placeholder_png): 64 x 64, 1 bit a pixel through a
palette of two opaque greys (90 and 200), squares of 8 x 8, the top left one
dark; rows unfiltered, deflated by zlib at level 9 (98 bytes). test_wmp_scene's
test_placeholders_shared decodes the array and compares it with the checker."""
import struct
import zlib

SIZE, SQUARE = 64, 8
GREYS = (90, 200)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def placeholder_png():
    rows = bytearray()
    for y in range(SIZE):
        rows.append(0)  # filter: none
        for byte in range(SIZE // 8):
            bits = 0
            for k in range(8):
                x = byte * 8 + k
                bits |= (((x // SQUARE) ^ (y // SQUARE)) & 1) << (7 - k)
            rows.append(bits)
    ihdr = struct.pack(">IIBBBBB", SIZE, SIZE, 1, 3, 0, 0, 0)
    plte = bytes(g for g in GREYS for _ in range(3))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"PLTE", plte) +
            chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    png = placeholder_png()
    print("static const uint8_t placeholder_png[%d] = {" % len(png))
    for at in range(0, len(png), 12):
        print("\t" + ", ".join("0x%02x" % b for b in png[at:at + 12]) + ",")
    print("};")
