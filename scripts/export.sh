#!/bin/sh
# Write the commits of the work tree (made by 'make edit') back into
# patches/, reproducibly: no dates of today, no commit hashes, no version
# signature, and blob abbreviations of a fixed length (git's default
# grows with the repository), so an unchanged commit gives an unchanged
# file.
set -eu
. "$(dirname "$0")/lib.sh"

work=${1:-${UMHCAP_WORK:-$UMHCAP_BUILD/work}}
git -C "$work" rev-parse -q --verify base >/dev/null ||
	die "$work is not a work tree made by 'make edit'"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$work" -c core.abbrev=9 format-patch -q --zero-commit --no-signature \
	--stat=72 --no-numbered -o "$tmp" base..HEAD
n=$(ls "$tmp" | wc -l)
[ "$n" -gt 0 ] || die "no commits above 'base' in $work"

find "$TOP/patches" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
cp "$tmp"/*.patch "$TOP/patches/"
(cd "$tmp" && ls ./*.patch | sed 's|^\./||') >"$TOP/patches/series"
step "wrote $n patches and patches/series"

# The cover letter: patches/cover-letter.txt (subject, blank line, body),
# then the shortlog and diffstat of the series as it is now.
cover=$TOP/patches/0000-cover-letter.patch
{
	echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
	git -C "$work" log -1 --format='From: %an <%ae>%nDate: %aD' base..HEAD
	printf 'Subject: [PATCH 0/%d] %s\n' "$n" "$(head -n 1 "$TOP/patches/cover-letter.txt")"
	tail -n +2 "$TOP/patches/cover-letter.txt"
	echo
	git -C "$work" shortlog base..HEAD
	git -C "$work" diff --stat=72 base..HEAD
} >"$cover"
step "wrote $(basename "$cover")"
