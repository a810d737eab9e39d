#!/usr/bin/env python3
"""Writes the PCX regression inputs and fuzzer seeds (regress/pcx/*.pcx):
each layout the decoder reads, built here from scratch, and a few damaged
ones. usage: make_pcx_regress.py [OUT_DIR]"""
import os
import struct
import sys


def rle(raw):
    out = bytearray()
    i = 0
    while i < len(raw):
        run = 1
        while i + run < len(raw) and run < 63 and raw[i + run] == raw[i]:
            run += 1
        if run > 1 or raw[i] >= 0xC0:
            out += bytes([0xC0 | run, raw[i]])
        else:
            out.append(raw[i])
        i += run
    return bytes(out)


def pcx(w, h, bits, planes, rows, encoding=1, colormap=b"", palette=None):
    bpl = (w * bits + 7) // 8
    bpl += bpl % 2
    head = struct.pack("<BBBBHHHHHH", 0x0A, 5, encoding, bits, 0, 0, w - 1, h - 1, 72, 72)
    head += colormap.ljust(48, b"\0") + b"\0" + bytes([planes]) + struct.pack("<HH", bpl, 1)
    head = head.ljust(128, b"\0")
    data = b"".join((rle(r) if encoding else r) for r in rows(bpl))
    tail = b"\x0c" + palette if palette is not None else b""
    return head + data + tail


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "regress", "pcx")
    os.makedirs(out, exist_ok=True)
    pal = bytes((i * 7 + 3) & 255 for i in range(768))
    cmap = bytes((i * 5 + 1) & 255 for i in range(48))
    files = {
        "p8-rle.pcx": pcx(23, 7, 8, 1, lambda b: [bytes(((x // 4) * 37 + y * 11) & 255 for x in range(b)) for y in range(7)], palette=pal),
        "p8-stored.pcx": pcx(9, 3, 8, 1, lambda b: [bytes((x * y) & 255 for x in range(b)) for y in range(3)], encoding=0, palette=pal),
        "rgb-rle.pcx": pcx(17, 5, 8, 3, lambda b: [bytes(((x // 3) * 29 + y + k * 50) & 255 for x in range(b)) for y in range(5) for k in range(3)]),
        "rgba-rle.pcx": pcx(8, 4, 8, 4, lambda b: [bytes((x * 60 + k * 9) & 255 for x in range(b)) for y in range(4) for k in range(4)]),
        "c16.pcx": pcx(13, 4, 4, 1, lambda b: [bytes((x * 17 + y) & 255 for x in range(b)) for y in range(4)], colormap=cmap),
        "ega.pcx": pcx(19, 3, 1, 4, lambda b: [bytes((x * 83 + k) & 255 for x in range(b)) for y in range(3) for k in range(4)], colormap=cmap),
        "mono.pcx": pcx(21, 2, 1, 1, lambda b: [bytes((0xA5 + x) & 255 for x in range(b)) for y in range(2)]),
    }
    files["p8-cut.pcx"] = files["p8-rle.pcx"][:150]
    big = bytearray(files["rgb-rle.pcx"])
    big[8:12] = struct.pack("<HH", 16383, 16383)
    files["rgb-huge-claim.pcx"] = bytes(big)
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
