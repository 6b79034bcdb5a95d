#!/bin/bash
"$MFSTAT" counters --machine z16
