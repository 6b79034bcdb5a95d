#!/bin/bash
# The migration case: a z15 day before, a z16 week after, matched on system and pool (the
# default); SYSC is on the before side only, the AIU metrics on the z16 side only.
"$MFSTAT" diff ../data/day-3sys-z15.csv.gz ../data/week-2sys.csv.gz
