#!/bin/bash
# SPDX-License-Identifier: MIT
# The LPAR view checked by hand: a gensmf dump with --rmf --rmf-busy-factor 1.1 and its CSV
# (--csv, the same counters). From the CSV, awk computes per system, pool and polarity
#   LPARCPU     = sum(B0 / (cpsp * 1e6)) / INTERVAL * 100   (INTERVAL: the group's wall clock,
#                 the distinct intervals' seconds summed)
#   RMF_LPARCPU = 1.1 x LPARCPU                              (SMF70PDT = 1.1 x B0 / CPSP)
# with the polarity of each CPU by gensmf's rule (tools/README.md): per system the GCPs in
# address order, the first floor(g/2) VH, the next VM, the rest VL; the zIIPs, the first VM, the
# rest VL. mfstat report -f csv --by system,pool,polarity must give the same groups and values
# to 0.1. Also with RMF intervals of 1800 s (apportioned by overlap: the same values).
# Usage: lpar_view_check.sh MFSTAT GENSMF
set -u
MFSTAT=$1
GENSMF=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expected CSV: system,pool,polarity,LPARCPU,RMF_LPARCPU (sorted)
expected() {
	awk -F, -v factor=1.1 '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{
		sys = $col["system"]; cpu = $col["cpu"] + 0; pool = $col["pool"]
		st = $col["interval_start"]
		row++; rs[row] = sys; rc[row] = cpu; rp[row] = pool; rst[row] = st
		busy[row] = $col["B0"] / ($col["cpsp"] * 1e6)
		if (!((sys, pool, cpu) in seen)) { seen[sys, pool, cpu] = 1; list[sys, pool] = list[sys, pool] " " cpu; n[sys, pool]++ }
		secs[sys, st] = $col["interval_seconds"]
	}
	END {
		for (r = 1; r <= row; r++) {
			sys = rs[r]; pool = rp[r]; cpu = rc[r]
			# rank of the CPU among its system and pool, in address order
			k = split(list[sys, pool], a, " "); rank = 0
			for (j = 1; j <= k; j++) if (a[j] + 0 < cpu) rank++
			if (pool == "GCP") pol = rank < int(n[sys, pool] / 2) ? "VH" : rank == int(n[sys, pool] / 2) ? "VM" : "VL"
			else pol = rank == 0 ? "VM" : "VL"
			g = sys SUBSEP pool SUBSEP pol
			sum[g] += busy[r]
			if (!((g, rst[r]) in gst)) { gst[g, rst[r]] = 1; wall[g] += secs[sys, rst[r]] }
		}
		for (g in sum) {
			split(g, p, SUBSEP)
			c = sum[g] / wall[g] * 100
			printf "%s,%s,%s,%.4f,%.4f\n", p[1], p[2], p[3], c, c * factor
		}
	}' "$1" | sort
}

# got CSV: the same fields from mfstat report (sorted)
got() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ printf "%s,%s,%s,%.4f,%.4f\n", $col["system"], $col["pool"], $col["polarity"], $col["LPARCPU"], $col["RMF_LPARCPU"] }' "$1" | sort
}

check() { # check NAME GENSMF-OPTIONS...
	local name=$1
	shift
	"$GENSMF" -q "$@" --rmf --rmf-busy-factor 1.1 -o "$tmp/d.smf" --csv "$tmp/d.csv" || { echo "FAIL $name: gensmf"; fail=1; return; }
	if ! "$MFSTAT" report -q -f csv --by system,pool,polarity --metrics LPARCPU,RMF_LPARCPU "$tmp/d.smf" -o "$tmp/r.csv"; then
		echo "FAIL $name: mfstat report"; fail=1; return
	fi
	expected "$tmp/d.csv" >"$tmp/want"
	got "$tmp/r.csv" >"$tmp/got"
	if [ "$(wc -l <"$tmp/want")" != "$(wc -l <"$tmp/got")" ] || [ ! -s "$tmp/want" ]; then
		echo "FAIL $name: groups differ"; diff "$tmp/want" "$tmp/got"; fail=1; return
	fi
	# Same groups in the same order, values within 0.1.
	if ! paste -d, "$tmp/want" "$tmp/got" | awk -F, -v name="$name" '
		{
			if ($1 != $6 || $2 != $7 || $3 != $8) { print "FAIL " name ": group " $1 "," $2 "," $3 " against " $6 "," $7 "," $8; bad = 1; next }
			if ($4 - $9 > 0.1 || $9 - $4 > 0.1) { print "FAIL " name ": " $1 " " $2 " " $3 " LPARCPU " $9 ", by hand " $4; bad = 1 }
			if ($5 - $10 > 0.1 || $10 - $5 > 0.1) { print "FAIL " name ": " $1 " " $2 " " $3 " RMF_LPARCPU " $10 ", by hand " $5; bad = 1 }
		}
		END { exit bad }'; then
		fail=1; return
	fi
	echo "ok $name: $(wc -l <"$tmp/got") groups"
}

check aligned --systems 2 --cpus 6 --ziip 2 --intervals 6
check odd-gcps --systems 3 --cpus 5 --ziip 2 --intervals 4 --family z15
check rmf1800 --systems 2 --cpus 4 --ziip 1 --intervals 8 --rmf-interval-seconds 1800
check jitter --systems 1 --cpus 8 --ziip 3 --intervals 4 --jitter-ms 300
exit $fail
