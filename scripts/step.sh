#!/bin/sh
# One step of a counted run (scripts/check.mk): run it, say when it starts
# and ends and how long it took, and count it as a result of its own in
# $R/steps, so that a step that fails outright is counted too.
#
#   step.sh [--needed] [--out FILE] NAME COMMAND...
#
# R is the results directory (the environment's UMHCAP_RESULTS).  FILE
# gets the command's standard output (the KTAP of a step that prints it).
# A step's failure is counted and the run goes on, except with --needed:
# then the step fails, and with it every step that depends on it (make
# runs none of them; scripts/check.sh counts them as not run).
set -eu
. "$(dirname "$0")/lib.sh"

needed=
outfile=
while :; do
	case ${1:-} in
	--needed) needed=1 ;;
	--out) outfile=${2:-}; shift ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 2 ] || die "usage: step.sh [--needed] [--out FILE] NAME COMMAND..."
R=${UMHCAP_RESULTS:?}
name=$1
shift
mkdir -p "$R/steps"
[ -z "$outfile" ] || mkdir -p "$(dirname "$outfile")"

printf '[%s] ---- %s: started\n' "$(date +%H:%M:%S)" "$name" >&2
s=$(date +%s)
rc=0
if [ -n "$outfile" ]; then
	"$@" >"$outfile" || rc=$?
else
	"$@" || rc=$?
fi
t=$(($(date +%s) - s))
# One short line each, appended: writers side by side do not mix lines.
echo "$name $t s" >>"$R/times"
if [ $rc = 0 ]; then
	echo "ok step $name" >>"$R/steps/body"
	printf '[%s] ---- %s: ok, %d s\n' "$(date +%H:%M:%S)" "$name" "$t" >&2
else
	echo "not ok step $name: exit $rc" >>"$R/steps/body"
	printf '[%s] ---- %s: FAILED (exit %d), %d s\n' "$(date +%H:%M:%S)" "$name" "$rc" "$t" >&2
fi
echo "$name" >>"$R/steps/ran"
[ -z "$needed" ] || exit $rc
exit 0
