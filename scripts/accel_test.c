// SPDX-License-Identifier: GPL-2.0
/*
 * accel_test - the tests of accel, as KTAP on stdout
 *
 *   accel_test ACCEL
 *
 * Runs the accel program ACCEL with UMHCAP_ACCEL and UMHCAP_KVM_DEV set
 * or unset as each case needs, and checks its stdout and exit status
 * exactly.  The devices that are not KVM (a missing path, /dev/null, an
 * empty regular file, a directory) must give TCG; the files it needs are
 * in a private directory it removes at the end.  With the real /dev/kvm,
 * whose answer depends on the machine, the answer must be one of the two
 * and agree with what --why says; a machine without /dev/kvm skips those.
 *
 * A run of ACCEL that takes longer than RUN_TIMEOUT seconds is killed
 * and fails its case.  The exit status is 0 only if no case failed.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define RUN_TIMEOUT	20		/* seconds; accel's own KVM_RUN limit is 5 */
#define MISSING		"/nonexistent/kvm"
#define REAL_DEV	"/dev/kvm"
#define ARGS_KVM	"-accel kvm\n"
#define ARGS_TCG	"-accel tcg\n"
#define UNSET		NULL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum verdict { PASS, FAIL, SKIP };

/* What one run of accel did. */
struct run {
	int status;			/* exit status, or -1 */
	int sig;			/* the signal that killed it, or 0 */
	bool timed_out;
	char out[4096], err[4096];
	size_t out_len, err_len;
};

static const char *accel;
static char tmpdir[PATH_MAX], empty_file[PATH_MAX + 8];
static char skip_why[256];
/* accel's answer with /dev/kvm: -1 not known, 0 tcg, 1 kvm */
static int real_kvm = -1;

static void skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_why, sizeof(skip_why), fmt, ap);
	va_end(ap);
}

/* The child: set the environment and run accel. */
static void child(int out, int err, const char *mode, const char *dev, const char *arg)
{
	char *argv[] = { (char *)accel, (char *)arg, NULL };

	setpgid(0, 0);
	if (dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
		_exit(126);
	if (mode ? setenv("UMHCAP_ACCEL", mode, 1) : unsetenv("UMHCAP_ACCEL"))
		_exit(126);
	if (dev ? setenv("UMHCAP_KVM_DEV", dev, 1) : unsetenv("UMHCAP_KVM_DEV"))
		_exit(126);
	execv(accel, argv);
	fprintf(stderr, "accel_test: %s: %s\n", accel, strerror(errno));
	_exit(127);
}

/*
 * Runs accel with UMHCAP_ACCEL @mode and UMHCAP_KVM_DEV @dev (UNSET: not
 * in its environment) and the argument @arg (or none).  Returns false if
 * it could not be run at all.
 */
static bool run(struct run *r, const char *mode, const char *dev, const char *arg)
{
	double deadline = now() + RUN_TIMEOUT;
	struct pollfd pfd[2];
	int out[2], err[2], ws = 0;
	bool open_out = true, open_err = true;
	pid_t pid, w = 0;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (pipe2(out, O_CLOEXEC) < 0)
		goto fail;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		goto fail;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		child(out[1], err[1], mode, dev, arg);
	close(out[1]);
	close(err[1]);
	if (pid < 0) {
		close(out[0]);
		close(err[0]);
		goto fail;
	}

	while (open_out || open_err) {
		int left = (deadline - now()) * 1000, n;

		if (left <= 0) {
			r->timed_out = true;
			break;
		}
		pfd[0] = (struct pollfd){ .fd = open_out ? out[0] : -1, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = open_err ? err[0] : -1, .events = POLLIN };
		n = poll(pfd, 2, left);
		if (n < 0 && errno != EINTR) {
			perror("accel_test: poll");
			r->timed_out = true;
			break;
		}
		if (n <= 0)
			continue;
		if (pfd[0].revents)
			open_out = drain(out[0], r->out, sizeof(r->out), &r->out_len);
		if (pfd[1].revents)
			open_err = drain(err[0], r->err, sizeof(r->err), &r->err_len);
	}
	close(out[0]);
	close(err[0]);

	/* Both pipes closed, but it may still be running. */
	while (!r->timed_out && (w = waitpid(pid, &ws, WNOHANG)) == 0) {
		if (now() >= deadline)
			r->timed_out = true;
		else
			usleep(10000);
	}
	if (r->timed_out) {
		/* It and whatever it started: its own process group. */
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while ((w = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
			;
	}
	if (w < 0) {
		printf("# waitpid: %s\n", strerror(errno));
		return true;
	}
	if (WIFEXITED(ws))
		r->status = WEXITSTATUS(ws);
	else if (WIFSIGNALED(ws))
		r->sig = WTERMSIG(ws);
	return true;
fail:
	printf("# cannot start %s: %s\n", accel, strerror(errno));
	return false;
}

static void show(const struct run *r)
{
	if (r->timed_out)
		printf("# killed: still running after %d s\n", RUN_TIMEOUT);
	else if (r->sig)
		printf("# killed by signal %d (%s)\n", r->sig, strsignal(r->sig));
	else
		printf("# exit status %d\n", r->status);
	diag_lines("stdout", r->out);
	diag_lines("stderr", r->err);
}

/* Whether the run ended by itself with exit status @status. */
static bool exited(const struct run *r, int status)
{
	return !r->timed_out && !r->sig && r->status == status;
}

/* Runs accel; it must print exactly @want and exit with @status. */
static enum verdict expect(const char *mode, const char *dev, const char *arg,
			   int status, const char *want)
{
	struct run r;

	if (!run(&r, mode, dev, arg))
		return FAIL;
	if (exited(&r, status) && !strcmp(r.out, want))
		return PASS;
	printf("# want exit status %d\n", status);
	diag_lines("want stdout", want);
	show(&r);
	return FAIL;
}

/* Runs accel; it must fail with @status, print nothing, and say @what on stderr. */
static enum verdict expect_error(const char *mode, const char *dev, int status,
				 const char *what)
{
	struct run r;

	if (!run(&r, mode, dev, NULL))
		return FAIL;
	if (exited(&r, status) && !r.out_len && r.err_len && strstr(r.err, what))
		return PASS;
	printf("# want exit status %d, no stdout, \"%s\" on stderr\n", status, what);
	show(&r);
	return FAIL;
}

static enum verdict missing_device(void)
{
	return expect(UNSET, MISSING, NULL, 0, ARGS_TCG);
}

static enum verdict dev_null(void)
{
	return expect(UNSET, "/dev/null", NULL, 0, ARGS_TCG);
}

static enum verdict directory(void)
{
	return expect(UNSET, tmpdir, NULL, 0, ARGS_TCG);
}

static enum verdict empty_accel_probes(void)
{
	return expect("", MISSING, NULL, 0, ARGS_TCG);
}

static enum verdict forced_tcg_real_dev(void)
{
	return expect("tcg", UNSET, NULL, 0, ARGS_TCG);
}

static enum verdict forced_tcg_missing(void)
{
	return expect("tcg", MISSING, NULL, 0, ARGS_TCG);
}

static enum verdict forced_kvm_dev_null(void)
{
	return expect_error("kvm", "/dev/null", 1, "/dev/null");
}

static enum verdict forced_kvm_missing(void)
{
	return expect_error("kvm", MISSING, 1, MISSING);
}

static enum verdict bogus_accel(void)
{
	return expect_error("bogus", MISSING, 2, "bogus");
}

static enum verdict bogus_argument(void)
{
	struct run r;

	if (!run(&r, UNSET, MISSING, "--bogus"))
		return FAIL;
	if (exited(&r, 2) && !r.out_len)
		return PASS;
	printf("# want exit status 2 and no stdout\n");
	show(&r);
	return FAIL;
}

/*
 * Runs accel with UMHCAP_ACCEL @mode on the empty file; returns how many
 * times it opened the file, or -1 if that cannot be watched.
 */
static int opens_of_empty_file(const char *mode, struct run *r)
{
	union {
		struct inotify_event ev;	/* for its alignment */
		char buf[4096];
	} u;
	int fd, opens = 0;
	ssize_t n;

	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0) {
		skip("inotify_init1: %s", strerror(errno));
		return -1;
	}
	if (inotify_add_watch(fd, empty_file, IN_OPEN) < 0) {
		skip("inotify_add_watch: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!run(r, mode, empty_file, NULL)) {
		close(fd);
		return 0;
	}
	while ((n = read(fd, u.buf, sizeof(u.buf))) > 0) {
		for (char *p = u.buf; p < u.buf + n; ) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->mask & IN_OPEN)
				opens++;
			p += sizeof(*ev) + ev->len;
		}
	}
	close(fd);
	return opens;
}

/* An empty regular file: accel must open it, and then give TCG. */
static enum verdict regular_file(void)
{
	struct run r;
	int opens = opens_of_empty_file(UNSET, &r);

	if (opens < 0)
		return expect(UNSET, empty_file, NULL, 0, ARGS_TCG);
	if (exited(&r, 0) && !strcmp(r.out, ARGS_TCG) && opens > 0)
		return PASS;
	printf("# want exit status 0, stdout \"-accel tcg\", the file opened\n");
	printf("# opened %d times\n", opens);
	show(&r);
	return FAIL;
}

/* With UMHCAP_ACCEL=tcg, accel must not even open the device. */
static enum verdict forced_tcg_no_open(void)
{
	struct run r;
	int opens = opens_of_empty_file("tcg", &r);

	if (opens < 0)
		return SKIP;
	if (exited(&r, 0) && !strcmp(r.out, ARGS_TCG) && !opens)
		return PASS;
	printf("# want exit status 0, stdout \"-accel tcg\", the file not opened\n");
	printf("# opened %d times\n", opens);
	show(&r);
	return FAIL;
}

/* --why: a second line, starting with "# ", that names what decided. */
static enum verdict why_tcg_missing(void)
{
	const char *want = ARGS_TCG "# tcg: " MISSING ": ";
	struct run r;

	if (!run(&r, UNSET, MISSING, "--why"))
		return FAIL;
	/* Exactly two lines. */
	if (exited(&r, 0) && !strncmp(r.out, want, strlen(want)) &&
	    strchr(r.out + strlen(ARGS_TCG), '\n') == r.out + r.out_len - 1)
		return PASS;
	printf("# want exit status 0 and two lines, the second starting with \"%s\"\n",
	       want + strlen(ARGS_TCG));
	show(&r);
	return FAIL;
}

static enum verdict why_forced_tcg(void)
{
	return expect("tcg", MISSING, "--why", 0, ARGS_TCG "# tcg: UMHCAP_ACCEL=tcg\n");
}

/* Whether @path exists; if not, the case skips. */
static bool have(const char *path)
{
	struct stat st;

	if (!stat(path, &st))
		return true;
	skip("%s: %s", path, strerror(errno));
	return false;
}

/*
 * The real /dev/kvm: whichever the answer, it must be one of the two, the
 * same with --why, and --why must say the same.
 */
static enum verdict auto_real_dev(void)
{
	struct run plain, why;
	const char *second;
	bool kvm;

	if (!have(REAL_DEV))
		return SKIP;
	if (!run(&plain, "auto", UNSET, NULL) || !run(&why, "auto", UNSET, "--why"))
		return FAIL;
	if (!exited(&plain, 0) ||
	    (strcmp(plain.out, ARGS_KVM) && strcmp(plain.out, ARGS_TCG))) {
		printf("# want exit status 0 and \"-accel kvm\" or \"-accel tcg\"\n");
		show(&plain);
		return FAIL;
	}
	kvm = !strcmp(plain.out, ARGS_KVM);
	second = why.out + strlen(plain.out);
	if (!exited(&why, 0) || strncmp(why.out, plain.out, strlen(plain.out)) ||
	    strncmp(second, kvm ? "# kvm: " : "# tcg: ", 7) ||
	    strchr(second, '\n') != why.out + why.out_len - 1) {
		printf("# want with --why: \"%.*s\", then \"# %s: ...\"\n",
		       (int)strlen(plain.out) - 1, plain.out, kvm ? "kvm" : "tcg");
		show(&why);
		return FAIL;
	}
	printf("# accel --why: %.*s\n", (int)strcspn(second, "\n"), second);
	real_kvm = kvm;
	return PASS;
}

/* UMHCAP_ACCEL=kvm on the real /dev/kvm agrees with the probe. */
static enum verdict forced_kvm_real_dev(void)
{
	if (!have(REAL_DEV))
		return SKIP;
	if (real_kvm < 0) {
		skip("no answer from the probe of %s", REAL_DEV);
		return SKIP;
	}
	if (real_kvm)
		return expect("kvm", UNSET, NULL, 0, ARGS_KVM);
	return expect_error("kvm", UNSET, 1, REAL_DEV);
}

static const struct {
	enum verdict (*fn)(void);
	const char *desc;
} tests[] = {
	{ missing_device, "a missing device gives tcg" },
	{ dev_null, "/dev/null gives tcg" },
	{ regular_file, "an empty regular file is opened and gives tcg" },
	{ directory, "a directory gives tcg" },
	{ empty_accel_probes, "an empty UMHCAP_ACCEL probes" },
	{ forced_tcg_real_dev, "UMHCAP_ACCEL=tcg with /dev/kvm gives tcg" },
	{ forced_tcg_missing, "UMHCAP_ACCEL=tcg with a missing device gives tcg" },
	{ forced_tcg_no_open, "UMHCAP_ACCEL=tcg does not open the device" },
	{ forced_kvm_dev_null, "UMHCAP_ACCEL=kvm with /dev/null fails with 1" },
	{ forced_kvm_missing, "UMHCAP_ACCEL=kvm with a missing device fails with 1" },
	{ bogus_accel, "UMHCAP_ACCEL=bogus fails with 2" },
	{ bogus_argument, "an unknown argument fails with 2" },
	{ why_tcg_missing, "--why names the missing device" },
	{ why_forced_tcg, "--why names UMHCAP_ACCEL=tcg" },
	{ auto_real_dev, "UMHCAP_ACCEL=auto with /dev/kvm agrees with --why" },
	{ forced_kvm_real_dev, "UMHCAP_ACCEL=kvm with /dev/kvm agrees with auto" },
};

static void cleanup(void)
{
	if (*empty_file && unlink(empty_file) && errno != ENOENT)
		fprintf(stderr, "accel_test: %s: %s\n", empty_file, strerror(errno));
	if (*tmpdir && rmdir(tmpdir))
		fprintf(stderr, "accel_test: %s: %s\n", tmpdir, strerror(errno));
}

int main(int argc, char **argv)
{
	unsigned int i, n = ARRAY_SIZE(tests);
	unsigned int passed = 0, failed = 0, skipped = 0;
	const char *base = getenv("TMPDIR");
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: accel_test ACCEL\n");
		return 2;
	}
	accel = argv[1];
	signal(SIGPIPE, SIG_IGN);

	snprintf(tmpdir, sizeof(tmpdir), "%s/accel_test.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "accel_test: mkdtemp %s: %s\n", tmpdir, strerror(errno));
		*tmpdir = '\0';
		return 1;
	}
	atexit(cleanup);
	snprintf(empty_file, sizeof(empty_file), "%s/kvm", tmpdir);
	fd = open(empty_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "accel_test: %s: %s\n", empty_file, strerror(errno));
		*empty_file = '\0';
		return 1;
	}
	close(fd);

	printf("TAP version 13\n");
	printf("1..%u\n", n);
	for (i = 0; i < n; i++) {
		enum verdict v;

		*skip_why = '\0';
		v = tests[i].fn();
		if (v == SKIP) {
			skipped++;
			printf("ok %u %s # SKIP %s\n", i + 1, tests[i].desc, skip_why);
		} else if (v == PASS) {
			passed++;
			printf("ok %u %s\n", i + 1, tests[i].desc);
		} else {
			failed++;
			printf("not ok %u %s\n", i + 1, tests[i].desc);
		}
	}
	printf("# %u passed, %u failed, %u skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
