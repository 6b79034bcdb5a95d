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

exit $fail
