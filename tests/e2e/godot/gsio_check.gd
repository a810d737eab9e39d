# Reports what Godot made of every imported .glb in the project: run as
# godot3-server --path PROJECT -s res://gsio_check.gd after the editor has
# imported the files (.import/*.scn). One line per file on stdout, starting
# with GSIO_JSON: and followed by a JSON object; tests/e2e/godot_import.py
# compares it with the .glb's own JSON.
extends SceneTree

# Lowest and highest coordinates of finite points, and how many were not
# finite (NaN or infinite: what a misread accessor gives).
func _points(points):
	var r = {"count": points.size(), "nonfinite": 0, "min": null, "max": null}
	var lo = Vector3(INF, INF, INF)
	var hi = Vector3(-INF, -INF, -INF)
	var seen = false
	for p in points:
		if is_nan(p.x) or is_nan(p.y) or is_nan(p.z) or is_inf(p.x) or is_inf(p.y) or is_inf(p.z):
			r["nonfinite"] += 1
			continue
		seen = true
		lo = Vector3(min(lo.x, p.x), min(lo.y, p.y), min(lo.z, p.z))
		hi = Vector3(max(hi.x, p.x), max(hi.y, p.y), max(hi.z, p.z))
	if seen:
		r["min"] = [lo.x, lo.y, lo.z]
		r["max"] = [hi.x, hi.y, hi.z]
	return r

func _mesh(root, node):
	var mesh = node.mesh
	var m = {"node": str(root.get_path_to(node)), "surfaces": [], "blend_shapes": 0, "blend_shape_mode": -1}
	if mesh == null:
		return m
	if mesh is ArrayMesh:
		m["blend_shapes"] = mesh.get_blend_shape_count()
		m["blend_shape_mode"] = mesh.blend_shape_mode
	for s in range(mesh.get_surface_count()):
		var arrays = mesh.surface_get_arrays(s)
		var surf = {"vertices": _points(arrays[Mesh.ARRAY_VERTEX]), "shapes": []}
		var shapes = mesh.surface_get_blend_shape_arrays(s)
		for shape in shapes:
			var sh = {"vertices": _points(shape[Mesh.ARRAY_VERTEX]), "normals_nonfinite": 0}
			if shape[Mesh.ARRAY_NORMAL] != null:
				sh["normals_nonfinite"] = _points(shape[Mesh.ARRAY_NORMAL])["nonfinite"]
			surf["shapes"].append(sh)
		m["surfaces"].append(surf)
	return m

func _animations(player):
	var out = []
	for name in player.get_animation_list():
		var a = player.get_animation(name)
		var types = {}
		for t in range(a.get_track_count()):
			var k = str(a.track_get_type(t))
			types[k] = types.get(k, 0) + 1
		out.append({"name": name, "tracks": a.get_track_count(), "length": a.length,
			"track_types": types})
	return out

func _walk(root, node, r):
	if node is MeshInstance:
		r["meshes"].append(_mesh(root, node))
	if node is Skeleton:
		r["skeletons"].append({"node": str(root.get_path_to(node)), "bones": node.get_bone_count()})
	if node is AnimationPlayer:
		r["animations"] += _animations(node)
	for c in node.get_children():
		_walk(root, c, r)

func _init():
	var dir = Directory.new()
	if dir.open("res://") != OK:
		print("GSIO_ERROR: cannot list res://")
		quit()
		return
	dir.list_dir_begin(true, true)
	var f = dir.get_next()
	while f != "":
		if f.get_extension().to_lower() == "glb":
			var r = {"file": f, "meshes": [], "skeletons": [], "animations": []}
			var scene = load("res://" + f)
			if scene == null:
				r["error"] = "load failed"
			else:
				var root = scene.instance()
				_walk(root, root, r)
				root.free()
			print("GSIO_JSON:" + to_json(r))
		f = dir.get_next()
	dir.list_dir_end()
	quit()
