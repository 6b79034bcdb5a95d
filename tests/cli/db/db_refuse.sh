#!/bin/bash
# A file that is not a database is refused and left as it was.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 9
echo "not a database" >text.db
"$MFSTAT" db import text.db ../nothing.csv
echo "exit $?"
cat text.db
"$MFSTAT" db info missing.db
