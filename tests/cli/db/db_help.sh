#!/bin/bash
# The help of db import and db info.
"$MFSTAT" db import --help && "$MFSTAT" db info --help
