#!/bin/bash
# A family with only one of the workload view's metrics (Linux's generic events: CPI, what
# stat --fallback counts) is one text table, not a table of one CPI column followed by the rest.
# IBM Z families keep their two tables, and --metrics its one table as asked.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/lp.csv" <<'CSV'
system,cpu,machine,interval_start,interval_seconds,cycles,instructions,task_clock,context_switches,cpu_migrations,page_faults
host1,0,linux_perf,2025-03-04T00:00:00Z,10,24000000000,12000000000,9500000000,1200,3,5400
host1,1,linux_perf,2025-03-04T00:00:00Z,10,8000000000,2000000000,4000000000,800,2,100
CSV
"$MFSTAT" report --by system "$tmp/lp.csv"
echo "exit $?"
echo "tables of a z16 report: $("$MFSTAT" report --by system ../data/z16-two-pools.csv | grep -c '^------')"
"$MFSTAT" report --by system --metrics CPI,TASK_MS "$tmp/lp.csv" | sed -n '3,6p'
