#!/bin/sh
# Install and keep: umhcap's package on Debian 12 as installed, across two
# boots of one disk, as an administrator would use it.
#
#   keep.sh BZIMAGE DISK RESULTS
#
# DISK (scripts/installed.sh) has umhcap installed with dpkg -i, and its
# umhcap-save.service enabled.  It is copied to keep.ext4 beside it,
# which both boots write to, in turn:
#
#  1. RESULTS/installed-keep1: the helpers do their jobs with open bounds
#     but one, held back; 'umhcap boot --grub' writes the learned bounds
#     to /etc/default/grub.d/umhcap.cfg; umhcap-save.service saves the
#     boot's record under /var/lib/umhcap at shutdown.
#  2. The file is read from the disk (debugfs) and checked to be nothing
#     but additions to GRUB_CMDLINE_LINUX_DEFAULT (which Debian's
#     10_linux leaves off the recovery entries), then sourced as
#     update-grub sources it: what it adds is boot 2's command line.
#  3. RESULTS/installed-keep2: every helper bounded from the first, the
#     learned record merged with boot 1's, the jobs done, the one held
#     back refused, and the refusal in 'journalctl -k'.
#
# The guest judges each boot (guest/installed_test.c, UMH_INSTALLED=keep1
# and keep2); this script fails if the file is missing or malformed, or
# boot 1 saved no record.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: keep.sh BZIMAGE DISK RESULTS"
kernel=$1 disk=$2 results=$3
CFG=/etc/default/grub.d/umhcap.cfg
BOOTS=/var/lib/umhcap/boots
command -v debugfs >/dev/null || die "debugfs missing; run 'make deps'"
[ -f "$disk" ] || die "no disk at $disk; run 'installed.sh image'"

copy=$(dirname "$disk")/keep.ext4
rm -f "$copy"
cp --sparse=always "$disk" "$copy"
# $1: the boot's name; the rest, its kernel parameters.
boot() {
	name=$1
	shift
	BOOT_WRITE=1 "$TOP/scripts/boot.sh" --disk "$kernel" "$copy" \
		"$results/$name" trace_event=umh:umh_exec,umh:umh_capable \
		UMH_REAL_WAIT=30 "$@"
}

# $1: a path on the copy; its contents on stdout ("" if absent).
disk_cat() {
	debugfs -R "cat $1" "$copy" 2>/dev/null
}

boot installed-keep1 UMH_INSTALLED=keep1
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
params=$(env -i sh -c 'GRUB_CMDLINE_LINUX_DEFAULT=; . "$1"; echo $GRUB_CMDLINE_LINUX_DEFAULT' sh "$cfg")
[ -n "$params" ] || die "$CFG adds nothing to the command line"
step "boot 2's bounds, as update-grub reads them: $params"

# shellcheck disable=SC2086
boot installed-keep2 $params UMH_INSTALLED=keep2
