#!/bin/sh
# A fleet, from guest boots: the boots that Debian 12 as installed saved
# on the disks of three machines (installed, installed-ident and the
# four boots of installed-keep; scripts/check.mk, scripts/keep.sh), each
# copied out as an administrator's rsync would, learned together by the
# host's umhcap: learn --from prints the table, and its first line must
# say three machines.  KTAP on standard output.
#
#   fleet.sh DIR    DIR/<machine>/boots, one per machine
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: fleet.sh DIR"
umhcap=$TOP/umhcap/umhcap
[ -x "$umhcap" ] || die "no $umhcap; run 'make -C umhcap'"
# Each machine by its directory's name, as the administrator's copies
cd "$1"
set --
for m in installed installed-ident installed-keep; do
	[ -d "$m/boots" ] || die "machine $m saved no boots ($PWD/$m/boots)"
	set -- "$@" --from "$m"
done
# KTAP, as scripts/ktap.c counts it: the table as comments, then the
# machines the first line names.
echo "TAP version 13"
echo "1..2"
rc=0
out=$("$umhcap" learn "$@") || rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
if [ $rc = 0 ]; then
	echo "ok 1 umhcap learn --from over the saved boots of three guest machines"
else
	echo "not ok 1 umhcap learn --from over the saved boots of three guest machines: exit $rc"
fi
first=$(printf '%s\n' "$out" | sed -n 1p)
case $first in
"learned from 3 machines: "*)
	echo "ok 2 it learned from three machines: $first" ;;
*)
	echo "not ok 2 it learned from three machines: $first" ;;
esac
