/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the fuzz and stress tests of the usermode helper capability
 * bounds.  They run as root in the test guest only: they narrow the bounds
 * of the running kernel for the rest of its boot.
 */

#ifndef _UMH_STRESS_COMMON_H
#define _UMH_STRESS_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define UMH_SYSCTL_DIR	"/proc/sys/kernel/usermodehelper"
/* Every capability of the kernel (CAP_LAST_CAP 40). */
#define CAPS_FULL	((1ULL << (CAP_LAST_CAP + 1)) - 1)

/* The 18 bound files: the global ones, then each purpose's. */
#define NSCOPE		9
#define NKNOB		(2 * NSCOPE)

static const char * const scope_names[NSCOPE] = {
	NULL, "modprobe", "coredump", "uevent", "request_key",
	"release_agent", "power", "initrd", "other",
};

static const char * const set_names[2] = { "bset", "inheritable" };

/* Knob k: scope k / 2 (0 = global), set k % 2. */
static inline void knob_path(char *path, size_t size, int k)
{
	const char *scope = scope_names[k / 2];

	if (scope)
		snprintf(path, size, UMH_SYSCTL_DIR "/%s/%s", scope,
			 set_names[k % 2]);
	else
		snprintf(path, size, UMH_SYSCTL_DIR "/%s", set_names[k % 2]);
}

static inline const char *knob_name(int k)
{
	static char names[NKNOB][48];

	if (!names[k][0])
		snprintf(names[k], sizeof(names[k]), "%s/%s",
			 scope_names[k / 2] ?: "global", set_names[k % 2]);
	return names[k];
}

/* xorshift64*: small, fast and the same everywhere, so runs reproduce. */
struct rng {
	uint64_t s;
};

static inline void rng_seed(struct rng *r, uint64_t seed)
{
	/* splitmix64 of the seed, so nearby seeds give unrelated streams */
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	r->s = (z ^ (z >> 31)) ?: 1;
}

static inline uint64_t rnd(struct rng *r)
{
	uint64_t x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform enough in [0, n). */
static inline uint32_t rnd_below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)((rnd(r) >> 32) % n) : 0;
}

/* True with probability @pct percent. */
static inline int rnd_pct(struct rng *r, unsigned int pct)
{
	return rnd_below(r, 100) < pct;
}

/* The seed: $@env if set, else the time. */
static inline uint64_t pick_seed(const char *env)
{
	const char *s = getenv(env);
	struct timespec ts;

	if (s && *s)
		return strtoull(s, NULL, 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int read_text(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len < 0)
		return -errno;
	buf[len] = '\0';
	return len;
}

/* One write(2) of @text; returns 0 or -errno. */
static inline int write_text(const char *path, const char *text)
{
	ssize_t len;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = write(fd, text, strlen(text));
	close(fd);
	if (len < 0)
		return -errno;
	return len == (ssize_t)strlen(text) ? 0 : -EIO;
}

/* Parse the format a bound reads in, "<low>\t<high>\n", strictly. */
static inline int parse_bound(const char *text, unsigned long long *val)
{
	unsigned int lo, hi;
	char again[32];
	int n;

	if (sscanf(text, "%u\t%u\n%n", &lo, &hi, &n) != 2 ||
	    text[n] != '\0')
		return -EINVAL;
	snprintf(again, sizeof(again), "%u\t%u\n", lo, hi);
	if (strcmp(again, text))
		return -EINVAL;
	*val = (unsigned long long)hi << 32 | lo;
	if (*val & ~CAPS_FULL)
		return -ERANGE;
	return 0;
}

/* Read a bound through @fd, from offset 0; 0 or -errno. */
static inline int pread_bound(int fd, unsigned long long *val, char *text,
			      size_t size)
{
	ssize_t len = pread(fd, text, size - 1, 0);

	if (len < 0)
		return -errno;
	text[len] = '\0';
	return parse_bound(text, val);
}

static inline int read_knob(int k, unsigned long long *val)
{
	char path[PATH_MAX], text[64];
	int err;

	knob_path(path, sizeof(path), k);
	err = read_text(path, text, sizeof(text));
	if (err < 0)
		return err;
	return parse_bound(text, val);
}

/* Clear @caps from the effective set of the calling process. */
static inline int drop_effective(const cap_value_t *caps, int n)
{
	cap_t c = cap_get_proc();
	int err;

	if (!c)
		return -errno;
	err = cap_set_flag(c, CAP_EFFECTIVE, n, caps, CAP_CLEAR) ||
	      cap_set_proc(c) ? -errno : 0;
	cap_free(c);
	return err;
}

/*
 * The recording helper: umh_helper next to this program, or the one of
 * the umh selftests (/tests/umh/umh_helper in the guest).
 */
static inline int helper_target(char *target, size_t size)
{
	char self[PATH_MAX / 2];
	ssize_t len;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		return -errno;
	self[len] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(target, size, "%s/umh_helper", self);
	if (!access(target, X_OK))
		return 0;
	snprintf(target, size, "%s/../umh/umh_helper", self);
	if (!access(target, X_OK))
		return 0;
	return -ENOENT;
}

/* Make @link a fresh symlink to the recording helper, with no log yet. */
static inline int helper_link(const char *link)
{
	char target[PATH_MAX], log[PATH_MAX + 8];
	int err = helper_target(target, sizeof(target));

	if (err)
		return err;
	snprintf(log, sizeof(log), "%s.log", link);
	unlink(link);
	unlink(log);
	return symlink(target, link) ? -errno : 0;
}

/* The sets one run of umh_helper recorded. */
struct umh_run {
	int pid;
	char argv1[64];
	char uuid[64];
	unsigned long long bnd, prm, eff, inh, amb;
};

static inline int parse_run(const char *line, struct umh_run *run)
{
	return sscanf(line,
		      "pid=%d argv1=%63s uuid=%63s bnd=%llx prm=%llx eff=%llx inh=%llx amb=%llx",
		      &run->pid, run->argv1, run->uuid, &run->bnd, &run->prm,
		      &run->eff, &run->inh, &run->amb) == 8 ? 0 : -EINVAL;
}

/*
 * Read every run recorded in "@link.log" into @runs (at most @max).
 * Returns the number of well-formed lines (which may exceed @max), or
 * -errno; *@bad counts malformed lines.
 */
static inline int read_runs(const char *link, struct umh_run *runs, int max,
			    int *bad)
{
	char log[PATH_MAX + 8], line[512];
	struct umh_run r;
	int n = 0;
	FILE *f;

	snprintf(log, sizeof(log), "%s.log", link);
	*bad = 0;
	f = fopen(log, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		if (parse_run(line, &r)) {
			(*bad)++;
			continue;
		}
		if (n < max)
			runs[n] = r;
		n++;
	}
	fclose(f);
	return n;
}

/* Number of lines in "@link.log", cheaply. */
static inline int count_runs(const char *link)
{
	char log[PATH_MAX + 8], buf[4096];
	ssize_t len;
	int fd, n = 0;

	snprintf(log, sizeof(log), "%s.log", link);
	fd = open(log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while ((len = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < len; i++)
			n += buf[i] == '\n';
	close(fd);
	return n;
}

/* Shared between a test and the processes it forks. */
static inline void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

#endif /* _UMH_STRESS_COMMON_H */
