#!/bin/bash
# SPDX-License-Identifier: MIT
# mfstat metrics --prometheus-rules checked by Prometheus's own promtool, for every IBM Z family:
#
# - promtool check rules accepts the rules of each family (--machine F) and of all of them;
# - promtool test rules runs them over input series of every counter of the family on four CPUs
#   of one instance (rate() of counters that grow by fixed increments each minute), and every
#   metric recorded, per CPU and per instance, and the LSPR class must equal what mfstat report
#   computes (-f json) from a counter CSV holding the same per-minute increments: each formula of
#   each family against the C evaluator.  CPU 3 executes no instructions, so every metric that
#   divides by them must be absent there, as report leaves it empty.
#
# promtool 2.42 (Debian's) compares a rule's samples to the expected ones exactly
# (reflect.DeepEqual of the float64 values; no tolerance: fuzzy comparison came in 2025), and
# rates are not bit for bit the C evaluator's quotients, so each check is a PromQL expression
# abs(series - expected) <= bool 1e-9 * |expected| whose value must be 1: the rules equal report
# to a relative 1e-9.
#
# The Grafana dashboard is checked too: valid JSON, every series it reads recorded by the rules of
# a z16, its queries accepted by promtool.
#
# The rules of all families are tested with a second instance whose mfstat_machine_info names
# another family: it must get no metric.  Skipped (77) without promtool or python3.
set -u
MFSTAT=$1
DASHBOARD=$2 # dashboards/mfstat-grafana.json
command -v python3 > /dev/null || { echo "SKIP: python3 not found (it writes the test files)"; exit 77; }
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && echo "keeping $tmp"
fail=0

# The Grafana dashboard: valid JSON, and every series it reads recorded by the rules of a z16
# (the default window), its panels' queries written as rules for promtool to parse below.
"$MFSTAT" metrics --prometheus-rules --machine z16 > "$tmp/dash-z16.yml" || { echo "FAIL: rules of z16"; exit 1; }
python3 -m json.tool "$DASHBOARD" > /dev/null || { echo "FAIL: $DASHBOARD is not valid JSON"; fail=1; }
python3 - "$DASHBOARD" "$tmp/dash-z16.yml" "$tmp/dash-exprs.yml" << 'EOF' || fail=1
import json, re, sys
dash = json.load(open(sys.argv[1]))
recorded = set(re.findall(r"record: (\S+)", open(sys.argv[2]).read()))
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
exprs += [v["query"]["query"] for v in dash["templating"]["list"] if v["type"] == "query"]
used = set(n for e in exprs for n in re.findall(r"instance(?:_cpu)?:mfstat_[a-z0-9_]+:rate[0-9a-z]+", e))
bad = sorted(used - recorded)
if bad:
    sys.exit("FAIL: the dashboard reads series the rules do not record: " + ", ".join(bad))
need = {f"{l}:mfstat_{m}:rate5m" for l in ("instance", "instance_cpu") for m in ("cpi", "lspr_info")}
need |= {f"instance:mfstat_{m}:rate5m" for m in ("l1mp", "rni", "l2p_ratio", "l3p_ratio", "l4lp_ratio", "l4rp_ratio", "memp_ratio")}
if need - used:
    sys.exit("FAIL: the dashboard lacks " + ", ".join(sorted(need - used)))
vars = {v["name"]: v for v in dash["templating"]["list"]}
if vars.get("datasource", {}).get("query") != "prometheus" or "instance" not in vars or dash.get("schemaVersion", 0) < 39:
    sys.exit("FAIL: the dashboard lacks its datasource or instance variable, or is of an old schema")
with open(sys.argv[3], "w") as out:
    out.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, e in enumerate(exprs):
        if e.startswith("label_values("):  # Grafana's, not PromQL: its series
            e = e[len("label_values("):].split(",")[0]
        e = e.replace("$instance", ".*").replace("'", "''")
        out.write(f"      - record: dashboard_query_{i}\n        expr: '{e}'\n")
print(f"ok: dashboard: {len(exprs)} queries over {len(used)} recorded series")
EOF

command -v promtool > /dev/null || { echo "SKIP: promtool not found (Debian package prometheus)"; exit 77; }
[ ! -f "$tmp/dash-exprs.yml" ] || promtool check rules "$tmp/dash-exprs.yml" > "$tmp/check" 2>&1 || { echo "FAIL: the dashboard's queries: promtool check rules"; cat "$tmp/check"; fail=1; }

"$MFSTAT" metrics --prometheus-rules > "$tmp/all.yml" || { echo "FAIL: metrics --prometheus-rules"; exit 1; }
promtool check rules "$tmp/all.yml" > "$tmp/check" 2>&1 || { echo "FAIL: promtool check rules (all families)"; cat "$tmp/check"; fail=1; }
families=$(sed -n "s/^          family: '\(.*\)'$/\1/p" "$tmp/all.yml" | sort -u)
# MFSTAT_PROM_FAMILIES="z16 z10": those families only (debugging, and the ASan run: its other
# tests cover the same code; promtool, not mfstat, is most of this test's time)
families=${MFSTAT_PROM_FAMILIES:-$families}
[ "$(echo "$families" | wc -w)" -ge 8 ] || [ -n "${MFSTAT_PROM_FAMILIES:-}" ] || { echo "FAIL: families in the rules: $families"; fail=1; }

# A window other than 5m names every series after it.
"$MFSTAT" metrics --prometheus-rules --machine z16 --window 1h30m > "$tmp/w.yml" || fail=1
promtool check rules "$tmp/w.yml" > "$tmp/check" 2>&1 || { echo "FAIL: check rules --window 1h30m"; cat "$tmp/check"; fail=1; }
grep -q 'rate(mfstat_cpumf_cpu_cycles_total\[1h30m\])' "$tmp/w.yml" && ! grep -q 'rate5m' "$tmp/w.yml" ||
	{ echo "FAIL: --window 1h30m not applied"; fail=1; }

for fam in $families; do
	"$MFSTAT" metrics --prometheus-rules --machine "$fam" > "$tmp/$fam.yml" || { echo "FAIL: $fam: rules"; fail=1; continue; }
	promtool check rules "$tmp/$fam.yml" > "$tmp/check" 2>&1 || { echo "FAIL: $fam: promtool check rules"; cat "$tmp/check"; fail=1; }
	"$MFSTAT" counters --machine "$fam" > "$tmp/$fam.counters" || { fail=1; continue; }
	"$MFSTAT" metrics --machine "$fam" > "$tmp/$fam.metrics" || { fail=1; continue; }
	# The counter CSV and the input series, from the same increments.
	python3 - "$tmp" "$fam" inputs << 'EOF' || { echo "FAIL: $fam: writing the inputs"; fail=1; continue; }
import sys
tmp, fam = sys.argv[1], sys.argv[2]
counters = []
for line in open(f"{tmp}/{fam}.counters").read().splitlines()[3:]:
    f = line.split()
    if len(f) >= 4 and f[0].isdigit():
        counters.append((int(f[0]), f[2], f[3]))
# Increments per minute of each counter on CPUs 0 to 3: fixed pseudo-random numbers (a linear
# congruential generator seeded per family), so every formula sees different values on each CPU,
# with 1e8 level-1 misses a minute, L1MP from 2 to 8 and the sourcing counters scaled per CPU, so
# the LSPR class differs between CPUs; CPU 3 executes no instructions (B1 = 0, P33 = 0).
seed = sum(ord(c) for c in fam) * 7919
def rnd():
    global seed
    seed = (seed * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return seed >> 33
inc = {}
instr = [5000000000, 2200000000, 1200000000, 0]
scale = [0.05, 1.0, 0.08, 0.6]
ncpu = len(instr)
for cpu in range(ncpu):
    for num, name, _ in counters:
        v = rnd() % 3000000 + 1000
        if num >= 128:
            v = int(v * scale[cpu])
        if num == 0:
            v = 3000000000 + cpu * 900000000   # cycles
        if num == 1:
            v = instr[cpu]
        if num in (2, 4):
            v = 50000000
        if instr[cpu] == 0 and num in (32, 33):
            v = 0
        inc[cpu, name] = v
# The same minute, and twice the counts over two minutes: how each metric scales with the interval.
for file, k in (("csv", 1), ("x2.csv", 2)):
    with open(f"{tmp}/{fam}.{file}", "w") as out:
        out.write("system,cpu,machine,cpsp,interval_seconds," + ",".join(n for _, n, _ in counters) + "\n")
        for cpu in range(ncpu):
            out.write(f"G1,{cpu},{fam},5200,{60 * k}," + ",".join(str(k * inc[cpu, n]) for _, n, _ in counters) + "\n")
with open(f"{tmp}/{fam}.series", "w") as out:
    for inst, family in (("g1", fam), ("g2", "not_" + fam)):
        for cpu in range(ncpu):
            for _, name, cset in counters:
                out.write(f"      - series: 'mfstat_cpumf_{name.lower()}_total{{cpu=\"{cpu}\",set=\"{cset}\",instance=\"{inst}\",job=\"mfstat\"}}'\n")
                out.write(f"        values: '1000+{inc[cpu, name]}x10'\n")
        out.write(f"      - series: 'mfstat_cpumf_cpu_speed_hertz{{instance=\"{inst}\",job=\"mfstat\"}}'\n")
        out.write("        values: '5200000000+0x10'\n")
        out.write(f"      - series: 'mfstat_machine_info{{family=\"{family}\",type=\"0\",instance=\"{inst}\",job=\"mfstat\"}}'\n")
        out.write("        values: '1+0x10'\n")
EOF
	# The metrics of the family, as the KB names them: what report is asked for.
	metrics=$(awk 'NR > 3 && NF { print $1 }' "$tmp/$fam.metrics" | paste -sd,)
	"$MFSTAT" report -f json --by cpu --metrics "$metrics" "$tmp/$fam.csv" > "$tmp/$fam.cpu.json" 2> "$tmp/err" ||
		{ echo "FAIL: $fam: report --by cpu: $(cat "$tmp/err")"; fail=1; continue; }
	"$MFSTAT" report -f json --by "" --metrics "$metrics" "$tmp/$fam.csv" > "$tmp/$fam.all.json" 2> "$tmp/err" ||
		{ echo "FAIL: $fam: report: $(cat "$tmp/err")"; fail=1; continue; }
	"$MFSTAT" report -f json --by cpu --metrics "$metrics" "$tmp/$fam.x2.csv" > "$tmp/$fam.cpu.x2.json" 2> /dev/null &&
		"$MFSTAT" report -f json --by "" --metrics "$metrics" "$tmp/$fam.x2.csv" > "$tmp/$fam.all.x2.json" 2> /dev/null ||
		{ echo "FAIL: $fam: report of twice the counts"; fail=1; continue; }
	for rules in "$fam" all; do
		python3 - "$tmp" "$fam" "$rules" "$DASHBOARD" << 'EOF' || { echo "FAIL: $fam: writing the test of $rules.yml"; fail=1; continue; }
import json, math, re, sys
tmp, fam, rules = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(f"{tmp}/{rules}.yml").read()
recorded = set(re.findall(r"record: (\S+)", text))
lines = open(f"{tmp}/{fam}.metrics").read().splitlines()
head = lines[2]
ucol, rcol = head.index("unit"), head.index("revision")
metrics = []  # (KB name, series name, percent)
for line in lines[3:]:
    if not line.strip():
        break
    name, unit = line[:ucol].strip(), line[ucol:rcol].strip()
    if name == "LSPR":  # the class: an info series of its own
        continue
    pct = unit.startswith("%")
    metrics.append((name, "mfstat_" + name.lower() + ("_ratio" if pct else ""), pct))
fl = f',family="{fam}"' if rules == "all" else ""
sel = f',family="{fam}"' if rules == "all" else ""
tests, checked, left, scaled = [], 0, [], {}
def test(expr, samples):
    tests.append((expr, samples))
for level, src in (("instance_cpu", "cpu"), ("instance", "all")):
    groups = json.load(open(f"{tmp}/{fam}.{src}.json"))["groups"]
    twice = json.load(open(f"{tmp}/{fam}.{src}.x2.json"))["groups"]
    for g, g2 in zip(groups, twice):
        cpu = g["cpu"]
        lab = (f'cpu="{cpu}",' if cpu is not None else "") + 'instance="g1",job="mfstat"' + fl
        for name, series, pct in metrics:
            rec = f"{level}:{series}:rate5m"
            if rec not in recorded:
                if not re.search(rf"# {re.escape(name)} left out: ", text):
                    sys.exit(f"{fam}: {name} is neither recorded nor said to be left out")
                left.append(name)
                continue
            want = g["metrics"].get(name)
            # A count (L1M) grows with the interval: the rule records it per second, report per
            # interval (60 s).  A ratio or a rate (CPI, LPARCPU, TLB_MISS_RATE) does not.
            w2 = g2["metrics"].get(name)
            if want and w2:
                d = round(math.log2(w2 / want))
                if abs(w2 / want - 2 ** d) > 1e-9 * 2 ** d:
                    sys.exit(f"{fam}: {name} does not scale as a power of the interval: {want} {w2}")
                want = want / 60 ** d
                scaled[name] = d
            q = f'{rec}{{instance="g1"' + (f',cpu="{cpu}"' if cpu is not None else "") + "}"
            if want is None:
                test(q, [])
            else:
                tol = abs(want) * 1e-9 if want else 1e-12
                x = f"{q} * 100" if pct else q
                test(f"abs({x} - ({want!r})) <= bool {tol!r}", [(f"{{{lab}}}", 1)])
            checked += 1
        if "LSPR" in g["metrics"]:
            rec = f"{level}:mfstat_lspr_info:rate5m"
            q = f'{rec}{{instance="g1"' + (f',cpu="{cpu}"' if cpu is not None else "") + "}"
            cls = g["metrics"]["LSPR"]
            test(q, [] if cls is None else [(f'{rec}{{class="{cls}",{lab}}}', 1)])
            checked += 1
# The dashboard's LSPR panels over the same series: 1, 2, 3 for LOW, AVERAGE, HIGH.
if rules == fam:
    code = {"LOW": 1, "AVERAGE": 2, "HIGH": 3}
    dash = json.load(open(sys.argv[4]))
    for p in dash["panels"]:
        for t in p["targets"]:
            if "lspr_info" not in t["expr"]:
                continue
            e = t["expr"].replace("$instance", "g1")
            per_cpu = "instance_cpu:" in e
            groups = json.load(open(f"{tmp}/{fam}.{'cpu' if per_cpu else 'all'}.json"))["groups"]
            test(e, [("{" + (f'cpu="{g["cpu"]}",' if per_cpu else "") + 'instance="g1"}', code[g["metrics"]["LSPR"]])
                     for g in groups if g["metrics"]["LSPR"]])
            checked += 1
# The other instance is no machine of this family: nothing recorded for it.
if rules == "all":
    test('count({__name__=~"instance(_cpu)?:mfstat_.*:rate5m",instance="g2"})', [])
with open(f"{tmp}/test-{rules}-{fam}.yml", "w") as out:
    out.write(f"rule_files:\n  - {tmp}/{rules}.yml\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n")
    out.write(open(f"{tmp}/{fam}.series").read())
    out.write("    promql_expr_test:\n")
    for expr, samples in tests:
        out.write(f"      - expr: '{expr}'\n        eval_time: 10m\n        exp_samples:")
        out.write("\n" if samples else " []\n")
        for labels, v in samples:
            out.write(f"          - labels: '{labels}'\n            value: {v}\n")
per_s = ",".join(sorted(n for n, d in scaled.items() if d))
open(f"{tmp}/count-{rules}-{fam}", "w").write(f"{checked} {len(set(left))} {per_s or '-'}\n")
EOF
		if ! promtool test rules "$tmp/test-$rules-$fam.yml" > "$tmp/out" 2>&1; then
			echo "FAIL: $fam: promtool test rules with the rules of $rules.yml:"
			head -c 4000 "$tmp/out"; echo; fail=1
		else
			read -r n left per_s < "$tmp/count-$rules-$fam"
			echo "ok: $fam ($rules.yml): $n values equal report's, $left metrics left out, per second: $per_s"
		fi
	done
done
exit $fail
