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
			"track_types": types, "weights": _weights(player, a)})
	return out

# Blend shape weights at the middle key of the animation's first blend shape
# track: [blend shape index, weight] for every blend shape track, its key at
# that time (null if it has none there: Godot 3.2 has no interpolation call
# for value tracks).
func _weights(player, a):
	var base = player.get_node(player.root_node)
	var r = {"time": -1.0, "values": []}
	for k in range(a.get_track_count()):
		var path = a.track_get_path(k)
		var sub = path.get_concatenated_subnames()
		if a.track_get_type(k) != Animation.TYPE_VALUE or not sub.begins_with("blend_shapes/"):
			continue
		if r["time"] < 0.0:
			if a.track_get_key_count(k) == 0:
				continue
			r["time"] = a.track_get_key_time(k, a.track_get_key_count(k) / 2)
		var names = []
		for i in range(path.get_name_count()):
			names.append(path.get_name(i))
		var node = base.get_node(NodePath(PoolStringArray(names).join("/")))
		var index = -1
		if node is MeshInstance and node.mesh is ArrayMesh:
			for i in range(node.mesh.get_blend_shape_count()):
				if "blend_shapes/" + node.mesh.get_blend_shape_name(i) == sub:
					index = i
		var key = a.track_find_key(k, r["time"], true)
		r["values"].append([index, a.track_get_key_value(k, key) if key >= 0 else null])
	return r

# -- Skinning: where each bind of a skin puts the mesh, at rest and in the
# middle of every animation, as 12 numbers (basis columns, origin) in the
# scene root's space: skeleton node * bone's global pose * bind pose. A
# misread bone hierarchy, rest or animation key moves these, which the .glb
# says where to expect.

func _flat(t):
	return [t.basis.x.x, t.basis.x.y, t.basis.x.z, t.basis.y.x, t.basis.y.y, t.basis.y.z,
		t.basis.z.x, t.basis.z.y, t.basis.z.z, t.origin.x, t.origin.y, t.origin.z]

# The node's transform in the scene root's space (the root's own left out:
# it stands for the glTF scene).
func _to_root(root, node):
	var t = Transform()
	var n = node
	while n != null and n != root:
		if n is Spatial:
			t = n.transform * t
		n = n.get_parent()
	return t

# Global transforms of all bones, each bone's pose (relative to its rest,
# as Godot 3 animates bones) taken from poses (bone index -> Transform).
func _global_bones(skel, poses):
	var g = []
	for i in range(skel.get_bone_count()):
		g.append(null)
	for i in range(skel.get_bone_count()):
		_global_bone(skel, poses, g, i)
	return g

func _global_bone(skel, poses, g, i):
	if g[i] != null:
		return g[i]
	var local = skel.get_bone_rest(i) * poses.get(i, Transform())
	var p = skel.get_bone_parent(i)
	g[i] = local if p < 0 else _global_bone(skel, poses, g, p) * local
	return g[i]

# A bind names its bone by index or (as the glTF importer makes them) by name.
func _binds(skel, skel_xf, skin, g):
	var out = []
	for b in range(skin.get_bind_count()):
		var bone = skin.get_bind_bone(b)
		if skin.get_bind_name(b) != "":
			bone = skel.find_bone(skin.get_bind_name(b))
		if bone < 0 or bone >= g.size():
			out.append(null)
		else:
			out.append(_flat(skel_xf * g[bone] * skin.get_bind_pose(b)))
	return out

# Bone poses of the skeleton at time t of animation a: every transform track
# that targets one of its bones, interpolated as the player would.
func _poses_at(player, a, skel, t):
	var poses = {}
	var base = player.get_node(player.root_node)
	for k in range(a.get_track_count()):
		if a.track_get_type(k) != Animation.TYPE_TRANSFORM:
			continue
		var path = a.track_get_path(k)
		var names = []
		for i in range(path.get_name_count()):
			names.append(path.get_name(i))
		var node = base.get_node(NodePath(PoolStringArray(names).join("/")))
		if node != skel:
			continue
		var bone = skel.find_bone(path.get_concatenated_subnames())
		if bone < 0:
			continue
		var v = a.transform_track_interpolate(k, t)
		var xf = Transform(Basis(v[1]) * Basis().scaled(v[2]), v[0])
		poses[bone] = xf
	return poses

# The middle key of the animation's first transform track (Godot bakes
# glTF animations into keys at its own rate: a key time is exact).
func _mid_time(a):
	for k in range(a.get_track_count()):
		if a.track_get_type(k) == Animation.TYPE_TRANSFORM and a.track_get_key_count(k) > 0:
			return a.track_get_key_time(k, a.track_get_key_count(k) / 2)
	return -1.0

func _skinning(root, mi, players):
	var skel = mi.get_node_or_null(mi.skeleton)
	if not (skel is Skeleton) or mi.skin == null:
		return {"node": str(root.get_path_to(mi)), "error": "no Skeleton or no Skin"}
	var skel_xf = _to_root(root, skel)
	var r = {"node": str(root.get_path_to(mi)), "rest": _binds(skel, skel_xf, mi.skin, _global_bones(skel, {})),
		"animations": []}
	for player in players:
		for name in player.get_animation_list():
			var a = player.get_animation(name)
			var t = _mid_time(a)
			if t < 0.0:
				continue
			var g = _global_bones(skel, _poses_at(player, a, skel, t))
			r["animations"].append({"name": name, "time": t, "binds": _binds(skel, skel_xf, mi.skin, g)})
	return r

func _walk(root, node, r, found):
	if node is MeshInstance:
		r["meshes"].append(_mesh(root, node))
		if node.skin != null:
			found["skinned"].append(node)
	if node is Skeleton:
		r["skeletons"].append({"node": str(root.get_path_to(node)), "bones": node.get_bone_count()})
	if node is AnimationPlayer:
		r["animations"] += _animations(node)
		found["players"].append(node)
	for c in node.get_children():
		_walk(root, c, r, found)

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
			var r = {"file": f, "meshes": [], "skeletons": [], "animations": [], "skins": []}
			var scene = load("res://" + f)
			if scene == null:
				r["error"] = "load failed"
			else:
				var root = scene.instance()
				var found = {"skinned": [], "players": []}
				_walk(root, root, r, found)
				for mi in found["skinned"]:
					r["skins"].append(_skinning(root, mi, found["players"]))
				root.free()
			print("GSIO_JSON:" + to_json(r))
		f = dir.get_next()
	dir.list_dir_end()
	quit()
