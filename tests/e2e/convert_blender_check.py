"""Runs inside Blender (blender -b --factory-startup -P convert_blender_check.py -- DIR).

DIR holds reference.json (from convert_blender_make.py) and the round trips
rt/shapes.glb (Blender glTF -> gsio convert -> MDL5 -> mdl2gltf) and
rt/rig.glb (-> MD5 -> mdl2gltf). Each is imported with Blender's glTF
importer and compared with what Blender made:

- shapes: as many shape keys (the MDL's frames, one morph target each, plus
  Blender's Basis) as the source had (Basis + 3 keys, played by 3 frames);
- rig: as many bones;
- the evaluated mesh (world space, after shape keys / armature) at the three
  reference frames. gsio's frame 0 is the source's first key (frame 1), and
  Blender's importer puts time 0 at frame 0, so source frame f is frame f - 1
  of the round trip. Vertices are matched as sets (the writers may weld or
  split vertices): the largest distance from a vertex of either pose to the
  nearest of the other must stay under the tolerance.

Tolerances (passed in by the driver, in units of the model's extent E):
- MDL5 stores positions as 16-bit words with one scale and offset over all
  frames: the step is at most E / 65535; half a step off per coordinate is
  sqrt(3)/2 step in distance; with the float rounding of four conversions on
  top, 1 step (1.5e-5 E) is a bound; the driver allows 2e-5 E.
- MD5 stores joint positions and quaternions (x, y, z; w rebuilt) and
  weight positions as text with 10 digits after the point, so the text
  loses less than 1e-9; the round trip resamples the same key times, so no
  interpolation error enters; what remains is float32 arithmetic in the
  skinning chain (joint world matrices of 3 bones, ~1e-7 relative each, on
  positions of size E): 1e-5 E is a bound with margin.
The last line is "convert_blender: PASS" or "convert_blender: FAIL".
"""
import json
import os
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses the removed alias

import bpy  # noqa: E402
from mathutils import kdtree  # noqa: E402

args = sys.argv[sys.argv.index("--") + 1:]
work = args[0]
tol_mdl, tol_md5 = float(args[1]), float(args[2])
ref = json.load(open(os.path.join(work, "reference.json")))
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("convert_blender: FAIL: " + msg)


def import_glb(path, fps):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.context.scene.render.fps = fps
    bpy.ops.import_scene.gltf(filepath=path)
    return [o for o in bpy.data.objects if o.type == "MESH"]


def evaluated(objs, frame):
    scene = bpy.context.scene
    scene.frame_set(frame)
    dg = bpy.context.evaluated_depsgraph_get()
    pts = []
    for obj in objs:
        ev = obj.evaluated_get(dg)
        me = ev.to_mesh()
        pts += [obj.matrix_world @ v.co for v in me.vertices]
        ev.to_mesh_clear()
    return pts


def set_distance(a, b):
    """The largest distance from a point of one set to the nearest of the other."""
    worst = 0.0
    for src, dst in ((a, b), (b, a)):
        tree = kdtree.KDTree(len(dst))
        for i, p in enumerate(dst):
            tree.insert(p, i)
        tree.balance()
        for p in src:
            worst = max(worst, tree.find(p)[2])
    return worst


def extent(points):
    lo = [min(p[k] for p in points) for k in range(3)]
    hi = [max(p[k] for p in points) for k in range(3)]
    return max(h - l for h, l in zip(hi, lo))


def check_poses(name, objs, want, tol_rel):
    from mathutils import Vector
    allpts = [Vector(p) for f in want["frames"].values() for p in f]
    e = extent(allpts)
    tol = tol_rel * e
    for f, pts in sorted(want["frames"].items(), key=lambda x: int(x[0])):
        got = evaluated(objs, int(f) - 1)
        d = set_distance([Vector(p) for p in pts], got)
        check(d <= tol, "%s: frame %s: the pose is %.3g away (tolerance %.3g = %.3g x extent %.3g)"
              % (name, f, d, tol, tol_rel, e))
        print("convert_blender: %s frame %s: %d vertices (source %d), largest distance %.3g, tolerance %.3g"
              % (name, f, len(got), len(pts), d, tol))
    # The poses differ from each other by much more than the tolerance: the
    # check can fail (a model stuck in one frame would be caught).
    frames = sorted(want["frames"], key=int)
    spread = set_distance([Vector(p) for p in want["frames"][frames[0]]],
                          [Vector(p) for p in want["frames"][frames[-1]]])
    check(spread > 100 * tol, "%s: the reference poses are too close to tell apart (%.3g)" % (name, spread))


def check_shapes():
    want = ref["shapes"]
    meshes = import_glb(os.path.join(work, "rt", "shapes.glb"), want["fps"])
    check(len(meshes) == 1, "shapes: %d mesh objects, expected 1" % len(meshes))
    if not meshes:
        return
    me = meshes[0].data
    keys = me.shape_keys.key_blocks if me.shape_keys else []
    check(len(keys) == want["shape_keys"], "shapes: %d shape keys, the source had %d"
          % (len(keys), want["shape_keys"]))
    print("convert_blender: shapes: %d shape keys (source %d): %s"
          % (len(keys), want["shape_keys"], [k.name for k in keys]))
    check(me.shape_keys is not None and me.shape_keys.animation_data is not None
          and me.shape_keys.animation_data.action is not None, "shapes: no shape-key action")
    check_poses("shapes", meshes, want, tol_mdl)


def check_rig():
    want = ref["rig"]
    meshes = import_glb(os.path.join(work, "rt", "rig.glb"), want["fps"])
    arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    check(len(arms) == 1, "rig: %d armatures, expected 1" % len(arms))
    check(len(meshes) >= 1, "rig: no mesh")
    if not arms or not meshes:
        return
    bones = len(arms[0].data.bones)
    check(bones == want["bones"], "rig: %d bones, the source had %d" % (bones, want["bones"]))
    ad = arms[0].animation_data
    check(ad is not None and ad.action is not None, "rig: no action on the armature")
    print("convert_blender: rig: %d bones (source %d), action %s"
          % (bones, want["bones"], ad.action.name if ad and ad.action else None))
    check_poses("rig", meshes, want, tol_md5)


check_shapes()
check_rig()
print("convert_blender: " + ("FAIL (%d)" % len(failures) if failures else "PASS"))
sys.exit(1 if failures else 0)
