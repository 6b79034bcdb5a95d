#!/bin/bash
"$MFSTAT" metrics RNI --machine z16
