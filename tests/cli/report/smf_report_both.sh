#!/bin/bash
# A dump with both subtypes (tools/gensmf.c --subtype both): reported once, from subtype 1, the
# subtype 2 records counted; a zCBP (class 2 with the zCBP flag) is pool ZCBP, left out of the
# LSPR class; an interval with lost MT-diagnostic data keeps its other counters.
"$MFSTAT" report --by system,pool ../data/small-both.smf
echo "exit $?"
"$MFSTAT" smf list ../data/small-both.smf
