"""Runs inside Blender (3.4), in a fresh user folder where the gsio add-on
zip was installed and enabled (mdl7_blender.cmake, through blender_addon.sh):

    blender -b -P mdl7_blender.py -- CORPUS OUTDIR

A rig made here (an armature of three bones, a mesh bound to it by vertex
groups that blend by height, two actions in NLA tracks) goes out through File
> Export > "GameStudio MDL7 (A7/A8, with bones)" (Blender's glTF exporter,
then gsio convert -f mdl7) and comes back through the add-on's import. The
imported armature must have the same bones and parents, the same vertex
weights (within 1e-4), an action per source action, and at the first, middle and last frame of each the same bone head
positions and deformed vertices (within 1e-4; mesh bounds within 1e-3). The glTF
the export made is kept beside the MDL7 (OUTDIR/rig.glb). Every failure is
printed; the last line is "blender_addon: PASS" or "blender_addon: FAIL" (the
runner's protocol); the exit status follows.
"""
import os
import sys

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


def armatures():
    return [o for o in bpy.data.objects if o.type == "ARMATURE"]


def meshes():
    return [o for o in bpy.data.objects if o.type == "MESH"]


BONES = (("root", None, (0, 0, 0), (0, 0, 1)), ("spine", "root", (0, 0, 1), (0, 0, 2)),
         ("head", "spine", (0, 0, 2), (0, 0, 3)))
ACTIONS = (("bend", "spine", 0, 20), ("twist", "root", 2, 10))  # name, bone, axis, frames


def build_rig():
    bpy.ops.wm.read_homefile(use_empty=True)
    # A tube of 13 rings of 8 vertices from z = 0 to 3.
    import math
    verts = [(0.3 * math.cos(a * math.pi / 4), 0.3 * math.sin(a * math.pi / 4), r * 0.25)
             for r in range(13) for a in range(8)]
    faces = [(r * 8 + a, r * 8 + (a + 1) % 8, (r + 1) * 8 + (a + 1) % 8, (r + 1) * 8 + a)
             for r in range(12) for a in range(8)]
    me = bpy.data.meshes.new("Body")
    me.from_pydata(verts, [], faces)
    body = bpy.data.objects.new("Body", me)
    bpy.context.scene.collection.objects.link(body)
    bpy.ops.object.armature_add(location=(0, 0, 0))
    rig = bpy.context.active_object
    rig.name = "Rig"
    bpy.ops.object.mode_set(mode="EDIT")
    eb = rig.data.edit_bones
    eb.remove(eb[0])
    for name, parent, head, tail in BONES:
        b = eb.new(name)
        b.head, b.tail = head, tail
        if parent:
            b.parent = eb[parent]
    bpy.ops.object.mode_set(mode="OBJECT")
    # Weights by height: each vertex between the two nearest bone middles.
    groups = {name: body.vertex_groups.new(name=name) for name, *_ in BONES}
    for v in body.data.vertices:
        z = (body.matrix_world @ v.co).z
        x = min(max(z - 0.5, 0.0), 2.0)
        i = min(int(x), 1)
        t = x - i
        groups[BONES[i][0]].add([v.index], 1 - t, "REPLACE")
        if t > 0:
            groups[BONES[i + 1][0]].add([v.index], t, "REPLACE")
    mod = body.modifiers.new("Armature", "ARMATURE")
    mod.object = rig
    body.parent = rig
    rig.animation_data_create()
    for name, bone, axis, n in ACTIONS:
        act = bpy.data.actions.new(name)
        rig.animation_data.action = act
        pb = rig.pose.bones[bone]
        pb.rotation_mode = "XYZ"
        for f in (1, (n + 1) // 2, n):
            e = [0.0, 0.0, 0.0]
            e[axis] = 0.6 * (f - 1) / (n - 1)
            pb.rotation_euler = e
            pb.keyframe_insert("rotation_euler", frame=f)
        pb.rotation_euler = (0, 0, 0)
        track = rig.animation_data.nla_tracks.new()
        track.name = name
        track.strips.new(name, 1, act)
        rig.animation_data.action = None
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 20
    return rig


def pose(rig, action, frame):
    """Bone head world positions, the deformed meshes' bounds and vertices
    at frame (the bones an action does not key in their rest pose)."""
    for pb in rig.pose.bones:
        pb.location = (0, 0, 0)
        pb.rotation_quaternion = (1, 0, 0, 0)
        pb.rotation_euler = (0, 0, 0)
        pb.scale = (1, 1, 1)
    rig.animation_data.action = action
    for t in rig.animation_data.nla_tracks:
        t.mute = True
    bpy.context.scene.frame_set(frame)
    heads = {pb.name: rig.matrix_world @ pb.head for pb in rig.pose.bones}
    deps = bpy.context.evaluated_depsgraph_get()
    pts = []
    for o in meshes():
        ev = o.evaluated_get(deps)
        pts += [ev.matrix_world @ v.co for v in ev.data.vertices]
    lo = Vector([min(p[i] for p in pts) for i in range(3)])
    hi = Vector([max(p[i] for p in pts) for i in range(3)])
    return heads, lo, hi, pts


def posed_weights(rig, action, frame):
    """Per deformed world position at `frame` of `action` (rounded to 1e-3)
    of the mesh's vertices: their weights by bone name (non-zero ones). The
    source's rest pose and the import's (MDL7's bind pose, joints without
    rotation) differ, while their poses agree."""
    pose(rig, action, frame)
    out = {}
    deps = bpy.context.evaluated_depsgraph_get()
    for o in meshes():
        names = {g.index: g.name for g in o.vertex_groups}
        ev = o.evaluated_get(deps)
        for v, e in zip(o.data.vertices, ev.data.vertices):
            key = tuple(round(c, 3) + 0.0 for c in (ev.matrix_world @ e.co))
            out[key] = {names[g.group]: g.weight for g in v.groups if g.weight > 0}
    return out


def keys_of(action):
    lo, hi = action.frame_range
    return int(round(lo)), int(round(hi))


rig = build_rig()
want = {}
for name, _, _, n in ACTIONS:
    act = bpy.data.actions[name]
    want[name] = [pose(rig, act, f) for f in (1, (n + 1) // 2, n)]
parents = {b.name: b.parent.name if b.parent else None for b in rig.data.bones}
want_weights = posed_weights(rig, bpy.data.actions["bend"], 1)
for t in rig.animation_data.nla_tracks:
    t.mute = False
rig.animation_data.action = None
bpy.context.scene.frame_set(1)

mdl = os.path.join(out, "rig.mdl")
try:
    res = bpy.ops.export_scene.gsio_mdl7(filepath=mdl)
except RuntimeError as e:
    res = str(e)
check(res == {"FINISHED"} and os.path.isfile(mdl), "rig -> MDL7: %s" % res)
with open(mdl, "rb") as f:
    check(f.read(4) == b"MDL7", "rig.mdl is not an MDL7")
bpy.ops.export_scene.gltf(filepath=os.path.join(out, "rig.glb"), export_format="GLB")
log("rig exported as MDL7 (%d bytes)" % os.path.getsize(mdl))

bpy.ops.wm.read_homefile(use_empty=True)
try:
    res = bpy.ops.import_scene.gsio_gamestudio(filepath=mdl)
except RuntimeError as e:
    res = str(e)
check(res == {"FINISHED"}, "rig.mdl imported again: %s" % res)
a = armatures()
if check(len(a) == 1, "rig.mdl: %d armatures" % len(a)):
    got = a[0]
    got_parents = {b.name: b.parent.name if b.parent else None for b in got.data.bones}
    # The importer may add a plain root above the joints: compare the three.
    check(all(got_parents.get(n) == p for n, p in parents.items()),
          "bones and parents %s, expected %s" % (got_parents, parents))
    log("bones %s" % sorted(got_parents))
    # Weights, vertex by position in the first frame of "bend" (the import
    # splits vertices along normals: every one it has must be a source one).
    bend = [x for x in bpy.data.actions if x.name.startswith("bend")]
    got_weights = posed_weights(got, bend[0], keys_of(bend[0])[0]) if bend else {}
    bad = [k for k, w in got_weights.items()
           if k not in want_weights or set(w) != set(want_weights[k])
           or any(abs(w[b] - want_weights[k][b]) > 1e-4 for b in w)]
    check(got_weights and not bad, "weights of %d of %d vertices differ, e.g. %s: %s vs %s"
          % (len(bad), len(got_weights), bad[:1], [got_weights[k] for k in bad[:1]],
             [want_weights.get(k) for k in bad[:1]]))
    log("weights of %d vertex positions as made" % len(got_weights))
    for name, _, _, n in ACTIONS:
        acts = [x for x in bpy.data.actions if x.name.startswith(name)]
        if not check(len(acts) == 1, "action '%s': %s" % (name, [x.name for x in bpy.data.actions])):
            continue
        first, last = keys_of(acts[0])
        check(last - first + 1 == n, "action '%s' has frames %d..%d, expected %d" % (name, first, last, n))
        for k, f in enumerate((0, (n + 1) // 2 - 1, n - 1)):
            heads, lo, hi, pts = pose(got, acts[0], first + f)
            wheads, wlo, whi, wpts = want[name][k]
            worst = max((heads[b] - p).length for b, p in wheads.items() if b in heads)
            check(set(wheads) <= set(heads) and worst < 1e-4,
                  "'%s' key %d: bone heads %.6f apart" % (name, f, worst))
            check((lo - wlo).length < 1e-3 and (hi - whi).length < 1e-3,
                  "'%s' key %d: mesh bounds %s..%s, expected %s..%s" % (name, f, lo, hi, wlo, whi))
            # Every deformed vertex of the import on one of the source's.
            far = max(min((p - q).length for q in wpts) for p in pts)
            check(far < 1e-4, "'%s' key %d: a deformed vertex %.6f from the source's" % (name, f, far))
            log("'%s' key %d: bone heads within %.2g, vertices within %.2g" % (name, f, worst, far))

print("blender_addon: " + ("PASS" if not failures else "FAIL"))
sys.exit(1 if failures else 0)
