"""Runs inside Blender (blender -b --factory-startup -P gltf_blender_check.py -- PLAN.json).

PLAN.json (written by gltf_blender.py) lists files and what the scene layer
says they hold. Each file is imported into an empty scene with Blender's own
glTF importer and checked; every failure is printed, the last line is
"gltf_blender: PASS" or "gltf_blender: FAIL"; the exit status follows.
"""
import json
import os
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses the removed alias

import bpy  # noqa: E402

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("gltf_blender: FAIL: " + msg)


def import_file(path):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    return [o for o in bpy.data.objects if o.type == "MESH"]


def check_mdl(case):
    path, want = case["file"], case["want"]
    name = os.path.basename(path)
    meshes = import_file(path)
    check(len(meshes) == 1, "%s: %d mesh objects, expected 1" % (name, len(meshes)))
    if not meshes:
        return
    me = meshes[0].data
    keys = me.shape_keys.key_blocks if me.shape_keys else []
    names = [k.name for k in keys]
    if want["frames"] <= 1:
        # A static model (one frame) is a plain mesh: no morph target.
        check(len(keys) == 0, "%s: %d shape keys on a static model, expected none" % (name, len(keys)))
    else:
        check(len(keys) == want["frames"] + 1,
              "%s: %d shape keys, expected %d frames + Basis" % (name, len(keys), want["frames"]))
        check(names[1:] == want["frame_names"], "%s: shape keys %s... are not the frame names %s..."
              % (name, names[1:4], want["frame_names"][:3]))
    actions = [a.name for a in bpy.data.actions]
    check(len(actions) == len(want["clips"]),
          "%s: actions %s, expected one per clip %s" % (name, actions, want["clips"]))
    for clip in want["clips"]:
        check(any(a == clip or a.startswith(clip + "_") for a in actions),
              "%s: no action for clip %r in %s" % (name, clip, actions))
    # Key frames of each action span the clip: n keys per shape key curve.
    images = [i for i in bpy.data.images if i.type == "IMAGE"]
    sizes = sorted(list(i.size) for i in images)
    check(len(images) == want["skins"], "%s: %d images, expected %d skins" % (name, len(images), want["skins"]))
    check(all(w > 0 and h > 0 for w, h in sizes), "%s: an image did not load: %s" % (name, sizes))
    check(sizes == sorted(want["skin_sizes"]), "%s: image sizes %s, skins %s" % (name, sizes, want["skin_sizes"]))
    if want["skins"]:
        check(len(me.uv_layers) >= 1, "%s: no UV layer" % name)
        mats = [m for m in me.materials if m]
        # One material, or two when only some faces are double-sided pairs
        # (the pairs are drawn with a double-sided copy: mdl4-human).
        check(1 <= len(mats) <= 2 and all(m.use_nodes for m in mats), "%s: material missing" % name)
    if want["skins"] > 1:
        variants = [v.name for v in getattr(bpy.context.scene, "gltf2_KHR_materials_variants_variants", [])]
        check(len(variants) == want["skins"], "%s: variants %s, expected %d" % (name, variants, want["skins"]))
        check(len(bpy.data.materials) >= want["skins"], "%s: %d materials" % (name, len(bpy.data.materials)))
    print("gltf_blender: %s: %d shape keys, actions %s, images %s, uv layers %d"
          % (name, len(keys), actions, sizes, len(me.uv_layers)))


def check_counts(case):
    """A model against the counts gsio info reports for it."""
    path, want = case["file"], case["want"]
    name = case["source"]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    meshes = [o for o in bpy.data.objects if o.type == "MESH"]
    arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    check(len(meshes) == want["meshes"], "%s: %d mesh objects, gsio info lists %d meshes"
          % (name, len(meshes), want["meshes"]))
    keys = [len(o.data.shape_keys.key_blocks) if o.data.shape_keys else 0 for o in meshes]
    if want["frames"] >= 2:
        check(any(k == want["frames"] + 1 for k in keys) and all(k in (0, want["frames"] + 1) for k in keys),
              "%s: shape keys per mesh %s, expected %d frames + Basis" % (name, keys, want["frames"]))
    else:
        check(not any(keys), "%s: shape keys %s on a model without morph frames" % (name, keys))
    bones = [len(a.data.bones) for a in arms]
    check(bones == ([want["joints"]] if want["joints"] else []),
          "%s: armature bones %s, gsio info lists %d joints" % (name, bones, want["joints"]))
    actions = [a.name for a in bpy.data.actions]
    # Blender makes one action per animated object (armature, shape keys)
    # and glTF animation, named after the animation.
    def owner(action):
        best = None
        for anim in want["animations"]:
            if action == anim or action.startswith(anim + "_"):
                if best is None or len(anim) > len(best):
                    best = anim
        return best
    owners = [owner(a) for a in actions]
    check(None not in owners, "%s: actions %s not named after an animation of %s"
          % (name, [a for a, o in zip(actions, owners) if o is None], want["animations"]))
    check(set(o for o in owners if o) == set(want["animations"]),
          "%s: animations with an action %s, gsio info lists %s"
          % (name, sorted(set(o for o in owners if o)), want["animations"]))
    images = [i for i in bpy.data.images if i.type == "IMAGE"]
    sizes = sorted(list(i.size) for i in images)
    check(len(images) == len(want["skin_sizes"]), "%s: %d images, gsio info lists %d skins"
          % (name, len(images), len(want["skin_sizes"])))
    check(all(w > 0 and h > 0 for w, h in sizes), "%s: an image did not load: %s" % (name, sizes))
    check(sizes == sorted(want["skin_sizes"]), "%s: image sizes %s, skins %s"
          % (name, sizes, want["skin_sizes"]))
    print("gltf_blender: %s: %d meshes, shape keys %s, bones %s, %d actions for %d animations, "
          "images %s" % (name, len(meshes), sorted(set(keys)), bones, len(actions),
                         len(want["animations"]), sizes))


def check_skinned(case, bones, influences):
    path = case["file"]
    name = os.path.basename(path)
    meshes = import_file(path)
    arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    check(len(meshes) == 1 and len(arms) == 1, "%s: %d meshes, %d armatures" % (name, len(meshes), len(arms)))
    if not meshes or not arms:
        return
    check(len(arms[0].data.bones) == bones, "%s: %d bones, expected %d" % (name, len(arms[0].data.bones), bones))
    me = meshes[0].data
    n0 = len([g for g in me.vertices[0].groups if g.weight > 0])
    check(n0 == influences, "%s: vertex 0 has %d weighted groups, expected %d" % (name, n0, influences))
    total = sum(g.weight for g in me.vertices[0].groups)
    check(abs(total - 1) < 1e-5, "%s: vertex 0 weights sum to %g" % (name, total))
    actions = [a.name for a in bpy.data.actions]
    cams = [o for o in bpy.data.objects if o.type == "CAMERA"]
    if case["kind"] == "synthetic_skinned":
        check(any(a.startswith("wave") for a in actions), "%s: no action 'wave' in %s" % (name, actions))
        check(len(cams) == 1, "%s: %d cameras" % (name, len(cams)))
    print("gltf_blender: %s: %d bones, vertex 0 in %d groups, actions %s, cameras %d"
          % (name, len(arms[0].data.bones), n0, actions, len(cams)))


def check_weights_sparse(case):
    """test_gltf_morph's 1100 frames (walk0..walk1099, 10 fps, a cut at 500)
    with their weights as a sparse accessor: one shape key per frame, and at
    frame f's key the shape key walk<f> weighs 1, every other 0."""
    name = os.path.basename(case["file"])
    meshes = import_file(case["file"])
    check(len(meshes) == 1, "%s: %d mesh objects" % (name, len(meshes)))
    if not meshes:
        return
    keys = meshes[0].data.shape_keys
    n = len(keys.key_blocks) - 1 if keys else 0
    check(n == 1100, "%s: %d shape keys, expected 1100" % (name, n))
    acts = [a for a in bpy.data.actions if a.fcurves]
    check(len(acts) == 1, "%s: %d actions" % (name, len(acts)))
    if not acts or n != 1100:
        return
    curves = {fc.data_path: fc for fc in acts[0].fcurves}
    fps = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    bad = 0
    for f in (0, 1, 2, 250, 499, 501, 750, 1099):
        at = f / 10.0 * fps
        for k in range(1100):
            fc = curves.get('key_blocks["walk%d"].value' % k)
            w = fc.evaluate(at) if fc else 0.0
            if abs(w - (1.0 if k == f else 0.0)) > 1e-4:
                bad += 1
                if bad <= 3:
                    check(False, "%s: at frame %d shape key walk%d weighs %g" % (name, f, k, w))
    print("gltf_blender: %s: %d shape keys, one-hot at 8 frames (%d weights off)" % (name, n, bad))


def check_weights_sparse_clips(case):
    """test_gltf_morph's 1100 frames in 11 clips of 100 (walk: frames 0-99,
    clipK: frames 100K-100K+99), each clip's weights a sparse accessor over
    one shared view of zeros: an action per clip, and at its key j the shape
    key of frame 100K+j weighs 1, every other 0."""
    name = os.path.basename(case["file"])
    meshes = import_file(case["file"])
    check(len(meshes) == 1, "%s: %d mesh objects" % (name, len(meshes)))
    keys = meshes[0].data.shape_keys if meshes else None
    n = len(keys.key_blocks) - 1 if keys else 0
    check(n == 1100, "%s: %d shape keys, expected 1100" % (name, n))
    if n != 1100:
        return
    fps = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    bad = 0
    for k in range(11):
        clip = "walk" if k == 0 else "clip%d" % k
        acts = [a for a in bpy.data.actions if a.name == clip or a.name.startswith(clip + "_")]
        check(len(acts) == 1, "%s: actions for clip %s: %s" % (name, clip, [a.name for a in acts]))
        if len(acts) != 1:
            continue
        curves = {fc.data_path: fc for fc in acts[0].fcurves}
        for j in (0, 37, 99):
            for t in range(1100):
                fc = curves.get('key_blocks["walk%d"].value' % t)
                w = fc.evaluate(j / 10.0 * fps) if fc else 0.0
                if abs(w - (1.0 if t == 100 * k + j else 0.0)) > 1e-4:
                    bad += 1
                    if bad <= 3:
                        check(False, "%s: clip %s key %d: shape key walk%d weighs %g" % (name, clip, j, t, w))
    print("gltf_blender: %s: %d shape keys, 11 clips one-hot at 3 keys each (%d weights off)" % (name, n, bad))


def main():
    plan = json.load(open(sys.argv[sys.argv.index("--") + 1]))
    for case in plan:
        try:
            if case["kind"] == "mdl":
                check_mdl(case)
            elif case["kind"] == "counts":
                check_counts(case)
            elif case["kind"] == "synthetic_skinned":
                check_skinned(case, 3, 3)
            elif case["kind"] == "synthetic_9_weights":
                check_skinned(case, 9, 9)
            elif case["kind"] == "weights_sparse":
                check_weights_sparse(case)
            elif case["kind"] == "weights_sparse_clips":
                check_weights_sparse_clips(case)
        except Exception as e:  # an importer exception is a failure, not a crash
            check(False, "%s: %s: %s" % (case["file"], type(e).__name__, e))
    print("gltf_blender: FAIL" if failures else "gltf_blender: PASS")
    sys.stdout.flush()
    os._exit(1 if failures else 0)


main()
