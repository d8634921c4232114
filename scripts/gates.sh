#!/bin/sh
# The static gates of the series, as KTAP on stdout:
#   - checkpatch.pl --strict on every patch: no error, no warning, no check;
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
echo "TAP version 13"
echo "1..$((npatch * 2 + nfiles * 2 + 1))"

export CCACHE_DIR=${CCACHE_DIR:-$UMHCAP_BUILD/ccache}
export CCACHE_BASEDIR=$UMHCAP_BUILD CCACHE_NOHASHDIR=1

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

# Every file the series adds is under an F: line of its MAINTAINERS entry.
added=$(awk '/^diff --git /{f=$4} /^new file mode/{sub("^b/", "", f); print f}' \
	"$TOP"/patches/0[0-9][0-9][0-9]-*.patch | sort -u)
entry=$(sed -n '/^USERMODE HELPER CAPABILITY BOUNDS$/,/^$/s/^F:[[:space:]]*//p' \
	"$P/src/MAINTAINERS")
orphans=
for f in $added; do
	covered=0
	for pat in $entry; do
		case $pat in
		*/) case $f in "$pat"*) covered=1 ;; esac ;;
		*) [ "$f" != "$pat" ] || covered=1 ;;
		esac
	done
	[ $covered = 1 ] || orphans="$orphans $f"
done
[ -z "$orphans" ] || echo "# not in MAINTAINERS:$orphans"
check $([ -z "$orphans" ] && [ -n "$added" ] && echo 0 || echo 1) \
	"MAINTAINERS covers the $(echo "$added" | wc -w) files the series adds"

# Bisectability: a git tree at the base, then one build per patch.
B=$UMHCAP_BUILD/bisect
step "bisect: building after each of $npatch patches"
"$TOP/scripts/tree.sh" --git "$B/src" >&2
rm -rf "$B/obj"
mkdir -p "$B/obj"
cp "$P/obj/.config" "$B/obj/.config"
i=0
rc=1
for c in $(git -C "$B/src" rev-list --reverse base..HEAD); do
	i=$((i + 1))
	git -C "$B/src" checkout -q "$c"
	subject=$(git -C "$B/src" log -1 --format=%s "$c")
	# A patch that changes only documentation, kselftests or
	# MAINTAINERS leaves every input of the kernel build as the patch
	# before it left it: its build is that one's, not built again.
	if [ $i -gt 1 ] && [ -z "$(git -C "$B/src" diff --name-only "$c^" "$c" |
		grep -v -e '^Documentation/' -e '^tools/testing/' -e '^MAINTAINERS$')" ]; then
		step "bisect $i/$npatch: $subject: no input of the build changed"
		check $rc "builds after patch $i: $subject (as after patch $((i - 1)): it changes no input of the build)"
		continue
	fi
	step "bisect $i/$npatch: $subject"
	if make -s -C "$B/src" O="$B/obj" CC="ccache gcc" olddefconfig \
		>/dev/null &&
	   make -s -C "$B/src" O="$B/obj" CC="ccache gcc" -j"$JOBS" \
		bzImage >"$B/build.log" 2>&1; then
		rc=0
	else
		rc=1
	fi
	[ $rc = 0 ] || tail -n 20 "$B/build.log" | sed 's/^/# /'
	check $rc "builds after patch $i: $subject"
done

# Warnings of one tool on one file: the count of "file:line: warning" lines.
warnings() { # TREE FILE ARGS...
	tree=$1 f=$2
	shift 2
	make -s -C "$tree/src" O="$tree/obj" CC="ccache gcc" "$@" \
		"${f%.c}.o" 2>&1 | grep -c "^[^ ]*${f}:[0-9]*:[0-9]*: \(warning\|error\)" || true
}

step "sparse and W=1 on $nfiles files"
command -v sparse >/dev/null || die "sparse missing; run 'make deps'"
for f in $files; do
	for tool in "C=2" "W=1"; do
		new=$(warnings "$P" "$f" $tool)
		if [ -f "$V/src/$f" ]; then
			old=$(warnings "$V" "$f" $tool)
		else
			old=0
		fi
		check $([ "$new" -le "$old" ] && echo 0 || echo 1) \
			"$tool $f: $new warnings, unpatched $old"
	done
done
