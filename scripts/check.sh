#!/bin/sh
# Everything 'make check' runs, in order, with the results of every step
# counted by scripts/ktap.c.  The last line is "N passed, N failed".
set -eu
. "$(dirname "$0")/lib.sh"

K=$UMHCAP_BUILD/patched
V=$UMHCAP_BUILD/vanilla
R=$UMHCAP_BUILD/results
S=$TOP/scripts
. "$S/suite.sh"

# The counter itself, on boots whose count is known.
mkdir -p "$R/ktap"
timed ktap "$TOP/scripts/ktap_test.sh" "$UMHCAP_BUILD/ktap" >"$R/ktap/tests.log"

# The README's commands, as a reader types them, on the build the rest of
# the run uses.  A README command that stops working fails here.
readme_kernel() { # make kernel: its last line is an existing bzImage
	make -s -C "$TOP" kernel >"$R/make-kernel.out" || return 1
	img=$(tail -n 1 "$R/make-kernel.out")
	case $img in
	/*/bzImage) [ -f "$img" ] || { step "make kernel: no file $img"; return 1; } ;;
	*) step "make kernel: last line '$img' is not a bzImage path"; return 1 ;;
	esac
	echo "$img" >"$R/bzImage"
}
readme_run() { # make run: builds the guest, boots the demo, which checks itself
	make -s -C "$TOP" run >"$R/make-run.out" 2>&1 ||
		{ tail -n 20 "$R/make-run.out" >&2; return 1; }
	mkdir -p "$R/make-run"
	cp "$UMHCAP_BUILD/run/demo/console.log" \
		"$UMHCAP_BUILD/run/demo/tests.log" "$R/make-run/"
}
readme_shell() { # make shell: a person types at the guest's shell
	out=$R/make-shell.out
	fifo=$R/make-shell.in
	rm -f "$fifo" "$out"
	mkfifo "$fifo"
	# Read-write, so that opening it does not wait for the reader.
	exec 4<>"$fifo"
	make -s -C "$TOP" shell <"$fifo" >"$out" 2>&1 &
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
		{ step "make shell: no answer from the guest's shell; see $out"; return 1; }
}
readme_tool() { # make tool, then the tool answers --help
	make -s -C "$TOP" tool && "$TOP/umhcap/umhcap" --help >/dev/null &&
		make -s -C "$TOP" help | grep -q '^make check'
}
readme_matrix() { # make matrix, on one line: its objects, then the whole kernel
	make -s -C "$TOP" matrix LINES=no-sysctl >"$R/matrix-link/tests.log" 2>"$R/make-matrix.err" ||
		{ tail -n 20 "$R/make-matrix.err" >&2; return 1; }
}
readme_export() { # make edit, make export: patches/ stays byte-identical
	rm -rf "$R/.patches.before"
	cp -a "$TOP/patches" "$R/.patches.before"
	rc=0
	{ make -s -C "$TOP" edit UMHCAP_WORK="$R/work" &&
	  make -s -C "$TOP" export UMHCAP_WORK="$R/work"; } >&2 || rc=$?
	if ! diff -r "$R/.patches.before" "$TOP/patches" >"$R/export.diff"; then
		step "make export changed patches/ (restored; the diff is in $R/export.diff)"
		rm -rf "$TOP/patches"
		cp -a "$R/.patches.before" "$TOP/patches"
		rc=1
	fi
	rm -rf "$R/work"
	return $rc
}

timed deps-present "$S/deps.sh" --check
needed make-kernel readme_kernel
needed make-run readme_run
timed make-shell readme_shell
timed make-tool readme_tool
timed make-export readme_export
needed kernel-vanilla "$S/kernel.sh" --vanilla vanilla >"$R/bzImage.vanilla"

# The configurations of config/matrix that compile the series' files:
# Debian's own, and the test kernel with each option the series meets
# turned off or changed.
mkdir -p "$R/matrix" "$R/matrix-link"
timed matrix-objs "$S/matrix.sh" objs >"$R/matrix/tests.log"
timed make-matrix readme_matrix
# 'make debian' takes too long for this run (README): its configurations
# at least are configured as its kernels would be.
for cfg in $("$S/matrix.sh" list full); do
	timed "config-$cfg" "$S/matrix.sh" config "$cfg"
done

step "umhcap host tests"
mkdir -p "$R/umhcap-host"
timed umhcap-host make -s -C "$TOP/umhcap" check \
	KSFT_DIR="$K/src/tools/testing/selftests" KSRC="$K/src" >"$R/umhcap-host/tests.log" 2>&1

suite patched "$(cat "$R/bzImage")" 10

# Upstream regression: the kernel's own capabilities and sysctl selftests.
timed boot-upstream "$S/boot.sh" "$(cat "$R/bzImage")" "$K/initramfs.cpio" \
	"$R/upstream" kunit.enable=0 sysctl.debug.test_sysctl.boot_int=1 \
	umhcap.run=upstream/run_all.sh

# umhcap falls back on an unpatched 6.12 built by the same harness.
timed boot-vanilla "$S/boot.sh" "$(cat "$R/bzImage.vanilla")" \
	"$K/initramfs.cpio" "$R/vanilla" \
	umhcap.run=guest/harmless_test,umhcap/guest_fallback_test

# The install step, proved from a minimal Debian root.
timed clean-root "$S/cleanroot.sh" "$R/clean-root"

# Synchronous helper starts per second, unpatched and patched, same run.
timed bench env BENCH_BOOTS=2 "$S/bench.sh" >"$R/bench.txt"

mkdir -p "$R/gates"
timed gates "$S/gates.sh" "$K" "$V" >"$R/gates/tests.log"

# The booted lines of config/matrix: each kernel runs its line's tests.
for cfg in $("$S/matrix.sh" list boot); do
	timed "kernel-$cfg" "$S/matrix.sh" kernel "$cfg" >"$R/bzImage.$cfg"
	# shellcheck disable=SC2046
	timed "boot-$cfg" "$S/boot.sh" "$(cat "$R/bzImage.$cfg")" \
		"$K/initramfs.cpio" "$R/$cfg" kunit.enable=0 \
		$("$S/matrix.sh" params "$cfg") \
		umhcap.run="$("$S/matrix.sh" tests "$cfg")"
	mkdir -p "$R/$cfg"
	"$S/matrix.sh" skips "$cfg" >"$R/$cfg/expected-skips"
done

# The kernels of config/matrix that run the whole suite again: the debug
# kernel (PREEMPT_RT, KASAN, lockdep, UBSAN, ...).
export BOOT_TIMEOUT=1800
for cfg in $("$S/matrix.sh" list suite); do
	timed "kernel-$cfg" "$S/matrix.sh" kernel "$cfg" >"$R/bzImage.$cfg"
	suite "$cfg" "$(cat "$R/bzImage.$cfg")" 40
done

cat "$R/bench.txt" >&2
summary
