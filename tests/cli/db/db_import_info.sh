#!/bin/bash
# An SMF dump and a CSV imported, the dump again (already imported: its hash), then db info.
# Times of the import and paths vary: replaced by T and DIR.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cp ../data/small-both.smf ../data/generic.csv "$t/"
cd "$t" || exit 9
"$MFSTAT" db import -q x.db small-both.smf generic.csv
"$MFSTAT" db import x.db small-both.smf | sed -E 's/on [0-9T:Z-]+\)/on T)/'
echo "exit $?"
"$MFSTAT" db info x.db | sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]+Z  /T  /; s/^(created: ).*/\1T/; s/^(created by: ).*/\1V/'
