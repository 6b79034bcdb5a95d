#!/bin/bash
# A machine type number selects its family.
"$MFSTAT" machines 2964
