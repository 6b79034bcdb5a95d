#!/bin/bash
# JSON schema 1: both periods, the matched groups with before, after, change and lspr, and the
# groups of one side.
"$MFSTAT" diff -f json --metrics CPI,L1MP,RNI,LPARCPU,AIU_CPU ../data/day-3sys-z15.csv.gz ../data/week-2sys.csv.gz
