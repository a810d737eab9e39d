# Blender check of a converted HMP5 (or HMP7) terrain:
#   blender -b --factory-startup --python-exit-code 1 -P hmp_blender.py -- TERRAIN.glb SOURCE.hmp OUTDIR
#
# 1. Blender's own glTF importer loads the file: the mesh has the HMP's numverts
#    vertices and its material's base colour texture is loaded (size, pixels).
# 2. Which way the terrain lies in Blender is found from the geometry alone:
#    the heights read from the .hmp here (Python, independent of gsio) must
#    match Blender's vertex heights under one of the 8 axis-aligned maps of the
#    ground plane (with a uniform scale); that map must be a rotation, not a
#    mirror.
# 3. A top-down render (Cycles CPU, 320x320, 8 samples, no denoising, an
#    orthographic camera looking down -Z in Blender's frame, turned so that the
#    HMP's +y (row 0, the top of the colour map) is up on screen and +x is
#    right) is written to OUTDIR/hmp_top.png, and the colour map Blender loaded
#    to OUTDIR/hmp_colormap.png, for a person to compare.
# 4. The same comparison, measured: the render's saturation must correlate
#    with the colour map's best as it is, not mirrored, rotated or transposed.
import math
import os
import struct
import sys
import zlib

import bpy
import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses the removed alias

argv = sys.argv[sys.argv.index("--") + 1:]
glb, hmp, outdir = argv[0], argv[1], argv[2]
os.makedirs(outdir, exist_ok=True)


def fail(msg):
    print("hmp_blender: FAIL: " + msg)
    sys.exit(1)


# -- The source, read here without gsio

data = open(hmp, "rb").read()
if data[:4] not in (b"HMP5", b"HMP7"):
    fail("%s is not an HMP5 or HMP7 file" % hmp)
scale = struct.unpack_from("<3f", data, 8)
offset = struct.unpack_from("<3f", data, 20)
cell_x, cell_y, fcols = struct.unpack_from("<3f", data, 36)
numskins, = struct.unpack_from("<i", data, 48)
numverts, = struct.unpack_from("<i", data, 60)
cols = int(fcols)
rows = numverts // cols
pos = 84
for _ in range(numskins):
    t, w, h = struct.unpack_from("<3i", data, pos)
    pos += 12
    if t == 6:  # embedded DDS: width is its byte size
        pos += w
        continue
    if t == 7:  # HMP7 external texture: a NUL-terminated name
        pos = data.index(b"\0", pos) + 1
        continue
    bpp = {0: 1, 2: 2, 3: 2, 4: 3, 5: 4}[t & 7]
    texels = w * h
    if t & 8:
        texels += (w * h >> 2) + (w * h >> 4) + (w * h >> 6)
    pos += texels * bpp
raw = numpy.frombuffer(data, "<u2", numverts * 2, pos + 36).reshape(rows, cols, 2)[:, :, 0]
heights = scale[2] * raw.astype(numpy.float64) + offset[2]  # [row][column], row 0 = +y

# -- Import

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=glb)
meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
if len(meshes) != 1:
    fail("expected one mesh object, got %d" % len(meshes))
obj = meshes[0]
nverts = len(obj.data.vertices)
print("hmp_blender: mesh %r has %d vertices, %d polygons, %d shape keys" % (
    obj.name, nverts, len(obj.data.polygons),
    len(obj.data.shape_keys.key_blocks) if obj.data.shape_keys else 0))
if nverts != numverts:
    fail("Blender has %d vertices, the HMP %d" % (nverts, numverts))

image = None
for slot in obj.material_slots:
    mat = slot.material
    if not mat or not mat.use_nodes:
        continue
    for node in mat.node_tree.nodes:
        if node.type == "BSDF_PRINCIPLED":
            link = node.inputs["Base Color"].links
            if link and link[0].from_node.type == "TEX_IMAGE":
                image = link[0].from_node.image
if image is None:
    fail("no image texture on the base colour")
iw, ih = image.size
pix = numpy.empty(iw * ih * 4, numpy.float32)
image.pixels.foreach_get(pix)
pix = pix.reshape(ih, iw, 4)[::-1]  # Blender keeps the bottom row first
print("hmp_blender: base colour image %r %dx%d, mean RGB %.3f %.3f %.3f" % (
    image.name, iw, ih, pix[:, :, 0].mean(), pix[:, :, 1].mean(), pix[:, :, 2].mean()))
if iw == 0 or ih == 0 or pix[:, :, :3].max() <= 0:
    fail("the texture did not load (size %dx%d)" % (iw, ih))

# -- How the terrain lies in Blender's frame

mw = obj.matrix_world
co = numpy.array([tuple(mw @ v.co) for v in obj.data.vertices])
bmin, bmax = co.min(0), co.max(0)
s = (bmax[2] - bmin[2]) / (heights.max() - heights.min())
centre_src = numpy.array([offset[0] + (cols - 1) * cell_x / 2, offset[1] + (rows - 1) * cell_y / 2])
centre_dst = (bmin[:2] + bmax[:2]) / 2
best = None
for a, b, c, d in [(1, 0, 0, 1), (-1, 0, 0, 1), (1, 0, 0, -1), (-1, 0, 0, -1),
                   (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, -1, 0), (0, -1, -1, 0)]:
    m = numpy.array([[a, b], [c, d]], numpy.float64)  # blender_xy = m @ source_xy * s
    src = (numpy.linalg.inv(m) @ ((co[:, :2] - centre_dst) / s).T).T + centre_src
    col = numpy.rint((src[:, 0] - offset[0]) / cell_x).astype(int)
    row = numpy.rint((rows - 1) - (src[:, 1] - offset[1]) / cell_y).astype(int)
    ok = (col >= 0) & (col < cols) & (row >= 0) & (row < rows)
    err = numpy.full(len(co), numpy.inf)
    err[ok] = numpy.abs(heights[row[ok], col[ok]] * s + (bmin[2] - heights.min() * s) - co[ok, 2])
    good = int((err < 1e-3 * max(1.0, bmax[2] - bmin[2])).sum())
    if best is None or good > best[0]:
        best = (good, m)
good, m = best
print("hmp_blender: source x -> Blender %s, source y -> Blender %s, scale %g: %d of %d heights match" % (
    tuple(m[:, 0]), tuple(m[:, 1]), s, good, len(co)))
if good != len(co):
    fail("no axis-aligned map of the ground plane matches every height")
if numpy.linalg.det(m) < 0:
    fail("the terrain is mirrored in Blender (the map from source to Blender is not a rotation)")

# -- Render from above

scene = bpy.context.scene
scene.render.engine = "CYCLES"
scene.cycles.device = "CPU"
scene.cycles.samples = 8
scene.cycles.use_denoising = False
scene.render.resolution_x = scene.render.resolution_y = 320
scene.render.resolution_percentage = 100
scene.render.image_settings.file_format = "PNG"
scene.view_settings.view_transform = "Standard"  # colours as stored, not Filmic
world = bpy.data.worlds.new("uniform")
world.use_nodes = True
world.node_tree.nodes["Background"].inputs["Color"].default_value = (1, 1, 1, 1)
world.node_tree.nodes["Background"].inputs["Strength"].default_value = 1.0
scene.world = world
cam_data = bpy.data.cameras.new("top")
cam_data.type = "ORTHO"
extent_x, extent_y = (cols - 1) * cell_x * s, (rows - 1) * cell_y * s
cam_data.ortho_scale = max(extent_x, extent_y)
cam_data.clip_end = 10 * (bmax[2] - bmin[2] + max(extent_x, extent_y))
cam = bpy.data.objects.new("top", cam_data)
scene.collection.objects.link(cam)
scene.camera = cam
up = m[:, 1]  # the source's +y in Blender: it must point up on screen
cam.location = (centre_dst[0], centre_dst[1], bmax[2] + max(extent_x, extent_y))
cam.rotation_euler = (0.0, 0.0, math.atan2(-up[0], up[1]))
top_png = os.path.join(outdir, "hmp_top.png")
scene.render.filepath = top_png
bpy.ops.render.render(write_still=True)
print("hmp_blender: wrote " + top_png)


def write_png(path, rgb):
    h, w, _ = rgb.shape
    rows8 = b"".join(b"\0" + rgb[y].tobytes() for y in range(h))

    def chunk(tag, body):
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body) & 0xffffffff)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                           chunk(b"IDAT", zlib.compress(rows8, 6)) + chunk(b"IEND", b""))


def resize(img, w, h):
    ys = (numpy.arange(h) + 0.5) * img.shape[0] / h
    xs = (numpy.arange(w) + 0.5) * img.shape[1] / w
    return img[ys.astype(int)][:, xs.astype(int)]


# The colour map as Blender holds it, scaled to the terrain's size in the render.
tw = 320
th = int(round(320 * min(extent_x, extent_y) / max(extent_x, extent_y)))
if extent_y > extent_x:
    tw, th = th, tw
cmap = resize(pix[:, :, :3], tw, th)
write_png(os.path.join(outdir, "hmp_colormap.png"),
          numpy.ascontiguousarray((numpy.clip(cmap, 0, 1) * 255 + 0.5).astype(numpy.uint8)))
print("hmp_blender: wrote " + os.path.join(outdir, "hmp_colormap.png"))

# -- Compare, measured

rimg = bpy.data.images.load(top_png)
rp = numpy.empty(320 * 320 * 4, numpy.float32)
rimg.pixels.foreach_get(rp)
rp = rp.reshape(320, 320, 4)[::-1, :, :3]
y0, x0 = (320 - th) // 2, (320 - tw) // 2
crop = rp[y0 + 2:y0 + th - 2, x0 + 2:x0 + tw - 2]  # the terrain, minus its edge pixels


def saturation(img):
    sat = img.max(2) - img.min(2)
    k = 9  # box blur: the map's fine detail is noise, the layout is what counts
    p = numpy.pad(sat, k // 2, mode="edge")
    c = numpy.cumsum(numpy.cumsum(p, 0), 1)
    c = numpy.pad(c, ((1, 0), (1, 0)))
    return (c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]) / (k * k)


rs = saturation(crop)
names = ["as is", "mirrored left-right", "mirrored top-bottom", "rotated 180",
         "transposed", "rotated 90", "rotated 270", "anti-transposed"]
scores = []
for v in range(8):
    c = cmap
    if v & 4:
        c = c.transpose(1, 0, 2)
    if v & 1:
        c = c[:, ::-1]
    if v & 2:
        c = c[::-1]
    c = resize(c, tw, th)[2:th - 2, 2:tw - 2]
    r = numpy.corrcoef(saturation(c).ravel(), rs.ravel())[0, 1]
    scores.append(r)
    print("hmp_blender: render vs colour map %-20s r = %+.3f" % (names[v], r))
if int(numpy.argmax(scores)) != 0 or scores[0] < 0.5:
    fail("the render does not show the colour map the right way round")
print("hmp_blender: OK")
