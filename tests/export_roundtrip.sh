#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat export round trip: `mfstat report [--by X] INPUT` and `mfstat report [--by X] EXPORT`
# (EXPORT = `mfstat export INPUT`, the default, finest grouping) print the same bytes, for SMF
# dumps of every family, both subtypes (and both in one dump), dumps with the LPAR view (type 70
# and 99.14), the CSV inputs of tests/data and examples/z16-demo.csv, in -f csv and -f text, for
# several --by.  What is compared: -f csv whole (it has no footer); -f text up to the footer
# (the "N rows read from N files" line and what follows: row, file and duplicate counts, the
# readers' summaries and warnings name the inputs, which differ) and without the LPAR table of
# --by lpar (RMF's PR/SM view comes from type 70 records, which an export does not hold).
# Also: an export per file reported together equals the report of the files together
# (duplicates across files still dropped), the selection, and .zst/.gz output.
# MFSTAT_EXPORT_J: extra options for every mfstat run (say "-j 2"). MFSTAT_EXPORT_QUICK: see BYS.
set -u
MFSTAT=$1
GENSMF=$2
DATA=$3
EXAMPLES=$4
J=${MFSTAT_EXPORT_J:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
BYS=(DEFAULT "system,pool" "" "system,day" "lpar,polarity" "system,lpar,pool,cpu,interval" "pool,hour-of-day")
# MFSTAT_EXPORT_QUICK=1 (the ASan run): two groupings, the default and the finest, not seven; the
# dev run compares all seven.
[ -n "${MFSTAT_EXPORT_QUICK:-}" ] && BYS=(DEFAULT "system,lpar,pool,cpu,interval")

# The text report up to its footer, without the LPAR table.
body() {
	awk '/^[0-9]+ rows? read from [0-9]+ files?,/ { exit }
	     /^LPARs of the machines/ { skip = 1 }
	     skip && /^$/ { skip = 0; next }
	     !skip { print }' "$1"
}

# same NAME "REPORT-OPTIONS" "INPUTS..." "EXPORTS..."
same() {
	local name=$1 ropts=$2 ins=$3 exps=$4 by fmt
	for by in "${BYS[@]}"; do
		local byo=()
		[ "$by" = DEFAULT ] || byo=(--by "$by")
		for fmt in csv text; do
			# shellcheck disable=SC2086
			"$MFSTAT" report $J -q -f $fmt "${byo[@]}" $ropts $ins -o "$tmp/want" 2>"$tmp/err.want"; local rw=$?
			# shellcheck disable=SC2086
			"$MFSTAT" report $J -q -f $fmt "${byo[@]}" $ropts $exps -o "$tmp/got" 2>"$tmp/err.got"; local rg=$?
			if [ $rw != $rg ]; then
				echo "FAIL $name (--by '$by', -f $fmt): exit $rw for the inputs, $rg for the export"
				head -3 "$tmp/err.got"; fail=1; continue
			fi
			if [ $fmt = text ]; then
				body "$tmp/want" > "$tmp/want.b"; body "$tmp/got" > "$tmp/got.b"
			else
				cp "$tmp/want" "$tmp/want.b"; cp "$tmp/got" "$tmp/got.b"
			fi
			if ! cmp -s "$tmp/want.b" "$tmp/got.b"; then
				echo "FAIL $name (--by '$by', -f $fmt $ropts): the report of the export differs"
				diff "$tmp/want.b" "$tmp/got.b" | head -6; fail=1; continue
			fi
			n=$((n + 1))
		done
	done
}

# roundtrip NAME "EXPORT-AND-REPORT-OPTIONS" INPUT...: one export of all inputs.
roundtrip() {
	local name=$1 opts=$2
	shift 2
	# shellcheck disable=SC2086
	if ! "$MFSTAT" export $J -q $opts "$@" -o "$tmp/e.csv" 2>"$tmp/err"; then
		echo "FAIL $name: export: $(head -3 "$tmp/err")"; fail=1; return
	fi
	same "$name" "$opts" "$*" "$tmp/e.csv"
}

gen() { # gen NAME GENSMF-OPTIONS...: $tmp/NAME.smf
	local name=$1
	shift
	"$GENSMF" -q "$@" -o "$tmp/$name.smf" || { echo "FAIL $name: gensmf"; fail=1; }
}

# SMF: every family, both subtypes and both in one dump.
for fam in z10 z196 zec12 z13 z14 z15 z16 z17; do
	gen "$fam-s1" --family "$fam" --systems 2 --cpus 3 --ziip 1 --intervals 6 --subtype 1
	roundtrip "$fam-s1" "" "$tmp/$fam-s1.smf"
	gen "$fam-s2" --family "$fam" --systems 2 --cpus 3 --ziip 1 --intervals 6 --subtype 2 --framing vbs \
		--block-size 700 --jitter-ms 300 --lost 5
	roundtrip "$fam-s2" "" "$tmp/$fam-s2.smf"
done
gen both --systems 2 --cpus 2 --intervals 6 --subtype both --framing vbs --block-size 64
roundtrip both-subtypes "" "$tmp/both.smf"
gen mixed --families z10,z196,zec12,z13,z14,z15,z16,z17 --systems 2 --cpus 2 --ziip 1 --intervals 3
roundtrip mixed-families "" "$tmp/mixed.smf"
# The LPAR view: polarity, weights, drawer and chip, RMF busy; RMF at 30 minutes beside HIS at 15.
gen lpar --systems 2 --cpus 6 --ziip 2 --intervals 8 --rmf --topology --lpars 2
roundtrip lpar-view "" "$tmp/lpar.smf"
gen lpar30 --systems 2 --cpus 4 --ziip 1 --intervals 8 --rmf --topology --lpars 1 --rmf-interval-seconds 1800 \
	--rmf-busy-factor 1.1
roundtrip lpar-view-rmf30 "" "$tmp/lpar30.smf"
# The local offset (--tz smf) and a selection.
gen local --systems 2 --cpus 2 --ziip 1 --intervals 96 --utc-offset 120
roundtrip tz-smf "--tz smf" "$tmp/local.smf"
roundtrip selection "--tz smf --hours 8-17 --pool GCP" "$tmp/local.smf"

# CSV inputs: every file of tests/data that report reads without options.
for f in "$EXAMPLES"/z16-demo.csv "$DATA"/*.csv "$DATA"/*.csv.gz; do
	"$MFSTAT" report -q "$f" >/dev/null 2>&1 || continue
	roundtrip "$(basename "$f")" "" "$f"
done
roundtrip z16-no-cpsp-machine "--machine z16" "$DATA/z16-nomachine.csv"

# Scale-out: one export per file (compressed), reported together, equals the files reported
# together; the same dump twice (its copies dropped as duplicates either way).
gen a --systems 2 --cpus 2 --ziip 1 --intervals 6 --start 2025-03-04T00:00:00Z
gen b --systems 2 --cpus 2 --ziip 1 --intervals 6 --start 2025-03-04T01:00:00Z
for f in a b; do
	"$MFSTAT" export $J -q "$tmp/$f.smf" -o "$tmp/$f.csv.zst" || { echo "FAIL export $f"; fail=1; }
done
"$MFSTAT" export $J -q "$tmp/a.smf" -o "$tmp/a2.csv.gz" || { echo "FAIL export a gz"; fail=1; }
same scale-out "" "$tmp/a.smf $tmp/b.smf" "$tmp/a.csv.zst $tmp/b.csv.zst"
same scale-out-dup "" "$tmp/a.smf $tmp/b.smf $tmp/a.smf" "$tmp/a.csv.zst $tmp/b.csv.zst $tmp/a2.csv.gz"

echo "$n comparisons"
exit $fail
