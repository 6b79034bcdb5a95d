#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# An SMF dump is read once (issue 26, item 7), work counted, not timed: the input bytes mfstat
# reads (MFSTAT_TEST_BYTES_READ, the CLI's seam) are the dump's size, give or take the first
# block read again to tell its format, for dumps whose SMF 70.1 and 99.14 records (the LPAR view)
# come after and between the type 113 samples they join, plain and compressed, one or two dumps.
# The one reading gives the report and the messages that a first pass and a second give (-j 2
# with two inputs still reads so), also when a dump is cut short.
#
# Usage: smf_read_once.sh MFSTAT GENSMF
set -eu
MFSTAT=$1
GENSMF=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfstat-readonce.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
fail() {
	echo "smf_read_once: $*" >&2
	exit 1
}

# Two systems: the RMF records of an interval follow its samples, and come between the samples
# of the intervals before and after it; the topology records come first.
"$GENSMF" --systems 2 --cpus 4 --ziip 1 --intervals 40 --rmf --topology --other-ratio 1 --framing rdw \
	-o "$tmp/a.smf" --csv "$tmp/a.csv" >/dev/null 2>&1
"$GENSMF" --systems 2 --cpus 4 --ziip 1 --intervals 40 --rmf --topology --other-ratio 1 --framing vbs \
	--seed 7 --start 2026-01-02T00:00:00Z -o "$tmp/b.smf" >/dev/null 2>&1
gzip -c "$tmp/a.smf" >"$tmp/a.smf.gz"
# The same samples from standard input (no first pass there) miss their LPAR view: the RMF
# records do come after them.
"$MFSTAT" report -f csv - <"$tmp/a.smf" -o /dev/null 2>"$tmp/stdin.err" || true
grep -q 'standard input is read once: RMF records that follow their samples' "$tmp/stdin.err" ||
	fail "the dump's RMF records do not follow its samples: the test proves nothing"

size() { wc -c <"$1" | tr -d ' '; }
bytes() { # bytes ARGS...: the input bytes one report reads
	MFSTAT_TEST_BYTES_READ=1 "$MFSTAT" report -q -f csv "$@" -o /dev/null 2>"$tmp/err" ||
		fail "report $* failed: $(cat "$tmp/err")"
	awk '/bytes of input read/ { print $2 }' "$tmp/err"
}
once() { # once WHAT GOT SIZE: each byte read once (the first 64 KiB block may be read again)
	[ -n "$2" ] || fail "$1: no count of the bytes read"
	[ "$2" -ge "$3" ] && [ "$2" -le $(($3 + 65536)) ] ||
		fail "$1: $2 bytes read for $3 bytes of input (each byte once expected)"
}
a=$(size "$tmp/a.smf") b=$(size "$tmp/b.smf") z=$(size "$tmp/a.smf.gz")
once "a dump" "$(bytes -j 1 "$tmp/a.smf")" "$a"
once "a dump, -j 2" "$(bytes -j 2 "$tmp/a.smf")" "$a"
once "a dump, --by system,pool" "$(bytes --by system,pool "$tmp/a.smf")" "$a"
once "a gzip dump" "$(bytes -j 1 "$tmp/a.smf.gz")" "$z"
once "two dumps" "$(bytes -j 1 "$tmp/a.smf" "$tmp/b.smf")" $((a + b))

# The same report and messages as a first pass and a second (what -j 2 does with two inputs).
same() { # same WHAT ARGS...: -j 1 (one reading) and -j 2 (a first pass) give the same
	"$MFSTAT" report -j 1 "$@" -o "$tmp/one.out" 2>"$tmp/one.err" && r1=0 || r1=$?
	"$MFSTAT" report -j 2 "$@" -o "$tmp/two.out" 2>"$tmp/two.err" && r2=0 || r2=$?
	[ "$r1" = "$r2" ] || fail "$1: exit $r1 read once, $r2 with a first pass"
	cmp -s "$tmp/one.err" "$tmp/two.err" || fail "$1: the messages differ: $(diff "$tmp/one.err" "$tmp/two.err")"
	[ ! -f "$tmp/two.out" ] || cmp -s "$tmp/one.out" "$tmp/two.out" || fail "$1: the reports differ"
	rm -f "$tmp/one.out" "$tmp/two.out"
}
same "two dumps, csv" -f csv "$tmp/a.smf" "$tmp/b.smf"
same "two dumps, text" -f text --by system,lpar,polarity,drawer,chip "$tmp/b.smf" "$tmp/a.smf"
same "a dump twice" -f csv "$tmp/a.smf" "$tmp/a.smf"
# A CSV after a dump (the dump's samples come first), and a dump after it (a first pass then).
same "a dump, a CSV, a dump" -f csv "$tmp/b.smf" "$tmp/a.csv" "$tmp/a.smf"
same "a missing file after a dump" -f csv "$tmp/b.smf" "$tmp/missing.smf"
# Cut short in its last record: an error after every sample and RMF record but the last.
head -c $((a - 100)) "$tmp/a.smf" >"$tmp/cut.smf"
same "a dump cut short" -f csv "$tmp/b.smf" "$tmp/cut.smf"
same "a dump cut short, skipped" -f csv --skip-bad-records "$tmp/cut.smf" "$tmp/b.smf"
# Standard input after a dump: joined as it comes, after the dump's samples.
"$MFSTAT" report -j 1 -f csv "$tmp/b.smf" - -o "$tmp/one.out" <"$tmp/a.smf" 2>"$tmp/one.err"
"$MFSTAT" report -j 2 -f csv "$tmp/b.smf" - -o "$tmp/two.out" <"$tmp/a.smf" 2>"$tmp/two.err"
cmp -s "$tmp/one.out" "$tmp/two.out" && cmp -s "$tmp/one.err" "$tmp/two.err" ||
	fail "a dump, then standard input: the reports or messages differ"
echo "smf_read_once: ok"
