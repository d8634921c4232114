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
export UMHCAP_BUILD TOP PATH

die() {
	echo "$(basename "$0"): error: $*" >&2
	exit 1
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
