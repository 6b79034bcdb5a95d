#!/bin/bash
"$MFSTAT" report --by system,bogus ../data/generic.csv
