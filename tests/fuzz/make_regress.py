#!/usr/bin/env python3
"""Writes the fuzz regression inputs in tests/fuzz/regress/.

Each input is built by hand here, field by field, in the shape of the input
the fuzzer found (never a slice of a corpus file: those are not ours to
commit). The layout is fuzz_load.c's: byte 0 names the format (0 .mdl,
1 .hmp, 2 .md5mesh, 3 .md5anim, 4 .md5camera; | 8: bytes 1..4 give the length
of a sibling blob at the end, served for every sibling file the loader opens;
| 16: loaded with GSIO_OPT_NO_PIXELS; | 32: loaded with GSIO_OPT_GRID and
written as a GLB; | 64: that GLB with two threads; | 128: loaded with
GSIO_OPT_NO_ANIMATION).

    python3 tests/fuzz/make_regress.py            # rewrites regress/*
    python3 tests/fuzz/make_regress.py --big DIR  # the large ones, into DIR

The large inputs (performance pathologies, a megabyte or more) are not
committed: tests/e2e/fuzz.cmake generates them into the build tree and
replays them with a time limit.
"""
import os
import struct
import sys
import zlib

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regress")


def hmp(version, cols, rows, records, skins=b"", numskins=0, frames=1):
    """An HMP4/5 file: header, skins as given, `frames` frames of records
    (u16 z, u8 normal, u8 pad)."""
    h = version + struct.pack("<i3f3fi3f", 0, 1, 1, 1, 0, 0, 0, 0, 1.0, 1.0, float(cols))
    h += struct.pack("<9i", numskins, 0, 0, cols * rows, 0, frames, 0, 0, 0)
    assert len(h) == 84
    body = b""
    for _ in range(frames):
        body += struct.pack("<i", 2) + bytes(16) + b"frame0".ljust(16, b"\0")
        body += b"".join(struct.pack("<HBB", z, n, p) for z, n, p in records)
    return h + skins + body


def hmp7_external(name):
    """An HMP7 2x2 grid whose one skin is the external texture `name`."""
    skin = struct.pack("<iii", 7, 0, 1) + name + b"\0"
    return hmp(b"HMP7", 2, 2, [(0, 0, 0)] * 4, skins=skin, numskins=1)


def png_chunk(kind, data, length=None):
    n = len(data) if length is None else length
    return struct.pack(">I", n) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width, height, idat_chunks):
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + b"".join(idat_chunks) +
            png_chunk(b"IEND", b""))


def with_sibling(prefix, main, sibling):
    """fuzz_load's layout with bit 3 set: every sibling file is `sibling`."""
    return bytes([prefix | 8]) + struct.pack("<I", len(sibling)) + main + sibling


def mdl5_one_position_many_uvs(uvs, triangles):
    """An MDL5 with one 3D vertex and `uvs` skin vertices: the first triangles
    use every uv once, all the others use uv 0, the one seen first."""
    h = b"MDL5" + struct.pack("<i3f3ff3f", 0, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0)
    h += struct.pack("<9i", 0, 0, 0, 1, triangles, 1, uvs, 0, 0)
    body = b"".join(struct.pack("<hh", i % 256, i // 256) for i in range(uvs))
    for t in range(triangles):
        uv = [3 * t, 3 * t + 1, 3 * t + 2] if 3 * t + 2 < uvs else [0, 0, 0]
        body += struct.pack("<6h", 0, 0, 0, *uv)
    body += struct.pack("<i", 2) + bytes(16) + b"frame0".ljust(16, b"\0") + bytes(8)
    return h + body


def mdl5_frames(types, nverts=3, cut=0):
    """An MDL5 of `nverts` vertices, one triangle and one frame per entry of
    `types` (0 byte-packed, 2 word-packed, anything else a bad type), less
    its last `cut` bytes."""
    h = b"MDL5" + struct.pack("<i3f3ff3f", 0, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0)
    h += struct.pack("<9i", 0, 0, 0, nverts, 1, len(types), 3, 0, 0)
    body = b"".join(struct.pack("<hh", 8 * i, 8 * i) for i in range(3))
    body += struct.pack("<6h", 0, 1, 2, 0, 1, 2)
    for i, t in enumerate(types):
        size = 8 if t == 2 else 4
        verts = b"".join(bytes([v, i, 7, 0] * (size // 4)) for v in range(nverts))
        body += struct.pack("<i", t) + bytes(2 * size) + (b"f%d" % i).ljust(16, b"\0")
        body += verts
    data = h + body
    return data[:len(data) - cut] if cut else data


def mdl7_clips(names):
    """An MDL7 of one group (3 vertices, 1 triangle, no skin) with one frame
    per name, each moving vertex 0 a little."""
    sizes = struct.pack("<10H", 16, 28, 16, 68, 8, 12, 16, 16, 68, 24)
    uvs = b"".join(struct.pack("<2f", u, v) for u, v in ((0, 0), (1, 0), (0, 1)))
    tri = struct.pack("<6H", 0, 1, 2, 0, 1, 2)
    verts = b"".join(struct.pack("<3fHBB", x, y, 0, 0, 0, 0) for x, y in ((0, 0), (1, 0), (0, 1)))
    frames = b""
    for i, n in enumerate(names):
        frames += n.ljust(16, b"\0") + struct.pack("<2I", 1, 0) + struct.pack("<3fHBB", 0.1 * i, 0, 1, 0, 0, 0)
    body = uvs + tri + verts + frames
    group = struct.pack("<4BI", 1, 0, 0, 0, len(body)) + b"g".ljust(16, b"\0")
    group += struct.pack("<5i", 0, 3, 1, 3, len(names))
    data_size = 48 + len(group) + len(body)
    h = b"MDL7" + struct.pack("<6i", 0, 0, 1, data_size, 0, 0) + sizes
    assert len(h) == 48
    return h + group + body


def mdl7_bones_past_data_size():
    """An MDL7 whose header says its data ends with the header, two bones
    after it, then a group with one skin: an external texture name claiming
    0x7fff0000 bytes and a material record."""
    h = b"MDL7" + struct.pack("<6i", 0, 2, 1, 48, 0, 0)
    h += struct.pack("<10H", 16, 28, 16, 68, 8, 12, 16, 16, 68, 24)
    assert len(h) == 48
    group = bytes(24) + struct.pack("<5i", 1, 0, 0, 0, 0)
    skin = bytes([7 | 16, 0, 0, 0]) + struct.pack("<2I", 0x7FFF0000, 0) + bytes(16)
    return h + bytes(32) + group + skin + bytes(68)


def big(directory):
    global HERE
    HERE = directory
    os.makedirs(HERE, exist_ok=True)
    # Welding must stay linear (importers/mdl.c, "Welding"): 100000
    # triangles on one position with 32767 uvs (1.3 MB), seconds if it is not.
    write("mdl5-weld-one-position-32767-uvs.bin",
          b"\0" + mdl5_one_position_many_uvs(32767, 100000),
          "MDL5, one position, 32767 uvs, 100000 triangles")


def write(name, data, what, directory=None):
    """Writes one input into directory (HERE) and says what it is."""
    with open(os.path.join(directory or HERE, name), "wb") as f:
        f.write(data)
    print(f"{name}: {len(data)} bytes: {what}")


def main():
    os.makedirs(HERE, exist_ok=True)
    # HMP4 height records whose normal byte is past the 162-entry table: the
    # scene's terrain kept the raw byte (fuzz_load: index >= GSIO_NORMAL_COUNT).
    write("hmp4-normal-index-past-table.bin",
          b"\x01" + hmp(b"HMP4", 2, 2, [(0, 5, 0), (1, 200, 0), (2, 161, 0), (3, 255, 7)]),
          "HMP4 normal indices 200 and 255")
    pixels = zlib.compress(b"\0" + bytes([255, 0, 0, 255]))
    # A PNG whose first IDAT chunk is empty: stb_image memcpy()s 0 bytes to
    # NULL (UBSan abort in the sanitizer builds; stb_image_impl.c is now
    # compiled without that check).
    write("hmp7-png-empty-first-idat.bin",
          with_sibling(1, hmp7_external(b"t.png"),
                       png(1, 1, [png_chunk(b"IDAT", b""), png_chunk(b"IDAT", pixels)])),
          "HMP7 external texture, PNG with an empty first IDAT")
    # A PNG IDAT chunk that claims 2 GiB but holds 8 bytes: stb_image
    # reserved 2 GiB outside the memory limit (0.5 s under ASan for 219
    # bytes); now refused by the allocation cap in stb_image_impl.c.
    write("hmp7-png-idat-claims-2gib.bin",
          with_sibling(1, hmp7_external(b"t.png"),
                       png(1, 1, [png_chunk(b"IDAT", pixels[:8], length=0x7FFFFF00)])),
          "HMP7 external texture, PNG IDAT length 0x7fffff00")
    # GSIO_OPT_NO_PIXELS (byte 0 | 16): PNG siblings read up to their header.
    write("hmp7-png-nopixels.bin",
          with_sibling(1 | 16, hmp7_external(b"t.png"), png(1, 1, [png_chunk(b"IDAT", pixels)])),
          "HMP7 external texture, PNG kept undecoded")
    write("hmp7-png-nopixels-16384.bin",
          with_sibling(1 | 16, hmp7_external(b"t.png"),
                       png(16384, 16384, [png_chunk(b"IDAT", pixels[:8])])),
          "HMP7 external texture, undecoded PNG claiming 16384 x 16384 in a few bytes")
    write("hmp7-png-nopixels-too-wide.bin",
          with_sibling(1 | 16, hmp7_external(b"t.png"), png(16385, 1, [png_chunk(b"IDAT", pixels)])),
          "HMP7 external texture, undecoded PNG over the size limit")
    # GSIO_OPT_GRID (byte 0 | 32): terrains kept as grids, read through the
    # accessors and written as a GLB a strip at a time.
    write("hmp4-grid-normal-index-past-table.bin",
          b"\x21" + hmp(b"HMP4", 2, 2, [(0, 5, 0), (1, 200, 0), (2, 161, 0), (3, 255, 7)]),
          "HMP4 grid, normal indices 200 and 255 (kept as 0)")
    write("hmp5-grid-17x3.bin",
          b"\x21" + hmp(b"HMP5", 17, 3, [(v * 1237 % 65536, v * 7 % 170, v % 3) for v in range(51)]),
          "HMP5 grid of 51 heights: 3 blocks of 16 records split together, 3 one by one")
    write("hmp5-grid-two-layers.bin",
          b"\x21" + hmp(b"HMP5", 3, 2, [(v, v, 0) for v in range(6)], frames=2),
          "HMP5 of two height layers with GSIO_OPT_GRID: stays expanded")
    write("hmp5-grid-huge-scale.bin",
          b"\x21" + hmp(b"HMP5", 2, 2, [(65535, 0, 0)] * 4)[:16] + struct.pack("<f", 3e38)
          + hmp(b"HMP5", 2, 2, [(65535, 0, 0)] * 4)[20:],
          "HMP5 grid whose heights overflow to infinity: refused")
    write("hmp7-grid.bin", bytes([1 | 32]) + hmp7_external(b"t.png"),
          "HMP7 grid (its texture missing)")
    # A JPEG whose Huffman table lists 272 codes (16 counts of 17): stb_image
    # 2.27 wrote past its 256-entry table (UBSan: stbi__build_huffman, index
    # 257 out of bounds); now refused before stb_image reads the file.
    dht = bytes([0x00]) + bytes([17] * 16) + bytes(272)
    jpeg = b"\xff\xd8" + b"\xff\xc4" + struct.pack(">H", 2 + len(dht)) + dht + b"\xff\xd9"
    write("hmp7-jpeg-dht-over-256.bin", with_sibling(1, hmp7_external(b"t.jpg"), jpeg),
          "HMP7 external texture, JPEG with a Huffman table of 272 codes")
    # The same behind fill bytes (stb_image skips 0xFF before every marker,
    # SOI included): the first check looked for FF D8 at the start only.
    write("hmp7-jpeg-fill-dht-over-256.bin",
          with_sibling(1, hmp7_external(b"t.jpg"), b"\xff\xff" + jpeg[1:3] + b"\xff\xff" + jpeg[3:]),
          "HMP7 external texture, JPEG with fill bytes and a Huffman table of 272 codes")
    # A PGM whose width has 14 digits: stb_image's PNM reader overflows an
    # int on it (UBSan), so gsio's stb_image is compiled without PNM.
    write("hmp7-pgm-huge-width.bin",
          with_sibling(1, hmp7_external(b"t.pgm"), b"P5 33333333333333 1 255\n" + bytes(4)),
          "HMP7 external texture, PGM header with a 14-digit width")
    # Bones past mdl7data_size: the reader was narrowed to the data size
    # behind its position, its room left wrapped around, and a skin's reads
    # went megabytes past the file (fuzz_mdl7, ASan SEGV).
    write("mdl7-bones-past-data-size.bin", b"\x00" + mdl7_bones_past_data_size(),
          "MDL7 bones ending past mdl7data_size, then a skin claiming 2 GB")
    # Clip names from frame names: a stem of the file's own ("Dead.2") and
    # then the stem "Dead" were both named "Dead.2", and the loaded scene
    # failed validation (fuzz_load on a mutated MDL7; common/scene_util.c).
    write("mdl7-clip-named-like-a-suffix.bin",
          b"\x00" + mdl7_clips([b"Dead.2 2", b"Dead 0", b"Dead 1", b"x 0", b"Dead 5"]),
          "MDL7, clips Dead.2, Dead, x, Dead: names must stay unique")
    # A first-frame load (GSIO_OPT_NO_ANIMATION: byte 0 | 128) walks the
    # frames it does not keep by their types alone, fetching the types
    # ahead as if every frame were of the type before (importers/mdl.c).
    # Frames of both types, so the guesses miss; a bad type far along; the
    # file cut inside its last frame.
    write("mdl5-first-frame-mixed-types.bin", bytes([128]) + mdl5_frames([0, 2] * 12),
          "MDL5, 24 frames of alternating types, loaded first frame only")
    write("mdl5-first-frame-bad-type-late.bin",
          bytes([128]) + mdl5_frames([0] * 20 + [7] + [0] * 3),
          "MDL5, frame 20 of 24 of type 7, loaded first frame only")
    write("mdl5-first-frame-cut-last.bin", bytes([128]) + mdl5_frames([2] * 24, cut=5),
          "MDL5, 24 word-packed frames, the last cut short, loaded first frame only")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--big":
        big(sys.argv[2])
    else:
        main()
