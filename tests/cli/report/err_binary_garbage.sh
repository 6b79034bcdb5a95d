#!/bin/bash
# Binary bytes (an ELF header): format detection refuses them; forced with --input csv the NUL
# byte is shown.  A gzip header followed by garbage is a corrupt gzip file.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000>\000' > "$tmp/garbage.bin"
printf '\037\213\010\000\000\000\000\000\000\003\355\275\007\140\034I' > "$tmp/garbage.gz"
cd "$tmp" || exit 99
"$MFSTAT" report garbage.bin
echo "exit $?"
"$MFSTAT" report --input csv garbage.bin
echo "exit $?"
"$MFSTAT" report garbage.gz
echo "exit $?"
