"""Runs inside Blender: blender -b --factory-startup -P wmp_blender.py -- LEVEL.glb ENTITIES BLOCKS LIGHTS

Imports a level converted by mdl2gltf with Blender's own glTF importer and
checks one object per entity and per block (gsio writes the element kind of
each node into its extras, which Blender keeps as the custom property
"wmp:element"), the lights, and that every image has pixels. The last line
is "wmp_blender: PASS" or "wmp_blender: FAIL"; the exit status follows.
"""
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses the removed alias

import bpy  # noqa: E402

args = sys.argv[sys.argv.index("--") + 1:]
path, want_entities, want_blocks, want_lights = args[0], int(args[1]), int(args[2]), int(args[3])
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=path)
kinds = {}
for o in bpy.data.objects:
    k = o.get("wmp:element")
    if k is not None:
        kinds[k] = kinds.get(k, 0) + 1
entities = kinds.get("model", 0) + kinds.get("sprite", 0)
lights = sum(1 for o in bpy.data.objects if o.type == "LIGHT")
images = [im for im in bpy.data.images if im.type == "IMAGE"]
bad_images = [im.name for im in images if im.size[0] == 0 or im.size[1] == 0]
print("wmp_blender: %s: objects %d, kinds %s, lights %d, images %d" % (
    path, len(bpy.data.objects), kinds, lights, len(images)))
fail = []
if entities != want_entities:
    fail.append("entities %d, expected %d" % (entities, want_entities))
if kinds.get("block", 0) != want_blocks:
    fail.append("blocks %d, expected %d" % (kinds.get("block", 0), want_blocks))
if lights != want_lights:
    fail.append("lights %d, expected %d" % (lights, want_lights))
if bad_images:
    fail.append("images without pixels: %s" % bad_images)
for f in fail:
    print("wmp_blender: FAIL: " + f)
print("wmp_blender: " + ("FAIL" if fail else "PASS"))
sys.exit(1 if fail else 0)
