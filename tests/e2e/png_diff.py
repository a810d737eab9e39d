"""Mean absolute RGB difference of two 8-bit PNG renders (pure Python: no PIL
needed). usage: png_diff.py A.png B.png"""
import struct, zlib, sys
def read_png(path):
    b = open(path, 'rb').read()
    assert b[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat, w = 8, b'', None
    while pos < len(b):
        n, typ = struct.unpack('>I4s', b[pos:pos + 8]); data = b[pos + 8:pos + 8 + n]; pos += 12 + n
        if typ == b'IHDR': w, h, depth, ctype = struct.unpack('>IIBB', data[:10])
        elif typ == b'IDAT': idat += data
    assert depth == 8 and ctype in (2, 6)
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat); stride = w * bpp; out = []; prev = bytearray(stride); i = 0
    for y in range(h):
        f = raw[i]; row = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        for x in range(stride):
            a = row[x - bpp] if x >= bpp else 0; up = prev[x]; c = prev[x - bpp] if x >= bpp else 0
            if f == 1: row[x] = (row[x] + a) & 255
            elif f == 2: row[x] = (row[x] + up) & 255
            elif f == 3: row[x] = (row[x] + (a + up) // 2) & 255
            elif f == 4:
                p = a + up - c; pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                row[x] = (row[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        out.append(bytes(row)); prev = row
    return w, h, bpp, out
def diff(p1, p2):
    w1, h1, b1, r1 = read_png(p1); w2, h2, b2, r2 = read_png(p2)
    assert (w1, h1) == (w2, h2)
    tot = 0
    for y in range(h1):
        for x in range(w1):
            for k in range(3): tot += abs(r1[y][x * b1 + k] - r2[y][x * b2 + k])
    return tot / (w1 * h1 * 3)
if __name__ == '__main__':
    print(diff(sys.argv[1], sys.argv[2]))
