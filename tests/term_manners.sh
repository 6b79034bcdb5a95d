#!/bin/bash
# SPDX-License-Identifier: MIT
# A terminal is not a file (issue 30, item 4).  mfstat report run on a real pseudo-terminal
# (python3's pty module, the window's rows set with TIOCSWINSZ):
#  - a text report longer than the screen goes through $PAGER (a fake pager records that it ran
#    and what it read: the report, byte for byte); one that fits is written as it is;
#  - --no-pager, PAGER="" or PAGER=cat, or a pager not found: the report, and a line on standard
#    error saying how many rows it has and how to see them all;
#  - a pager that quits without reading is no error (exit 0);
#  - standard output a file: never paged, no line about rows;
#  - progress (MFSTAT_PROGRESS_AFTER=0: at once, no timing) on a terminal's standard error,
#    cleared at the end; none with -q, none when standard error is a file, none before the
#    threshold (MFSTAT_PROGRESS_AFTER=1000).
set -u
MFSTAT=$(realpath "$1")
DATA=$(realpath "$2")
command -v python3 >/dev/null || { echo "SKIP: no python3 to give mfstat a terminal"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
IN=$DATA/day-3sys-z15.csv.gz

# A pager that says it ran and keeps what it read.
cat > "$tmp/fakepager" <<'EOF'
#!/bin/sh
echo ran >> "$FAKE_PAGER_LOG"
cat > "$FAKE_PAGER_IN"
echo "FAKE PAGER SHOWED $(wc -l < "$FAKE_PAGER_IN") LINES"
EOF
chmod +x "$tmp/fakepager"
"$MFSTAT" report -q "$IN" > "$tmp/want" || { echo "FAIL: report to a file"; exit 1; }
rows=$(wc -l < "$tmp/want")

# tty NAME ROWS OUT ERR ENV... -- ARGS...: a case: mfstat ARGS with standard output (OUT: tty
# or file) and standard error (ERR) on a pty of ROWS rows or on files.  run_cases runs every
# case in one python3 (it is slow to start): the pty's bytes into $tmp/NAME.tty, the files
# into $tmp/NAME.out and $tmp/NAME.err, the exit status into $tmp/NAME.rc.
tty() { local IFS=$'\x1f'; echo "$*" >> "$tmp/cases"; }
pager_env() { echo "PAGER=$tmp/fakepager FAKE_PAGER_LOG=$tmp/$1.log FAKE_PAGER_IN=$tmp/$1.in"; }

tty paged 20 tty file $(pager_env paged) -- report -q "$IN"
tty no-pager 20 tty file $(pager_env no-pager) -- report -q --no-pager "$IN"
tty empty 20 tty file PAGER= -- report -q "$IN"
tty cat 20 tty file PAGER=cat -- report -q "$IN"
tty missing 20 tty file PAGER=/nonexistent/pager -- report -q "$IN"
tty fits $((rows + 1)) tty file $(pager_env fits) -- report -q "$IN"
tty lines 0 tty file PAGER= LINES=30 -- report -q "$IN"
tty quits 20 tty file PAGER=true -- report -q "$IN"
tty file 20 file tty $(pager_env file) -- report -q "$IN"
tty csv 20 tty file $(pager_env csv) -- report -q -f csv "$IN"
tty prog 20 file tty MFSTAT_PROGRESS_AFTER=0 -- report "$IN"
tty progq 20 file tty MFSTAT_PROGRESS_AFTER=0 -- report -q "$IN"
tty progf 20 tty file MFSTAT_PROGRESS_AFTER=0 PAGER= -- report "$IN"
tty progslow 20 file tty MFSTAT_PROGRESS_AFTER=1000 -- report "$IN"
tty progdiag 20 file tty MFSTAT_PROGRESS_AFTER=0 -- report --skip-bad-rows "$IN" "$DATA/bad-rows.csv"

# The other commands that print long text (issue 30 item 4): smf list, measure report, measure
# diff, diff, counters, metrics, machines.  Each on a pty of 10 rows: paged (the pager read the
# text whole, as written to a file), and with --no-pager the text and the line on standard error.
MDIFF=$DATA/mdiff
VALID=$(dirname "$DATA")/fuzz/corpus/mfdb/valid.mfdb
others=(smf measure measure-diff diff counters metrics machines)
args_smf=(smf list "$DATA/small-both.smf")
args_measure=(measure report -q "$VALID")
args_measure_diff=(measure diff -q "$MDIFF/before.mfdb" "$MDIFF/after.mfdb")
args_diff=(diff -q --before 2025-03-31T00:00/2025-03-31T12:00 --after 2025-03-31T12:00/2025-04-01T00:00 "$IN")
args_counters=(counters --machine z16)
args_metrics=(metrics)
args_machines=(machines z16)
for o in "${others[@]}"; do
	eval "a=(\"\${args_${o//-/_}[@]}\")"
	"$MFSTAT" "${a[@]}" > "$tmp/want-$o" 2>/dev/null || { echo "FAIL: $o to a file"; exit 1; }
	# --no-pager goes after the command's words (smf list, measure report), before its files.
	case $o in smf | measure | measure-diff) n=2 ;; *) n=1 ;; esac
	tty "$o-paged" 10 tty file $(pager_env "$o-paged") -- "${a[@]}"
	tty "$o-nopager" 10 tty file $(pager_env "$o-nopager") -- "${a[@]:0:n}" --no-pager "${a[@]:n}"
done

python3 - "$MFSTAT" "$tmp" <<'EOF' || { echo "FAIL: the pty runner"; exit 1; }
import fcntl, os, struct, subprocess, sys, termios
mfstat, tmp = sys.argv[1:3]
for spec in open(os.path.join(tmp, "cases")).read().splitlines():
    name, rows, out, err, *rest = spec.split("\x1f")
    cut = rest.index("--")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    for kv in rest[:cut]:
        k, v = kv.split("=", 1)
        env[k] = v
    m, s = os.openpty()
    fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", int(rows), 80, 0, 0))
    fo = open(os.path.join(tmp, name + ".out"), "wb")
    fe = open(os.path.join(tmp, name + ".err"), "wb")
    p = subprocess.Popen([mfstat] + rest[cut + 1:], stdin=subprocess.DEVNULL,
                         stdout=s if out == "tty" else fo, stderr=s if err == "tty" else fe, env=env)
    os.close(s)
    data = b""
    while True:
        try:
            chunk = os.read(m, 65536)
        except OSError:  # EIO: every end of the pty closed
            break
        if not chunk:
            break
        data += chunk
    os.close(m)
    rc = p.wait()
    fo.close()
    fe.close()
    open(os.path.join(tmp, name + ".tty"), "wb").write(data)
    open(os.path.join(tmp, name + ".rc"), "w").write("%d\n" % rc)
EOF

fail=0
bad() { echo "FAIL $*"; fail=1; }
has() { grep -qF -- "$2" "$tmp/$1" || { bad "$1: no '$2' in:"; LC_ALL=C cat -v "$tmp/$1" | head -5; }; }
hasnt() { ! grep -qF -- "$2" "$tmp/$1" || { bad "$1: '$2' in:"; LC_ALL=C cat -v "$tmp/$1" | head -5; }; }
rc0() { [ "$(cat "$tmp/$1.rc")" = 0 ] || bad "$1: exit $(cat "$tmp/$1.rc"), not 0"; }
# The pty turns \n into \r\n: the report as the terminal got it, back as lines.
shown() { tr -d '\r' < "$tmp/$1.tty"; }

# Longer than the screen: paged, the pager read the report whole, mfstat waited for it.
rc0 paged
[ "$(cat "$tmp/paged.log" 2>/dev/null)" = ran ] || bad "paged: the pager did not run once"
cmp -s "$tmp/paged.in" "$tmp/want" || bad "paged: the pager did not read the report"
has paged.tty "FAKE PAGER SHOWED $rows LINES"
hasnt paged.err "rows, more than"

# --no-pager, PAGER empty, PAGER=cat, a pager not found: the report and the line.
for how in no-pager empty cat missing; do
	rc0 $how
	[ ! -e "$tmp/$how.log" ] || bad "$how: the pager ran"
	shown $how | cmp -s - "$tmp/want" || bad "$how: the terminal did not get the report"
	has $how.err "mfstat: report: $rows rows, more than the terminal's 20: to see them all, --sort METRIC --top N, -o FILE or a pager"
done
has no-pager.err "or without --no-pager"

# Fits the screen: no pager, no line.
rc0 fits
[ ! -e "$tmp/fits.log" ] || bad "fits: the pager ran"
shown fits | cmp -s - "$tmp/want" || bad "fits: the terminal did not get the report"
[ ! -s "$tmp/fits.err" ] || bad "fits: standard error not empty: $(cat "$tmp/fits.err")"

# A window without a size: $LINES.
has lines.err "more than the terminal's 30"

# A pager that quits at once, reading nothing: mfstat ends as it should (0).
rc0 quits

# Standard output a file: never paged, no line, even with standard error on the terminal.
rc0 file
[ ! -e "$tmp/file.log" ] || bad "file: the pager ran"
cmp -s "$tmp/file.out" "$tmp/want" || bad "file: the report in the file differs"
hasnt file.tty "rows, more than"

# Other formats to a terminal are not paged.
[ ! -e "$tmp/csv.log" ] || bad "csv: the pager ran"

# Progress on a terminal's standard error, at once with MFSTAT_PROGRESS_AFTER=0, then cleared:
# the last progress line is followed by spaces over it and a carriage return.
rc0 prog
cmp -s "$tmp/prog.out" "$tmp/want" || bad "prog: the report differs"
has prog.tty "mfstat: reading "
has prog.tty " of 29.1 KiB (100%), 72 samples, "
python3 - "$tmp/prog.tty" <<'EOF' || fail=1
import re, sys
t = open(sys.argv[1], "rb").read()
last = t.rfind(b"\rmfstat: reading ")
line = t[last + 1:].split(b"\r")[0]
if last < 0 or not re.match(rb"\r {%d,}\r" % len(line.rstrip()), t[last + 1 + len(line):]):
    print("FAIL prog: the progress line is not cleared:", t[max(last, 0):][:200])
    sys.exit(1)
EOF
# A diagnostic while the line is shown clears it first: it starts a line of its own.
rc0 progdiag
python3 - "$tmp/progdiag.tty" <<'EOF' || fail=1
import sys
t = open(sys.argv[1], "rb").read()
i = t.find(b"mfstat: reading ")
j = t.find(b"bad-rows.csv:3:")
k = t.rfind(b"mfstat: ", 0, j)
if i < 0 or j < 0 or k < i or t[k - 1:k] != b"\r" or t[k - 2:k - 1] != b" ":
    print("FAIL progdiag: the diagnostic does not start after the line is cleared:", t[:300])
    sys.exit(1)
EOF
# The other commands: paged as report is; --no-pager, the text and the line naming the command.
declare -A names=([smf]="smf list" [measure]="measure report" [measure-diff]="measure diff" [diff]=diff
	[counters]=counters [metrics]=metrics [machines]=machines)
for o in "${others[@]}"; do
	rows=$(wc -l < "$tmp/want-$o")
	[ "$rows" -gt 10 ] || bad "$o: only $rows rows: the case shows nothing"
	rc0 "$o-paged"
	[ "$(cat "$tmp/$o-paged.log" 2>/dev/null)" = ran ] || bad "$o-paged: the pager did not run once"
	cmp -s "$tmp/$o-paged.in" "$tmp/want-$o" || bad "$o-paged: the pager did not read the text whole"
	rc0 "$o-nopager"
	[ ! -e "$tmp/$o-nopager.log" ] || bad "$o-nopager: the pager ran"
	shown "$o-nopager" | cmp -s - "$tmp/want-$o" || bad "$o-nopager: the terminal did not get the text"
	has "$o-nopager.err" "mfstat: ${names[$o]}: $rows rows, more than the terminal's 10: to see them all, "
	has "$o-nopager.err" "or without --no-pager"
done
has smf-nopager.err "to see them all, --summary, > FILE or a pager"

# -q, standard error a file, the threshold not reached: no progress.
hasnt progq.tty "reading"
hasnt progf.err "reading"
hasnt progslow.tty "reading"
exit $fail
