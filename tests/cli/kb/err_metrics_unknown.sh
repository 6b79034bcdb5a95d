#!/bin/bash
"$MFSTAT" metrics NO_SUCH_METRIC
echo "exit $?"
"$MFSTAT" metrics L15P --machine z16
echo "exit $?"
# The nearest names when the name is no metric; the families that define it when it is one elsewhere.
"$MFSTAT" metrics rnii
echo "exit $?"
"$MFSTAT" metrics --events CPI,w_aiu_cpu --machine z15
echo "exit $?"
"$MFSTAT" metrics --events lsp --machine z15
