# The steps of 'make check' (and 'make debian') as a dependency graph,
# run by scripts/check.sh with 'make -j$(nproc) -k -f scripts/check.mk'.
#
# Each step is a target whose recipe is scripts/step.sh, which times it
# and counts it.  make runs as many steps side by side as the machine has
# cores, and the kernel builds inside them take their job slots from the
# same make (a '+' recipe passes its job server on): a boot, which runs
# one guest on one core, takes one slot, and a build takes every slot no
# boot holds.  Kernel builds run one at a time, in the order of BUILDS:
# each waits for the one before it (an order-only prerequisite).  A step
# that others cannot do without is --needed: when it fails, make runs
# none of the steps that depend on it, and check.sh counts them as not
# run.
#
# Set in the environment by check.sh: UMHCAP_BUILD, UMHCAP_RESULTS,
# UMHCAP_SEED.  Nothing is passed on make's command line: a variable
# there would reach every kernel make below as an override.

S := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
TOP := $(patsubst %/,%,$(dir $(S)))
B := $(UMHCAP_BUILD)
R := $(UMHCAP_RESULTS)
K := $(B)/patched
SEED := $(UMHCAP_SEED)
STEP := +@$(S)/step.sh

# The kernel each boot runs: a file a kernel step wrote its path to.
img = "$$(cat $(R)/bzImage.$(1))"

# The configurations of config/matrix, by action.
MATRIX_FULL := $(shell $(S)/matrix.sh list full)
MATRIX_BOOT := $(shell $(S)/matrix.sh list boot)
MATRIX_SUITE := $(shell $(S)/matrix.sh list suite)

# The kernel builds, in order.  The debug kernel comes early, so that its
# suite's boots, the longest, run beside the builds after it.
BUILDS := make-kernel make-guest kernel-installed kernel-vanilla \
	$(addprefix kernel-,$(MATRIX_SUITE)) gates \
	$(addprefix kernel-,$(MATRIX_BOOT)) matrix-objs make-matrix clean-root
# $(call chain,LIST): each build waits for the one before it.
chain = $(if $(word 2,$(1)),$(eval $(word 2,$(1)): | $(word 1,$(1)))$(call chain,$(wordlist 2,$(words $(1)),$(1))))
$(call chain,$(BUILDS))

.PHONY: check debian list
STEPS :=

# ---- the harness itself, and the README's commands
STEPS += ktap paragraphs accel harness deps-present make-kernel make-guest make-shell \
	make-tool make-export
ktap:
	$(STEP) --out $(R)/ktap/tests.log ktap $(S)/ktap_test.sh $(B)/ktap
# No paragraph said twice in the series' messages or its cover letter
# (scripts/paragraphs.c), and the gate itself on texts of known verdict.
paragraphs:
	$(STEP) --out $(R)/paragraphs/tests.log paragraphs $(S)/paragraphs_test.sh \
		$(B)/paragraphs $(TOP)/patches
# On a machine without /dev/kvm the two cases of the real device have
# nothing to test: they skip, as expected skips (scripts/ktap.c).
accel:
	@mkdir -p $(R)/accel && { [ -e /dev/kvm ] || printf '%s\n' \
		'UMHCAP_ACCEL=auto with /dev/kvm agrees with --why' \
		'UMHCAP_ACCEL=kvm with /dev/kvm agrees with auto'; } \
		>$(R)/accel/expected-skips
	$(STEP) --out $(R)/accel/tests.log accel $(B)/accel_test $(B)/accel
# The lock, check.sh's count on every way out, seed_objs: each case in a
# build directory of its own, with a graph of its own for check.sh.
harness:
	$(STEP) --out $(R)/harness/tests.log harness $(B)/harness_test $(TOP)
deps-present:
	$(STEP) deps-present $(S)/deps.sh --check
make-kernel:
	$(STEP) --needed make-kernel $(S)/readme.sh kernel
make-guest: make-kernel
	$(STEP) --needed make-guest $(S)/readme.sh guest
make-shell: make-guest
	$(STEP) make-shell $(S)/readme.sh shell
make-tool:
	$(STEP) make-tool $(S)/readme.sh tool
make-export: make-kernel
	$(STEP) make-export $(S)/readme.sh export

STEPS += kernel-vanilla umhcap-host umhcap-deb boot-upstream boot-vanilla bench gates \
	matrix-objs make-matrix clean-root $(addprefix config-,$(MATRIX_FULL))
kernel-vanilla: make-kernel
	$(STEP) --needed --out $(R)/bzImage.vanilla kernel-vanilla \
		$(S)/kernel.sh --vanilla vanilla
umhcap-host: make-kernel
	$(STEP) --out $(R)/umhcap-host/tests.log umhcap-host \
		make -s -C $(TOP)/umhcap check
# umhcap's Debian package, as 'make package' makes it, its host tests run
# by dh_auto_test; lintian and blhc must pass.  The .deb's path goes to
# umhcap-deb.path.
umhcap-deb: make-kernel
	$(STEP) --out $(R)/umhcap-deb.path umhcap-deb $(S)/package.sh
# Upstream regression: the kernel's own capabilities and sysctl selftests.
boot-upstream: make-guest
	$(STEP) boot-upstream $(S)/boot.sh $(call img,patched) \
		$(K)/initramfs.cpio $(R)/upstream kunit.enable=0 \
		sysctl.debug.test_sysctl.boot_int=1 umhcap.run=upstream/run_all.sh
# umhcap falls back on an unpatched 6.12 built by the same harness.
boot-vanilla: make-guest kernel-vanilla
	$(STEP) boot-vanilla $(S)/boot.sh $(call img,vanilla) \
		$(K)/initramfs.cpio $(R)/vanilla \
		umhcap.run=guest/harmless_test,umhcap/guest_fallback_test
# Synchronous helper starts per second, unpatched and patched.
bench: make-guest kernel-vanilla
	$(STEP) --out $(R)/bench.txt bench env BENCH_BOOTS=2 $(S)/bench.sh
# checkpatch, the bisect, sparse and W=1.
gates: make-kernel kernel-vanilla
	$(STEP) --out $(R)/gates/tests.log gates $(S)/gates.sh $(K) $(B)/vanilla
# The configurations of config/matrix that compile the series' files,
# then 'make matrix' as the README gives it, on the line whose whole
# kernel builds fastest from the test kernel's objects.
matrix-objs: make-kernel kernel-vanilla
	$(STEP) --out $(R)/matrix/tests.log matrix-objs $(S)/matrix.sh objs
make-matrix: matrix-objs
	$(STEP) make-matrix $(S)/readme.sh matrix no-initrd
# 'make debian' takes too long for this run (doc/using.md): its configurations
# at least are configured as its kernels would be.
$(addprefix config-,$(MATRIX_FULL)): config-%: make-kernel
	$(STEP) config-$* $(S)/matrix.sh config $*
# The install step, proved from a minimal Debian root: make deps, make
# run (the demo boot, counted here), make tool.
clean-root: make-kernel
	$(STEP) clean-root $(S)/cleanroot.sh $(R)/clean-root

# ---- Debian 12 as installed (scripts/installed.sh, guest/installed_test.c):
# the 'installed' kernel of config/matrix, packaged by bindeb-pkg and
# installed with dpkg -i on a disk, boots from what dpkg put in /boot;
# systemd as PID 1, and Debian's own helpers do their jobs, open, then
# learned; the first boot names the others (the learned sets from boot,
# then each capability taken away), each a step of its own.
INSTALLED := $(shell $(S)/matrix.sh list installed)
# $(call installed_boot,OUT): a boot of the disk, with the helpers traced
# from the first, its results in $(R)/OUT; for a recipe's sh -c '...'.
installed_boot = $(S)/boot.sh --disk "$$(cat $(R)/vmlinuz.installed)" \
	$(B)/installed/disk.ext4 $(R)/$(1) \
	trace_event=umh:umh_exec,umh:umh_capable UMH_REAL_WAIT=30
# $(call installed_machine,OUT): the same, on a copy of the disk of its
# own that the boot writes to, as a machine of a fleet: the boots it
# saved go to $(R)/fleet/OUT (scripts/fleet.sh), the copy away.
installed_machine = rm -rf $(R)/fleet/$(1) && mkdir -p $(R)/fleet/$(1) && \
	cp --sparse=always $(B)/installed/disk.ext4 $(B)/installed/$(1).ext4 && \
	BOOT_WRITE=1 $(S)/boot.sh --disk "$$(cat $(R)/vmlinuz.installed)" \
	$(B)/installed/$(1).ext4 $(R)/$(1) \
	trace_event=umh:umh_exec,umh:umh_capable UMH_REAL_WAIT=30
installed_saved = debugfs -R "rdump /var/lib/umhcap/boots $(R)/fleet/$(1)" \
	$(B)/installed/$(1).ext4 2>/dev/null; rm -f $(B)/installed/$(1).ext4
ifneq ($(INSTALLED),)
STEPS += debian-root kernel-installed kernel-installed-deb installed-disk \
	boot-installed boot-installed-more boot-installed-ident \
	boot-installed-ident-more boot-installed-keep boot-installed-handlers \
	fleet
debian-root:
	$(STEP) --needed debian-root $(S)/installed.sh root
kernel-installed: make-kernel
	$(STEP) --needed --out $(R)/bzImage.installed kernel-installed \
		$(S)/matrix.sh kernel installed
kernel-installed-deb: kernel-installed
	$(STEP) --needed --out $(R)/kernel-deb.installed kernel-installed-deb \
		$(S)/installed.sh deb $(B)/installed
installed-disk: make-guest kernel-installed-deb debian-root umhcap-deb
	$(STEP) --needed --out $(R)/vmlinuz.installed installed-disk \
		$(S)/installed.sh image $(B)/installed \
		"$$(cat $(R)/umhcap-deb.path)" "$$(cat $(R)/kernel-deb.installed)"
boot-installed: installed-disk
	$(STEP) boot-installed sh -c '$(call installed_machine,installed) && \
		$(call installed_saved,installed) && \
		sed -n "s/^# umhcap-installed-boot: //p" $(R)/installed/tests.log \
		| tr -d "\r" >$(R)/installed.boots'
boot-installed-more: boot-installed
	$(STEP) boot-installed-more $(MAKE) -s -f $(S)/check.mk installed-more
# The same, each helper as a system user of its own.
boot-installed-ident: installed-disk
	$(STEP) boot-installed-ident sh -c '$(call installed_machine,installed-ident) \
		UMH_INSTALLED_IDENT=1 && $(call installed_saved,installed-ident) && \
		sed -n "s/^# umhcap-installed-boot: //p" $(R)/installed-ident/tests.log \
		| tr -d "\r" >$(R)/installed-ident.boots'
boot-installed-ident-more: boot-installed-ident
	$(STEP) boot-installed-ident-more $(MAKE) -s -f $(S)/check.mk \
		MORE_NAME=installed-ident installed-more
# umhcap's package across two boots of a disk of their own: learned and
# saved in the first, the learned bounds from the boot loader's file in
# the second (scripts/keep.sh).
boot-installed-keep: installed-disk
	$(STEP) boot-installed-keep $(S)/keep.sh "$$(cat $(R)/vmlinuz.installed)" \
		$(B)/installed/disk.ext4 $(R)
# request_key's handlers of nfs-common and cifs-utils against the handler
# table, request-key as root, then as its own user, in one boot.
boot-installed-handlers: installed-disk
	$(STEP) boot-installed-handlers sh -c '$(call installed_boot,installed-handlers) \
		UMH_INSTALLED=handlers'
# A fleet: the boots the three machines above saved, learned together
# by the host's umhcap (scripts/fleet.sh).
fleet: boot-installed boot-installed-ident boot-installed-keep umhcap-host
	$(STEP) --out $(R)/fleet/tests.log fleet $(S)/fleet.sh $(R)/fleet
endif

# ---- the guest suite: $(call suite,PREFIX,KERNEL-STEP,REAL-WAIT)
# Every boot is a guest of its own; none depends on another but the
# real-minus boots on the real one, which names them.
SUITE := selftests bootparams badparams redirect ident instance used stress fuzz real real-minus
define suite
STEPS += $(addprefix boot-$(1)-,$(SUITE))
# KUnit, the kselftests with the bounds open at boot, then umhcap on the
# real kernel (it narrows bounds, so it runs last).
boot-$(1)-selftests: make-guest $(2)
	$$(STEP) boot-$(1)-selftests $$(S)/boot.sh $$(call img,$(1)) \
		$$(K)/initramfs.cpio $$(R)/$(1)-selftests kunit.filter_glob='umh*' \
		umhcap.run=guest/harmless_test,umh/module_test,umh/boot_test,umh/bounds_test,umh/purpose_test,umh/trace_test,umhcap/guest_test
# Bounds from the command line, applied before the first helper.
boot-$(1)-bootparams: make-guest $(2)
	$$(STEP) boot-$(1)-bootparams $$(S)/boot.sh $$(call img,$(1)) \
		$$(K)/initramfs.cpio $$(R)/$(1)-bootparams kunit.enable=0 \
		usermodehelper.bset=$$(BOOTB) usermodehelper.inheritable=$$(BOOTB) \
		umhcap.run=umh/params_test,umh/boot_test,umh/trace_test
# Malformed items are reported and fail closed: in the bset, each names
# its purpose, which is bounded to nothing; in the inheritable set, one
# names none, and every helper is.  The others still apply.
boot-$(1)-badparams: make-guest $(2)
	$$(STEP) boot-$(1)-badparams $$(S)/boot.sh $$(call img,$(1)) \
		$$(K)/initramfs.cpio $$(R)/$(1)-badparams kunit.enable=0 \
		usermodehelper.bset=all:0x1fffffffffe,coredump:zz,power:0x,uevent:0x1ffffdfffff,request_key:00000000000000001,modprobe:0x1:2 \
		usermodehelper.inheritable=initrd:0x1ff0000ffff,modprob:0x1,uevent:0x1ffffdfffff \
		umhcap.run=umh/params_test,umh/boot_test
# Who may choose a helper's program: real bounded helpers and root short
# of a capability try every knob (narrows for good).
boot-$(1)-redirect: make-guest $(2)
	$$(STEP) boot-$(1)-redirect $$(S)/boot.sh $$(call img,$(1)) \
		$$(K)/initramfs.cpio $$(R)/$(1)-redirect kunit.enable=0 \
		umhcap.run=umh/redirect_test
# Identities: a compromised helper bounded to nothing, as uid 0 and as a
# user of its own, tries what needs no capability (narrows for good).
boot-$(1)-ident: make-guest $(2)
	$$(STEP) boot-$(1)-ident $$(S)/boot.sh $$(call img,$(1)) \
		$$(K)/initramfs.cpio $$(R)/$(1)-ident kunit.enable=0 \
		umhcap.run=umh/ident_test,umh/scope_test
# Each helper its own principal: what a compromised core dump helper's
# process left behind reaches of the next helper, with open bounds, then
# bounded to nothing (narrows for good).
boot-$(1)-instance: make-guest $(2)
	$$(STEP) boot-$(1)-instance $$(S)/boot.sh $$(call img,$(1)) \
		$$(K)/initramfs.cpio $$(R)/$(1)-instance kunit.enable=0 \
		umhcap.run=umh/instance_test
# What helpers use: real helpers of every purpose use capabilities, their
# grandchildren too, and a seeded storm of them races readers of the
# record.  In a boot of its own: it fills the record for good.
boot-$(1)-used: make-guest $(2)
	$$(STEP) boot-$(1)-used $$(S)/boot.sh $$(call img,$(1)) \
		$$(K)/initramfs.cpio $$(R)/$(1)-used kunit.enable=0 \
		UMH_USED_SEED=$$(SEED) umhcap.run=umh/used_test,umh/refused_test
# A seeded concurrent stress, in a boot of its own (narrows for good).
boot-$(1)-stress: make-guest $(2)
	$$(STEP) boot-$(1)-stress $$(S)/boot.sh $$(call img,$(1)) \
		$$(K)/initramfs.cpio $$(R)/$(1)-stress kunit.enable=0 \
		UMH_STRESS_SEED=$$(SEED) umhcap.run=guest/stress_test
# Seeded fuzzing of every knob, in a boot of its own (narrows for good).
boot-$(1)-fuzz: make-guest $(2)
	$$(STEP) boot-$(1)-fuzz $$(S)/boot.sh $$(call img,$(1)) \
		$$(K)/initramfs.cpio $$(R)/$(1)-fuzz kunit.enable=0 \
		UMH_FUZZ_SEED=$$(SEED) umhcap.run=guest/fuzz_test
# Real Debian helpers (guest/real_test.c): each does its job with open
# bounds and bounded to what it used; the guest then names one boot per
# capability of the learned sets, each taking one away from every
# purpose at once, and the job must fail in each.
boot-$(1)-real: make-guest $(2)
	$$(STEP) boot-$(1)-real sh -c '$$(S)/boot.sh "$$$$(cat $$(R)/bzImage.$(1))" \
		$$(K)/initramfs-real.cpio $$(R)/$(1)-real kunit.enable=0 \
		UMH_REAL_WAIT=$(3) umhcap.run=guest/real_test && \
		sed -n "s/^# umhcap-real-boot: //p" $$(R)/$(1)-real/tests.log \
		>$$(R)/$(1)-real.boots'
# The boots it named, each a step of its own, side by side as slots allow.
boot-$(1)-real-minus: boot-$(1)-real
	$$(STEP) boot-$(1)-real-minus env MINUS_PREFIX=$(1) MINUS_WAIT=$(3) \
		$$(MAKE) -s -f $$(S)/check.mk minus
endef
BOOTB := all:0x1fffffffdff,uevent:0x1ffffdfffff,coredump:0

$(eval $(call suite,patched,make-kernel,10))

# The kernels of config/matrix that run the whole suite again: the debug
# kernel (PREEMPT_RT, KASAN, lockdep, UBSAN, ...), slow under TCG.
define suite_line
STEPS += kernel-$(1)
kernel-$(1): make-kernel
	$$(STEP) --needed --out $$(R)/bzImage.$(1) kernel-$(1) \
		$$(S)/matrix.sh kernel $(1)
$$(addprefix boot-$(1)-,$$(SUITE)): export BOOT_TIMEOUT := 1800
$$(eval $$(call suite,$(1),kernel-$(1),40))
endef
$(foreach c,$(MATRIX_SUITE),$(eval $(call suite_line,$(c))))

# The booted lines of config/matrix: each kernel runs its line's tests.
define boot_line
STEPS += kernel-$(1) boot-$(1)
kernel-$(1): make-kernel
	$$(STEP) --needed --out $$(R)/bzImage.$(1) kernel-$(1) \
		$$(S)/matrix.sh kernel $(1)
boot-$(1): make-guest kernel-$(1)
	$$(STEP) boot-$(1) sh -c '$$(S)/boot.sh "$$$$(cat $$(R)/bzImage.$(1))" \
		$$(K)/initramfs.cpio $$(R)/$(1) kunit.enable=0 \
		$$$$($$(S)/matrix.sh params $(1)) \
		umhcap.run="$$$$($$(S)/matrix.sh tests $(1))" && \
		$$(S)/matrix.sh skips $(1) >$$(R)/$(1)/expected-skips'
endef
$(foreach c,$(MATRIX_BOOT),$(eval $(call boot_line,$(c))))

# The builds first: make starts steps in this order as slots free up, and
# the chain of builds is the run's longest path.
check: $(BUILDS) $(filter-out $(BUILDS),$(STEPS))

# The steps a run should count: check.sh counts any that did not run.
list:
	@echo $(STEPS)

# ---- the real-minus boots of one suite (MINUS_PREFIX, MINUS_WAIT): a
# make of their own, run by boot-PREFIX-real-minus, that shares its job
# slots.
ifneq ($(MINUS_PREFIX),)
MINUS_BOOTS := $(R)/$(MINUS_PREFIX)-real.boots
MINUS_N := $(shell grep -c . $(MINUS_BOOTS) 2>/dev/null || echo 0)
MINUS := $(addprefix minus-,$(shell seq 1 $(MINUS_N)))
.PHONY: minus $(MINUS)
minus: $(MINUS)
	@[ -s $(MINUS_BOOTS) ] || { echo "no boots named in $(MINUS_BOOTS)" >&2; exit 1; }
$(MINUS): minus-%:
	$(STEP) boot-$(MINUS_PREFIX)-real-minus$* sh -c '$(S)/boot.sh \
		"$$(cat $(R)/bzImage.$(MINUS_PREFIX))" $(K)/initramfs-real.cpio \
		$(R)/$(MINUS_PREFIX)-real-minus$* kunit.enable=0 \
		UMH_REAL_WAIT=$(MINUS_WAIT) $$(sed -n $*p $(MINUS_BOOTS)) \
		umhcap.run=guest/real_test'
endif

# ---- the boots boot-installed named: a make of their own, as above.
# MORE_NAME: the learning boot that named them, installed or
# installed-ident.
ifneq ($(filter installed-more,$(MAKECMDGOALS)),)
MORE_NAME ?= installed
MORE_BOOTS := $(R)/$(MORE_NAME).boots
MORE_N := $(shell grep -c . $(MORE_BOOTS) 2>/dev/null || echo 0)
MORE := $(addprefix more-,$(shell seq 1 $(MORE_N)))
.PHONY: installed-more $(MORE)
installed-more: $(MORE)
	@[ -s $(MORE_BOOTS) ] || { echo "no boots named in $(MORE_BOOTS)" >&2; exit 1; }
$(MORE): more-%:
	$(STEP) boot-$(MORE_NAME)$* sh -c '$(call installed_boot,$(MORE_NAME)$*) \
		$$(sed -n $*p $(MORE_BOOTS))'
endif

# ---- 'make debian' (scripts/debian.sh): each full line, built whole,
# through the suite (DEBIAN_LINES: the lines).
define debian_line
DEBIAN_STEPS += kernel-$(1) $$(addprefix boot-$(1)-,$$(SUITE))
kernel-$(1):
	$$(STEP) --needed --out $$(R)/bzImage.$(1) kernel-$(1) \
		$$(S)/matrix.sh kernel $(1)
$$(addprefix boot-$(1)-,$$(SUITE)): export BOOT_TIMEOUT := 1800
$$(eval $$(call suite,$(1),kernel-$(1),40))
endef
ifneq ($(DEBIAN_LINES),)
$(foreach c,$(DEBIAN_LINES),$(eval $(call debian_line,$(c))))
endif
debian: $(DEBIAN_STEPS)
debian-list:
	@echo $(DEBIAN_STEPS)
