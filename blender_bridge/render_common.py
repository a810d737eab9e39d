"""What render.py and render_level.py share: a grey world, Cycles on the CPU
without denoising, and writing one PNG. Imported by both (each puts its own
folder on sys.path, as Blender's -P does not)."""
import bpy


def render_png(scene, dst, samples, width, height, background, strength, who):
    """Renders `scene` to the PNG `dst` at width x height with `samples`
    Cycles samples, in a world of colour `background` (RGBA) at `strength`."""
    world = bpy.data.worlds.new("render_world")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs[0].default_value = background
    world.node_tree.nodes["Background"].inputs[1].default_value = strength
    scene.world = world
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = False
    scene.render.resolution_x = width
    scene.render.resolution_y = height
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.filepath = dst
    bpy.ops.render.render(write_still=True)
    print(who + ": wrote", dst)
