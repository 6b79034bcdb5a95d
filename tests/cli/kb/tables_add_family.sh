#!/bin/bash
# A user adds a family by dropping three files into a --tables directory: a families.tsv row,
# counters/NAME.tsv and metrics/NAME.tsv.  Its metrics are reported, summed then divided.
"$MFSTAT" metrics --tables ../data/tables-newfamily --machine mycpu
"$MFSTAT" report --tables ../data/tables-newfamily --by system ../data/mycpu.csv
# The built-in families are still there.
"$MFSTAT" machines --tables ../data/tables-newfamily | tail -3
# A broken family file names file, line and column.
"$MFSTAT" report --tables ../data/tables-badfamily ../data/mycpu.csv
echo "exit $?"
