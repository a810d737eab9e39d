# bash completion for mdl2gltf (installed as bash-completion/completions/mdl2gltf)
_mdl2gltf()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	--axes) COMPREPLY=($(compgen -W "gltf source" -- "$cur")); return ;;
	-j|--jobs|--fps|--scale) return ;;
	-o|--output|--palette|--anim|--report|--files-from) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--path|--base) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "-o --output --gltf -j --jobs --fps --palette --scale --axes
		    --no-animation --bake-lightmaps --compact --all-images --anim --path --force --update --files-from -0 --null --base
		    --report --quiet --verbose --version --help" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _mdl2gltf mdl2gltf
