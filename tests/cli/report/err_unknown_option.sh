#!/bin/bash
"$MFSTAT" report -x ../data/generic.csv
