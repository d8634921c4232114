#!/bin/sh
# gcc for every kernel build, CC and HOSTCC of kernel_make (scripts/lib.sh):
# through ccache, in its depend mode.
#
# On a miss, ccache's default mode runs the preprocessor to look the
# object up, which costs a kernel object 40% more than gcc alone.  Depend
# mode looks it up by the files gcc's -MMD listed the last time, for 15%
# more, and hits wherever the default mode's direct lookup does.  A cold
# 'make check' misses for most of its objects.
#
# Depend mode never reads the preprocessed text, so it cannot see the
# assembler's .incbin, which the default mode refuses to cache.  A cached
# object would keep the file it included then: another build's module
# signing certificate (certs/system_certificates.S), or another bzImage's
# compressed kernel (arch/x86/boot/compressed/piggy.S).  A source that
# names .incbin goes to gcc alone.
for src; do :; done
if [ -f "${src:-}" ] && grep -q '\.incbin' "$src"; then
	exec gcc "$@"
fi
CCACHE_DEPEND=1
export CCACHE_DEPEND
exec ccache gcc "$@"
