#!/bin/sh
# The README's commands, as a reader types them, each a step of 'make
# check' (scripts/check.mk).  A README command that stops working fails
# its step.  'make run' is proven in the clean root (scripts/cleanroot.sh),
# the one place it has to build everything from nothing.
#
#   readme.sh kernel|guest|shell|tool|matrix|export
#
# R is the results directory (UMHCAP_RESULTS).
set -eu
. "$(dirname "$0")/lib.sh"

R=${UMHCAP_RESULTS:?}
mkdir -p "$R"

case ${1:-} in
kernel) # make kernel: its last line is an existing bzImage
	make -s -C "$TOP" kernel >"$R/make-kernel.out" || exit 1
	img=$(tail -n 1 "$R/make-kernel.out")
	case $img in
	/*/bzImage) [ -f "$img" ] || { step "make kernel: no file $img"; exit 1; } ;;
	*) step "make kernel: last line '$img' is not a bzImage path"; exit 1 ;;
	esac
	echo "$img" >"$R/bzImage"
	echo "$img" >"$R/bzImage.patched" ;;
guest) # the guest every boot of the run uses ('make run' builds it too)
	make -s -C "$TOP" guest >"$R/make-guest.out" 2>&1 ||
		{ tail -n 20 "$R/make-guest.out" >&2; exit 1; } ;;
shell) # make shell: a person types at the guest's shell
	out=$R/make-shell.out
	fifo=$R/make-shell.in
	rm -f "$fifo" "$out"
	mkfifo "$fifo"
	# Read-write, so that opening it does not wait for the reader.
	exec 4<>"$fifo"
	# Its own make, not the run's job slots: fd 4 is the fifo here.
	BOOT_TIMEOUT=600 MAKEFLAGS= make -s -C "$TOP" shell <"$fifo" >"$out" 2>&1 &
	pid=$!
	# Type only once the shell is there: the serial port drops early input.
	i=0
	until grep -q "type 'reboot -f' to leave" "$out" || [ $i -ge 300 ] ||
	      ! kill -0 $pid 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
	sleep 1
	echo 'umhcap show all | sed "s/^/shell-saw: /"' >&4
	sleep 2
	echo 'reboot -f' >&4
	rc=0
	wait $pid || rc=$?
	exec 4>&-
	rm -f "$fifo"
	[ $rc = 0 ] && grep -q '^shell-saw: all (global' "$out" ||
		{ step "make shell: no answer from the guest's shell; see $out"; exit 1; } ;;
tool) # make tool, then the tool answers --help
	make -s -C "$TOP" tool && "$TOP/umhcap/umhcap" --help >/dev/null &&
		make -s -C "$TOP" help | grep -q '^make check' ;;
matrix) # make matrix, on one line: its objects, then the whole kernel
	mkdir -p "$R/matrix-link"
	make -s -C "$TOP" matrix LINES="${2:?}" >"$R/matrix-link/tests.log" \
		2>"$R/make-matrix.err" ||
		{ tail -n 20 "$R/make-matrix.err" >&2; exit 1; } ;;
export) # make edit, make export: patches/ stays byte-identical
	# In a copy of the checkout: the run's other steps read patches/
	# while this one writes it.
	copy=$R/export-top
	rm -rf "$copy" "$R/work"
	mkdir -p "$copy"
	(cd "$TOP" && tar -cf - --exclude=.git .) | (cd "$copy" && tar -xf -)
	rc=0
	{ make -s -C "$copy" edit UMHCAP_WORK="$R/work" &&
	  make -s -C "$copy" export UMHCAP_WORK="$R/work"; } >&2 || rc=$?
	if ! diff -r "$TOP/patches" "$copy/patches" >"$R/export.diff"; then
		step "make export changed patches/ (the diff is in $R/export.diff)"
		rc=1
	fi
	# An export stopped while it writes leaves patches/ as it was; one
	# that ends has written it whole.  The work tree gets a commit of
	# another subject, so that the two differ, and the export is stopped
	# once it has begun to write.
	if [ $rc = 0 ]; then
		git -C "$R/work" commit -q --amend -m "umhcap: the subject of an interrupted export"
		"$copy/scripts/export.sh" "$R/work" 2>/dev/null &
		pid=$!
		i=0
		until ls -d "$copy"/.patches.new.* >/dev/null 2>&1 ||
		      ! kill -0 $pid 2>/dev/null || [ $i -ge 6000 ]; do
			sleep 0.01
			i=$((i + 1))
		done
		kill -TERM $pid 2>/dev/null || true
		erc=0
		wait $pid || erc=$?
		case $erc in
		143) diff -r "$TOP/patches" "$copy/patches" >/dev/null ||
			{ step "an export stopped while writing changed patches/"; rc=1; } ;;
		0) grep -q 'the-subject-of-an-interrupted-export' "$copy/patches/series" ||
			{ step "an export that ended did not write patches/ whole"; rc=1; } ;;
		*) step "the interrupted export exited $erc"; rc=1 ;;
		esac
		! ls -d "$copy"/.patches.* >/dev/null 2>&1 ||
			{ step "an interrupted export left $(ls -d "$copy"/.patches.*)"; rc=1; }
		step "export stopped while writing: exit $erc, patches/ $( [ $rc = 0 ] && echo 'as it should be' || echo 'WRONG')"
	fi
	rm -rf "$R/work" "$copy"
	exit $rc ;;
*)
	die "usage: readme.sh kernel|guest|shell|tool|matrix LINE|export" ;;
esac
