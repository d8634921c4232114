#!/bin/sh
# The static gates of the series, as KTAP on stdout:
#   - checkpatch.pl --strict on every patch: no error, no warning, no check;
#   - docutils reads every document the series changes with no more
#     warnings than unpatched;
#   - every patch builds on its own (the series is bisectable);
#   - sparse (make C=2) on the C files the series touches: no warning in
#     files it adds, no more than the unpatched tree in files it changes;
#   - W=1: likewise, no new warning.
#
#   gates.sh PATCHED VANILLA
# PATCHED and VANILLA are $UMHCAP_BUILD/NAME directories of trees built
# by kernel.sh (src/ and obj/).  Progress goes to stderr.
set -eu
. "$(dirname "$0")/lib.sh"
lock_build

[ $# -eq 2 ] || die "usage: gates.sh PATCHED VANILLA"
P=$1 V=$2
series=$TOP/patches/series
n=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); echo "not ok $n $*"; }
check() { if [ "$1" = 0 ]; then shift; ok "$@"; else shift; notok "$@"; fi; }

npatch=$(grep -c . "$series")
# The C files the series adds or changes, from the patches themselves.
files=$("$TOP/scripts/matrix.sh" files)
nfiles=$(echo "$files" | wc -w)
# And its reStructuredText, which 'make htmldocs' reads.
rst=$(series_text | sed -n 's|^+++ b/\(Documentation/.*\.rst\)$|\1|p' | sort -u)
nrst=$(echo "$rst" | wc -w)
echo "TAP version 13"
echo "1..$((npatch * 2 + nfiles * 2 + 1 + nrst))"

step "checkpatch.pl --strict on $npatch patches"
while read -r p; do
	# From the tree, and with Debian's python3 (python3-ply and
	# python3-git), for spdxcheck.py.  FILE_PATH_CHANGES ("does
	# MAINTAINERS need updating?") is answered exactly below instead.
	if out=$(cd "$P/src" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl \
		--strict --quiet --no-summary --show-types \
		--ignore FILE_PATH_CHANGES \
		"$TOP/patches/$p" 2>&1) && [ -z "$out" ]; then
		rc=0
	else
		rc=1
	fi
	[ $rc = 0 ] || echo "$out" | sed 's/^/# /'
	check $rc "checkpatch --strict $p"
done <"$series"

# Each document as docutils, which Sphinx parses it with, reads it: no
# more warnings (a malformed table, an unclosed literal) than unpatched,
# none in a document the series adds.  Sphinx's own directives (toctree)
# are unknown to docutils, patched or not.
docutils_warnings() {
	[ -f "$1" ] || { echo 0; return; }
	/usr/bin/python3 -m docutils --report=warning "$1" /dev/null 2>&1 |
		grep -c '^[^ ]*:[0-9]*: ([A-Z]*/[0-9])' || true
}
for f in $rst; do
	was=$(docutils_warnings "$V/src/$f")
	now=$(docutils_warnings "$P/src/$f")
	[ "$now" -le "$was" ] ||
		/usr/bin/python3 -m docutils --report=warning "$P/src/$f" /dev/null 2>&1 |
		grep '^[^ ]*:[0-9]*: ([A-Z]*/[0-9])' | sed 's/^/# /'
	check $([ "$now" -le "$was" ] && echo 0 || echo 1) \
		"docutils: $f has $now warnings, unpatched $was"
done

# Every file the series adds is under an F: line of the entry it extends,
# KERNEL USERMODE HELPER.  An F: pattern is a file, a directory (all
# below it) or a glob, as get_maintainer.pl reads them.
added=$(awk '/^diff --git /{f=$4} /^new file mode/{sub("^b/", "", f); print f}' \
	"$TOP"/patches/0[0-9][0-9][0-9]-*.patch | sort -u)
entry=$(sed -n '/^KERNEL USERMODE HELPER$/,/^$/s/^F:[[:space:]]*//p' \
	"$P/src/MAINTAINERS")
orphans=
for f in $added; do
	covered=0
	for pat in $entry; do
		case $pat in
		*/) case $f in "$pat"*) covered=1 ;; esac ;;
		# shellcheck disable=SC2254
		*) case $f in $pat) covered=1 ;; esac ;;
		esac
	done
	[ $covered = 1 ] || orphans="$orphans $f"
done
[ -z "$orphans" ] || echo "# not in MAINTAINERS:$orphans"
check $([ -z "$orphans" ] && [ -n "$added" ] && echo 0 || echo 1) \
	"MAINTAINERS covers the $(echo "$added" | wc -w) files the series adds"

# Bisectability: the tree after each patch, built with the series' own
# options wherever that state has them (its KUnit tests, test_umh), so
# that every state compiles all it contains.  The states are checked
# out one after another into one tree, which writes only the files a
# patch changes: each build compiles what the patch reaches.  A state
# built before, with the same tree, configuration and scripts, is not
# built again, nor one whose patch changes only what no build reads
# (its documents, its selftests): its kernel is the state's before.
B=$UMHCAP_BUILD/bisect
mkdir -p "$B/stamps"
# The objects of the C files the series adds or changes, tests included.
series_text | sed -n 's|^+++ b/\(.*\)\.c$|\1.o|p' | grep -v '^tools/' |
	sort -u >"$B/series-objs"
"$TOP/scripts/tree.sh" --states >"$B/states"
[ "$(wc -l <"$B/states")" = $((npatch + 1)) ] ||
	die "tree.sh --states gave $(wc -l <"$B/states") states for $npatch patches"
frags="$TOP/config/umhcap.config $TOP/config/series.config"
# The options the series' fragment asks for, as NAME=VALUE.
series_opts=$(sed -n 's/^CONFIG_\([A-Za-z0-9_]*=.*\)$/\1/p' "$TOP/config/series.config")
kmakeb() {
	kernel_make "$B/src" "$B/obj" "$@"
}
# TREE-BEFORE TREE: what TREE changes that a kernel build reads.  Not
# MAINTAINERS, the selftests (tools/testing/), nor Documentation/ but
# its Kconfig files, which the top Kconfig sources.
built_changes() {
	git --git-dir="$UMHCAP_BUILD/src.git" diff --name-only "$1" "$2" |
		awk -F/ '$0 != "MAINTAINERS" && $0 !~ /^tools\/testing\// &&
			($1 != "Documentation" || $NF ~ /^Kconfig/)'
}
step "bisect: building after each of $npatch patches (log: $B/build.log)"
i=0
rc=1
prev=
while read -r k tree subject; do
	before=$prev
	prev=$tree
	[ "$k" != 0 ] || continue
	i=$k
	# A patch that changes nothing a build reads leaves the kernel of
	# the state before it, whose verdict is this one's.
	if [ "$k" -gt 1 ] && [ -z "$(built_changes "$before" "$tree")" ]; then
		check $rc "builds after patch $i: $subject (the kernel of patch $((i - 1)): it changes no file a build reads)"
		continue
	fi
	key=$( { echo "$tree"; cat $frags "$TOP/scripts/gates.sh" \
		"$TOP/scripts/lib.sh"; gcc --version; } | sha256sum | cut -d' ' -f1)
	if [ -f "$B/stamps/$key" ]; then
		sed 's/^/# /' "$B/stamps/$key"
		rc=0
		check 0 "builds after patch $i: $subject (built before: its tree, options and scripts are unchanged)"
		continue
	fi
	step "bisect $i/$npatch: $subject"
	"$TOP/scripts/tree.sh" --state "$k" "$B/src"
	mkdir -p "$B/obj"
	# The series' options this state has.
	have=
	for o in $series_opts; do
		! grep -rqx "config ${o%%=*}" --include='Kconfig*' "$B/src" ||
			have="$have $o"
	done
	rc=0
	kmakeb -s tinyconfig >/dev/null &&
	(cd "$B/obj" && "$B/src/scripts/kconfig/merge_config.sh" -m -O "$B/obj" \
		"$B/obj/.config" $frags >/dev/null 2>&1) &&
	kmakeb -s olddefconfig >/dev/null || rc=1
	off=
	for o in $have; do
		grep -qx "CONFIG_$o" "$B/obj/.config" || off="$off $o"
	done
	[ -z "$off" ] || { echo "# options of this state not on:$off"; rc=1; }
	if [ $rc = 0 ]; then
		t=$(date +%s)
		# shellcheck disable=SC2086
		kbuild "bisect $i/$npatch" "$B/build.log" kmakeb $JFLAG bzImage modules ||
			rc=1
	fi
	if [ $rc = 0 ]; then
		# What this state compiled of the series' own C files.
		made=$(sed -n 's/^  CC \[M\] *//p; s/^  CC  *//p' "$B/build.log" |
			grep -F -x -f "$B/series-objs" 2>/dev/null | tr '\n' ' ' || true)
		{
			echo "patch $i: options on:${have:- none of the series' yet}"
			echo "patch $i: built in $(($(date +%s) - t)) s, $(grep -c '^  CC' "$B/build.log" || true) objects compiled${made:+; of the series' files: $made}"
		} | tee "$B/stamps/$key.tmp" | sed 's/^/# /'
		mv "$B/stamps/$key.tmp" "$B/stamps/$key"
	fi
	check $rc "builds after patch $i: $subject"
done <"$B/states"

# TREE TOOL FILE...: the warnings of TOOL on each FILE, all compiled
# afresh in one make, which runs them side by side: a "FILE COUNT" line
# each, COUNT the "FILE:LINE:COL: warning" (or error) lines that name it.
warnings() {
	tree=$1 tool=$2
	shift 2
	objs=
	for f in "$@"; do
		rm -f "$tree/obj/${f%.c}.o"
		objs="$objs ${f%.c}.o"
	done
	# shellcheck disable=SC2086
	out=$(kernel_make -s "$tree/src" "$tree/obj" -k $JFLAG $tool $objs 2>&1 || true)
	for f in "$@"; do
		echo "$f $(printf '%s\n' "$out" |
			grep -c "^[^ ]*${f}:[0-9]*:[0-9]*: \(warning\|error\)" || true)"
	done
}

step "sparse and W=1 on $nfiles files"
command -v sparse >/dev/null || die "sparse missing; run 'make deps'"
# The unpatched tree's own files: a file the series adds has no warning
# there.
vfiles=
for f in $files; do
	[ ! -f "$V/src/$f" ] || vfiles="$vfiles $f"
done
# shellcheck disable=SC2086
{
	pc2=$(warnings "$P" C=2 $files)
	vc2=$(warnings "$V" C=2 $vfiles)
	pw1=$(warnings "$P" W=1 $files)
	vw1=$(warnings "$V" W=1 $vfiles)
}
count() { # LIST FILE
	echo "$1" | awk -v f="$2" '$1 == f { n = $2 } END { print n + 0 }'
}
for f in $files; do
	for tool in "C=2" "W=1"; do
		case $tool in
		C=2) new=$(count "$pc2" "$f") old=$(count "$vc2" "$f") ;;
		W=1) new=$(count "$pw1" "$f") old=$(count "$vw1" "$f") ;;
		esac
		check $([ "$new" -le "$old" ] && echo 0 || echo 1) \
			"$tool $f: $new warnings, unpatched $old"
	done
done
