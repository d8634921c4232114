#!/bin/sh
# 'make check': every step of scripts/check.mk, side by side as the
# machine's cores allow, with the results of every step counted by
# scripts/ktap.c.  The last line is "N passed, N failed", on every way
# out: a step that fails, one that never ran, an error here or ^C.
#
#   check.sh            make check
#   check.sh --debian   make debian (scripts/debian.sh): the full lines
#                       of config/matrix (DEBIAN_LINES), through the suite
set -eu
. "$(dirname "$0")/lib.sh"

target=check
R=$UMHCAP_BUILD/results
if [ "${1:-}" = --debian ]; then
	target=debian
	R=$UMHCAP_BUILD/results-debian
fi
S=$TOP/scripts
# The graph of steps.  UMHCAP_CHECK_MK is a test seam: scripts/harness_test.c
# gives a tiny graph of its own, whose steps run through step.sh, to check
# this script's count and its ways out without the kernel builds.
CHECK_MK=${UMHCAP_CHECK_MK:-$S/check.mk}
# Another run's results are not this one's to count, or to remove.
trap 'echo "0 passed, 1 failed (no step ran: see above)"' EXIT
lock_build

rm -rf "$R"
mkdir -p "$R/steps"
: >"$R/steps/body"
: >"$R/times"
t0=$(date +%s)
# fd 3: where the summary goes, whatever a step redirects.
exec 3>&1

# Count what ran, and print the last line: "N passed, N failed".  Steps
# the graph holds that never ran (a step they need failed, or the run was
# cut short) count as failed.
summary() {
	rc=$?
	trap - EXIT INT TERM HUP
	for s in $expected; do
		grep -qx "$s" "$R/steps/ran" 2>/dev/null ||
			echo "not ok step $s: not run (a step it needs failed, or the run stopped)" >>"$R/steps/body"
	done
	[ -s "$R/steps/body" ] || echo "not ok step check: no step ran (exit $rc)" >>"$R/steps/body"
	printf 'TAP version 13\n1..%d\n' "$(wc -l <"$R/steps/body")" \
		>"$R/steps/tests.log"
	awk '{ sub(/^(not )?ok /, "&" NR " "); print }' "$R/steps/body" \
		>>"$R/steps/tests.log"
	step "all steps took $(($(date +%s) - t0)) s, wall:"
	sort -t' ' -k2 -n -r "$R/times" | sed 's/^/  /' >&2
	[ ! -s "$R/accel-used" ] || step "guests ran under $(cat "$R/accel-used")"
	[ ! -f "$R/bench.txt" ] || cat "$R/bench.txt" >&2
	step "what each step proves: $TOP/doc/checks.md"
	if [ -x "$UMHCAP_BUILD/ktap" ]; then
		exec "$UMHCAP_BUILD/ktap" "$R"/*/ >&3
	fi
	echo "0 passed, 1 failed (no scripts/ktap.c to count with)" >&3
	exit 1
}
expected=
trap summary EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# One seed for the fuzz, stress and used boots; set UMHCAP_SEED to replay a run.
UMHCAP_SEED=${UMHCAP_SEED:-$t0}
step "fuzz and stress seed: $UMHCAP_SEED"

# ktap, which counts the results, and accel, which chooses the guests'
# accelerator, with its test; the harness's own test; the gate on the
# series' text.
cc -O2 -Wall -Wextra -o "$UMHCAP_BUILD/ktap" "$S/ktap.c"
cc -O2 -Wall -Wextra -o "$UMHCAP_BUILD/accel" "$S/accel.c"
cc -O2 -Wall -Wextra -o "$UMHCAP_BUILD/accel_test" "$S/accel_test.c"
cc -O2 -Wall -Wextra -o "$UMHCAP_BUILD/harness_test" "$S/harness_test.c"
cc -O2 -Wall -Wextra -o "$UMHCAP_BUILD/paragraphs" "$S/paragraphs.c"

export UMHCAP_RESULTS=$R UMHCAP_SEED
if [ $target = debian ]; then
	DEBIAN_LINES=${DEBIAN_LINES:-$("$S/matrix.sh" list full)}
	[ -n "$DEBIAN_LINES" ] || die "no full line in config/matrix"
	export DEBIAN_LINES
	expected=$(make -s -f "$CHECK_MK" debian-list)
else
	expected=$(make -s -f "$CHECK_MK" list)
fi
step "$(echo "$expected" | wc -w) steps, $JOBS at a time (${JFLAG:-the job slots of the make above})"
# shellcheck disable=SC2086
make -s -k $JFLAG -f "$CHECK_MK" $target || true
# Which accelerator the boots used, as each boot wrote it.
cat "$R"/*/accel 2>/dev/null | grep '^-accel' | sort | uniq -c |
	awk '{ printf "%s%s: %d boots", (NR > 1 ? ", " : ""), $3, $1 } END { print "" }' \
	>"$R/accel-used"
exit 0
