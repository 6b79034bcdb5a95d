#!/bin/bash
# E145 means something different on every family that has it.
"$MFSTAT" counters E145
