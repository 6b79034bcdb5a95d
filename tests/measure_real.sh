#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat measure on this machine, for real (caliper-measure.md §8 "real, in
# software mode" and the issue's done-when): a program with two functions of
# known CPU share (about 6:1) is profiled; the function CSV must give both
# shares within 10 points of what perf record/report give on the same program,
# the text report must name the source file and the lines of both loops,
# `measure report` must reproduce the saved run byte for byte, itlb must state
# its fallback, the report must leave the program's standard output alone (on
# stderr, -o FILE or -o -), -s rates must be kept or said not to fit, -q must
# silence the fallback line, and errors must exit as documented.
#   measure_real.sh MFSTAT PROG_HOT PROG_SRC
set -u
MFSTAT=$1
PROG=$2
SRC=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0
no() { echo "FAIL: $*"; fail=1; }

# Sampling needs perf_event_open for software events at least.
probe=$("$MFSTAT" measure probe -f json) || { echo "SKIP: measure probe failed"; exit 77; }
if echo "$probe" | grep -q '"exit":3'; then
  echo "SKIP: perf_event_open refused here: $probe"
  exit 77
fi

units=4
"$MFSTAT" measure profile -d run.mfdb --csv csv -o report.txt -- "$PROG" $units 2>err.txt
rc=$?
[ $rc = 0 ] || { no "measure profile exited $rc"; cat err.txt; }
cat report.txt | head -60

share() { # functions.csv: the percent column of function $1
  awk -F, -v f="$1" 'NR==1{for(i=1;i<=NF;i++) col[$i]=i; next} $col["function"]==f {print $col["percent"]}' csv/functions.csv
}
hot=$(share hot_loop)
cold=$(share cold_loop)
echo "mfstat: hot_loop ${hot:-?}%, cold_loop ${cold:-?}%"
[ -n "$hot" ] && [ -n "$cold" ] || no "functions.csv lacks hot_loop or cold_loop"
ls csv | grep -q function || no "no function table in csv/"
head -1 csv/functions.csv | grep -q 'function' && head -1 csv/functions.csv | grep -q 'percent' ||
  no "functions.csv lacks the function or percent column"

# The source file and the lines of both loops are in the text report.
grep -q 'mprog_hot.c' report.txt || no "text report does not name mprog_hot.c"
for mark in hot_body cold_body; do
  line=$(grep -n "MARK:$mark" "$SRC" | cut -d: -f1)
  grep -qE "(^|[^0-9])~?$line +>" report.txt || no "text report lacks line $line ($mark)"
done

# perf record/report on the same program, same event kind (software clock).
if command -v perf >/dev/null && perf record -q -e cpu-clock -o perf.data -- "$PROG" $units >/dev/null 2>perf.err; then
  perf report -i perf.data --stdio --sort sym 2>/dev/null >perf.txt
  phot=$(awk '/\] hot_loop$/ {sub("%","",$1); print $1}' perf.txt)
  pcold=$(awk '/\] cold_loop$/ {sub("%","",$1); print $1}' perf.txt)
  echo "perf:   hot_loop ${phot:-?}%, cold_loop ${pcold:-?}%"
  if [ -n "$phot" ] && [ -n "$pcold" ] && [ -n "$hot" ] && [ -n "$cold" ]; then
    awk -v a="$hot" -v b="$phot" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(d<=10)}' || no "hot_loop $hot% vs perf $phot%"
    awk -v a="$cold" -v b="$pcold" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(d<=10)}' || no "cold_loop $cold% vs perf $pcold%"
  else
    no "perf report gave no share for the two loops"; cat perf.txt | head -20
  fi
else
  echo "note: perf record unavailable here ($(head -1 perf.err 2>/dev/null)); comparing with the expected 6:1 instead"
  if [ -n "$hot" ]; then
    awk -v a="$hot" 'BEGIN{d=a-85.7; if(d<0)d=-d; exit !(d<=10)}' || no "hot_loop $hot% is not about 85.7%"
  fi
fi

# The saved run re-reports byte for byte.
"$MFSTAT" measure report -o again.txt run.mfdb || no "measure report exited $?"
cmp -s report.txt again.txt || { no "measure report differs from the live report"; diff report.txt again.txt | head; }
# JSON is valid and names the functions.
"$MFSTAT" measure report -f json run.mfdb >run.json || no "measure report -f json failed"
python3 -c 'import json,sys; d=json.load(open("run.json")); assert any(f["function"]=="hot_loop" for f in d["functions"])' ||
  no "JSON does not parse or lacks hot_loop"

# itlb states its fallback (stderr and the Mode line) and shows the fill columns.
"$MFSTAT" measure itlb -d itlb.mfdb -o itlb.txt -- "$PROG" 0.2 2>itlb.err || no "measure itlb exited $?"
if echo "$probe" | grep -q '"cpu_pmu":false'; then
  grep -q 'fallback: no hardware counters' itlb.err || no "itlb did not say its fallback on stderr"
  grep -q '^Mode: *fallback: no hardware counters' itlb.txt || no "itlb report header lacks the fallback Mode"
  # --fallback none refuses to step down: exit 3
  "$MFSTAT" measure itlb --fallback none -d none.mfdb -- "$PROG" 0.1 >/dev/null 2>none.err
  rc=$?
  [ $rc = 3 ] || no "--fallback none exited $rc, not 3"
  grep -q 'fallback none' none.err || no "--fallback none did not say why"
fi
grep -q 'ITLB' itlb.txt && grep -q 'Soft' itlb.txt || no "itlb report lacks the fill columns"

# Where the report goes (issue 12 item 12): a program's standard output stays its own; the report goes to
# standard error as perf stat's does, to -o FILE, or with -o - to standard output; measure report keeps stdout.
"$MFSTAT" measure profile -d io.mfdb -- sh -c 'echo program-output; exec "$0" 0.1' "$PROG" >io.out 2>io.err ||
  no "measure profile of a printing program exited $?"
[ "$(cat io.out)" = "program-output" ] || { no "stdout holds more than the program's output"; head -5 io.out; }
grep -q '^Function Summary' io.err || no "the report did not go to stderr without -o"
"$MFSTAT" measure profile -d io2.mfdb -o - -- sh -c 'echo program-output; exec "$0" 0.1' "$PROG" >io2.out 2>io2.err ||
  no "measure profile -o - exited $?"
grep -q '^program-output$' io2.out && grep -q '^Function Summary' io2.out || no "-o - did not put the report on stdout"
grep -q '^Function Summary' io2.err && no "-o - still wrote the report to stderr"
# Two runs merge (the same run given twice is counted once: measure_hostile.sh).
"$MFSTAT" measure report run.mfdb io.mfdb >merged.txt 2>merged.err || no "merging two runs failed"
# (said on standard error, as every warning of a report to standard output: issue 30)
grep -q '^mfstat: warning: 2 run files merged' merged.err || no "merged report does not say it merged"
"$MFSTAT" measure report io.mfdb >rr.out 2>rr.err || no "measure report exited $?"
grep -q '^Function Summary' rr.out || no "measure report did not write to stdout"
grep -q '^Function Summary' rr.err && no "measure report wrote the report to stderr"

# -s with a unit the sampled event takes is kept; one it cannot take is said; -q silences the fallback line.
"$MFSTAT" measure profile -s 250us -d s1.mfdb -o s1.txt -- "$PROG" 0.1 2>s1.err || no "-s 250us exited $?"
"$MFSTAT" measure profile -s 5000 -d s2.mfdb -o s2.txt -- "$PROG" 0.1 2>s2.err || no "-s 5000 exited $?"
"$MFSTAT" measure profile -q -s 5000 -d s3.mfdb -o s3.txt -- "$PROG" 0.1 2>s3.err || no "-q -s 5000 exited $?"
if echo "$probe" | grep -q '"cpu_pmu":false'; then
  # task-clock samples: 250us converts, 5000 cycles do not
  grep -q '^Event: *task_clock (CPU samples), period 250000 ns' s1.txt || { no "-s 250us was not kept"; grep Event s1.txt; }
  grep -q 'warning' s1.err && { no "-s 250us warned"; cat s1.err; }
  grep -q 'rate 5000 counts cycles events and cannot be converted for task_clock' s2.err ||
    { no "-s 5000 on task-clock did not warn"; cat s2.err; }
  grep -q '^Warning: .*rate 5000 counts cycles' s2.txt || no "the report header lacks the rate warning"
  grep -q '^Event: *task_clock (CPU samples), period 1000000 ns' s2.txt || no "-s 5000 did not fall to 1ms"
  grep -q 'fallback: no hardware counters' s2.err || no "the fallback line is missing without -q"
else
  grep -q 'rate 250us is a time, but cycles counts events' s1.err || { no "-s 250us on cycles did not warn"; cat s1.err; }
fi
[ -s s3.err ] && { no "-q did not silence the fallback line and warnings"; cat s3.err; }

# Errors: a program that cannot run (2), a program's own status passed through, a damaged run file (1).
"$MFSTAT" measure profile -d x.mfdb -- /nonexistent/prog 2>e2.txt
rc=$?
[ $rc = 2 ] || no "a program that cannot run exited $rc, not 2"
grep -q 'cannot run /nonexistent/prog' e2.txt || no "no 'cannot run' message"
"$MFSTAT" measure profile -d st.mfdb -o /dev/null -- sh -c 'exit 7' 2>e7.txt
rc=$?
[ $rc = 7 ] || no "the program's status 7 was not passed through ($rc)"
grep -q 'exited with status 7' e7.txt || no "the program's status was not reported"
head -c 100 run.mfdb >cut.mfdb
"$MFSTAT" measure report cut.mfdb >/dev/null 2>cut.err
rc=$?
[ $rc = 1 ] || no "a truncated run file exited $rc, not 1"
grep -q 'cut.mfdb' cut.err || no "the truncated run file's error does not name it"
echo "not a run file" >foreign.mfdb
"$MFSTAT" measure report foreign.mfdb >/dev/null 2>foreign.err
[ $? = 1 ] || no "a foreign file did not exit 1"
grep -q 'not an mfstat run file' foreign.err || no "a foreign file's error does not say so"

# -f folded of a run without chains: one line per function below the program's name,
# each named function with the samples functions.csv gives it (code without a symbol is
# [MODULE] there, MODULE+0xADDR in the CSV: left out of the comparison).
"$MFSTAT" measure report -f folded run.mfdb > folded.txt || no "measure report -f folded exited $?"
bad=$(grep -cvE '^[^;]+;[^;]+ [0-9]+$' folded.txt)
[ "$bad" = 0 ] || { no "$bad folded lines are not 'prog;function N'"; head -5 folded.txt; }
want=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) col[$i]=i; next} $col["function"] !~ /^\[|\+0x/ {n[$col["function"]]=$col["samples"]} END{for(f in n) print f, n[f]}' csv/functions.csv | sort)
got=$(awk '{n=$NF; sub(/ [0-9]+$/, ""); sub(/^[^;]*;/, ""); if ($0 !~ /^\[/) s[$0]+=n} END{for(f in s) print f, s[f]}' folded.txt | sort)
[ "$want" = "$got" ] || { no "folded samples per function differ from functions.csv"; diff <(echo "$want") <(echo "$got") | head; }

[ $fail = 0 ] && echo "measure: profile agrees with perf, reports re-read, fallback and errors as documented"
exit $fail
