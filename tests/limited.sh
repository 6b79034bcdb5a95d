# SPDX-License-Identifier: MIT
# Sourced by the script tests that run mfstat under a memory and a time limit (huge_inputs,
# memory_limits): MFSTAT and tmp must be set.  Sets asan=1 for a sanitizer build, which cannot
# run under `ulimit -v` (its shadow memory) and is slow, so its hang guards are five times
# longer; and defines
#   run KB-OF-ADDRESS-SPACE SECONDS ARGS...
# mfstat under those limits, stdout and stderr in $tmp/out and $tmp/err, its exit status the
# function's.  SECONDS is a guard against a hang, not a bound on the time.
asan=0
grep -aq __asan_init "$MFSTAT" && asan=1

run() {
	local mem=$1 secs=$2
	[ $asan = 1 ] && secs=$((secs * 5))
	shift 2
	(
		[ $asan = 1 ] || ulimit -v "$mem"
		exec timeout "$secs" "$MFSTAT" "$@"
	) > "$tmp/out" 2> "$tmp/err"
}
