#!/bin/sh
# 'make bench': synchronous helper starts per second, on the unpatched and
# the patched 6.12 from the same package and configuration, in one run.
#
# Uses the kernels and guest that 'make check' or 'make guest' built, and
# builds what is missing.  BENCH_N (default 500) helpers per round, five
# rounds per mode, BENCH_BOOTS (default 2) boots of each kernel,
# alternated; a mode's rate is the median over its boots.
set -eu
. "$(dirname "$0")/lib.sh"

K=$UMHCAP_BUILD/patched
V=$UMHCAP_BUILD/vanilla
R=$UMHCAP_BUILD/results
img=obj/arch/x86/boot/bzImage
n=${BENCH_N:-500}
boots=${BENCH_BOOTS:-2}

[ -r "$K/$img" ] || "$TOP/scripts/kernel.sh" patched "$TOP/config/series.config" >/dev/null
[ -r "$K/initramfs.cpio" ] || "$TOP/scripts/guest.sh" "$K"
[ -r "$V/$img" ] || "$TOP/scripts/kernel.sh" --vanilla vanilla >/dev/null

i=0
while [ $i -lt "$boots" ]; do
	i=$((i + 1))
	for k in vanilla patched; do
		dir=$UMHCAP_BUILD/$k
		"$TOP/scripts/boot.sh" "$dir/$img" "$K/initramfs.cpio" \
			"$R/bench-$k-$i" kunit.enable=0 umhbench.n="$n" \
			umhcap.run=bench/umh_bench
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
	printf "synchronous modprobe helpers per second (QEMU TCG, %d x 5 x %d starts per mode)\n", boots, n
	printf "%-8s %12s %12s %10s\n", "bounds", "unpatched", "patched", "ratio"
	split("open global purpose", modes, " ")
	for (m = 1; m <= 3; m++) {
		mode = modes[m]
		p = ((("patched", mode) in r)) ? median(r["patched", mode]) : 0
		base = ((("vanilla", mode) in r)) ? median(r["vanilla", mode]) : median(r["vanilla", "global"])
		if (!p)
			continue
		printf "%-8s %12.1f %12.1f %9.3f\n", mode, base, p, p / base
	}
}'
