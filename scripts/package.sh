#!/bin/sh
# 'make package': umhcap's Debian package, made with Debian's own tools
# from umhcap/debian/ (debhelper, dpkg-buildpackage), and held to
# lintian and blhc.  Built outside the checkout, which it leaves as it is.
#
#   package.sh
#
# The build's dh_auto_test runs umhcap's host tests (make check), with
# their own harness: no kernel tree is needed.  In the environment:
# DEB_BUILD_OPTIONS, Debian's (nocheck skips the tests; nostrip,
# parallel=N ...).
#
# In $UMHCAP_BUILD/pkg, made afresh: umhcap-VERSION/ (the copy it built
# in), the source package (umhcap_VERSION.dsc and .tar.xz, so that
# lintian reads debian/ too), umhcap_VERSION_ARCH.deb with its dbgsym
# package, .changes and .buildinfo, build.log, lintian.txt, blhc.txt.
# It fails on a build that fails (its tests included), on any lintian
# error or warning that umhcap/debian/ does not override, on any compile
# or link line of umhcap without the flags dpkg-buildflags gives it, and
# on a binary that is not PIE, full RELRO, fortified and stack-protected.
# The last line on stdout is the .deb's path.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || die "usage: package.sh (DEB_BUILD_OPTIONS from the environment)"
lock_build
for c in dpkg-buildpackage dh lintian blhc; do
	command -v "$c" >/dev/null || die "$c missing; run 'make deps'"
done
git -C "$TOP" rev-parse -q --verify HEAD >/dev/null ||
	die "$TOP is not a git checkout; the package is made of umhcap's tracked files"

src=$TOP/umhcap
out=$UMHCAP_BUILD/pkg
ver=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
# A native package: its version is umhcap's own, as --version prints it.
uver=$(sed -n 's/^#define[[:space:]]*UMHCAP_VERSION[[:space:]]*"\(.*\)"$/\1/p' "$src/umhcap.h")
[ "$ver" = "$uver" ] ||
	die "umhcap/debian/changelog is at $ver, umhcap.h's UMHCAP_VERSION at $uver: add a changelog entry (dch -v $uver)"
dir=$out/umhcap-$ver
deb=$out/umhcap_${ver}_$arch.deb

# umhcap's tracked files as the work tree has them, uncommitted changes
# included; a file not yet added, or deleted but not yet from git, is
# left out (the second list holds the deleted, so uniq -u drops them).
rm -rf "$out"
mkdir -p "$dir"
(cd "$src" && { git ls-files -z; git ls-files -z --deleted; } |
	sort -z | uniq -z -u | tar --null -T - -cf -) | tar -C "$dir" -xf - ||
	die "cannot copy umhcap's tracked files to $dir"

# Not this make's: MAKEFLAGS would carry a caller's job server and its
# command-line variables into debian/rules as overrides.  The flags are
# dpkg-buildflags', through debhelper, not a caller's CFLAGS.  Under a
# make that shares its job slots (make check) the build runs in the one
# slot its step holds; DEB_BUILD_OPTIONS=parallel=N, if given, decides.
jobs=${JFLAG:--j1}
case " ${DEB_BUILD_OPTIONS:-} " in
*" parallel="*) jobs= ;;
esac
step "dpkg-buildpackage in $dir (log: $out/build.log)"
s=$(date +%s)
rc=0
(
	unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS CPPFLAGS CXXFLAGS LDFLAGS
	# shellcheck disable=SC2086
	cd "$dir" && exec dpkg-buildpackage -us -uc $jobs
) >"$out/build.log" 2>&1 </dev/null || rc=$?
step "built in $(($(date +%s) - s)) s (exit $rc)"
if [ $rc != 0 ] || [ ! -f "$deb" ]; then
	tail -n 30 "$out/build.log" | sed 's/^/    /' >&2
	die "dpkg-buildpackage failed; see $out/build.log"
fi
# What the tests did, as their harness said it (nothing with nocheck).
grep -E -e '^# (PASSED|FAILED|Totals)' -e '^ok .* # SKIP' \
	"$out/build.log" | sed 's/^/    /' >&2 || true

# Every compile and link line of umhcap with dpkg-buildflags' flags,
# hardening=+all: -D_FORTIFY_SOURCE=2, -fstack-protector-strong, -Wformat
# -Werror=format-security, -Wl,-z,relro, -Wl,-z,now (PIE is gcc's
# default here, and the binary is checked for it below).  The tests are
# left out: they build with -O0, as the harness needs, and are not in
# the package.
rc=0
blhc --bindnow --ignore-line '.* -o tests/(umhcap_test|fake_tracefs\.so) .*' \
	"$out/build.log" >"$out/blhc.txt" 2>&1 || rc=$?
if [ $rc != 0 ]; then
	sed 's/^/    /' "$out/blhc.txt" >&2
	die "blhc: build flags missing (exit $rc); see $out/blhc.txt"
fi
# No -Werror: a newer compiler's new warning must not fail a distribution's
# build (umhcap/debian/rules passes WERROR=).  dpkg-buildflags' own
# -Werror=format-security is Debian's choice, and stays.
! grep -n -E -e '(^| )-Werror( |$)' "$out/build.log" >"$out/werror.txt" ||
	die "the package build compiles with -Werror; see $out/werror.txt"
n=$(grep -c -e ' -D_FORTIFY_SOURCE=2 .* -fstack-protector-strong .* -c -o [a-z]*\.o ' "$out/build.log" || true)
step "blhc: every compile line has the hardening flags ($n objects with -D_FORTIFY_SOURCE=2 and -fstack-protector-strong)"

# The binary as shipped: PIE, full RELRO, fortified, stack protector.
x=$out/extract
dpkg-deb -x "$deb" "$x"
bin=$x/usr/sbin/umhcap
readelf -h "$bin" | grep -q 'Type:[[:space:]]*DYN' || die "$bin is not PIE"
readelf -lW "$bin" | grep -q GNU_RELRO || die "$bin has no RELRO segment"
readelf -dW "$bin" | grep -q 'FLAGS.*BIND_NOW' || die "$bin is not linked with -z now"
readelf --dyn-syms -W "$bin" | grep -q ' __stack_chk_fail' ||
	die "$bin calls no __stack_chk_fail: no stack protector"
readelf --dyn-syms -W "$bin" | grep -Eq ' __[a-z]+_chk@' ||
	die "$bin calls no fortified function (__*_chk)"
rm -rf "$x"

# lintian on the .changes: the source package, both .deb files and the
# .buildinfo.  Information, pedantic and overridden tags (O:, with the
# override's comment) are shown, and do not fail.
changes=$out/umhcap_${ver}_$arch.changes
rc=0
lintian --info --display-info --pedantic --show-overrides \
	--fail-on error,warning \
	"$changes" >"$out/lintian.txt" 2>"$out/lintian.err" || rc=$?
if [ $rc != 0 ] || grep -q '^[EW]: ' "$out/lintian.txt"; then
	cat "$out/lintian.txt" "$out/lintian.err" | grep -v '^N:' | sed 's/^/    /' >&2
	die "lintian: errors or warnings not overridden (exit $rc); see $out/lintian.txt"
fi
step "lintian: no error or warning; $(grep -c '^[IP]: ' "$out/lintian.txt" || true) info or pedantic tags, $(grep -c '^O: ' "$out/lintian.txt" || true) overridden (in $out/lintian.txt)"

step "$(basename "$deb"): $(stat -c %s "$deb") bytes; Depends: $(dpkg-deb -f "$deb" Depends)"
echo "$deb"
