"""Runs inside Blender: blender -b --factory-startup -P wmp_blender.py -- LEVEL.glb ENTITIES BLOCKS LIGHTS MESHES ARMATURES

Imports a level converted by mdl2gltf with Blender's own glTF importer and
checks one object per entity and per block (gsio writes the element kind of
each node into its extras, which Blender keeps as the custom property
"wmp:element"), the lights, that every image has pixels, the mesh objects
(blocks, sprites and every placed model's meshes) and one armature per
skinned model instance. Each skinned mesh object is deformed by an
armature, and its evaluated vertices lie around its entity (the skeleton
places it: the centre of its box within the box's size of the entity's
origin). The last line is "wmp_blender: PASS" or "wmp_blender: FAIL"; the
exit status follows.
"""
import collections
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses the removed alias

import bpy  # noqa: E402

args = sys.argv[sys.argv.index("--") + 1:]
path = args[0]
want_entities, want_blocks, want_lights, want_meshes, want_arms = (int(a) for a in args[1:6])
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=path)
# Objects per element kind (the "wmp:element" gsio writes into the extras).
kinds = dict(collections.Counter(o["wmp:element"] for o in bpy.data.objects
                                 if o.get("wmp:element") is not None))
entities = kinds.get("model", 0) + kinds.get("sprite", 0)
lights = sum(1 for o in bpy.data.objects if o.type == "LIGHT")
images = [im for im in bpy.data.images if im.type == "IMAGE"]
bad_images = [im.name for im in images if im.size[0] == 0 or im.size[1] == 0]
meshes = [o for o in bpy.data.objects if o.type == "MESH"]
arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
print("wmp_blender: %s: objects %d, kinds %s, lights %d, images %d, meshes %d, armatures %d, actions %d" % (
    path, len(bpy.data.objects), kinds, lights, len(images), len(meshes), len(arms), len(bpy.data.actions)))
fail = []
if len(meshes) != want_meshes:
    fail.append("mesh objects %d, expected %d" % (len(meshes), want_meshes))
if len(arms) != want_arms:
    fail.append("armatures %d, expected %d" % (len(arms), want_arms))
# Skinned meshes: deformed by an armature, placed at their entity.
deps = bpy.context.evaluated_depsgraph_get()
skinned = 0
for o in meshes:
    mods = [m for m in o.modifiers if m.type == "ARMATURE" and m.object is not None]
    if not mods:
        continue
    skinned += 1
    # gsio names the entity in the node's extras ("wmp:entity"). Blender
    # 3.4 imports the 4 bestiary nodes whose skinned mesh also has morph
    # targets as objects named after the mesh, without the node's custom
    # properties (seen, not explained): the name is compared where it is.
    ent_name = o.get("wmp:entity")
    # The entity: the armature's nearest ancestor that is a model entity.
    ent = mods[0].object
    while ent is not None and ent.get("wmp:element") != "model":
        ent = ent.parent
    if ent is None or (ent_name is not None and ent.get("wmp:name") != ent_name):
        fail.append("%s: armature not under entity %s (%s)" % (o.name, ent_name, ent and ent.get("wmp:name")))
        continue
    ev = o.evaluated_get(deps)
    me = ev.to_mesh()
    pts = [ev.matrix_world @ v.co for v in me.vertices]
    ev.to_mesh_clear()
    lo = [min(p[k] for p in pts) for k in range(3)]
    hi = [max(p[k] for p in pts) for k in range(3)]
    size = max(hi[k] - lo[k] for k in range(3))
    centre = [(lo[k] + hi[k]) / 2 for k in range(3)]
    at = ent.matrix_world.translation
    off = max(abs(centre[k] - at[k]) for k in range(3))
    if off > size + 1:
        fail.append("%s: its box centre is %.1f from entity %s (box size %.1f)" % (o.name, off, ent.get("wmp:name"), size))
if skinned != want_arms:
    fail.append("mesh objects deformed by an armature %d, expected %d" % (skinned, want_arms))
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
