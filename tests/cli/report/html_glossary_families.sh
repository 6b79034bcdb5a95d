#!/bin/bash
# The glossary of -f html describes the families of the page's groups (issue 24: a z16 page
# showed z10's "factor 0.84", "same book" and "beyond L1.5"); with z10 and z16 on one page, an
# entry per family where their definitions differ, and the family of a name only one of them has.
glossary() {
	sed -n '/<dl class="glossary">/,/<\/dl>/p' | grep -o '<dt>.*</dd>' | sed 's/<\/dt><dd>/: /; s/<[^>]*>//g'
}
echo "== a z16 page"
"$MFSTAT" report -q -f html --by system ../data/z16-quoted.csv | glossary
echo "exit ${PIPESTATUS[0]}"
echo "== z10 and z16 on one page: the entries that name their family"
"$MFSTAT" report -q -f html --by system ../data/z10.csv ../data/z16-quoted.csv | glossary | grep -F ', on '
echo "exit ${PIPESTATUS[0]}"
