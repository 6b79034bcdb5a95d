#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat db import -j N (issue 27, docs/db.md "Import"): N-1 threads read the inputs, one writes
# them in order; the database is the one of -j 1 (sqlite3 .dump with the import times masked),
# and so are the lines printed, the messages and the exit status: SMF dumps (one whose LPAR view's
# records are in the next dump, a gzip one, an overlapping pair), a CSV export, perf stat output,
# bad rows skipped, an input imported before and one given twice; a corrupt dump in the middle
# (the files before it committed, it rolled back, the readers stopped: no hang); a missing input.
# The queues are bounded: -j 2 imports a dump of 150 MB in 160 MB of address space (ulimit -v).
# The hang guard is the ctest TIMEOUT.
set -u
MFSTAT=$1
GENSMF=$2
DATA=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 shell"; exit 77; }

ok() { n=$((n + 1)); }
bad() { echo "FAIL $*"; fail=1; }
# The dump of a database without the times of its import (file.imported, imported_unix, meta created).
dump() {
	sqlite3 "$1" .dump | sed -E "s/'[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z'/'T'/g; s/,[0-9]{9,},'T'/,0,'T'/g"
}
gen() { # gen NAME GENSMF-OPTIONS...
	local name=$1
	shift
	"$GENSMF" -q "$@" -o "$tmp/$name.smf" --csv "$tmp/$name.csv" || bad "gensmf $name"
}

gen lpar --systems 2 --cpus 4 --ziip 1 --intervals 8 --rmf --topology --lpars 2 --start 2025-03-09T00:00:00Z
gen mixed --families z13,z15,z16 --systems 3 --cpus 2 --ziip 1 --intervals 4 --start 2025-03-05T00:00:00Z
gen a --systems 2 --cpus 2 --ziip 1 --intervals 6 --start 2025-03-06T00:00:00Z
gen c --systems 2 --cpus 2 --ziip 1 --intervals 6 --start 2025-03-06T06:00:00Z
cat "$tmp/a.smf" "$tmp/c.smf" >"$tmp/b.smf" # overlaps a.smf: all of it, then c's
# A dump cut before an RMF record: the samples of its first part join records of the second.
off=$("$MFSTAT" smf list "$tmp/lpar.smf" | awk '$2 == "70.1" { print $1 }' | sed -n 5p)
off=$((off))
head -c "$off" "$tmp/lpar.smf" >"$tmp/p1.smf"
tail -c +$((off + 1)) "$tmp/lpar.smf" >"$tmp/p2.smf"
gzip -c "$tmp/mixed.smf" >"$tmp/mixed.smf.gz"
gen before --systems 1 --cpus 2 --ziip 1 --intervals 3 --start 2025-03-07T00:00:00Z

# run NAME J [OPTIONS...] -- INPUTS...: into $tmp/NAME.db (with before.smf imported first),
# stdout, stderr and exit kept.
run() {
	local name=$1 j=$2
	shift 2
	rm -f "$tmp/$name.db"
	"$MFSTAT" db import -q "$tmp/$name.db" "$tmp/before.smf" >/dev/null 2>&1 || bad "$name: first import"
	"$MFSTAT" db import -j "$j" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo "exit $?" >>"$tmp/$name.out"
}
# The lines printed without the times of the imports they name.
out() { sed -E 's/ on [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z\)/ on T)/' "$1"; }
same() { # same A B WHAT
	if cmp -s <(out "$tmp/$1.out") <(out "$tmp/$2.out") && cmp -s "$tmp/$1.err" "$tmp/$2.err" &&
		cmp -s <(dump "$tmp/$1.db") <(dump "$tmp/$2.db"); then
		ok
	else
		bad "$3: -j differs from -j 1"
		diff <(out "$tmp/$1.out") <(out "$tmp/$2.out") | head -5
		diff "$tmp/$1.err" "$tmp/$2.err" | head -5
		diff <(dump "$tmp/$1.db") <(dump "$tmp/$2.db") | head -5
	fi
}

inputs=("$tmp/p1.smf" "$tmp/p2.smf" "$tmp/mixed.smf.gz" "$tmp/a.smf" "$tmp/before.smf" "$tmp/b.smf"
	"$tmp/mixed.csv" "$DATA/perf/cpu-cycles-u.txt" "$tmp/a.smf" "$DATA/small-both.smf" "$tmp/c.smf")
for j in 1 2 4; do
	# shellcheck disable=SC2030,SC2031
	(cd "$tmp" && run "all$j" "$j" "$tmp/all$j.db" "${inputs[@]}")
done
grep -q '^exit 0$' "$tmp/all1.out" && [ "$(wc -l <"$tmp/all1.out")" -ge 12 ] && ok ||
	{ bad "all: -j 1 did not import"; cat "$tmp/all1.out" "$tmp/all1.err"; }
j=$(sqlite3 "$tmp/all1.db" "SELECT COUNT(*) FROM sample s JOIN file f ON f.id = s.file WHERE f.name LIKE '%p1.smf' AND s.lpar_joined = 1 AND s.lpar <> ''")
[ "$j" -gt 0 ] && ok || bad "all: p1.smf's samples not joined to the RMF records of p2.smf"
same all1 all2 "all, -j 2"
same all1 all4 "all, -j 4"

# Bad rows skipped, and the default -j (the CPUs online) against -j 1.
for j in 1 4; do
	run "skip$j" "$j" --skip-bad-rows "$tmp/skip$j.db" "$DATA/bad-rows.csv" "$tmp/a.smf" "$DATA/generic.csv"
done
same skip1 skip4 "--skip-bad-rows"
rm -f "$tmp/dflt.db"
"$MFSTAT" db import -q "$tmp/dflt.db" "$tmp/before.smf" >/dev/null 2>&1
"$MFSTAT" db import --skip-bad-rows "$tmp/dflt.db" "$DATA/bad-rows.csv" "$tmp/a.smf" "$DATA/generic.csv" \
	>"$tmp/dflt.out" 2>"$tmp/dflt.err"
echo "exit $?" >>"$tmp/dflt.out"
same skip1 dflt "the default -j"

# A corrupt dump in the middle: the same lines, message, exit 1 and database (c.smf rolled back).
size=$(stat -c %s "$tmp/c.smf")
head -c $((size - 50)) "$tmp/c.smf" >"$tmp/corrupt.smf" # its last record cut short
for j in 1 4; do
	run "bad$j" "$j" "$tmp/bad$j.db" "$tmp/a.smf" "$tmp/mixed.csv" "$tmp/corrupt.smf" "$tmp/lpar.smf" "$tmp/mixed.smf"
done
grep -q '^exit 1$' "$tmp/bad1.out" && grep -q 'corrupt.smf' "$tmp/bad1.err" && ok ||
	{ bad "corrupt: -j 1 did not fail on corrupt.smf"; cat "$tmp/bad1.out" "$tmp/bad1.err"; }
same bad1 bad4 "a corrupt dump"
k=$(sqlite3 "$tmp/bad4.db" "SELECT COUNT(*) FROM file")
[ "$k" = 3 ] && ok || bad "corrupt: $k files held, want before.smf, a.smf and mixed.csv"

# A missing input in the middle.
for j in 1 3; do
	run "miss$j" "$j" "$tmp/miss$j.db" "$tmp/a.smf" "$tmp/nosuch.smf" "$tmp/c.smf"
done
same miss1 miss3 "a missing input"

# Memory stays bounded: a dump of 150 MB (70400 samples of 2 kB) under an address space of
# 160 MB, which -j 1 needs 80 MB of and -j 2 100 MB here: its samples queued whole would take
# 150 MB more.  Where -j 1 cannot run in it (a sanitizer's shadow memory), not checked.
"$GENSMF" -q --systems 4 --cpus 16 --ziip 4 --intervals 1100 --other-ratio 0 -o "$tmp/big.smf" || bad "gensmf big"
rm -f "$tmp/big1.db" "$tmp/big2.db"
if (ulimit -v 160000 && "$MFSTAT" db import -q -j 1 "$tmp/big1.db" "$tmp/big.smf" >/dev/null 2>&1); then
	(ulimit -v 160000 && "$MFSTAT" db import -q -j 2 "$tmp/big2.db" "$tmp/big.smf" >/dev/null 2>"$tmp/big.err") &&
		[ "$(sqlite3 "$tmp/big1.db" 'SELECT COUNT(*) FROM sample')" = 70400 ] &&
		[ "$(sqlite3 "$tmp/big2.db" 'SELECT COUNT(*) FROM sample')" = 70400 ] && ok ||
		{ bad "big: -j 2 under ulimit -v 160000"; head -3 "$tmp/big.err"; }
else
	echo "note: -j 1 does not run under ulimit -v 160000 here; the memory bound is not checked"
fi
rm -f "$tmp/big.smf" "$tmp/big.csv" "$tmp/big1.db" "$tmp/big2.db"

if [ $fail = 0 ]; then
	echo "ok: $n checks"
fi
exit $fail
