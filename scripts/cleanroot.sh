#!/bin/sh
# The README's promise, proved: on a minimal Debian 12 root with nothing
# but make and git (the two commands a reader needs before 'make'), a
# clean clone of this checkout runs 'make deps', 'make run', 'make tool'
# and 'make package', then the package's autopkgtest.  A package the
# harness needs and 'make deps' forgets fails here, named by 'make deps'
# itself.
#
#   cleanroot.sh OUTDIR
#
# The root is made with Debian's mmdebstrap from this machine's own apt
# sources, in $UMHCAP_BUILD/cleanroot, afresh every time.  Only caches are
# shared with it: the ccache directory and the downloaded .deb files
# ($UMHCAP_BUILD/apt-archives).  No installed package and no build tree
# is.  Mounts are made in a private mount namespace, so they vanish with
# it.  Under 'make check' the root's makes take their job slots from the
# run's (MAKEFLAGS), as every build of the run does.  OUTDIR gets the
# demo boot (console.log, tests.log) for scripts/ktap.c and the root's
# log: 'make run' is counted here, and nowhere else.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: cleanroot.sh OUTDIR"
lock_build
out=$1
[ "$(id -u)" -eq 0 ] || die "the clean root needs root (mmdebstrap --mode=root, chroot)"
command -v mmdebstrap >/dev/null || die "mmdebstrap missing; run 'make deps'"
git -C "$TOP" rev-parse -q --verify HEAD >/dev/null ||
	die "$TOP is not a git checkout; the clean root clones it"

root=$UMHCAP_BUILD/cleanroot
archives=$UMHCAP_BUILD/apt-archives
ccache=${CCACHE_DIR:-$UMHCAP_BUILD/ccache}
# Never remove a root something is still mounted on.
if grep -q " $root/" /proc/self/mounts; then
	die "something is mounted under $root; unmount it first"
fi
rm -rf "$root" "$out"
mkdir -p "$out" "$archives/partial" "$ccache"

# This machine's sources and its Acquire options (a snapshot mirror may
# need Check-Valid-Until "false"), not a mirror written down here.
sources=
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	 /etc/apt/sources.list.d/*.sources; do
	[ -s "$f" ] && sources="$sources $f"
done
[ -n "$sources" ] || die "no apt sources on this machine"
apt-config dump --format '%f "%v";%n' Acquire >"$out/apt-acquire.conf"

step "mmdebstrap: a minimal bookworm root in $root"
# With no descriptor of ours open but 0-2: apt's hooks hand mmdebstrap's
# pipe to dash as 'cat >&N', and dash takes no N above 9.  Under make
# check, the job server's pipe and the lock would push N there.
s=$(date +%s)
# shellcheck disable=SC2086
mmdebstrap --quiet --variant=minbase --mode=root \
	--aptopt="$out/apt-acquire.conf" --include=make,git \
	bookworm "$root" $sources >"$out/mmdebstrap.log" 2>&1 \
	3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- ||
	{ tail -n 20 "$out/mmdebstrap.log" >&2; die "mmdebstrap failed; see $out/mmdebstrap.log"; }
step "root made in $(($(date +%s) - s)) s"

git clone -q "$TOP" "$root/root/umhcap"
mkdir -p "$root/root/.cache/umhcap/ccache"

# The commands a reader types, as the reader types them, in the root.
cat >"$root/root/readme.sh" <<'EOF'
set -eu
cd /root/umhcap
export HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
echo "== make deps"
make deps
echo "== make run"
make run
echo "== make tool"
make tool
./umhcap/umhcap --help >/dev/null
echo "== make package"
make package
# The package's own tests (umhcap/debian/tests), as Debian's CI runs
# them, of the package installed in this throwaway root.
echo "== autopkgtest"
autopkgtest "$(ls /root/.cache/umhcap/pkg/umhcap_*_amd64.deb)" umhcap/ -- null
echo "== done"
EOF

step "in the root: make deps, make run, make tool, make package, autopkgtest (log: $out/root.log)"
s=$(date +%s)
rc=0
unshare --mount --propagation private sh -c '
	set -e
	root=$1 archives=$2 ccache=$3
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	mount --bind "$archives" "$root/var/cache/apt/archives"
	mount --bind "$ccache" "$root/root/.cache/umhcap/ccache"
	exec chroot "$root" /usr/bin/env -i TERM=dumb CI="${CI:-}" \
		MAKEFLAGS="${MAKEFLAGS:-}" UMHCAP_ACCEL="${UMHCAP_ACCEL:-}" \
		/bin/sh /root/readme.sh
' cleanroot "$root" "$archives" "$ccache" >"$out/root.log" 2>&1 || rc=$?
step "the root's make deps, run, tool and package took $(($(date +%s) - s)) s (exit $rc)"

demo=$root/root/.cache/umhcap/run/demo
[ -d "$demo" ] && cp "$demo/console.log" "$demo/tests.log" "$out/"
if [ $rc != 0 ]; then
	grep -e 'error' -e '^  ' "$out/root.log" | tail -n 20 >&2 || true
	die "the README's commands failed in a clean Debian root; see $out/root.log"
fi
# Keep the disk: the root holds a kernel tree and its objects.
rm -rf "$root"
