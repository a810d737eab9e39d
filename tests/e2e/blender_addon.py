"""Runs inside Blender, in a fresh user folder where the gsio add-on zip was
installed and enabled (blender_addon.cmake):

    blender -b -P blender_addon.py -- CORPUS OUTDIR

Everything goes through the add-on's operators, as File > Import / Export
would: imports of corpus files (MDL5, HMP5, MD5, MDL7 with bones, an MDL7
whose texture lies in a search folder, a WMP level with its search folder), exports (a shape-key cube -> MDL5, an
armature-animated mesh -> MD5 -> imported again), broken files (an error
report naming file and offset, the scene unchanged). Every failure is
printed; the last line is "blender_addon: PASS" or "blender_addon: FAIL";
the exit status follows.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

import bpy
from mathutils import Vector

corpus, out = sys.argv[sys.argv.index("--") + 1:][:2]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("blender_addon: FAIL: " + msg)
    return cond


def log(msg):
    print("blender_addon: " + msg)


def reset():
    # read_homefile keeps the preferences (and so the enabled add-on);
    # read_factory_settings would drop them.
    bpy.ops.wm.read_homefile(use_empty=True)


def state():
    """What an import may change: names of every data-block kind."""
    kinds = ("objects", "meshes", "materials", "images", "actions", "armatures", "cameras", "lights",
             "collections", "shape_keys")
    return {k: sorted(i.name for i in getattr(bpy.data, k)) for k in kinds}


def meshes():
    return [o for o in bpy.data.objects if o.type == "MESH"]


def armatures():
    return [o for o in bpy.data.objects if o.type == "ARMATURE"]


def images_with_pixels():
    return [i for i in bpy.data.images if i.type == "IMAGE" and i.size[0] > 0 and i.size[1] > 0]


def gsio_info(path):
    cmd = [gsio_blender.find_tool(bpy.context, "gsio"), "info", "--json", path]
    return json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


def run_op(op, **kw):
    """The operator's result, or the text of its ERROR report (a script
    calling an operator gets an error report as RuntimeError)."""
    try:
        return op(**kw), None
    except RuntimeError as e:
        return None, str(e)


# -- Installed and enabled from the user folder, commands from the zip

import importlib  # noqa: E402

import numpy  # noqa: E402

# Installed the legacy way (Blender < 4.2) it is the module gsio_blender; as
# a 4.2+ extension, bl_ext.user_default.gsio_blender.
module = next((m for m in ("gsio_blender", "bl_ext.user_default.gsio_blender")
               if m in bpy.context.preferences.addons), None)
if not check(module, "the add-on is not enabled in the user preferences: %s"
             % sorted(bpy.context.preferences.addons.keys())):
    print("blender_addon: FAIL")
    sys.stdout.flush()
    os._exit(1)
gsio_blender = importlib.import_module(module)
had_numpy_bool = "bool" in numpy.__dict__
user_dirs = [os.path.abspath(os.environ[v]) for v in ("BLENDER_USER_SCRIPTS", "BLENDER_USER_EXTENSIONS")
             if os.environ.get(v)]
check(any(os.path.abspath(gsio_blender.__file__).startswith(d) for d in user_dirs),
      "the add-on was loaded from %s, not the fresh user folders %s" % (gsio_blender.__file__, user_dirs))
log("add-on %s from %s" % (module, os.path.dirname(gsio_blender.__file__)))
SYSTEM_LIBS = ("linux-vdso.so", "ld-linux", "libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "libpthread.so",
               "libdl.so", "libz.so")
for tool in ("gsio", "mdl2gltf"):
    path = gsio_blender.find_tool(bpy.context, tool)
    check(path.startswith(os.path.dirname(gsio_blender.__file__)), "%s found at %s, not in the zip" % (tool, path))
    check(os.access(path, os.X_OK), "%s is not executable" % path)
    # On this system too, what the command loads beyond the C/C++ runtime
    # and zlib comes from the add-on's own folder (its lib/).
    if sys.platform.startswith("linux"):
        r = subprocess.run(["ldd", path], capture_output=True, text=True)
        addon_dir = os.path.dirname(os.path.abspath(gsio_blender.__file__))
        outside = [line.split()[0] + " " + line.split()[2] for line in r.stdout.splitlines()
                   if "=>" in line and len(line.split()) >= 3 and not line.split()[0].startswith(SYSTEM_LIBS)
                   and not line.split()[2].startswith(addon_dir)]
        check(r.returncode == 0 and not outside, "%s loads from outside the add-on: %s" % (tool, outside or r.stdout))
for menu, ops in (("TOPBAR_MT_file_import", ("gsio_gamestudio", "gsio_md5")),
                  ("TOPBAR_MT_file_export", ("gsio_mdl5", "gsio_hmp5", "gsio_md5"))):
    check(any(getattr(f, "__module__", "") == module for f in getattr(bpy.types, menu)._dyn_ui_initialize()),
          "no gsio entry in %s" % menu)
    for op in ops:
        check(hasattr(getattr(bpy.ops, "import_scene" if "import" in menu else "export_scene"), op),
              "operator %s missing" % op)

# -- Imports

gs = bpy.ops.import_scene.gsio_gamestudio
md5 = bpy.ops.import_scene.gsio_md5

# gate-101.mdl: MDL5, 30 frames -> 30 shape keys + Basis, one clip -> an action, a 512x512 skin.
reset()
res, err = run_op(gs, filepath=os.path.join(corpus, "mdl/gate-101.mdl"))
if check(res == {"FINISHED"}, "gate-101.mdl: %s" % (err or res)):
    m = meshes()
    keys = m[0].data.shape_keys.key_blocks if m and m[0].data.shape_keys else []
    check(len(m) == 1 and len(keys) == 31, "gate-101.mdl: %d meshes, %d shape keys (expected 1, 30 + Basis)"
          % (len(m), len(keys)))
    check(len(bpy.data.actions) >= 1, "gate-101.mdl: no action")
    imgs = images_with_pixels()
    check(len(imgs) == 1 and tuple(imgs[0].size) == (512, 512) and imgs[0].packed_file,
          "gate-101.mdl: images %s (expected one packed 512x512)" % [(i.name, tuple(i.size)) for i in imgs])
    # Material and image named after the model, not the temporary GLB.
    mats = [mat.name for o in m for mat in o.data.materials if mat]
    check(mats and all(n.startswith("gate-101") for n in mats + [i.name for i in imgs]),
          "gate-101.mdl: materials %s, images %s (expected names from gate-101)" % (mats, [i.name for i in imgs]))
    log("gate-101.mdl: %d shape keys, actions %s, images %s, materials %s"
        % (len(keys), [a.name for a in bpy.data.actions], [(i.name, tuple(i.size)) for i in imgs], mats))

# shadow-5.hmp: 3835 vertices, textured.
reset()
res, err = run_op(gs, filepath=os.path.join(corpus, "hmp/shadow-5.hmp"))
if check(res == {"FINISHED"}, "shadow-5.hmp: %s" % (err or res)):
    m = meshes()
    nverts = sum(len(o.data.vertices) for o in m)
    check(nverts == 3835, "shadow-5.hmp: %d vertices, expected 3835" % nverts)
    tex = [n for o in m for mat in o.data.materials if mat and mat.use_nodes
           for n in mat.node_tree.nodes if n.type == "TEX_IMAGE" and n.image and n.image.size[0] > 0]
    check(tex, "shadow-5.hmp: no material with an image texture")
    log("shadow-5.hmp: %d vertices, textures %s" % (nverts, [tuple(n.image.size) for n in tex]))

# Bob.md5mesh: 33 bones and the animation beside it (140 frames).
reset()
res, err = run_op(md5, filepath=os.path.join(corpus, "md5/bob/Bob.md5mesh"))
if check(res == {"FINISHED"}, "Bob.md5mesh: %s" % (err or res)):
    a = armatures()
    bones = len(a[0].data.bones) if a else 0
    acts = [(x.name, tuple(x.frame_range)) for x in bpy.data.actions]
    check(len(a) == 1 and bones == 33, "Bob.md5mesh: %d armatures, %d bones (expected 1, 33)" % (len(a), bones))
    check(len(acts) >= 1 and acts[0][1][1] - acts[0][1][0] >= 130, "Bob.md5mesh: actions %s" % acts)
    log("Bob.md5mesh: %d bones, actions %s, images %d" % (bones, acts, len(images_with_pixels())))

# An MDL7 with bones from the game: griechin.mdl (18 joints, six animations).
reset()
path = os.path.join(corpus, "lottershock/Game/Assets/griechin.mdl")
want = gsio_info(path)
res, err = run_op(gs, filepath=path)
if check(res == {"FINISHED"}, "griechin.mdl: %s" % (err or res)):
    a = armatures()
    bones = len(a[0].data.bones) if a else 0
    check(len(a) == 1 and bones == want["joints"] and bones > 0,
          "griechin.mdl: %d armatures, %d bones (expected 1, %d)" % (len(a), bones, want["joints"]))
    skinned = [o for o in meshes() if any(md.type == "ARMATURE" for md in o.modifiers)]
    check(len(skinned) == 1, "griechin.mdl: %d skinned meshes" % len(skinned))
    check(len(bpy.data.actions) >= len(want["animations"]),
          "griechin.mdl: %d actions for %d animations" % (len(bpy.data.actions), len(want["animations"])))
    # Blender 4.2+'s glTF importer makes a bone shape object ("Icosphere")
    # unless the add-on turns that off: only the model's own objects.
    shapes = sorted({pb.custom_shape.name for o in a for pb in o.pose.bones if pb.custom_shape})
    others = [o.name for o in bpy.data.objects if o.type not in ("MESH", "ARMATURE", "EMPTY") or
              (o.type == "MESH" and o not in skinned)]
    check(not shapes and not others, "griechin.mdl: bone shapes %s, other objects %s" % (shapes, others))
    log("griechin.mdl: %d bones, %d actions, objects %s"
        % (bones, len(bpy.data.actions), sorted(o.name for o in bpy.data.objects)))

# plank.mdl names room_atlas_01.pcx, which lies in the game's Level folder:
# with it as a search folder the model comes in textured (the PCX's 256 x 256).
reset()
res, err = run_op(gs, filepath=os.path.join(corpus, "lottershock/Game/Assets/plank.mdl"),
                  search=os.path.join(corpus, "lottershock/Game/Level"))
if check(res == {"FINISHED"}, "plank.mdl: %s" % (err or res)):
    sizes = [tuple(i.size) for i in images_with_pixels()]
    check(sizes == [(256, 256)], "plank.mdl with the Level folder: images %s (expected one 256 x 256)" % sizes)
    log("plank.mdl: images %s" % sizes)

# bestiary.wmp with the game's Assets folder: one object per entity (44) and block (0).
reset()
res, err = run_op(gs, filepath=os.path.join(corpus, "lottershock/Game/Level/bestiary.wmp"),
                  search=os.path.join(corpus, "lottershock/Game/Assets"))
if check(res == {"FINISHED"}, "bestiary.wmp: %s" % (err or res)):
    # Objects per element kind (the "wmp:element" gsio writes into the extras).
    kinds = dict(collections.Counter(o["wmp:element"] for o in bpy.data.objects
                                     if o.get("wmp:element") is not None))
    entities = kinds.get("model", 0) + kinds.get("sprite", 0)
    check(entities == 44 and kinds.get("block", 0) == 0, "bestiary.wmp: kinds %s (expected 44 entities, 0 blocks)"
          % kinds)
    # Models come from the search folder: without it they are missing.
    placed = [o for o in bpy.data.objects if o.get("wmp:element") == "model" and
              (o.type == "MESH" or any(c.type == "MESH" for c in o.children_recursive))]
    check(len(placed) >= 40, "bestiary.wmp: only %d entities have a mesh" % len(placed))
    log("bestiary.wmp: %d objects, kinds %s, %d entities with meshes"
        % (len(bpy.data.objects), kinds, len(placed)))

# menue.wmb, the compiled level, with the game's Assets folder: its 13 entities,
# 6 blocks, and each block's material multiplies its texture by its lightmap
# (the add-on's node on the glTF occlusion texture, TEXCOORD_1).
reset()
res, err = run_op(gs, filepath=os.path.join(corpus, "lottershock/Game/Level/menue.wmb"),
                  search=os.path.join(corpus, "lottershock/Game/Assets"))
if check(res == {"FINISHED"}, "menue.wmb: %s" % (err or res)):
    kinds = dict(collections.Counter(o["wmp:element"] for o in bpy.data.objects
                                     if o.get("wmp:element") is not None))
    entities = kinds.get("model", 0) + kinds.get("sprite", 0)
    check(entities == 13 and kinds.get("block", 0) == 6, "menue.wmb: kinds %s (expected 13 entities, 6 blocks)"
          % kinds)
    blocks = [o for o in bpy.data.objects if o.get("wmp:element") == "block" and o.type == "MESH"]
    lit = 0
    for o in blocks:
        uv = [l.name for l in o.data.uv_layers]
        check(len(uv) == 2, "menue.wmb %s: uv layers %s (expected the texture's and the lightmap's)" % (o.name, uv))
        for slot in o.material_slots:
            n = slot.material.node_tree.nodes.get("gsio lightmap") if slot.material else None
            if n is not None and n.inputs[1].is_linked and n.inputs[2].is_linked and n.outputs[0].is_linked:
                lit += 1
    check(blocks and lit == len(blocks), "menue.wmb: %d of %d blocks show their lightmap" % (lit, len(blocks)))
    log("menue.wmb: kinds %s, %d blocks lit" % (kinds, lit))

# -- Broken files: an error report with file and offset, the scene unchanged

reset()
gs(filepath=os.path.join(corpus, "mdl/gate-101.mdl"))
before = state()
broken = os.path.join(out, "broken.mdl")
with open(os.path.join(corpus, "mdl/gate-101.mdl"), "rb") as f:
    data = f.read()
with open(broken, "wb") as f:
    f.write(data[:len(data) // 2])
res, err = run_op(gs, filepath=broken)
check(err and "broken.mdl" in err and "offset" in err, "truncated MDL: report %r (expected file and offset)" % err)
check(state() == before, "truncated MDL: the scene changed")
log("truncated MDL: %s" % err)
res, err = run_op(md5, filepath=os.path.join(corpus, "invalid/InvalidBoneIndex.md5mesh"))
check(err and "InvalidBoneIndex.md5mesh:23:10" in err, "invalid MD5: report %r (expected file:line:column)" % err)
check(state() == before, "invalid MD5: the scene changed")
log("invalid MD5: %s" % err)
# Two files, the second broken: nothing of the first stays.
with open(os.path.join(out, "good.mdl"), "wb") as f:
    f.write(data)
res, err = run_op(gs, directory=out, files=[{"name": "good.mdl"}, {"name": "broken.mdl"}])
check(err and "broken.mdl" in err and "offset" in err and state() == before,
      "good + broken MDL: report %r, scene unchanged: %s" % (err, state() == before))
# Blender's importer failing after it added data: the data goes again.
real_import = gsio_blender._import_glb


def failing_import(glb):
    real_import(glb)
    raise gsio_blender.GsioError("simulated importer failure")


gsio_blender._import_glb = failing_import
res, err = run_op(gs, filepath=os.path.join(out, "good.mdl"))
gsio_blender._import_glb = real_import
check(err and "simulated" in err and state() == before,
      "importer failure: report %r, scene unchanged: %s" % (err, state() == before))
check(("bool" in numpy.__dict__) == had_numpy_bool, "numpy.bool was left changed")

# -- Export: a shape-key animated cube -> MDL5

reset()
bpy.ops.mesh.primitive_cube_add(size=2)
cube = bpy.context.active_object
cube.shape_key_add(name="Basis")
key = cube.shape_key_add(name="Squash")
for v in key.data:
    v.co.z *= 0.3
for frame, value in ((1, 0.0), (10, 1.0), (20, 0.0)):
    key.value = value
    key.keyframe_insert("value", frame=frame)
bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 20
mdl = os.path.join(out, "cube.mdl")
res, err = run_op(bpy.ops.export_scene.gsio_mdl5, filepath=mdl)
if check(res == {"FINISHED"} and os.path.isfile(mdl), "cube -> MDL5: %s" % (err or res)):
    info = subprocess.run([gsio_blender.find_tool(bpy.context, "gsio"), "info", mdl],
                          capture_output=True, text=True).stdout
    log("cube.mdl: " + " | ".join(info.splitlines()))
    j = gsio_info(mdl)
    check(j["format"] == "MDL5" and j["frames"] >= 20 and len(j["clips"]) == 1,
          "cube.mdl: %s, %d frames, clips %s (expected MDL5, >= 20 frames, one clip)"
          % (j["format"], j["frames"], j["clips"]))
    # The frames hold the animation: imported again, the flattest key is the squash.
    reset()
    gs(filepath=mdl, fps=24.0)
    m = meshes()
    heights = []
    for k in (m[0].data.shape_keys.key_blocks if m and m[0].data.shape_keys else []):
        zs = [(m[0].matrix_world @ p.co).z for p in k.data]
        heights.append(max(zs) - min(zs))
    check(heights and abs(max(heights) - 2.0) < 1e-3 and abs(min(heights) - 0.6) < 1e-3,
          "cube.mdl imported again: key heights %s..%s (expected 2 and 0.6)"
          % (min(heights, default=0), max(heights, default=0)))

# -- Export: an armature-animated mesh -> MD5 -> imported again


def build_rig():
    bpy.ops.mesh.primitive_cylinder_add(vertices=8, depth=4, location=(0, 0, 2))
    body = bpy.context.active_object
    body.name = "Body"
    bpy.ops.object.armature_add(location=(0, 0, 0))
    rig = bpy.context.active_object
    rig.name = "Rig"
    bpy.ops.object.mode_set(mode="EDIT")
    root = rig.data.edit_bones[0]
    root.name, root.head, root.tail = "root", (0, 0, 0), (0, 0, 2)
    tip = rig.data.edit_bones.new("tip")
    tip.head, tip.tail, tip.parent = (0, 0, 2), (0, 0, 4), root
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.object.select_all(action="DESELECT")
    body.select_set(True)
    rig.select_set(True)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.parent_set(type="ARMATURE_AUTO")
    for name, keys in (("tip", ((1, 0.0), (10, 0.8), (20, -0.5))), ("root", ((1, 0.0), (10, 0.0), (20, 0.4)))):
        pb = rig.pose.bones[name]
        pb.rotation_mode = "XYZ"
        for frame, angle in keys:
            pb.rotation_euler = (angle, 0, angle / 2)
            pb.keyframe_insert("rotation_euler", frame=frame)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 20
    return rig


def rest_heads():
    """World positions of every bone head in the rest pose (the armature's own, not a frame's)."""
    rig = armatures()[0]
    return {b.name: rig.matrix_world @ b.head_local for b in rig.data.bones}


def pose_at(frame):
    """World positions of every bone head and the deformed mesh's bounds at `frame`."""
    bpy.context.scene.frame_set(frame)
    rig = armatures()[0]
    heads = {pb.name: rig.matrix_world @ pb.head for pb in rig.pose.bones}
    deps = bpy.context.evaluated_depsgraph_get()
    pts = []
    for o in meshes():
        ev = o.evaluated_get(deps)
        pts += [ev.matrix_world @ v.co for v in ev.data.vertices]
    lo = Vector([min(p[i] for p in pts) for i in range(3)])
    hi = Vector([max(p[i] for p in pts) for i in range(3)])
    return heads, lo, hi


reset()
rig = build_rig()
nbones = len(rig.data.bones)
frames = (1, 10, 20)
want = [pose_at(f) for f in frames]
want_rest = rest_heads()
md5mesh = os.path.join(out, "rig.md5mesh")
res, err = run_op(bpy.ops.export_scene.gsio_md5, filepath=md5mesh)
anims = sorted(f for f in os.listdir(out) if f.startswith("rig") and f.endswith(".md5anim"))
if check(res == {"FINISHED"} and os.path.isfile(md5mesh) and len(anims) == 1,
         "rig -> MD5: %s, anims %s" % (err or res, anims)):
    reset()
    res, err = run_op(md5, filepath=md5mesh)
    if check(res == {"FINISHED"}, "rig.md5mesh imported again: %s" % (err or res)):
        a = armatures()
        got_bones = len(a[0].data.bones) if a else 0
        check(len(a) == 1 and got_bones == nbones, "rig.md5mesh: %d bones, expected %d" % (got_bones, nbones))
        # The rest pose (the md5mesh's joints) in the same (Z-up) space as
        # the source's: a skeleton below an axis-change node once came back
        # in Y-up while the animation was right.
        grest = rest_heads()
        worst = max([(grest[n] - p).length for n, p in want_rest.items() if n in grest] or [1e9])
        check(set(grest) == set(want_rest) and worst < 1e-4,
              "rig.md5mesh rest pose: bones %s vs %s, head error %.6f"
              % (sorted(grest), sorted(want_rest), worst))
        log("rig.md5mesh rest pose: head error %.6f" % worst)
        # The MD5's frame 0 is the action's first key (Blender frame 1; gsio
        # samples an animation from its first key), and Blender's glTF
        # importer puts time 0 at frame 0: source frame f is frame f - 1 here.
        for f, (heads, lo, hi) in zip(frames, want):
            gheads, glo, ghi = pose_at(f - 1)
            worst = max([(gheads[n] - p).length for n, p in heads.items() if n in gheads] or [1e9])
            box = max((glo - lo).length, (ghi - hi).length)
            check(set(gheads) == set(heads) and worst < 1e-3 and box < 1e-3,
                  "rig.md5mesh frame %d: bones %s vs %s, head error %.5f, bounds error %.5f"
                  % (f, sorted(gheads), sorted(heads), worst, box))
            log("rig.md5mesh frame %d: head error %.6f, bounds error %.6f" % (f, worst, box))

# -- Temporary files are gone

left = [f for f in os.listdir(tempfile.gettempdir()) if f.startswith("gsio-")]
check(not left, "temporary files left: %s" % left)

print("blender_addon: " + ("FAIL" if failures else "PASS"))
sys.stdout.flush()
os._exit(1 if failures else 0)
