#!/bin/bash
"$MFSTAT" report ../data/empty.csv
