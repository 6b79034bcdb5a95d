#!/bin/bash
"$MFSTAT" report ../data/no-such-file.csv
