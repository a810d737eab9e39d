#!/usr/bin/env python3
"""Blender import check of mdl2gltf's output (driver; runs Blender once).

usage: gltf_blender.py MDL2GLTF GSIO_TOOL CORPUS_DIR SAMPLES_DIR WORK_DIR E2E_DIR [SYNTH_DIR]

Converts every corpus MDL2/3/4/5 file and every samples/*.mdl to .glb (and the
earth also to .gltf, to load external PNGs), reads what each file holds from
`gsio info --json` (the scene layer, not the glTF), and hands both to
gltf_blender_check.py inside one headless Blender, which asserts: one shape
key per frame (+ Basis), one action per clip named after it, every image
loaded with a non-zero size, a UV layer when the model has a skin, every
skin present (variants for the earth). Concrete numbers are checked too:
gate-101 30 frames, mdl4-golem 231, mdl4-human 249, minigun_mdl5 8 in clip
`shot`. SYNTH_DIR may hold the synthetic skinned GLBs written by
test_gltf_scene and test_gltf_morph (GSIO_GLTF_DUMP_DIR): their armature, weights and actions are checked too,
and weights_sparse.glb (1100 frames, the weights a sparse accessor): one
shape key per frame, one-hot at frames' keys; weights_sparse_clips.glb (the
same frames in 11 clips of 100, sparse over a shared view of zeros): an
action per clip, one-hot at its keys.
Every model under corpus/lottershock (27 MDL7 files and the game's
MDL3/4/5) is converted as well and checked against the counts `gsio info`
reports: mesh objects, shape keys (frames + Basis), armature bones (joints),
actions (one or more per animation or clip, named after it) and images (one
per skin, each loaded with the skin's size).
Exits 77 without the corpus or Blender.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

from e2e_common import skip, fail  # noqa: E402

CONCRETE = {
    "gate-101": {"frames": 30},
    "mdl4-golem": {"frames": 231},
    "mdl4-human": {"frames": 249},
    "minigun_mdl5": {"frames": 8, "clips": ["shot"]},
}


def main():
    if len(sys.argv) not in (7, 8):
        print(__doc__)
        sys.exit(2)
    conv, tool, corpus, samples, work, e2e = sys.argv[1:7]
    synth = sys.argv[7] if len(sys.argv) == 8 else ""
    if not os.path.isdir(os.path.join(corpus, "mdl")):
        skip("corpus not found at %s (../shared/corpus)" % corpus)
    blender = shutil.which("blender")
    if not blender:
        skip("blender is not installed")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cases = []
    srcs = sorted(glob.glob(os.path.join(corpus, "mdl", "*.mdl"))) + sorted(
        glob.glob(os.path.join(samples, "*.mdl")))
    for src in srcs:
        if open(src, "rb").read(4) not in (b"MDL2", b"MDL3", b"MDL4", b"MDL5"):
            continue
        stem = os.path.splitext(os.path.basename(src))[0]
        if not src.startswith(os.path.join(corpus, "")):
            stem = "sample_" + stem
        info = subprocess.run([tool, "info", "--json", src], capture_output=True, text=True)
        if info.returncode != 0:
            fail("gsio info %s: %s" % (src, info.stderr))
        d = json.loads(info.stdout.splitlines()[0])
        want = {
            "frames": d["vertex_frames"],  # morph targets: the vertex frames
            "frame_names": d["frame_names"],
            "clips": [c["name"] for c in d["clips"]],
            "skins": len(d["skins"]),
            "skin_sizes": [[s["width"], s["height"]] for s in d["skins"]],
        }
        for k, v in CONCRETE.get(stem, {}).items():
            if k == "clips":
                if not set(v) <= set(want["clips"]):
                    fail("%s: gsio info lists clips %s, expected %s" % (src, want["clips"], v))
            elif want[k] != v:
                fail("%s: gsio info says %s = %s, expected %s" % (src, k, want[k], v))
        for ext in ("glb", "gltf") if stem == "mdl5-earth" else ("glb",):
            out = os.path.join(work, "%s.%s" % (stem, ext))
            r = subprocess.run([conv, "--quiet", "-o", out, src], capture_output=True, text=True)
            if r.returncode != 0:
                fail("mdl2gltf %s: %s" % (src, r.stderr))
            cases.append({"file": out, "kind": "mdl", "want": want, "concrete": CONCRETE.get(stem)})
    # Every model of the game, whatever its version: counts from gsio info.
    game = sorted(glob.glob(os.path.join(corpus, "lottershock", "**", "*.[mM][dD][lL]"),
                            recursive=True))
    if not game:
        fail("no models under %s" % os.path.join(corpus, "lottershock"))
    for i, src in enumerate(game):
        info = subprocess.run([tool, "info", "--json", src], capture_output=True, text=True)
        if info.returncode != 0:
            fail("gsio info %s: %s" % (src, info.stderr))
        d = json.loads(info.stdout.splitlines()[0])
        want = {
            "meshes": len(d["meshes"]),
            "frames": d["vertex_frames"],  # morph targets: the vertex frames
            "joints": d["joints"],
            "animations": [a["name"] for a in d["animations"]] + [c["name"] for c in d["clips"]],
            "skin_sizes": [[sk["width"], sk["height"]] for sk in d["skins"]],
        }
        # Two models share a name (flamemother.mdl): number the outputs.
        stem = "game%02d_%s" % (i, os.path.splitext(os.path.basename(src))[0].replace(" ", "_"))
        out = os.path.join(work, stem + ".glb")
        r = subprocess.run([conv, "--quiet", "-o", out, src], capture_output=True, text=True)
        if r.returncode != 0:
            fail("mdl2gltf %s: %s" % (src, r.stderr))
        cases.append({"file": out, "kind": "counts", "source": os.path.relpath(src, corpus),
                      "want": want})
    for name in ("synthetic_skinned.glb", "synthetic_9_weights.glb", "weights_sparse.glb",
                 "weights_sparse_clips.glb"):
        p = os.path.join(synth, name) if synth else ""
        if p and os.path.isfile(p):
            cases.append({"file": p, "kind": name.split(".")[0]})
        elif synth:
            print("note: %s not found (test_gltf_scene and test_gltf_morph write it with GSIO_GLTF_DUMP_DIR)" % p)
    missing = [c for c in CONCRETE if not any(os.path.basename(x["file"]).startswith(c + ".") for x in cases)]
    if missing:
        fail("corpus files missing: %s" % missing)
    plan = os.path.join(work, "plan.json")
    json.dump(cases, open(plan, "w"), indent=1)
    # Blender embeds the system Python and finds its home through PATH: a
    # pyenv or virtualenv interpreter running this script would hide the
    # system's numpy from it. Hand Blender a PATH without them.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYENV", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH"))}
    env["PATH"] = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                  if ".pyenv" not in p and "virtualenv" not in p and p != os.environ.get("VIRTUAL_ENV", "-") + "/bin")
    r = subprocess.run([blender, "-b", "--factory-startup", "-P",
                        os.path.join(e2e, "gltf_blender_check.py"), "--", plan],
                       capture_output=True, text=True, env=env)
    lines = [l for l in r.stdout.splitlines() if l.startswith("gltf_blender")]
    print("\n".join(lines))
    if r.returncode != 0 or not any(l == "gltf_blender: PASS" for l in lines):
        print(r.stdout[-3000:])
        print(r.stderr[-3000:])
        fail("the Blender check failed")
    print("PASS: %d files imported and checked in Blender" % len(cases))


main()
