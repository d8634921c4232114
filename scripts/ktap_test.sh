#!/bin/sh
# ktap's own tests, as KTAP on stdout: each directory of scripts/ktap-tests is
# a boot (tests.log, console.log, expected-skips) and its file "expect"
# holds ktap's last line and its exit status.
#
#   ktap_test.sh KTAP
set -eu
[ $# -eq 1 ] || { echo "usage: ktap_test.sh KTAP" >&2; exit 2; }
ktap=$1
T=$(cd "$(dirname "$0")/ktap-tests" && pwd)
echo "TAP version 13"
echo "1..$(ls "$T" | wc -l)"
n=0
for d in "$T"/*/; do
	n=$((n + 1))
	name=$(basename "$d")
	rc=0
	out=$("$ktap" "$d") || rc=$?
	last=$(echo "$out" | tail -n 1)
	got=$(printf '%s\nexit %s' "$last" "$rc")
	if [ "$got" = "$(cat "$d/expect")" ]; then
		echo "ok $n ktap $name"
	else
		echo "$got" | sed 's/^/# got: /'
		sed 's/^/# expected: /' "$d/expect"
		echo "not ok $n ktap $name"
	fi
done
