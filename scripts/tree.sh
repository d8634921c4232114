#!/bin/sh
# Extract Debian's linux-source-6.12 afresh into DIR and apply the series.
#
#   tree.sh DIR            apply patches/ with 'git apply' (for builds)
#   tree.sh --git DIR      make DIR a git work tree, one commit per patch
#   tree.sh --vanilla DIR  no patches (the unpatched baseline)
set -eu
. "$(dirname "$0")/lib.sh"

mode=apply
case "${1:-}" in
--git|--vanilla) mode=${1#--}; shift ;;
esac
[ $# -eq 1 ] || die "usage: tree.sh [--git|--vanilla] DIR"
dir=$1
need_tarball

rm -rf "$dir"
mkdir -p "$dir"
step "extracting $(basename "$KSRC_TARBALL") into $dir"
tar -xf "$KSRC_TARBALL" -C "$dir" --strip-components=1
ver=$(make -s -C "$dir" kernelversion)
step "Linux $ver from Debian $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)"

series=$TOP/patches/series
case $mode in
vanilla)
	exit 0 ;;
apply)
	# The ceiling keeps git from finding a repository above DIR.
	cd "$dir"
	while read -r p; do
		GIT_CEILING_DIRECTORIES=$(dirname "$dir") \
			git apply -p1 "$TOP/patches/$p" ||
			die "patches/$p does not apply to Linux $ver"
	done <"$series" ;;
git)
	cd "$dir"
	git init -q
	# Commits made here become patches of the series: sign as its authors.
	git config user.name "umhcap developers"
	git config user.email "devel@umhcap.org"
	# Debian's .gitignore ignores the whole top level: force it.
	git add -A -f .
	git commit -q -m "Linux $ver (Debian linux-source-6.12)"
	git tag base
	while read -r p; do
		git am -q --keep-cr "$TOP/patches/$p" ||
			die "git am patches/$p failed in $dir; see 'git -C $dir am --show-current-patch'"
	done <"$series" ;;
esac
step "applied $(grep -c . "$series") patches"
