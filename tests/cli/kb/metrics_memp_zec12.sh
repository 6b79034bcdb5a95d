#!/bin/bash
# zEC12 MEMP includes the derived remote remainder REMOTE_L1M.
"$MFSTAT" metrics MEMP --machine zec12
