#!/bin/bash
"$MFSTAT" frobnicate
