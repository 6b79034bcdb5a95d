#!/bin/bash
# 2025-02-30 does not exist (the row before uses "2025-03-04 10:00", which is accepted).
"$MFSTAT" report ../data/err-bad-interval-start.csv
