#!/bin/sh
# Everything 'make check' runs, in order, with the results of every step
# counted by harness/ktap.  The last line is "N passed, N failed".
set -eu
. "$(dirname "$0")/lib.sh"

K=$UMHCAP_BUILD/patched
R=$UMHCAP_BUILD/results
S=$TOP/scripts
rm -rf "$R"
mkdir -p "$R"
t0=$(date +%s)

cc -O2 -Wall -Wextra -o "$UMHCAP_BUILD/ktap" "$TOP/harness/ktap.c"

kernel=$("$S/kernel.sh" patched "$TOP/config/series.config")
"$S/guest.sh" "$K"

step "umhcap host tests"
mkdir -p "$R/umhcap-host"
make -s -C "$TOP/umhcap" check \
	KSFT_DIR="$K/src/tools/testing/selftests" >"$R/umhcap-host/tests.log" 2>&1 || true

boot() {
	name=$1
	shift
	"$S/boot.sh" "$kernel" "$K/initramfs.cpio" "$R/$name" "$@"
}

# KUnit, and the kselftests of the series with the bounds open at boot.
boot selftests kunit.filter_glob='umh*' \
	umhcap.run=umh/boot_test,umh/bounds_test,umh/purpose_test,umh/trace_test

# Bounds from the command line, applied before the first helper.
B='all:0x1fffffffdff,uevent:0x1ffffdfffff,coredump:0'
boot bootparams kunit.enable=0 \
	usermodehelper.bset=$B usermodehelper.inheritable=$B \
	umhcap.run=umh/params_test,umh/boot_test,umh/trace_test

# Malformed items are reported and skipped; the others still apply.
boot badparams kunit.enable=0 \
	usermodehelper.bset=all:0x1fffffffffe,nosuch:0x1,coredump:zz,,modprobe0x1,uevent:0x1ffffdfffff \
	usermodehelper.inheritable=power:0x,initrd:0x1ff0000ffff \
	umhcap.run=umh/params_test,umh/boot_test

step "all steps took $(($(date +%s) - t0)) s"
exec "$UMHCAP_BUILD/ktap" "$R"/*
