#!/bin/sh
# 'make deps': install, with apt, the Debian packages the harness needs and
# lacks, then check that every external command and file the harness uses
# is really there.  A package missing from the list below fails here, with
# the command and the package that provides it named, not half-way through
# a build.
#
#   deps.sh            install what is missing, then check
#   deps.sh --check    only check; exit 1 and name what is missing
set -eu
. "$(dirname "$0")/lib.sh"

# What the harness runs or reads, and the Debian package that provides it.
# A name without a slash is a command looked up in PATH; a path is a file.
# Keep it whole: the clean-root step of 'make check' starts from a minimal
# Debian root, where anything left out of this table is missing.
NEEDS='
/usr/src/linux-source-6.12.tar.xz	linux-source-6.12
/usr/src/linux-config-6.12		linux-config-6.12
/bin/busybox				busybox-static
/bin/bash-static			bash-static
qemu-system-x86_64			qemu-system-x86
sparse					sparse
ccache					ccache
gcc					gcc
cc					gcc
ld					binutils
make					make
bc					bc
bison					bison
flex					flex
/usr/include/libelf.h			libelf-dev
/usr/include/openssl/ssl.h		libssl-dev
openssl					openssl
/usr/include/sys/capability.h		libcap-dev
/usr/include/cap-ng.h			libcap-ng-dev
/usr/include/tracefs/tracefs.h		libtracefs-dev
/usr/include/traceevent/event-parse.h	libtraceevent-dev
pkg-config				pkgconf
xz					xz-utils
cpio					cpio
perl					perl
git					git
rsync					rsync
depmod					kmod
/usr/lib/python3/dist-packages/ply	python3-ply
/usr/lib/python3/dist-packages/git	python3-git
/usr/lib/python3/dist-packages/docutils	python3-docutils
mmdebstrap				mmdebstrap
mkfs.ext4				e2fsprogs
debugfs					e2fsprogs
unshare					util-linux
timeout					coreutils
awk					mawk
systemd-socket-activate			systemd
/usr/include/systemd/sd-journal.h	libsystemd-dev
/lib/systemd/systemd-journal-remote	systemd-journal-remote
/usr/lib/x86_64-linux-gnu/libkeyutils.so.1	libkeyutils1
apt-get					apt
dpkg-deb				dpkg
dpkg-buildpackage			dpkg-dev
/usr/share/build-essential/list		build-essential
dh					debhelper
lintian					lintian
blhc					blhc
autopkgtest				autopkgtest
readelf					binutils
'

# Real helper programs the guest runs, fetched as .deb files into
# $UMHCAP_BUILD/debs and unpacked there, never installed on this machine:
# installing systemd-coredump would point this machine's own
# kernel.core_pattern at it (its postinst runs systemd-sysctl), and
# keyutils would give its kernel a /sbin/request-key.  Their libraries
# come from the packages above.  systemd-coredump must match the
# installed systemd, whose private library it loads.
DEBS="systemd-coredump keyutils"
DEBDIR=$UMHCAP_BUILD/debs

# The packages 'make deps' installs.  The table above is what they must
# provide; check() below holds this list to it.
PKGS="linux-source-6.12 linux-config-6.12 busybox-static bash-static qemu-system-x86 sparse
ccache gcc binutils make bc bison flex libelf-dev libssl-dev openssl libcap-dev
libcap-ng-dev libtracefs-dev libtraceevent-dev pkgconf xz-utils cpio perl
git rsync kmod python3-ply python3-git python3-docutils mmdebstrap e2fsprogs util-linux coreutils mawk
systemd libsystemd-dev systemd-journal-remote libkeyutils1 apt dpkg dpkg-dev
build-essential debhelper lintian blhc autopkgtest"

missing_pkgs() {
	for p in $PKGS; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

check() {
	bad=$(echo "$NEEDS" | while read -r what pkg; do
		[ -n "$what" ] || continue
		case $what in
		*/*) [ -e "$what" ] ;;
		*) command -v "$what" >/dev/null 2>&1 ;;
		esac || printf '  %-40s from package %s\n' "$what" "$pkg"
	done)
	[ -z "$bad" ] && return 0
	echo "$(basename "$0"): error: missing after 'make deps':" >&2
	echo "$bad" >&2
	echo "$(basename "$0"): add the package to scripts/deps.sh, or install it" >&2
	exit 1
}

# The version of DEB to fetch: the installed systemd's, for the package
# built with it; otherwise apt's candidate.
deb_version() {
	case $1 in
	systemd-*) dpkg-query -W -f='${Version}' systemd ;;
	*) apt-cache policy "$1" | sed -n 's/^  Candidate: //p' ;;
	esac
}

check_debs() {
	for d in $DEBS; do
		[ -f "$DEBDIR/$d.deb" ] && [ -d "$DEBDIR/$d" ] || {
			echo "$(basename "$0"): error: $DEBDIR/$d.deb missing; run 'make deps'" >&2
			exit 1
		}
	done
}

fetch_debs() {
	mkdir -p "$DEBDIR"
	for d in $DEBS; do
		v=$(deb_version "$d")
		[ -n "$v" ] || die "apt knows no version of $d; run apt-get update"
		if [ -f "$DEBDIR/$d.deb" ] &&
		   [ "$(dpkg-deb -f "$DEBDIR/$d.deb" Version)" = "$v" ] &&
		   [ -d "$DEBDIR/$d" ]; then
			continue
		fi
		step "fetching $d $v (unpacked in $DEBDIR, not installed)"
		rm -rf "$DEBDIR/$d" "$DEBDIR/$d.deb" "$DEBDIR/fetch"
		mkdir -p "$DEBDIR/fetch"
		(cd "$DEBDIR/fetch" && apt-get download -q "$d=$v" >/dev/null 2>&1) ||
			die "apt-get download $d=$v failed; check the network and apt sources"
		mv "$DEBDIR"/fetch/*.deb "$DEBDIR/$d.deb"
		rmdir "$DEBDIR/fetch"
		dpkg-deb -x "$DEBDIR/$d.deb" "$DEBDIR/$d" ||
			die "cannot unpack $DEBDIR/$d.deb"
	done
}

if [ "${1:-}" = --check ]; then
	check
	check_debs
	exit 0
fi

# systemd's own packages at the installed systemd's version, where apt
# has it: apt's candidate would upgrade systemd, and libsystemd0 with it,
# under the running machine and the helpers fetched below.
pin() {
	sv=$(dpkg-query -W -f='${Version}' systemd 2>/dev/null || true)
	for p in "$@"; do
		case $p in
		systemd-*|libsystemd-*)
			if [ -n "$sv" ] && apt-cache madison "$p" |
				awk -F' *[|] *' -v v="$sv" '$2 == v { f = 1 } END { exit !f }'; then
				p="$p=$sv"
			fi ;;
		esac
		echo "$p"
	done
}

# shellcheck disable=SC2046
pkgs=$(pin $(missing_pkgs) | tr '\n' ' ')
if [ -n "$pkgs" ]; then
	step "installing: $pkgs"
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -q >/dev/null ||
		die "apt-get update failed; check the network and /etc/apt/sources.list"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
		--no-install-recommends $pkgs >/dev/null ||
		die "apt-get install $pkgs failed"
	step "installed: $pkgs"
fi
check
fetch_debs
