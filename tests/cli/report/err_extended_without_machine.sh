#!/bin/bash
"$MFSTAT" report ../data/err-extended-no-machine.csv
