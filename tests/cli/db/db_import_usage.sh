#!/bin/bash
# Usage errors of db import: no inputs, standard input, -j out of range or not a number.
"$MFSTAT" db import x.db; echo "exit $?"
"$MFSTAT" db import x.db -; echo "exit $?"
"$MFSTAT" db import -j 0 x.db a.csv; echo "exit $?"
"$MFSTAT" db import --jobs abc x.db a.csv; echo "exit $?"
"$MFSTAT" db import -j -1 x.db a.csv; echo "exit $?"
