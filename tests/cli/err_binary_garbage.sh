#!/bin/bash
# gzip-like bytes: format detection refuses them; forced with --input csv the NUL byte is shown.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '\037\213\010\000\000\000\000\000\000\003\355\275\007\140\034I\226%%&\057m\312{\177J' > "$tmp/garbage.bin"
cd "$tmp" || exit 99
"$MFSTAT" report garbage.bin
echo "exit $?"
"$MFSTAT" report --input csv garbage.bin
