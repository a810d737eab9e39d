# What the e2e shell drivers share (sourced: . "$e2e/e2e_common.sh"): how a
# test says it is skipped (exit 77, ctest's SKIP_RETURN_CODE) or failed
# (exit 1), the tools a GLB check needs, a timed conversion, the validator
# and a Blender check.

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

# e2e_need_tools MDL2GLTF E2E_DIR: skips without mdl2gltf, node, the
# glTF validator (E2E_DIR/node_modules) or Blender.
e2e_need_tools() {
	[ -n "$1" ] && [ -x "$1" ] || skip "mdl2gltf is not built (blender_bridge/)"
	command -v node >/dev/null 2>&1 || skip "node not installed (tools/setup-debian.sh)"
	[ -d "$2/node_modules/gltf-validator" ] || skip "gltf-validator not installed in $2/node_modules"
	command -v blender >/dev/null 2>&1 || skip "blender not installed"
}

# e2e_convert OUT COMMAND...: runs the conversion, which must write OUT
# (a file), and prints its size and time.
e2e_convert() {
	e2e_out=$1
	shift
	e2e_t0=$(date +%s%N)
	"$@" || fail "mdl2gltf failed: $*"
	e2e_t1=$(date +%s%N)
	[ -f "$e2e_out" ] || fail "mdl2gltf wrote no $e2e_out"
	echo "mdl2gltf: $(wc -c <"$e2e_out") bytes in $(( (e2e_t1 - e2e_t0) / 1000000 )) ms"
}

# e2e_validate FILE E2E_DIR: the Khronos validator's report (every error and
# warning printed); fails unless it finds 0 errors and 0 warnings.
e2e_validate() {
	node "$2/gltf_validate.js" "$1" || fail "the validator rejects $1"
}

# e2e_blender NAME LOG SCRIPT ARGS...: Blender runs the check SCRIPT with
# ARGS (after --), its output in LOG; the lines the check prints (they start
# with NAME), errors and tracebacks are shown; fails when the check fails.
e2e_blender() {
	e2e_name=$1 e2e_log=$2 e2e_script=$3
	shift 3
	blender -b --factory-startup --python-exit-code 1 -P "$e2e_script" -- "$@" >"$e2e_log" 2>&1
	e2e_status=$?
	grep -E "^$e2e_name|Error|Traceback" "$e2e_log"
	[ $e2e_status -eq 0 ] || fail "Blender check failed (log: $e2e_log)"
}
