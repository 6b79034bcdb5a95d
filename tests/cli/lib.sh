# SPDX-License-Identifier: MIT
# Helpers sourced by the golden CLI tests (run from tests/cli/): `. ./lib.sh`.

# utf8_ok FILE: prints "valid UTF-8" or "NOT valid UTF-8" (python3's decoder, else iconv).
utf8_ok() {
	if command -v python3 >/dev/null; then
		python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1" 2>/dev/null
	else
		iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
	fi && echo "valid UTF-8" || echo "NOT valid UTF-8"
}
