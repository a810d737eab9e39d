"""gsio for Blender: File > Import / Export of GameStudio MDL, HMP, WMP and
id MD5 through the gsio commands.

The add-on does no format work. Import: `mdl2gltf` converts the file to a
temporary GLB, Blender's own glTF importer reads it, the GLB is removed.
Export: Blender's glTF exporter writes a temporary GLB, `gsio convert` writes
MDL5, MDL7, HMP5 or MD5 from it.

The commands, not libgsio.so through ctypes: they already place files
atomically, take every option and format errors (file and offset); a crash
in C stays in a child process instead of taking Blender down; and nothing in
Python depends on the C structs' layout.
"""

import contextlib
import os
import shlex
import shutil
import subprocess
import tempfile
import warnings

import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty, IntProperty,
                       StringProperty)
from bpy_extras.io_utils import ExportHelper, ImportHelper

# Blender < 4.2 reads bl_info; 4.2+ installs the zip as an extension and reads
# blender_manifest.toml beside this file instead.
bl_info = {
    "name": "gsio: GameStudio MDL/HMP/WMP and Doom 3 MD5",
    "author": "the gsio authors",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import, File > Export",
    "description": "Import and export GameStudio models, terrains, levels and id MD5 through gsio",
    "category": "Import-Export",
}


class GsioError(Exception):
    """A message for the user (a Blender report), never a traceback."""


# -- Finding and running the commands

def _prefs(context):
    addon = context.preferences.addons.get(__package__)
    return addon.preferences if addon else None


def find_tool(context, name):
    """The path of command `name`: the preference's folder, else the bin/
    folder shipped in the zip, else PATH."""
    prefs = _prefs(context)
    dirs = [bpy.path.abspath(prefs.bin_dir)] if prefs and prefs.bin_dir else []
    dirs.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin"))
    # Windows' programs end in .exe (shutil.which adds it from PATHEXT).
    exe = name + ".exe" if os.name == "nt" else name
    for d in dirs:
        path = os.path.join(d, exe)
        if os.path.isfile(path):
            if not os.access(path, os.X_OK):
                # Preferences > Install unpacks zips without the execute bit.
                try:
                    os.chmod(path, 0o755)
                except OSError as e:
                    raise GsioError("%s is not executable: %s" % (path, e)) from None
            return path
    path = shutil.which(name)
    if not path:
        raise GsioError("the gsio command %r was found neither in %s nor on PATH: set its folder in "
                        "Preferences > Add-ons > gsio" % (name, " or ".join(dirs)))
    return path


def run_tool(context, name, args):
    """Runs a gsio command; returns its warnings, raises GsioError with its
    error lines (file and offset as gsio formats them) when it fails."""
    cmd = [find_tool(context, name)] + [str(a) for a in args]
    # A list, never a shell string: Python quotes each argument for the
    # system (list2cmdline on Windows: spaces, quotes, trailing '\').
    print("gsio:", subprocess.list2cmdline(cmd) if os.name == "nt" else shlex.join(cmd))
    # The commands print UTF-8 on every system (not Windows' ANSI code page)
    # and, on Windows, open no console window of their own.
    flags = getattr(subprocess, "CREATE_NO_WINDOW", 0) if os.name == "nt" else 0
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              encoding="utf-8", errors="replace", creationflags=flags)
    except OSError as e:
        raise GsioError("cannot run %s: %s" % (cmd[0], e)) from None
    prefix = (name + ": ") if name == "mdl2gltf" else "gsio convert: "
    lines = [l[len(prefix):] if l.startswith(prefix) else l for l in proc.stderr.splitlines()]
    lines = [l for l in lines if l and not l.startswith("converted ")]
    warnings = [l[len("warning: "):] for l in lines if l.startswith("warning: ")]
    for w in warnings:
        print("gsio: warning:", w)
    if proc.returncode != 0:
        errors = [l for l in lines if not l.startswith("warning: ") and not l.startswith("Try ")]
        raise GsioError("; ".join(errors) or "%s failed (exit status %d)" % (name, proc.returncode))
    return warnings


@contextlib.contextmanager
def _numpy_bool():
    """Blender 3.4's glTF add-on uses numpy.bool, which numpy 1.24 removed:
    the alias exists only while the importer or exporter runs."""
    try:
        import numpy
    except ImportError:
        yield
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy 1.24 warns before it raises
        added = not hasattr(numpy, "bool")  # back again in numpy 2
    if added:
        numpy.bool = bool
    try:
        yield
    finally:
        if added:
            del numpy.bool


# -- Import

# Data that the glTF importer may add; removed again when it fails midway.
_DATA = ("objects", "meshes", "materials", "images", "textures", "actions", "armatures", "cameras",
         "lights", "collections", "node_groups")


def _snapshot():
    return {k: set(getattr(bpy.data, k)) for k in _DATA}


def _roll_back(before):
    for k in _DATA:
        coll = getattr(bpy.data, k)
        for idb in [i for i in coll if i not in before[k]]:
            coll.remove(idb)


def _import_glb(glb):
    before = set(bpy.data.materials)
    # Blender 4.2+'s importer gives every armature a bone shape object
    # ("Icosphere") unless told not to; older releases have no such option.
    op = bpy.ops.import_scene.gltf
    try:
        with _numpy_bool():
            res = op(**_known_options(op, filepath=glb, disable_bone_shape=True))
    except Exception as e:
        raise GsioError("Blender's glTF importer failed: %s" % e) from None
    if "FINISHED" not in res:
        raise GsioError("Blender's glTF importer did not finish")
    for mat in bpy.data.materials:
        if mat not in before:
            light_material(mat)


def light_material(mat):
    """A compiled level's lightmap (gsio writes it as the occlusion texture on
    the second UV set, TEXCOORD_1): Blender's glTF importer leaves occlusion
    unused by the shader. Its image node is multiplied into the base colour
    here (a MixRGB node, MULTIPLY, factor 1), so that the level shows lit.
    Returns whether the material had a lightmap."""
    if not mat.use_nodes or not mat.node_tree:
        return False
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = next((n for n in nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is None:
        return False
    lightmap = None
    for n in nodes:  # the image node that feeds the glTF settings' Occlusion
        if n.type != "GROUP" or not n.node_tree:
            continue
        sock = n.inputs.get("Occlusion")
        if sock is None or not sock.is_linked:
            continue
        src = sock.links[0].from_node
        while src.type != "TEX_IMAGE" and src.inputs and src.inputs[0].is_linked:
            src = src.inputs[0].links[0].from_node  # through Separate RGB
        if src.type == "TEX_IMAGE":
            lightmap = src
    if lightmap is None:
        return False
    base = bsdf.inputs["Base Color"]
    mix = nodes.new("ShaderNodeMixRGB")
    mix.name = mix.label = "gsio lightmap"
    mix.blend_type = "MULTIPLY"
    mix.inputs[0].default_value = 1.0
    if base.is_linked:
        links.new(base.links[0].from_socket, mix.inputs[1])
    else:
        mix.inputs[1].default_value = base.default_value
    links.new(lightmap.outputs["Color"], mix.inputs[2])
    links.new(mix.outputs["Color"], base)
    return True


class _ImportBase(ImportHelper):
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    files: CollectionProperty(type=bpy.types.OperatorFileListElement, options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})
    scale: FloatProperty(name="Scale", default=1.0, min=1e-6, max=1e6,
                         description="Multiply positions by this (1 quant is about an inch: 0.0254 gives metres)")
    animation: BoolProperty(name="Animation", default=True,
                            description="Import the animations (off: the first frame or bind pose only)")

    def paths(self):
        names = [f.name for f in self.files if f.name]
        if names:
            return [os.path.join(self.directory, n) for n in names]
        return [self.filepath]

    def common_args(self, context):
        args = ["--force"]
        if self.scale != 1.0:
            args += ["--scale", repr(self.scale)]
        if not self.animation:
            args.append("--no-animation")
        return args

    def jobs(self, paths):
        """[(input, extra args)]: one conversion per job."""
        return [(p, []) for p in paths]

    def execute(self, context):
        wm = context.window_manager
        jobs = self.jobs(self.paths())
        tmp = tempfile.mkdtemp(prefix="gsio-import-")
        # All files or none: a failure removes what the earlier ones added.
        before = _snapshot()
        wm.progress_begin(0, 2 * len(jobs))
        warned = 0
        try:
            for i, (path, extra) in enumerate(jobs):
                # gsio's glTF writer names materials and images after the
                # GLB ("gate-101_skin0"): the GLB takes the model's name, in
                # a folder of its own per file.
                os.mkdir(os.path.join(tmp, str(i)))
                stem = os.path.splitext(os.path.basename(path))[0] or "model"
                glb = os.path.join(tmp, str(i), stem + ".glb")
                args = self.common_args(context) + extra + [path, "-o", glb]
                warned += len(run_tool(context, "mdl2gltf", args))
                wm.progress_update(2 * i + 1)
                _import_glb(glb)
                os.remove(glb)
                wm.progress_update(2 * i + 2)
        except GsioError as e:
            _roll_back(before)
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            wm.progress_end()
        if warned:
            self.report({"WARNING"}, "gsio: %d warnings (listed in the system console)" % warned)
        return {"FINISHED"}


def _search_folders():
    return StringProperty(name="Search Folders", default="",
                          description="Folders searched after the file's own for the files it names "
                                      "(a model's textures; a level's models, WADs and sprites), "
                                      "separated by ';' (gsio's --path)")


def _search_args(search):
    return [a for d in search.split(";") if d.strip() for a in ("--path", bpy.path.abspath(d.strip()))]


class IMPORT_OT_gsio_gamestudio(bpy.types.Operator, _ImportBase):
    """Import a GameStudio model (.mdl), terrain (.hmp) or level (.wmp, compiled .wmb) through gsio"""
    bl_idname = "import_scene.gsio_gamestudio"
    bl_label = "Import GameStudio"

    filter_glob: StringProperty(default="*.mdl;*.MDL;*.hmp;*.HMP;*.wmp;*.WMP;*.wmb;*.WMB", options={"HIDDEN"})
    fps: FloatProperty(name="Frame Rate", default=0.0, min=0.0, max=1000.0,
                       description="Frames per second of vertex animation (GameStudio stores none); "
                                   "0: the scene's, one model frame per Blender frame")
    palette: StringProperty(name="Palette", subtype="FILE_PATH", default="",
                            description="256-colour palette (.pcx, .lmp, .raw) for 8-bit skins; "
                                        "empty: gsio's built-in one")
    search: _search_folders()

    def common_args(self, context):
        args = super().common_args(context)
        render = context.scene.render
        fps = self.fps or render.fps / render.fps_base
        args += ["--fps", repr(fps)]
        if self.palette:
            args += ["--palette", bpy.path.abspath(self.palette)]
        return args + _search_args(self.search)


class IMPORT_OT_gsio_md5(bpy.types.Operator, _ImportBase):
    """Import a Doom 3 MD5 mesh (with the .md5anim files selected or beside it) or camera through gsio"""
    bl_idname = "import_scene.gsio_md5"
    bl_label = "Import MD5"

    filter_glob: StringProperty(default="*.md5mesh;*.md5anim;*.md5camera", options={"HIDDEN"})
    search: _search_folders()

    def common_args(self, context):
        return super().common_args(context) + _search_args(self.search)

    def jobs(self, paths):
        # Animations selected with a mesh are its animations (instead of
        # every .md5anim beside it); anything else is imported by itself.
        meshes = [p for p in paths if p.lower().endswith(".md5mesh")]
        anims = [p for p in paths if p.lower().endswith(".md5anim")]
        rest = [p for p in paths if p not in meshes and (not meshes or p not in anims)]
        extra = [a for p in anims for a in ("--anim", p)] if meshes else []
        return [(m, extra) for m in meshes] + [(p, []) for p in rest]


# -- Export

def _export_glb(context, glb, selected):
    with _numpy_bool():
        res = bpy.ops.export_scene.gltf(**_known_options(
            bpy.ops.export_scene.gltf, filepath=glb, export_format="GLB", use_selection=selected,
            export_animations=True, export_morph=True, export_skins=True))
    if "FINISHED" not in res or not os.path.isfile(glb):
        raise GsioError("Blender's glTF exporter did not write %s" % glb)


def _known_options(op, **kw):
    """Only the options this Blender's operator has (they are renamed between
    releases; the defaults of a missing one are right)."""
    names = {p.identifier for p in op.get_rna_type().properties}
    return {k: v for k, v in kw.items() if k in names}


SKIN_FORMATS = [(v, n, d) for v, n, d in (
    ("auto", "Automatic", "Palette when a skin has at most 256 colours, else 16 or 24 bit"),
    ("pal8", "8-bit palette", "Indices into the palette"),
    ("565", "RGB 565", "16 bit"), ("4444", "RGBA 4444", "16 bit with alpha"),
    ("888", "RGB 888", "24 bit"), ("8888", "RGBA 8888", "32 bit with alpha"))]


class _ExportBase(ExportHelper):
    bl_options = {"REGISTER", "PRESET"}

    use_selection: BoolProperty(name="Selected Only", default=False,
                                description="Export the selected objects only")
    animation: BoolProperty(name="Animation", default=True,
                            description="Write the animations (off: the current pose only)")

    def gsio_args(self, context):
        return [] if self.animation else ["--no-animation"]

    def execute(self, context):
        wm = context.window_manager
        tmp = tempfile.mkdtemp(prefix="gsio-export-")
        wm.progress_begin(0, 2)
        try:
            glb = os.path.join(tmp, "scene.glb")
            _export_glb(context, glb, self.use_selection)
            wm.progress_update(1)
            # Blender asked before overwriting: --force.
            warned = run_tool(context, "gsio", ["convert", glb, "-o", self.filepath, "--force"]
                              + self.gsio_args(context))
        except GsioError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            wm.progress_end()
        if warned:
            self.report({"WARNING"}, "gsio: %d warnings (listed in the system console)" % len(warned))
        return {"FINISHED"}


class _SkinOptions:
    skin_format: EnumProperty(name="Skin Format", items=SKIN_FORMATS, default="auto")
    palette: StringProperty(name="Palette", subtype="FILE_PATH", default="",
                            description="256-colour palette (.pcx, .lmp, .raw) for 8-bit skins")
    mipmaps: BoolProperty(name="Mipmaps", default=False, description="Store three smaller mip levels")
    dither: BoolProperty(name="Dither", default=False, description="Dither when reducing colours")

    def skin_args(self):
        args = ["--skin-format", self.skin_format]
        if self.palette:
            args += ["--palette", bpy.path.abspath(self.palette)]
        return args + (["--mipmaps"] if self.mipmaps else []) + (["--dither"] if self.dither else [])


class EXPORT_OT_gsio_mdl5(bpy.types.Operator, _ExportBase, _SkinOptions):
    """Export as a GameStudio MDL5 model through gsio"""
    bl_idname = "export_scene.gsio_mdl5"
    bl_label = "Export MDL5"
    filename_ext = ".mdl"

    filter_glob: StringProperty(default="*.mdl", options={"HIDDEN"})
    bake_fps: FloatProperty(name="Bake Frame Rate", default=0.0, min=0.0, max=1000.0,
                            description="Rate at which skeletal animation becomes vertex frames; "
                                        "0: gsio's default")

    def gsio_args(self, context):
        args = super().gsio_args(context) + self.skin_args()
        return args + (["--bake-fps", repr(self.bake_fps)] if self.bake_fps else [])


class EXPORT_OT_gsio_mdl7(bpy.types.Operator, _ExportBase, _SkinOptions):
    """Export as a GameStudio MDL7 model with bones (A7/A8 engines) through gsio"""
    bl_idname = "export_scene.gsio_mdl7"
    bl_label = "Export MDL7"
    filename_ext = ".mdl"

    filter_glob: StringProperty(default="*.mdl", options={"HIDDEN"})
    skin_external: BoolProperty(name="External Skins", default=False,
                                description="Store texture file names instead of the pixels "
                                            "(the textures are not written)")

    def gsio_args(self, context):
        args = ["-f", "mdl7"] + super().gsio_args(context) + self.skin_args()
        return args + (["--skin-external"] if self.skin_external else [])


class EXPORT_OT_gsio_hmp5(bpy.types.Operator, _ExportBase, _SkinOptions):
    """Export a terrain mesh as a GameStudio HMP5 terrain through gsio"""
    bl_idname = "export_scene.gsio_hmp5"
    bl_label = "Export HMP5"
    filename_ext = ".hmp"

    filter_glob: StringProperty(default="*.hmp", options={"HIDDEN"})
    columns: IntProperty(name="Columns", default=0, min=0, max=4096,
                         description="Vertices per row of the grid (0 with Rows 0: from the mesh)")
    rows: IntProperty(name="Rows", default=0, min=0, max=4096, description="Rows of the grid")
    cell_size: FloatProperty(name="Cell Size", default=0.0, min=0.0,
                             description="Distance between vertices (0: from the mesh)")
    height_range: BoolProperty(name="Rescale Heights", default=False,
                               description="Rescale the heights into Height Min..Height Max")
    height_min: FloatProperty(name="Height Min", default=0.0)
    height_max: FloatProperty(name="Height Max", default=1000.0)

    def gsio_args(self, context):
        args = super().gsio_args(context) + self.skin_args()
        if self.columns and self.rows:
            args += ["--grid", "%dx%d" % (self.columns, self.rows)]
        if self.height_range:
            args += ["--height-range", "%r:%r" % (self.height_min, self.height_max)]
        return args + (["--cell-size", repr(self.cell_size)] if self.cell_size else [])


class EXPORT_OT_gsio_md5(bpy.types.Operator, _ExportBase):
    """Export as Doom 3 MD5 (.md5mesh, one .md5anim per action, .md5camera) through gsio"""
    bl_idname = "export_scene.gsio_md5"
    bl_label = "Export MD5"
    filename_ext = ".md5mesh"

    filter_glob: StringProperty(default="*.md5mesh", options={"HIDDEN"})


# -- Preferences, menus, registration

class GsioPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    bin_dir: StringProperty(name="gsio Commands Folder", subtype="DIR_PATH", default="",
                            description="Folder holding the gsio and mdl2gltf commands; empty: the ones "
                                        "shipped with the add-on, else PATH")

    def draw(self, context):
        self.layout.prop(self, "bin_dir")


def _menu_import(self, context):
    self.layout.operator(IMPORT_OT_gsio_gamestudio.bl_idname,
                         text="GameStudio model/terrain/level (.mdl, .hmp, .wmp, .wmb)")
    self.layout.operator(IMPORT_OT_gsio_md5.bl_idname, text="Doom 3 MD5 (.md5mesh, .md5anim, .md5camera)")


def _menu_export(self, context):
    self.layout.operator(EXPORT_OT_gsio_mdl5.bl_idname, text="GameStudio MDL5 (.mdl)")
    self.layout.operator(EXPORT_OT_gsio_mdl7.bl_idname, text="GameStudio MDL7 (A7/A8, with bones)")
    self.layout.operator(EXPORT_OT_gsio_hmp5.bl_idname, text="GameStudio terrain HMP5 (.hmp)")
    self.layout.operator(EXPORT_OT_gsio_md5.bl_idname, text="Doom 3 MD5 (.md5mesh)")


CLASSES = (GsioPreferences, IMPORT_OT_gsio_gamestudio, IMPORT_OT_gsio_md5, EXPORT_OT_gsio_mdl5,
           EXPORT_OT_gsio_mdl7, EXPORT_OT_gsio_hmp5, EXPORT_OT_gsio_md5)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(_menu_import)
    bpy.types.TOPBAR_MT_file_export.append(_menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(_menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(_menu_import)
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
