#!/bin/sh
# 'make debian': a real distribution kernel with the series.  Each "full"
# line of config/matrix (Debian 12's amd64 configuration) is built whole
# from the patched tree, with the modules the guest loads, and boots the
# guest suite of 'make check' less KUnit, which Debian's configuration
# leaves out.  Results go to $UMHCAP_BUILD/results-debian, counted by
# scripts/ktap.c: the last line is "N passed, N failed".
#
#   debian.sh [NAME...]    the full lines named (all if none)
set -eu
. "$(dirname "$0")/lib.sh"

K=$UMHCAP_BUILD/patched
R=$UMHCAP_BUILD/results-debian
S=$TOP/scripts
[ -f "$K/initramfs.cpio" ] && [ -f "$K/initramfs-real.cpio" ] ||
	die "no guest images in $K; run 'make guest'"
names=${*:-$("$S/matrix.sh" list full)}
[ -n "$names" ] || die "no full line in config/matrix"
. "$S/suite.sh"

# A distribution kernel boots more slowly under TCG: each boot may take
# up to 30 minutes before it counts as hung.
export BOOT_TIMEOUT=1800
for cfg in $names; do
	needed "kernel-$cfg" "$S/matrix.sh" kernel "$cfg" >"$R/bzImage.$cfg"
	suite "$cfg" "$(cat "$R/bzImage.$cfg")" 40
done
summary
