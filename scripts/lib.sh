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
