#!/bin/bash
# mfstat db --help and the help of each verb.
"$MFSTAT" db --help && "$MFSTAT" db import --help && "$MFSTAT" db info --help
