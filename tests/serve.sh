#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat serve, the exporter, end to end over HTTP: on a recorded z16 tree of 4 CPUs
# (MFSTAT_SYSROOT, counts that advance by a step at every read), scrapes with curl show the
# counts advancing, content negotiation, promtool's check, --cpus, a set not authorized, the
# errors (404, 405), a malformed and a slow client, SIGTERM; off IBM Z (this machine, no
# MFSTAT_SYSROOT) the generic events or mfstat_up 0 with the reason, never made-up numbers.
set -u
MFSTAT=$1
DATA=$2 # the project's data/ directory
command -v curl > /dev/null || { echo "SKIP: no curl"; exit 77; }
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0

# A recorded z16 tree: AUTH the authorization, CPUS online, counts.tsv lines "config value step".
. "$(dirname "$0")/lib/z16tree.sh"
make_tree() { # DIR AUTH CPUS
	local root=$1
	recorded_z16 "$root" "$DATA" "$2" "$3"
	# B0 cycles +3000 a read, B1 instructions +1000, P32 problem-state cycles, E128 (extended)
	printf '0\t3000000000\t3000\n1\t1000000000\t1000\n32\t500000\t7\n128\t42\t1\n' > "$root/counts.tsv"
}

# Starts serve (arguments given), waits until it says where it listens; sets pid and addr.
# With wrap set (an array), serve runs under it (setpriv ...).
wrap=()
start() { # LOGNAME ARGS...
	local log=$tmp/$1.err i
	shift
	"${wrap[@]}" "$MFSTAT" serve --listen 127.0.0.1:0 "$@" 2> "$log" &
	pid=$!
	pids+=("$pid")
	addr=
	for i in $(seq 100); do
		addr=$(sed -n 's/^serve: listening on \([0-9.]*:[0-9]*\).*/\1/p' "$log")
		[ -n "$addr" ] && return 0
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.05
	done
	echo "FAIL: serve did not start: $(cat "$log")"
	fail=1
	return 1
}

scrape() { curl -s -S --max-time 5 "$@"; }

make_tree "$tmp/z16" 002f 0-3
export MFSTAT_SYSROOT=$tmp/z16
start main --timeout 2 || exit 1
main_pid=$pid
scrape "http://$addr/metrics" > "$tmp/s1" || { echo "FAIL: first scrape"; fail=1; }
scrape "http://$addr/metrics" > "$tmp/s2" || { echo "FAIL: second scrape"; fail=1; }
grep -q '^mfstat_cpumf_cpu_cycles_total{cpu="2",set="basic"} 3000000000$' "$tmp/s1" || { echo "FAIL: B0 of cpu 2 at the first scrape"; grep cpu_cycles "$tmp/s1"; fail=1; }
grep -q '^mfstat_cpumf_cpu_cycles_total{cpu="2",set="basic"} 3000003000$' "$tmp/s2" || { echo "FAIL: B0 of cpu 2 did not advance by its step"; grep cpu_cycles "$tmp/s2"; fail=1; }
grep -q '^mfstat_cpumf_instructions_total{cpu="3",set="basic"} 1000001000$' "$tmp/s2" || { echo "FAIL: B1 of cpu 3"; fail=1; }
[ "$(grep -c '^mfstat_cpumf_cpu_cycles_total{' "$tmp/s2")" = 4 ] || { echo "FAIL: not one B0 per CPU"; fail=1; }
grep -q '^mfstat_machine_info{type="3931",family="z16",model="z16 A01",cfvn="3",csvn="7",auth="0x2f"} 1$' "$tmp/s1" || { echo "FAIL: machine info"; grep machine_info "$tmp/s1"; fail=1; }
grep -q '^mfstat_up{set="extended"} 1$' "$tmp/s1" || { echo "FAIL: extended set not up"; fail=1; }
grep -q '^mfstat_cpumf_cpu_speed_hertz 5200000000$' "$tmp/s1" || { echo "FAIL: speed"; fail=1; }
grep -q '^mfstat_scrape_duration_seconds [0-9]' "$tmp/s1" || { echo "FAIL: scrape duration"; fail=1; }
grep -q '# EOF' "$tmp/s1" && { echo "FAIL: the text format has no # EOF"; fail=1; }
# OpenMetrics when the scraper asks (Prometheus's Accept header), ending in # EOF.
scrape -D "$tmp/om.h" -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1' "http://$addr/metrics" > "$tmp/om"
[ "$(tail -1 "$tmp/om")" = "# EOF" ] || { echo "FAIL: OpenMetrics does not end in # EOF"; tail -2 "$tmp/om"; fail=1; }
grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$tmp/om.h" || { echo "FAIL: OpenMetrics content type"; cat "$tmp/om.h"; fail=1; }
grep -q '^# TYPE mfstat_cpumf_cpu_cycles counter$' "$tmp/om" || { echo "FAIL: OpenMetrics counter family"; fail=1; }
scrape -D "$tmp/t.h" "http://$addr/metrics" > /dev/null
grep -qi '^content-type: text/plain; version=0.0.4' "$tmp/t.h" || { echo "FAIL: text content type"; cat "$tmp/t.h"; fail=1; }
# (promtool check metrics reads the text format only: OpenMetrics' info type is not its.)
if command -v promtool > /dev/null; then
	promtool check metrics < "$tmp/s1" > "$tmp/pt" 2>&1 || { echo "FAIL: promtool check metrics (text): $(cat "$tmp/pt")"; fail=1; }
else
	echo "note: no promtool: its check is skipped"
fi
# The other paths and methods.
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }
[ "$(code "http://$addr/")" = 200 ] || { echo "FAIL: / is not 200"; fail=1; }
scrape "http://$addr/" > "$tmp/index"
grep -q 'href="/metrics"' "$tmp/index" || { echo "FAIL: / does not link /metrics"; fail=1; }
[ "$(code "http://$addr/nothing")" = 404 ] || { echo "FAIL: /nothing is not 404"; fail=1; }
[ "$(code -X POST -d x=1 "http://$addr/metrics")" = 405 ] || { echo "FAIL: POST is not 405"; fail=1; }
[ "$(code -I "http://$addr/metrics")" = 200 ] || { echo "FAIL: HEAD is not 200"; fail=1; }

# A malformed client: garbage bytes, then an oversized header; each gets an error or a close,
# and the server still answers the next scrape.
exec 3<> "/dev/tcp/${addr%:*}/${addr##*:}"
(trap '' PIPE; printf 'GARBAGE \001\377 NOT HTTP\r\n\r\n' >&3) 2> /dev/null
timeout 20 cat <&3 > "$tmp/garbage"; st=$?
exec 3>&-
[ $st != 124 ] || { echo "FAIL: garbage request not answered or closed within 20 s"; fail=1; }
if [ -s "$tmp/garbage" ]; then
	head -1 "$tmp/garbage" | grep -q '^HTTP/1.[01] 4[0-9][0-9]' || { echo "FAIL: garbage got: $(head -1 "$tmp/garbage")"; fail=1; }
fi
big=$(head -c 40000 /dev/zero | tr '\0' a)
exec 3<> "/dev/tcp/${addr%:*}/${addr##*:}"
# (in a subshell that ignores SIGPIPE: the server may close before all is written)
(trap '' PIPE; printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n' "$big" >&3) 2> /dev/null
timeout 20 cat <&3 > "$tmp/big" 2> /dev/null; st=$?
exec 3>&-
[ $st != 124 ] || { echo "FAIL: oversized header not answered or closed within 20 s"; fail=1; }
if [ -s "$tmp/big" ]; then
	head -1 "$tmp/big" | grep -q '^HTTP/1.[01] 4[0-9][0-9]' || { echo "FAIL: oversized header got: $(head -1 "$tmp/big")"; fail=1; }
fi
scrape "http://$addr/metrics" > "$tmp/after"
grep -q '^mfstat_up{set="basic"} 1$' "$tmp/after" || { echo "FAIL: no scrape after the malformed clients"; fail=1; }

# A slow client (half a request, then silence) blocks no one, and is dropped after --timeout 2
# (waited for up to 20 s, a guard for a busy machine: with --timeout 30 it is not dropped in time).
exec 4<> "/dev/tcp/${addr%:*}/${addr##*:}"
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >&4
scrape "http://$addr/metrics" > "$tmp/beside"
grep -q '^mfstat_up{set="basic"} 1$' "$tmp/beside" || { echo "FAIL: a slow client blocked another's scrape"; fail=1; }
timeout 20 cat <&4 > /dev/null; st=$?
exec 4>&-
[ $st != 124 ] || { echo "FAIL: the slow client was not dropped after the timeout"; fail=1; }
kill -0 "$main_pid" 2> /dev/null || { echo "FAIL: serve died"; fail=1; }

# Another serve on the same port: exit 1 naming the cause.
"$MFSTAT" serve --listen "$addr" 2> "$tmp/inuse.err" & p2=$!
pids+=("$p2")
( sleep 5; kill "$p2" 2> /dev/null ) & wait "$p2"; st=$?
[ $st = 1 ] || { echo "FAIL: a port in use: exit $st, not 1"; fail=1; }
grep -q 'cannot listen on 127.0.0.1:.*Address already in use' "$tmp/inuse.err" || { echo "FAIL: port in use not said: $(cat "$tmp/inuse.err")"; fail=1; }

# SIGTERM stops it cleanly: exit 0.
kill -TERM "$main_pid"; wait "$main_pid"; st=$?
[ $st = 0 ] || { echo "FAIL: SIGTERM: exit $st"; fail=1; }

# --cpus 1,3: those CPUs only; SIGINT stops it too.
start cpus --cpus 1,3 && {
	scrape "http://$addr/metrics" > "$tmp/c13"
	labels=$(grep -o 'cpu="[0-9]*"' "$tmp/c13" | sort -u | tr '\n' ' ')
	[ "$labels" = 'cpu="1" cpu="3" ' ] || { echo "FAIL: --cpus 1,3 gave $labels"; fail=1; }
	kill -INT "$pid"; wait "$pid"; st=$?
	[ $st = 0 ] || { echo "FAIL: SIGINT: exit $st"; fail=1; }
}

# A set not authorized (0x0b: no problem-state set, no MT-diagnostic): up 0 with the reason, its counters absent.
make_tree "$tmp/z16b" 000b 0-1
MFSTAT_SYSROOT=$tmp/z16b start auth && {
	scrape "http://$addr/metrics" > "$tmp/auth"
	grep -q '^mfstat_up{set="problem",reason="not authorized (authorization 0xb)"} 0$' "$tmp/auth" || { echo "FAIL: problem set not up 0 with its reason"; grep mfstat_up "$tmp/auth"; fail=1; }
	grep -q 'set="problem"}' "$tmp/auth" && { echo "FAIL: counters of a set not authorized are served"; fail=1; }
	grep -q '^mfstat_up{set="basic"} 1$' "$tmp/auth" || { echo "FAIL: basic set not up"; fail=1; }
	kill "$pid"; wait "$pid"
}
# The basic set not authorized: nothing can be counted, exit 3 naming the cause.
make_tree "$tmp/z16c" 0000 0-1
MFSTAT_SYSROOT=$tmp/z16c "$MFSTAT" serve --listen 127.0.0.1:0 2> "$tmp/noauth.err"; st=$?
[ $st = 3 ] || { echo "FAIL: basic set not authorized: exit $st, not 3"; fail=1; }
grep -q 'basic counter set is not authorized' "$tmp/noauth.err" || { echo "FAIL: $(cat "$tmp/noauth.err")"; fail=1; }
# Not root: perf_event_paranoid 2 refuses system-wide counting (exit 3, saying so) unless the
# process has CAP_PERFMON, as the systemd unit gives it.  Needs root, setpriv, and the binary
# reachable by nobody; skipped otherwise.
make_tree "$tmp/z16p" 002f 0-1
echo 2 > "$tmp/z16p/proc/sys/kernel/perf_event_paranoid"
chmod -R a+rX "$tmp"
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && "${nobody[@]}" test -x "$MFSTAT" 2> /dev/null; then
	MFSTAT_SYSROOT=$tmp/z16p "${nobody[@]}" "$MFSTAT" serve --listen 127.0.0.1:0 2> "$tmp/par.err"; st=$?
	[ $st = 3 ] || { echo "FAIL: paranoid 2 without CAP_PERFMON: exit $st, not 3"; fail=1; }
	grep -q 'perf_event_paranoid is 2' "$tmp/par.err" || { echo "FAIL: paranoid not said: $(cat "$tmp/par.err")"; fail=1; }
	nobody+=(--inh-caps=+perfmon --ambient-caps=+perfmon)
	wrap=("${nobody[@]}")
	MFSTAT_SYSROOT=$tmp/z16p start perfmon && {
		scrape "http://$addr/metrics" > "$tmp/perfmon"
		grep -q '^mfstat_up{set="basic"} 1$' "$tmp/perfmon" || { echo "FAIL: CAP_PERFMON: basic set not up"; fail=1; }
		kill "$pid"; wait "$pid"
	}
	wrap=()
else
	echo "note: not root or no setpriv: the CAP_PERFMON check is skipped"
fi
# Usage errors: exit 2.
"$MFSTAT" serve --listen nonsense 2> /dev/null; st=$?
[ $st = 2 ] || { echo "FAIL: --listen nonsense: exit $st, not 2"; fail=1; }
"$MFSTAT" serve --cpus 3-1 2> /dev/null; st=$?
[ $st = 2 ] || { echo "FAIL: --cpus 3-1: exit $st, not 2"; fail=1; }

# A recorded machine without cpum_cf: said once, the generic events served (the recorded seam
# opens them; their counts are the lines of their configs).
mkdir -p "$tmp/x86/sys/devices/system/cpu" && echo 0-1 > "$tmp/x86/sys/devices/system/cpu/online"
printf '0\t777\t1\n' > "$tmp/x86/counts.tsv"
MFSTAT_SYSROOT=$tmp/x86 start x86 && {
	scrape "http://$addr/metrics" > "$tmp/x86.out"
	grep -q '^mfstat_perf_cycles_total{cpu="1",set="perf"} 777$' "$tmp/x86.out" || { echo "FAIL: generic events off Z"; cat "$tmp/x86.out"; fail=1; }
	grep -q '^mfstat_up{set="perf"} 1$' "$tmp/x86.out" || { echo "FAIL: perf set not up"; fail=1; }
	[ "$(grep -c 'no CPU-MF counters' "$tmp/x86.err")" = 1 ] || { echo "FAIL: off Z not said once: $(cat "$tmp/x86.err")"; fail=1; }
	kill "$pid"; wait "$pid"
}

# This machine, for real: on a VM without hardware events only mfstat_up{set="perf"} 0 with
# the reason; where they exist, real counts (generic, or CPU-MF on IBM Z).  Never both.
unset MFSTAT_SYSROOT
before=$fail
if start real; then
	scrape "http://$addr/metrics" > "$tmp/real"
	if grep -q '^mfstat_up{set="perf",reason="[^"]*"} 0$' "$tmp/real"; then
		[ "$(grep -vc '^#' "$tmp/real")" = 1 ] || { echo "FAIL: counters served beside mfstat_up 0"; cat "$tmp/real"; fail=1; }
		echo "note: this machine has no generic hardware events: $(grep '^mfstat_up' "$tmp/real")"
	elif grep -q '^mfstat_\(perf\|cpumf\)_[a-z0-9_]*_total{cpu=' "$tmp/real"; then
		echo "note: this machine serves real counts"
	else
		echo "FAIL: real machine: neither counts nor mfstat_up 0"; cat "$tmp/real"; fail=1
	fi
	kill "$pid"; wait "$pid"
elif grep -q 'CPU-MF counters cannot be counted here' "$tmp/real.err"; then
	echo "note: CPU-MF here but not countable: $(cat "$tmp/real.err")"
	fail=$before
fi
# The systemd unit (dist/mfstat.service): systemd-analyze verify says nothing about it (an
# unknown key or system call is a warning it prints), with ExecStart pointing at this build.
if command -v systemd-analyze > /dev/null; then
	abs=$(cd "$(dirname "$MFSTAT")" && pwd)/$(basename "$MFSTAT")
	sed "s|^ExecStart=/usr/bin/mfstat |ExecStart=$abs |" "$DATA/../dist/mfstat.service" > "$tmp/mfstat.service"
	grep -q "^ExecStart=$abs serve" "$tmp/mfstat.service" || { echo "FAIL: the unit's ExecStart is not /usr/bin/mfstat serve"; fail=1; }
	grep -qx 'AmbientCapabilities=CAP_PERFMON' "$tmp/mfstat.service" && grep -qx 'CapabilityBoundingSet=CAP_PERFMON' "$tmp/mfstat.service" || { echo "FAIL: the unit's capabilities are not CAP_PERFMON alone"; fail=1; }
	systemd-analyze verify --man=no "$tmp/mfstat.service" > "$tmp/verify" 2>&1; st=$?
	[ $st = 0 ] && [ ! -s "$tmp/verify" ] || { echo "FAIL: systemd-analyze verify ($st): $(cat "$tmp/verify")"; fail=1; }
else
	echo "note: no systemd-analyze: the unit file is not verified"
fi
exit $fail
