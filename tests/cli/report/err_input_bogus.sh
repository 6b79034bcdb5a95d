#!/bin/bash
"$MFSTAT" report --input json ../data/generic.csv
