#!/bin/sh
# Build a small test kernel from a fresh tree.
#
#   kernel.sh [--vanilla] [--check-last] NAME [FRAGMENT...]
#
# The tree goes to $UMHCAP_BUILD/NAME/src and the objects to
# $UMHCAP_BUILD/NAME/obj.  tinyconfig is merged with config/umhcap.config
# and any further FRAGMENTs.  The last line printed is the bzImage path.
# A build whose inputs have not changed since it last finished is kept.
set -eu
. "$(dirname "$0")/lib.sh"

treeopt=
checklast=
while :; do
	case ${1:-} in
	--vanilla) treeopt=--vanilla ;;
	--check-last) checklast=1 ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || die "usage: kernel.sh [--vanilla] [--check-last] NAME [FRAGMENT...]"
name=$1
shift
src=$UMHCAP_BUILD/$name/src
obj=$UMHCAP_BUILD/$name/obj
# Fragments are read from the object directory: make them absolute.
frags=$TOP/config/umhcap.config
for f in "$@"; do
	[ -r "$f" ] || die "no configuration fragment $f"
	frags="$frags $(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
done

# Everything the build depends on.  A tree whose stamp matches is not
# extracted and built again; a build that did not finish leaves no stamp.
need_tarball
stamp=$UMHCAP_BUILD/$name/stamp
inputs=$( {
	echo "$treeopt${checklast:+ --check-last}"
	ls -lL --time-style=+%s "$KSRC_TARBALL"
	[ -n "$treeopt" ] || series_text
	cat $frags "$TOP/scripts/kernel.sh" "$TOP/scripts/tree.sh" \
		"$TOP/scripts/lib.sh"
} | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$inputs" ] &&
   [ -f "$obj/arch/x86/boot/bzImage" ]; then
	step "$name is up to date with the series and configuration"
	echo "$obj/arch/x86/boot/bzImage"
	exit 0
fi
rm -f "$stamp"

"$TOP/scripts/tree.sh" $treeopt "$src"
rm -rf "$obj"
mkdir -p "$obj"

export CCACHE_DIR=${CCACHE_DIR:-$UMHCAP_BUILD/ccache}
# Paths relative to the build directory: trees in different places share hits.
export CCACHE_BASEDIR=$UMHCAP_BUILD CCACHE_NOHASHDIR=1
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970'
export KBUILD_BUILD_USER=umhcap KBUILD_BUILD_HOST=umhcap
kmake() {
	make -s -C "$src" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

step "configuring $name: tinyconfig + $(for f in $frags; do basename "$f"; done | tr '\n' ' ')"
kmake tinyconfig >/dev/null
# shellcheck disable=SC2086
(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
	"$obj/.config" $frags >/dev/null)
kmake olddefconfig >/dev/null

# Every option a fragment asked for must have survived olddefconfig.
# With --check-last, only the last fragment's: it turns options off, and
# what depended on them in the others goes with them.
lost=
check=$frags
[ -z "$checklast" ] || check=$(echo "$frags" | awk '{ print $NF }')
for f in $check; do
	for want in $(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p' "$f" | tr -d '"'); do
		grep -qx "$(echo "$want" | sed 's/=\(.*\)/="*\1"*/')" "$obj/.config" ||
			lost="$lost ${want%%=*}"
	done
	for off in $(sed -n 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' "$f"); do
		! grep -q "^$off=" "$obj/.config" || lost="$lost $off=n"
	done
done
[ -z "$lost" ] || die "options lost after olddefconfig (missing dependency?):$lost"

step "building $name with $JOBS jobs (ccache: $CCACHE_DIR)"
start=$(date +%s)
kmake -j"$JOBS" bzImage >&2 ||
	die "kernel build of $name failed; the log is above"
# Modules go in a cpio of their own, appended to the guest's initramfs
# at boot (scripts/boot.sh): a module loads only into the kernel it was
# built with.  They are installed as a distribution installs them, with
# modules_install and depmod, so that kmod's modprobe finds them by alias.
rm -f "$obj/modules.cpio"
rm -rf "$obj/modroot"
if grep -q '=m$' "$obj/.config"; then
	kmake -j"$JOBS" modules >&2 || die "module build of $name failed"
	kmake INSTALL_MOD_PATH="$obj/modroot" INSTALL_MOD_STRIP=1 \
		DEPMOD=/usr/sbin/depmod modules_install >/dev/null ||
		die "modules_install of $name failed"
	pack_modules "$src" "$obj" || die "cannot pack the modules of $name"
fi
step "built $name in $(($(date +%s) - start)) s"
echo "$inputs" >"$stamp"
echo "$obj/arch/x86/boot/bzImage"
