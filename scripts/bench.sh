#!/bin/sh
# 'make bench': synchronous helper starts per second, on the unpatched and
# the patched 6.12 from the same package and configuration, in one run.
#
# Both kernels are built from the same package with the same
# configuration: config/umhcap.config, and config/bench.config, Yama and the
# static keys Debian has and the test kernel lacks.  Neither has the
# test options of config/series.config, whose KUnit suite alone, built
# in and never run, made capable() 7.5% slower in this bench (code
# layout); the patched one has the umh LSM, on by default.  It is built
# from the patched tree (scripts/kernel.sh --src), the unpatched one from
# a tree of its own, apart from the test kernels.  The guest is the one
# 'make guest' built.  BENCH_N (default 500) helpers per round, five
# rounds per mode, BENCH_BOOTS (default 2) boots of each kernel,
# alternated; a mode's rate is the median over its boots.
#
# QEMU runs with -icount: the guest's clock advances with the instructions
# it executes, one nanosecond each, so a rate counts guest work, not the
# noise of a busy host.  Only TCG counts instructions, so the bench runs
# under TCG even where the other boots use KVM (scripts/boot.sh), and
# its rates compare across machines.  Rates are per virtual second.
set -eu
. "$(dirname "$0")/lib.sh"

K=$UMHCAP_BUILD/patched
P=$UMHCAP_BUILD/patched-bench
V=$UMHCAP_BUILD/vanilla-bench
R=$UMHCAP_BUILD/results
img=obj/arch/x86/boot/bzImage
n=${BENCH_N:-500}
boots=${BENCH_BOOTS:-2}

[ -r "$K/initramfs.cpio" ] || die "no guest; run 'make guest' first"
# Kernels built from the series and configuration as they are now:
# kernel.sh rebuilds whatever changed and keeps what did not.
lock_build
"$TOP/scripts/kernel.sh" patched "$TOP/config/series.config" >/dev/null
"$TOP/scripts/kernel.sh" --src patched patched-bench "$TOP/config/bench.config" >/dev/null
"$TOP/scripts/kernel.sh" --vanilla vanilla-bench "$TOP/config/bench.config" >/dev/null

i=0
while [ $i -lt "$boots" ]; do
	i=$((i + 1))
	for k in vanilla patched; do
		dir=$V
		[ $k = vanilla ] || dir=$P
		QEMU_EXTRA="-icount shift=0,sleep=off" \
		"$TOP/scripts/boot.sh" "$dir/$img" "$K/initramfs.cpio" \
			"$R/bench-$k-$i" kunit.enable=0 umhbench.n="$n" \
			umhcap.run=guest/umh_bench
	done
done

# "# bench: MODE RATE" lines -> one table, medians over the boots.
for k in vanilla patched; do
	cat "$R"/bench-$k-*/tests.log | sed -n "s/^# bench: /$k /p"
done | awk -v n="$n" -v boots="$boots" '
function median(list,   a, c, i, j, t) {
	c = split(list, a, " ")
	for (i = 1; i <= c; i++)
		for (j = i + 1; j <= c; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
}
{ r[$1, $2] = r[$1, $2] " " $3 }
END {
	printf "per virtual second (QEMU -icount, %d boots x 5 rounds): capability checks of\n", boots
	printf "a task that is no helper (%d per round), then synchronous modprobe helpers (%d per round)\n", n * 200, n
	printf "%-8s %12s %12s %10s\n", "mode", "unpatched", "patched", "ratio"
	split("capable open global purpose", modes, " ")
	for (m = 1; m <= 4; m++) {
		mode = modes[m]
		p = ((("patched", mode) in r)) ? median(r["patched", mode]) : 0
		base = ((("vanilla", mode) in r)) ? median(r["vanilla", mode]) : median(r["vanilla", "global"])
		if (!p)
			continue
		printf "%-8s %12.1f %12.1f %9.3f\n", mode, base, p, p / base
	}
}'
