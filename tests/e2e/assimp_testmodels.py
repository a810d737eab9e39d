#!/usr/bin/env python3
"""Assimp's own test models read by the patched Assimp and through
gsio_assimp_register() as stock Assimp reads them.

usage: assimp_testmodels.py STOCK_ASSIMP PATCHED_PREFIX REGISTER_INFO GSIO_TOOL SOURCE_TREE

Every file under the Assimp source's test/models and test/models-nonbsd
folders MDL (with MDL (HL1)), HMP and MD5, whatever its name, that the stock `assimp info` reads must be read by the patched `assimp info`
and by REGISTER_INFO (a program linked against the stock libassimp that calls
gsio_assimp_register) too: with the stock counts of meshes, vertices and
faces when Assimp's own loader reads it (Half-Life, Quake, anything gsio
does not claim), with gsio's (gsio info --json) when gsio's loader reads it.
A file stock Assimp cannot read is listed, not checked.
Exit 0 on success, 1 on a failure, 77 (skipped) when a program or the
source tree is missing.
"""
import json
import os
import re
import subprocess
import sys

from e2e_common import fail, skip  # noqa: E402

FOLDERS = ("MDL", "HMP", "MD5")


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          errors="replace")


def assimp_info(assimp, path):
    """(meshes, vertices, faces, importer) or None when the file is not read."""
    r = run([assimp, "info", path, "-vds", "-l"])
    counts = []
    for key in ("Meshes", "Vertices", "Faces"):
        m = re.search(r"^%s:\s+(\d+)" % key, r.stdout, re.M)
        if r.returncode != 0 or not m:
            return None, r.stdout
        counts.append(int(m.group(1)))
    m = re.search(r"Found a matching importer for this file format: (.*)\.", r.stdout)
    return tuple(counts) + (m.group(1) if m else "?",), r.stdout


def gsio_counts(tool, path):
    r = run([tool, "info", "--json", path])
    if r.returncode != 0:
        return None
    g = json.loads(r.stdout)
    g = g[0] if isinstance(g, list) else g
    meshes = g.get("meshes", [])
    return sum(m["triangles"] for m in meshes), sum(m["vertices"] for m in meshes)


def main():
    if len(sys.argv) != 6:
        fail(__doc__)
    stock, prefix, register, tool, tree = sys.argv[1:]
    patched = os.path.join(prefix, "bin", "assimp")
    for p in (stock, patched, register, tool):
        if not os.access(p, os.X_OK):
            skip("%s not found (assimp-utils; assimp_patched_build)" % p)
    files = []
    for top in ("models", "models-nonbsd"):
        for folder in FOLDERS:
            base = os.path.join(tree, "test", top, folder)
            for dirpath, _, names in os.walk(base):
                files += [os.path.join(dirpath, n) for n in names]
    files.sort()
    if not files:
        skip("no test models under %s/test (not an Assimp source tree?)" % tree)
    reg = {}
    r = run([register] + files)
    for line in r.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3:
            reg[parts[0]] = parts[1:]
    failures, read, gsio_read, unread = [], 0, 0, []
    for path in files:
        rel = os.path.relpath(path, tree)
        want, _ = assimp_info(stock, path)
        if want is None:
            unread.append(rel)
            continue
        read += 1
        got, text = assimp_info(patched, path)
        if got is None:
            failures.append("%s: stock assimp reads it (%s), the patched one fails: %s"
                            % (rel, want[3], text.strip().splitlines()[-1:] or text))
            continue
        by_gsio = "gsio" in got[3].lower()
        if by_gsio:
            gsio_read += 1
            g = gsio_counts(tool, path)
            if g is None:
                failures.append("%s: read by %s but gsio info fails on it" % (rel, got[3]))
                continue
            faces, verts = g
            # One aiMesh per mesh part: a part may repeat a vertex two share.
            if got[2] != faces or got[1] < verts:
                failures.append("%s: patched assimp %d faces %d vertices, gsio %d faces %d vertices"
                                % (rel, got[2], got[1], faces, verts))
        elif got[:3] != want[:3]:
            failures.append("%s: patched assimp (%s) meshes/vertices/faces %s, stock (%s) %s"
                            % (rel, got[3], got[:3], want[3], want[:3]))
        rg = reg.get(path)
        if not rg or rg[0] == "error":
            failures.append("%s: through gsio_assimp_register: %s" % (rel, rg[1] if rg else "no line"))
        else:
            rcounts = tuple(int(x) for x in rg[1:4])
            if (rg[0] == "gsio") != by_gsio:
                failures.append("%s: read by %s through gsio_assimp_register, by %s in the patched build"
                                % (rel, rg[0], got[3]))
            elif rcounts != got[:3]:
                failures.append("%s: through gsio_assimp_register %s, patched assimp %s" % (rel, rcounts, got[:3]))
        print("ok %s: %s, meshes %d vertices %d faces %d (stock: %s %s)"
              % (rel, got[3], got[0], got[1], got[2], want[3], want[:3]))
    for rel in unread:
        print("not read by stock assimp either: %s" % rel)
    for f in failures:
        print("FAIL: " + f)
    print("%d test models, %d read by stock assimp (%d of them by gsio in the patched build), %d failures"
          % (len(files), read, gsio_read, len(failures)))
    if not read:
        fail("stock assimp read none of the test models")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
