#!/bin/bash
"$MFSTAT" metrics --prometheus-rules --machine generic
