#!/bin/bash
"$MFSTAT" machines z99
