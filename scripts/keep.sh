#!/bin/sh
# Install and keep: umhcap's package on Debian 12 as installed, through
# the administrator's whole loop, across four boots of one disk.
#
#   keep.sh KERNEL DISK RESULTS
#
# DISK (scripts/installed.sh) has the kernel package and umhcap's package
# installed with dpkg -i, and umhcap-save.service enabled; KERNEL is the
# file dpkg put in its /boot.  DISK is copied to keep.ext4 beside it,
# which every boot writes to, in turn:
#
#  1. RESULTS/installed-keep1, from KERNEL (the disk has no boot menu
#     yet): the helpers do their jobs with open bounds but one, held
#     back; 'umhcap boot --grub' writes the learned bounds to
#     /etc/default/grub.d/umhcap.cfg, and Debian's grub-mkconfig makes
#     /boot/grub/grub.cfg, as update-grub does; umhcap-save.service saves
#     the boot's record under /var/lib/umhcap at shutdown.
#  2. The file is read from the disk (debugfs) and checked to be nothing
#     but additions to GRUB_CMDLINE_LINUX_DEFAULT (which Debian's
#     10_linux leaves off the recovery entries).
#  3. Each boot after the first is the default entry of the grub.cfg the
#     boot before it made: the kernel it names, read from the disk, with
#     its command line.
#     RESULTS/installed-keep2: every helper bounded from the first, the
#     one held back refused, and counted by 'umhcap refusals'; 'umhcap
#     boot --grub --allow' gives that one capability back.
#     RESULTS/installed-keep3: the job held back is done; 'umhcap boot
#     --remove' undoes boot.
#     RESULTS/installed-keep4: the bounds are open again; 'dpkg --purge
#     umhcap' removes what umhcap wrote.
#
# The guest judges each boot (guest/installed_test.c, UMH_INSTALLED=keepN);
# this script fails if a file is missing or malformed, boot 1 saved no
# record, or a boot menu's default entry is not what the boot before it
# wrote.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: keep.sh KERNEL DISK RESULTS"
kernel=$1 disk=$2 results=$3
CFG=/etc/default/grub.d/umhcap.cfg
MENU=/boot/grub/grub.cfg
BOOTS=/var/lib/umhcap/boots
command -v debugfs >/dev/null || die "debugfs missing; run 'make deps'"
[ -f "$disk" ] || die "no disk at $disk; run 'installed.sh image'"
[ -f "$kernel" ] || die "no kernel at $kernel; run 'installed.sh image'"

copy=$(dirname "$disk")/keep.ext4
rm -f "$copy"
cp --sparse=always "$disk" "$copy"
# $1: the boot's name; $2: its kernel; the rest, its kernel parameters.
# The guest checks that the kernel it runs is the file dpkg put in /boot:
# UMH_KERNEL_SHA256 is the one QEMU boots.
boot() {
	name=$1 image=$2
	shift 2
	BOOT_WRITE=1 "$TOP/scripts/boot.sh" --disk "$image" "$copy" \
		"$results/$name" trace_event=umh:umh_exec,umh:umh_capable \
		UMH_REAL_WAIT=30 "$@" \
		UMH_KERNEL_SHA256="$(sha256sum "$image" | cut -d' ' -f1)"
}

# $1: a path on the copy; its contents on stdout ("" if absent).
disk_cat() {
	debugfs -R "cat $1" "$copy" 2>/dev/null
}

# $1: the boot that made the menu.  Sets $image, the kernel of the menu's
# default entry (the first), read from the disk into RESULTS/$1, and
# $params, that entry's command line.
menu_entry() {
	made=$1
	disk_cat "$MENU" >"$results/$made/grub.cfg"
	[ -s "$results/$made/grub.cfg" ] || die "boot $made left no $MENU on the disk"
	line=$(awk '$1 == "linux" { print; exit }' "$results/$made/grub.cfg")
	[ -n "$line" ] || die "$MENU of boot $made has no linux line"
	# shellcheck disable=SC2086
	set -- $line
	path=$2
	shift 2
	params=$*
	image=$results/$made/$(basename "$path")
	rm -f "$image"
	debugfs -R "dump $path $image" "$copy" 2>/dev/null
	[ -s "$image" ] || die "the default entry of boot $made's $MENU names $path, which the disk lacks"
	step "boot $made's $MENU: its default entry boots $path with: $params"
}

boot installed-keep1 "$kernel" UMH_INSTALLED=keep1
cfg=$results/installed-keep1/umhcap.cfg
disk_cat "$CFG" >"$cfg"
[ -s "$cfg" ] || die "boot 1 left no $CFG on the disk"
debugfs -R "ls -l $BOOTS" "$copy" 2>/dev/null >"$results/installed-keep1/saved" || true
saved=$(awk '$NF ~ /^[0-9a-f-]+$/ && length($NF) == 36 { n++ } END { print n + 0 }' \
	"$results/installed-keep1/saved")
[ "$saved" -eq 1 ] || die "boot 1 saved $saved records under $BOOTS, not 1"
step "boot 1 wrote $CFG and saved its record under $BOOTS"

# Only comments, blank lines and GRUB_CMDLINE_LINUX_DEFAULT=
# "$GRUB_CMDLINE_LINUX_DEFAULT usermodehelper.<name>=<value> ...": this
# machine sources nothing else.
# shellcheck disable=SC2016
bad=$(grep -Ev '^(#.*)?$' "$cfg" |
	grep -Ev '^GRUB_CMDLINE_LINUX_DEFAULT="\$GRUB_CMDLINE_LINUX_DEFAULT( usermodehelper\.[a-z_]+=[A-Za-z0-9_:,]+)+"$' || true)
[ -z "$bad" ] || die "$CFG holds more than bounds: $bad"
# shellcheck disable=SC2016
want=$(env -i sh -c 'GRUB_CMDLINE_LINUX_DEFAULT=; . "$1"; echo $GRUB_CMDLINE_LINUX_DEFAULT' sh "$cfg")
[ -n "$want" ] || die "$CFG adds nothing to the command line"

# Boot 2 is what update-grub made of that file: its bounds, each item.
menu_entry installed-keep1
for item in $want; do
	case " $params " in
	*" $item "*) ;;
	*) die "the default entry of boot 1's $MENU lacks $item, which $CFG adds" ;;
	esac
done
# shellcheck disable=SC2086
boot installed-keep2 "$image" $params UMH_INSTALLED=keep2

# Boot 3: the menu boot 2 made, with the one capability given back.
menu_entry installed-keep2
case " $params " in
*" usermodehelper.bset="*) ;;
*) die "the default entry of boot 2's $MENU has no bounds" ;;
esac
# shellcheck disable=SC2086
boot installed-keep3 "$image" $params UMH_INSTALLED=keep3
# The three boots' records, as a fleet's machine (scripts/fleet.sh):
# boot 4 purges them.
rm -rf "$results/fleet/installed-keep"
mkdir -p "$results/fleet/installed-keep"
debugfs -R "rdump $BOOTS $results/fleet/installed-keep" "$copy" 2>/dev/null

# Boot 4: the menu boot 3 made after 'umhcap boot --remove': no bounds.
menu_entry installed-keep3
case " $params " in
*" usermodehelper."*) die "the default entry of boot 3's $MENU still has bounds: $params" ;;
esac
# shellcheck disable=SC2086
boot installed-keep4 "$image" $params UMH_INSTALLED=keep4
