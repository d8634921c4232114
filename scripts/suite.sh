# The steps of a counted run, and the guest suite: sourced by check.sh
# ('make check') and debian.sh ('make debian'), which set R (the results
# directory, emptied here), K (the patched tree of 'make kernel', whose
# guest images the boots use) and S (scripts/).
# shellcheck shell=sh

rm -rf "$R"
mkdir -p "$R"
t0=$(date +%s)
# One seed for the fuzz, stress and used boots; set UMHCAP_SEED to replay a run.
SEED=${UMHCAP_SEED:-$t0}
step "fuzz and stress seed: $SEED"
# fd 3: where the summary goes, whatever a step redirects.
exec 3>&1
mkdir -p "$R/steps"
: >"$R/steps/body"
# NAME COMMAND...: run a step, log how long it took, and count it as a
# result of its own, so that a step that fails outright is counted too.
# Steps may run side by side (suite): each appends one line, numbered
# when the run is counted.
timed() {
	name=$1
	shift
	s=$(date +%s)
	rc=0
	"$@" || rc=$?
	echo "$name $(($(date +%s) - s)) s" >>"$R/times"
	if [ $rc = 0 ]; then
		echo "ok step $name" >>"$R/steps/body"
	else
		echo "not ok step $name: exit $rc" >>"$R/steps/body"
	fi
	last_rc=$rc
}

# Count what ran, and print the last line: "N passed, N failed".
summary() {
	printf 'TAP version 13\n1..%d\n' "$(wc -l <"$R/steps/body")" \
		>"$R/steps/tests.log"
	awk '{ sub(/^(not )?ok /, "&" NR " "); print }' "$R/steps/body" \
		>>"$R/steps/tests.log"
	step "all steps took $(($(date +%s) - t0)) s:"
	sed 's/^/  /' "$R/times" >&2
	exec "$UMHCAP_BUILD/ktap" "$R"/*/ >&3
}

# A step the rest cannot do without.
needed() {
	timed "$@"
	[ "$last_rc" = 0 ] || { step "$1 failed: nothing after it can run"; summary; }
}

# ktap, which counts the results.
cc -O2 -Wall -Wextra -o "$UMHCAP_BUILD/ktap" "$TOP/scripts/ktap.c"

# Real Debian helpers (guest/real_test.c), in the guest with the
# programs of scripts/realhelpers.sh: each does its job with open bounds
# and bounded to what it used; the guest then names one boot per
# capability of the learned sets (PREFIX-real.boots), each taking one
# away from every purpose at once, and the job must fail in each.
real() { # PREFIX KERNEL [PARAM...]
	prefix=$1 kernel=$2
	shift 2
	timed "boot-$prefix-real" "$S/boot.sh" "$kernel" \
		"$K/initramfs-real.cpio" "$R/$prefix-real" kunit.enable=0 "$@" \
		umhcap.run=guest/real_test
	{ sed -n 's/^# umhcap-real-boot: //p' "$R/$prefix-real/tests.log" ||
		true; } >"$R/.$prefix-real.boots"
	mv "$R/.$prefix-real.boots" "$R/$prefix-real.boots"
}

# The boots real() named, once it has: each lane that runs this takes
# the next boot no other lane has taken.
real_minus() { # PREFIX KERNEL [PARAM...]
	prefix=$1 kernel=$2
	shift 2
	until [ -f "$R/$prefix-real.boots" ]; do sleep 2; done
	k=0
	while read -r params; do
		k=$((k + 1))
		mkdir "$R/.$prefix-real-minus$k" 2>/dev/null || continue
		# shellcheck disable=SC2086
		timed "boot-$prefix-real-minus$k" "$S/boot.sh" "$kernel" \
			"$K/initramfs-real.cpio" "$R/$prefix-real-minus$k" \
			kunit.enable=0 "$@" $params umhcap.run=guest/real_test
	done <"$R/$prefix-real.boots"
}

# The guest suite: boots of KERNEL named PREFIX-*, in two lanes side by
# side.  A guest runs on one core (TCG, one CPU), so two keep the
# machine's two cores busy; every boot is a guest of its own, and no
# boot depends on another but the real-minus boots on the real one.
suite() { # PREFIX KERNEL REAL-WAIT
	rm -f "$R/$1-real.boots"
	lane_a "$@" &
	lane_b "$@" &
	wait
}

lane_a() { # PREFIX KERNEL REAL-WAIT
	prefix=$1 kernel=$2 wait=$3
	# KUnit, the kselftests with the bounds open at boot, then umhcap on
	# the real kernel (it narrows bounds, so it runs last).
	timed "boot-$prefix-selftests" "$S/boot.sh" "$kernel" "$K/initramfs.cpio" \
		"$R/$prefix-selftests" kunit.filter_glob='umh*' \
		umhcap.run=guest/harmless_test,umh/boot_test,umh/bounds_test,umh/purpose_test,umh/trace_test,umhcap/guest_test
	# Bounds from the command line, applied before the first helper.
	b='all:0x1fffffffdff,uevent:0x1ffffdfffff,coredump:0'
	timed "boot-$prefix-bootparams" "$S/boot.sh" "$kernel" "$K/initramfs.cpio" \
		"$R/$prefix-bootparams" kunit.enable=0 \
		usermodehelper.bset=$b usermodehelper.inheritable=$b \
		umhcap.run=umh/params_test,umh/boot_test,umh/trace_test
	# Malformed items are reported and skipped; the others still apply.
	timed "boot-$prefix-badparams" "$S/boot.sh" "$kernel" "$K/initramfs.cpio" \
		"$R/$prefix-badparams" kunit.enable=0 \
		usermodehelper.bset=all:0x1fffffffffe,nosuch:0x1,coredump:zz,,modprobe0x1,uevent:0x1ffffdfffff \
		usermodehelper.inheritable=power:0x,initrd:0x1ff0000ffff \
		umhcap.run=umh/params_test,umh/boot_test
	# Who may choose a helper's program: real bounded helpers
	# and root short of a capability try every knob (narrows for good).
	timed "boot-$prefix-redirect" "$S/boot.sh" "$kernel" "$K/initramfs.cpio" \
		"$R/$prefix-redirect" kunit.enable=0 umhcap.run=umh/redirect_test
	# What helpers use: real helpers of every purpose use capabilities,
	# their grandchildren too, and a seeded storm of them races readers
	# of the record.  In a boot of its own: it fills the record for good.
	timed "boot-$prefix-used" "$S/boot.sh" "$kernel" "$K/initramfs.cpio" \
		"$R/$prefix-used" kunit.enable=0 UMH_USED_SEED=$SEED \
		umhcap.run=umh/used_test
	# A seeded concurrent stress, in a boot of its own: it narrows the
	# bounds for good.
	timed "boot-$prefix-stress" "$S/boot.sh" "$kernel" "$K/initramfs.cpio" \
		"$R/$prefix-stress" kunit.enable=0 UMH_STRESS_SEED=$SEED \
		umhcap.run=guest/stress_test
	real_minus "$prefix" "$kernel" UMH_REAL_WAIT=$wait
}

lane_b() { # PREFIX KERNEL REAL-WAIT
	prefix=$1 kernel=$2 wait=$3
	# Seeded fuzzing of every knob, in a boot of its own: it narrows the
	# bounds for good.
	timed "boot-$prefix-fuzz" "$S/boot.sh" "$kernel" "$K/initramfs.cpio" \
		"$R/$prefix-fuzz" kunit.enable=0 UMH_FUZZ_SEED=$SEED \
		umhcap.run=guest/fuzz_test
	real "$prefix" "$kernel" UMH_REAL_WAIT=$wait
	real_minus "$prefix" "$kernel" UMH_REAL_WAIT=$wait
}
