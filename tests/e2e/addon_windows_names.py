"""The add-on's Python as it runs on Windows, outside Blender: bpy is a
stand-in, os.name is "nt". find_tool() must pick gsio.exe / mdl2gltf.exe
from the commands folder, and run_tool() must hand the command to
subprocess as a list (each path one argument, whatever spaces, quotes,
backslashes and letters it holds), decoding UTF-8. Exit 0 passed, 1 failed."""
import importlib.util
import os
import subprocess
import sys
import tempfile
import types

addon_init = sys.argv[1]


def _stub(name, **attrs):
    """A module whose every other attribute is a class of its own name
    (Operator, ImportHelper) that also stands for the property functions."""
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    made = {}
    m.__getattr__ = lambda attr: made.setdefault(attr, type(attr, (), {"__init__": lambda self, *a, **k: None}))
    sys.modules[name] = m
    return m


bpy = _stub("bpy", path=types.SimpleNamespace(abspath=lambda p: p))
bpy.props = _stub("bpy.props")
bpy.types = _stub("bpy.types")
_stub("bpy_extras")
_stub("bpy_extras.io_utils")
spec = importlib.util.spec_from_file_location("gsio_blender", addon_init)
addon = importlib.util.module_from_spec(spec)
spec.loader.exec_module(addon)

failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed |= not ok


with tempfile.TemporaryDirectory() as d:
    bin_dir = os.path.join(d, "Program Files", "gsio Jürgen")
    os.makedirs(bin_dir)
    for n in ("gsio.exe", "mdl2gltf.exe", "gsio", "mdl2gltf"):
        with open(os.path.join(bin_dir, n), "w") as f:
            f.write("")
        os.chmod(os.path.join(bin_dir, n), 0o755)
    prefs = types.SimpleNamespace(bin_dir=bin_dir)
    context = types.SimpleNamespace(preferences=types.SimpleNamespace(
        addons={addon.__package__ or "gsio_blender": types.SimpleNamespace(preferences=prefs)}))
    addon.__package__ = addon.__package__ or "gsio_blender"
    real_name, real_run = os.name, subprocess.run
    seen = {}

    def fake_run(cmd, **kw):
        seen["cmd"], seen["kw"] = cmd, kw
        return types.SimpleNamespace(returncode=0, stderr="mdl2gltf: warning: ünïcode\n")

    try:
        os.name = "nt"
        subprocess.run = fake_run
        check(addon.find_tool(context, "mdl2gltf") == os.path.join(bin_dir, "mdl2gltf.exe"),
              "Windows: find_tool finds mdl2gltf.exe")
        check(addon.find_tool(context, "gsio") == os.path.join(bin_dir, "gsio.exe"),
              "Windows: find_tool finds gsio.exe")
        src = r'C:\Users\Jürgen\Spiele\Lotter "Game"\Rüstung.mdl'
        out = 'C:\\Users\\Jürgen\\Temp dir\\'
        warnings = addon.run_tool(context, "mdl2gltf", [src, "-o", out])
        cmd = seen["cmd"]
        check(cmd[1:] == [src, "-o", out], "Windows: each path is one argument, as given: %r" % cmd[1:])
        check(seen["kw"].get("encoding") == "utf-8", "the commands' output is read as UTF-8")
        check(not seen["kw"].get("shell"), "no shell")
        check(warnings == ["ünïcode"], "a warning in UTF-8 comes back whole: %r" % warnings)
        back = subprocess.list2cmdline(cmd)
        check('"C:\\Users\\Jürgen\\Temp dir\\\\"' in back and '\\"Game\\"' in back,
              "Windows' command line quotes spaces, quotes and a trailing backslash: " + back)
        os.name = real_name
        check(addon.find_tool(context, "mdl2gltf") == os.path.join(bin_dir, "mdl2gltf"),
              "elsewhere: find_tool finds mdl2gltf without .exe")
    finally:
        os.name, subprocess.run = real_name, real_run
sys.exit(failed)
