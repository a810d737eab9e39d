"""Mean absolute RGB difference of two 8-bit PNG renders (pure Python: no PIL
needed). usage: png_diff.py A.png B.png"""
import sys

from e2e_common import read_png


def diff(p1, p2):
    w1, h1, b1, r1 = read_png(p1); w2, h2, b2, r2 = read_png(p2)
    assert (w1, h1) == (w2, h2) and min(b1, b2) >= 3  # RGB or RGBA renders
    tot = 0
    for y in range(h1):
        for x in range(w1):
            for k in range(3): tot += abs(r1[y][x * b1 + k] - r2[y][x * b2 + k])
    return tot / (w1 * h1 * 3)
if __name__ == '__main__':
    print(diff(sys.argv[1], sys.argv[2]))
