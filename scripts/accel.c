// SPDX-License-Identifier: GPL-2.0
/*
 * accel - the QEMU accelerator arguments for the test guests
 *
 *   accel [--why]
 *
 * Prints one line, "-accel kvm" when KVM is usable here and
 * "-accel tcg" otherwise, and exits 0.  With --why, a second line
 * starting with "# " says why.  Both run QEMU's default CPU model, so a
 * guest sees the same CPU under either.
 *
 * This is the first of two checks: scripts/boot.sh then boots a kernel
 * under KVM once, because a device that runs this page can still fail
 * a real guest (nested KVM that runs real mode and hangs in long mode).
 *
 * KVM is usable when its device (/dev/kvm, or the path in
 * UMHCAP_KVM_DEV if set and not empty) runs a guest: a VM with one vCPU
 * and one page of memory holding a "hlt" must run to KVM_EXIT_HLT.  A
 * device that is there but cannot do that (no permission, nested
 * virtualisation that does not work, not a KVM device at all) is not
 * usable.  A KVM_RUN that takes longer than TIMEOUT seconds is not
 * usable either.
 *
 * UMHCAP_ACCEL chooses: "tcg" gives TCG without looking at the device,
 * "kvm" gives KVM or, if the device is not usable, an error and exit
 * status 1; "auto", empty or unset probes.  Any other value, or another
 * argument, is an error with exit status 2.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/kvm.h>

#define DEFAULT_DEV	"/dev/kvm"
#define TIMEOUT		5		/* seconds, for KVM_RUN */
#define GUEST_ADDR	0x1000		/* where the guest's page is */
#define PAGE		0x1000
#define HLT		0xf4

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define ARGS_KVM	"-accel kvm"
#define ARGS_TCG	"-accel tcg"

/* The vCPU's run area, for the SIGALRM handler. */
static struct kvm_run *volatile alarm_run;
static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
	/* A KVM_RUN not yet entered returns EINTR at once. */
	if (alarm_run)
		alarm_run->immediate_exit = 1;
}

static const char * const exit_names[] = {
	[KVM_EXIT_UNKNOWN] = "KVM_EXIT_UNKNOWN",
	[KVM_EXIT_EXCEPTION] = "KVM_EXIT_EXCEPTION",
	[KVM_EXIT_IO] = "KVM_EXIT_IO",
	[KVM_EXIT_HYPERCALL] = "KVM_EXIT_HYPERCALL",
	[KVM_EXIT_DEBUG] = "KVM_EXIT_DEBUG",
	[KVM_EXIT_MMIO] = "KVM_EXIT_MMIO",
	[KVM_EXIT_SHUTDOWN] = "KVM_EXIT_SHUTDOWN",
	[KVM_EXIT_FAIL_ENTRY] = "KVM_EXIT_FAIL_ENTRY",
	[KVM_EXIT_INTR] = "KVM_EXIT_INTR",
	[KVM_EXIT_INTERNAL_ERROR] = "KVM_EXIT_INTERNAL_ERROR",
};

#if defined(__x86_64__) || defined(__i386__)

/* Runs "hlt" at GUEST_ADDR in real mode on @vcpu, mapped at @run. */
static bool run_hlt(int vcpu, struct kvm_run *run, char *why, size_t len)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	int ret, err;

	if (ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0) {
		snprintf(why, len, "KVM_GET_SREGS: %s", strerror(errno));
		return false;
	}
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0) {
		snprintf(why, len, "KVM_SET_SREGS: %s", strerror(errno));
		return false;
	}
	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_ADDR;
	regs.rflags = 2;		/* bit 1 is always set */
	if (ioctl(vcpu, KVM_SET_REGS, &regs) < 0) {
		snprintf(why, len, "KVM_SET_REGS: %s", strerror(errno));
		return false;
	}

	/* No SA_RESTART: SIGALRM makes KVM_RUN return EINTR. */
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	if (sigaction(SIGALRM, &sa, &old) < 0) {
		snprintf(why, len, "sigaction: %s", strerror(errno));
		return false;
	}
	timed_out = 0;
	alarm_run = run;
	alarm(TIMEOUT);
	ret = ioctl(vcpu, KVM_RUN, 0);
	err = errno;
	alarm(0);
	alarm_run = NULL;
	sigaction(SIGALRM, &old, NULL);

	if (ret < 0) {
		if (err == EINTR && timed_out)
			snprintf(why, len, "KVM_RUN: timed out after %d s", TIMEOUT);
		else
			snprintf(why, len, "KVM_RUN: %s", strerror(err));
		return false;
	}
	if (run->exit_reason != KVM_EXIT_HLT) {
		if (run->exit_reason < ARRAY_SIZE(exit_names) &&
		    exit_names[run->exit_reason])
			snprintf(why, len, "KVM_RUN: exit reason %s, not KVM_EXIT_HLT",
				 exit_names[run->exit_reason]);
		else
			snprintf(why, len, "KVM_RUN: exit reason %u, not KVM_EXIT_HLT",
				 run->exit_reason);
		return false;
	}
	return true;
}

#else

static bool run_hlt(int vcpu, struct kvm_run *run, char *why, size_t len)
{
	(void)vcpu;
	(void)run;
	snprintf(why, len, "the probe's guest code is x86 only");
	return false;
}

#endif

/*
 * Whether the KVM device @dev runs a guest to HLT.  If not, @why gets
 * the reason.
 */
static bool kvm_usable(const char *dev, char *why, size_t len)
{
	struct kvm_userspace_memory_region region;
	struct kvm_run *run = MAP_FAILED;
	unsigned char *mem = MAP_FAILED;
	int kvm, vm = -1, vcpu = -1;
	long size = 0;
	bool ok = false;
	int ret;

	kvm = open(dev, O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return false;
	}
	ret = ioctl(kvm, KVM_GET_API_VERSION, 0);
	if (ret < 0) {
		snprintf(why, len, "KVM_GET_API_VERSION: %s", strerror(errno));
		goto out;
	}
	if (ret != KVM_API_VERSION) {
		snprintf(why, len, "KVM_GET_API_VERSION: %d, not %d", ret, KVM_API_VERSION);
		goto out;
	}
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0) {
		snprintf(why, len, "KVM_CREATE_VM: %s", strerror(errno));
		goto out;
	}

	mem = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		snprintf(why, len, "mmap of guest memory: %s", strerror(errno));
		goto out;
	}
	mem[0] = HLT;
	region = (struct kvm_userspace_memory_region){
		.slot = 0,
		.guest_phys_addr = GUEST_ADDR,
		.memory_size = PAGE,
		.userspace_addr = (unsigned long)mem,
	};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		snprintf(why, len, "KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
		goto out;
	}

	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0) {
		snprintf(why, len, "KVM_CREATE_VCPU: %s", strerror(errno));
		goto out;
	}
	size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (size < 0) {
		snprintf(why, len, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
		goto out;
	}
	if ((size_t)size < sizeof(*run)) {
		snprintf(why, len, "KVM_GET_VCPU_MMAP_SIZE: %ld, less than %zu",
			 size, sizeof(*run));
		goto out;
	}
	run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED) {
		snprintf(why, len, "mmap of kvm_run: %s", strerror(errno));
		goto out;
	}

	ok = run_hlt(vcpu, run, why, len);
out:
	if (run != MAP_FAILED)
		munmap(run, size);
	if (vcpu >= 0)
		close(vcpu);
	if (mem != MAP_FAILED)
		munmap(mem, PAGE);
	if (vm >= 0)
		close(vm);
	close(kvm);
	return ok;
}

int main(int argc, char **argv)
{
	const char *mode = getenv("UMHCAP_ACCEL");
	const char *dev = getenv("UMHCAP_KVM_DEV");
	bool why_wanted = false, kvm;
	char reason[256];

	if (argc == 2 && !strcmp(argv[1], "--why")) {
		why_wanted = true;
	} else if (argc != 1) {
		fprintf(stderr, "usage: accel [--why]\n");
		return 2;
	}
	if (!mode)
		mode = "";
	if (!dev || !*dev)
		dev = DEFAULT_DEV;

	if (!strcmp(mode, "tcg")) {
		printf("%s\n", ARGS_TCG);
		if (why_wanted)
			printf("# tcg: UMHCAP_ACCEL=tcg\n");
	} else if (!strcmp(mode, "kvm") || !strcmp(mode, "auto") || !*mode) {
		kvm = kvm_usable(dev, reason, sizeof(reason));
		if (!kvm && !strcmp(mode, "kvm")) {
			fprintf(stderr, "accel: UMHCAP_ACCEL=kvm, but %s is not usable: %s\n",
				dev, reason);
			return 1;
		}
		printf("%s\n", kvm ? ARGS_KVM : ARGS_TCG);
		if (why_wanted && kvm)
			printf("# kvm: %s ran a guest to HLT\n", dev);
		else if (why_wanted)
			printf("# tcg: %s: %s\n", dev, reason);
	} else {
		fprintf(stderr, "accel: UMHCAP_ACCEL=%s: not kvm, tcg or auto\n", mode);
		return 2;
	}

	if (fflush(stdout) || ferror(stdout)) {
		perror("accel: stdout");
		return 1;
	}
	return 0;
}
