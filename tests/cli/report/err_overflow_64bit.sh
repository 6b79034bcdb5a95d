#!/bin/bash
# 18446744073709551616 = 2^64, one more than the largest delta.
"$MFSTAT" report ../data/err-overflow.csv
