#!/bin/bash
# The views of the generic family: CPI, PRBSTATE, L1MP per sample and per hour, translated.
"$MFSTAT" db sql --machine generic
