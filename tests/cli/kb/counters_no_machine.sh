#!/bin/bash
# Without --machine: the basic and problem-state counters shared by every family.
"$MFSTAT" counters
