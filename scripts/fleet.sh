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
dir=$1
umhcap=$TOP/umhcap/umhcap
[ -x "$umhcap" ] || die "no $umhcap; run 'make -C umhcap'"
set --
for m in installed installed-ident installed-keep; do
	[ -d "$dir/$m/boots" ] || die "machine $m saved no boots ($dir/$m/boots)"
	set -- "$@" "$dir/$m"
done
"$umhcap" learn --from "$@"
first=$("$umhcap" learn --from "$@" | sed -n 1p)
case $first in
"learned from 3 machines: "*) ;;
*) die "learn --from over three machines said: $first" ;;
esac
