/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the fuzz and stress tests of the usermode helper capability
 * bounds, on top of the umh selftests' common.h: what those tests share
 * (read_text(), write_text(), parse_bound(), struct umh_run,
 * helper_link(), drop_effective(), ...) is written once, there.  These
 * add the 18 bound files by number, a seeded random stream, and the
 * reading of a helper's whole log.  They run as root in the test guest
 * only: they narrow the bounds of the running kernel for the rest of its
 * boot.
 */

#ifndef _UMH_GUEST_STRESS_H
#define _UMH_GUEST_STRESS_H

#include "umh/common.h"

#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>

/*
 * The purposes whose bound files the stress and the fuzz write.  The
 * selftests' one list (umh/purposes.h) comes with the functions that
 * start each helper, which these programs do not use.
 */
static const char * const purpose_names[] = {
	"modprobe", "coredump", "uevent", "request_key", "release_agent",
	"power", "initrd", "other",
};

#define NR_PURPOSES	((int)ARRAY_SIZE(purpose_names))

/* The bound files: the global ones, then each purpose's, in that order. */
#define NSCOPE		(NR_PURPOSES + 1)
#define NKNOB		(2 * NSCOPE)

/* Scope 0 is the global bounds (NULL for bound_path()), then purposes. */
static inline const char *scope_name(int scope)
{
	return scope ? purpose_names[scope - 1] : NULL;
}

static const char * const set_names[2] = { "bset", "inheritable" };

/* Knob k: scope k / 2 (0 = global), set k % 2. */
static inline void knob_path(char *path, size_t size, int k)
{
	bound_path(path, size, scope_name(k / 2), set_names[k % 2]);
}

static inline const char *knob_name(int k)
{
	static char names[NKNOB][48];

	if (!names[k][0])
		snprintf(names[k], sizeof(names[k]), "%s/%s",
			 scope_name(k / 2) ?: "global", set_names[k % 2]);
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

/* parse_bound(), and no bit above the kernel's last capability. */
static inline int parse_knob(const char *text, unsigned long long *val)
{
	int err = parse_bound(text, val);

	if (!err && (*val & ~CAPS_FULL))
		return -ERANGE;
	return err;
}

/* Read a bound through @fd, from offset 0; 0 or -errno. */
static inline int pread_bound(int fd, unsigned long long *val, char *text,
			      size_t size)
{
	ssize_t len = pread(fd, text, size - 1, 0);

	if (len < 0)
		return -errno;
	text[len] = '\0';
	return parse_knob(text, val);
}

static inline int read_knob(int k, unsigned long long *val)
{
	char path[PATH_MAX], text[64];
	int err;

	knob_path(path, sizeof(path), k);
	err = read_text(path, text, sizeof(text));
	if (err < 0)
		return err;
	return parse_knob(text, val);
}

/*
 * Read every run recorded in "@link.log" into @runs (at most @max).
 * Returns the number of well-formed lines (which may exceed @max), or
 * -errno; *@bad counts malformed lines.
 */
static inline int read_runs(const char *link, struct umh_run *runs, int max,
			    int *bad)
{
	char log[PATH_MAX + 8], line[1024];
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

#endif /* _UMH_GUEST_STRESS_H */
