#!/bin/bash
# No command: usage on stderr, exit 2.
"$MFSTAT"
