# measure diff BEFORE AFTER on two run files of one program (tests/data/mdiff, written by
# test_mdiff with MDIFF_FIXTURE_DIR): caller_a 60 % -> 40 %, caller_b 20 % -> 40 %, old_helper
# (before only) and new_helper in libx.so.1 (after only); text, the same with a summary cutoff
# that leaves rows out, --absolute, csv, json, the difffolded pairs (BEFORE scaled to AFTER's
# total, or raw with --absolute), and -o FILE.
d=../data/mdiff
"$MFSTAT" measure diff $d/before.mfdb $d/after.mfdb; echo "exit $?"
echo "--- --summary-cutoff 25,100,1"
"$MFSTAT" measure diff --summary-cutoff 25,100,1 $d/before.mfdb $d/after.mfdb | sed -n '/^Function Changes/,/^$/p'
echo "--- --absolute"
"$MFSTAT" measure diff --absolute $d/before.mfdb $d/after.mfdb | sed -n '/^Compared/p;/^Function Changes/,/^$/p'
echo "--- -f csv"
"$MFSTAT" measure diff -f csv $d/before.mfdb $d/after.mfdb
echo "--- -f json"
"$MFSTAT" measure diff -f json $d/before.mfdb $d/after.mfdb
echo "--- -f folded"
"$MFSTAT" measure diff -f folded $d/after.mfdb $d/before.mfdb
echo "--- -f folded --absolute"
"$MFSTAT" measure diff -f folded --absolute $d/after.mfdb $d/before.mfdb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "--- -o FILE.json"
"$MFSTAT" measure diff -q -o "$tmp/d.json" $d/before.mfdb $d/after.mfdb; echo "exit $?"
head -c 60 "$tmp/d.json"; echo
