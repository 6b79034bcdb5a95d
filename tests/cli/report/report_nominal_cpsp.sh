#!/bin/bash
# No cpsp column: the nominal speed of type 3932 (4600 MHz) is used, with a warning.
"$MFSTAT" report -f json ../data/z16-no-cpsp.csv
