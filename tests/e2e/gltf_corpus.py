#!/usr/bin/env python3
"""Every corpus MDL (and every samples/*.mdl) through mdl2gltf, both as .glb
and as --gltf, then the Khronos validator on every output: 0 errors and 0
warnings required.

usage: gltf_corpus.py MDL2GLTF CORPUS_DIR SAMPLES_DIR WORK_DIR E2E_DIR

The MDL files of corpus/lottershock (a real game's folders, external textures
beside the models) are converted too. MDL2/3/4/5/7 files must convert; any
other variant (Quake's IDPO) must be refused with a "not supported" error
(and is then skipped). Exits 77 (skipped) without the
corpus, node or the validator; 1 on any failure.
"""
import glob
import os
import shutil
import subprocess
import sys
import time

from e2e_common import skip, fail  # noqa: E402


def main():
    if len(sys.argv) != 6:
        print(__doc__)
        sys.exit(2)
    conv, corpus, samples, work, e2e = sys.argv[1:]
    mdl_dir = os.path.join(corpus, "mdl")
    if not os.path.isdir(mdl_dir):
        skip("corpus not found at %s (../shared/corpus)" % corpus)
    if not shutil.which("node"):
        skip("node is not installed (tools/setup-debian.sh)")
    if not os.path.isdir(os.path.join(e2e, "node_modules", "gltf-validator")):
        skip("gltf-validator is not installed in %s/node_modules" % e2e)

    inputs = sorted(glob.glob(os.path.join(mdl_dir, "*.mdl")))
    game = os.path.join(corpus, "lottershock")
    inputs += sorted(p for p in glob.glob(os.path.join(game, "**", "*"), recursive=True)
                     if p.lower().endswith(".mdl"))
    sample_files = sorted(glob.glob(os.path.join(samples, "*.mdl")))
    if not sample_files:
        print("note: no samples/*.mdl yet: only the corpus is checked")
    shutil.rmtree(work, ignore_errors=True)
    outputs = []
    refused = 0
    for mode in ("glb", "gltf"):
        out_dir = os.path.join(work, mode)
        os.makedirs(out_dir)
        for src in inputs + sample_files:
            magic = open(src, "rb").read(4)
            stem = os.path.splitext(os.path.basename(src))[0]
            tag = "sample_" if src in sample_files else ""
            if src.startswith(game + os.sep):  # two folders may hold one name
                tag = os.path.relpath(os.path.dirname(src), game).replace(os.sep, "_") + "_"
            out = os.path.join(out_dir, tag + stem + "." + mode)
            cmd = [conv, "--quiet", "-o", out, src] + (["--gltf"] if mode == "gltf" else [])
            t0 = time.monotonic()
            r = subprocess.run(cmd, capture_output=True, text=True)
            dt = time.monotonic() - t0
            if magic in (b"MDL2", b"MDL3", b"MDL4", b"MDL5", b"MDL7"):
                if r.returncode != 0:
                    fail("%s: exit %d: %s" % (src, r.returncode, r.stderr.strip()))
                if not os.path.isfile(out):
                    fail("%s: no output %s" % (src, out))
                size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(out_dir, tag + stem + "*")))
                print("%-40s %s %9d bytes %6.3f s" % (os.path.basename(src), mode, size, dt))
                outputs.append(out)
            else:
                if r.returncode != 1 or "not supported" not in r.stderr:
                    fail("%s (%r) should be refused with 'not supported', got exit %d: %s"
                         % (src, magic, r.returncode, r.stderr.strip()))
                if os.path.exists(out):
                    fail("%s: refused but an output exists" % src)
                refused += 1
                print("%-40s %s refused as expected: %s" % (os.path.basename(src), mode, r.stderr.strip()))
    if not outputs:
        fail("nothing was converted")
    r = subprocess.run(["node", os.path.join(e2e, "gltf_validate.js")] + outputs,
                       capture_output=True, text=True)
    print(r.stdout, end="")
    if r.returncode != 0:
        fail("the validator reports errors or warnings (above)\n" + r.stderr)
    print("PASS: %d outputs valid (0 errors, 0 warnings), %d refused inputs" % (len(outputs), refused))


main()
