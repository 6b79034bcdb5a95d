#!/bin/bash
"$MFSTAT" metrics --help
