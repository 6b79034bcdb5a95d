#!/bin/bash
"$MFSTAT" --help
