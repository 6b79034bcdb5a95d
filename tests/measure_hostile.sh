#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat measure against a hostile directory and hostile input (issue 13,
# items 1, 3 and 6):
#  - symbolic links planted, as an attacker would, for the run file names of
#    the next seconds and pids (.mfstat/profile-<UTC second>-<pid>.mfdb) and
#    for latest-profile must not make a `measure profile` write through them:
#    the victim file stays as it was, the run is saved under a fresh name, 0600;
#  - a .mfstat that is a symbolic link, belongs to someone else or can be
#    written by others is refused before the program runs (exit 2);
#  - -d FILE never follows a link at FILE; --csv DIR replaces links planted
#    for its table names instead of following them;
#  - `measure report` of /dev/zero, a FIFO (with and without a writer), a cut
#    file and a file whose section claims more bytes than the file has ends at
#    once with exit 1 and a message naming the file, under a time and an
#    address-space limit;
#  - the same run given twice (the same file, a copy, the other byte order) is
#    counted once, with a warning;
#  - (issue 25) `measure report -o RUN RUN`, through a link, through
#    latest-profile, and a --csv table naming an input are refused (exit 2), the
#    run file untouched; -d FILE never replaces an existing file without
#    --force (exit 2, nothing run), a failed run leaves what was at FILE (and
#    nothing when there was nothing), --force replaces FILE only when the run is
#    saved, and -d naming the program is refused even with --force.
# The report checks run everywhere; the measuring ones skip (with a note) where
# perf_event_open is refused.
#   measure_hostile.sh MFSTAT VALID_MFDB SWAPPED_MFDB
set -u
MFSTAT=$1
VALID=$2
SWAPPED=$3
tmp=$(mktemp -d)
writer=
cleanup() {
	[ -n "$writer" ] && kill "$writer" 2>/dev/null
	chmod -R u+rwx "$tmp" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"
fail=0
no() { echo "FAIL: $*"; fail=1; }

# An address-space limit (KiB) for the commands that could grow without end; a
# sanitizer build reserves terabytes of shadow memory and cannot start under
# one, so there only the time limit applies.
LIMIT=1048576
if ! (ulimit -v $LIMIT && "$MFSTAT" --version) >/dev/null 2>&1; then
	echo "note: $MFSTAT does not start under ulimit -v $LIMIT (a sanitizer build?): time limit only"
	LIMIT=unlimited
fi
bounded() { # bounded SECONDS CMD...: under the time and memory limits; status as timeout's
	local s=$1
	# A guard against a hang, not a bound on the time: a sanitizer build on a busy machine is slow.
	[ "$LIMIT" = unlimited ] && s=$((s * 5))
	shift
	(ulimit -v $LIMIT && exec timeout -k 2 "$s" "$@")
}

echo victim-content >victim
cp victim victim.orig
victim_ok() { cmp -s victim victim.orig || no "$1: the victim file was written through a link"; }

# ---- measure report: input that is no file of known size ------------------
bounded 20 "$MFSTAT" measure report /dev/zero >/dev/null 2>zero.err
rc=$?
[ $rc = 1 ] || no "measure report /dev/zero exited $rc, not 1 (124: it hung)"
grep -q '/dev/zero.*not a regular file' zero.err || { no "/dev/zero: no 'not a regular file' message"; cat zero.err; }

mkfifo fifo
bounded 20 "$MFSTAT" measure report fifo >/dev/null 2>fifo.err
rc=$?
[ $rc = 1 ] || no "measure report of a FIFO without a writer exited $rc, not 1 (124: it waited)"
grep -q 'fifo.*not a regular file' fifo.err || { no "FIFO: no 'not a regular file' message"; cat fifo.err; }
cat /dev/zero >fifo 2>/dev/null &
writer=$!
bounded 20 "$MFSTAT" measure report fifo >/dev/null 2>fifo2.err
rc=$?
kill $writer 2>/dev/null
wait $writer 2>/dev/null
writer=
[ $rc = 1 ] || no "measure report of a FIFO fed zeros exited $rc, not 1 (124: it hung)"
grep -q 'fifo.*not a regular file' fifo2.err || { no "FIFO fed zeros: no 'not a regular file' message"; cat fifo2.err; }

# A cut file and a section longer than the file: exit 1, the file and an offset named.
head -c 200 "$VALID" >cut.mfdb
bounded 20 "$MFSTAT" measure report cut.mfdb >/dev/null 2>cut.err
rc=$?
[ $rc = 1 ] || no "a cut run file exited $rc, not 1"
grep -q 'cut.mfdb: offset 0x' cut.err || { no "a cut run file: no file and offset in the message"; cat cut.err; }
# The first section's u64 length (bytes 32-39, little-endian here) set to 2^63-1.
cp "$VALID" big.mfdb
printf '\377\377\377\377\377\377\377\177' | dd of=big.mfdb bs=1 seek=32 conv=notrunc status=none
bounded 20 "$MFSTAT" measure report big.mfdb >/dev/null 2>big.err
rc=$?
[ $rc = 1 ] || no "a section longer than the file exited $rc, not 1"
grep -q 'big.mfdb: offset 0x18: .*run past the end of the file' big.err ||
	{ no "a section longer than the file: no file, offset and reason"; cat big.err; }
# The same in a file whose header length is 0 (a run that did not finish): the section is ignored.
printf '\0\0\0\0\0\0\0\0' | dd of=big.mfdb bs=1 seek=16 conv=notrunc status=none
bounded 20 "$MFSTAT" measure report big.mfdb >/dev/null 2>big0.err
rc=$?
[ $rc = 1 ] || no "an unfinished file with a section longer than the file exited $rc, not 1"
grep -q 'big.mfdb: offset 0x18: .*incomplete.*cut short' big0.err ||
	{ no "an unfinished file with a long section: no file, offset and reason"; cat big0.err; }

# ---- measure report: the same run given more than once --------------------
"$MFSTAT" measure report "$VALID" >one.txt 2>/dev/null || no "measure report of one run failed"
cp "$VALID" copy.mfdb
"$MFSTAT" measure report "$VALID" "$VALID" copy.mfdb "$SWAPPED" >dup.txt 2>dup.err
rc=$?
[ $rc = 0 ] || { no "measure report of one run four times exited $rc"; cat dup.err; }
cmp -s one.txt dup.txt || { no "one run given four times is not reported as the run once"; diff one.txt dup.txt | head; }
[ "$(grep -c 'holds the same run as .*(argument 1): counted once' dup.err)" = 3 ] ||
	{ no "the three repeats were not each said"; cat dup.err; }
"$MFSTAT" measure report -q "$VALID" copy.mfdb >/dev/null 2>dupq.err
[ -s dupq.err ] && { no "-q did not silence the repeat warning"; cat dupq.err; }

# ---- measure report: no output over an input (issue 25) --------------------
cp "$VALID" run.mfdb
ln -s run.mfdb run-link.mfdb
sum=$(cksum <run.mfdb)
refuse_report() { # refuse_report WHAT ARGS...: exit 2, the input named, run.mfdb untouched
	local what=$1
	shift
	"$MFSTAT" measure report "$@" >/dev/null 2>same.err
	local rc=$?
	[ $rc = 2 ] || no "$what: exit $rc, not 2"
	grep -q 'names the input .*refusing to overwrite an input' same.err || { no "$what: no message"; cat same.err; }
	[ "$(cksum <run.mfdb)" = "$sum" ] || no "$what: the run file was overwritten"
	cp "$VALID" run.mfdb
}
refuse_report "measure report -o RUN RUN" -f text -o run.mfdb run.mfdb
refuse_report "measure report -o LINK RUN" -f text -o run-link.mfdb run.mfdb
refuse_report "measure report -o RUN LINK" -f text -o run.mfdb run-link.mfdb
refuse_report "measure report -o RUN (the second input)" -f text -o run.mfdb "$VALID" run.mfdb
refuse_report "measure report -f json -o RUN RUN" -f json -o run.mfdb run.mfdb
# Without -f, -o RUN's .mfdb is no format's extension: that usage error comes first (exit 2, untouched).
"$MFSTAT" measure report -o run.mfdb run.mfdb >/dev/null 2>same.err
[ $? = 2 ] && grep -q 'measure writes no .mfdb file' same.err || { no "measure report -o RUN RUN without -f: no format message"; cat same.err; }
[ "$(cksum <run.mfdb)" = "$sum" ] || no "measure report -o RUN RUN without -f: the run file was overwritten"
mkdir -p tabs
cp "$VALID" tabs/functions.csv
"$MFSTAT" measure report --csv tabs tabs/functions.csv >/dev/null 2>same.err
rc=$?
[ $rc = 2 ] || no "--csv DIR whose table is the input: exit $rc, not 2"
grep -q 'writes tabs/functions.csv, which names the input tabs/functions.csv' same.err || { no "--csv over an input: no message"; cat same.err; }
cmp -s tabs/functions.csv "$VALID" || no "--csv DIR overwrote the input tabs/functions.csv"
mkdir -m 700 .mfstat
cp "$VALID" .mfstat/one.mfdb
ln -s one.mfdb .mfstat/latest-profile
"$MFSTAT" measure report -o .mfstat/latest-profile .mfstat/latest-profile >/dev/null 2>same.err
rc=$?
[ $rc = 2 ] || no "measure report -o .mfstat/latest-profile .mfstat/latest-profile: exit $rc, not 2"
cmp -s .mfstat/one.mfdb "$VALID" || no "-o .mfstat/latest-profile overwrote the run it links to"
rm -rf .mfstat tabs run-link.mfdb
# Another file is written as before.
"$MFSTAT" measure report -o other.txt run.mfdb 2>/dev/null && grep -q '^Target:' other.txt || no "measure report -o another file failed"

# ---- --csv DIR: links planted for the table names ---------------------------
mkdir csvd
for t in run functions modules lines threads cache_lines metrics; do ln -s ../victim csvd/$t.csv; done
"$MFSTAT" measure report --csv csvd "$VALID" >/dev/null 2>csv.err || { no "--csv into planted links failed"; cat csv.err; }
victim_ok "--csv DIR"
[ -L csvd/functions.csv ] && no "--csv left the planted link csvd/functions.csv"
[ -f csvd/functions.csv ] || no "--csv did not write csvd/functions.csv"
ls -A csvd | grep -q '^\.' && { no "--csv left temporary files"; ls -A csvd; }

# ---- measuring: needs perf_event_open (software events at least) ----------
probe=$("$MFSTAT" measure probe -f json 2>/dev/null)
if [ -z "$probe" ] || echo "$probe" | grep -q '"profile":{"rung":[0-9]*,"exit":3'; then
	echo "note: perf_event_open refused here: the measuring checks are skipped"
	[ $fail = 0 ] && echo "measure: hostile input refused (measuring checks skipped)"
	exit $fail
fi

# plant DIR FIRST_PID: links to the victim for every run file name of the next
# 120 seconds (a loaded machine can take many seconds to get the run going)
# and 8 pids from FIRST_PID (the run's own pid is FIRST_PID), and for
# latest-profile.
plant() {
	python3 - "$1" "$2" <<'EOF' 2>/dev/null && return
import os, sys, time
d, pid0 = sys.argv[1], int(sys.argv[2])
now = int(time.time())
for s in range(now, now + 120):
    ts = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(s))
    for pid in range(pid0, pid0 + 8):
        os.symlink('../victim', '%s/profile-%s-%d.mfdb' % (d, ts, pid))
EOF
	local now s pid ts
	now=$(date +%s)
	for s in $(seq "$now" $((now + 119))); do
		ts=$(date -u -d "@$s" +%Y%m%dT%H%M%SZ)
		for pid in $(seq "$2" $(($2 + 7))); do
			ln -s ../victim "$1/profile-$ts-$pid.mfdb"
		done
	done
}

# Links for the very pid the run gets (the subshell's, kept by exec) and the next ones.
mkdir -m 700 .mfstat
ln -s ../victim .mfstat/latest-profile
(
	plant .mfstat $BASHPID
	exec "$MFSTAT" measure profile -o report.txt -- sh -c 'echo ran >ran'
) 2>planted.err
rc=$?
[ $rc = 0 ] || { no "measure profile beside planted links exited $rc"; cat planted.err; }
victim_ok "run file names planted for the next seconds and pids"
[ -f ran ] || no "the program did not run"
db=$(sed -n 's/^Database: *//p' report.txt)
case "$db" in
.mfstat/profile-*-[0-9]*-[0-9]*.mfdb) ;;
*) no "the run was not saved under a fresh name beside the planted one: '$db'"; cat planted.err ;;
esac
[ -f "$db" ] && [ ! -L "$db" ] || no "the run file $db is not a regular file"
[ "$(stat -c %a "$db" 2>/dev/null)" = 600 ] || no "the run file $db is not mode 600 ($(stat -c %a "$db" 2>/dev/null))"
[ "$(readlink .mfstat/latest-profile)" = "${db#.mfstat/}" ] ||
	no "latest-profile does not point at the new run ($(readlink .mfstat/latest-profile))"
"$MFSTAT" measure report .mfstat/latest-profile >/dev/null 2>lr.err || { no "latest-profile does not re-report"; cat lr.err; }
ls -A .mfstat | grep -q '^\.latest' && { no "a temporary latest link was left"; ls -A .mfstat; }

# .mfstat a symbolic link (to a directory the attacker filled): refused before the program runs.
rm -rf .mfstat ran
mkdir attacker
ln -s attacker .mfstat
plant attacker $$
n=$(ls attacker | wc -l)
"$MFSTAT" measure profile -o report2.txt -- sh -c 'echo ran >ran' 2>symdir.err
rc=$?
[ $rc = 2 ] || no "a .mfstat that is a symbolic link gave exit $rc, not 2"
grep -q '\.mfstat is a symbolic link' symdir.err || { no "no message for a .mfstat symbolic link"; cat symdir.err; }
[ -f ran ] && no "the program ran although .mfstat was refused"
[ "$(ls attacker | wc -l)" = "$n" ] || no "something was written into the linked directory"
victim_ok "a .mfstat that is a symbolic link"

# .mfstat writable by others, or someone else's: refused.
rm -f .mfstat ran
mkdir -m 777 .mfstat
chmod 777 .mfstat
"$MFSTAT" measure profile -o /dev/null -- sh -c 'echo ran >ran' 2>w.err
rc=$?
[ $rc = 2 ] || no "a .mfstat writable by others gave exit $rc, not 2"
grep -q '\.mfstat can be written by others' w.err || { no "no message for a .mfstat writable by others"; cat w.err; }
[ -f ran ] && no "the program ran although .mfstat was refused"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chmod 700 .mfstat
	chown nobody .mfstat
	"$MFSTAT" measure profile -o /dev/null -- true 2>o.err
	rc=$?
	[ $rc = 2 ] || no "a .mfstat of another user gave exit $rc, not 2"
	grep -q "\.mfstat belongs to uid $(id -u nobody)" o.err || { no "no message for another user's .mfstat"; cat o.err; }
fi
rm -rf .mfstat

# ---- -d FILE (issue 25): an existing FILE only with --force, never the program ----
# A symbolic link at FILE: an existing file, refused before the program runs; never followed.
rm -f ran
ln -s victim d.mfdb
"$MFSTAT" measure profile -d d.mfdb -o d.txt -- sh -c 'echo ran >ran' 2>d.err
rc=$?
[ $rc = 2 ] || { no "-d onto a link exited $rc, not 2"; cat d.err; }
victim_ok "-d FILE a symbolic link"
[ -L d.mfdb ] || no "-d onto a link: the link was replaced"
[ -f ran ] && no "-d onto a link: the program ran"
grep -q 'd.mfdb exists (a symbolic link, which is never followed): refusing to replace it' d.err || { no "-d onto a link: no message"; cat d.err; }
# An existing file: refused, exit 2, nothing run, the file as it was.
echo old >mine.mfdb
chmod 644 mine.mfdb
cp mine.mfdb mine.orig
"$MFSTAT" measure profile -d mine.mfdb -o /dev/null -- sh -c 'echo ran >ran' 2>e.err
rc=$?
[ $rc = 2 ] || { no "-d over an existing file without --force exited $rc, not 2"; cat e.err; }
grep -q 'mine.mfdb exists: refusing to replace it (give --force' e.err || { no "-d over an existing file: no message"; cat e.err; }
cmp -s mine.mfdb mine.orig || no "-d over an existing file without --force changed it"
[ -f ran ] && no "-d over an existing file without --force: the program ran"
# A failed run (the program cannot be run) leaves what was there: the file with --force, nothing
# without; and no temporary file.
: >f.err
before=$(ls -A)
"$MFSTAT" measure profile -d mine.mfdb --force -o /dev/null -- ./no-such-program 2>f.err
rc=$?
[ $rc = 2 ] || { no "--force, a program that cannot run: exit $rc, not 2"; cat f.err; }
cmp -s mine.mfdb mine.orig || no "--force: a failed run changed -d FILE"
"$MFSTAT" measure profile -d new.mfdb -o /dev/null -- ./no-such-program 2>/dev/null
[ -e new.mfdb ] && no "a failed run left its new -d FILE"
[ "$(ls -A)" = "$before" ] || { no "a failed run left files behind"; diff <(echo "$before") <(ls -A); }
# --force: replaced once the run is saved, mode 0600 whatever it was, and it re-reports.
"$MFSTAT" measure profile -d mine.mfdb --force -o /dev/null -- true 2>/dev/null || no "-d FILE --force over an existing file failed"
[ "$(stat -c %a mine.mfdb)" = 600 ] || no "-d FILE --force is not mode 600 ($(stat -c %a mine.mfdb))"
"$MFSTAT" measure report mine.mfdb >/dev/null 2>&1 || no "-d FILE --force over an old file does not re-report"
ls -A | grep -q '\.tmp$' && { no "--force left a temporary file"; ls -A; }
# --force onto a link: the link itself is replaced, its target untouched.
"$MFSTAT" measure profile -d d.mfdb --force -o /dev/null -- true 2>/dev/null || no "-d LINK --force failed"
victim_ok "-d LINK --force"
[ -f d.mfdb ] && [ ! -L d.mfdb ] || no "-d LINK --force: the link was not replaced by the run file"
# -d naming the program: refused even with --force, the program intact.
printf '#!/bin/sh\necho ran >ran\n' >prog.sh
chmod +x prog.sh
cp prog.sh prog.orig
for force in "" --force; do
	"$MFSTAT" measure profile -d ./prog.sh $force -o /dev/null -- ./prog.sh 2>p.err
	rc=$?
	[ $rc = 2 ] || { no "-d ./prog.sh $force -- ./prog.sh exited $rc, not 2"; cat p.err; }
	cmp -s prog.sh prog.orig || no "-d ./prog.sh $force: the program was overwritten"
	[ -f ran ] && no "-d ./prog.sh $force: the program ran"
done
grep -q 'is the program ./prog.sh: refusing to overwrite it, even with --force' p.err || { no "-d PROGRAM: no message"; cat p.err; }
# Found through PATH, as execvp finds it.
PATH=$PWD:$PATH "$MFSTAT" measure profile -d prog.sh --force -o /dev/null -- prog.sh 2>p.err
rc=$?
[ $rc = 2 ] && cmp -s prog.sh prog.orig || { no "-d prog.sh --force -- prog.sh (through PATH) exited $rc"; cat p.err; }
# -o naming the -d FILE, and -o the new run through latest-profile: refused, the run file kept.
"$MFSTAT" measure profile -d same.mfdb -o same.mfdb -- true 2>s.err
rc=$?
[ $rc = 2 ] && [ ! -e same.mfdb ] || { no "-d F -o F exited $rc"; cat s.err; }
mkdir -m 700 .mfstat
"$MFSTAT" measure profile -o .mfstat/latest-profile -- true 2>l.err
rc=$?
[ $rc = 2 ] || { no "measure profile -o .mfstat/latest-profile exited $rc, not 2"; cat l.err; }
"$MFSTAT" measure report .mfstat/latest-profile >/dev/null 2>&1 || no "-o .mfstat/latest-profile destroyed the run just saved"
rm -rf .mfstat

[ $fail = 0 ] && echo "measure: planted links, unsafe .mfstat and hostile run files all refused or sidestepped"
exit $fail
