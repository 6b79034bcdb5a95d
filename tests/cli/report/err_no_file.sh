#!/bin/bash
# No FILE with standard input a terminal (script gives it one): the usage error, no wait for typing.
# (With standard input not a terminal, report reads it: see stdin_implicit.)
script -qec '"$MFSTAT" report -f json' /dev/null | tr -d '\r'
exit "${PIPESTATUS[0]}"
