#!/bin/bash
"$MFSTAT" counters --machine z16 E300
echo "exit $?"
"$MFSTAT" counters NO_SUCH_COUNTER
