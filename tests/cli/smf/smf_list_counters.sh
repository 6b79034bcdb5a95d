#!/bin/bash
# --counters prints every counter of each record (first 12 lines shown).
"$MFSTAT" smf list --counters ../data/small-s1.smf | head -12
