#!/bin/bash
# The canonical CSV's columns of where the engines ran (what mfstat export writes): a bad value is
# an error naming the file, line and column, and what the column takes.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 9
h=system,interval_start,interval_seconds,cpsp,machine,polarity,lpar_weight,drawer,chip,rmf_busy_seconds,utc_offset_minutes,B0,B1
row() { printf '%s\nSYSA,2025-01-01T00:00:00Z,900,5200,3931,%s,5,6\n' "$h" "$1" >bad.csv; "$MFSTAT" report bad.csv 2>&1; echo "exit $?"; }
row VX,30,0,1,450,120
row VH,-3,0,1,450,120
row VH,30,x,1,450,120
row VH,30,0,1,-2,120
row VH,30,0,1,450,120.5
row vm,30,0,1,450,-300
