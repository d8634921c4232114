// SPDX-License-Identifier: GPL-2.0
/*
 * umh_bench - time synchronous usermode helper starts, in the test guest
 *
 * Each start is request_module() through a mount of an unknown filesystem
 * type: the kernel runs kernel.modprobe with UMH_WAIT_PROC and the mount
 * returns once the helper has exited.  The helper is /tests/guest/true.
 *
 * The bounds are measured open, then with the global bounds narrowed,
 * then (where the kernel has them) with the modprobe bounds narrowed too.
 * Each mode runs ROUNDS rounds of umhbench.n=N starts (kernel command
 * line, default 500) and reports the median rate.  Output is KTAP, with
 * one "# bench: MODE RATE" line per mode for scripts/bench.sh.
 *
 * First, mode "capable" times capability checks of a task that is no
 * helper, which the record of what helpers use must cost at most a
 * branch: reboot(2) with a wrong magic number checks CAP_SYS_BOOT, then
 * fails with EINVAL and does nothing else.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS	5
#define UMH	"/proc/sys/kernel/usermodehelper"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

static long cmdline_n(void)
{
	char buf[4096] = "";
	const char *s;
	int fd = open("/proc/cmdline", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = '\0';
		close(fd);
	}
	s = strstr(buf, "umhbench.n=");
	return s ? atol(s + 11) : 500;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Returns the median helpers per second over ROUNDS rounds, or -1. */
static double measure(long n)
{
	double rate[ROUNDS], t;
	long i;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		t = now();
		for (i = 0; i < n; i++)
			if (!mount("none", "/", "umhbench-nosuchfs", 0, NULL) ||
			    errno != ENODEV)
				return -1;
		rate[r] = n / (now() - t);
	}
	qsort(rate, ROUNDS, sizeof(*rate), cmp);
	return rate[ROUNDS / 2];
}

/* Capability checks per second, 200 per helper of a round; or -1. */
static double measure_capable(long n)
{
	double rate[ROUNDS], t;
	long i;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		t = now();
		for (i = 0; i < n * 200; i++)
			if (syscall(SYS_reboot, 0, 0, 0, NULL) != -1 ||
			    errno != EINVAL)
				return -1;
		rate[r] = n * 200 / (now() - t);
	}
	qsort(rate, ROUNDS, sizeof(*rate), cmp);
	return rate[ROUNDS / 2];
}

static int test = 0;

/* @what: what was counted, "helpers" or "checks" */
static void report(const char *mode, const char *what, long n, double rate)
{
	test++;
	if (rate < 0) {
		printf("not ok %d bench %s: one of the %s failed (%s)\n",
		       test, mode, what, strerror(errno));
		return;
	}
	printf("# bench: %s %.1f\n", mode, rate);
	printf("ok %d bench %s: %d x %ld %s, median %.1f/s\n", test, mode,
	       ROUNDS, n, what, rate);
}

int main(void)
{
	int per_purpose = !access(UMH "/modprobe/bset", F_OK);
	long n = cmdline_n();

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%d\n", per_purpose ? 4 : 3);
	if (write_file("/proc/sys/kernel/modprobe", "/tests/guest/true")) {
		printf("Bail out! cannot set kernel.modprobe\n");
		return 1;
	}
	measure_capable(n / 10);	/* warm up */
	report("capable", "checks", n * 200, measure_capable(n));
	measure(n / 10);	/* warm up */

	report("open", "helpers", n, measure(n));

	/* Every helper loses CAP_SYS_RAWIO (17). */
	if (write_file(UMH "/bset", "4294836223 511") ||
	    write_file(UMH "/inheritable", "4294836223 511"))
		report("global", "helpers", n, -1);
	else
		report("global", "helpers", n, measure(n));

	if (per_purpose) {
		/* modprobe keeps CAP_SYS_MODULE only. */
		if (write_file(UMH "/modprobe/bset", "65536 0") ||
		    write_file(UMH "/modprobe/inheritable", "65536 0"))
			report("purpose", "helpers", n, -1);
		else
			report("purpose", "helpers", n, measure(n));
	}
	return 0;
}
