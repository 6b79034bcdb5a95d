#!/bin/bash
"$MFSTAT" report -f json
