# bash completion for forge. Commands, subcommands and options are read from forge's own help
# ('forge help', 'forge help COMMAND'), so they follow the installed version.

# Prints "FLAG ARG" for each option of command $2 of forge $1 (ARG empty for a flag alone).
_forge_options()
{
    "$1" help "$2" 2>/dev/null | awk '
        /^  +-/ {
            n = split($0, w, " ")
            flag = ""
            for (i = 1; i <= n; i++) {
                t = w[i]
                if (t ~ /^-/) {
                    if (flag != "") print flag
                    flag = t; sub(/,$/, "", flag)
                } else if (flag != "" && t ~ /^([A-Z]|\x27|\[|[a-z]+\|)/) {
                    a = t; sub(/,$/, "", a)
                    print flag " " a
                    flag = ""
                } else {
                    break
                }
            }
            if (flag != "") print flag
        }'
}

# Prints the subcommands of command $2 ("usage: forge CMD SUB ...").
_forge_subcommands()
{
    "$1" help "$2" 2>/dev/null | awk -v cmd="$2" '
        /^usage: forge |^       forge / {
            for (i = 1; i <= NF; i++) if ($i == cmd) { s = $(i + 1); break }
            if (s ~ /^[a-z][a-z-]*$/) print s
            s = ""
        }' | sort -u
}

# Completes files ending in one of the extensions $2 ("lua json"; empty: any file) and folders.
_forge_files()
{
    local -a exts
    read -ra exts <<<"$2"
    local IFS=$'\n' ext
    COMPREPLY=()
    if [[ -z $2 ]]; then
        COMPREPLY=($(compgen -f -- "$1"))
    else
        COMPREPLY=($(compgen -d -- "$1"))
        for ext in "${exts[@]}"; do
            COMPREPLY+=($(compgen -f -X "!*.$ext" -- "$1"))
        done
    fi
    compopt -o filenames 2>/dev/null
}

_forge()
{
    local forge=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
    local prev=${COMP_WORDS[COMP_CWORD - 1]} cmd="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} != -* ]]; then
            cmd=${COMP_WORDS[i]}
            break
        fi
    done
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$("$forge" help 2>/dev/null | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}')" -- "$cur"))
        return
    fi
    if [[ $cmd == help ]]; then
        COMPREPLY=($(compgen -W "$("$forge" help 2>/dev/null | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}')" -- "$cur"))
        return
    fi
    local opts arg
    opts=$(_forge_options "$forge" "$cmd")
    # The value of an option that takes one.
    arg=$(awk -v f="$prev" '$1 == f {print $2; exit}' <<<"$opts")
    if [[ -n $arg && $prev == -* ]]; then
        case $prev in
        --model)
            if [[ $cur == scripted:* ]]; then
                local IFS=$'\n' f
                COMPREPLY=()
                for f in $(compgen -f -- "${cur#scripted:}"); do
                    [[ -d $f || $f == *.lua ]] && COMPREPLY+=("scripted:$f")
                done
                compopt -o filenames -o nospace 2>/dev/null
            else
                COMPREPLY=($(compgen -W "scripted: openai: openai-responses: anthropic: gemini: ollama:" -- "$cur"))
                compopt -o nospace 2>/dev/null
            fi
            ;;
        --report)
            COMPREPLY=($(compgen -W "json= jsonl= junit= md=" -- "$cur"))
            compopt -o nospace 2>/dev/null
            ;;
        --tools) _forge_files "$cur" "lua json" ;;
        --assertions) _forge_files "$cur" "lua" ;;
        --transcripts | --save-transcripts | --record | --replay) _forge_files "$cur" "jsonl json" ;;
        --format) COMPREPLY=($(compgen -W "text json jsonl" -- "$cur")) ;;
        *)
            case $arg in
            *FILE* | *PATH* | *DIR*) _forge_files "$cur" "" ;;
            *) COMPREPLY=() ;;
            esac
            ;;
        esac
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(awk '{print $1}' <<<"$opts")" -- "$cur"))
        return
    fi
    # A subcommand first, for commands that have them.
    local subs
    subs=$(_forge_subcommands "$forge" "$cmd")
    if [[ -n $subs ]]; then
        local have=""
        for ((i = i + 1; i < COMP_CWORD; i++)); do
            [[ ${COMP_WORDS[i]} != -* ]] && grep -qx -- "${COMP_WORDS[i]}" <<<"$subs" && have=1
        done
        if [[ -z $have ]]; then
            COMPREPLY=($(compgen -W "$subs" -- "$cur"))
            return
        fi
    fi
    case $cmd in
    script) _forge_files "$cur" "lua" ;;
    run) _forge_files "$cur" "json" ;;
    check) _forge_files "$cur" "json jsonl" ;;
    schema) _forge_files "$cur" "json jsonl" ;;
    *) _forge_files "$cur" "" ;;
    esac
}
complete -F _forge forge
