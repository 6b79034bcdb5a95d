#!/bin/bash
# Prose is not perf stat output, even when it quotes perf's header or its counts (issue 30):
# "not recognised", naming the file, exit 1.
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cat > "$d/notes.md" <<'TEXT'
# Notes on the run

We ran perf stat on the box; the Performance counter stats looked fine:

    3,000,000      CPU_CYCLES
    1,000,000      INSTRUCTIONS

and 0.1 seconds time elapsed.
TEXT
cd "$d" || exit 9
"$MFSTAT" report notes.md
echo "exit $?"
printf 'The CPU_CYCLES counter is read once a second.\n12 of them were zero.\n' > prose.txt
"$MFSTAT" report prose.txt
echo "exit $?"
# This repository's notes on its perf stat examples, which quote them.
"$MFSTAT" report "$OLDPWD/../data/perf/README.md" 2>&1 | sed "s|$OLDPWD/||"
echo "exit ${PIPESTATUS[0]}"
# Real perf stat output is still taken.
printf ' Performance counter stats for '"'"'true'"'"':\n\n         3,000,000      CPU_CYCLES\n         1,000,000      INSTRUCTIONS\n\n       0.1 seconds time elapsed\n' > perf.txt
"$MFSTAT" report -q --machine z16 --cpu-mhz 5200 perf.txt >/dev/null
echo "perf.txt: exit $?"
