#!/bin/sh
# Build a small test kernel.
#
#   kernel.sh [--vanilla] [--check-last] [--src TREE] NAME [FRAGMENT...]
#
# The objects go to $UMHCAP_BUILD/NAME/obj.  The tree is
# $UMHCAP_BUILD/NAME/src, checked out by scripts/tree.sh (the series, or
# with --vanilla none of it); with --src, the tree of the kernel TREE
# ('patched'), whose objects also seed NAME's on its first build, so that
# a configuration that differs in a few options compiles only what those
# options reach.  tinyconfig is merged with config/umhcap.config and any
# further FRAGMENTs.  The last line printed is the bzImage path.
#
# A build whose inputs have not changed since it last finished is kept.
# A build whose inputs changed is made in the objects of the last one:
# kbuild rebuilds exactly what the changed files and options reach, and
# ccache serves what it has compiled before.
set -eu
. "$(dirname "$0")/lib.sh"

treeopt=
checklast=
srcname=
while :; do
	case ${1:-} in
	--vanilla) treeopt=--vanilla ;;
	--check-last) checklast=1 ;;
	--src) srcname=${2:-}; shift ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || die "usage: kernel.sh [--vanilla] [--check-last] [--src TREE] NAME [FRAGMENT...]"
name=$1
shift
[ -z "$srcname" ] || [ -z "$treeopt" ] || die "--src and --vanilla exclude each other"
[ "$srcname" != "$name" ] || die "--src $name: a kernel is not its own source"
lock_build
src=$UMHCAP_BUILD/${srcname:-$name}/src
obj=$UMHCAP_BUILD/$name/obj
# Fragments are read from the object directory: make them absolute.
frags=$TOP/config/umhcap.config
for f in "$@"; do
	[ -r "$f" ] || die "no configuration fragment $f"
	frags="$frags $(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
done

# Everything the build depends on.  A kernel whose stamp matches is kept;
# a build that did not finish leaves no stamp.
need_tarball
stamp=$UMHCAP_BUILD/$name/stamp
inputs=$( {
	echo "$treeopt${checklast:+ --check-last} ${srcname:+--src $srcname}"
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

# The tree, as the series is now: only the files that changed are written.
if [ -n "$srcname" ]; then
	"$TOP/scripts/tree.sh" "$src"
	# Objects of another directory, or seeded before their paths were
	# made this directory's (no .seeded), start again from the source's.
	if [ ! -f "$obj/.seeded" ] && [ -f "$UMHCAP_BUILD/$srcname/obj/.config" ]; then
		step "$name: starting from the objects of $srcname"
		seed_objs "$UMHCAP_BUILD/$srcname/obj" "$obj"
	fi
else
	"$TOP/scripts/tree.sh" $treeopt "$src"
fi
mkdir -p "$obj"

kmake() {
	kernel_make "$src" "$obj" "$@"
}

step "configuring $name: tinyconfig + $(for f in $frags; do basename "$f"; done | tr '\n' ' ')"
kmake -s tinyconfig >/dev/null
# shellcheck disable=SC2086
(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
	"$obj/.config" $frags >/dev/null)
kmake -s olddefconfig >/dev/null

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

targets=bzImage
! grep -q '=m$' "$obj/.config" || targets="bzImage modules"
step "building $name ($targets; ${JFLAG:-the job slots of make check}; log: $UMHCAP_BUILD/$name/build.log)"
start=$(date +%s)
# shellcheck disable=SC2086
kbuild "$name" "$UMHCAP_BUILD/$name/build.log" kmake $JFLAG $targets ||
	die "kernel build of $name failed; its log is $UMHCAP_BUILD/$name/build.log"
kbuild_count "$obj" "$UMHCAP_BUILD/$name/build.log"
# Modules go in a cpio of their own, appended to the guest's initramfs
# at boot (scripts/boot.sh): a module loads only into the kernel it was
# built with.  They are installed as a distribution installs them, with
# modules_install and depmod, so that kmod's modprobe finds them by alias.
rm -f "$obj/modules.cpio"
rm -rf "$obj/modroot"
if [ "$targets" != bzImage ]; then
	kmake -s INSTALL_MOD_PATH="$obj/modroot" INSTALL_MOD_STRIP=1 \
		DEPMOD=/usr/sbin/depmod modules_install >/dev/null ||
		die "modules_install of $name failed"
	other_key_module "$obj" ||
		die "cannot sign test_umh.ko of $name with a key of the harness's"
	pack_modules "$src" "$obj" || die "cannot pack the modules of $name"
fi
step "built $name in $(($(date +%s) - start)) s: $(grep -c '^  CC' "$UMHCAP_BUILD/$name/build.log" || true) objects compiled, $(cat "$UMHCAP_BUILD/$name/build.log.objects") in the kernel"
echo "$inputs" >"$stamp"
echo "$obj/arch/x86/boot/bzImage"
