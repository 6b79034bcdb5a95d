#!/bin/bash
"$MFSTAT" counters --machine z16 E143
