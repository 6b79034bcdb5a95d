#!/bin/bash
"$MFSTAT" --version
