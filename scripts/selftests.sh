#!/bin/sh
# Build, statically, the kselftests a guest runs, from a patched tree.
#
#   selftests.sh SRC OUT TARGET...
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: selftests.sh SRC OUT TARGET..."
src=$1 out=$2
shift 2
for t in "$@"; do
	step "building selftests/$t"
	mkdir -p "$out/$t"
	make -s -C "$src/tools/testing/selftests/$t" OUTPUT="$out/$t" \
		CC=gcc LDFLAGS=-static >/dev/null ||
		die "building selftests/$t failed; see the compiler output above"
done
