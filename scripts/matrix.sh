#!/bin/sh
# The configurations of config/matrix: what the series must do in each.
#
#   matrix.sh objs [NAME...]   the "objs" lines (all, or those named), as
#                              KTAP on stdout: each configures as asked,
#                              and the C files the series touches compile
#                              with no warning more than unpatched
#   matrix.sh link [NAME...]   the "objs" lines on the test kernel (all,
#                              or those named), as KTAP: each whole
#                              kernel builds and links ('make matrix'),
#                              from the test kernel's objects
#   matrix.sh objs-one NAME    one "objs" line, as objs runs it: its
#                              results are kept, and printed again,
#                              while none of its inputs changes
#   matrix.sh files            the C files the series touches, as objs
#                              compiles them (and scripts/gates.sh)
#   matrix.sh list ACTION      the names of the lines whose action is
#                              ACTION ("boot" matches every boot:T)
#   matrix.sh tests NAME       the T of a boot:T line
#   matrix.sh params NAME      the kernel parameters of its param: options
#   matrix.sh skips NAME       the tests its skip: options expect to skip,
#                              one per line (scripts/ktap.c's expected-skips)
#   matrix.sh config NAME      configure a full line as its kernel would be
#                              (in $M/NAME-config): fails if an option of
#                              the line does not survive
#   matrix.sh kernel NAME      build the kernel of a suite or boot line
#                              (scripts/kernel.sh, from the patched
#                              tree and objects), or of a full line
#                              (the patched tree of 'make kernel', with
#                              the modules of its modules: option);
#                              prints its bzImage
#   matrix.sh deb NAME         the Debian packages of a deb line's kernel
#                              (bindeb-pkg, in $UMHCAP_BUILD/kernel-deb),
#                              from the patched tree: linux-image,
#                              linux-headers and linux-libc-dev; prints
#                              their paths
#
# The patched and unpatched trees are those of 'make kernel' and of
# 'kernel.sh --vanilla vanilla'; objects go to $UMHCAP_BUILD/matrix/NAME.
# Progress goes to stderr.
set -eu
. "$(dirname "$0")/lib.sh"

MATRIX=${UMHCAP_MATRIX:-$TOP/config/matrix}
M=$UMHCAP_BUILD/matrix
P=$UMHCAP_BUILD/patched
V=$UMHCAP_BUILD/vanilla

# The lines of the matrix, comments and blank lines left out.
lines() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$MATRIX"; }

# NAME: its line, or die.
line_of() {
	l=$(lines | awk -v n="$1" '$1 == n')
	[ -n "$l" ] || die "no configuration '$1' in $MATRIX"
	echo "$l"
}

# BASE OPTION...: the configuration fragment of a line's options, with
# CONFIG_X=n written as Kconfig writes it; ARCH= is not a Kconfig option.
fragment() {
	shift
	for opt in "$@"; do
		case $opt in
		ARCH=*|sparse|param:*|skip:*|modules:*) ;;
		CONFIG_*=n) echo "# ${opt%=n} is not set" ;;
		CONFIG_*=*) echo "$opt" ;;
		*) die "bad option '$opt' in $MATRIX" ;;
		esac
	done
}

# OPTION...: the ARCH= of a line, x86_64 if none.
arch_of() {
	arch=x86_64
	for opt in "$@"; do
		case $opt in ARCH=*) arch=${opt#ARCH=} ;; esac
	done
	echo "$arch"
}

# BASE: the fragments of config/ a small base merges (absolute paths).
small_frags() {
	f="$TOP/config/series.config"
	case $1 in
	small) ;;
	small+*) f="$f $TOP/config/${1#small+}.config" ;;
	*) die "bad base '$1' in $MATRIX" ;;
	esac
	for x in $f; do [ -r "$x" ] || die "no fragment $x"; done
	echo "$f"
}

# The options of .config in DIR that the line asked for and did not get.
lost_options() { # DIR OPTION...
	cfg=$1/.config
	shift
	for opt in "$@"; do
		case $opt in
		CONFIG_*=n)
			! grep -q "^${opt%=n}=" "$cfg" || printf ' %s' "$opt" ;;
		CONFIG_*=*)
			want=$(echo "$opt" | tr -d '"')
			grep -qx "$(echo "$want" | sed 's/=\(.*\)/="*\1"*/')" "$cfg" ||
				printf ' %s' "$opt" ;;
		esac
	done
}

# SRC OBJ ARCH ARGS...: make in a tree, quietly.  x86_64 is made as
# scripts/kernel.sh makes the test kernel, with no ARCH=, so that a line
# on it is that kernel and its options: its tinyconfig is 32-bit until
# umhcap.config turns 64BIT on, which gives the 64-bit options their
# defaults (VMAP_STACK, X86_5LEVEL, ...), where ARCH=x86_64's turns them
# off, and every object seeded from the test kernel's would be rebuilt.
kmake() {
	_src=$1 _obj=$2 _arch=$3
	shift 3
	if [ "$_arch" = x86_64 ]; then
		kernel_make -s "$_src" "$_obj" "$@"
	else
		kernel_make -s "$_src" "$_obj" ARCH="$_arch" "$@"
	fi
}

# SRC OBJ ARCH BASE OPTION...: write OBJ/.config for a line.
configure() {
	s=$1 o=$2 a=$3 cbase=$4
	shift 4
	# A line's first configuration starts from the objects of the test
	# kernel of the same tree (x86_64 only): its host programs are built,
	# and kbuild rebuilds only what the line's options reach.
	seed=$(dirname "$s")/obj
	if [ ! -f "$o/.seeded" ] && [ "$a" = x86_64 ] && [ -f "$seed/.config" ]; then
		seed_objs "$seed" "$o"
	fi
	mkdir -p "$o"
	fragment "$cbase" "$@" >"$o/options.config"
	case $cbase in
	debian:*)
		cfg=/usr/src/linux-config-6.12/config.${cbase#debian:}.xz
		[ -r "$cfg" ] || die "no $cfg; run 'make deps' (linux-config-6.12)"
		xz -dc "$cfg" >"$o/.config"
		frags="$o/options.config" ;;
	*)
		kmake "$s" "$o" "$a" tinyconfig >/dev/null
		frags="$TOP/config/umhcap.config $(small_frags "$cbase") $o/options.config" ;;
	esac
	# shellcheck disable=SC2086
	(cd "$o" && ARCH=$a "$s/scripts/kconfig/merge_config.sh" -m -O "$o" \
		"$o/.config" $frags >/dev/null)
	kmake "$s" "$o" "$a" olddefconfig >/dev/null
}

# The C files the series adds or changes, from the patches themselves
# (its tests and tools/ left out; scripts/gates.sh asks for them too).
series_files() {
	series_text | sed -n 's|^+++ b/\(.*\.c\)$|\1|p' |
		grep -v -e '^tools/' -e '_test\.c$' | sort -u
}

# OBJ SRC DIR: the objects DIR's Kbuild file, or Makefile, asks for in
# the configuration of OBJ, one per line: obj-y, obj-m, lib-y and the
# parts of composite objects, as kbuild reads them.  Kbuild compiles a file named on its
# command line whatever the configuration, so it is asked this first.
kbuild_objs() {
	_kb=$2/$3/Kbuild
	[ -f "$_kb" ] || _kb=$2/$3/Makefile
	make -s -f - umhcap-objs <<-EOF
	include $1/include/config/auto.conf
	srctree := $2
	src := $3
	obj := $3
	include $_kb
	objs := \$(obj-y) \$(obj-m) \$(lib-y)
	umhcap-objs: ; @printf '%s\\n' \$(objs) \$(foreach o,\$(objs),\$(\$(o:.o=-y)) \$(\$(o:.o=-objs)) \$(\$(o:.o=-m)))
	EOF
}

# OBJ SRC FILE: whether the configuration of OBJ builds FILE: its object
# is asked for by its directory's Kbuild file or Makefile, and each
# directory by the one above it, up to a top directory (kernel/,
# arch/x86/), which the top Makefile reaches.
built_here() {
	_d=$(dirname "$3") _t=$(basename "${3%.c}.o")
	while [ "$_d" != . ] && [ "$_d" != arch ]; do
		kbuild_objs "$1" "$2" "$_d" 2>/dev/null | grep -qxF "$_t" ||
			return 1
		_t=$(basename "$_d")/ _d=$(dirname "$_d")
	done
}

# SRC OBJ ARCH TOOL FILE...: compile FILEs afresh with TOOL (W=1, or C=2
# for sparse) and print every warning and error, one per line, with the
# tree's path (absolute, or relative to OBJ) and the line numbers left
# out, so that trees compare.
# ccache replays a cached compiler's warnings.
diagnostics() {
	ds=$1 dobj=$2 da=$3 tool=$4
	shift 4
	objs=
	for f in "$@"; do
		rm -f "$dobj/${f%.c}.o"
		objs="$objs ${f%.c}.o"
	done
	# shellcheck disable=SC2086
	kmake "$ds" "$dobj" "$da" -k $JFLAG $tool $objs 2>&1 |
		sed -n -e 's#^[^ :]*/src/##' \
			-e 's#^\([^ :]*\):[0-9]*:[0-9:]* \(warning\|error\): #\1: \2: #p' |
		sort
}

n=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); echo "not ok $n $*"; }

# NAME BASE OPTION...: configure a line's patched object directory, $po,
# for its architecture, $a; $lost: the options that did not survive.
configure_line() {
	name=$1 base=$2
	shift 2
	a=$(arch_of "$@")
	po=$M/$name/patched
	step "$name: configuring ($base $*)"
	configure "$P/src" "$po" "$a" "$base" "$@"
	lost=$(lost_options "$po" "$@")
}

# NAME BASE OPTION...: one "objs" line.
objs_line() {
	name=$1 base=$2
	shift 2
	tools="W=1"
	case " $* " in *" sparse "*) tools="W=1 C=2" ;; esac
	vo=$M/$name/vanilla
	configure_line "$name" "$base" "$@"
	if [ -n "$lost" ]; then
		notok "$name: configures as asked: lost after olddefconfig:$lost"
		for t in $tools; do notok "$name: $t # SKIP not configured"; done
		return
	fi
	ok "$name: configures as asked ($a, $(grep -c '=[ym]$' "$po/.config") options on)"
	kmake "$P/src" "$po" "$a" $JFLAG prepare >"$po/prepare.log" 2>&1 || {
		sed 's/^/# /' "$po/prepare.log" | tail -n 20
		for t in $tools; do notok "$name: $t: make prepare failed"; done
		return
	}
	# The files this configuration builds, as kbuild reads its Makefiles:
	# one it leaves out (security/umh/ with CONFIG_SECURITY=n) would
	# only fail for want of the options it depends on.
	built='' notbuilt=0
	for f in $(series_files); do
		if built_here "$po" "$P/src" "$f"; then
			built="$built $f"
		else
			notbuilt=$((notbuilt + 1))
		fi
	done
	# shellcheck disable=SC2086
	set -- $built
	[ "$notbuilt" -eq 0 ] ||
		echo "# $name: $notbuilt of the series' files are not built here, left out"
	for t in $tools; do
		step "$name: $t on the $# files the series touches"
		diagnostics "$P/src" "$po" "$a" "$t" "$@" >"$po/$t.txt"
		# The unpatched tree's count, computed once per configuration
		# and tool: neither the tree nor the compiler changes.
		key=$( { cat "$po/.config"; echo "$t $*"; gcc --version
			 sparse --version 2>/dev/null
			 ls -lL --time-style=+%s "$KSRC_TARBALL"; } |
			 sha256sum | cut -d' ' -f1)
		cache=$M/cache/$key
		if [ ! -f "$cache" ]; then
			step "$name: $t, unpatched"
			mkdir -p "$vo" "$M/cache"
			cp "$po/.config" "$vo/.config"
			kmake "$V/src" "$vo" "$a" olddefconfig >/dev/null
			kmake "$V/src" "$vo" "$a" $JFLAG prepare >/dev/null 2>&1 ||
				die "$name: make prepare failed in the unpatched tree"
			existing=
			for f in "$@"; do
				[ ! -f "$V/src/$f" ] || existing="$existing $f"
			done
			# shellcheck disable=SC2086
			diagnostics "$V/src" "$vo" "$a" "$t" $existing >"$cache.tmp"
			mv "$cache.tmp" "$cache"
		fi
		cp "$cache" "$po/$t.unpatched.txt"
		# What the patched tree says that the unpatched does not.
		comm -23 "$po/$t.txt" "$cache" >"$po/$t.new.txt"
		msg="$name: $t on $# files: $(wc -l <"$po/$t.txt") warnings, unpatched $(wc -l <"$cache")"
		if [ -s "$po/$t.new.txt" ]; then
			sed 's/^/# new: /' "$po/$t.new.txt"
			notok "$msg, $(wc -l <"$po/$t.new.txt") new"
		else
			ok "$msg, none new"
		fi
	done
}

# NAME BASE OPTION...: the whole kernel of an "objs" line on the test
# kernel, built in its patched object directory.
link_line() {
	name=$1 base=$2
	shift 2
	configure_line "$name" "$base" "$@"
	step "$name: building the whole kernel ($a)"
	if [ -n "$lost" ]; then
		notok "$name: links: lost after olddefconfig:$lost"
		return
	fi
	targets="bzImage"
	! grep -q '^CONFIG_MODULES=y' "$po/.config" || targets="$targets modules"
	# shellcheck disable=SC2086
	if kbuild "$name" "$po/build.log" kmake "$P/src" "$po" "$a" $JFLAG $targets; then
		ok "$name: the whole kernel builds and links ($targets)"
	else
		grep -E 'error|undefined' "$po/build.log" | head -n 20 | sed 's/^/# /'
		notok "$name: the whole kernel builds and links ($targets)"
	fi
}

# DIR NAME BASE OPTION...: configure a "full" line in DIR, from the
# patched tree, with only the modules its modules: option names (and
# what they need): the kernel's localmodconfig, fed those names as lsmod
# would print them, turns every other =m off.  Sets $mods.
full_configure() {
	po=$1 name=$2 base=$3
	shift 3
	[ -d "$P/src" ] || die "no patched tree; run 'make kernel'"
	rm -rf "$po"
	step "$name: configuring ($base)"
	configure "$P/src" "$po" x86_64 "$base" "$@"
	mods=
	for opt in "$@"; do
		case $opt in modules:?*) mods=$(echo "${opt#modules:}" | tr , ' ') ;; esac
	done
	if [ -n "$mods" ]; then
		{
			echo "Module                  Size  Used by"
			for m in $mods; do echo "$m 0 0"; done
		} >"$po/lsmod"
		yes '' | kmake "$P/src" "$po" x86_64 LSMOD="$po/lsmod" \
			localmodconfig >/dev/null 2>"$po/localmodconfig.log" ||
			die "$name: localmodconfig failed; see $po/localmodconfig.log"
		kmake "$P/src" "$po" x86_64 olddefconfig >/dev/null
	fi
	lost=$(lost_options "$po" "$@")
	[ -z "$lost" ] || die "$name: lost after olddefconfig:$lost"
	step "$name: $(grep -c '=y$' "$po/.config") options built in, $(grep -c '=m$' "$po/.config") as modules"
}

# BASE OPTION...: a hash of what the kernel of a "full" or "deb" line is
# made of: its options, the tarball, Debian's configuration, the series
# and these scripts.
full_inputs() {
	_base=$1
	shift
	{
		echo "$_base $*"
		ls -lL --time-style=+%s "$KSRC_TARBALL" \
			"/usr/src/linux-config-6.12/config.${_base#debian:}.xz"
		series_text
		cat "$TOP/scripts/matrix.sh" "$TOP/scripts/lib.sh"
	} | sha256sum | cut -d' ' -f1
}

# NAME BASE OPTION...: the whole kernel of a "full" line, in $M/NAME,
# with its modules (full_configure).  A build whose inputs have not
# changed is kept.  Prints the bzImage.
full_kernel() {
	name=$1 base=$2
	shift 2
	po=$M/$name
	need_tarball
	inputs=$(full_inputs "$base" "$@")
	if [ -f "$po/stamp" ] && [ "$(cat "$po/stamp")" = "$inputs" ] &&
	   [ -f "$po/arch/x86/boot/bzImage" ]; then
		step "$name is up to date with the series and configuration"
		echo "$po/arch/x86/boot/bzImage"
		return
	fi
	start=$(date +%s)
	full_configure "$po" "$name" "$base" "$@"
	step "$name: building (${JFLAG:-the job slots of make check})"
	# shellcheck disable=SC2086
	kbuild "$name" "$po/build.log" kmake "$P/src" "$po" x86_64 $JFLAG bzImage modules ||
		die "$name: the build failed; see $po/build.log"
	kbuild_count "$po" "$po/build.log"
	kmake "$P/src" "$po" x86_64 INSTALL_MOD_PATH="$po/modroot" \
		INSTALL_MOD_STRIP=1 DEPMOD=/usr/sbin/depmod modules_install \
		>/dev/null || die "$name: modules_install failed"
	for m in $mods; do
		[ -n "$(find "$po/modroot" -name "$m.ko*")" ] ||
			die "$name: module $m was not built"
	done
	pack_modules "$P/src" "$po" || die "$name: cannot pack its modules"
	step "$name: built in $(($(date +%s) - start)) s"
	echo "$inputs" >"$po/stamp"
	echo "$po/arch/x86/boot/bzImage"
}

# NAME BASE OPTION...: the Debian packages of a "deb" line's kernel, with
# the kernel's own bindeb-pkg, in $UMHCAP_BUILD/kernel-deb (the packages
# go beside the object directory, where bindeb-pkg puts them).  Packages
# whose inputs have not changed are kept.  Prints their paths.
deb_kernel() {
	name=$1 base=$2
	shift 2
	d=$UMHCAP_BUILD/kernel-deb
	po=$d/obj
	need_tarball
	inputs=$(full_inputs "$base" "$@")
	if [ -f "$d/stamp" ] && [ "$(cat "$d/stamp")" = "$inputs" ] &&
	   ls "$d"/linux-image-*.deb >/dev/null 2>&1; then
		step "$name: the packages are up to date with the series and configuration"
		ls "$d"/*.deb
		return
	fi
	start=$(date +%s)
	rm -f "$d"/*.deb "$d"/*.buildinfo "$d"/*.changes "$d/stamp"
	full_configure "$po" "$name" "$base" "$@"
	rel=$(kmake "$P/src" "$po" x86_64 LOCALVERSION=-umhcap -s kernelrelease)
	step "$name: building $rel and its packages (${JFLAG:-the job slots of make check})"
	# Not kmake, which passes -s: without it, kbuild prints the lines
	# the ticker counts.
	# shellcheck disable=SC2086
	kbuild "$name" "$po/build.log" kernel_make "$P/src" "$po" ARCH=x86_64 \
		$JFLAG LOCALVERSION=-umhcap KDEB_PKGVERSION="$rel-1" bindeb-pkg ||
		die "$name: the build failed; see $po/build.log"
	kbuild_count "$po" "$po/build.log"
	ls "$d"/linux-image-*.deb >/dev/null 2>&1 ||
		die "$name: bindeb-pkg made no linux-image package; see $po/build.log"
	step "$name: built in $(($(date +%s) - start)) s"
	echo "$inputs" >"$d/stamp"
	ls "$d"/*.deb
}

# ACTION NAME...: the lines to run, all of ACTION's if none is named.
selected() {
	act=$1
	shift
	if [ $# -eq 0 ]; then
		lines | awk -v a="$act" '$2 == "objs" && (a == "objs" || $3 ~ /^small/) { print $1 }'
	else
		echo "$@"
	fi
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
link)
	[ -d "$P/src" ] || die "no patched tree; run 'make kernel'"
	sel=$(selected link "$@")
	echo "TAP version 13"
	echo "1..$(echo $sel | wc -w)"
	for name in $sel; do
		# shellcheck disable=SC2046
		set -- $(line_of "$name")
		case $2/$3 in objs/small*) ;; *) die "$name is not an objs line on the test kernel" ;; esac
		name=$1
		shift 2
		t0=$(date +%s)
		link_line "$name" "$@"
		step "$name: $(($(date +%s) - t0)) s"
	done ;;
objs)
	[ -r "$MATRIX" ] || die "no $MATRIX"
	[ -d "$P/src" ] && [ -d "$V/src" ] ||
		die "no patched or unpatched tree; run 'make kernel' and 'scripts/kernel.sh --vanilla vanilla'"
	sel=$(selected objs "$@")
	count=0
	for name in $sel; do
		# shellcheck disable=SC2046
		set -- $(line_of "$name")
		[ "$2" = objs ] || die "$name is not an objs line"
		tools=2
		case " $* " in *" sparse "*) tools=3 ;; esac
		count=$((count + tools))
	done
	echo "TAP version 13"
	echo "1..$count"
	# One make target a line, side by side as the job slots allow (a
	# line's configuring and 'make prepare' keep one core busy at
	# most).  Each line's results go to a file of its own, printed in
	# order.
	rm -rf "$M/tap"
	mkdir -p "$M/tap"
	{
		echo "all:$(for name in $sel; do printf ' %s' "$name"; done)"
		for name in $sel; do
			printf '%s:\n\t+@%s objs-one %s >%s\n' "$name" \
				"$TOP/scripts/matrix.sh" "$name" "$M/tap/$name"
		done
	} >"$M/objs.mk"
	# shellcheck disable=SC2086
	make -s -k $JFLAG -f "$M/objs.mk" >&2 || true
	for name in $sel; do
		cat "$M/tap/$name" 2>/dev/null || true
	done | awk '/^(not )?ok [0-9]+ / { n++; sub(/ok [0-9]+ /, "ok " n " ") } { print }' ;;
objs-one)
	# One "objs" line's results, kept while every input is as it was.
	[ $# -eq 1 ] || die "usage: matrix.sh objs-one NAME"
	# shellcheck disable=SC2046
	set -- $(line_of "$1")
	name=$1 base=$3
	shift 2
	key=$( { echo "$name $*"; series_text
		 case $base in
		 debian:*) ls -lL --time-style=+%s "/usr/src/linux-config-6.12/config.${base#debian:}.xz" ;;
		 *) cat "$TOP/config/umhcap.config" $(small_frags "$base") ;;
		 esac
		 ls -lL --time-style=+%s "$KSRC_TARBALL"
		 cat "$TOP/scripts/matrix.sh" "$TOP/scripts/lib.sh"
		 gcc --version; sparse --version 2>/dev/null; } |
		 sha256sum | cut -d' ' -f1)
	kept=$M/$name/results.$key
	if [ -f "$kept" ]; then
		step "$name: kept (configuration, tree, scripts and compilers unchanged)"
		echo "# $name: results of an earlier run whose every input was this run's"
		cat "$kept"
		exit 0
	fi
	t0=$(date +%s)
	objs_line "$name" "$@" >"$M/$name.tap"
	step "$name: $(($(date +%s) - t0)) s"
	cat "$M/$name.tap"
	# Only a clean result is kept: a failure is looked at again.
	if ! grep -q '^not ok' "$M/$name.tap"; then
		rm -f "$M/$name"/results.*
		mv "$M/$name.tap" "$kept"
	fi ;;
files)
	series_files ;;
list)
	[ $# -eq 1 ] || die "usage: matrix.sh list ACTION"
	lines | awk -v a="$1" '$2 == a || (a == "boot" && $2 ~ /^boot:/) { print $1 }' ;;
tests)
	[ $# -eq 1 ] || die "usage: matrix.sh tests NAME"
	# shellcheck disable=SC2046
	set -- $(line_of "$1")
	case $2 in boot:?*) echo "${2#boot:}" ;; *) die "$1 is not a boot line" ;; esac ;;
params)
	[ $# -eq 1 ] || die "usage: matrix.sh params NAME"
	# shellcheck disable=SC2046
	set -- $(line_of "$1")
	for opt in "$@"; do
		case $opt in param:*) printf '%s ' "${opt#param:}" ;; esac
	done
	echo ;;
skips)
	[ $# -eq 1 ] || die "usage: matrix.sh skips NAME"
	# shellcheck disable=SC2046
	set -- $(line_of "$1")
	for opt in "$@"; do
		case $opt in skip:?*) echo "${opt#skip:}" | tr , '\n' ;; esac
	done ;;
config)
	[ $# -eq 1 ] || die "usage: matrix.sh config NAME"
	# shellcheck disable=SC2046
	set -- $(line_of "$1")
	[ "$2" = full ] || die "$1 is not a full line"
	name=$1 base=$3
	shift 3
	full_configure "$M/$name-config" "$name" "$base" "$@" ;;
kernel)
	[ $# -eq 1 ] || die "usage: matrix.sh kernel NAME"
	# shellcheck disable=SC2046
	set -- $(line_of "$1")
	name=$1 base=$3
	if [ "$2" = full ]; then
		shift 3
		full_kernel "$name" "$base" "$@"
		exit
	fi
	shift 3
	[ "$(arch_of "$@")" = x86_64 ] || die "$name: only x86_64 kernels boot here"
	mkdir -p "$M"
	# A small+FRAG line's fragment is its options too: held to them below.
	{
		case $base in small+*) cat "$TOP/config/${base#small+}.config" ;; esac
		fragment "$base" "$@"
	} >"$M/$name-options.config"
	# Options turned off take what depends on them along: hold the
	# kernel to this line's options only.
	check=
	! grep -q '^# CONFIG_' "$M/$name-options.config" || check=--check-last
	# shellcheck disable=SC2046
	exec "$TOP/scripts/kernel.sh" $check --src patched "$name" $(small_frags "$base") \
		"$M/$name-options.config" ;;
deb)
	[ $# -eq 1 ] || die "usage: matrix.sh deb NAME"
	# shellcheck disable=SC2046
	set -- $(line_of "$1")
	[ "$2" = deb ] || die "$1 is not a deb line"
	lock_build
	name=$1 base=$3
	shift 3
	deb_kernel "$name" "$base" "$@" ;;
*)
	die "usage: matrix.sh objs [NAME...] | files | list ACTION | tests NAME | params NAME | skips NAME | config NAME | kernel NAME | deb NAME" ;;
esac
