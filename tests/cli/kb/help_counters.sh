#!/bin/bash
"$MFSTAT" counters --help
