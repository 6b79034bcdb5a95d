#!/bin/bash
# A metric over counters: the formula with short names and with Linux names, on each family.
"$MFSTAT" metrics TLB1_CPU_MISS_PCT --machine z16
