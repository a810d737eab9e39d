"""Runs inside Blender: imports the GLB that scene_consumer built from the
public API and checks what Blender made of it.
blender -b --factory-startup -P scene_consumer_blender.py -- FILE.glb"""
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses the removed alias

import bpy  # noqa: E402

path = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=path)
fails = []


def check(cond, msg):
    print("scene_consumer_blender: %s: %s" % ("ok" if cond else "FAIL", msg))
    if not cond:
        fails.append(msg)


objs = {o.name: o for o in bpy.data.objects}
print("scene_consumer_blender: objects " + ", ".join("%s(%s)" % (o.name, o.type) for o in bpy.data.objects))
a, b = objs.get("crate_a"), objs.get("crate_b")
check(a is not None and b is not None and a.type == "MESH" and b.type == "MESH",
      "crate_a and crate_b are mesh objects")
if a and b:
    check(a.data == b.data, "crate_a and crate_b share one mesh (%s, %s)" % (a.data.name, b.data.name))
    check(abs((a.matrix_world.translation - b.matrix_world.translation).length - 4.0) < 1e-4,
          "the two crates stand 4 units apart")
arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
check(len(arms) == 2, "2 armatures (got %d)" % len(arms))
bones = sorted(len(o.data.bones) for o in arms)
check(bones == [1, 2], "armatures with 1 and 2 bones (got %s)" % bones)
for name in ("legs_mesh", "arm_mesh"):
    o = objs.get(name)
    mods = [m for m in o.modifiers if m.type == "ARMATURE"] if o else []
    check(bool(mods) and mods[0].object in arms, "%s is deformed by an armature" % name)
lights = [o for o in bpy.data.objects if o.type == "LIGHT"]
check(len(lights) == 1 and lights[0].data.type == "POINT", "one point light")
cams = [o for o in bpy.data.objects if o.type == "CAMERA"]
check(len(cams) == 1, "one camera")
blob = objs.get("blob")
keys = blob.data.shape_keys.key_blocks if blob and blob.data.shape_keys else []
check(len(keys) >= 4, "blob has its 4 frames as shape keys (+ Basis): %d" % len(keys))
check(len(bpy.data.actions) >= 1, "an action for the morph clip")
extras = b.get("skills") if b else None
check(extras is not None and len(extras) == 4, "crate_b keeps its extras (skills)")
print("scene_consumer_blender: " + ("PASS" if not fails else "FAIL"))
sys.exit(1 if fails else 0)
