#!/bin/bash
# Two files, two families (generic and z10) in one run; keys a family does not define stay blank.
"$MFSTAT" report --by system ../data/generic.csv ../data/z10.csv
