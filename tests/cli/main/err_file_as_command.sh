#!/bin/bash
# A file where the command goes: mfstat week.smf suggests mfstat report week.smf (issue 30).
"$MFSTAT" ../data/small-s1.smf
# Not a file: the unknown command as before.
"$MFSTAT" no-such-file.smf
