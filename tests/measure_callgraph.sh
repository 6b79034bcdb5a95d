#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat measure -g for real (issue 28, "Done when"): mprog_calls_fp, where
# caller_a and caller_b call one library routine (mcall_apply of libmcall.so,
# built with frame pointers, calling back into the program) with 3:1 work,
# sampled on task-clock with -g -F: the samples whose chain holds caller_a and
# those whose chain holds caller_b must be 75:25 within 5 points, from the
# run file alone (its chains and symbols: `measure report -f folded` after the
# program and its library are removed), over at least 1000 samples.  Also:
# -g, --call-graph and -F usage errors (exit 2, naming the value), a run
# without -g has no chains, and `measure report` refuses the collect options.
# With chains: functions.csv's inclusive_percent gives the same 3:1, the text has a Call
# Graph, and `measure diff` against a 1:1 run shows caller_a -25 and caller_b +25 points
# (inclusive, within 5), in CSV, HTML and folded pairs; a run without chains diffs too.
# With PROG_NOFP (mprog_calls_nofp: no frame pointers, libc's qsort with a
# callback), --call-graph dwarf must give the same 75:25, and the run file
# must not keep the 8 KiB stacks.
#   measure_callgraph.sh MFSTAT PROG_FP [PROG_NOFP]
set -u
MFSTAT=$1
PROG=$2
PROG_NOFP=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0
no() { echo "FAIL: $*"; fail=1; }

usage() { # expected message part, then the arguments: exit 2, message on stderr, nothing run
  local want=$1
  shift
  "$MFSTAT" measure profile "$@" -d u.mfdb -- /bin/true >out.txt 2>err.txt
  local rc=$?
  [ $rc = 2 ] || no "measure profile $* exited $rc, not 2: $(cat err.txt)"
  grep -qF -- "$want" err.txt || no "measure profile $*: stderr lacks '$want': $(cat err.txt)"
  [ ! -e u.mfdb ] || no "measure profile $*: a run file was made"
  rm -f u.mfdb
}
usage "--call-graph: depth '200' is not a number of frames from 1 to 127" --call-graph fp,200
usage "--call-graph: depth '0' is not" --call-graph fp,0
usage "--call-graph: stack size '70000' is not a number of bytes from 8 to 65528" --call-graph dwarf,70000
usage "--call-graph: 'lbr' is not fp[,N] or dwarf[,SIZE]" --call-graph lbr
usage "-F: 'fast' is not a number of samples a second" -F fast
usage "-F 1000: a frequency replaces the rate and variation of -s (-s 1ms)" -F 1000 -s 1ms
"$MFSTAT" measure report -g none.mfdb >out.txt 2>err.txt
rc=$?
[ $rc = 2 ] || no "measure report -g exited $rc, not 2"
grep -q -- "-g, --call-graph" err.txt || no "measure report -g: $(cat err.txt)"

probe=$("$MFSTAT" measure probe -f json) || { echo "SKIP: measure probe failed"; exit 77; }
if echo "$probe" | grep -q '"exit":3'; then
  echo "SKIP: perf_event_open refused here: $probe"
  exit 77
fi

# Samples a second: 4000, or the kernel's limit when it is lower (it lowers it when sampling takes too long).
hz=4000
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 4000)
[ "$max" -lt "$hz" ] && hz=$max
dhz=3000 # dwarf: 8 KiB a sample
[ "$max" -lt "$dhz" ] && dhz=$max

# The shares of caller_a and caller_b among the samples whose chain holds either, from folded stacks.
shares() {
  awk '{n=$NF; t+=n; if ($1 ~ /(^|;)caller_a(;|$)/) a+=n; if ($1 ~ /(^|;)caller_b(;|$)/) b+=n}
       END {if (a+b == 0) {print "0 0 0 0"; exit} printf "%d %d %d %.1f\n", t, a, b, 100*a/(a+b)}'
}
near() { # $1 within $3 points of $2
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(d<=t)}'
}

# The program and its library are copies, removed before the run file is read: it must need neither.
mkdir bin
cp "$PROG" bin/mprog_calls && cp "$(dirname "$PROG")/libmcall.so" bin/ || no "cannot copy the test program"
units=8
LD_LIBRARY_PATH=$PWD/bin "$MFSTAT" measure profile -g -F "$hz" -s ,,task_clock -d fp.mfdb -o fp.txt -- \
  bin/mprog_calls lib $units >prog.out 2>err.txt
rc=$?
[ $rc = 0 ] || { no "measure profile -g exited $rc"; cat err.txt; }
rm -rf bin
"$MFSTAT" measure report -f folded -o fp.folded fp.mfdb 2>err.txt || no "measure report -f folded failed: $(cat err.txt)"
read -r total a b share < <(shares <fp.folded)
echo "fp: $total samples, caller_a $a, caller_b $b: caller_a's share $share % (want 75 +- 5)"
[ "$total" -ge 1000 ] || no "only $total samples (at least 1000 wanted)"
near "$share" 75 5 || { no "caller_a's share $share % is not within 5 points of 75"; sort -t' ' -k2 -n fp.folded | tail -20; }
grep -q '^mprog_calls;__libc_start_call_main;main;caller_a;' fp.folded ||
  no "no chain runs from __libc_start_call_main through main to caller_a: $(head -5 fp.folded)"
grep -q 'mcall_apply' fp.folded || no "mcall_apply (libmcall.so) is in no chain"
grep -q 'Used: *-F '"$hz"', none, task_clock:user' fp.txt || no "the header does not say -F $hz: $(grep Used: fp.txt)"

grep -q '\[libmcall.so\]\|\[mprog_calls\]' fp.folded && no "frames left unnamed: $(grep -m3 'libmcall.so\]\|mprog_calls\]' fp.folded)"

# The same shares as inclusive_percent in functions.csv (perf report --children's Children
# column), from the run file alone.
incl() { # functions.csv in $1: the inclusive_percent of function $2
  awk -F, -v f="$2" 'NR==1{for(i=1;i<=NF;i++) col[$i]=i; next} $col["function"]==f {print $col["inclusive_percent"]}' "$1/functions.csv"
}
"$MFSTAT" measure report -q --csv fpcsv -o /dev/null fp.mfdb || no "measure report --csv failed"
ia=$(incl fpcsv caller_a) ib=$(incl fpcsv caller_b)
echo "fp: inclusive_percent caller_a $ia, caller_b $ib"
if [ -n "$ia" ] && [ -n "$ib" ]; then
  near "$(awk -v a="$ia" -v b="$ib" 'BEGIN{print 100*a/(a+b)}')" 75 5 || no "inclusive caller_a:caller_b $ia:$ib is not 3:1 within 5 points"
else
  no "functions.csv has no inclusive_percent for caller_a or caller_b"
fi
"$MFSTAT" measure report --children -o children.txt fp.mfdb || no "measure report --children failed"
grep -q 'Call Graph' children.txt || no "the text report with chains has no Call Graph"

# measure diff: the same program with the work moved from 3:1 to 1:1; caller_a's inclusive share
# of the callers' samples falls by 25 points (within 5), caller_b's rises by as much.
mkdir bin
cp "$PROG" bin/mprog_calls && cp "$(dirname "$PROG")/libmcall.so" bin/ || no "cannot copy the test program"
LD_LIBRARY_PATH=$PWD/bin "$MFSTAT" measure profile -q -g -F "$hz" -s ,,task_clock -d even.mfdb -o /dev/null -- \
  bin/mprog_calls lib $units 1:1 >prog.out 2>err.txt || no "measure profile -g of 1:1 failed: $(cat err.txt)"
rm -rf bin
"$MFSTAT" measure diff -f csv -o diff.csv fp.mfdb even.mfdb || no "measure diff failed"
change() { # the inclusive change in points of function $1, scaled to the callers' share of the samples
  awk -F, -v f="$1" 'NR==1{for(i=1;i<=NF;i++) col[$i]=i; next}
    $col["kind"]=="function" && $col["name"]==f {print $col["inclusive_change_points"]}' diff.csv
}
ca=$(change caller_a) cb=$(change caller_b)
echo "diff 3:1 -> 1:1: caller_a $ca points, caller_b $cb points (inclusive)"
near "${ca:-99}" -25 5 || no "measure diff: caller_a's inclusive change $ca is not -25 within 5 points"
near "${cb:-99}" 25 5 || no "measure diff: caller_b's inclusive change $cb is not +25 within 5 points"
"$MFSTAT" measure diff -f html -o diff.html fp.mfdb even.mfdb || no "measure diff -f html failed"
grep -q '<svg' diff.html || no "measure diff -f html drew no SVG"
"$MFSTAT" measure diff -f folded fp.mfdb even.mfdb | grep -q ';caller_a;.* [0-9]* [0-9]*$' ||
  no "measure diff -f folded has no caller_a pair"

# dwarf: mprog_calls_nofp, no frame pointers, caller_a and caller_b sorting with libc's qsort and a
# comparison callback: a frame-pointer walk reaches neither caller, the DWARF unwinder both, 3:1.
if [ -n "$PROG_NOFP" ]; then
  mkdir bin
  cp "$PROG_NOFP" bin/mprog_calls_nofp && cp "$(dirname "$PROG_NOFP")/libmcall.so" bin/ || no "cannot copy the test program"
  LD_LIBRARY_PATH=$PWD/bin "$MFSTAT" measure profile --call-graph dwarf -F "$dhz" -s ,,task_clock -d dw.mfdb \
    -o dw.txt -- bin/mprog_calls_nofp qsort 10 >prog.out 2>err.txt
  rc=$?
  [ $rc = 0 ] || { no "measure profile --call-graph dwarf exited $rc"; cat err.txt; }
  rm -rf bin
  "$MFSTAT" measure report -f folded -o dw.folded dw.mfdb 2>err.txt || no "report -f folded: $(cat err.txt)"
  read -r total a b share < <(shares <dw.folded)
  echo "dwarf: $total samples, caller_a $a, caller_b $b: caller_a's share $share % (want 75 +- 5)"
  [ "$total" -ge 1000 ] || no "dwarf: only $total samples (at least 1000 wanted)"
  near "$share" 75 5 || { no "dwarf: caller_a's share $share % is not within 5 points of 75"; sort -t' ' -k2 -n dw.folded | tail; }
  grep -q ';caller_a;sort_rounds;qsort' dw.folded || no "dwarf: no chain goes from caller_a through qsort"
  # Under a small mlock limit (root without CAP_IPC_LOCK, as a user would be) the 4 MiB rings are
  # halved until the kernel takes them, not dropped to 8 pages (which lost most dwarf records).
  if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock -- sh -c 'ulimit -l 64; exec "$@"' sh \
      "$MFSTAT" measure profile --call-graph dwarf -F "$dhz" -s ,,task_clock -d ml.mfdb -o ml.txt -- \
      "$PROG_NOFP" qsort 1 >prog.out 2>err.txt || no "dwarf under a small mlock limit failed: $(cat err.txt)"
    pages=$(sed -n 's/.*ring buffers reduced to \([0-9]*\) pages.*/\1/p' ml.txt | head -1)
    echo "dwarf under a small mlock limit: rings of ${pages:-1024 (not reduced)} pages"
    [ "${pages:-1024}" -gt 8 ] || no "dwarf rings fell to $pages pages under a small mlock limit"
    "$MFSTAT" measure report -f folded ml.mfdb | grep -q ';caller_a;' || no "dwarf under a small mlock limit: no caller_a chain"
  fi
  # The raw stacks (8 KiB a sample) are not kept: the run file stays far below samples x 8 KiB.
  size=$(stat -c %s dw.mfdb)
  [ "$size" -lt $((total * 8192 / 4)) ] || no "dwarf: the run file has $size bytes for $total samples: stacks kept?"
fi

# Without -g: no chains.
"$MFSTAT" measure profile -s ,,task_clock -d flat.mfdb -o flat.txt -- "$PROG" lib 1 >prog.out 2>err.txt ||
  no "measure profile without -g failed: $(cat err.txt)"
"$MFSTAT" measure report -f folded -o flat.folded flat.mfdb 2>err.txt || no "report -f folded: $(cat err.txt)"
# Without chains each sample folds to the program and its own function: two names.
[ -s flat.folded ] && awk -F';' 'NF != 2 {exit 1}' flat.folded || no "a run without -g has chains: $(head -3 flat.folded)"
"$MFSTAT" measure diff -o flatdiff.txt flat.mfdb fp.mfdb || no "measure diff of a run without chains failed"
grep -q 'Inclusive: *n/a' flatdiff.txt || no "measure diff without chains on one side: $(grep Inclusive flatdiff.txt)"

exit $fail
