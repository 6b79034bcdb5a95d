#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks that the layers of src/lib use only the layers tests/layers.txt allows:
#  (a) every undefined mf_* symbol of libmfstat_LAYER.a is defined in that
#      archive or in the archive of a layer it may use (nm);
#  (b) every #include "..." of a .c/.h file in src/lib/LAYER/ and of a public
#      header in include/mfstat/LAYER/ names a header of LAYER or of a layer it
#      may use.
# Also: no .c file directly in src/lib/ and no public header directly in
# include/mfstat/ but the umbrella mfstat.h; every folder of either is a layer.
# Usage: layers.sh SOURCE_DIR ARCHIVE_DIR [TABLE]   (TABLE: another table than
# tests/layers.txt, for tests/layers_planted.sh)
set -u
src=${1:?usage: layers.sh SOURCE_DIR ARCHIVE_DIR}
lib=${2:?usage: layers.sh SOURCE_DIR ARCHIVE_DIR}
table=${3:-$src/tests/layers.txt}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "layers: $*" >&2; fail=1; }

layers=$(awk '$1 == "use" { print $2 }' "$table")
# allowed LAYER: the layer itself and the layers it may use
allowed() { awk -v l="$1" '$1 == "use" && $2 == l { for (i = 2; i <= NF; i++) print $i }' "$table"; }
# hdr_layer NAME: the layer of public header mfstat/NAME ("LAYER/x.h"), or nothing.
hdr_layer() {
	case $1 in
	*/*) echo "$layers" | grep -x "${1%%/*}" ;;
	esac
}
is_allowed() { allowed "$1" | grep -qx "$2"; }

for f in "$src"/src/lib/*.c; do
	[ -e "$f" ] && bad "src/lib/${f##*/}: a .c file outside every layer folder"
done
for d in "$src"/src/lib/*/; do
	d=${d%/}; d=${d##*/}
	echo "$layers" | grep -qx "$d" || bad "src/lib/$d/: a folder that is not a layer of tests/layers.txt"
done
for h in "$src"/include/mfstat/*.h; do
	h=${h##*/}
	[ "$h" = mfstat.h ] || bad "include/mfstat/$h: a public header outside every layer folder (include/mfstat/LAYER/)"
done
for d in "$src"/include/mfstat/*/; do
	d=${d%/}; d=${d##*/}
	echo "$layers" | grep -qx "$d" || bad "include/mfstat/$d/: a folder that is not a layer of tests/layers.txt"
done

# (a) symbols
for l in $layers; do
	a=$lib/libmfstat_$l.a
	if [ ! -f "$a" ]; then bad "$a: no archive for layer $l"; continue; fi
	nm -P -g --defined-only "$a" 2>/dev/null | awk 'NF >= 2 && $2 != "U" && $1 ~ /^mf_/ { print $1 }' | sort -u >"$tmp/def_$l"
	nm -P -u "$a" 2>/dev/null | awk '$1 ~ /^mf_/ { print $1 }' | sort -u >"$tmp/und_$l"
done
for l in $layers; do
	[ -f "$tmp/und_$l" ] || continue
	: >"$tmp/ok"
	for u in $(allowed "$l"); do
		[ -f "$tmp/def_$u" ] && cat "$tmp/def_$u" >>"$tmp/ok"
	done
	sort -u "$tmp/ok" -o "$tmp/ok"
	comm -23 "$tmp/und_$l" "$tmp/ok" | while read -r s; do
		where=""
		for o in $layers; do
			grep -qx "$s" "$tmp/def_$o" && where="$where $o"
		done
		echo "layers: libmfstat_$l.a calls $s, defined in${where:- no layer}; $l may use: $(allowed "$l" | tr '\n' ' ')" >&2
		echo x >>"$tmp/symfail"
	done
done
[ -f "$tmp/symfail" ] && fail=1

# (b) includes: FILE LAYER
check_includes() {
	file=$1; l=$2; rel=${file#"$src"/}
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
	sed 's/^\([0-9]*\):.*include[[:space:]]*"\([^"]*\)".*/\1 \2/' |
	while read -r n inc; do
		case $inc in
		mfstat/mfstat.h)
			echo "layers: $rel:$n: includes the umbrella $inc; name the headers it needs" >&2
			echo x >>"$tmp/incfail"; continue ;;
		mfstat/*)
			to=$(hdr_layer "${inc#mfstat/}") ;;
		*/*)
			to=${inc%%/*}
			if ! echo "$layers" | grep -qx "$to"; then
				echo "layers: $rel:$n: $inc is in no layer" >&2
				echo x >>"$tmp/incfail"; continue
			fi ;;
		*)
			if [ -f "${file%/*}/$inc" ]; then to=$l; else
				echo "layers: $rel:$n: $inc is not in ${rel%/*}/ (name its layer folder)" >&2
				echo x >>"$tmp/incfail"; continue
			fi ;;
		esac
		if [ -z "$to" ]; then
			echo "layers: $rel:$n: $inc has no layer in tests/layers.txt" >&2
			echo x >>"$tmp/incfail"
		elif ! is_allowed "$l" "$to"; then
			echo "layers: $rel:$n: $l includes $inc of layer $to; $l may use: $(allowed "$l" | tr '\n' ' ')" >&2
			echo x >>"$tmp/incfail"
		fi
	done
}
for l in $layers; do
	for f in "$src"/src/lib/"$l"/*.[ch]; do
		[ -e "$f" ] && check_includes "$f" "$l"
	done
done
for l in $layers; do
	for h in "$src"/include/mfstat/"$l"/*.h; do
		[ -e "$h" ] && check_includes "$h" "$l"
	done
done
[ -f "$tmp/incfail" ] && fail=1

if [ $fail = 0 ]; then
	echo "layers: $(echo $layers | wc -w) layers, symbols and includes as tests/layers.txt allows"
fi
exit $fail
