# bash completion for gsio (installed as bash-completion/completions/gsio)
_gsio()
{
	local cur prev verb
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	verb=${COMP_WORDS[1]}
	if [[ $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W "info convert --version --help" -- "$cur"))
		return
	fi
	case $verb in
	info)
		if [[ $prev == --path ]]; then
			COMPREPLY=($(compgen -d -- "$cur"))
		elif [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--json -v --verbose --path --version --help --" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		;;
	convert)
		case $prev in
		-f|--format) COMPREPLY=($(compgen -W "glb gltf mdl5 mdl7 hmp5 md5" -- "$cur")); return ;;
		--axes) COMPREPLY=($(compgen -W "gltf source" -- "$cur")); return ;;
		--skin-format) COMPREPLY=($(compgen -W "auto pal8 565 4444 888 8888" -- "$cur")); return ;;
		--fps|--scale|--bake-fps|--grid|--cell-size|--height-range) return ;;
		-o|--output|--palette|--anim|--report|--color-map|--files-from) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		--path|--base) COMPREPLY=($(compgen -d -- "$cur")); return ;;
		esac
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-o --output -f --format --force --update --files-from -0 --null
			    --base --no-animation --bake-lightmaps --fps --palette
			    --anim --path --report -q --quiet -v --verbose --help --version --scale --axes
			    --skin-format --mipmaps --dither --bake-fps --skin-external --grid --cell-size --height-range
			    --color-map" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		;;
	esac
}
complete -o filenames -F _gsio gsio
