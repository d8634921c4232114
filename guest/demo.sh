#!/bin/sh
# 'make run': the capability bounds of usermode helpers, on real helpers:
# open bounds, learn what the helpers use, narrow to it, and see a helper
# that needs one capability more refused it.
# Runs in the guest; everything it prints goes to the second serial port.
exec >/dev/ttyS1 2>&1

H=/tests/umh/umh_helper
D=/tmp/demo
U=/proc/sys/kernel/usermodehelper
mkdir -p $D
ln -s $H $D/modprobe
ln -s $H $D/coredump
# A file of mode 0: only CAP_DAC_OVERRIDE opens it for writing.  The
# modprobe helper writes to it on every run (umh_helper's .try file).
: >$D/locked
chmod 0 $D/locked
printf '%s\tx\n' $D/locked >$D/modprobe.try

say() { printf '\n### %s\n' "$*"; }
# The bounding set HELPER's last run recorded, in hex.
bnd() { tail -n 1 $D/$1.log | sed -n 's/.* bnd=\([0-9a-f]*\).*/\1/p'; }
# The errno of HELPER's last write to $D/locked: 0, or 13 (EACCES).
tried() { tail -n 1 $D/$1.tried 2>/dev/null | cut -f2; }
# A record or bound file ("LOW<tab>HIGH"), in hex.
hex() { set -- $(cat $U/$1); printf %x $(($2 << 32 | $1)); }
run() { echo "# $*"; "$@"; }

# Start one modprobe and one core dump helper; show what each recorded.
helpers() {
	mount -t umhcap-demo-nosuchfs none /mnt 2>/dev/null
	sh -c 'kill -SEGV $$'
	sleep 1
	for h in modprobe coredump; do
		printf '%s helper recorded: %s' $h \
			"$(tail -n 1 $D/$h.log | cut -d' ' -f4-)"
		case $(tried $h) in
		0) echo "; wrote $D/locked" ;;
		'') echo ;;
		*) echo "; refused $D/locked (errno $(tried $h))" ;;
		esac
	done
}

say "Linux $(uname -r): the bounds, as umhcap shows them"
run umhcap show all modprobe coredump

echo "$D/modprobe" >/proc/sys/kernel/modprobe
echo "|$D/coredump %p" >/proc/sys/kernel/core_pattern
echo 1 >/proc/sys/kernel/core_pipe_limit
# Helper starts, and capability checks refused to helpers.
umhcap trace >$D/trace.txt &
tracer=$!
sleep 1

say "Two helpers with the bounds open: both get every capability"
helpers
open_modprobe=$(bnd modprobe) open_coredump=$(bnd coredump)

say "What they used, as the kernel recorded it"
run umhcap learn all modprobe coredump
used_modprobe=$(hex modprobe/used) used_coredump=$(hex coredump/used)

say "Narrow every purpose whose helpers ran to what they used"
run umhcap learn --apply

say "The same two helpers again: each gets exactly what it used"
helpers
learned_modprobe=$(bnd modprobe) learned_coredump=$(bnd coredump)
learned_tried=$(tried modprobe)

say "The core dump handler now needs cap_dac_override too, which it never used: refused"
cp $D/modprobe.try $D/coredump.try
sh -c 'kill -SEGV $$'
sleep 1
echo "coredump helper recorded: $(tail -n 1 $D/coredump.log | cut -d' ' -f4-); refused $D/locked (errno $(tried coredump))"

say "What 'umhcap trace' saw, live: five helpers, and the check refused to the last"
sleep 1
kill -INT $tracer
wait $tracer
cat $D/trace.txt

say "Making it permanent: kernel command line, from the first helper at boot"
run umhcap export --learned --cmdline

# The demo checks itself, as KTAP: 'make check' counts these.
full=$(printf %x $(((1 << ($(cat /proc/sys/kernel/cap_last_cap) + 1)) - 1)))
n=0
expect() { # WHAT GOT WANT
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n demo: $1"
	else
		echo "not ok $n demo: $1: got ${2:-nothing}, expected $3"
	fi
}
say "The demo checks what the helpers recorded"
echo "TAP version 13"
echo "1..8"
expect "modprobe helper, bounds open: every capability" "$open_modprobe" "$full"
expect "coredump helper, bounds open: every capability" "$open_coredump" "$full"
expect "modprobe helper used cap_dac_override, and it was learned" \
	"$(( 0x$used_modprobe >> 1 & 1 ))" 1
expect "modprobe helper, learned: exactly what it used" "$learned_modprobe" "$used_modprobe"
expect "modprobe helper, learned: still writes $D/locked" "$learned_tried" 0
expect "coredump helper, learned: exactly what it used" "$learned_coredump" "$used_coredump"
expect "coredump helper short of cap_dac_override: refused it" "$(tried coredump)" 13
expect "umhcap trace shows the refused check" \
	"$(grep -c ' coredump: refused cap_dac_override to pid=' $D/trace.txt)" 1
