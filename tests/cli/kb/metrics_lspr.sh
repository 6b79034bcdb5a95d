#!/bin/bash
"$MFSTAT" metrics LSPR
