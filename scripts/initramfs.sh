#!/bin/sh
# Pack the guest's initramfs with the kernel's usr/gen_init_cpio.
#
#   initramfs.sh SRC OUT.cpio TESTDIR
#
# It holds Debian's static busybox, guest/init, the boot-time helper, the
# dispatcher of CONFIG_STATIC_USERMODEHELPER and everything under TESTDIR
# (installed as /tests).
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: initramfs.sh SRC OUT.cpio TESTDIR"
src=$1 out=$2 tests=$3
busybox=/bin/busybox
[ -x /bin/bash-static ] || die "no /bin/bash-static; run 'make deps' (bash-static)"
[ -x "$busybox" ] || die "no static busybox; run 'make deps' (busybox-static)"
[ -x "$tests/umh/umh_helper" ] ||
	die "$tests/umh/umh_helper missing; build the selftests first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/gen_init_cpio" "$src/usr/gen_init_cpio.c" ||
	die "cannot build gen_init_cpio from $src"

{
	for d in /bin /sbin /dev /proc /sys /tmp /mnt /run /tests; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "file /init $TOP/guest/init 0755 0 0"
	echo "file /sbin/umh-boot-helper $tests/umh/umh_helper 0755 0 0"
	# The static-umh kernel's one helper program (config/matrix).
	echo "file /sbin/umh-dispatch $tests/guest/umh_dispatch 0755 0 0"
	# For the upstream sysctl selftest: bash, and perl and getconf with
	# the libraries they load.
	echo "file /bin/bash /bin/bash-static 0755 0 0"
	for d in /usr /usr/bin /lib /lib/x86_64-linux-gnu /lib64; do
		echo "dir $d 0755 0 0"
	done
	echo "slink /usr/bin/env /bin/busybox 0777 0 0"
	# perl-base: the modules of Debian's perl (strict, IO::Handle, ...).
	for d in /usr/lib /usr/lib/x86_64-linux-gnu; do
		echo "dir $d 0755 0 0"
	done
	find /usr/lib/x86_64-linux-gnu/perl-base | sort | while read -r f; do
		if [ -d "$f" ]; then
			echo "dir $f 0755 0 0"
		else
			echo "file $f $(readlink -f "$f") 0644 0 0"
		fi
	done
	for f in /usr/bin/perl /usr/bin/getconf \
		 $(elf_libs /usr/bin/perl /usr/bin/getconf); do
		echo "file $f $(readlink -f $f) 0755 0 0"
	done
	(cd "$tests" && find . -mindepth 1 | sort) | while read -r f; do
		f=${f#./}
		if [ -L "$tests/$f" ]; then
			echo "slink /tests/$f $(readlink "$tests/$f") 0777 0 0"
		elif [ -d "$tests/$f" ]; then
			echo "dir /tests/$f 0755 0 0"
		else
			echo "file /tests/$f $tests/$f 0755 0 0"
		fi
	done
} >"$tmp/list"
"$tmp/gen_init_cpio" "$tmp/list" >"$out" ||
	die "gen_init_cpio failed on $tmp/list"
step "packed $(grep -c . "$tmp/list") entries into $out ($(du -k "$out" | cut -f1) KiB)"
