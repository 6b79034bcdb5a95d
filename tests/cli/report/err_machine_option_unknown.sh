#!/bin/bash
# --machine with an unknown family is a usage error (exit 2).
"$MFSTAT" report --machine z99 ../data/generic.csv
