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

# Everything is written beside patches/ first, then put in its place in
# two renames with ^C and the like ignored: an export stopped at any
# point before leaves patches/ as it was, and one stopped after has
# written it whole.
new=$TOP/.patches.new.$$
old=$TOP/.patches.old.$$
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$new"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
git -C "$work" -c core.abbrev=9 format-patch -q --zero-commit --no-signature \
	--stat=72 --no-numbered -o "$tmp" base..HEAD
n=$(ls "$tmp" | wc -l)
[ "$n" -gt 0 ] || die "no commits above 'base' in $work"

# What patches/ holds besides the series (cover-letter.txt), then the series.
mkdir "$new"
(cd "$TOP/patches" && find . -maxdepth 1 -type f ! -name series \
	! -name '[0-9][0-9][0-9][0-9]-*.patch' -exec cp -p {} "$new/" \;)
cp "$tmp"/*.patch "$new/"
(cd "$tmp" && ls ./*.patch | sed 's|^\./||') >"$new/series"

# The cover letter: patches/cover-letter.txt (subject, blank line, body),
# then the shortlog and diffstat of the series as it is now.
{
	echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
	git -C "$work" log -1 --format='From: %an <%ae>%nDate: %aD' base..HEAD
	printf 'Subject: [PATCH 0/%d] %s\n' "$n" "$(head -n 1 "$new/cover-letter.txt")"
	tail -n +2 "$new/cover-letter.txt"
	echo
	git -C "$work" shortlog base..HEAD
	git -C "$work" diff --stat=72 base..HEAD
} >"$new/0000-cover-letter.patch"

trap '' INT TERM HUP
mv "$TOP/patches" "$old"
mv "$new" "$TOP/patches"
rm -rf "$old"
trap 'exit 130' INT
trap 'exit 143' TERM HUP
step "wrote $n patches, patches/series and patches/0000-cover-letter.patch"
