# measure itlb|profile with an -o FILE that cannot be written fails before the program runs
# (exit 1, a write error, naming why), whatever the machine can sample: a missing directory, a
# file where a directory is expected, a directory as FILE, /proc.  Root passes permission bits,
# so these are the cases that fail for root too.  No .mfstat is made either.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
touch plain
for o in "$tmp/no/such/dir/r.txt" "$tmp/plain/r.txt" "$tmp" /proc/r.txt; do
	"$MFSTAT" measure profile -o "$o" -- touch ran 2> err
	echo "exit $?: $(sed "s|$tmp|TMP|g" err)"
	[ -e ran ] && echo "FAIL: the program ran"
done
"$MFSTAT" measure itlb -o "$tmp/no/r.json" -- touch ran 2> err
echo "itlb exit $?: $(sed "s|$tmp|TMP|g" err)"
[ -e ran ] && echo "FAIL: the program ran"
[ -e .mfstat ] && echo "FAIL: .mfstat was made"
# -o - (standard output) and a writable place are not refused.
echo "ok paths: $("$MFSTAT" measure profile -o /dev/null --fallback none -s ,,nonesuch -- true 2>&1 | grep -c 'cannot be written')"
