#!/bin/bash
# --version in every command (the version and the knowledge base's IBM formula revision), and
# mfstat help CMD as CMD --help.
for c in "" report diff counters metrics machines "smf list" stat measure; do
	# shellcheck disable=SC2086
	"$MFSTAT" $c --version | head -2
	echo "exit $?"
done
"$MFSTAT" help smf | head -3
"$MFSTAT" help | head -1
