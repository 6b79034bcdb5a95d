#!/bin/bash
# Usage errors of db import: no inputs, standard input, -j.
"$MFSTAT" db import x.db; echo "exit $?"
"$MFSTAT" db import x.db -; echo "exit $?"
"$MFSTAT" db import -j 2 x.db a.csv; echo "exit $?"
