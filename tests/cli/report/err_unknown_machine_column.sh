#!/bin/bash
# Row 3 names machine z99 (data error, exit 1).
"$MFSTAT" report ../data/err-unknown-machine.csv
