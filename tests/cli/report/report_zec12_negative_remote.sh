#!/bin/bash
# zEC12 sourcing counters add up to more than L1M: REMOTE_L1M < 0, MEMP and RNI negative, with
# a warning; the formulas are applied as written and the class follows from them.
"$MFSTAT" report ../data/zec12-negative.csv
