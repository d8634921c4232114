#!/bin/sh
# Build the guest for the kernel tree in DIR ($UMHCAP_BUILD/NAME): the
# static kselftests, the static umhcap, and DIR/initramfs.cpio.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: guest.sh DIR"
lock_build
dir=$1
tests=$dir/tests
# Everything the guest is made of.  A guest whose stamp matches is kept.
stamp=$dir/guest.stamp
inputs=$( {
	cat "$dir/stamp" 2>/dev/null
	(cd "$TOP" && find guest umhcap -type f \( -name '*.[ch]' \
		-o -name Makefile -o -name '*.sh' -o -name init \) | sort |
		xargs cat)
	cat "$TOP"/scripts/guest.sh "$TOP"/scripts/initramfs.sh \
		"$TOP"/scripts/selftests.sh "$TOP"/scripts/realhelpers.sh \
		"$TOP"/scripts/lib.sh "$TOP"/guest/real/*
	dpkg-query -W busybox-static bash-static perl-base libc6 libcap-dev \
		kmod systemd libkeyutils1
	cat "$UMHCAP_BUILD"/debs/*.deb 2>/dev/null | cksum
} | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$inputs" ] &&
   [ -f "$dir/initramfs.cpio" ]; then
	step "the guest in $dir is up to date"
	exit 0
fi
rm -f "$stamp"
rm -rf "$tests"
mkdir -p "$tests/bin"
"$TOP/scripts/selftests.sh" "$dir/src" "$tests" umh
step "building the upstream selftests: capabilities, sysctl"
make -s -C "$dir/src/tools/testing/selftests" TARGETS="capabilities sysctl" \
	O="$dir/upstream-build" CC=gcc LDFLAGS=-static \
	install INSTALL_PATH="$tests/upstream" >/dev/null 2>&1 ||
	die "building the upstream selftests failed; rerun without >/dev/null to see why"
step "building umhcap (static)"
make -s -C "$TOP/umhcap" static >/dev/null ||
	die "building umhcap failed; see the compiler output above"
cp "$TOP/umhcap/umhcap.static" "$tests/bin/umhcap"
step "building the umhcap guest tests"
mkdir -p "$tests/umhcap"
make -s -C "$TOP/umhcap" guest-tests \
	KSFT_DIR="$dir/src/tools/testing/selftests" >/dev/null ||
	die "building the umhcap guest tests failed; see above"
cp "$TOP/umhcap/tests/guest_test" "$TOP/umhcap/tests/guest_fallback_test" \
	"$tests/umhcap/"
step "building the guest's own programs (guest/)"
make -s -C "$TOP/guest" KSFT_DIR="$dir/src/tools/testing/selftests" \
	OUTPUT="$tests/guest" >/dev/null ||
	die "building guest/ failed; see the compiler output above"
# The guest tests start the selftests' recording helper as their own.
ln -sf ../umh/umh_helper "$tests/guest/umh_helper"
cp "$TOP/guest/demo.sh" "$tests/"
cp "$TOP/guest/upstream.sh" "$tests/upstream/run_all.sh"
"$TOP/scripts/initramfs.sh" "$dir/src" "$dir/initramfs.cpio" "$tests"
# The same guest with the real Debian helpers as the system's helpers.
"$TOP/scripts/realhelpers.sh" "$dir/src" "$dir/real.cpio"
cat "$dir/initramfs.cpio" "$dir/real.cpio" >"$dir/initramfs-real.cpio"
echo "$inputs" >"$stamp"
