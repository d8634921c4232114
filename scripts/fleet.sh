#!/bin/sh
# A fleet, from guest boots: the boots that Debian 12 as installed saved
# on the disks of three machines (installed, installed-ident and the
# four boots of installed-keep; scripts/check.mk, scripts/keep.sh), each
# copied out as an administrator's rsync would, learned together by the
# host's umhcap: learn --from prints the table, and its first line must
# say three machines.
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
"$umhcap" learn "$@"
first=$("$umhcap" learn "$@" | sed -n 1p)
case $first in
"learned from 3 machines: "*) ;;
*) die "learn --from over three machines said: $first" ;;
esac
