#!/bin/bash
# An unknown family: a usage error.
"$MFSTAT" db sql --machine z99
