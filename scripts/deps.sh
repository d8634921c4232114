#!/bin/sh
# Install, with apt, the Debian packages the harness needs and lacks.
set -eu
. "$(dirname "$0")/lib.sh"

PKGS="linux-source-6.12 busybox-static qemu-system-x86 sparse ccache
libcap-dev libcap-ng-dev bash-static gcc make bc bison flex libelf-dev
libssl-dev xz-utils cpio
perl git kmod python3-ply python3-git"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

step "installing:$missing"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -q >/dev/null ||
	die "apt-get update failed; check the network and /etc/apt/sources.list"
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
	--no-install-recommends $missing >/dev/null ||
	die "apt-get install$missing failed"
step "installed:$missing"
