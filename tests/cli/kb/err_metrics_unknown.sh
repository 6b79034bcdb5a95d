#!/bin/bash
"$MFSTAT" metrics NO_SUCH_METRIC
echo "exit $?"
"$MFSTAT" metrics L15P --machine z16
