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

# Boot 1: KUnit and the kselftests of the series.
"$S/boot.sh" "$kernel" "$K/initramfs.cpio" "$R/selftests" \
	kunit.filter_glob='umh*' umhcap.run=umh/bounds_test,umh/purpose_test

step "all steps took $(($(date +%s) - t0)) s"
exec "$UMHCAP_BUILD/ktap" "$R"/*
