#!/bin/bash
"$MFSTAT" machines --help
