#!/bin/sh
# 'make run': the capability bounds of usermode helpers, on real helpers.
# Runs in the guest; everything it prints goes to the second serial port.
exec >/dev/ttyS1 2>&1

H=/tests/umh/umh_helper
D=/tmp/demo
mkdir -p $D
ln -s $H $D/modprobe
ln -s $H $D/coredump

say() { printf '\n### %s\n' "$*"; }
# The bounding set HELPER's last run recorded, in hex.
bnd() { tail -n 1 $D/$1.log | sed -n 's/.* bnd=\([0-9a-f]*\).*/\1/p'; }
run() { echo "# $*"; "$@"; }

# Start one modprobe and one core dump helper; show what each recorded.
helpers() {
	mount -t umhcap-demo-nosuchfs none /mnt 2>/dev/null
	sh -c 'kill -SEGV $$'
	sleep 1
	for h in modprobe coredump; do
		echo "$h helper recorded: $(tail -n 1 $D/$h.log | cut -d' ' -f4-)"
	done
}

say "Linux $(uname -r): the bounds, as umhcap shows them"
run umhcap show all modprobe coredump

echo "$D/modprobe" >/proc/sys/kernel/modprobe
echo "|$D/coredump %p" >/proc/sys/kernel/core_pattern
echo 1 >/proc/sys/kernel/core_pipe_limit
umhcap trace >$D/trace.txt &
tracer=$!
sleep 1

say "Two helpers with the bounds open: both get every capability"
helpers
open_modprobe=$(bnd modprobe) open_coredump=$(bnd coredump)

say "Narrow: the core dump handler keeps what writing a dump needs; every helper loses cap_sys_rawio"
run umhcap keep -p coredump cap_chown cap_dac_override cap_fowner cap_setgid cap_setuid
run umhcap drop cap_sys_rawio
run umhcap show all modprobe coredump

say "The same two helpers again: modprobe keeps cap_sys_module, the core dump handler does not"
helpers

say "What 'umhcap trace' saw, live, for those four helpers"
sleep 1
kill -INT $tracer
wait $tracer
cat $D/trace.txt

say "Making it permanent: kernel command line, from the first helper at boot"
run umhcap export --cmdline

# The demo checks itself, as KTAP: 'make check' counts these.
full=$(printf %x $(((1 << ($(cat /proc/sys/kernel/cap_last_cap) + 1)) - 1)))
rawio=17
want_modprobe=$(printf %x $((0x$full & ~(1 << rawio))))
# cap_chown, cap_dac_override, cap_fowner, cap_setgid, cap_setuid
want_coredump=cb
n=0
expect() { # WHAT GOT WANT
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n demo: $1"
	else
		echo "not ok $n demo: $1: bnd=${2:-none}, expected $3"
	fi
}
say "The demo checks what the helpers recorded"
echo "TAP version 13"
echo "1..4"
expect "modprobe helper, bounds open: every capability" "$open_modprobe" "$full"
expect "coredump helper, bounds open: every capability" "$open_coredump" "$full"
expect "modprobe helper, narrowed: all but cap_sys_rawio" "$(bnd modprobe)" "$want_modprobe"
expect "coredump helper, narrowed: the five it keeps" "$(bnd coredump)" "$want_coredump"
