#!/usr/bin/env python3
"""Writes tests/fuzz/regress/dds/*.dds: small DDS files built field by field
here (never slices of corpus skins), replayed through fuzz_dds_replay as the
test fuzz_dds_regress and used as the fuzzer's seeds:

    python3 tests/fuzz/make_dds_regress.py
    build-fuzz/tests/fuzz/fuzz_dds -max_total_time=60 CORPUS_DIR tests/fuzz/regress/dds

Each covers a path of common/dds.c: the three formats, both DXT1 and both
DXT5 alpha modes, partial edge blocks, mips after the top level, and the
refusals (truncated blocks, huge size, unknown FourCC, uncompressed)."""
import os
import struct

import make_regress

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regress", "dds")


def dds(w, h, fourcc, blocks, flags=0x81007, mips=0, pf_flags=4, bits=0, caps2=0):
    hdr = struct.pack("<7I", 124, flags, h, w, len(blocks), 0, mips) + bytes(44)
    hdr += struct.pack("<II4s5I", 32, pf_flags, fourcc, bits, 0, 0, 0, 0)
    hdr += struct.pack("<5I", 0x1000, caps2, 0, 0, 0)
    assert len(hdr) == 124
    return b"DDS " + hdr + blocks


def colour(c0, c1, idx):
    return struct.pack("<HHI", c0, c1, idx)


def dxt5_alpha(a0, a1, bits):
    return bytes([a0, a1]) + bits.to_bytes(6, "little")


def write(name, data, what):
    make_regress.write(name, data, what, HERE)


def main():
    os.makedirs(HERE, exist_ok=True)
    ramp = 0xE4E4E4E4  # indices 0,1,2,3 per row
    write("dxt1-5x6-both-modes.dds",
          dds(5, 6, b"DXT1", colour(0xF800, 0x001F, ramp) + colour(0x001F, 0xF800, ramp) +
              colour(0xFFFF, 0xFFFF, ramp) + colour(0x07E0, 0x0841, 0x1B1B1B1B)),
          "DXT1 5 x 6: 4-colour, 3-colour + transparent, equal end points, partial blocks")
    write("dxt3-4x4.dds",
          dds(4, 4, b"DXT3", bytes(range(0x10, 0x90, 0x10)) + colour(0x001F, 0xF800, ramp)),
          "DXT3 4 x 4, alphas 0..15, c0 < c1 (still 4 colours)")
    write("dxt5-9x3-mips.dds",
          dds(9, 3, b"DXT5", (dxt5_alpha(255, 0, 0o7654321076543210) +
                              colour(0xFFFF, 0, ramp) +
                              dxt5_alpha(0, 255, 0o0123456701234567) +
                              colour(0x1234, 0x4321, ramp)) * 3 + bytes(2 * 16 + 16),
              flags=0x81007 | 0x20000, mips=3),
          "DXT5 9 x 3, 8- and 6-level alpha, three mip levels")
    write("dxt1-1x1.dds", dds(1, 1, b"DXT1", colour(0x07E0, 0, 0)), "DXT1 1 x 1")
    write("dxt1-truncated-blocks.dds", dds(8, 8, b"DXT1", colour(0xF800, 0, 0) * 3),
          "DXT1 8 x 8 with 3 of its 4 blocks")
    write("dxt5-claims-16384.dds", dds(16384, 16384, b"DXT5", bytes(16)),
          "DXT5 16384 x 16384 in 16 bytes of blocks")
    write("dx10-fourcc.dds", dds(4, 4, b"DX10", bytes(16)), "FourCC DX10: unsupported")
    write("rgba32-uncompressed.dds",
          dds(1, 1, b"\0\0\0\0", bytes(4), pf_flags=0x41, bits=32), "uncompressed 32-bit")


if __name__ == "__main__":
    main()
