#!/usr/bin/env python3
"""From outside: models made and exported by Blender -> `gsio convert`
(through the Assimp adapter) -> MDL5 / MD5 -> mdl2gltf -> Blender.

usage: convert_blender.py GSIO_TOOL MDL2GLTF WORK_DIR E2E_DIR

1. convert_blender_make.py (in Blender) makes a shape-key animated grid and
   an armature-animated tube and exports each to GLB with Blender's glTF
   exporter, with the evaluated vertex positions at three frames;
2. gsio convert: shapes.glb -> shapes.mdl (MDL5), rig.glb -> rig.md5mesh
   (MD5 + .md5anim); both read through Assimp's glTF importer;
3. mdl2gltf: both back to GLB;
4. convert_blender_check.py (in Blender): the same number of shape keys and
   bones, and the same pose at the three frames within the tolerances
   explained there (MDL5: 2e-5 of the extent, MD5: 1e-5).
Exit 77 (skipped) without Blender, or a gsio without the Assimp adapter.
"""
import os
import shutil
import subprocess
import sys

from e2e_common import skip, fail  # noqa: E402

if len(sys.argv) != 5:
    print(__doc__)
    sys.exit(2)
TOOL, MDL2GLTF, WORK, E2E = sys.argv[1:5]
TOL_MDL5, TOL_MD5 = "2e-5", "1e-5"


def blender_env():
    # Blender embeds the system Python and finds its home through PATH: a
    # pyenv or virtualenv interpreter running this script would hide the
    # system's numpy from it (as in gltf_blender.py).
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYENV", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH"))}
    env["PATH"] = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                  if ".pyenv" not in p and "virtualenv" not in p
                                  and p != os.environ.get("VIRTUAL_ENV", "-") + "/bin")
    return env


def blender(script, *args):
    r = subprocess.run(["blender", "-b", "--factory-startup", "--python-exit-code", "1", "-P",
                        os.path.join(E2E, script), "--"] + list(args),
                       capture_output=True, text=True, env=blender_env())
    log = os.path.join(WORK, os.path.splitext(script)[0] + ".log")
    with open(log, "w") as f:
        f.write(r.stdout + r.stderr)
    for line in r.stdout.splitlines():
        if line.startswith("convert_blender") or "Traceback" in line or "Error:" in line:
            print(line)
    if r.returncode:
        fail("%s failed (log: %s)" % (script, log))


def gsio(*args):
    r = subprocess.run([TOOL] + list(args), capture_output=True, text=True)
    if r.returncode:
        if "built without" in r.stderr:
            skip("gsio was built without the Assimp adapter: %s" % r.stderr.strip())
        fail("gsio %s: %s" % (" ".join(args), r.stderr))
    for line in r.stderr.splitlines():
        print("  " + line)


def main():
    if not shutil.which("blender"):
        skip("blender not installed (tools/setup-debian.sh)")
    if not MDL2GLTF or not os.access(MDL2GLTF, os.X_OK):
        skip("mdl2gltf is not built")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(os.path.join(WORK, "rt"))
    blender("convert_blender_make.py", WORK)
    shapes_mdl = os.path.join(WORK, "shapes.mdl")
    rig_md5 = os.path.join(WORK, "rig.md5mesh")
    gsio("convert", os.path.join(WORK, "shapes.glb"), "-o", shapes_mdl)
    gsio("convert", os.path.join(WORK, "rig.glb"), "-o", rig_md5)
    for path in (shapes_mdl, rig_md5):
        r = subprocess.run([TOOL, "info", path], capture_output=True, text=True)
        print("\n".join("  " + l for l in r.stdout.splitlines() if "frames" in l or "joints" in l or "animation" in l))
    r = subprocess.run([MDL2GLTF, "-o", os.path.join(WORK, "rt"), shapes_mdl, rig_md5],
                       capture_output=True, text=True)
    if r.returncode:
        fail("mdl2gltf: %s" % r.stderr)
    blender("convert_blender_check.py", WORK, TOL_MDL5, TOL_MD5)
    print("PASS")


main()
