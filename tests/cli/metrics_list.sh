#!/bin/bash
"$MFSTAT" metrics
