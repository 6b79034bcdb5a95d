#!/bin/bash
# Usage errors: no inputs, standard input, -j, an unknown verb.
"$MFSTAT" db import x.db; echo "exit $?"
"$MFSTAT" db import x.db -; echo "exit $?"
"$MFSTAT" db import -j 2 x.db a.csv; echo "exit $?"
"$MFSTAT" db imprt x.db; echo "exit $?"
"$MFSTAT" db; echo "exit $?"
