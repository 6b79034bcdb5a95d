#!/bin/bash
# db rollup and db prune on an imported SMF dump: the roll-ups recomputed by hand, a dry run that
# changes nothing, a prune (what each level lost, logged in db info), and their usage errors.
# The prune's own time varies: replaced by T.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cp ../data/small-both.smf ../data/generic.csv "$t/"
cd "$t" || exit 9
"$MFSTAT" db import -q x.db small-both.smf generic.csv
"$MFSTAT" db rollup x.db; echo "exit $?"
"$MFSTAT" db rollup --from 2025-03-04T00:15:00Z --to 2025-03-05T00:00:00Z x.db; echo "exit $?"
"$MFSTAT" db prune -n --keep sample=10m x.db; echo "exit $?"
"$MFSTAT" db prune --keep sample=1w,hour=forever,day=forever x.db; echo "exit $?"
"$MFSTAT" db info x.db | sed -n '/^levels:/,$p' | sed -E 's/on [0-9T:Z-]+$/on T/'
"$MFSTAT" db prune --keep samples=1d x.db; echo "exit $?"
"$MFSTAT" db prune --keep sample=1d,hour=2x x.db; echo "exit $?"
"$MFSTAT" db prune -n --vacuum x.db; echo "exit $?"
"$MFSTAT" db rollup --from yesterday x.db; echo "exit $?"
"$MFSTAT" db rollup x.db y.db; echo "exit $?"
"$MFSTAT" db prune; echo "exit $?"
"$MFSTAT" db prune missing.db; echo "exit $?"
