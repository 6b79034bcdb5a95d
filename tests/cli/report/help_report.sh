#!/bin/bash
"$MFSTAT" report --help
