#!/bin/bash
"$MFSTAT" metrics --window 5m --machine z16
