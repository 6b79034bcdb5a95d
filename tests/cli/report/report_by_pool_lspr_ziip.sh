#!/bin/bash
# cpus counts distinct (system, LPAR, CPU): 4 GCP engines.  The GCP group has an LSPR class;
# the zIIP-only group has none (n/a in text, null in JSON).
"$MFSTAT" report --by pool ../data/z16-two-pools.csv
"$MFSTAT" report --by pool -f json ../data/z16-two-pools.csv
