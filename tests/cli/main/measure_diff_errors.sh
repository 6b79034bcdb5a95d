# measure diff refuses: not two run files, measuring options, --csv, --children (usage, exit 2);
# a missing or corrupt run file (exit 1, naming it); runs of different measurements (exit 2);
# -o naming an input (exit 2; -f text, as .mfdb is no format's extension); --absolute outside diff (exit 2).
d=../data/mdiff
run() { "$MFSTAT" "$@" 2>&1; echo "exit $?"; }
run measure diff $d/before.mfdb
run measure diff $d/before.mfdb $d/after.mfdb $d/after.mfdb
run measure diff -s 1ms $d/before.mfdb $d/after.mfdb
run measure diff --csv x $d/before.mfdb $d/after.mfdb
run measure diff --children $d/before.mfdb $d/after.mfdb
run measure diff $d/before.mfdb $d/missing.mfdb
run measure diff ../fuzz/corpus/mfdb/bad-element.mfdb $d/after.mfdb
run measure diff $d/before.mfdb $d/itlb.mfdb
run measure diff -f text -o $d/after.mfdb $d/before.mfdb $d/after.mfdb
run measure report --absolute $d/before.mfdb
