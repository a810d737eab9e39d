#!/usr/bin/env python3
"""Numeric check of an MD5 model converted to glTF (no Blender, no gsio code).

usage: md5_gltf_pose.py [--loose] MODEL.glb|.gltf MESH.md5mesh [ANIM.md5anim ...]

Reads the glTF (JSON + binary buffers) and the MD5 text itself, then checks:
1. the skin: its joints are nodes named like the md5mesh joints, in a
   hierarchy with the same parents (extra nodes above the skeleton, e.g. an
   axis-change root, are allowed);
2. the axis change: the rest-pose world positions of the joint nodes are
   M * (md5mesh joint positions) for one of the 24 axis-aligned rotations M
   (the writer may convert Z-up to Y-up; mirrors are not accepted), and
   their world rotations are M R (axis change on a node above the skeleton)
   or M R M^T (every joint frame converted), the same form for all joints;
3. the inverse bind matrices: IBM_j * world_j = identity at rest;
4. every animation given: a glTF animation with the file's base name, one
   key per frame at frameRate, and at several frames the world position and
   rotation of every joint, composed from the animated node TRS, equals M *
   the pose computed from the .md5anim text within 1e-4.
Prints the measured errors; exits 1 on any failure.

MD5 numbers are floats (Doom 3 reads them so): the text's values are rounded
to float32 before the double-precision math, quaternion w is
-sqrt(1 - x^2 - y^2 - z^2) (id's convention), and x, y, z are normalised
when they are a little longer than 1 (Bob has 140 such rotations).
"""
import base64
import json
import math
import os
import re
import struct
import sys

import numpy as np

from e2e_common import gltf_parents

TOL = 1e-4
LOOSE = "--loose" in sys.argv


def fail(msg):
    print("md5_gltf_pose: FAIL: " + msg)
    sys.exit(1)


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


# -- MD5 text, read here

def md5_quat(x, y, z):
    x, y, z = f32(x), f32(y), f32(z)
    t = 1.0 - x * x - y * y - z * z
    if t > 0:
        return np.array([x, y, z, -math.sqrt(t)])
    n = math.sqrt(x * x + y * y + z * z)
    return np.array([x / n, y / n, z / n, 0.0])


def quat_matrix(q):
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def strip_comments(text):
    return re.sub(r"//[^\n]*", "", text)


NUM = r"(-?[0-9.eE+-]+)"
VEC3 = r"\(\s*" + r"\s+".join([NUM] * 3) + r"\s*\)"


def read_md5mesh(path):
    text = strip_comments(open(path).read())
    block = re.search(r"joints\s*\{(.*?)\}", text, re.S).group(1)
    joints = []
    for m in re.finditer(r'"([^"]*)"\s+(-?\d+)\s+' + VEC3 + r"\s*" + VEC3, block):
        pos = np.array([f32(float(m.group(i))) for i in (3, 4, 5)])
        q = md5_quat(*(float(m.group(i)) for i in (6, 7, 8)))
        joints.append((m.group(1), int(m.group(2)), pos, quat_matrix(q)))
    return joints


def read_md5anim(path):
    text = strip_comments(open(path).read())
    head = {k: float(re.search(k + r"\s+" + NUM, text).group(1))
            for k in ("numFrames", "numJoints", "frameRate", "numAnimatedComponents")}
    hier = [(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)))
            for m in re.finditer(r'"([^"]*)"\s+(-?\d+)\s+(\d+)\s+(\d+)',
                                 re.search(r"hierarchy\s*\{(.*?)\}", text, re.S).group(1))]
    base = [[float(m.group(i)) for i in range(1, 7)]
            for m in re.finditer(VEC3 + r"\s*" + VEC3,
                                 re.search(r"baseframe\s*\{(.*?)\}", text, re.S).group(1))]
    frames = {}
    for m in re.finditer(r"frame\s+(\d+)\s*\{([^}]*)\}", text):
        frames[int(m.group(1))] = [float(v) for v in m.group(2).split()]
    return head, hier, base, frames


def anim_world(hier, base, comps):
    """World positions (N x 3) and rotations (N x 3 x 3) of one frame."""
    n = len(hier)
    wp, wr = np.zeros((n, 3)), np.zeros((n, 3, 3))
    for j, (_, parent, flags, start) in enumerate(hier):
        v = list(base[j])
        k = start
        for b in range(6):
            if flags & (1 << b):
                v[b] = comps[k]
                k += 1
        t = np.array([f32(x) for x in v[:3]])
        r = quat_matrix(md5_quat(v[3], v[4], v[5]))
        if parent < 0:
            wp[j], wr[j] = t, r
        else:
            wp[j] = wp[parent] + wr[parent] @ t
            wr[j] = wr[parent] @ r
    return wp, wr


# -- glTF, read here

COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
DTYPES = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}


def load_gltf(path):
    data = open(path, "rb").read()
    bin_chunk = None
    if data[:4] == b"glTF":
        _, _, length = struct.unpack_from("<3I", data, 0)
        pos, doc = 12, None
        while pos < length:
            clen, ctype = struct.unpack_from("<2I", data, pos)
            chunk = data[pos + 8:pos + 8 + clen]
            if ctype == 0x4E4F534A:
                doc = json.loads(chunk)
            elif ctype == 0x004E4942:
                bin_chunk = chunk
            pos += 8 + clen
    else:
        doc = json.loads(data)
    buffers = []
    for b in doc.get("buffers", []):
        uri = b.get("uri")
        if uri is None:
            buffers.append(bin_chunk)
        elif uri.startswith("data:"):
            buffers.append(base64.b64decode(uri.split(",", 1)[1]))
        else:
            buffers.append(open(os.path.join(os.path.dirname(path), uri), "rb").read())
    return doc, buffers


def accessor(doc, buffers, index):
    acc = doc["accessors"][index]
    if "sparse" in acc:
        fail("accessor %d is sparse (not read by this checker)" % index)
    view = doc["bufferViews"][acc["bufferView"]]
    ncomp = COMPONENTS[acc["type"]]
    dtype = np.dtype(DTYPES[acc["componentType"]])
    stride = view.get("byteStride") or ncomp * dtype.itemsize
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    buf = buffers[view["buffer"]]
    out = np.zeros((acc["count"], ncomp))
    for i in range(acc["count"]):
        out[i] = np.frombuffer(buf, dtype, ncomp, start + i * stride)
    if acc.get("normalized"):
        out /= float(np.iinfo(dtype).max)
    return out


def trs_matrix(t, r, s):
    m = np.eye(4)
    m[:3, :3] = quat_matrix(r) @ np.diag(s)
    m[:3, 3] = t
    return m


def node_trs(node):
    if "matrix" in node:
        return None
    return (np.array(node.get("translation", [0, 0, 0]), float),
            np.array(node.get("rotation", [0, 0, 0, 1]), float),
            np.array(node.get("scale", [1, 1, 1]), float))


def world_matrices(doc, overrides):
    """Global 4x4 matrix of every node; overrides[node] = (t, r, s)."""
    nodes = doc["nodes"]
    parent = gltf_parents(nodes)
    out = {}

    def get(i):
        if i in out:
            return out[i]
        n = nodes[i]
        if i in overrides:
            local = trs_matrix(*overrides[i])
        elif "matrix" in n:
            local = np.array(n["matrix"], float).reshape(4, 4).T  # column-major
        else:
            local = trs_matrix(*node_trs(n))
        out[i] = get(parent[i]) @ local if i in parent else local
        return out[i]

    for i in range(len(nodes)):
        get(i)
    return out, parent


def sample(times, values, t, path):
    k = int(np.argmin(np.abs(times - t)))
    if abs(times[k] - t) < 1e-5 or len(times) == 1 or t <= times[0] or t >= times[-1]:
        return values[k]
    k = max(0, min(len(times) - 2, int(np.searchsorted(times, t)) - 1))
    a = (t - times[k]) / (times[k + 1] - times[k])
    v = values[k] * (1 - a) + values[k + 1] * a
    return v / np.linalg.norm(v) if path == "rotation" else v


def main():
    args = [a for a in sys.argv[1:] if a != "--loose"]
    if len(args) < 2:
        fail(__doc__)
    gltf_path, mesh_path, anim_paths = args[0], args[1], args[2:]
    doc, buffers = load_gltf(gltf_path)
    joints = read_md5mesh(mesh_path)
    names = [j[0] for j in joints]

    # 1. The skin whose joints carry the md5 joint names (all of them, in
    # order; --loose, for checking other writers such as Assimp's: any skin,
    # joints found by node name, bad inverse bind matrices only reported).
    skin = None
    for s in doc.get("skins", []):
        if [doc["nodes"][n].get("name") for n in s["joints"]] == names:
            skin = s
    if skin is None and LOOSE and doc.get("skins"):
        skin = doc["skins"][0]
    if skin is None:
        fail("no skin whose joints are the %d md5mesh joints in order" % len(names))
    by_name = {}
    for i, n in enumerate(doc["nodes"]):
        by_name.setdefault(n.get("name"), i)
    if any(n not in by_name for n in names):
        fail("joints without a node: %s" % [n for n in names if n not in by_name])
    jn = [by_name[n] for n in names]
    rest, parent = world_matrices(doc, {})
    for j, (name, p, _, _) in enumerate(joints):
        gp = parent.get(jn[j])
        if p >= 0 and gp != jn[p]:
            fail("joint %s: parent node %s, expected %s" % (name, gp, jn[p]))
        if p < 0 and gp in jn:
            fail("root joint %s has a joint as parent" % name)

    # 2. The axis change, from the rest pose: of the 24 axis-aligned
    # rotations M, the one that maps the md5mesh joints onto the glTF rest
    # pose. A writer may put the axis change on a node above the skeleton
    # (joint frames keep the source axes: world rotation M R) or convert every
    # joint's frame too (M R M^T). Either skins the same; find which.
    src = np.array([j[2] for j in joints])
    dst = np.array([rest[n][:3, 3] for n in jn])
    forms = {"M R": lambda m, r: m @ r, "M R M^T": lambda m, r: m @ r @ m.T}
    best = None
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        for signs in np.ndindex(2, 2, 2):
            m = np.zeros((3, 3))
            for row, col in enumerate(perm):
                m[row, col] = -1.0 if signs[row] else 1.0
            if np.linalg.det(m) < 0:
                continue
            for form, f in forms.items():
                et = np.abs(dst - src @ m.T).max()
                er = max(np.abs(rest[n][:3, :3] - f(m, joints[j][3])).max()
                         for j, n in enumerate(jn))
                if best is None or et + er < best[0]:
                    best = (et + er, m, form, et, er)
    _, M, form, bind_t, bind_r = best
    to_gltf = lambda r: forms[form](M, r)  # noqa: E731
    print("md5_gltf_pose: axis change rows %s, joint frames %s; rest pose vs md5mesh: position "
          "%.3g, rotation %.3g" % (M.astype(int).tolist(), form, bind_t, bind_r))
    if bind_t > TOL or bind_r > TOL:
        fail("the rest pose differs from the md5mesh joints")

    # 3. Inverse bind matrices (in the skin's own joint order).
    if "inverseBindMatrices" in skin:
        ibm = accessor(doc, buffers, skin["inverseBindMatrices"])
        worst = max(np.abs(ibm[k].reshape(4, 4).T @ rest[n] - np.eye(4)).max()
                    for k, n in enumerate(skin["joints"]))
        print("md5_gltf_pose: |IBM * rest - I| = %.3g" % worst)
        if worst > 1e-3 and not LOOSE:
            fail("inverse bind matrices do not invert the rest pose")

    # 4. Animations.
    for ap in anim_paths:
        head, hier, base, frames = read_md5anim(ap)
        name = os.path.splitext(os.path.basename(ap))[0]
        cands = [a for a in doc.get("animations", []) if a.get("name") == name]
        if LOOSE and not cands and len(doc.get("animations", [])) == 1:
            cands = doc["animations"]
        if len(cands) != 1:
            fail("%d glTF animations named %r" % (len(cands), name))
        anim = cands[0]
        fps, nframes = head["frameRate"], int(head["numFrames"])
        chans = {}
        for ch in anim["channels"]:
            smp = anim["samplers"][ch["sampler"]]
            times = accessor(doc, buffers, smp["input"])[:, 0]
            values = accessor(doc, buffers, smp["output"])
            chans[(ch["target"]["node"], ch["target"]["path"])] = (times, values)
        keys = {len(t) for (_, path), (t, _) in chans.items() if path != "scale"}
        scale_keys = {len(t) for (_, path), (t, _) in chans.items() if path == "scale"}
        duration = max(t[-1] for t, _ in chans.values())
        print("md5_gltf_pose: animation %s: %d channels, keys per channel %s (scale: %s), %.4f s"
              % (name, len(chans), sorted(keys), sorted(scale_keys), duration))
        if keys != {nframes} or not scale_keys <= {1, nframes}:
            fail("expected %d keys per translation and rotation channel" % nframes)
        if abs(duration - (nframes - 1) / fps) > 1e-4:
            fail("duration %.6f s, expected %.6f" % (duration, (nframes - 1) / fps))
        worst_t = worst_r = 0.0
        picks = sorted({0, 1, nframes // 4, nframes // 2, (3 * nframes) // 4, nframes - 1})
        for f in picks:
            t = f / fps
            over = {}
            for n in set(k[0] for k in chans):
                trs = list(node_trs(doc["nodes"][n]))
                for i, path in enumerate(("translation", "rotation", "scale")):
                    if (n, path) in chans:
                        trs[i] = sample(*chans[(n, path)], t, path)
                over[n] = tuple(trs)
            world, _ = world_matrices(doc, over)
            wp, wr = anim_world(hier, base, frames[f])
            for j, n in enumerate(jn):
                worst_t = max(worst_t, np.abs(world[n][:3, 3] - M @ wp[j]).max())
                worst_r = max(worst_r, np.abs(world[n][:3, :3] - to_gltf(wr[j])).max())
        print("md5_gltf_pose: %s frames %s x %d joints: position error %.3g, rotation error %.3g"
              % (name, picks, len(jn), worst_t, worst_r))
        if worst_t > TOL or worst_r > TOL:
            fail("animated pose differs from the md5anim")
    print("md5_gltf_pose: PASS")


main()
