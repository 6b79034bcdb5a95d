#!/bin/bash
# Default text report: groups by system,lpar,pool,interval; GCP groups get an LSPR class, zIIP groups n/a.
"$MFSTAT" report ../data/z16-two-pools.csv
