"""Runs inside Blender: blender -b --factory-startup -P gltf_compact_blender.py --
FLOAT.glb COMPACT.glb SHAPE_KEYS STEP

Imports the float and the compact export of one model, checks the compact
mesh has SHAPE_KEYS shape keys (Basis included) and that every world-space
vertex lies within STEP (one quantisation step, glTF units) of the float
one at the first frame and a mid frame of the active animation. Prints
"gltf_compact: PASS" or "gltf_compact: FAIL ..."; the exit status follows.
"""
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses the removed alias

import bpy  # noqa: E402

args = sys.argv[sys.argv.index("--") + 1:]
flt, cmp_, want_keys, step = args[0], args[1], int(args[2]), float(args[3])
failures = []


def load(path):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    obs = [o for o in bpy.data.objects if o.type == "MESH"]
    return obs[0]


def sample(path, frames):
    ob = load(path)
    keys = len(ob.data.shape_keys.key_blocks) if ob.data.shape_keys else 0
    act = ob.data.shape_keys.animation_data.action if keys and ob.data.shape_keys.animation_data else None
    rng = act.frame_range if act else (1, 1)
    if frames is None:
        frames = [int(rng[0]), int((rng[0] + rng[1]) / 2)]
    out = []
    for f in frames:
        bpy.context.scene.frame_set(f)
        dg = bpy.context.evaluated_depsgraph_get()
        ev = ob.evaluated_get(dg)
        me = ev.to_mesh()
        mw = ob.matrix_world
        out.append([tuple(mw @ v.co) for v in me.vertices])
        ev.to_mesh_clear()
    return keys, frames, out


kf, frames, pf = sample(flt, None)
kc, _, pc = sample(cmp_, frames)
print("gltf_compact: shape keys float %d compact %d, frames %s, step %.5f" % (kf, kc, frames, step))
if kc != want_keys:
    failures.append("compact golem has %d shape keys, want %d" % (kc, want_keys))
for f, a, b in zip(frames, pf, pc):
    if len(a) != len(b):
        failures.append("frame %d: %d vertices against %d" % (f, len(b), len(a)))
        continue
    worst = max(max(abs(x - y) for x, y in zip(p, q)) for p, q in zip(a, b))
    print("gltf_compact: frame %d: %d vertices, largest difference %.5f (step %.5f)" % (f, len(a), worst, step))
    if worst > step:
        failures.append("frame %d: a vertex is %.5f from the float one (step %.5f)" % (f, worst, step))
for m in failures:
    print("gltf_compact: FAIL " + m)
print("gltf_compact: " + ("FAIL" if failures else "PASS"))
sys.stdout.flush()
sys.exit(1 if failures else 0)
