#!/bin/sh
# Boot the patched guest built by 'make guest' for a person to watch.
#
#   run.sh demo    the demonstration, then power off
#   run.sh shell   an interactive shell on the console
set -eu
. "$(dirname "$0")/lib.sh"

lock_build
K=$UMHCAP_BUILD/patched
kernel=$K/obj/arch/x86/boot/bzImage
case ${1:-} in
demo)
	# With Debian's own helpers (scripts/realhelpers.sh).
	"$TOP/scripts/boot.sh" "$kernel" "$K/initramfs-real.cpio" \
		"$UMHCAP_BUILD/run/demo" kunit.enable=0 umhcap.run=demo
	cat "$UMHCAP_BUILD/run/demo/tests.log"
	;;
shell)
	BOOT_INTERACTIVE=1 exec "$TOP/scripts/boot.sh" "$kernel" \
		"$K/initramfs.cpio" "$UMHCAP_BUILD/run/shell" \
		kunit.enable=0 umhcap.run=shell
	;;
*)
	die "usage: run.sh demo|shell" ;;
esac
