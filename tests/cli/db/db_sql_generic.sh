#!/bin/bash
# The views of the generic family: CPI, PRBSTATE, L1MP per sample, per UTC hour of the samples and over the hour, day and month roll-ups, translated.
"$MFSTAT" db sql --machine generic
