#!/usr/bin/env python3
"""gsio's GLB output imported by a real game engine: Godot 3 (Debian 12's
godot3-server 3.2.3, a headless editor build).

usage: godot_import.py MDL2GLTF GSIO_TOOL CORPUS_DIR WORK_DIR TEMPLATE_DIR [TEST_GLTF_MORPH]

With TEST_GLTF_MORPH (the unit test), the GLBs it writes with
GSIO_GLTF_DUMP_DIR listed in MADE are imported and checked too: frames
past the writer's dense-weights limit, whose weights are sparse accessors.

For each corpus file in CASES, and for every MDL file under
CORPUS_DIR/lottershock (Game/ and ArtSource/, found by walking the folder)
with bones or more than one frame by `gsio info --json`: mdl2gltf writes
NAME.glb into a fresh Godot project WORK_DIR/NAME/ (TEMPLATE_DIR's
project.godot and gsio_check.gd); the headless editor imports it
(.import/NAME.glb-*.scn); then `godot3-server -s res://gsio_check.gd`
loads the imported scene and prints what Godot read (meshes, blend shapes,
skeletons, animations, skin binds) as JSON, which is compared with the
.glb's own JSON and binary chunk:

- every mesh: the surfaces and their vertex counts, and as many blend
  shapes as the primitive has morph targets, which is the file's frame
  count from `gsio info --json` (or one less if the writer leaves frame 0
  out); every blend shape's positions and normals finite, and the box of
  its positions the box of base + target delta the .glb holds (a target
  read from the wrong bytes is finite garbage, not only NaN);
- skins: a Skeleton with as many bones as the skin has joints (Bob: 33;
  the MDL7 griechin.mdl: 18, tile-floor-turret.mdl: 5), and for the walked
  MDL files as many as `gsio info` counts joints in the source;
- animations: as many as the .glb, each as long as its longest sampler
  input, with one track per blend shape for a weights channel and one
  transform track per animated node (Godot 3 merges translation, rotation
  and scale of a node into one track: Bob's 66 channels are 33 tracks);
- skinning: for every skinned mesh, each bind's matrix (skeleton node *
  bone's global pose * bind pose, which moves the mesh's vertices) at rest
  and at a key time in the middle of every animation equals the .glb's
  joint world matrix * inverse bind matrix there (sampled as glTF says),
  within 1e-4 of the model's size; matched as multisets, since Godot orders
  bones its own way. A misread hierarchy, rest, bind or key explodes the
  model in Godot and fails here. The import runs with Godot's animation
  optimizer off (it drops keys within 0.05 units / 0.01 rad of the curve,
  which is lossy by design, not a misreading);
- blend shape weights: at a key time in the middle of every animation
  with weights, each blend shape track's key is the .glb's weight there.

Godot 3.2.3's editor does not quit by itself in a headless run once it has
imported a scene (`--editor --quit` spins in its preview thread), so the
import runs without --quit and is stopped once the imported scene and its
.md5 stamp exist; an import that does not finish in IMPORT_TIMEOUT seconds
(Godot 3.2.3 spins for ever on some glTF inputs) fails the test. HOME and
the XDG directories point into WORK_DIR, so the user's Godot settings are
neither read nor written.

One line per file, starting with "GODOT:", says what Godot read: bones,
morph frames in the source, blend shapes, animations and their tracks, and
the seconds the import took.

Exits 77 (skipped) when the corpus files or godot3-server are absent.
Environment: GODOT (the binary, default godot3-server), GSIO_GODOT_TIMEOUT
(seconds per import, default 120; an import takes 2 to 6 s),
GSIO_GODOT_JOBS (files converted and imported at once, default 1: the 19
files take about 70 s one at a time; each file has its own project and its
own HOME, so parallel runs share no files, only the editor's debug port,
which the second editor then fails to bind, harmlessly).
"""
import concurrent.futures
import glob
import json
import math
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

from e2e_common import skip, gltf_parents  # noqa: E402

# (project name, path under the corpus, mdl2gltf options)
CASES = [
    ("gate-101", "mdl/gate-101.mdl", []),
    ("mdl4-golem", "mdl/mdl4-golem.mdl", []),
    ("minigun_mdl5", "mdl/minigun_mdl5.mdl", []),
    ("shadow-5", "hmp/shadow-5.hmp", []),
    ("Bob", "md5/bob/Bob.md5mesh", ["--anim", "md5/bob/Bob.md5anim"]),
    # MDL7: bones with skeletal clips, and partial frames as morph targets.
    ("griechin", "lottershock/Game/Assets/griechin.mdl", []),
    ("tile-floor-turret", "lottershock/Game/Assets/tile-floor-turret.mdl", []),
]
# GLBs test_gltf_morph writes (GSIO_GLTF_DUMP_DIR), with their frame counts:
# 1100 frames in 11 clips of 100, every clip's weights a sparse accessor over
# one view of zeros (Godot 3.2.3 takes an accessor without a view from view
# 0, so without that view it reads garbage weights).
MADE = [("weights_sparse_clips", "weights_sparse_clips.glb", {"frames": 1100})]
# Numbers known from the source files (docs, gsio info): a writer or
# importer that agrees with itself on a wrong count still fails.
KNOWN = {
    "gate-101": {"frames": 30},
    "mdl4-golem": {"frames": 231},
    "minigun_mdl5": {"frames": 8},
    "shadow-5": {"vertices": 3835},
    "Bob": {"bones": 33, "tracks": 33},
    # gsio info: 18 joints, clips pose walk run talk shake victory; one group
    # of 905 welded vertices drawn with two materials (two surfaces).
    "griechin": {"bones": 18, "animations": 6, "vertices_per_surface": [905, 905]},
    # gsio info: 17 frames in clips construct closed open die, 5 joints.
    "tile-floor-turret": {"frames": 17, "bones": 5, "animations": 4},
}
# The folder walked for more MDL files: every boned or morph-animated model
# in it must import into Godot.
WALKED = "lottershock"
MADE_PREFIX = "made:"
IMPORT_TIMEOUT = float(os.environ.get("GSIO_GODOT_TIMEOUT", "120"))
CHECK_TIMEOUT = 120
JOBS = max(1, int(os.environ.get("GSIO_GODOT_JOBS", "1")))

# Import settings: Godot's defaults except the animation optimizer, which
# drops keys within its error bounds (0.05 units, 0.01 rad), so a bone's pose
# between kept keys is no longer exactly what the .glb says; without it every
# bone's track has Godot's baked keys (15 per second) and the mid-animation
# bind check below can be exact. Godot fills in the parameters not given.
IMPORT_SETTINGS = """[remap]

importer="scene"
type="PackedScene"

[params]

animation/optimizer/enabled=false
"""

failures = []
# Each file's lines, printed together when its case ends (cases run in
# threads: their lines would interleave).
_lines = {}


def say(name, msg):
    _lines.setdefault(name, []).append(msg)


def fail(name, msg):
    failures.append("%s: %s" % (name, msg))
    say(name, "FAIL: %s: %s" % (name, msg))


# -- GLB reading


def read_glb(path):
    data = open(path, "rb").read()
    magic, version, length = struct.unpack_from("<III", data, 0)
    if magic != 0x46546C67 or version != 2 or length != len(data):
        raise ValueError("%s: not a GLB 2 file" % path)
    jlen, jtype = struct.unpack_from("<II", data, 12)
    doc = json.loads(data[20:20 + jlen])
    binary = b""
    pos = 20 + jlen
    if pos + 8 <= len(data):
        blen, btype = struct.unpack_from("<II", data, pos)
        if btype == 0x004E4942:
            binary = data[pos + 8:pos + 8 + blen]
    return doc, binary


COMPONENT = {5120: "b", 5121: "B", 5122: "h", 5123: "H", 5125: "I", 5126: "f"}
WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def view_values(doc, binary, view_index, offset, ctype, width, count):
    """count * width components of type ctype from a bufferView."""
    view = doc["bufferViews"][view_index]
    code = COMPONENT[ctype]
    size = struct.calcsize(code)
    stride = view.get("byteStride", 0) or size * width
    base = view.get("byteOffset", 0) + offset
    out = []
    for i in range(count):
        at = base + i * stride
        out.extend(struct.unpack_from("<%d%s" % (width, code), binary, at))
    return out


def accessor(doc, binary, index):
    """An accessor's values as a flat list (sparse substitution applied;
    no bufferView means zeros, as the glTF spec says)."""
    acc = doc["accessors"][index]
    width = WIDTH[acc["type"]]
    count = acc["count"]
    if "bufferView" in acc:
        vals = view_values(doc, binary, acc["bufferView"], acc.get("byteOffset", 0),
                           acc["componentType"], width, count)
    else:
        vals = [0.0] * (count * width)
    sparse = acc.get("sparse")
    if sparse:
        idx = sparse["indices"]
        sv = sparse["values"]
        where = view_values(doc, binary, idx["bufferView"], idx.get("byteOffset", 0),
                            idx["componentType"], 1, sparse["count"])
        new = view_values(doc, binary, sv["bufferView"], sv.get("byteOffset", 0),
                          acc["componentType"], width, sparse["count"])
        for k, i in enumerate(where):
            vals[i * width:(i + 1) * width] = new[k * width:(k + 1) * width]
    return vals


def accessor_kind(acc):
    if "sparse" in acc:
        return "sparse"
    return "dense" if "bufferView" in acc else "no bufferView"


def box(flat):
    xs, ys, zs = flat[0::3], flat[1::3], flat[2::3]
    return [min(xs), min(ys), min(zs)], [max(xs), max(ys), max(zs)]


def expected(doc, binary):
    """What an importer must find in the .glb: meshes of the nodes that
    use them, skins, animations."""
    exp = {"meshes": [], "skins": [len(s["joints"]) for s in doc.get("skins", [])],
           "animations": []}
    meshes = doc.get("meshes", [])
    for node in doc.get("nodes", []):
        if "mesh" not in node:
            continue
        mesh = meshes[node["mesh"]]
        prims = []
        for p in mesh["primitives"]:
            base = accessor(doc, binary, p["attributes"]["POSITION"])
            targets = []
            for t in p.get("targets", []):
                if "POSITION" in t:
                    d = accessor(doc, binary, t["POSITION"])
                    targets.append(box([b + e for b, e in zip(base, d)])
                                   + (accessor_kind(doc["accessors"][t["POSITION"]]),))
                else:
                    targets.append(box(base) + ("none",))
            prims.append({"vertices": len(base) // 3, "targets": targets})
        exp["meshes"].append(prims)
    for a in doc.get("animations", []):
        tracks = 0
        trs_nodes = set()
        length = 0.0
        for c in a["channels"]:
            target = c["target"]
            if target["path"] == "weights":
                mesh = meshes[doc["nodes"][target["node"]]["mesh"]]
                tracks += len(mesh["primitives"][0].get("targets", []))
            else:
                trs_nodes.add(target["node"])
            sampler = a["samplers"][c["sampler"]]
            acc = doc["accessors"][sampler["input"]]
            top = acc["max"][0] if "max" in acc else max(accessor(doc, binary, sampler["input"]))
            length = max(length, top)
        exp["animations"].append({"name": a.get("name", ""), "tracks": tracks + len(trs_nodes),
                                  "length": length, "channels": len(a["channels"])})
    return exp


# -- skinning in the .glb: where each joint's bind puts the mesh


def mat_mul(a, b):
    """Product of two column-major 4x4 matrices (flat lists of 16)."""
    return [sum(a[k * 4 + r] * b[c * 4 + k] for k in range(4)) for c in range(4) for r in range(4)]


def trs_matrix(t, q, s):
    x, y, z, w = q
    r = [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
         2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
         2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)]
    m = []
    for c in range(3):
        m += [r[c * 3 + i] * s[c] for i in range(3)] + [0.0]
    return m + list(t) + [1.0]


def node_trs(node):
    return [list(node.get("translation", [0.0, 0.0, 0.0])),
            list(node.get("rotation", [0.0, 0.0, 0.0, 1.0])),
            list(node.get("scale", [1.0, 1.0, 1.0]))]


def slerp(a, b, f):
    """As Godot's Quat.slerp: the short way, linear when nearly equal."""
    dot = sum(x * y for x, y in zip(a, b))
    if dot < 0:
        b, dot = [-x for x in b], -dot
    if 1 - dot > 1e-6:
        om = math.acos(min(1.0, dot))
        s0, s1 = math.sin((1 - f) * om) / math.sin(om), math.sin(f * om) / math.sin(om)
    else:
        s0, s1 = 1 - f, f
    return [s0 * x + s1 * y for x, y in zip(a, b)]


def lerp(a, b, f):
    return [x + (y - x) * f for x, y in zip(a, b)]


def sampler_value(doc, binary, smp, t, mix):
    """A LINEAR or STEP sampler's value at time t (its outputs split into
    one key per input time; mix(a, b, f) blends two keys)."""
    times = accessor(doc, binary, smp["input"])
    vals = accessor(doc, binary, smp["output"])
    n = len(vals) // len(times)
    keys = [vals[i * n:(i + 1) * n] for i in range(len(times))]
    if t <= times[0]:
        return keys[0]
    if t >= times[-1]:
        return keys[-1]
    k = max(i for i in range(len(times)) if times[i] <= t)
    f = (t - times[k]) / (times[k + 1] - times[k]) if times[k + 1] > times[k] else 0.0
    return keys[k] if smp.get("interpolation", "LINEAR") == "STEP" else mix(keys[k], keys[k + 1], f)


def sample(doc, binary, anim, t):
    """node index -> [translation, rotation, scale] overrides of an
    animation at time t (glTF LINEAR and STEP; None for CUBICSPLINE)."""
    out = {}
    slot = {"translation": 0, "rotation": 1, "scale": 2}
    for c in anim["channels"]:
        path = c["target"]["path"]
        if path not in slot:
            continue
        smp = anim["samplers"][c["sampler"]]
        mode = smp.get("interpolation", "LINEAR")
        if mode == "CUBICSPLINE":
            return None
        v = sampler_value(doc, binary, smp, t, slerp if path == "rotation" else lerp)
        node = c["target"]["node"]
        out.setdefault(node, node_trs(doc["nodes"][node]))[slot[path]] = v
    return out


def world_matrices(doc, overrides):
    """Every node's matrix in its scene's space, with animated TRS."""
    nodes = doc.get("nodes", [])
    parent = gltf_parents(nodes)
    memo = {}

    def world(i):
        if i not in memo:
            n = nodes[i]
            if i in overrides:
                local = trs_matrix(*overrides[i])
            elif "matrix" in n:
                local = list(n["matrix"])
            else:
                local = trs_matrix(*node_trs(n))
            memo[i] = mat_mul(world(parent[i]), local) if i in parent else local
        return memo[i]
    return [world(i) for i in range(len(nodes))]


def flat12(m):
    return m[0:3] + m[4:7] + m[8:11] + m[12:15]


def glb_binds(doc, binary, skin, overrides):
    """joint world matrix * inverse bind matrix of every joint of a skin."""
    world = world_matrices(doc, overrides)
    n = len(skin["joints"])
    ibm = accessor(doc, binary, skin["inverseBindMatrices"]) if "inverseBindMatrices" in skin \
        else [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0] * n
    return [flat12(mat_mul(world[j], ibm[k * 16:(k + 1) * 16]))
            for k, j in enumerate(skin["joints"])]


def bind_mismatch(want, got, scale):
    """Matches two lists of bind matrices as multisets (Godot orders bones
    its own way); returns None or a description of the worst unmatched one."""
    if len(want) != len(got):
        return "%d binds in the .glb, %d in Godot" % (len(want), len(got))
    if any(g is None for g in got):
        return "a bind names no bone of the Skeleton"

    def err(a, b):
        return max(max(abs(x - y) for x, y in zip(a[:9], b[:9])),
                   max(abs(x - y) for x, y in zip(a[9:], b[9:])) / scale)
    free = list(range(len(got)))
    for w in want:
        best = min(free, key=lambda i: err(w, got[i]))
        if err(w, got[best]) > 1e-4:  # float32 noise: at most 5e-6 on the corpus
            return "the .glb puts a bind at %s (origin), Godot's nearest is at %s" % (
                [round(x, 3) for x in w[9:]], [round(x, 3) for x in got[best][9:]])
        free.remove(best)
    return None


# -- Godot runs


def godot_env(home):
    """The environment of one file's Godot runs: its own HOME and XDG
    folders (editor settings and caches are written there)."""
    env = dict(os.environ)
    for sub in ("config", "data", "cache"):
        os.makedirs(os.path.join(home, sub), exist_ok=True)
    env.update(HOME=home, XDG_CONFIG_HOME=os.path.join(home, "config"),
               XDG_DATA_HOME=os.path.join(home, "data"),
               XDG_CACHE_HOME=os.path.join(home, "cache"), LC_ALL="C.UTF-8")
    return env


def log_tail(path, lines=15):
    """The end of a Godot log without its shutdown noise."""
    try:
        text = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return ""
    keep = [l for l in text if "free_static" not in l and "memory.cpp" not in l
            and "locale" not in l and "translation.cpp" not in l]
    return "\n".join("    " + l for l in keep[-lines:])


def stop(proc):
    """Ends the editor we started (its own process group: it has threads
    and may have children)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=5)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def import_project(godot, proj, name, env, log):
    """Runs the editor on proj until NAME.glb is imported. Returns the
    seconds it took, or None after reporting a failure."""
    start = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen([godot, "-v", "--path", proj, "--editor"], stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
    try:
        while True:
            scn = glob.glob(os.path.join(proj, ".import", name + ".glb-*.scn"))
            md5 = glob.glob(os.path.join(proj, ".import", name + ".glb-*.md5"))
            if scn and md5:
                time.sleep(0.5)  # the .md5 stamp is written last; let it close
                return time.monotonic() - start
            if proc.poll() is not None:
                fail(name, "Godot exited with status %d before importing %s.glb; log %s:\n%s"
                     % (proc.returncode, name, log, log_tail(log)))
                return None
            if time.monotonic() - start > IMPORT_TIMEOUT:
                fail(name, "Godot's import of %s.glb did not finish in %.0f s (hang); log %s:\n%s"
                     % (name, IMPORT_TIMEOUT, log, log_tail(log)))
                return None
            time.sleep(0.25)
    finally:
        stop(proc)


def check_project(godot, proj, name, env, log):
    """Runs gsio_check.gd; returns its report for NAME.glb or None."""
    try:
        with open(log, "wb") as out:
            subprocess.run([godot, "--path", proj, "-s", "res://gsio_check.gd"],
                           stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                           env=env, timeout=CHECK_TIMEOUT, start_new_session=True)
    except subprocess.TimeoutExpired:
        fail(name, "gsio_check.gd did not finish in %d s; log %s" % (CHECK_TIMEOUT, log))
        return None
    for line in open(log, encoding="utf-8", errors="replace"):
        if line.startswith("GSIO_JSON:"):
            rep = json.loads(line[len("GSIO_JSON:"):])
            if rep.get("file") == name + ".glb":
                return rep
    fail(name, "gsio_check.gd printed no report; log %s:\n%s" % (log, log_tail(log)))
    return None


# -- comparison


def close(a, b, scale):
    return all(abs(x - y) <= 1e-4 * scale + 1e-5 for x, y in zip(a, b))


def compare(name, exp, rep, frames, joints, doc, binary):
    if "error" in rep:
        fail(name, "Godot could not load the imported scene: %s" % rep["error"])
        return
    known = KNOWN.get(name, {})
    # Meshes: matched as multisets of (vertex counts, blend shape count),
    # since the walk orders of Godot's tree and the glTF nodes differ.
    want = sorted((tuple(p["vertices"] for p in m), len(m[0]["targets"]) if m else 0)
                  for m in exp["meshes"])
    got = sorted((tuple(s["vertices"]["count"] for s in m["surfaces"]), m["blend_shapes"])
                 for m in rep["meshes"])
    say(name, "  %s: meshes (vertices per surface, blend shapes): glb %s, godot %s"
        % (name, want, got))
    if want != got:
        fail(name, "meshes (vertices per surface, blend shapes): the .glb has %s, Godot read %s"
             % (want, got))
    for m in exp["meshes"]:
        targets = len(m[0]["targets"]) if m else 0
        if targets and frames is not None and targets not in (frames, frames - 1):
            fail(name, "the .glb has %d morph targets for %d frames" % (targets, frames))
    if "frames" in known and frames != known["frames"]:
        fail(name, "gsio info says %s frames, the file has %d" % (frames, known["frames"]))
    if "vertices" in known and [w[0] for w in want] != [(known["vertices"],)]:
        fail(name, "expected one mesh of one surface of %d vertices, the .glb has %s"
             % (known["vertices"], want))
    # Blend shape data: finite, and where the .glb says it is.
    by_key = {}
    for m in exp["meshes"]:
        key = (tuple(p["vertices"] for p in m), len(m[0]["targets"]) if m else 0)
        by_key.setdefault(key, []).append(m)
    bad_shapes = 0
    bad_kinds = {}
    for gm in rep["meshes"]:
        key = (tuple(s["vertices"]["count"] for s in gm["surfaces"]), gm["blend_shapes"])
        cands = by_key.get(key)
        em = cands[0] if cands else None
        for si, surf in enumerate(gm["surfaces"]):
            base = surf["vertices"]
            if base["nonfinite"]:
                fail(name, "surface %d: %d vertices are not finite" % (si, base["nonfinite"]))
            if len(surf["shapes"]) != gm["blend_shapes"]:
                fail(name, "surface %d: surface_get_blend_shape_arrays gave %d arrays for %d "
                     "blend shapes" % (si, len(surf["shapes"]), gm["blend_shapes"]))
            for k, sh in enumerate(surf["shapes"]):
                v = sh["vertices"]
                kind = "?"
                if em is not None and si < len(em) and k < len(em[si]["targets"]):
                    kind = em[si]["targets"][k][2]
                if v["nonfinite"] or sh["normals_nonfinite"]:
                    bad_kinds[kind] = bad_kinds.get(kind, 0) + 1
                    bad_shapes += 1
                    if bad_shapes <= 5:
                        fail(name, "blend shape %d (%s target): %d positions and %d normals "
                             "not finite" % (k, kind, v["nonfinite"], sh["normals_nonfinite"]))
                    continue
                if v["count"] != base["count"]:
                    fail(name, "blend shape %d has %d vertices, its surface %d"
                         % (k, v["count"], base["count"]))
                    continue
                if em is None or si >= len(em) or k >= len(em[si]["targets"]):
                    continue
                lo, hi, _ = em[si]["targets"][k]
                scale = max(1.0, max(abs(x) for x in lo + hi))
                if v["min"] is None or not (close(v["min"], lo, scale) and close(v["max"], hi, scale)):
                    bad_kinds[kind] = bad_kinds.get(kind, 0) + 1
                    bad_shapes += 1
                    if bad_shapes <= 5:
                        fail(name, "blend shape %d (%s target) spans %s..%s in Godot, base + "
                             "target in the .glb spans %s..%s" % (k, kind, v["min"], v["max"], lo, hi))
    checked = sum(len(s["shapes"]) for m in rep["meshes"] for s in m["surfaces"])
    say(name, "  %s: blend shapes: %d read, %d misread (not finite, or not where the .glb "
        "puts them)" % (name, checked, bad_shapes))
    if bad_shapes:
        total = sum(len(m["surfaces"][0]["shapes"]) for m in rep["meshes"] if m["surfaces"])
        fail(name, "%d of %d blend shapes misread; by target accessor kind: %s"
             % (bad_shapes, total, ", ".join("%s %d" % kv for kv in sorted(bad_kinds.items()))))
    # Skeletons.
    got_bones = sorted(s["bones"] for s in rep["skeletons"])
    want_bones = sorted(exp["skins"])
    say(name, "  %s: skeleton bones: glb skins %s, godot %s" % (name, want_bones, got_bones))
    if got_bones != want_bones:
        fail(name, "skeleton bones: the .glb's skins have %s joints, Godot made %s"
             % (want_bones, got_bones))
    if joints and got_bones != [joints]:
        fail(name, "gsio info counts %d joints in the source, Godot made skeletons of %s bones"
             % (joints, got_bones))
    if "bones" in known and got_bones != [known["bones"]]:
        fail(name, "expected one skeleton of %d bones, Godot made %s" % (known["bones"], got_bones))
    # Animations.
    got_anims = sorted((a["tracks"], round(a["length"], 3)) for a in rep["animations"])
    want_anims = sorted((a["tracks"], round(a["length"], 3)) for a in exp["animations"])
    say(name, "  %s: animations (tracks, length): glb %s (channels %s), godot %s, track types %s"
        % (name, want_anims, [a["channels"] for a in exp["animations"]], got_anims,
           [a["track_types"] for a in rep["animations"]]))
    if len(got_anims) != len(want_anims) or any(
            g[0] != w[0] or abs(g[1] - w[1]) > 1e-3 for g, w in zip(got_anims, want_anims)):
        fail(name, "animations (tracks, length): the .glb implies %s, Godot made %s"
             % (want_anims, got_anims))
    if "animations" in known and len(rep["animations"]) != known["animations"]:
        fail(name, "expected %d animations, Godot made %d" % (known["animations"], len(rep["animations"])))
    if "vertices_per_surface" in known and sorted(s["vertices"]["count"] for m in rep["meshes"]
                                                  for s in m["surfaces"]) != known["vertices_per_surface"]:
        fail(name, "expected surfaces of %s vertices, Godot made %s" % (
            known["vertices_per_surface"],
            sorted(s["vertices"]["count"] for m in rep["meshes"] for s in m["surfaces"])))
    if "tracks" in known and [a["tracks"] for a in rep["animations"]] != [known["tracks"]]:
        fail(name, "expected one animation of %d tracks, Godot made %s"
             % (known["tracks"], [a["tracks"] for a in rep["animations"]]))
    compare_skinning(name, doc, binary, rep)
    compare_weights(name, doc, binary, rep)


def glb_weights(doc, binary, anim, t):
    """[target index, weight] of every weights channel of an animation at
    time t (LINEAR and STEP; None for CUBICSPLINE)."""
    out = []
    for c in anim["channels"]:
        if c["target"]["path"] != "weights":
            continue
        smp = anim["samplers"][c["sampler"]]
        mode = smp.get("interpolation", "LINEAR")
        if mode == "CUBICSPLINE":
            return None
        v = sampler_value(doc, binary, smp, t, lerp)
        out += [[i, w] for i, w in enumerate(v)]
    return out


def compare_weights(name, doc, binary, rep):
    """Every animation's blend shape weights at one key time, as the .glb
    says (matched as multisets of (blend shape index, weight): the meshes
    of a multi-mesh file are not told apart)."""
    anims = {a.get("name", ""): a for a in doc.get("animations", [])}
    checked = 0
    for a in rep["animations"]:
        w = a.get("weights") or {"values": []}
        if not w["values"] or a["name"] not in anims:
            continue
        want = glb_weights(doc, binary, anims[a["name"]], w["time"])
        if want is None:
            continue
        got = list(w["values"])
        bad = None
        if len(got) != len(want):
            bad = "%d blend shape tracks, the .glb %d weights" % (len(got), len(want))
        for i, v in want:
            if bad:
                break
            near = [g for g in got if g[0] == i and g[1] is not None and abs(g[1] - v) <= 1e-4]
            if not near:
                bad = "blend shape %d weighs %s in the .glb, Godot has %s" % (
                    i, round(v, 5), [g[1] for g in got if g[0] == i])
            else:
                got.remove(near[0])
        if bad:
            fail(name, "animation %s at %.3f s: %s" % (a["name"], w["time"], bad))
        else:
            checked += 1
    if checked or any((a.get("weights") or {}).get("values") for a in rep["animations"]):
        say(name, "  %s: blend shape weights: %d animations at a key time as the .glb says"
            % (name, checked))


def compare_skinning(name, doc, binary, rep):
    """Every skinned mesh's binds (where the bones put the mesh), at rest and
    at one key time of every animation, as the .glb says. Godot's mesh
    positions are not read back (no renderer), but skinned vertex =
    bind matrix * vertex, so equal binds mean an equal skinned mesh."""
    skins = doc.get("skins", [])
    if not skins:
        return
    world = world_matrices(doc, {})
    scale = max([1.0] + [abs(world[j][12 + i])
                         for s in skins for j in s["joints"] for i in range(3)])
    anims = {a.get("name", ""): a for a in doc.get("animations", [])}
    checked = 0
    for sk in rep.get("skins", []):
        if "error" in sk:
            fail(name, "skinned mesh %s: %s" % (sk["node"], sk["error"]))
            continue
        poses = [("rest", {}, sk["rest"])]
        for a in sk["animations"]:
            if a["name"] not in anims:
                fail(name, "Godot's animation %r is not in the .glb" % a["name"])
                continue
            over = sample(doc, binary, anims[a["name"]], a["time"])
            if over is not None:
                poses.append(("%s at %.3f s" % (a["name"], a["time"]), over, a["binds"]))
        for what, over, got in poses:
            why = [bind_mismatch(glb_binds(doc, binary, s, over), got, scale) for s in skins]
            if all(why):
                fail(name, "skinned mesh %s, %s: %s" % (sk["node"], what, why[0]))
            else:
                checked += 1
    skinned = sum(1 for n in doc.get("nodes", []) if "skin" in n and "mesh" in n)
    if len(rep.get("skins", [])) != skinned:
        fail(name, "the .glb has %d skinned mesh nodes, Godot made %d skinned MeshInstances"
             % (skinned, len(rep.get("skins", []))))
    say(name, "  %s: skin binds: %d poses (rest, and a key time in each animation) of %d "
        "skinned meshes as the .glb puts them" % (name, checked, len(rep.get("skins", []))))


def gsio_info(gsio_tool, src):
    """`gsio info --json` of a source file, or None if it fails."""
    r = subprocess.run([gsio_tool, "info", "--json", src], capture_output=True, text=True,
                       timeout=300)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)


def walked_cases(gsio_tool, corpus, taken):
    """(name, path under the corpus, options, info) of every MDL file under
    WALKED with bones or more than one frame, in path order; the files CASES
    already lists keep their entry. A name already used gets its folder."""
    top = os.path.join(corpus, WALKED)
    out = []
    seen = set()
    names = {name for name, _, _ in CASES}
    for folder, dirs, files in os.walk(top):
        dirs.sort()
        for f in sorted(files):
            if not f.lower().endswith(".mdl"):
                continue
            rel = os.path.relpath(os.path.join(folder, f), corpus)
            seen.add(rel)
            if rel in taken:
                continue
            info = gsio_info(gsio_tool, os.path.join(corpus, rel))
            if info is None:
                fail(rel, "gsio info --json failed, cannot tell whether it is animated")
                continue
            if not (info.get("joints", 0) > 0 or (info.get("frames") or 0) > 1):
                continue
            name = os.path.splitext(f)[0]
            if name in names:
                name = os.path.basename(folder) + "-" + name
            names.add(name)
            out.append((name, rel, [], info))
    for rel in sorted(taken):
        if rel.startswith(WALKED + "/") and rel not in seen:
            fail(rel, "the walk of %s did not find this file" % top)
    return out


def run_case(godot, mdl2gltf, gsio_tool, corpus, work, template, case):
    """Converts, imports and checks one file; returns the summary line
    (what Godot read) or None when a step failed."""
    name, rel, opts, info = case
    src = os.path.join(corpus, rel)
    proj = os.path.join(work, name)
    os.makedirs(proj)
    for f in ("project.godot", "gsio_check.gd"):
        shutil.copy(os.path.join(template, f), proj)
    glb = os.path.join(proj, name + ".glb")
    with open(glb + ".import", "w") as out:
        out.write(IMPORT_SETTINGS)
    if rel.startswith(MADE_PREFIX):  # written by the unit test, not converted
        shutil.copy(rel[len(MADE_PREFIX):], glb)
    else:
        args = [mdl2gltf, src, "-o", glb]
        for i, o in enumerate(opts):
            args.append(os.path.join(corpus, o) if i and opts[i - 1] == "--anim" else o)
        r = subprocess.run(args, capture_output=True, text=True, timeout=300)
        if r.returncode != 0 or not os.path.isfile(glb):
            fail(name, "mdl2gltf failed (%d): %s" % (r.returncode, r.stderr.strip()))
            return None
    if info is None:
        info = gsio_info(gsio_tool, src)
    frames = info.get("frames") if info is not None else None
    doc, binary = read_glb(glb)
    exp = expected(doc, binary)
    env = godot_env(os.path.join(work, "home", name))
    took = import_project(godot, proj, name, env, os.path.join(work, name + ".import.log"))
    if took is None:
        return None
    rep = check_project(godot, proj, name, env, os.path.join(work, name + ".check.log"))
    if rep is None:
        return None
    with open(os.path.join(work, name + ".json"), "w") as out:
        json.dump(rep, out)
    joints = info.get("joints") if info is not None and rel.startswith(WALKED + "/") else None
    compare(name, exp, rep, frames, joints, doc, binary)
    if "error" in rep:
        return None
    return ("GODOT: %s (%s): bones %s, frames %s, blend shapes %s, animations %d (tracks %s), "
            "import %.1f s" % (name, rel, sorted(s["bones"] for s in rep["skeletons"]), frames,
                               [m["blend_shapes"] for m in rep["meshes"]],
                               len(rep["animations"]),
                               [a["tracks"] for a in rep["animations"]], took))


def main():
    if len(sys.argv) not in (6, 7):
        print(__doc__)
        sys.exit(2)
    mdl2gltf, gsio_tool, corpus, work, template = sys.argv[1:6]
    needed = [p for _, p, _ in CASES] + [o for _, _, opts in CASES for o in opts if "/" in o]
    missing = [p for p in needed if not os.path.isfile(os.path.join(corpus, p))]
    if missing:
        skip("corpus files absent under %s: %s" % (corpus, ", ".join(missing)))
    godot = shutil.which(os.environ.get("GODOT", "godot3-server"))
    if not godot:
        skip("godot3-server is not installed (tools/setup-debian.sh)")
    version = subprocess.run([godot, "--version"], capture_output=True, text=True,
                             timeout=60).stdout.strip()
    print("godot: %s %s" % (godot, version))
    if not version.startswith("3."):
        skip("%s is Godot %r, this test is for Godot 3" % (godot, version))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    start = time.monotonic()
    cases = [(name, rel, opts, None) for name, rel, opts in CASES]
    walked = walked_cases(gsio_tool, corpus, {rel for _, rel, _ in CASES})
    cases += walked
    if len(sys.argv) == 7:
        dump = os.path.join(work, "made")
        os.makedirs(dump)
        subprocess.run([sys.argv[6]], env=dict(os.environ, GSIO_GLTF_DUMP_DIR=dump),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        for name, file, info in MADE:
            path = os.path.join(dump, file)
            if not os.path.isfile(path):
                fail(name, "%s did not write %s" % (sys.argv[6], file))
                continue
            cases.append((name, MADE_PREFIX + path, [], info))
    print("%s: %d more MDL files with bones or frames: %s" % (
        WALKED, len(walked), ", ".join(rel[len(WALKED) + 1:] for _, rel, _, _ in walked)))
    summaries = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        futures = [pool.submit(run_case, godot, mdl2gltf, gsio_tool, corpus, work, template, c)
                   for c in cases]
        for case, fut in zip(cases, futures):
            name = case[0]
            try:
                line = fut.result()
            except Exception as e:  # a broken .glb or report: this file fails, not the run
                fail(name, "%s: %s" % (type(e).__name__, e))
                line = None
            for l in _lines.get(name, []):
                print(l)
            if line:
                print(line)
                summaries.append(line)
            sys.stdout.flush()
    print("%d files in %.0f s (%d at once)" % (len(cases), time.monotonic() - start, JOBS))
    if failures:
        print("%d failure(s):" % len(failures))
        for f in failures:
            print("  " + f.splitlines()[0])
        sys.exit(1)
    print("OK: %d files imported by Godot %s as the .glb says" % (len(cases), version))


if __name__ == "__main__":
    main()
