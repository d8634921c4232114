#!/bin/sh
# Pack the real Debian helper programs for the guest (guest/real_test.c):
#
#   realhelpers.sh SRC OUT.cpio
#
# kmod's modprobe and systemd-socket-activate from this machine, keyutils
# and systemd-coredump from the .deb files 'make deps' unpacked (never
# installed here), each with the shared libraries it loads, and their
# configuration from guest/real.  Appended to the guest's initramfs, it
# makes them the system's helpers: /sbin/modprobe, /sbin/request-key,
# the core_pattern of Debian's 50-coredump.conf, /sbin/mdev.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: realhelpers.sh SRC OUT.cpio"
src=$1 out=$2
debs=$UMHCAP_BUILD/debs
for d in keyutils systemd-coredump; do
	[ -d "$debs/$d" ] || die "no $debs/$d; run 'make deps'"
done
kc=$debs/keyutils
cd=$debs/systemd-coredump

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/gen_init_cpio" "$src/usr/gen_init_cpio.c" ||
	die "cannot build gen_init_cpio from $src"

# The programs' versions, for the test's output and the measured table.
{
	echo "/sbin/modprobe kmod $(dpkg-query -W -f='${Version}' kmod)"
	echo "/lib/systemd/systemd-coredump systemd-coredump $(dpkg-deb -f "$debs/systemd-coredump.deb" Version)"
	echo "/sbin/request-key keyutils $(dpkg-deb -f "$debs/keyutils.deb" Version)"
	echo "/sbin/mdev busybox-static $(dpkg-query -W -f='${Version}' busybox-static)"
	echo "/sbin/poweroff busybox-static $(dpkg-query -W -f='${Version}' busybox-static)"
} >"$tmp/versions"
# A fixed machine ID: systemd-coredump names it in what it records.
echo 0123456789abcdef0123456789abcdef >"$tmp/machine-id"

# GUEST-PATH HOST-PATH: ELF programs, with their libraries below.
progs="
/sbin/modprobe			$(readlink -f /sbin/modprobe)
/usr/bin/systemd-socket-activate /usr/bin/systemd-socket-activate
/lib/systemd/systemd-coredump	$cd/lib/systemd/systemd-coredump
/sbin/request-key		$kc/sbin/request-key
/bin/keyctl			$kc/bin/keyctl
"
{
	for d in /etc /etc/umhcap /etc/systemd /usr /usr/bin /usr/lib \
		 /usr/lib/sysctl.d /lib /lib/systemd /sbin /bin /run \
		 /var /var/lib /var/lib/systemd; do
		echo "dir $d 0755 0 0"
	done
	echo "dir /var/lib/systemd/coredump 0755 0 0"
	echo "$progs" | awk 'NF { print "file " $1 " " $2 " 0755 0 0" }'
	# Libraries at the paths ldd found them, one directory at a time.
	elf_libs $(echo "$progs" | awk 'NF { print $2 }') >"$tmp/libs"
	sed 's|/[^/]*$||' "$tmp/libs" | sort -u | while read -r d; do
		p=
		for c in $(echo "${d#/}" | tr / ' '); do
			p=$p/$c
			echo "dir $p 0755 0 0"
		done
	done | awk '!seen[$0]++'
	while read -r l; do
		echo "file $l $(readlink -f "$l") 0755 0 0"
	done <"$tmp/libs"
	echo "slink /sbin/mdev /bin/busybox 0777 0 0"
	echo "slink /sbin/poweroff /bin/busybox 0777 0 0"
	echo "file /sbin/umh-release-agent $TOP/guest/real/release-agent 0755 0 0"
	echo "file /etc/request-key.conf $TOP/guest/real/request-key.conf 0644 0 0"
	echo "file /etc/mdev.conf $TOP/guest/real/mdev.conf 0644 0 0"
	echo "file /etc/passwd $TOP/guest/real/passwd 0644 0 0"
	echo "file /etc/group $TOP/guest/real/group 0644 0 0"
	echo "file /etc/machine-id $tmp/machine-id 0444 0 0"
	echo "file /etc/umhcap/real-versions $tmp/versions 0644 0 0"
	echo "file /etc/systemd/coredump.conf $cd/etc/systemd/coredump.conf 0644 0 0"
	echo "file /usr/lib/sysctl.d/50-coredump.conf $cd/usr/lib/sysctl.d/50-coredump.conf 0644 0 0"
} >"$tmp/list"
"$tmp/gen_init_cpio" "$tmp/list" >"$out" ||
	die "gen_init_cpio failed on $tmp/list"
step "packed the real helpers, $(grep -c '^file' "$tmp/list") files, into $out ($(du -k "$out" | cut -f1) KiB)"
