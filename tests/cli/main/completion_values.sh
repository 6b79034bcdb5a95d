#!/bin/bash
# bash completion offers metric names for --metrics, --sort and `metrics NAME` (from the
# program's own `mfstat metrics`), and zone names for --tz (from $TZDIR) (issue 30).
. ../../completion/mfstat.bash
t(){
	COMP_WORDS=("$MFSTAT" "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_mfstat
	echo "$* -> $(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')"
}
t report --metrics CPI,L1
t report --metrics RN
t report --metrics LS
t report --sort LPARC
t diff --metrics EFF
t metrics LPARC
# Zones: a database of three zones, with the tables and posix/ copies it also holds.
z=$(mktemp -d)
trap 'rm -rf "$z"' EXIT
mkdir -p "$z/Europe" "$z/posix/Europe" "$z/America"
: > "$z/Europe/Berlin"; : > "$z/Europe/Paris"; : > "$z/America/New_York"; : > "$z/posix/Europe/Berlin"
: > "$z/zone.tab"; : > "$z/posixrules"; ln -s Europe/Berlin "$z/CET"
export TZDIR=$z
t report --tz Europe/
t report --tz ''
t report --perf-tz ''
t export --tz C
