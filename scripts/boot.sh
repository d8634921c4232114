#!/bin/sh
# Boot a test kernel under QEMU and collect its two serial ports.
#
#   boot.sh BZIMAGE INITRAMFS OUTDIR [KERNEL-PARAMETER...]
#   boot.sh --disk BZIMAGE DISK OUTDIR [KERNEL-PARAMETER...]
#
# With --disk, the guest boots from DISK, an ext4 image of a whole system
# (scripts/installed.sh), as its root on a virtio disk, with no
# initramfs.  The boot writes to a snapshot, thrown away at its end: the
# disk stays as it was, and boots may share it; with BOOT_WRITE=1 it
# writes to the disk itself, as a machine's next boot would find it.
# OUTDIR/console.log gets the kernel console, OUTDIR/tests.log the KTAP of
# the guest's tests, OUTDIR/accel the accelerator used and why.  The
# guest powers itself off; a hang is killed after BOOT_TIMEOUT seconds
# (default 900; an interactive boot, 3600).  With BOOT_INTERACTIVE=1 the
# console is this terminal instead.  QEMU_EXTRA adds QEMU options.
#
# KVM is used where it works (scripts/accel.c, then one boot of this
# kernel under KVM that must print its banner in KVM_VERIFY seconds,
# default 30; the answer is kept for the machine in
# $UMHCAP_BUILD/accel.verdict), TCG otherwise.  UMHCAP_ACCEL=tcg or kvm
# chooses; -icount (the bench) is TCG's alone, and takes TCG.
set -eu
. "$(dirname "$0")/lib.sh"

disk=
if [ "${1:-}" = --disk ]; then
	disk=1
	shift
fi
[ $# -ge 3 ] || die "usage: boot.sh [--disk] BZIMAGE INITRAMFS|DISK OUTDIR [PARAM...]"
kernel=$1 initrd=$2 out=$3
shift 3
[ -r "$kernel" ] || die "no kernel at $kernel; run 'make kernel'"
[ -r "$initrd" ] || die "no $([ -n "$disk" ] && echo disk || echo initramfs) at $initrd"
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 missing; run 'make deps'"

rm -rf "$out"
mkdir -p "$out"
# The kernel's own modules, if it has any (scripts/kernel.sh); a disk
# has them installed.
mods=$(dirname "$kernel")/../../../modules.cpio
if [ -z "$disk" ] && [ -f "$mods" ]; then
	cat "$initrd" "$mods" >"$out/initramfs.cpio"
	initrd=$out/initramfs.cpio
fi
append="console=ttyS0 panic=-1 loglevel=7 $*"
[ -z "$disk" ] || append="root=/dev/vda rw $append"
echo "$append" >"$out/cmdline"

case " ${QEMU_EXTRA:-} " in
*" -icount "*) UMHCAP_ACCEL=tcg ;;
esac
accel_choose "$kernel" >"$out/accel"
accel=$(head -n 1 "$out/accel")

# The machine, as positional parameters: timeout runs it.  First its
# memory and what it boots from.
if [ -z "$disk" ]; then
	set -- -m 512 -initrd "$initrd"
else
	case $initrd in *,*) die "a disk path may not hold a comma (QEMU's -drive): $initrd" ;; esac
	snap=on
	[ "${BOOT_WRITE:-0}" != 1 ] || snap=off
	set -- -m 1024 -drive "file=$initrd,format=raw,if=virtio,snapshot=$snap"
fi
# shellcheck disable=SC2086
set -- qemu-system-x86_64 $accel -M pc "$@" -nodefaults -no-reboot \
	-display none -kernel "$kernel" -append "$append" ${QEMU_EXTRA:-}

if [ "${BOOT_INTERACTIVE:-0}" = 1 ]; then
	exec timeout --foreground "${BOOT_TIMEOUT:-3600}" "$@" \
		-serial mon:stdio -serial file:"$out/tests.log"
fi

step "booting $(basename "$out") under $(sed -n 's/^-accel //p' "$out/accel"): $(cat "$out/cmdline")"
start=$(date +%s)
rc=0
timeout --foreground "${BOOT_TIMEOUT:-900}" "$@" \
	-serial file:"$out/console.log" -serial file:"$out/tests.log" \
	</dev/null || rc=$?
[ "$rc" -eq 124 ] && echo "# umhcap-harness: guest killed after ${BOOT_TIMEOUT:-900} s" >>"$out/console.log"
step "$(basename "$out") powered off after $(($(date +%s) - start)) s (qemu exit $rc)"
