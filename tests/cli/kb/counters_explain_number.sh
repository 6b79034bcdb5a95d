#!/bin/bash
# 270 = E270 NNPA_HOLD_LOCK on z16 (type 3931 given as machine).
"$MFSTAT" counters --machine 3931 270
