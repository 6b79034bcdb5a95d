#!/bin/bash
"$MFSTAT" diff --help
