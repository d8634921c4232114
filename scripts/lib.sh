# Shared settings for the umhcap harness scripts.  Sourced, not run.
# shellcheck shell=sh

# Where kernel trees, objects and guest images live.  Never inside the
# checkout: a kernel tree is never committed.
UMHCAP_BUILD=${UMHCAP_BUILD:-${HOME:-/root}/.cache/umhcap}
TOP=$(cd "$(dirname "$0")/.." && pwd)
KSRC_TARBALL=${KSRC_TARBALL:-$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n 1)}
JOBS=${JOBS:-$(nproc)}
# Debian's tools only.  A compiler in a user's PATH (rustup's rustc, say)
# would change the kernel's .config, and with it every object, so that the
# clean root and this machine share no ccache hit.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
# One locale everywhere: ccache hashes LANG and LC_*, and the clean root
# (env -i) has none, so that a locale here would cost it every hit.
LC_ALL=C
unset LANG LANGUAGE LC_CTYPE LC_MESSAGES
export UMHCAP_BUILD TOP PATH LC_ALL

# -jN for a make, or nothing under a make that shares its job slots
# (make check's step graph, scripts/check.mk): a build then takes the
# cores no boot is using, and never more than the machine has.
case " ${MAKEFLAGS:-} " in
*" --jobserver-auth="*|*" --jobserver-fds="*) JFLAG= ;;
*) JFLAG=-j$JOBS ;;
esac

die() {
	echo "$(basename "$0"): error: $*" >&2
	exit 1
}

# One run per build directory: 'make check', a kernel, a guest or a boot
# writes where another run reads.  Taken by the first script of a run;
# the scripts it calls find it held (UMHCAP_LOCKED) and go on.
lock_build() {
	[ "${UMHCAP_LOCKED:-}" = "$UMHCAP_BUILD" ] && return 0
	mkdir -p "$UMHCAP_BUILD"
	exec 9>>"$UMHCAP_BUILD/.lock"
	if ! flock -n 9; then
		die "another run is using $UMHCAP_BUILD (pid $(cat "$UMHCAP_BUILD/.lock.pid" 2>/dev/null || echo '?')); wait for it, or set UMHCAP_BUILD"
	fi
	echo $$ >"$UMHCAP_BUILD/.lock.pid"
	UMHCAP_LOCKED=$UMHCAP_BUILD
	export UMHCAP_LOCKED
}

step() {
	printf '[%s] %s: %s\n' "$(date +%H:%M:%S)" "$(basename "$0" .sh)" "$*" >&2
}

need_tarball() {
	[ -n "$KSRC_TARBALL" ] && [ -r "$KSRC_TARBALL" ] ||
		die "no /usr/src/linux-source-6.12.tar.*; run 'make deps' (installs Debian's linux-source-6.12)"
}

# ELF...: the shared libraries the ELF files load, with their interpreter,
# one path per line, as the dynamic linker finds them on this machine.
elf_libs() {
	ldd "$@" | sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' \
		-e 's/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p' | sort -u
}

# OBJ: where the build signed its modules (CONFIG_MODULE_SIG_ALL), sign
# test_umh.ko again, with a key of the harness's own that the kernel does
# not hold, made as the build made its own, and install the copy beside
# the modules as umh-selftest/test_umh-other-key.ko.  module_test has a
# helper load it.
other_key_module() {
	grep -q '^CONFIG_MODULE_SIG_ALL=y' "$1/.config" || return 0
	ko=$(find "$1" -path "$1/modroot" -prune -o -name test_umh.ko -print)
	[ -n "$ko" ] || return 0
	hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$1/.config")
	key=$1/umh-other-key.pem
	dir=$1/modroot/lib/modules/$(cat "$1/include/config/kernel.release")/umh-selftest
	[ -s "$key" ] ||
		openssl req -new -nodes -utf8 -"$hash" -days 36500 -batch -x509 \
			-config "$1/certs/x509.genkey" -outform PEM \
			-out "$key" -keyout "$key" 2>/dev/null || return 1
	mkdir -p "$dir" &&
		"$1/scripts/sign-file" "$hash" "$key" "$key" "$ko" \
			"$dir/test_umh-other-key.ko"
}

# SRC OBJ: pack OBJ/modroot, where modules_install put a kernel's modules,
# into OBJ/modules.cpio with the tree's gen_init_cpio.  scripts/boot.sh
# appends it to the guest's initramfs.
pack_modules() {
	{
		echo "dir /lib 0755 0 0"
		(cd "$2/modroot" && find lib -mindepth 1 | sort) | while read -r f; do
			if [ -d "$2/modroot/$f" ]; then
				echo "dir /$f 0755 0 0"
			elif [ -L "$2/modroot/$f" ]; then
				: # build and source links point into this machine
			else
				echo "file /$f $2/modroot/$f 0644 0 0"
			fi
		done
	} >"$2/modules.list"
	cc -O2 -o "$2/gen_init_cpio" "$1/usr/gen_init_cpio.c" &&
		"$2/gen_init_cpio" "$2/modules.list" >"$2/modules.cpio"
}

# The series as it is applied: patches/series and the patches it names.
# Not the cover letter, which no build reads.
series_text() {
	# shellcheck disable=SC2046
	(cd "$TOP/patches" && cat series $(cat series))
}

# [-s] SRC OBJ [ARCH=A] ARGS...: the kernel's make, as every script runs
# it: in the tree SRC, its objects in OBJ, compiling through ccache.  A
# first -s is make's, the caller's choice: a build that kbuild follows
# goes without it, so that kbuild prints the lines the ticker counts.
# ARCH=A, right after OBJ, is the architecture, if not this machine's.
# The environment is this make's alone: paths relative to the build
# directory, so that trees in different places share ccache's hits; and
# one build date, user and host, which the kernel's version string holds,
# so that a build is the same wherever and whenever it runs.  The
# compiler is scripts/cc.sh: gcc through ccache, in its depend mode.
kernel_make() {
	_kq=
	if [ "${1:-}" = -s ]; then
		_kq=-s
		shift
	fi
	_ksrc=$1 _kobj=$2 _karch=
	shift 2
	case ${1:-} in ARCH=*) _karch=$1; shift ;; esac
	# shellcheck disable=SC2086
	CCACHE_DIR=${CCACHE_DIR:-$UMHCAP_BUILD/ccache} \
	CCACHE_BASEDIR=$UMHCAP_BUILD CCACHE_NOHASHDIR=1 \
	KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970' \
	KBUILD_BUILD_USER=umhcap KBUILD_BUILD_HOST=umhcap \
		make $_kq -C "$_ksrc" O="$_kobj" $_karch \
		CC="$TOP/scripts/cc.sh" HOSTCC="$TOP/scripts/cc.sh" "$@"
}

# NAME LOG COMMAND...: run a kernel make, its own lines in LOG, and say
# how far it has got every 30 s: the objects compiled so far, of how many
# the last whole build of NAME had, and the line make printed last.  On
# failure the errors are shown and the status returned.
kbuild() {
	_name=$1 _log=$2
	shift 2
	_total=$(cat "$_log.objects" 2>/dev/null || echo '?')
	(
		# The sleep goes with the ticker: a pipe it held open would
		# keep a reader of this script's output waiting.
		trap 'kill $_s 2>/dev/null; exit 0' TERM
		while :; do
			sleep 30 &
			_s=$!
			wait $_s
			printf '[%s] %s: %s: %s objects compiled (a whole build: %s); at: %s\n' \
				"$(date +%H:%M:%S)" "$(basename "$0" .sh)" "$_name" \
				"$(grep -c '^  CC' "$_log" 2>/dev/null || true)" "$_total" \
				"$(grep '^  [A-Z]' "$_log" 2>/dev/null | tail -n 1 | tr -s ' ')" >&2
		done
	) >&2 </dev/null &
	_tick=$!
	_rc=0
	# Its own lines, even under 'make -s': kbuild goes silent on an s
	# among the one-letter flags MAKEFLAGS passes down.
	MAKEFLAGS=$(printf '%s' "${MAKEFLAGS:-}" | sed 's/^\([A-Za-z]*\)s/\1/') \
		"$@" >"$_log" 2>&1 || _rc=$?
	kill $_tick 2>/dev/null || true
	wait $_tick 2>/dev/null || true
	if [ $_rc != 0 ]; then
		{ grep -E -e 'error|Error|undefined reference' "$_log" | head -n 30
		  echo "... the last lines of $_log:"; tail -n 15 "$_log"; } |
			sed 's/^/    /' >&2
	fi
	return $_rc
}

# OBJ LOG: how many objects a whole build of OBJ has, for kbuild's count.
kbuild_count() {
	find "$1" -name '*.o' ! -path '*/tools/*' | wc -l >"$2.objects"
}

# KERNEL: the accelerator for QEMU, "-accel kvm" or "-accel tcg" on the
# first line and "# why" on the second.  scripts/accel.c looks at
# /dev/kvm; where it says KVM, KERNEL is booted under KVM once, and must
# print its banner within KVM_VERIFY seconds (default 20): nested KVM can
# run accel.c's page of real mode and still hang a kernel.  That answer
# is kept for this machine (its kernel, QEMU and /dev/kvm), in
# $UMHCAP_BUILD/accel.verdict.  UMHCAP_ACCEL=tcg|kvm|auto chooses.
accel_choose() {
	_bin=$UMHCAP_BUILD/accel
	if [ ! -x "$_bin" ] || [ "$TOP/scripts/accel.c" -nt "$_bin" ]; then
		mkdir -p "$UMHCAP_BUILD"
		cc -O2 -Wall -o "$_bin.$$" "$TOP/scripts/accel.c" &&
			mv "$_bin.$$" "$_bin" || die "cannot build scripts/accel.c"
	fi
	_a=$(UMHCAP_ACCEL=${UMHCAP_ACCEL:-auto} "$_bin" --why) ||
		die "no accelerator as UMHCAP_ACCEL=${UMHCAP_ACCEL:-} asks (see above)"
	case $_a in
	"-accel tcg"*) echo "$_a"; return 0 ;;
	esac
	_v=$UMHCAP_BUILD/accel.verdict
	_key=$( { uname -r; qemu-system-x86_64 --version | head -n 1
		  ls -lL /dev/kvm; } | sha256sum | cut -c1-16)
	if [ ! -f "$_v" ] || [ "$(head -n 1 "$_v")" != "$_key" ]; then
		_log=$_v.$$.log
		timeout "${KVM_VERIFY:-20}" qemu-system-x86_64 -accel kvm -M pc \
			-m 512 -nodefaults -no-reboot -display none -kernel "$1" \
			-append "console=ttyS0 earlyprintk=serial,ttyS0 panic=-1" \
			-serial file:"$_log" </dev/null >/dev/null 2>&1 || true
		if grep -q 'Linux version' "$_log" 2>/dev/null; then
			printf '%s\n-accel kvm\n%s; a kernel booted under it\n' \
				"$_key" "$(echo "$_a" | tail -n 1)" >"$_v.$$"
		else
			printf '%s\n-accel tcg\n# tcg: /dev/kvm ran accel.c, but no kernel printed its banner under KVM in %s s\n' \
				"$_key" "${KVM_VERIFY:-20}" >"$_v.$$"
		fi
		rm -f "$_log"
		mv "$_v.$$" "$_v"
	fi
	case ${UMHCAP_ACCEL:-auto}/$(sed -n 2p "$_v") in
	kvm/"-accel tcg") die "UMHCAP_ACCEL=kvm, but $(sed -n 3p "$_v" | sed 's/^# tcg: //')" ;;
	esac
	tail -n +2 "$_v"
}

# FROM TO: start the object directory TO as a copy of FROM, for a kernel
# of the same tree in another configuration: kbuild then rebuilds only
# what the options that differ reach.  Times are kept.  Paths are made
# TO's: objtool's own build (tools/) records FROM's absolute path, and
# every object's dependencies are relative to the directory it was
# built in (ccache's base_dir turns the compiler's paths relative), so
# TO's copies would name files that do not exist from TO, which make
# takes for unchanged, and modpost fails to open.  TO/.seeded marks a
# directory seeded this way.
seed_objs() {
	rm -rf "$2"
	mkdir -p "$(dirname "$2")"
	cp -a "$1" "$2"
	rm -rf "$2/modroot" "$2/modules.cpio" "$2/modules.list"
	_src=$(readlink -f "$1/source")
	_from=$(realpath -m --relative-to="$1" "$_src")
	_to=$(realpath -m --relative-to="$2" "$_src")
	find "$2" -name '*.cmd' -type f | while read -r f; do
		sed -e "s|$1/|$2/|g" -e "s|\([ =]\)$_from/|\1$_to/|g" \
			"$f" >"$f.seed" && touch -r "$f" "$f.seed" && mv "$f.seed" "$f"
	done
	echo "$1" >"$2/.seeded"
}
