#!/bin/bash
"$MFSTAT" counters --machine z16 L1D_DIR_WRITES
