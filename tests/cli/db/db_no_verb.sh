#!/bin/bash
# db without a verb: a usage error naming the verb there is.
"$MFSTAT" db
