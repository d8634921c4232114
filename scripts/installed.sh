#!/bin/sh
# Debian 12 as installed, for the kernel of config/matrix's 'installed'
# line (guest/installed_test.c runs in it):
#
#   installed.sh root          the root file system, made with mmdebstrap
#   installed.sh deb DIR       the Debian package of the kernel built in
#                              DIR/obj, made by the kernel's bindeb-pkg
#                              beside it; prints its path
#   installed.sh image DIR DEB KDEB
#                              DIR/disk.ext4: the root, the kernel package
#                              KDEB and umhcap's package DEB installed with
#                              dpkg -i, and the tests; prints the path of
#                              the kernel dpkg put in /boot, read back from
#                              the disk
#
# The root is a Debian 12 system with systemd as PID 1, udev, kmod,
# systemd-coredump and keyutils, as Debian's packages install and
# configure them, from this machine's own apt sources.  It is kept in
# $UMHCAP_BUILD/debian-root while its inputs (the package list, this
# script, the apt sources and the indexes apt last fetched for them)
# are unchanged.  The disk image is made from it without root, by
# mkfs.ext4 -d, and boots read-write under QEMU with snapshot=on: every
# boot starts from the same disk, and several may share it.
set -eu
. "$(dirname "$0")/lib.sh"

# What an administrator would install for the helpers under test; their
# own dependencies come with them.  dbus is on every Debian 12 system.
# libtracefs1, libtraceevent1 and libcap2 are what umhcap's package
# depends on, which apt would bring and dpkg -i does not.  grub-common's
# grub-mkconfig makes a boot menu from what 'umhcap boot --grub' wrote.
# nfs-common and cifs-utils add request_key's handlers that change user
# or need root: nfsidmap and cifs.upcall, through /etc/request-key.d.
PKGS=systemd,systemd-sysv,udev,kmod,systemd-coredump,keyutils,dbus,acl,libtracefs1,libtraceevent1,libcap2,grub-common,nfs-common,cifs-utils
ROOTDIR=$UMHCAP_BUILD/debian-root
ROOT=$ROOTDIR/root

apt_sources() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		 /etc/apt/sources.list.d/*.sources; do
		[ -s "$f" ] && echo "$f"
	done
}

make_root() {
	[ "$(id -u)" -eq 0 ] || die "mmdebstrap --mode=root needs root"
	command -v mmdebstrap >/dev/null || die "mmdebstrap missing; run 'make deps'"
	sources=$(apt_sources | tr '\n' ' ')
	[ -n "$sources" ] || die "no apt sources on this machine"
	inputs=$( {
		echo "$PKGS"
		cat "$TOP/scripts/installed.sh"
		# shellcheck disable=SC2086
		cat $sources
		cat /var/lib/apt/lists/*Release 2>/dev/null | cksum
	} | sha256sum | cut -d' ' -f1)
	if [ -f "$ROOTDIR/stamp" ] && [ "$(cat "$ROOTDIR/stamp")" = "$inputs" ] &&
	   [ -d "$ROOT" ]; then
		step "the Debian root in $ROOT is up to date"
		return 0
	fi
	rm -rf "$ROOTDIR"
	mkdir -p "$ROOTDIR"
	apt-config dump --format '%f "%v";%n' Acquire >"$ROOTDIR/apt-acquire.conf"
	step "mmdebstrap: Debian 12 with $PKGS (log: $ROOTDIR/mmdebstrap.log)"
	s=$(date +%s)
	# No descriptor above 2: see scripts/cleanroot.sh.
	# shellcheck disable=SC2086
	mmdebstrap --quiet --variant=minbase --mode=root \
		--aptopt="$ROOTDIR/apt-acquire.conf" --include="$PKGS" \
		bookworm "$ROOT" $sources >"$ROOTDIR/mmdebstrap.log" 2>&1 \
		3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- ||
		{ tail -n 20 "$ROOTDIR/mmdebstrap.log" >&2; rm -rf "$ROOT"; die "mmdebstrap failed; see $ROOTDIR/mmdebstrap.log"; }
	# The versions the guest runs, for its tests' output and the table.
	chroot "$ROOT" dpkg-query -W -f='${Package} ${Version}\n' >"$ROOTDIR/versions"
	step "Debian root made in $(($(date +%s) - s)) s: $(du -sh "$ROOT" | cut -f1), $(wc -l <"$ROOTDIR/versions") packages"
	echo "$inputs" >"$ROOTDIR/stamp"
}

# The options without which the kernel package needs an initramfs to
# mount this disk: the disk's driver and file system, built in.
ROOT_BUILT_IN="CONFIG_PCI CONFIG_VIRTIO_PCI CONFIG_VIRTIO_BLK CONFIG_EXT4_FS"

# DIR REL: the path of DIR's linux-image-REL package, or nothing.
image_package() {
	for f in "$1/linux-image-$2"_*.deb; do
		[ -f "$f" ] && echo "$f" && break
	done
	return 0
}

# DIR: the kernel of DIR/obj as a Debian package, made by the kernel's own
# bindeb-pkg in that object directory (what the kernel build made is
# reused), without the headers and debug packages.  The package goes
# beside the objects, in DIR, and is kept while the kernel is.
make_deb() {
	dir=$1
	obj=$dir/obj
	src=$UMHCAP_BUILD/patched/src
	[ -f "$dir/stamp" ] || die "no kernel built in $obj; run 'matrix.sh kernel installed'"
	command -v dpkg-buildpackage >/dev/null || die "dpkg-buildpackage missing; run 'make deps'"
	rel=$(cat "$obj/include/config/kernel.release")
	inputs=$(cat "$dir/stamp" "$TOP/scripts/installed.sh" | sha256sum | cut -d' ' -f1)
	pkg=$(image_package "$dir" "$rel")
	if [ -f "$dir/deb.stamp" ] && [ "$(cat "$dir/deb.stamp")" = "$inputs" ] &&
	   [ -n "$pkg" ]; then
		step "the package $pkg is up to date with the kernel"
		echo "$pkg"
		return 0
	fi
	rm -f "$dir/deb.stamp" "$dir"/*.deb "$dir"/*.buildinfo "$dir"/*.changes
	s=$(date +%s)
	step "bindeb-pkg: linux-image-$rel (log: $dir/deb.log)"
	# shellcheck disable=SC2086
	(export DEB_BUILD_PROFILES="pkg.linux-upstream.nokernelheaders pkg.linux-upstream.nokerneldbg"
	 kernel_make "$src" "$obj" ARCH=x86_64 $JFLAG KDEB_PKGVERSION="$rel-1" \
		INSTALL_MOD_STRIP=1 DEPMOD=/usr/sbin/depmod bindeb-pkg) \
		>"$dir/deb.log" 2>&1 ||
		{ tail -n 20 "$dir/deb.log" >&2; die "bindeb-pkg failed; see $dir/deb.log"; }
	pkg=$(image_package "$dir" "$rel")
	[ -n "$pkg" ] || die "bindeb-pkg made no linux-image-$rel package; see $dir/deb.log"
	step "$(basename "$pkg") made in $(($(date +%s) - s)) s: $(du -h "$pkg" | cut -f1)"
	echo "$inputs" >"$dir/deb.stamp"
	echo "$pkg"
}

# DIR DEB KDEB: DIR/disk.ext4 with the kernel package KDEB and umhcap's
# package DEB, and the guest programs of the test kernel
# ($UMHCAP_BUILD/patched/tests).
make_image() {
	dir=$1 deb=$2 kdeb=$3
	tests=$UMHCAP_BUILD/patched/tests
	img=$dir/disk.ext4
	[ -f "$ROOTDIR/stamp" ] || die "no Debian root; run 'installed.sh root'"
	[ -f "$kdeb" ] || die "no kernel package at $kdeb; run 'installed.sh deb $dir'"
	[ -x "$tests/guest/installed_test" ] || die "no $tests/guest/installed_test; run 'make guest'"
	[ -f "$deb" ] || die "no umhcap package at $deb; run 'make package'"
	lint=$(dirname "$deb")/lintian.txt
	command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 missing; run 'make deps'"
	command -v debugfs >/dev/null || die "debugfs missing; run 'make deps'"
	rel=$(dpkg-deb -f "$kdeb" Package | sed 's/^linux-image-//')
	inputs=$( {
		cat "$ROOTDIR/stamp" "$TOP/scripts/installed.sh"
		cat "$tests/guest/installed_test" "$deb" "$kdeb" "$TOP"/guest/installed/*
	} | sha256sum | cut -d' ' -f1)
	if [ -f "$dir/disk.stamp" ] && [ "$(cat "$dir/disk.stamp")" = "$inputs" ] &&
	   [ -f "$img" ] && [ -f "$dir/vmlinuz" ]; then
		step "the disk $img is up to date"
		echo "$dir/vmlinuz"
		return 0
	fi
	rm -f "$dir/disk.stamp" "$img"
	s=$(date +%s)
	stage=$dir/disk.root
	rm -rf "$stage"
	cp -a "$ROOT" "$stage"
	# The kernel, as an administrator installs a kernel package: its
	# image in /boot, its modules under /usr/lib/modules, and the hooks
	# of /etc/kernel/postinst.d run (this root has none).
	cp "$kdeb" "$stage/tmp/linux-image.deb"
	chroot "$stage" dpkg -i /tmp/linux-image.deb >"$dir/dpkg-kernel.log" 2>&1 ||
		{ cat "$dir/dpkg-kernel.log" >&2; die "dpkg -i of $kdeb failed in $stage"; }
	rm -f "$stage/tmp/linux-image.deb"
	[ -f "$stage/boot/vmlinuz-$rel" ] ||
		die "dpkg -i $(basename "$kdeb") put no /boot/vmlinuz-$rel"
	# This disk has no initramfs-tools: the kernel mounts it itself.
	for opt in $ROOT_BUILT_IN; do
		grep -qx "$opt=y" "$stage/boot/config-$rel" ||
			die "$opt is not built in: $(basename "$kdeb") would need an initramfs for this disk"
	done
	step "dpkg -i $(basename "$kdeb"): $(tail -n 1 "$dir/dpkg-kernel.log")"
	# An installed machine: its identity, its disk, no first boot.
	echo 0123456789abcdef0123456789abcdef >"$stage/etc/machine-id"
	echo umhcap-installed >"$stage/etc/hostname"
	echo "/dev/vda / ext4 rw 0 0" >"$stage/etc/fstab"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tumhcap-installed\n' >"$stage/etc/hosts"
	# umhcap, as an administrator would install it: its package, with
	# dpkg -i, whose maintainer scripts enable umhcap-save.service; and
	# what lintian said of the package, for the guest to show.
	cp "$deb" "$stage/tmp/umhcap.deb"
	chroot "$stage" dpkg -i /tmp/umhcap.deb >"$dir/dpkg.log" 2>&1 ||
		{ cat "$dir/dpkg.log" >&2; die "dpkg -i of $deb failed in $stage"; }
	rm -f "$stage/tmp/umhcap.deb"
	step "dpkg -i $(basename "$deb"): $(tail -n 1 "$dir/dpkg.log")"
	install -d "$stage/usr/lib/umhcap-test"
	install -m 0755 "$tests/guest/installed_test" "$stage/usr/lib/umhcap-test/"
	install -m 0644 "$TOP/guest/installed/umhcap-test.service" \
		"$stage/etc/systemd/system/"
	ln -s ../umhcap-test.service \
		"$stage/etc/systemd/system/multi-user.target.wants/umhcap-test.service"
	install -m 0755 "$TOP/guest/installed/umhcap-test-shutdown" \
		"$stage/usr/lib/systemd/system-shutdown/"
	cp "$ROOTDIR/versions" "$stage/usr/lib/umhcap-test/versions"
	if [ -f "$lint" ]; then
		cp "$lint" "$stage/usr/lib/umhcap-test/lintian.txt"
	else
		echo "(no lintian output beside $deb)" >"$stage/usr/lib/umhcap-test/lintian.txt"
	fi
	# The helpers' own users, as a package's postinst would make them.
	install -m 0644 "$TOP/guest/installed/umhcap-test.sysusers" \
		"$stage/usr/lib/sysusers.d/umhcap-test.conf"
	chroot "$stage" systemd-sysusers /usr/lib/sysusers.d/umhcap-test.conf ||
		die "systemd-sysusers in $stage failed"
	mkfs.ext4 -q -F -L umhcap -d "$stage" "$img" 2G >/dev/null ||
		die "mkfs.ext4 -d $stage failed"
	rm -rf "$stage"
	# The boots' kernel is the file dpkg put in /boot, read from the disk.
	rm -f "$dir/vmlinuz"
	debugfs -R "dump /boot/vmlinuz-$rel $dir/vmlinuz" "$img" 2>/dev/null
	[ -s "$dir/vmlinuz" ] || die "no /boot/vmlinuz-$rel on $img"
	echo "$inputs" >"$dir/disk.stamp"
	step "disk $img made in $(($(date +%s) - s)) s; its kernel: /boot/vmlinuz-$rel"
	echo "$dir/vmlinuz"
}

usage="usage: installed.sh root | deb DIR | image DIR DEB KDEB"
case ${1:-} in
root) [ $# -eq 1 ] || die "$usage"; lock_build; make_root ;;
deb) [ $# -eq 2 ] || die "$usage"; lock_build; make_deb "$2" ;;
image) [ $# -eq 4 ] || die "$usage"; lock_build; make_image "$2" "$3" "$4" ;;
*) die "$usage" ;;
esac
