"""Runs inside Blender (blender -b --factory-startup -P convert_blender_make.py -- OUT_DIR).

Makes two animated models from scratch, the way a user would in Blender, and
exports each with Blender's own glTF exporter:

- OUT_DIR/shapes.glb: a wavy grid with three shape keys (Basis + 3) and a
  3-frame shape-key action at 10 fps: frame 1 shows "Bulge" at full weight,
  frame 2 blends "Bulge" and "Stretch" half and half, frame 3 shows "Twist"
  at 0.7 (a weight that is not 1, so a writer that mixes absolute frames
  instead of adding deltas to the base is caught);
- OUT_DIR/rig.glb: a tube skinned to a 3-bone chain (smooth weights, two
  bones per vertex between bones) with an 11-frame action at 24 fps
  (rotations on every bone and a translation of the root, keyed at frames
  1, 6 and 11, Bezier in between: the exporter samples every frame).

OUT_DIR/reference.json holds what a round trip must give back: the shape
key and bone counts, the fps, and the evaluated mesh (world-space vertex
positions, after shape keys and armature) at three frames of each.
"""
import json
import math
import os
import sys

import bpy  # noqa: E402

out_dir = sys.argv[sys.argv.index("--") + 1]
os.makedirs(out_dir, exist_ok=True)
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene


def evaluated(obj, frame):
    scene.frame_set(frame)
    dg = bpy.context.evaluated_depsgraph_get()
    ev = obj.evaluated_get(dg)
    me = ev.to_mesh()
    pts = [list(obj.matrix_world @ v.co) for v in me.vertices]
    ev.to_mesh_clear()
    return pts


def select_only(objs):
    for o in scene.objects:
        o.select_set(False)
    for o in objs:
        o.select_set(True)
    bpy.context.view_layer.objects.active = objs[0]


def export(path, objs):
    select_only(objs)
    bpy.ops.export_scene.gltf(filepath=path, export_format="GLB", use_selection=True,
                              export_animations=True, export_skins=True, export_morph=True,
                              export_morph_normal=True, export_apply=False)


# -- Shape keys

def make_shapes():
    n = 7
    verts, faces = [], []
    for j in range(n):
        for i in range(n):
            x, y = i / (n - 1) * 2 - 1, j / (n - 1) * 2 - 1
            verts.append((x, y, 0.15 * math.sin(2.1 * x + 1.3 * y)))
    for j in range(n - 1):
        for i in range(n - 1):
            a = j * n + i
            faces.append((a, a + 1, a + n + 1, a + n))
    me = bpy.data.meshes.new("ShapeGrid")
    me.from_pydata(verts, [], faces)
    me.update()
    obj = bpy.data.objects.new("ShapeGrid", me)
    scene.collection.objects.link(obj)
    obj.location = (0.5, -0.25, 0.3)  # not at the origin: node transforms count
    basis = obj.shape_key_add(name="Basis")
    keys = {}
    for name in ("Bulge", "Stretch", "Twist"):
        k = obj.shape_key_add(name=name, from_mix=False)
        for i, p in enumerate(basis.data):
            x, y, z = p.co
            if name == "Bulge":
                k.data[i].co = (x, y, z + 0.8 * math.exp(-2 * (x * x + y * y)))
            elif name == "Stretch":
                k.data[i].co = (1.6 * x, 0.7 * y, z - 0.2 * x)
            else:
                a = 0.9 * y
                k.data[i].co = (x * math.cos(a) - z * math.sin(a), y, x * math.sin(a) + z * math.cos(a) + 0.1)
        keys[name] = k
    scene.render.fps = 10
    weights = {1: {"Bulge": 1.0}, 2: {"Bulge": 0.5, "Stretch": 0.5}, 3: {"Twist": 0.7}}
    for frame, w in weights.items():
        for name, k in keys.items():
            k.value = w.get(name, 0.0)
            k.keyframe_insert("value", frame=frame)
    for fc in me.shape_keys.animation_data.action.fcurves:
        for kp in fc.keyframe_points:
            kp.interpolation = "LINEAR"
    scene.frame_start, scene.frame_end = 1, 3
    ref = {"shape_keys": len(me.shape_keys.key_blocks), "fps": 10, "frames": {}}
    for f in (1, 2, 3):
        ref["frames"][str(f)] = evaluated(obj, f)
    export(os.path.join(out_dir, "shapes.glb"), [obj])
    return obj, ref


# -- Armature

def make_rig():
    arm_data = bpy.data.armatures.new("RigData")
    arm = bpy.data.objects.new("Rig", arm_data)
    scene.collection.objects.link(arm)
    arm.location = (0.2, 0.1, 0.0)
    select_only([arm])
    bpy.ops.object.mode_set(mode="EDIT")
    names = []
    parent = None
    for b in range(3):
        eb = arm_data.edit_bones.new("Bone%d" % b)
        eb.head, eb.tail = (0, 0, b), (0, 0, b + 1)
        if parent:
            eb.parent, eb.use_connect = parent, True
        parent = eb
        names.append(eb.name)
    bpy.ops.object.mode_set(mode="OBJECT")

    rings, seg = 13, 8
    verts, faces = [], []
    for r in range(rings):
        z = 3.0 * r / (rings - 1)
        rad = 0.3 + 0.05 * r  # widening: vertex positions stay distinct
        for s in range(seg):
            a = 2 * math.pi * s / seg + 0.1 * r
            verts.append((rad * math.cos(a), rad * math.sin(a), z))
    for r in range(rings - 1):
        for s in range(seg):
            a, b = r * seg + s, r * seg + (s + 1) % seg
            faces.append((a, b, b + seg, a + seg))
    me = bpy.data.meshes.new("TubeMesh")
    me.from_pydata(verts, [], faces)
    me.update()
    tube = bpy.data.objects.new("Tube", me)
    scene.collection.objects.link(tube)
    tube.parent = arm
    groups = [tube.vertex_groups.new(name=n) for n in names]
    for i, v in enumerate(verts):
        z = v[2]
        # Each bone weighs 1 at its middle and falls off linearly to 0 at
        # the middles of its neighbours: two bones per vertex between them.
        for b in range(3):
            w = max(0.0, 1.0 - abs(z - (b + 0.5)))
            if b == 0 and z < 0.5 or b == 2 and z > 2.5:
                w = 1.0
            if w > 0:
                groups[b].add([i], w, "REPLACE")
    mod = tube.modifiers.new("Armature", "ARMATURE")
    mod.object = arm

    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, 11
    poses = {
        1: [((0, 0, 1), 0), ((1, 0, 0), 0), ((0, 1, 0), 0)],
        6: [((0, 0, 1), 25), ((1, 0, 0), 40), ((0, 1, 0), 30)],
        11: [((0, 0, 1), -10), ((1, 0, 0), -35), ((0, 1, 0), 65)],
    }
    from mathutils import Quaternion, Vector
    for frame, rots in poses.items():
        for b, (axis, deg) in enumerate(rots):
            pb = arm.pose.bones[names[b]]
            pb.rotation_mode = "QUATERNION"
            pb.rotation_quaternion = Quaternion(Vector(axis), math.radians(deg))
            pb.keyframe_insert("rotation_quaternion", frame=frame)
        root = arm.pose.bones[names[0]]
        root.location = (0.0, 0.3 * (frame - 1) / 10, 0.0)
        root.keyframe_insert("location", frame=frame)
    ref = {"bones": len(arm_data.bones), "fps": 24, "frames": {}}
    for f in (1, 4, 9):  # the first key, and two frames between keys
        ref["frames"][str(f)] = evaluated(tube, f)
    export(os.path.join(out_dir, "rig.glb"), [arm, tube])
    return ref


shape_obj, shape_ref = make_shapes()
# The rig goes into a scene of its own so the shape grid is not exported with it.
bpy.data.objects.remove(shape_obj, do_unlink=True)
rig_ref = make_rig()
with open(os.path.join(out_dir, "reference.json"), "w") as f:
    json.dump({"shapes": shape_ref, "rig": rig_ref}, f)
print("convert_blender_make: shapes.glb (%d shape keys incl. Basis), rig.glb (%d bones) in %s"
      % (shape_ref["shape_keys"], rig_ref["bones"], out_dir))
