#!/bin/sh
# 'make run': the capability bounds of usermode helpers, on Debian's own
# helpers (scripts/realhelpers.sh packs them; guest/real_test sets each up
# as Debian does and runs its job): each does its job with the bounds open,
# umhcap learns what each used and narrows to it, each still does its job,
# and kmod's modprobe, its one capability taken away, is refused it.
# Runs in the guest; everything it prints goes to the second serial port.
exec >/dev/ttyS1 2>&1

R=/tests/guest/real_test
U=/proc/sys/kernel/usermodehelper
D=/tmp/demo
P='modprobe coredump uevent request_key release_agent power'
mkdir -p $D

say() { printf '\n### %s\n' "$*"; }
run() { echo "# $*"; "$@"; }
# Each helper's job; "PURPOSE:0" or "PURPOSE:1" per line into $D/$1.
jobs() {
	: >$D/$1
	for p in $P; do
		rc=0
		$R job $p || rc=$?
		echo "$p:$rc" >>$D/$1
	done
}

say "Linux $(uname -r): Debian's helpers, set up as Debian sets them up"
$R setup || echo "(a helper's setup failed; its job will fail)"
echo "modprobe:      kernel.modprobe = $(cat /proc/sys/kernel/modprobe)"
echo "coredump:      kernel.core_pattern = $(cat /proc/sys/kernel/core_pattern)"
echo "uevent:        /sys/kernel/uevent_helper = $(cat /sys/kernel/uevent_helper)"
echo "request_key:   /sbin/request-key, with /etc/request-key.conf"
echo "release_agent: release_agent = $(cat /run/umhreal-cg/release_agent)"
echo "power:         kernel.poweroff_cmd = $(cat /proc/sys/kernel/poweroff_cmd)"

say "The bounds, as umhcap shows them: open"
run umhcap show all modprobe

# Helper starts, and capability checks refused to helpers.
umhcap trace >$D/trace.txt &
tracer=$!
sleep 1

say "Each helper does its job with the bounds open"
jobs open

say "What they used, as the kernel recorded it"
run umhcap learn

say "Narrow every purpose whose helpers ran to what they used"
rc=0
run umhcap learn --apply || rc=$?
applied=$rc
same=yes
for p in $P; do
	[ "$(cat $U/$p/bset)" = "$(cat $U/$p/used)" ] || {
		echo "$p: bset $(cat $U/$p/bset) is not used $(cat $U/$p/used)"
		same=no
	}
done

say "Each helper does its job again, with only what it used"
jobs learned

say "Making it permanent: kernel command line, from the first helper at boot"
run umhcap export --learned --cmdline

say "kmod's modprobe needs cap_sys_module: take it away, and the module is not loaded"
run umhcap drop -p modprobe cap_sys_module
rc=0
$R job modprobe || rc=$?
refused=$rc

say "What 'umhcap trace' saw, live: every helper start, and the check refused to kmod"
sleep 1
kill -INT $tracer
wait $tracer
cat $D/trace.txt


# The demo checks itself, as KTAP: 'make check' counts these.
n=0
expect() { # WHAT GOT WANT
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n demo: $1"
	else
		echo "not ok $n demo: $1: got ${2:-nothing}, expected $3"
	fi
}
say "The demo checks what the helpers did"
echo "TAP version 13"
echo "1..16"
for p in $P; do
	expect "$p: the job is done with the bounds open" \
		"$(grep "^$p:" $D/open)" "$p:0"
done
expect "umhcap learn --apply succeeds" "$applied" 0
expect "each purpose is bounded to exactly what it used" "$same" yes
for p in $P; do
	expect "$p: the job is done bounded to what it used" \
		"$(grep "^$p:" $D/learned)" "$p:0"
done
expect "kmod's modprobe without cap_sys_module: the module is not loaded" \
	"$refused" 1
expect "umhcap trace shows modprobe refused cap_sys_module" \
	"$(grep -q ' modprobe: refused cap_sys_module to pid=.* comm=modprobe ' \
		$D/trace.txt && echo yes)" yes
