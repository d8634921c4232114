#!/bin/sh
# Boot a test kernel under QEMU (TCG) and collect its two serial ports.
#
#   boot.sh BZIMAGE INITRAMFS OUTDIR [KERNEL-PARAMETER...]
#
# OUTDIR/console.log gets the kernel console, OUTDIR/tests.log the KTAP of
# the guest's tests.  The guest powers itself off; a hang is killed after
# BOOT_TIMEOUT seconds (default 900).  With BOOT_INTERACTIVE=1 the console
# is this terminal instead.  QEMU_EXTRA adds QEMU options.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: boot.sh BZIMAGE INITRAMFS OUTDIR [PARAM...]"
kernel=$1 initrd=$2 out=$3
shift 3
[ -r "$kernel" ] || die "no kernel at $kernel; run 'make kernel'"
[ -r "$initrd" ] || die "no initramfs at $initrd"
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 missing; run 'make deps'"

rm -rf "$out"
mkdir -p "$out"
# The kernel's own modules, if it has any (scripts/kernel.sh).
mods=$(dirname "$kernel")/../../../modules.cpio
if [ -f "$mods" ]; then
	cat "$initrd" "$mods" >"$out/initramfs.cpio"
	initrd=$out/initramfs.cpio
fi
append="console=ttyS0 panic=-1 loglevel=7 $*"
echo "$append" >"$out/cmdline"

if [ "${BOOT_INTERACTIVE:-0}" = 1 ]; then
	exec qemu-system-x86_64 -M pc -m 512 -nodefaults -no-reboot \
		-display none -kernel "$kernel" -initrd "$initrd" \
		-append "$append" -serial mon:stdio -serial file:"$out/tests.log"
fi

step "booting $(basename "$out"): $*"
start=$(date +%s)
rc=0
# shellcheck disable=SC2086
timeout --foreground "${BOOT_TIMEOUT:-900}" qemu-system-x86_64 -M pc \
	-m 512 -nodefaults -no-reboot -display none \
	-kernel "$kernel" -initrd "$initrd" -append "$append" \
	-serial file:"$out/console.log" -serial file:"$out/tests.log" \
	${QEMU_EXTRA:-} \
	</dev/null || rc=$?
[ "$rc" -eq 124 ] && echo "# umhcap-harness: guest killed after ${BOOT_TIMEOUT:-900} s" >>"$out/console.log"
step "$(basename "$out") powered off after $(($(date +%s) - start)) s (qemu exit $rc)"
