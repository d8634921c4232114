#!/bin/sh
# Debian's linux-source-6.12, extracted once, and every tree the harness
# builds from checked out of it.
#
#   tree.sh DIR            DIR holds the tree with the whole series applied
#   tree.sh --vanilla DIR  ... with no patch (the unpatched baseline)
#   tree.sh --state K DIR  ... with the first K patches of the series
#   tree.sh --states       "K TREE SUBJECT" for K = 0 (the base) to the
#                          last patch: the tree object of each state
#   tree.sh --git DIR      DIR a git work tree, one commit per patch
#                          ('make edit'), made afresh
#
# The tarball is extracted once into a git repository,
# $UMHCAP_BUILD/src.git, whose one commit is the tarball as it is.  The
# states of the series are trees in it, made with 'git apply --cached',
# never a work tree of their own.  DIR is brought to a state with
# 'git read-tree --reset -u', which writes only the files that differ from
# the state DIR was in: a kernel built out of DIR (O=) then rebuilds only
# what those files reach.  DIR's index is kept beside it, as
# .NAME.index; DIR itself holds no .git, so the kernel's build sees a
# plain tree, as it does in an extracted one.
set -eu
. "$(dirname "$0")/lib.sh"

G=$UMHCAP_BUILD/src.git
gitg() { git --git-dir="$G" "$@"; }

mode=apply
k=
case "${1:-}" in
--git|--vanilla|--states) mode=${1#--}; shift ;;
--state) mode=state k=${2:-}; shift 2 || die "usage: tree.sh --state K DIR" ;;
esac
case $mode in
states) [ $# -eq 0 ] || die "usage: tree.sh --states" ;;
*) [ $# -eq 1 ] || die "usage: tree.sh [--git|--vanilla|--state K] DIR" ;;
esac
dir=${1:-}
need_tarball

# Identical commits wherever they are made, so that two machines, or the
# clean root and this one, name the same tree the same way.
export GIT_AUTHOR_NAME="umhcap developers" GIT_AUTHOR_EMAIL=devel@umhcap.org
export GIT_COMMITTER_NAME="umhcap developers" GIT_COMMITTER_EMAIL=devel@umhcap.org
export GIT_AUTHOR_DATE="@0 +0000" GIT_COMMITTER_DATE="@0 +0000"

# The repository and its base commit, made once per tarball.  The tree
# the tarball was extracted into is kept, as "spare", for the first DIR
# that asks for a tree: it moves there instead of a checkout.
key=$(ls -lL --time-style=+%s "$KSRC_TARBALL" | sha256sum | cut -d' ' -f1)
base_commit() {
	[ -f "$G/umhcap-base" ] && [ "$(cut -d' ' -f1 "$G/umhcap-base")" = "$key" ] &&
		cut -d' ' -f2 "$G/umhcap-base"
}
make_base() {
	base=$(base_commit) && return 0
	rm -rf "$G" "$G.spare" "$G.spare.index"
	mkdir -p "$G.spare"
	step "extracting $(basename "$KSRC_TARBALL") (once; kept in $G)"
	tar -xf "$KSRC_TARBALL" -C "$G.spare" --strip-components=1
	git init -q --bare "$G"
	# Loose objects, lightly compressed: written once, read by every
	# checkout.  Debian's .gitignore ignores the whole top level: force.
	gitg config core.compression 1
	gitg config core.looseCompression 1
	GIT_INDEX_FILE=$G.spare.index gitg --work-tree="$G.spare" add -A -f .
	t=$(GIT_INDEX_FILE=$G.spare.index gitg write-tree)
	ver=$(make -s -C "$G.spare" kernelversion)
	base=$(echo "Linux $ver (Debian linux-source-6.12 $(dpkg-query -W \
		-f='${Version}' linux-source-6.12 2>/dev/null))" |
		gitg commit-tree "$t")
	gitg update-ref refs/heads/main "$base"
	gitg tag base "$base"
	echo "$key $base" >"$G/umhcap-base"
	step "Linux $ver: base commit $(echo "$base" | cut -c1-12)"
}

# PATCH: its subject, unfolded, without "[PATCH]".
subject() {
	awk '/^Subject: / { s = $0; sub(/^Subject: (\[PATCH[^]]*\] )?/, "", s)
		while ((getline l) > 0 && l ~ /^[ \t]/) s = s l
		print s; exit }' "$1"
}

# The tree of every state of the series, cached by the series' text.
states() {
	skey=$( { echo "$base"; series_text; } | sha256sum | cut -d' ' -f1)
	cache=$G/umhcap-states/$skey
	if [ ! -f "$cache" ]; then
		mkdir -p "$G/umhcap-states"
		idx=$(mktemp)
		trap 'rm -f "$idx" "$idx.lock"' EXIT
		rm -f "$idx"
		GIT_INDEX_FILE=$idx gitg read-tree "$base"
		k=0
		echo "0 $(GIT_INDEX_FILE=$idx gitg write-tree) (base)" >"$cache.tmp"
		while read -r p; do
			k=$((k + 1))
			GIT_INDEX_FILE=$idx gitg apply --cached "$TOP/patches/$p" ||
				die "patches/$p does not apply to $(gitg log -1 --format=%s "$base")"
			echo "$k $(GIT_INDEX_FILE=$idx gitg write-tree) $(subject "$TOP/patches/$p")" \
				>>"$cache.tmp"
		done <"$TOP/patches/series"
		mv "$cache.tmp" "$cache"
		rm -f "$idx"
		trap - EXIT
	fi
	cat "$cache"
}

# DIR TREE: bring DIR to TREE, writing only what differs.
checkout() {
	d=$1 tree=$2
	idx=$(dirname "$d")/.$(basename "$d").index
	mkdir -p "$(dirname "$d")"
	if [ ! -d "$d" ] && [ -d "$G.spare" ]; then
		mv "$G.spare" "$d"
		mv "$G.spare.index" "$idx"
	fi
	[ -f "$idx" ] || rm -rf "$d"
	mkdir -p "$d"
	# A tree somebody changed by hand is put back as well; a run killed
	# while checking out leaves its index's lock, which no other run
	# holds (scripts/lib.sh, lock_build).
	rm -f "$idx.lock"
	GIT_INDEX_FILE=$idx gitg --work-tree="$d" read-tree --reset -u "$tree" ||
		die "cannot check out $tree into $d"
}

# One repository, one writer: the base and the states are made under a lock.
mkdir -p "$UMHCAP_BUILD"
exec 8>"$G.lock"
flock 8
make_base
case $mode in
states)
	states
	exit 0 ;;
git)
	flock -u 8
	rm -rf "$dir"
	git clone -q --shared --no-checkout "$G" "$dir"
	cd "$dir"
	# Commits made here become patches of the series: sign as its authors,
	# dated as git am dates them.
	unset GIT_AUTHOR_DATE GIT_COMMITTER_DATE
	git config user.name "umhcap developers"
	git config user.email "devel@umhcap.org"
	step "checking out the base into $dir"
	git checkout -q -b work base
	while read -r p; do
		git am -q --keep-cr "$TOP/patches/$p" ||
			die "git am patches/$p failed in $dir; see 'git -C $dir am --show-current-patch'"
	done <"$TOP/patches/series"
	step "applied $(grep -c . "$TOP/patches/series") patches as commits"
	exit 0 ;;
vanilla) k=0 ;;
apply) k=$(grep -c . "$TOP/patches/series") ;;
state) case $k in ''|*[!0-9]*) die "tree.sh --state: K must be a number, not '$k'" ;; esac ;;
esac
line=$(states | awk -v k="$k" '$1 == k')
[ -n "$line" ] || die "the series has no state $k"
flock -u 8
set -- $line
checkout "$dir" "$2"
step "$dir: state $k of $(grep -c . "$TOP/patches/series") ($2)"
