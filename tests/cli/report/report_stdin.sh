#!/bin/bash
"$MFSTAT" report --by system,cpu -f csv - < ../data/generic.csv
