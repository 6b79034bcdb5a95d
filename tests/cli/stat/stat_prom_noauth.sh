#!/bin/bash
# stat -f prom where the crypto counter set is not authorized (authorization 0027): its up is 0
# with the reason, and its counters are absent (not 0); the other sets are counted.
. stat/z16tree.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
z16_tree "$tmp/z16" 0027
MFSTAT_SYSROOT=$tmp/z16 "$MFSTAT" stat -f prom -o "$tmp/m.prom" -- true
echo "exit $?"
grep -E '^mfstat_(up|machine_info)' "$tmp/m.prom"
echo "crypto counters: $(grep -c '^mfstat_cpumf_.*set="crypto"' "$tmp/m.prom")"
echo "basic counters: $(grep -c '^mfstat_cpumf_.*set="basic"' "$tmp/m.prom")"
# Authorized, the crypto set is up and C64 is there.
z16_tree "$tmp/z16b"
MFSTAT_SYSROOT=$tmp/z16b "$MFSTAT" stat -f prom -o - -- true | grep -E '^mfstat_(up\{set="crypto"|cpumf_prng_functions_total)'
