#!/bin/bash
# The machine families with type numbers, version numbers and nominal speeds.
"$MFSTAT" machines
