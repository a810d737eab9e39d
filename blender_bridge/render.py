"""Render a converted model (.glb/.gltf) to a PNG with headless Blender.

usage: blender -b --factory-startup -P blender_bridge/render.py -- \
           IN.glb OUT.png [--size 320] [--samples 8] [--view front|side|top|back|ortho] [--frame N]
           [--action NAME]

Cycles on the CPU, no denoising, a sun light and a camera that frames the
model's bounding box. `--view` picks where the camera stands, in glTF axes
as imported by Blender (Blender is Z up; glTF +Z, the model's front, becomes
Blender -Y): front looks at the model's face, ortho from front-left-above.
The point is to look at skins: upside-down or mirrored textures show at once.
`--action NAME` plays the glTF animation NAME (the importer's actions whose
names start with NAME, on the armatures and the shape keys they drive)
instead of the first one; `--frame` then counts from its start.
"""
import math
import os
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses the removed alias

import bpy  # noqa: E402
from mathutils import Vector  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from render_common import render_png  # noqa: E402


def parse(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    opts = {"size": 320, "samples": 8, "view": "ortho", "frame": None, "action": None}
    pos = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--size", "--samples", "--frame"):
            opts[a[2:]] = int(args[i + 1])
            i += 2
        elif a in ("--view", "--action"):
            opts[a[2:]] = args[i + 1]
            i += 2
        else:
            pos.append(a)
            i += 1
    if len(pos) != 2:
        print(__doc__)
        sys.exit(2)
    return pos[0], pos[1], opts


def play_action(name):
    """Assigns the actions named name* to the armatures and shape keys."""
    acts = [a for a in bpy.data.actions if a.name.startswith(name)]
    if not acts:
        print("render.py: no action", name, "among", [a.name for a in bpy.data.actions])
        sys.exit(1)
    for ob in bpy.context.scene.objects:
        for holder, key in ((ob, "pose.bones"), (getattr(ob.data, "shape_keys", None), "key_blocks")):
            if holder is None:
                continue
            for a in acts:
                if any(fc.data_path.startswith(key) for fc in a.fcurves):
                    holder.animation_data_create().action = a
                    break


def main():
    src, dst, opts = parse(sys.argv)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=src)
    scene = bpy.context.scene
    if opts["action"]:
        play_action(opts["action"])
    if opts["frame"] is not None:
        scene.frame_set(opts["frame"])
    bpy.context.view_layer.update()

    # Bounds of every mesh, in world space (after shape keys / armature).
    deps = bpy.context.evaluated_depsgraph_get()
    lo = Vector((1e30, 1e30, 1e30))
    hi = -lo
    for ob in scene.objects:
        if ob.type != "MESH":
            continue
        ev = ob.evaluated_get(deps)
        me = ev.to_mesh()
        for v in me.vertices:
            w = ev.matrix_world @ v.co
            lo = Vector(map(min, lo, w))
            hi = Vector(map(max, hi, w))
        ev.to_mesh_clear()
    if lo.x > hi.x:
        print("render.py: no mesh in", src)
        sys.exit(1)
    centre = (lo + hi) / 2
    radius = max((hi - lo).length / 2, 1e-3)

    # Blender view directions (from the model towards the camera).
    dirs = {
        "front": Vector((0, -1, 0)),
        "back": Vector((0, 1, 0)),
        "side": Vector((1, 0, 0)),
        "top": Vector((0, 0, 1)),
        "ortho": Vector((-1.0, -0.8, 0.6)).normalized(),
    }
    d = dirs.get(opts["view"], dirs["ortho"])
    cam_data = bpy.data.cameras.new("render_camera")
    cam_data.lens_unit = "FOV"
    cam_data.angle = math.radians(40)
    dist = radius / math.sin(cam_data.angle / 2) * 1.05
    cam_data.clip_start = dist / 1000
    cam_data.clip_end = dist * 10
    cam = bpy.data.objects.new("render_camera", cam_data)
    scene.collection.objects.link(cam)
    cam.location = centre + d * dist
    # The camera looks down its local -Z with its local +Y up; to_track_quat
    # aligns that local up axis with world Z as far as it can.
    cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam

    sun_data = bpy.data.lights.new("render_sun", "SUN")
    sun_data.energy = 3.0
    sun = bpy.data.objects.new("render_sun", sun_data)
    scene.collection.objects.link(sun)
    sun.rotation_euler = (Vector((0, 0, 0)) - (d + Vector((0.3, 0, 0.8)))).to_track_quat("-Z", "Y").to_euler()

    render_png(scene, dst, opts["samples"], opts["size"], opts["size"], (0.25, 0.25, 0.28, 1), 0.6,
               "render.py")


main()
