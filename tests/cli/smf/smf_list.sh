#!/bin/bash
# One line per type 113 record; other records counted by type.
"$MFSTAT" smf list ../data/small-s1.smf ../data/small-s2.vbs
