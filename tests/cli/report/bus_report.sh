#!/bin/bash
# Caliper's bus metric set (family itanium2): per interval and over the day (sum, then divide).
"$MFSTAT" report ../data/itanium2-bus.csv
"$MFSTAT" report --by system -f csv ../data/itanium2-bus.csv
"$MFSTAT" metrics --machine itanium2 AVG_OUTSTAND
