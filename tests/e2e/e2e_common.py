"""What the e2e driver scripts share: how a test says it is skipped (exit
77, ctest's SKIP_RETURN_CODE) or failed (exit 1), a PNG reader (the
standard library only) and a glTF node tree's parents. Imported from the
scripts' own folder (Python puts it first on sys.path)."""
import struct
import sys
import zlib


def skip(msg):
    print("SKIPPED: " + msg)
    sys.exit(77)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def png_decode(png):
    """(width, height, channels, rows) of an 8-bit non-interlaced PNG (the
    bytes): grey, RGB, RGBA or palette; each row its pixels' bytes, filters
    undone; a palette PNG's rows given as RGB (RGBA with a tRNS chunk)."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    i, idat, plte, trns, hdr = 8, b"", b"", b"", None
    while i < len(png):
        n, kind = struct.unpack(">I4s", png[i:i + 8])
        body = png[i + 8:i + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"PLTE":
            plte = body
        elif kind == b"tRNS":
            trns = body
        i += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (0, 2, 3, 6) or interlace:
        raise ValueError("only 8-bit non-interlaced PNGs (got depth %d type %d)" % (depth, ctype))
    ch = {0: 1, 2: 3, 3: 1, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = w * ch + 1
    rows, prev = [], bytearray(w * ch)
    for r in range(h):
        kind, line = raw[r * stride], bytearray(raw[r * stride + 1:(r + 1) * stride])
        for k in range(len(line)):  # undo the PNG filter of this row
            a = line[k - ch] if k >= ch else 0
            b = prev[k]
            c = prev[k - ch] if k >= ch else 0
            if kind == 1:
                line[k] = (line[k] + a) & 255
            elif kind == 2:
                line[k] = (line[k] + b) & 255
            elif kind == 3:
                line[k] = (line[k] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[k] = (line[k] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    if ctype == 3:
        def entry(k):
            rgb = plte[3 * k:3 * k + 3]
            return rgb + bytes([trns[k] if k < len(trns) else 255]) if trns else rgb
        rows = [b"".join(entry(k) for k in row) for row in rows]
        ch = 4 if trns else 3
    return w, h, ch, rows


def read_png(path):
    """png_decode() of the file at path."""
    with open(path, "rb") as f:
        return png_decode(f.read())


def gltf_parents(nodes):
    """{child index: parent index} of a glTF document's nodes."""
    parent = {}
    for i, n in enumerate(nodes):
        for c in n.get("children", []):
            parent[c] = i
    return parent
