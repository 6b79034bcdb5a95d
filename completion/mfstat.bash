# SPDX-License-Identifier: MIT
# bash completion for mfstat, installed as share/bash-completion/completions/mfstat (loaded on
# demand by the bash-completion package; without it: `source` this file).  Subcommands, each
# command's options (tests/docs_in_step.sh checks them against `mfstat CMD --help`), the --by
# keys (comma lists: the part after the last comma), machine families, formats, file names.
# Needs nothing from bash-completion; uses its _command_offset after `stat --` when present.

_mfstat_reply()
{
    # _mfstat_reply PREFIX WORDS CUR: COMPREPLY from WORDS matching CUR, each with PREFIX.
    local IFS=$' \t\n'
    COMPREPLY=($(compgen -P "$1" -W "$2" -- "$3"))
}

_mfstat_list()
{
    # _mfstat_list WORDS CUR: a comma-separated list; completes the item after the last comma.
    local prefix=
    [[ $2 == *,* ]] && prefix=${2%,*},
    _mfstat_reply "$prefix" "$1" "${2##*,}"
    compopt -o nospace 2>/dev/null
}

_mfstat_files()
{
    local IFS=$'\n'
    COMPREPLY=($(compgen -f -- "$1"))
    compopt -o filenames 2>/dev/null
}

_mfstat_dirs()
{
    local IFS=$'\n'
    COMPREPLY=($(compgen -d -- "$1"))
    compopt -o filenames 2>/dev/null
}

_mfstat_metric_names()
{
    # The metric names of the knowledge base, from `mfstat metrics` (the program being completed).
    local prog=${COMP_WORDS[0]:-mfstat}
    command "$prog" metrics 2>/dev/null | awk 'NR > 1 && $1 ~ /^[A-Za-z]/ && !seen[$1]++ { print $1 }'
}

_mfstat_zones()
{
    # The zone names of the time zone database ($TZDIR, else /usr/share/zoneinfo), without its
    # posix/ and right/ copies and its tables.
    local dir=${TZDIR:-/usr/share/zoneinfo}
    [[ -d $dir ]] || return 0
    (cd "$dir" && find . -path ./posix -prune -o -path ./right -prune -o \( -type f -o -type l \) -print 2>/dev/null) |
        sed 's|^\./||' | grep -v -e '\.' -e '^posixrules$' -e '^leapseconds$' -e '^SECURITY$' -e '^[a-z]'
}

_mfstat()
{
    local cur prev cmd sub i
    local commands='report diff export counters metrics machines smf stat serve measure db help'
    local families='z10 z196 zEC12 z13 z14 z15 z16 z17'
    local by_keys='system lpar pool cpu file polarity lpar_weight drawer chip interval hour day week month hour-of-day weekday'
    local opts_report='--db --level --input -f --format -o --output --machine --cpu-mhz --perf-tz --by --tz --from --to --system --pool --hours --weekdays --sort --top --metrics --html-intervals --derived --no-pager --skip-bad-rows --skip-bad-records --tables --mem-peak --max-groups -j --jobs -q --quiet -v --verbose -h --help --version'
    local opts_diff='--before --after --db --level --by --metrics -f --format -o --output --tz --system --pool --hours --weekdays --machine --cpu-mhz --perf-tz --tables --mem-peak --skip-bad-rows --no-pager -j --jobs -q --quiet -h --help --version'
    local opts_export='-o --output --by --db --input --machine --cpu-mhz --perf-tz --tz --from --to --system --pool --hours --weekdays --skip-bad-rows --skip-bad-records --tables --max-groups -j --jobs -q --quiet -h --help --version'
    local opts_counters='--machine --tables --no-pager -h --help --version'
    local opts_metrics='--machine --events --prometheus-rules --window --tables --no-pager -h --help --version'
    local opts_machines='--tables --no-pager -h --help --version'
    local opts_smf='--summary -f --format --counters --skip-bad-records --tables --no-pager -h --help --version'
    local opts_stat='-a --all-cpus -C --cpu -I --interval --duration --machine --fallback --mem-peak -f --format --derived -o --output --tables -q --quiet -h --help --version'
    local opts_serve='--listen --cpus --timeout --machine --tables -q --quiet -h --help --version'
    local opts_db_sql='-m --machine --tables -h --help --version'
    local opts_db_import='--machine --skip-bad-rows --skip-bad-records -j --jobs -q --quiet --tables -h --help --version'
    local opts_db_info='-h --help --version'
    local opts_db_rollup='--from --to -q --quiet -h --help'
    local opts_db_prune='--keep -n --dry-run --vacuum -q --quiet -h --help'
    local opts_measure='-o --output -f --format --csv -d --database --force -s --sampling -F -g --call-graph --summary-cutoff --detail-cutoff --line-size --attribute --children --absolute --negate --fallback --tables --no-pager -q --quiet -h --help --version'

    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    # --opt=value: bash splits the word at '=' (COMP_WORDBREAKS).
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi

    if ((COMP_CWORD == 1)); then
        if [[ $cur == -* ]]; then
            _mfstat_reply '' '--help --version' "$cur"
        else
            _mfstat_reply '' "$commands" "$cur"
        fi
        return 0
    fi
    cmd=${COMP_WORDS[1]}
    sub=
    ((COMP_CWORD > 2)) && sub=${COMP_WORDS[2]}

    case $cmd in
        help)
            ((COMP_CWORD == 2)) && _mfstat_reply '' "${commands% help}" "$cur"
            return 0
            ;;
        smf)
            if ((COMP_CWORD == 2)); then
                _mfstat_reply '' 'list' "$cur"
                return 0
            fi
            ;;
        db)
            if ((COMP_CWORD == 2)); then
                _mfstat_reply '' 'sql' "$cur"
                return 0
            fi
            ;;
        measure)
            if ((COMP_CWORD == 2)); then
                _mfstat_reply '' 'itlb profile report diff probe' "$cur"
                return 0
            fi
            ;;
    esac

    # After `--` (stat, measure itlb|profile): the command to run and its arguments.
    for ((i = 2; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == -- ]]; then
            if declare -F _command_offset >/dev/null; then
                _command_offset $((i + 1))
            elif ((i + 1 == COMP_CWORD)); then
                local IFS=$'\n'
                COMPREPLY=($(compgen -c -- "$cur"))
            else
                _mfstat_files "$cur"
            fi
            return 0
        fi
    done

    # The value of the option before the cursor.
    case $prev in
        --by)
            if [[ $cmd == diff ]]; then
                _mfstat_list 'system lpar pool cpu' "$cur"
            elif [[ $cmd == export ]]; then
                _mfstat_list "${by_keys/file /}" "$cur"
            else
                _mfstat_list "$by_keys" "$cur"
            fi
            return 0
            ;;
        --machine)
            _mfstat_reply '' "$families" "$cur"
            return 0
            ;;
        -f | --format)
            case $cmd in
                report) _mfstat_reply '' 'text csv json html prom openmetrics' "$cur" ;;
                diff) _mfstat_reply '' 'text csv json html' "$cur" ;;
                stat) _mfstat_reply '' 'text csv json prom openmetrics' "$cur" ;;
                smf) _mfstat_reply '' 'text csv' "$cur" ;;
                measure) _mfstat_reply '' 'text csv json folded html' "$cur" ;;
                *) _mfstat_reply '' 'text csv json' "$cur" ;;
            esac
            return 0
            ;;
        --input)
            _mfstat_reply '' 'csv smf perf lshwc' "$cur"
            return 0
            ;;
        --pool)
            _mfstat_list 'GCP ZIIP ZAAP ZCBP IFL ICF' "$cur"
            return 0
            ;;
        --weekdays)
            _mfstat_list 'Mon Tue Wed Thu Fri Sat Sun Mon-Fri' "$cur"
            return 0
            ;;
        --tz)
            _mfstat_reply '' "UTC local smf $(_mfstat_zones)" "$cur"
            return 0
            ;;
        --perf-tz)
            _mfstat_reply '' "UTC local $(_mfstat_zones)" "$cur"
            return 0
            ;;
        --metrics)
            _mfstat_list "$(_mfstat_metric_names)" "$cur"
            return 0
            ;;
        --sort)
            _mfstat_reply '' "$(_mfstat_metric_names)" "$cur"
            return 0
            ;;
        --html-intervals)
            _mfstat_reply '' 'peaks none all' "$cur"
            return 0
            ;;
        --attribute)
            _mfstat_reply '' 'ip line' "$cur"
            return 0
            ;;
        --fallback)
            # A value for measure only; for stat --fallback is a flag.
            if [[ $cmd == measure ]]; then
                _mfstat_reply '' 'auto none' "$cur"
                return 0
            fi
            ;;
        --line-size)
            _mfstat_reply '' 'auto' "$cur"
            return 0
            ;;
        --call-graph)
            _mfstat_reply '' 'fp dwarf' "$cur"
            return 0
            ;;
        --level)
            _mfstat_reply '' 'auto sample hour day month' "$cur"
            return 0
            ;;
        --listen)
            _mfstat_reply '' '127.0.0.1:10113 :10113 [::1]:10113' "$cur"
            return 0
            ;;
        --tables | --csv)
            _mfstat_dirs "$cur"
            return 0
            ;;
        -o | --output | -d | --database | --db)
            _mfstat_files "$cur"
            return 0
            ;;
        --from | --to | --before | --after | --system | --events | --window | --hours | --top | \
            --max-groups | -j | --jobs | --mem-peak | --duration | -C | --cpu | -I | --interval | -s | --sampling | \
            --summary-cutoff | --detail-cutoff | -F | --cpus | --timeout)
            return 0
            ;;
    esac

    if [[ $cur == -* ]]; then
        local opts
        case $cmd in
            report) opts=$opts_report ;;
            diff) opts=$opts_diff ;;
            export) opts=$opts_export ;;
            counters) opts=$opts_counters ;;
            metrics) opts=$opts_metrics ;;
            machines) opts=$opts_machines ;;
            smf) opts=$opts_smf ;;
            db)
                case $sub in
                    import) opts=$opts_db_import ;;
                    info) opts=$opts_db_info ;;
                    sql) opts=$opts_db_sql ;;
                    rollup) opts=$opts_db_rollup ;;
                    prune) opts=$opts_db_prune ;;
                    *) opts='-h --help --version' ;;
                esac
                ;;
            stat) opts="$opts_stat --" ;;
            serve) opts=$opts_serve ;;
            measure)
                case $sub in
                    probe) opts='-f --format -h --help --version' ;;
                    itlb | profile) opts="$opts_measure --" ;;
                    *) opts=$opts_measure ;;
                esac
                ;;
            *) return 0 ;;
        esac
        _mfstat_reply '' "$opts" "$cur"
        return 0
    fi

    # Operands.
    case $cmd in
        machines) _mfstat_reply '' "$families" "$cur" ;;
        metrics) _mfstat_reply '' "$(_mfstat_metric_names)" "$cur" ;;
        counters) ;;
        measure) [[ $sub != probe ]] && _mfstat_files "$cur" ;;
        report | diff | export | smf | stat) _mfstat_files "$cur" ;;
        db) if ((COMP_CWORD == 2)); then _mfstat_reply '' 'import info' "$cur"; else _mfstat_files "$cur"; fi ;;
    esac
    return 0
}

complete -F _mfstat mfstat
