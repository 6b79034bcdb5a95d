#!/bin/bash
"$MFSTAT" report -f xml ../data/generic.csv
