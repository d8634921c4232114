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
[ -f "$K/initramfs.cpio" ] && [ -f "$K/initramfs-real.cpio" ] ||
	die "no guest images in $K; run 'make guest'"
DEBIAN_LINES=${*:-$("$TOP/scripts/matrix.sh" list full)}
[ -n "$DEBIAN_LINES" ] || die "no full line in config/matrix"
export DEBIAN_LINES
# The suite's steps and their counting are make check's (scripts/check.mk);
# a distribution kernel boots more slowly under TCG, and each boot may
# take up to 30 minutes before it counts as hung.
exec "$TOP/scripts/check.sh" --debian
