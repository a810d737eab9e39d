# Blender check of an MD5 model converted to glTF:
#   blender -b --factory-startup --python-exit-code 1 -P md5_blender.py -- \
#       MODEL.glb OUTDIR MESHES BONES FRAMES IMAGES [NAME]
#
# 1. Blender's own glTF importer loads the file: MESHES mesh objects, one
#    armature with BONES bones, exactly one action on the armature's pose
#    bones whose keys fall on FRAMES consecutive whole frames at the scene's
#    24 fps (so the animation runs at 24 fps), and IMAGES images with pixels.
# 2. Not inside out: in every mesh, at least 95% of the faces' winding
#    normals agree with the imported vertex normals.
# 3. Renders (Cycles CPU, small, textured) to OUTDIR/NAME_bind_front.png
#    (rest pose), NAME_anim_front.png (frame FRAMES/2) and NAME_bind_side.png,
#    for a person to look at; a render must not show Blender's magenta
#    "missing texture" colour.
import math
import os
import sys

import bpy
import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses the removed alias
from mathutils import Vector  # noqa: E402

argv = sys.argv[sys.argv.index("--") + 1:]
glb, outdir = argv[0], argv[1]
want_meshes, want_bones, want_frames, want_images = (int(v) for v in argv[2:6])
name = argv[6] if len(argv) > 6 else "md5"
os.makedirs(outdir, exist_ok=True)


def say(msg):
    print("md5_blender: " + msg)


def fail(msg):
    say("FAIL: " + msg)
    sys.exit(1)


bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=glb)
scene = bpy.context.scene

# -- 1. What was imported

meshes = [o for o in bpy.data.objects if o.type == "MESH"]
arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
bones = sum(len(a.data.bones) for a in arms)
images = [im for im in bpy.data.images if im.type == "IMAGE" and im.size[0] > 0 and im.size[1] > 0]
say("%d meshes, %d armatures, %d bones, %d images (%s), scene at %d fps"
    % (len(meshes), len(arms), bones, len(images),
       ", ".join("%s %dx%d" % (im.name, im.size[0], im.size[1]) for im in images),
       scene.render.fps))
if len(meshes) != want_meshes:
    fail("expected %d meshes" % want_meshes)
if len(arms) != 1 or bones != want_bones:
    fail("expected one armature with %d bones" % want_bones)
if len(images) != want_images:
    fail("expected %d images with pixels" % want_images)

pose_actions = [a for a in bpy.data.actions
                if any(fc.data_path.startswith("pose.bones") for fc in a.fcurves)]
say("actions: %s" % ", ".join("%s (%d fcurves, frames %g..%g)"
                              % (a.name, len(a.fcurves), a.frame_range[0], a.frame_range[1])
                              for a in bpy.data.actions))
if want_frames:
    if len(pose_actions) != 1:
        fail("expected one action on the pose bones, found %d" % len(pose_actions))
    act = pose_actions[0]
    keys = sorted({round(k.co.x, 4) for fc in act.fcurves for k in fc.keyframe_points})
    whole = all(abs(k - round(k)) < 1e-3 for k in keys)
    say("action %s: %d distinct key frames %g..%g, on whole frames: %s"
        % (act.name, len(keys), keys[0], keys[-1], whole))
    if len(keys) != want_frames or not whole or round(keys[-1] - keys[0]) != want_frames - 1:
        fail("expected %d keys on consecutive frames at %d fps" % (want_frames, scene.render.fps))
elif pose_actions:
    fail("expected no animation")

# -- 2. Winding against the imported normals

for o in meshes:
    me = o.data
    me.calc_normals_split()
    agree = 0
    for p in me.polygons:
        n = Vector((0, 0, 0))
        for li in p.loop_indices:
            n += me.loops[li].normal
        if n.dot(p.normal) > 0:
            agree += 1
    frac = agree / max(1, len(me.polygons))
    say("%s: %d faces, %.1f%% wound like their normals" % (o.name, len(me.polygons), 100 * frac))
    if frac < 0.95:
        fail("%s looks inside out" % o.name)

# -- 3. Renders

scene.render.engine = "CYCLES"
scene.cycles.device = "CPU"
scene.cycles.samples = 16
scene.cycles.use_denoising = False
scene.render.resolution_x, scene.render.resolution_y = 360, 540
scene.render.resolution_percentage = 100
scene.render.image_settings.file_format = "PNG"
world = bpy.data.worlds.new("w")
world.use_nodes = True
world.node_tree.nodes["Background"].inputs[0].default_value = (0.45, 0.5, 0.55, 1)
world.node_tree.nodes["Background"].inputs[1].default_value = 0.6
scene.world = world


def bbox():
    dg = bpy.context.evaluated_depsgraph_get()
    lo, hi = Vector((1e9, 1e9, 1e9)), Vector((-1e9, -1e9, -1e9))
    for o in meshes:
        ev = o.evaluated_get(dg)
        me = ev.to_mesh()
        for v in me.vertices:
            p = ev.matrix_world @ v.co
            lo = Vector(map(min, lo, p))
            hi = Vector(map(max, hi, p))
        ev.to_mesh_clear()
    return lo, hi


cam_data = bpy.data.cameras.new("cam")
cam_data.type = "ORTHO"
cam = bpy.data.objects.new("cam", cam_data)
scene.collection.objects.link(cam)
scene.camera = cam
sun_data = bpy.data.lights.new("sun", "SUN")
sun_data.energy = 3.0
sun = bpy.data.objects.new("sun", sun_data)
scene.collection.objects.link(sun)


def render(path, side):
    lo, hi = bbox()
    c = (lo + hi) / 2
    size = hi - lo
    # glTF's front (+Z) is Blender's -Y: look at it from -Y (or from +X).
    # Portrait frame: ortho_scale spans the height, the width is 2/3 of it.
    if side:
        cam.location = (c.x + 10 * max(size) + 1, c.y, c.z)
        cam.rotation_euler = (math.radians(90), 0, math.radians(90))
        cam_data.ortho_scale = 1.1 * max(size.y * 1.5, size.z)
    else:
        cam.location = (c.x, c.y - 10 * max(size) - 1, c.z)
        cam.rotation_euler = (math.radians(90), 0, 0)
        cam_data.ortho_scale = 1.1 * max(size.x * 1.5, size.z)
    cam_data.clip_end = 100 * max(size) + 10
    sun.rotation_euler = cam.rotation_euler.copy()
    sun.rotation_euler.x -= math.radians(25)
    scene.render.filepath = path
    bpy.ops.render.render(write_still=True)
    img = bpy.data.images.load(path)
    px = numpy.array(img.pixels[:]).reshape(-1, 4)
    magenta = numpy.mean((px[:, 0] > 0.8) & (px[:, 1] < 0.2) & (px[:, 2] > 0.8))
    say("render %s: bbox %s..%s, magenta %.2f%%"
        % (path, tuple(round(v, 2) for v in lo), tuple(round(v, 2) for v in hi), 100 * magenta))
    if magenta > 0.005:
        fail("%s shows missing textures" % path)


for a in arms:
    a.data.pose_position = "REST"
render(os.path.join(outdir, name + "_bind_front.png"), False)
render(os.path.join(outdir, name + "_bind_side.png"), True)
if want_frames:
    for a in arms:
        a.data.pose_position = "POSE"
    start = int(pose_actions[0].frame_range[0])
    scene.frame_set(start + want_frames // 2)
    render(os.path.join(outdir, name + "_anim_front.png"), False)
say("PASS")
