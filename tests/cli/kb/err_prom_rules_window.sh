#!/bin/bash
"$MFSTAT" metrics --prometheus-rules --window 5x
