#!/bin/bash
# An unknown verb gets the nearest.
"$MFSTAT" db sqll
