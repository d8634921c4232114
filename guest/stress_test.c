// SPDX-License-Identifier: GPL-2.0
/*
 * Stress the usermode helper capability bounds under concurrency
 *
 * For a bounded time ($UMH_STRESS_SECS, default 12 s) it runs at once:
 *
 *  - writers, narrowing random bits of all 18 bound files (global and per
 *    purpose, bset and inheritable), each keeping the AND of every value
 *    it wrote to each file;
 *  - readers, reading every bound file in a loop: each read must be well
 *    formed and never hold a bit an earlier read by the same reader lacked;
 *  - a storm of real helpers of every purpose: modprobe (a mount of an
 *    unknown filesystem), coredump (a core_pattern pipe), uevent (a
 *    synthetic uevent), request_key (/sbin/request-key), release_agent (a
 *    cgroup v1 named hierarchy), and power, initrd and other (test_umh).
 *    Each trigger reads the global and its purpose's bset just before it
 *    starts its helper.
 *
 * Then it checks that every helper's bounding, permitted and effective
 * sets are within the bounds read just before its trigger (and hold at
 * least the final bounds), that its inheritable and ambient sets are
 * empty, and that each bound file ends equal to its value at the start
 * ANDed with everything written to it.
 *
 * Seeded from $UMH_STRESS_SEED, else from the time; each process draws
 * from its own stream of that seed, so its operations reproduce (their
 * interleaving does not).  With -DUMH_FAULT=1..5 it fakes one broken
 * rule, to show that its check fires.
 *
 * Narrows the bounds of the running kernel for good: run it in a boot of
 * its own, as root.
 */

#include <linux/keyctl.h>
#include <sys/syscall.h>

#include "stress.h"

#ifndef UMH_FAULT
#define UMH_FAULT 0
#endif

#define DIR		"/tmp/umh-stress"
#define CG_DIR		DIR "/cg"
#define REQUEST_KEY	"/sbin/request-key"
#define TEST_UMH_RUN	"/sys/kernel/debug/test_umh/run"

#define NWRITERS	3
#define NREADERS	2
#define NPURPOSE	8
#define MAX_TRIG	4096
/* Helpers a trigger may leave running before it waits for them. */
#define MAX_INFLIGHT	8
#define MAX_REPORTS	30

enum { MODPROBE, COREDUMP, UEVENT, REQUEST_KEY_P, RELEASE_AGENT, POWER,
       INITRD, OTHER };

struct trig {
	unsigned long long bound;	/* full & global & purpose bset */
	int ok;				/* the trigger worked */
};

struct purpose_state {
	int n;
	struct trig t[MAX_TRIG];
};

static struct shared {
	uint64_t seed;
	double deadline;
	unsigned int failures, reports;
	unsigned long long initial[NKNOB];
	unsigned long long acc[NWRITERS][NKNOB];
	unsigned long writes[NWRITERS], reads[NREADERS];
	struct purpose_state p[NPURPOSE];
} *sh;

static void fail(const char *fmt, ...)
{
	va_list ap;

	__atomic_fetch_add(&sh->failures, 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&sh->reports, 1, __ATOMIC_RELAXED) >= MAX_REPORTS)
		return;
	fprintf(stderr, "# FAIL [%d]: ", getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int bset_knob(int purpose)
{
	return 2 * (purpose + 1);
}

static const char *purpose_name(int p)
{
	return scope_name(p + 1);
}

static void link_path(char *buf, size_t size, int p)
{
	if (p == REQUEST_KEY_P)
		snprintf(buf, size, REQUEST_KEY);
	else
		snprintf(buf, size, DIR "/%s", purpose_name(p));
}

/*
 * Writers
 */

static void writer(int w)
{
	unsigned long long protect[NKNOB], order[NKNOB][64];
	int nunprot[NKNOB], k, i;
	struct rng r, shared_r;
	char path[PATH_MAX];
	int fd[NKNOB];
	double start = now_s(), span = sh->deadline - start;

	/* The bits no writer clears: the same for every writer. */
	rng_seed(&shared_r, sh->seed ^ 0x9407ec7ULL);
	rng_seed(&r, sh->seed ^ (0x1000ULL + w));
	for (k = 0; k < NKNOB; k++) {
		protect[k] = 0;
		nunprot[k] = 0;
		for (i = 0; i <= CAP_LAST_CAP; i++)
			if (rnd_pct(&shared_r, 45))
				protect[k] |= 1ULL << i;
			else
				order[k][nunprot[k]++] = i;
		/* This writer's order of clearing the others */
		for (i = nunprot[k] - 1; i > 0; i--) {
			int j = rnd_below(&r, i + 1);
			unsigned long long t = order[k][i];

			order[k][i] = order[k][j];
			order[k][j] = t;
		}
		knob_path(path, sizeof(path), k);
		fd[k] = open(path, O_WRONLY | O_CLOEXEC);
		if (fd[k] < 0)
			fail("writer %d: open %s: %s", w, path, strerror(errno));
		sh->acc[w][k] = ~0ULL;
	}

	while (now_s() < sh->deadline) {
		double f = (now_s() - start) / span;
		int sweep = rnd_pct(&r, 5), k0 = rnd_below(&r, NKNOB);

		for (k = sweep ? 0 : k0; k < (sweep ? NKNOB : k0 + 1); k++) {
			unsigned long long v = ~0ULL, logged;
			char text[64];
			int n, len;
			ssize_t ret;

			/* Along this writer's order, over the whole run */
			n = f * nunprot[k];
			if (rnd_pct(&r, 2) && n < nunprot[k])
				n++;
			for (i = 0; i < n; i++)
				v &= ~(1ULL << order[k][i]);

			if (rnd_pct(&r, 25)) {
				len = snprintf(text, sizeof(text),
					       rnd_pct(&r, 50) ? "%u\n" : "%#x",
					       (unsigned int)v);
				logged = (v & 0xffffffffULL) |
					 0xffffffff00000000ULL;
			} else {
				len = snprintf(text, sizeof(text),
					       rnd_pct(&r, 50) ? "%u %u\n" :
					       "%#x\t%#x", (unsigned int)v,
					       (unsigned int)(v >> 32));
				logged = v;
			}
			if (fd[k] < 0)
				continue;
			ret = pwrite(fd[k], text, len, 0);
			if (ret != len) {
				fail("writer %d: writing \"%s\" to %s: %zd (%s)",
				     w, text, knob_name(k), ret,
				     ret < 0 ? strerror(errno) : "short");
				continue;
			}
#if UMH_FAULT == 3
			/* Fake: log a bit as cleared that was not written. */
			if (w == 0 && sh->writes[w] == 100)
				logged &= ~protect[k];
#endif
			sh->acc[w][k] &= logged;
			sh->writes[w]++;
		}
	}
	for (k = 0; k < NKNOB; k++)
		if (fd[k] >= 0)
			close(fd[k]);
}

/*
 * Readers
 */

static void reader(int id)
{
	unsigned long long last[NKNOB], v = 0;
	char text[128], path[PATH_MAX];
	int fd[NKNOB], k, err;
	struct rng r;

	rng_seed(&r, sh->seed ^ (0x2000ULL + id));
	for (k = 0; k < NKNOB; k++) {
		last[k] = sh->initial[k];
		knob_path(path, sizeof(path), k);
		fd[k] = open(path, O_RDONLY | O_CLOEXEC);
		if (fd[k] < 0)
			fail("reader %d: open %s: %s", id, path, strerror(errno));
	}
	while (now_s() < sh->deadline) {
		for (k = 0; k < NKNOB; k++) {
			if (rnd_pct(&r, 10)) {
				knob_path(path, sizeof(path), k);
				err = read_text(path, text, sizeof(text));
				err = err < 0 ? err : parse_knob(text, &v);
			} else if (fd[k] >= 0) {
				err = pread_bound(fd[k], &v, text, sizeof(text));
			} else {
				continue;
			}
#if UMH_FAULT == 5
			/* Fake: a malformed read. */
			if (id == 0 && sh->reads[id] == 500) {
				strcpy(text, "4294967295\t511");
				err = parse_knob(text, &v);
			}
#endif
			sh->reads[id]++;
			if (err) {
				fail("reader %d: %s reads \"%.40s\": %s", id,
				     knob_name(k), text, strerror(-err));
				continue;
			}
#if UMH_FAULT == 4
			/* Fake: remember a narrower value than was read. */
			if (id == 0 && sh->reads[id] == 500 && v)
				v &= v - 1;
#endif
			if (v & ~last[k])
				fail("reader %d: %s gained bits: %#llx, then %#llx",
				     id, knob_name(k), last[k], v);
			last[k] = v;
		}
	}
	for (k = 0; k < NKNOB; k++)
		if (fd[k] >= 0)
			close(fd[k]);
}

/*
 * Helper triggers: each a fresh key, so that every helper run is matched
 * to its trigger.  Each fills @key with what identifies its run (argv1,
 * or the SYNTH_UUID of a uevent); 0 or -errno.
 */

static int fire_modprobe(int n, char *key)
{
	char fstype[64];

	snprintf(fstype, sizeof(fstype), "umh-stress-%d-%d", getpid(), n);
	if (!mount("none", "/", fstype, MS_RDONLY, NULL))
		return -EEXIST;
	return errno == ENODEV ? 0 : -errno;
}

static int fire_coredump(int n, char *key)
{
	char pattern[PATH_MAX];
	int status, err;
	pid_t pid;

	snprintf(key, 64, "c%d", n);
	snprintf(pattern, sizeof(pattern), "|" DIR "/coredump %s", key);
	err = write_text("/proc/sys/kernel/core_pattern", pattern);
	if (err)
		return err;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		cap_t none = cap_init();

		/*
		 * A task holding no capability, as a user's program: the
		 * dump of one holding more would reach a helper bounded
		 * below it only with cap_sys_ptrace in its bounds.
		 */
		if (!none || cap_set_proc(none))
			_exit(1);
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		/* A small core: the helper is what matters. */
		write_text("/proc/self/coredump_filter", "0");
		signal(SIGSEGV, SIG_DFL);
		kill(getpid(), SIGSEGV);
		_exit(1);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFSIGNALED(status) && WCOREDUMP(status) ? 0 : -ECHILD;
}

static int fire_uevent(int n, char *key)
{
	char event[80];

	snprintf(key, 64, "%08x-0000-4000-8000-%012x", getpid(), n);
	snprintf(event, sizeof(event), "add %s", key);
	return write_text("/sys/devices/virtual/mem/null/uevent", event);
}

static int fire_request_key(int n, char *key)
{
	char desc[64];

	snprintf(desc, sizeof(desc), "umh-stress:%d:%d", getpid(), n);
	if (syscall(SYS_request_key, "user", desc, "callout",
		    KEY_SPEC_SESSION_KEYRING) >= 0)
		return -EEXIST;
	return errno == ENOKEY || errno == EKEYREJECTED ? 0 : -errno;
}

static int fire_release_agent(int n, char *key)
{
	char cg[PATH_MAX], file[PATH_MAX + 32];
	int err, status;
	pid_t pid;

	snprintf(key, 64, "/r%d", n);
	snprintf(cg, sizeof(cg), CG_DIR "%s", key);
	if (mkdir(cg, 0755))
		return -errno;
	snprintf(file, sizeof(file), "%s/notify_on_release", cg);
	err = write_text(file, "1");
	if (err)
		return err;
	/* A child joins the cgroup and leaves it empty when it exits. */
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		snprintf(file, sizeof(file), "%s/cgroup.procs", cg);
		_exit(write_text(file, "0") ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -ECHILD;
	return 0;
}

static int fire_test_umh(int p, int n, char *key, struct rng *r)
{
	static const char * const waits[] = { "proc", "proc", "exec", "nowait" };
	char req[PATH_MAX + 64];

	snprintf(key, 64, "t%d", n);
	snprintf(req, sizeof(req), "%s %s " DIR "/%s %s", purpose_name(p),
		 waits[rnd_below(r, 4)], purpose_name(p), key);
	return write_text(TEST_UMH_RUN, req);
}

static int fire(int p, int n, char *key, struct rng *r)
{
	switch (p) {
	case MODPROBE:
		return fire_modprobe(n, key);
	case COREDUMP:
		return fire_coredump(n, key);
	case UEVENT:
		return fire_uevent(n, key);
	case REQUEST_KEY_P:
		return fire_request_key(n, key);
	case RELEASE_AGENT:
		return fire_release_agent(n, key);
	default:
		return fire_test_umh(p, n, key, r);
	}
}

/* The helpers of these purposes may still run when the trigger returns. */
static int is_async(int p)
{
	return p == UEVENT || p == RELEASE_AGENT || p >= POWER;
}

static void storm(int p)
{
	struct purpose_state *ps = &sh->p[p];
	unsigned long long g, b;
	char link[PATH_MAX], key[64];
	struct rng r;
	int n, err;

	rng_seed(&r, sh->seed ^ (0x3000ULL + p));
	link_path(link, sizeof(link), p);
	for (n = 0; n < MAX_TRIG && now_s() < sh->deadline; n++) {
		if (is_async(p)) {
			double until = now_s() + 2;

			while (n - count_runs(link) >= MAX_INFLIGHT &&
			       now_s() < until)
				usleep(2000);
		}
		/* The bounds just before the trigger */
		if (read_knob(0, &g) || read_knob(bset_knob(p), &b)) {
			fail("%s: cannot read the bounds", purpose_name(p));
			break;
		}
		ps->t[n].bound = CAPS_FULL & g & b;
#if UMH_FAULT == 1
		/* Fake: bounds narrower than the helper will get. */
		if (n == 3 && ps->t[n].bound)
			ps->t[n].bound &= ps->t[n].bound - 1;
#endif
		key[0] = '\0';
		err = fire(p, n, key, &r);
		ps->t[n].ok = !err;
		ps->n = n + 1;
		if (err)
			fail("%s: trigger %d: %s", purpose_name(p), n,
			     strerror(-err));
	}
}

/*
 * The checks of the helper runs
 */

/* Which trigger a run belongs to, from its argv1 or uuid; -1: none. */
static int run_trigger(int p, const struct umh_run *run, int order)
{
	unsigned int pid, n;

	switch (p) {
	case MODPROBE:
	case REQUEST_KEY_P:
		return order;
	case COREDUMP:
		return sscanf(run->argv1, "c%u", &n) == 1 ? (int)n : -1;
	case UEVENT:
		return sscanf(run->uuid, "%8x-0000-4000-8000-%12x", &pid,
			      &n) == 2 ? (int)n : -1;
	case RELEASE_AGENT:
		return sscanf(run->argv1, "/r%u", &n) == 1 ? (int)n : -1;
	default:
		return sscanf(run->argv1, "t%u", &n) == 1 ? (int)n : -1;
	}
}

static int runs_done(int p)
{
	char link[PATH_MAX];
	int n = 0, i;

	link_path(link, sizeof(link), p);
	for (i = 0; i < sh->p[p].n; i++)
		n += sh->p[p].t[i].ok;
	return count_runs(link) >= n;
}

static void check_runs(struct __test_metadata *_metadata, int p,
		       unsigned long long initial, unsigned long long final,
		       int *started, int *recorded)
{
	static struct umh_run runs[MAX_TRIG + 256];
	static int seen[MAX_TRIG];
	struct purpose_state *ps = &sh->p[p];
	char link[PATH_MAX];
	int n, i, bad, t;

	link_path(link, sizeof(link), p);
	n = read_runs(link, runs, ARRAY_SIZE(runs), &bad);
	ASSERT_LE(0, n);
	if (n > (int)ARRAY_SIZE(runs))
		n = ARRAY_SIZE(runs);
	EXPECT_EQ(0, bad);
	memset(seen, 0, sizeof(seen));
	*started = 0;
	for (i = 0; i < ps->n; i++)
		*started += ps->t[i].ok;
	*recorded = n;

	for (i = 0; i < n; i++) {
		struct umh_run *run = &runs[i];
		unsigned long long bound;

#if UMH_FAULT == 2
		/* Fake: a helper with an inheritable capability. */
		if (p == POWER && i == 2)
			run->inh = 1ULL << CAP_CHOWN;
#endif
		t = run_trigger(p, run, i);
		if (t >= 0 && t < ps->n && ps->t[t].ok) {
			seen[t]++;
			bound = ps->t[t].bound;
		} else {
			/* Not ours: it still cannot beat the first bounds. */
			bound = initial;
			TH_LOG("%s: a run of no trigger of ours: argv1=%s uuid=%s",
			       purpose_name(p), run->argv1, run->uuid);
		}
		if ((run->bnd | run->prm | run->eff) & ~bound ||
		    run->inh || run->amb ||
		    (final & ~run->bnd) || run->prm != run->bnd ||
		    run->eff != run->bnd) {
			fail("%s: helper %d (argv1 %s) got bnd %#llx prm %#llx eff %#llx inh %#llx amb %#llx; bounds before it %#llx, at the end %#llx",
			     purpose_name(p), t, run->argv1, run->bnd,
			     run->prm, run->eff, run->inh, run->amb, bound,
			     final);
		}
	}
	for (i = 0; i < ps->n; i++)
		if (ps->t[i].ok && seen[i] != 1)
			fail("%s: trigger %d started %d helpers, not 1",
			     purpose_name(p), i, seen[i]);
}

/*
 * The test
 */

static struct saved_sysctl saved[] = {
	{ .path = "/proc/sys/kernel/modprobe" },
	{ .path = "/proc/sys/kernel/core_pattern" },
	{ .path = "/proc/sys/kernel/core_pipe_limit" },
	{ .path = "/sys/kernel/uevent_helper" },
};

FIXTURE(stress) {
	int unused;
};

FIXTURE_SETUP(stress)
{
	char name[64], link[PATH_MAX];
	int i, p;

	sh = shared_alloc(sizeof(*sh));
	ASSERT_NE(NULL, sh);
	for (i = 0; i < ARRAY_SIZE(saved); i++)
		ASSERT_LE(0, read_text(saved[i].path, saved[i].value,
				       sizeof(saved[i].value)));
	if (mkdir(DIR, 0755) && errno != EEXIST)
		ASSERT_EQ(0, -errno);
	for (p = 0; p < NPURPOSE; p++) {
		link_path(name, sizeof(name), p);
		ASSERT_EQ(0, helper_link(link, sizeof(link), name)) {
			TH_LOG("%s: no umh_helper next to the test",
			       purpose_name(p));
		}
	}
	ASSERT_EQ(0, write_text("/proc/sys/kernel/modprobe",
				DIR "/modprobe"));
	ASSERT_EQ(0, write_text("/proc/sys/kernel/core_pipe_limit", "1"));
	ASSERT_EQ(0, write_text("/sys/kernel/uevent_helper", DIR "/uevent"));
	if (mkdir(CG_DIR, 0755) && errno != EEXIST)
		ASSERT_EQ(0, -errno);
	ASSERT_EQ(0, mount("cgroup", CG_DIR, "cgroup", 0,
			   "none,name=umhstress"));
	ASSERT_EQ(0, write_text(CG_DIR "/release_agent",
				DIR "/release_agent"));
	ASSERT_EQ(0, access(TEST_UMH_RUN, W_OK)) {
		TH_LOG("no test_umh: CONFIG_TEST_UMH and debugfs needed");
	}
}

FIXTURE_TEARDOWN(stress)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; i < ARRAY_SIZE(saved); i++) {
		/* An empty value must be written as a newline. */
		write_text(saved[i].path,
			   saved[i].value[0] ? saved[i].value : "\n");
	}
	unlink(REQUEST_KEY);
	for (i = 0; sh && i < sh->p[RELEASE_AGENT].n; i++) {
		snprintf(path, sizeof(path), CG_DIR "/r%d", i);
		rmdir(path);
	}
	umount2(CG_DIR, MNT_DETACH);
}

static pid_t spawn(void (*fn)(int), int arg)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		fn(arg);
		_exit(0);
	}
	return pid;
}

TEST_F_TIMEOUT(stress, all, 240)
{
	const char *env = getenv("UMH_STRESS_SECS");
	double secs = env ? atof(env) : 12, start, drain;
	unsigned long long final[NKNOB], expect, w_total = 0, r_total = 0;
	pid_t pids[NWRITERS + NREADERS + NPURPOSE];
	int npids = 0, i, k, p, status;

	sh->seed = pick_seed("UMH_STRESS_SEED");
	ksft_print_msg("UMH_STRESS_SEED=%#llx, %.0f s\n",
		       (unsigned long long)sh->seed, secs);
	fflush(stdout);
	for (k = 0; k < NKNOB; k++)
		ASSERT_EQ(0, read_knob(k, &sh->initial[k]));

	start = now_s();
	sh->deadline = start + secs;
	for (i = 0; i < NWRITERS; i++)
		pids[npids++] = spawn(writer, i);
	for (i = 0; i < NREADERS; i++)
		pids[npids++] = spawn(reader, i);
	for (p = 0; p < NPURPOSE; p++)
		pids[npids++] = spawn(storm, p);
	for (i = 0; i < npids; i++) {
		ASSERT_LT(0, pids[i]);
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
			TH_LOG("child %d: status %#x", i, status);
		}
	}

	/* Let the last helpers run. */
	drain = now_s();
	for (p = 0; p < NPURPOSE; p++)
		while (!runs_done(p) && now_s() < drain + 30)
			usleep(10000);
	ksft_print_msg("ran %.1f s, drained in %.1f s\n", drain - start,
		       now_s() - drain);

	/* Each bound: what it was, ANDed with all that was written. */
	for (k = 0; k < NKNOB; k++) {
		ASSERT_EQ(0, read_knob(k, &final[k]));
		expect = sh->initial[k];
		for (i = 0; i < NWRITERS; i++)
			expect &= sh->acc[i][k];
		EXPECT_EQ(expect, final[k]) {
			TH_LOG("%s: started %#llx, ends %#llx, expected %#llx",
			       knob_name(k), sh->initial[k], final[k], expect);
		}
	}
	for (i = 0; i < NWRITERS; i++)
		w_total += sh->writes[i];
	for (i = 0; i < NREADERS; i++)
		r_total += sh->reads[i];
	ksft_print_msg("%llu writes, %llu reads; global bset %#llx -> %#llx\n",
		       w_total, r_total, sh->initial[0], final[0]);

	for (p = 0; p < NPURPOSE; p++) {
		int kb = bset_knob(p), started, recorded;

		check_runs(_metadata, p,
			   CAPS_FULL & sh->initial[0] & sh->initial[kb],
			   CAPS_FULL & final[0] & final[kb], &started,
			   &recorded);
		ksft_print_msg("%-13s %4d helpers started, %4d recorded, bounds %#llx -> %#llx\n",
			       purpose_name(p), started, recorded,
			       CAPS_FULL & sh->initial[0] & sh->initial[kb],
			       CAPS_FULL & final[0] & final[kb]);
		EXPECT_LT(0, started);
	}
	fflush(stdout);
	EXPECT_EQ(0, sh->failures);
}

TEST_HARNESS_MAIN
