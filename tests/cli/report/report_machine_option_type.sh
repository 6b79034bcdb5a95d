#!/bin/bash
# --machine by type number (3931 = z16 A01).
"$MFSTAT" report --machine 3931 --by system -f csv ../data/z16-nomachine.csv
