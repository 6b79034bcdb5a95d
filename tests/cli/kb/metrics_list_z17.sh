#!/bin/bash
"$MFSTAT" metrics --machine z17
