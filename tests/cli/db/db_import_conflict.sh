#!/bin/bash
# A copy of a held sample with other counters: both places named, that file rolled back, the
# one before it kept, exit 1.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 9
printf 'system,cpu,pool,machine,interval_start,interval_seconds,B0,B1\nS,0,GCP,3931,2025-01-01T00:00:00Z,60,100,50\n' >a.csv
printf 'system,cpu,pool,machine,interval_start,interval_seconds,B0,B1\nS,0,GCP,3931,2025-01-01T00:00:00Z,60,101,50\n' >b.csv
"$MFSTAT" db import x.db a.csv b.csv
