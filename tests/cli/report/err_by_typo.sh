#!/bin/bash
# A slip in a --by key gets the key it was meant to be (issue 30).
"$MFSTAT" report --by systme ../data/generic.csv
"$MFSTAT" report --by system,lapr,day ../data/generic.csv
