"""Render a converted level (.glb from a .wmp) to a PNG with headless Blender.

usage: blender -b --factory-startup -P blender_bridge/render_level.py -- \
           LEVEL.glb OUT.png [--view start|top] [--width 640] [--height 400]
           [--samples 8] [--eye 48] [--light 1] [--frame N] [--camera X,Y,Z,PAN[,TILT]]
           [--no-lightmaps]

--view start: the camera stands at the level's start position (the node
whose extras say "wmp:element": "start"), --eye quants above it, looking
along the start's forward (the entity's +X; Blender -Y of the node after
the glTF import's axis change), 75 degrees field of view. A level without a
start position is looked at from 64 quants beyond the middle of its
bounding box's +X edge (Blender's min Y), at eye height above its lowest
point, looking toward -X; the script says which it used.
--view top: an orthographic camera above the level, framing every mesh.
--camera X,Y,Z,PAN[,TILT]: instead, a camera at level coordinates X,Y,Z
(quants, GameStudio axes) looking toward PAN degrees (counter-clockwise
from +X) and TILT degrees up.

A compiled level's lightmaps (the glTF occlusion texture on TEXCOORD_1) are
multiplied into the base colour as the add-on does on import
(gsio_blender.light_material); --no-lightmaps leaves them out.

Cycles on the CPU, no denoising. The level's own lights are kept; a grey
world light and, for perspective views, a point light at the camera
(--light scales it) are added so closed rooms are not black (GameStudio
levels rely on an ambient term that glTF does not have). Every line of output
starts with "render_level:".
"""
import math
import os
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses the removed alias

import bpy  # noqa: E402
from mathutils import Vector  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "addon"))
from render_common import render_png  # noqa: E402
from gsio_blender import light_material  # noqa: E402


def parse(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    opts = {"view": "start", "width": 640, "height": 400, "samples": 8, "eye": 48.0, "frame": None,
            "camera": None, "light": 1.0, "lightmaps": True}
    pos = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--width", "--height", "--samples", "--frame"):
            opts[a[2:]] = int(args[i + 1])
            i += 2
        elif a == "--light":
            opts["light"] = float(args[i + 1])
            i += 2
        elif a == "--eye":
            opts["eye"] = float(args[i + 1])
            i += 2
        elif a == "--camera":
            opts["camera"] = [float(x) for x in args[i + 1].split(",")]
            i += 2
        elif a == "--no-lightmaps":
            opts["lightmaps"] = False
            i += 1
        elif a == "--view":
            opts["view"] = args[i + 1]
            i += 2
        else:
            pos.append(a)
            i += 1
    if len(pos) != 2 or opts["view"] not in ("start", "top"):
        print(__doc__)
        sys.exit(2)
    return pos[0], pos[1], opts


def bounds(scene):
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
    return lo, hi


def main():
    src, dst, opts = parse(sys.argv)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=src)
    if opts["lightmaps"]:
        lit = sum(light_material(m) for m in bpy.data.materials)
        print("render_level: %d materials with a lightmap" % lit)
    scene = bpy.context.scene
    if opts["frame"] is not None:
        scene.frame_set(opts["frame"])
    bpy.context.view_layer.update()
    lo, hi = bounds(scene)
    if lo.x > hi.x:
        print("render_level: no mesh in", src)
        sys.exit(1)
    centre = (lo + hi) / 2
    print("render_level: bounds %s .. %s" % (tuple(round(x, 1) for x in lo), tuple(round(x, 1) for x in hi)))

    cam_data = bpy.data.cameras.new("render_camera")
    cam = bpy.data.objects.new("render_camera", cam_data)
    scene.collection.objects.link(cam)
    if opts["camera"]:
        x, y, z, pan = opts["camera"][:4]
        tilt = math.radians(opts["camera"][4]) if len(opts["camera"]) > 4 else 0.0
        cam_data.lens_unit = "FOV"
        cam_data.angle = math.radians(75)
        cam_data.clip_start = 1
        cam_data.clip_end = 1e5
        # GameStudio (x, y, z) is Blender (y, -x, z) after gsio's glTF and
        # Blender's import.
        cam.location = Vector((y, -x, z))
        p = math.radians(pan)
        fwd = Vector((math.sin(p) * math.cos(tilt), -math.cos(p) * math.cos(tilt), math.sin(tilt)))
        cam.rotation_euler = fwd.to_track_quat("-Z", "Y").to_euler()
        print("render_level: camera at %s, pan %g" % (tuple(opts["camera"][:3]), pan))
    elif opts["view"] == "top":
        cam_data.type = "ORTHO"
        aspect = opts["width"] / opts["height"]
        cam_data.ortho_scale = max(hi.x - lo.x, (hi.y - lo.y) * aspect) * 1.05
        cam.location = Vector((centre.x, centre.y, hi.z + 100))
        cam.rotation_euler = (0, 0, 0)  # looks down -Z, +Y up: north at the top
        cam_data.clip_start = 1
        cam_data.clip_end = (hi.z - lo.z) + 1000
        print("render_level: top view, %g quants across" % cam_data.ortho_scale)
    else:
        cam_data.lens_unit = "FOV"
        cam_data.angle = math.radians(75)
        cam_data.clip_start = 1
        cam_data.clip_end = 1e5
        starts = [o for o in scene.objects if o.get("wmp:element") == "start"]
        if starts:
            st = starts[0]
            m = st.matrix_world
            fwd = (m.to_3x3() @ Vector((0, -1, 0))).normalized()
            cam.location = m.translation + Vector((0, 0, opts["eye"]))
            print("render_level: start position %s at %s, forward %s" % (
                st.name, tuple(round(x, 1) for x in m.translation), tuple(round(x, 3) for x in fwd)))
        else:
            cam.location = Vector((centre.x, lo.y - 64, lo.z + opts["eye"]))
            fwd = (centre - cam.location)
            fwd.z = 0
            fwd.normalize()
            print("render_level: no start position in the level: camera at %s (Blender) looking toward the level's -X" % (
                tuple(round(x, 1) for x in cam.location),))
        cam.rotation_euler = fwd.to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam
    # A headlight: levels are closed rooms the world light does not reach.
    if cam_data.type != "ORTHO":
        head = bpy.data.lights.new("render_headlight", "POINT")
        head.energy = 2e6 * opts["light"]
        head.shadow_soft_size = 0
        ho = bpy.data.objects.new("render_headlight", head)
        ho.location = cam.location
        scene.collection.objects.link(ho)

    render_png(scene, dst, opts["samples"], opts["width"], opts["height"], (0.5, 0.5, 0.55, 1), 0.8,
               "render_level")


main()
