#!/bin/bash
# Subtype 2 in VBS blocks with spanned records: differenced, the baseline and lost data counted.
"$MFSTAT" report --by system,interval -f csv ../data/small-s2.vbs
"$MFSTAT" report --by system ../data/small-s2.vbs | tail -6
