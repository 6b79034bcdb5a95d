#!/bin/bash
# A long option without its value names the option as typed; exit 2.
"$MFSTAT" report --machine
