#!/bin/sh
# Write the commits of the work tree (made by 'make edit') back into
# patches/, reproducibly: no dates of today, no commit hashes, no version
# signature, so an unchanged commit gives an unchanged file.
set -eu
. "$(dirname "$0")/lib.sh"

work=${1:-$UMHCAP_BUILD/work}
git -C "$work" rev-parse -q --verify base >/dev/null ||
	die "$work is not a work tree made by 'make edit'"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$work" format-patch -q --zero-commit --no-signature \
	--stat=72 --no-numbered -o "$tmp" base..HEAD
n=$(ls "$tmp" | wc -l)
[ "$n" -gt 0 ] || die "no commits above 'base' in $work"

find "$TOP/patches" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
cp "$tmp"/*.patch "$TOP/patches/"
(cd "$tmp" && ls ./*.patch | sed 's|^\./||') >"$TOP/patches/series"
step "wrote $n patches and patches/series"
