#!/bin/sh
# The man pages format without warnings (groff -ww, when installed) and name
# every option the commands' --help lists; the bash completions load and
# complete verbs and formats.
# usage: gsio_docs.sh SOURCE_DIR GSIO_TOOL MDL2GLTF
set -eu
src=$1 gsio=$2 mdl2gltf=$3
fail() { echo "FAIL: $*"; exit 1; }
for page in gsio mdl2gltf; do
	f=$src/tools/man/$page.1
	if command -v groff >/dev/null; then
		out=$(groff -man -Tutf8 -ww "$f" 2>&1 >/dev/null) || fail "groff $page.1"
		[ -z "$out" ] || fail "groff warns on $page.1: $out"
	fi
done
# Every long option of --help is in the man page.
check_opts() { # page, help text
	for o in $(printf '%s\n' "$2" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$src/tools/man/$1.1" || fail "$1.1 lacks $o"
	done
}
check_opts gsio "$("$gsio" convert --help; "$gsio" info --help)"
check_opts mdl2gltf "$("$mdl2gltf" --help)"
bash -c '
	. "$1/tools/completion/gsio.bash"
	COMP_WORDS=(gsio co); COMP_CWORD=1; _gsio
	[ "${COMPREPLY[*]}" = convert ] || { echo "FAIL: verb completion: ${COMPREPLY[*]}"; exit 1; }
	COMP_WORDS=(gsio convert -f m); COMP_CWORD=3; _gsio
	[ "${COMPREPLY[*]}" = "mdl5 mdl7 md5" ] || { echo "FAIL: format completion: ${COMPREPLY[*]}"; exit 1; }
	COMP_WORDS=(gsio info --pa); COMP_CWORD=2; _gsio
	[ "${COMPREPLY[*]}" = --path ] || { echo "FAIL: info option completion: ${COMPREPLY[*]}"; exit 1; }
	COMP_WORDS=(gsio info --verb); COMP_CWORD=2; _gsio
	[ "${COMPREPLY[*]}" = --verbose ] || { echo "FAIL: info --verbose completion: ${COMPREPLY[*]}"; exit 1; }
	COMP_WORDS=(gsio convert --pat); COMP_CWORD=2; _gsio
	[ "${COMPREPLY[*]}" = --path ] || { echo "FAIL: convert option completion: ${COMPREPLY[*]}"; exit 1; }
	. "$1/tools/completion/mdl2gltf.bash"
	COMP_WORDS=(mdl2gltf --gl); COMP_CWORD=1; _mdl2gltf
	[ "${COMPREPLY[*]}" = --gltf ] || { echo "FAIL: mdl2gltf completion: ${COMPREPLY[*]}"; exit 1; }
	COMP_WORDS=(mdl2gltf --upd); COMP_CWORD=1; _mdl2gltf
	[ "${COMPREPLY[*]}" = --update ] || { echo "FAIL: mdl2gltf --update completion: ${COMPREPLY[*]}"; exit 1; }
	COMP_WORDS=(gsio convert --files); COMP_CWORD=2; _gsio
	[ "${COMPREPLY[*]}" = --files-from ] || { echo "FAIL: convert --files-from completion: ${COMPREPLY[*]}"; exit 1; }
' sh "$src" || exit 1
echo "man pages and bash completions ok"
