#!/bin/bash
# The recording rules of a z16 over a 2-minute window, as Prometheus loads them.
"$MFSTAT" metrics --prometheus-rules --machine z16 --window 2m
