#!/bin/sh
# The gate on repeated paragraphs (scripts/paragraphs.c) on texts whose
# verdict is known, then on the series itself, as KTAP on stdout: each
# directory of scripts/paragraphs-tests holds the texts of one case, and
# its file "expect" the results that must fail and the gate's exit status.
#
#   paragraphs_test.sh PARAGRAPHS PATCHES
set -eu
[ $# -eq 2 ] || { echo "usage: paragraphs_test.sh PARAGRAPHS PATCHES" >&2; exit 2; }
gate=$1 patches=$2
T=$(cd "$(dirname "$0")/paragraphs-tests" && pwd)
echo "TAP version 13"
echo "1..$(($(ls "$T" | wc -l) + 1))"
n=0
for d in "$T"/*/; do
	n=$((n + 1))
	name=$(basename "$d")
	rc=0
	# shellcheck disable=SC2046
	out=$("$gate" $(ls -d "$d"* | grep -v '/expect$')) || rc=$?
	got=$(printf '%s\n' "$out" | grep '^not ok' || true)
	got=$(printf '%s\nexit %s' "$got" "$rc" | sed '/^$/d')
	if [ "$got" = "$(cat "$d/expect")" ]; then
		echo "ok $n paragraphs $name"
	else
		echo "$got" | sed 's/^/# got: /'
		sed 's/^/# expected: /' "$d/expect"
		echo "not ok $n paragraphs $name"
	fi
done
# The series: each message, and the cover letter as 'make export' writes
# it, says each paragraph once, in one text and across them.
n=$((n + 1))
rc=0
out=$("$gate" "$patches"/0*.patch) || rc=$?
printf '%s\n' "$out" | grep -v '^ok\|^TAP\|^1\.\.' | sed 's/^\([^#]\)/# \1/' || true
if [ $rc = 0 ]; then
	echo "ok $n the series' messages and cover letter say each paragraph once"
else
	echo "not ok $n the series' messages and cover letter say each paragraph once"
fi
