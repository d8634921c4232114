// SPDX-License-Identifier: GPL-2.0
/*
 * harness_test - the tests of the harness's own robustness, as KTAP on stdout
 *
 *   harness_test TOP
 *
 * TOP is the checkout whose scripts are tested.  Four things are:
 *
 * - lock_build (scripts/lib.sh): one run per build directory.  Runs are
 *   small shell scripts that source lib.sh and take the lock as the
 *   harness's scripts do; a holder keeps it while the test asks it, on
 *   its standard input, to start others.
 * - scripts/check.sh: its last line is the count on every way out (steps
 *   that pass, fail, never run; SIGINT, SIGTERM, SIGHUP; the lock held
 *   by another run; an error before any step).  check.sh runs a tiny
 *   graph of steps the test writes (UMHCAP_CHECK_MK), through the real
 *   scripts/step.sh, never the kernel's.
 * - seed_objs (scripts/lib.sh): a kernel object directory copied for a
 *   kernel of another configuration, its recorded paths made the copy's.
 * - scripts/cc.sh, the compiler of kernel builds: ccache in depend mode,
 *   and gcc alone for a source that includes a file with .incbin.
 *
 * Each case works in a private directory (mkdtemp), its UMHCAP_BUILD, and
 * everything is removed at the end.  Every child runs in a process group
 * of its own, without make's job server (MAKEFLAGS and the rest are
 * cleared) and without this process's other descriptors (an outer run's
 * lock among them); one still running after RUN_TIMEOUT seconds is
 * killed with its group and fails its case.  So is one that leaves a
 * process holding its output.  The exit status is 0 only if no case
 * failed.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define RUN_TIMEOUT	30		/* seconds, for any one child */
#define OUT_MAX		65536
#define MAX_LIVE	4
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum verdict { PASS, FAIL };

/*
 * sh -c RUN ARGV0 TOP BODY [RUN]: a run of the harness as its scripts
 * start one: lib.sh, lock_build, then BODY.  ARGV0 is a name in
 * TOP/scripts, since lib.sh finds TOP from $0 as from a script's path.
 */
#define RUN	"set -eu; . \"$1/scripts/lib.sh\"; lock_build; eval \"$2\""

/*
 * The BODY of a run that holds the lock: it writes to its build directory
 * as a run does, says "locked PID", then runs each line of its standard
 * input ("done STATUS" after each) until it ends.  $3 is RUN, for the
 * runs it starts.
 */
#define HOLD \
	"echo first >\"$UMHCAP_BUILD/data\"\n" \
	"mkdir -p \"$UMHCAP_BUILD/results/steps\"\n" \
	"echo 'ok step first' >\"$UMHCAP_BUILD/results/steps/body\"\n" \
	"echo \"locked $$\"\n" \
	"while read -r cmd; do rc=0; eval \"$cmd\" || rc=$?; echo \"done $rc\"; done\n"

/* The BODY of a second run: what it would do to the first's directory. */
#define SECOND \
	"rm -rf \"$UMHCAP_BUILD/results\"; echo second >\"$UMHCAP_BUILD/data\"; " \
	"echo \"locked $$\""

/* What one child did. */
struct proc {
	pid_t pid;
	int in, out, err;		/* our ends of its pipes, or -1 */
	double deadline;
	bool reaped, timed_out;
	int status;			/* exit status, or -1 */
	int sig;			/* the signal that killed it, or 0 */
	char outbuf[OUT_MAX], errbuf[OUT_MAX];
	size_t out_len, err_len;
};

static char top[PATH_MAX], argv0[PATH_MAX + 32], run_dir[PATH_MAX];
static volatile sig_atomic_t stop_sig;
static volatile pid_t live[MAX_LIVE];

/* A signal to this test: its children go first, then it stops. */
static void on_signal(int sig)
{
	unsigned int i;

	stop_sig = sig;
	for (i = 0; i < MAX_LIVE; i++)
		if (live[i] > 0)
			kill(-live[i], SIGKILL);
}

static void set_live(pid_t old, pid_t new)
{
	unsigned int i;

	for (i = 0; i < MAX_LIVE; i++) {
		if (live[i] == old) {
			live[i] = new;
			return;
		}
	}
}

/* ---- files */

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		printf("# cannot write %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return false;
	}
	return true;
}

/* The file's text, malloc'd, or NULL. */
static char *read_file(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	FILE *m;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	if (m) {
		int c;

		while ((c = getc(f)) != EOF)
			putc(c, m);
		fclose(m);
	}
	fclose(f);
	return buf;
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* mkdir -p */
static bool make_dirs(const char *path)
{
	char p[PATH_MAX];
	char *s;

	snprintf(p, sizeof(p), "%s", path);
	for (s = p + 1; ; s++) {
		if (*s == '/' || !*s) {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) && errno != EEXIST) {
				printf("# mkdir %s: %s\n", p, strerror(errno));
				return false;
			}
			*s = c;
			if (!c)
				return true;
		}
	}
}

/* DIR/REL, with DIR/REL's directory made, written with TEXT. */
static bool put(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX], *slash;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	if (!make_dirs(path))
		return false;
	*slash = '/';
	return write_file(path, text);
}

/* A private directory for a case, in this run's: mkdtemp. */
static bool case_dir(char *buf, size_t size, const char *name)
{
	if (snprintf(buf, size, "%s/%s.XXXXXX", run_dir, name) >= (int)size) {
		printf("# %s: path too long\n", run_dir);
		return false;
	}
	if (mkdtemp(buf))
		return true;
	printf("# mkdtemp %s: %s\n", buf, strerror(errno));
	return false;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	if (remove(path))
		fprintf(stderr, "harness_test: %s: %s\n", path, strerror(errno));
	return 0;
}

static void cleanup(void)
{
	if (*run_dir)
		nftw(run_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * A tree's snapshot: one line per entry under it, sorted: its path,
 * type, and with @full its mode, mtime to the nanosecond, size and what
 * it holds (a file's text, a link's target).  Equal snapshots: nothing
 * written, made, removed or touched.
 */
static struct {
	char **lines;
	size_t n, cap, base;
	bool full;
} snap;

static int snap_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + snap.base;
	char kind = type == FTW_D ? 'd' : type == FTW_SL ? 'l' : type == FTW_F ? 'f' : '?';
	char *line = NULL, *text = NULL, target[PATH_MAX];
	size_t len = 0;
	FILE *m;

	(void)ftw;
	if (*rel == '/')
		rel++;
	if (!*rel && !snap.full)
		return 0;
	m = open_memstream(&line, &len);
	if (!m)
		return 1;
	fprintf(m, "%s %c", *rel ? rel : ".", kind);
	if (snap.full) {
		fprintf(m, " %o %lld.%09ld %lld", (unsigned int)(st->st_mode & 07777),
			(long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
			(long long)st->st_size);
		if (kind == 'f' && (text = read_file(path))) {
			fputs(" text=", m);
			for (char *s = text; *s; s++)
				fputs(*s == '\n' ? "\\n" : (char[2]){ *s, 0 }, m);
			free(text);
		} else if (kind == 'l') {
			ssize_t n = readlink(path, target, sizeof(target) - 1);

			fprintf(m, " -> %.*s", n > 0 ? (int)n : 0, target);
		}
	}
	fclose(m);
	if (snap.n == snap.cap) {
		snap.cap = snap.cap ? 2 * snap.cap : 64;
		snap.lines = realloc(snap.lines, snap.cap * sizeof(*snap.lines));
		if (!snap.lines)
			return 1;
	}
	snap.lines[snap.n++] = line;
	return 0;
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The snapshot of @dir, malloc'd ("" if it cannot be walked). */
static char *snapshot(const char *dir, bool full)
{
	char *out = NULL;
	size_t len = 0, i;
	FILE *m;

	snap.n = 0;
	snap.base = strlen(dir);
	snap.full = full;
	if (nftw(dir, snap_one, 16, FTW_PHYS))
		printf("# cannot walk %s\n", dir);
	qsort(snap.lines, snap.n, sizeof(*snap.lines), cmp_lines);
	m = open_memstream(&out, &len);
	for (i = 0; i < snap.n; i++) {
		if (m)
			fprintf(m, "%s\n", snap.lines[i]);
		free(snap.lines[i]);
	}
	if (m)
		fclose(m);
	return out ? out : strdup("");
}

/* The lines of @a that @b lacks, and those of @b that @a lacks. */
static void diag_diff(const char *what, const char *a, const char *b)
{
	for (int pass = 0; pass < 2; pass++) {
		const char *s = pass ? b : a, *other = pass ? a : b;

		while (*s) {
			int len = strcspn(s, "\n");
			const char *o = other;
			bool found = false;

			for (; *o; o += strcspn(o, "\n") + !!o[strcspn(o, "\n")]) {
				if ((int)strcspn(o, "\n") == len && !strncmp(o, s, len)) {
					found = true;
					break;
				}
			}
			if (!found)
				printf("# %s %s: %.*s\n", what, pass ? "now" : "was", len, s);
			s += len + !!s[len];
		}
	}
}

/* ---- children */

/* The child: its environment, its descriptors, then @argv. */
static void child(int in, int out, int err, const char *cwd,
		  const char *const *env, char *const argv[])
{
	/*
	 * Not an outer make's: its job server is not ours to use (and its
	 * descriptors are closed), nor a run's results, nor a graph.
	 */
	static const char *const scrub[] = {
		"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKE_TERMOUT", "MAKE_TERMERR",
		"UMHCAP_RESULTS", "UMHCAP_CHECK_MK",
	};
	unsigned int i;

	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	if (in < 0)
		in = open("/dev/null", O_RDONLY);
	if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(err, STDERR_FILENO) < 0)
		_exit(126);
	closefrom(3);
	if (chdir(cwd))
		_exit(126);
	for (i = 0; i < ARRAY_SIZE(scrub); i++)
		unsetenv(scrub[i]);
	for (; env && *env; env++) {
		const char *eq = strchr(*env, '=');
		char name[128];

		if (!eq) {
			unsetenv(*env);
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - *env), *env);
		if (setenv(name, eq + 1, 1))
			_exit(126);
	}
	execv(argv[0], argv);
	fprintf(stderr, "harness_test: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/*
 * Starts @argv in @cwd with @env ("NAME=VALUE" sets, "NAME" unsets), its
 * standard input a pipe from us if @input, else /dev/null.
 */
static bool start(struct proc *p, const char *cwd, const char *const *env,
		  char *const argv[], bool input)
{
	int in[2] = { -1, -1 }, out[2], err[2];

	memset(p, 0, sizeof(*p));
	p->in = p->out = p->err = -1;
	p->status = -1;
	p->deadline = now() + RUN_TIMEOUT;
	if ((input && pipe2(in, O_CLOEXEC)) || pipe2(out, O_CLOEXEC)) {
		out[0] = out[1] = -1;
		goto fail;
	}
	if (pipe2(err, O_CLOEXEC))
		goto fail;
	fflush(stdout);
	p->pid = fork();
	if (p->pid == 0)
		child(in[0], out[1], err[1], cwd, env, argv);
	if (p->pid < 0) {
		close(err[0]);
		close(err[1]);
		goto fail;
	}
	setpgid(p->pid, p->pid);	/* before we signal its group */
	set_live(0, p->pid);
	close(out[1]);
	close(err[1]);
	if (in[0] >= 0)
		close(in[0]);
	p->in = in[1];
	p->out = out[0];
	p->err = err[0];
	return true;
fail:
	printf("# cannot start %s: %s\n", argv[0], strerror(errno));
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
	return false;
}

static bool expired(const struct proc *p)
{
	return stop_sig || now() >= p->deadline;
}

/* Reads its output for up to @ms milliseconds. */
static void pump(struct proc *p, int ms)
{
	struct pollfd pfd[2];
	int left = (p->deadline - now()) * 1000;

	if (ms > left)
		ms = left > 0 ? left : 0;
	if (p->out < 0 && p->err < 0) {
		usleep(ms * 1000);
		return;
	}
	pfd[0] = (struct pollfd){ .fd = p->out, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = p->err, .events = POLLIN };
	if (poll(pfd, 2, ms) <= 0)
		return;
	if (pfd[0].revents && !drain(p->out, p->outbuf, OUT_MAX, &p->out_len)) {
		close(p->out);
		p->out = -1;
	}
	if (pfd[1].revents && !drain(p->err, p->errbuf, OUT_MAX, &p->err_len)) {
		close(p->err);
		p->err = -1;
	}
}

static void reap(struct proc *p, int flags)
{
	pid_t w;
	int ws;

	if (p->reaped)
		return;
	while ((w = waitpid(p->pid, &ws, flags)) < 0 && errno == EINTR)
		;
	if (w != p->pid)
		return;
	set_live(p->pid, 0);
	p->reaped = true;
	if (WIFEXITED(ws))
		p->status = WEXITSTATUS(ws);
	else if (WIFSIGNALED(ws))
		p->sig = WTERMSIG(ws);
}

/*
 * Its end: its standard input closed, its output read to the end, and it
 * reaped, all before its deadline, or it is killed with its group.
 */
static void finish(struct proc *p)
{
	if (p->in >= 0) {
		close(p->in);
		p->in = -1;
	}
	while ((p->out >= 0 || p->err >= 0) && !expired(p))
		pump(p, 100);
	while (!p->reaped && !expired(p)) {
		reap(p, WNOHANG);
		if (!p->reaped)
			usleep(10000);
	}
	if (!p->reaped || p->out >= 0 || p->err >= 0) {
		p->timed_out = true;
		kill(-p->pid, SIGKILL);
		reap(p, 0);
	}
	if (p->out >= 0)
		close(p->out);
	if (p->err >= 0)
		close(p->err);
	p->out = p->err = -1;
}

/* Runs @argv to its end. */
static bool run(struct proc *p, const char *cwd, const char *const *env,
		char *const argv[])
{
	if (!start(p, cwd, env, argv, false))
		return false;
	finish(p);
	return true;
}

static void show(const struct proc *p)
{
	if (p->timed_out && stop_sig)
		printf("# killed: harness_test got signal %d\n", (int)stop_sig);
	else if (p->timed_out)
		printf("# killed: it, or a process it left holding its output, still running after %d s\n",
		       RUN_TIMEOUT);
	else if (p->sig)
		printf("# killed by signal %d (%s)\n", p->sig, strsignal(p->sig));
	else if (!p->reaped)
		printf("# still running\n");
	else
		printf("# exit status %d\n", p->status);
	diag_lines("stdout", p->outbuf);
	diag_lines("stderr", p->errbuf);
}

/* Whether it ended by itself with exit status @status (-1: any but 0). */
static bool exited(const struct proc *p, int status)
{
	if (p->timed_out || p->sig || !p->reaped)
		return false;
	return status < 0 ? p->status > 0 : p->status == status;
}

/*
 * Waits for a whole line of its output, at or after offset @from (a line's
 * start), that starts with @prefix; returns it, or NULL.
 */
static const char *wait_line(struct proc *p, size_t from, const char *prefix)
{
	for (;;) {
		const char *s = p->outbuf + from, *nl;

		while ((nl = strchr(s, '\n'))) {
			if (!strncmp(s, prefix, strlen(prefix)))
				return s;
			s = nl + 1;
		}
		if (p->out < 0 || expired(p))
			return NULL;
		pump(p, 100);
	}
}

/* Waits, reading its output, for @path to exist while it runs. */
static bool wait_file(struct proc *p, const char *path)
{
	while (!exists(path)) {
		reap(p, WNOHANG);
		if (p->reaped || expired(p))
			return false;
		pump(p, 20);
	}
	return true;
}

/* The last line of its standard output, without its newline. */
static const char *last_line(const struct proc *p, char *buf, size_t size)
{
	size_t end = p->out_len, start;

	if (end && p->outbuf[end - 1] == '\n')
		end--;
	for (start = end; start && p->outbuf[start - 1] != '\n'; start--)
		;
	snprintf(buf, size, "%.*s", (int)(end - start), p->outbuf + start);
	return buf;
}

/* ---- the lock */

static char *const *run_argv(const char *body)
{
	static char *argv[8];

	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = RUN;
	argv[3] = argv0;
	argv[4] = top;
	argv[5] = (char *)body;
	argv[6] = RUN;
	argv[7] = NULL;
	return argv;
}

/* A run in @dir, not under any other, to its end. */
static bool run_in(struct proc *p, const char *dir, const char *body)
{
	char build[PATH_MAX + 16];
	const char *env[] = { build, "UMHCAP_LOCKED", NULL };

	snprintf(build, sizeof(build), "UMHCAP_BUILD=%s", dir);
	return run(p, dir, env, run_argv(body));
}

/* Starts a holder of @dir's lock; true once it says it holds it. */
static bool start_holder(struct proc *h, const char *dir)
{
	char build[PATH_MAX + 16], want[64];
	const char *env[] = { build, "UMHCAP_LOCKED", NULL };
	const char *line;

	snprintf(build, sizeof(build), "UMHCAP_BUILD=%s", dir);
	if (!start(h, dir, env, run_argv(HOLD), true))
		return false;
	snprintf(want, sizeof(want), "locked %d\n", (int)h->pid);
	line = wait_line(h, 0, "locked ");
	if (line && !strncmp(line, want, strlen(want)))
		return true;
	printf("# the holder did not say \"%.*s\"\n", (int)strlen(want) - 1, want);
	finish(h);
	show(h);
	return false;
}

/* Has the holder run @cmd; true if it says "done 0", false (shown) if not. */
static bool holder_runs(struct proc *h, const char *cmd)
{
	size_t from = h->out_len;
	const char *line;

	if (write(h->in, cmd, strlen(cmd)) != (ssize_t)strlen(cmd) ||
	    write(h->in, "\n", 1) != 1) {
		printf("# cannot write to the holder: %s\n", strerror(errno));
		return false;
	}
	line = wait_line(h, from, "done ");
	if (line && !strncmp(line, "done 0\n", 7))
		return true;
	printf("# the holder ran: %s\n", cmd);
	if (!line)
		printf("# and said no \"done\"\n");
	show(h);
	return false;
}

/* The holder, at the end of a case: it must exit 0 when its input ends. */
static bool end_holder(struct proc *h)
{
	finish(h);
	if (exited(h, 0))
		return true;
	printf("# the holder, its input closed, did not exit 0\n");
	show(h);
	return false;
}

/* @dir/.lock.pid must name @pid. */
static bool pid_file_is(const char *dir, pid_t pid)
{
	char path[PATH_MAX + 16], want[32];
	char *text;
	bool ok;

	snprintf(path, sizeof(path), "%s/.lock.pid", dir);
	snprintf(want, sizeof(want), "%d\n", (int)pid);
	text = read_file(path);
	ok = text && !strcmp(text, want);
	if (!ok)
		printf("# %s holds \"%.*s\", not pid %d\n", path,
		       text ? (int)strcspn(text, "\n") : 0, text ? text : "", (int)pid);
	free(text);
	return ok;
}

/* A run in @dir must be refused, naming @holder's pid, and print nothing. */
static bool refused(const char *dir, pid_t holder)
{
	char want[PATH_MAX + 64];
	struct proc *p = malloc(sizeof(*p));
	bool ok;

	if (!p || !run_in(p, dir, SECOND)) {
		free(p);
		return false;
	}
	snprintf(want, sizeof(want), "another run is using %s (pid %d)", dir, (int)holder);
	ok = exited(p, 1) && !p->out_len && strstr(p->errbuf, want);
	if (!ok) {
		printf("# want exit status 1, no stdout, \"%s\" on stderr\n", want);
		show(p);
	}
	free(p);
	return ok;
}

/* A run in @dir must take the lock: it says so, and .lock.pid names it. */
static bool taken(const char *dir)
{
	struct proc *p = malloc(sizeof(*p));
	char want[64];
	bool ok;

	if (!p || !run_in(p, dir, "echo \"locked $$\"")) {
		free(p);
		return false;
	}
	snprintf(want, sizeof(want), "locked %d\n", (int)p->pid);
	ok = exited(p, 0) && !strcmp(p->outbuf, want);
	if (!ok) {
		printf("# want exit status 0 and \"%.*s\" on stdout\n", (int)strlen(want) - 1, want);
		show(p);
	} else {
		ok = pid_file_is(dir, p->pid);
	}
	free(p);
	return ok;
}

/* The holder of the lock cases (its buffers are big for the stack). */
static struct proc holder;

static enum verdict lock_refuses_second(void)
{
	char dir[PATH_MAX];
	bool ok;

	if (!case_dir(dir, sizeof(dir), "lock") || !start_holder(&holder, dir))
		return FAIL;
	ok = refused(dir, holder.pid);
	return end_holder(&holder) && ok ? PASS : FAIL;
}

static enum verdict lock_second_touches_nothing(void)
{
	char dir[PATH_MAX], *before, *after;
	bool ok;

	if (!case_dir(dir, sizeof(dir), "lock") || !start_holder(&holder, dir))
		return FAIL;
	before = snapshot(dir, true);
	refused(dir, holder.pid);	/* case 1 counts how it is refused */
	after = snapshot(dir, true);
	ok = !strcmp(before, after);
	if (!ok)
		diag_diff(dir, before, after);
	free(before);
	free(after);
	return end_holder(&holder) && ok ? PASS : FAIL;
}

static enum verdict lock_passes_to_child(void)
{
	char dir[PATH_MAX], want[PATH_MAX + 16];
	const char *line;
	bool ok;

	if (!case_dir(dir, sizeof(dir), "lock") || !start_holder(&holder, dir))
		return FAIL;
	ok = holder_runs(&holder, "sh -c \"$3\" \"$0\" \"$1\" 'echo \"passed $UMHCAP_LOCKED\"'");
	snprintf(want, sizeof(want), "passed %s\n", dir);
	/* Its output came before the holder's "done 0". */
	line = ok ? wait_line(&holder, 0, "passed ") : NULL;
	if (ok && (!line || strncmp(line, want, strlen(want)))) {
		printf("# want \"%.*s\" from the script the holder started\n",
		       (int)strlen(want) - 1, want);
		show(&holder);
		ok = false;
	}
	/* It went on under the holder's lock, and took none of its own. */
	ok = pid_file_is(dir, holder.pid) && ok;
	return end_holder(&holder) && ok ? PASS : FAIL;
}

static enum verdict lock_other_dir_free(void)
{
	char dir[PATH_MAX], other[PATH_MAX];
	bool ok;

	if (!case_dir(dir, sizeof(dir), "lock") || !case_dir(other, sizeof(other), "other") ||
	    !start_holder(&holder, dir))
		return FAIL;
	ok = taken(other);
	return end_holder(&holder) && ok ? PASS : FAIL;
}

/*
 * As make check's harness step does: a run under a run (UMHCAP_LOCKED
 * names the outer one's directory, and its lock's descriptor is open)
 * in a build directory of its own must lock that one, and leave the
 * outer one's lock as it was.  The nested run's exit statuses: 10
 * UMHCAP_LOCKED does not name its own directory, 11 .lock.pid does not
 * name it, 12 its directory is not locked, 13 the holder's is not.
 */
#define NESTED \
	"[ \"$UMHCAP_LOCKED\" = \"$UMHCAP_BUILD\" ] || exit 10; " \
	"[ \"$(cat \"$UMHCAP_BUILD/.lock.pid\")\" = $$ ] || exit 11; " \
	"rc=0; flock -n -E 75 \"$UMHCAP_BUILD/.lock\" true || rc=$?; [ $rc = 75 ] || exit 12; " \
	"rc=0; flock -n -E 75 \"$HOLDER_BUILD/.lock\" true || rc=$?; [ $rc = 75 ] || exit 13; " \
	"echo \"nested $$\""

static enum verdict lock_nested_other_dir(void)
{
	char dir[PATH_MAX], other[PATH_MAX], cmd[2 * PATH_MAX + 512];
	const char *line;
	bool ok;

	if (!case_dir(dir, sizeof(dir), "lock") || !case_dir(other, sizeof(other), "nested") ||
	    !start_holder(&holder, dir))
		return FAIL;
	snprintf(cmd, sizeof(cmd),
		 "HOLDER_BUILD=$UMHCAP_BUILD UMHCAP_BUILD='%s' sh -c \"$3\" \"$0\" \"$1\" '%s'",
		 other, NESTED);
	ok = holder_runs(&holder, cmd);
	if (ok && !(line = wait_line(&holder, 0, "nested "))) {
		printf("# the nested run said nothing\n");
		ok = false;
	}
	/* The holder's lock is still its own; the nested one's is free. */
	ok = pid_file_is(dir, holder.pid) && refused(dir, holder.pid) && taken(other) && ok;
	return end_holder(&holder) && ok ? PASS : FAIL;
}

static enum verdict lock_free_after_exit(void)
{
	char dir[PATH_MAX];

	if (!case_dir(dir, sizeof(dir), "lock") || !start_holder(&holder, dir) ||
	    !end_holder(&holder))
		return FAIL;
	return taken(dir) ? PASS : FAIL;
}

/* ---- check.sh's last line */

#define GRAPH_HEAD \
	"# A graph of steps for scripts/check.sh, written by scripts/harness_test.c.\n" \
	"B := $(UMHCAP_BUILD)\n" \
	"STEP := +@$(TOP)/scripts/step.sh\n"
#define GRAPH_TAIL \
	".PHONY: check list $(STEPS)\n" \
	"check: $(STEPS)\n" \
	"list:\n" \
	"\t@echo $(STEPS)\n"

#define ALL_PASS \
	"STEPS := one two three\n" \
	"one:\n\t$(STEP) one true\n" \
	"two:\n\t$(STEP) two true\n" \
	"three: one\n\t$(STEP) three true\n" \
	GRAPH_TAIL
/* A step that fails: the steps after it run, what needs it too. */
#define ONE_FAILS \
	"STEPS := one two three\n" \
	"one:\n\t$(STEP) one true\n" \
	"two:\n\t$(STEP) two false\n" \
	"three: two\n\t$(STEP) three touch $(B)/three-ran\n" \
	GRAPH_TAIL
#define NEEDED_FAILS \
	"STEPS := base dependent other\n" \
	"base:\n\t$(STEP) --needed base false\n" \
	"dependent: base\n\t$(STEP) dependent touch $(B)/dependent-ran\n" \
	"other:\n\t$(STEP) other true\n" \
	GRAPH_TAIL
/* A step that says it has started, then sleeps, after one that passed. */
#define SLEEPS \
	"STEPS := first sleeper\n" \
	"first:\n\t$(STEP) first true\n" \
	"sleeper: first\n\t$(STEP) sleeper sh -c 'touch $(B)/sleeping && exec sleep 60'\n" \
	GRAPH_TAIL
#define LIST_FAILS \
	"STEPS := one\n" \
	"one:\n\t$(STEP) one touch $(B)/one-ran\n" \
	".PHONY: check list\n" \
	"check: one\n" \
	"list:\n" \
	"\t@echo 'this graph cannot list its steps' >&2; exit 3\n"

static struct proc check;

/*
 * check.sh in the case directory @dir, its UMHCAP_BUILD, on the graph
 * @graph (written to @dir/graph.mk).  With @sig, once a step has written
 * $UMHCAP_BUILD/sleeping, @sig goes to check.sh's process group, as ^C
 * at a terminal sends SIGINT.
 */
static bool run_check_in(const char *dir, const char *graph, int sig)
{
	char script[PATH_MAX + 32], mk[PATH_MAX + 16], build[PATH_MAX + 16];
	char mkenv[PATH_MAX + 32], marker[PATH_MAX + 16];
	char *argv[] = { script, NULL };
	const char *env[] = { build, mkenv, NULL };
	char *text;

	snprintf(script, sizeof(script), "%s/scripts/check.sh", top);
	snprintf(mk, sizeof(mk), "%s/graph.mk", dir);
	snprintf(build, sizeof(build), "UMHCAP_BUILD=%s", dir);
	snprintf(mkenv, sizeof(mkenv), "UMHCAP_CHECK_MK=%s", mk);
	snprintf(marker, sizeof(marker), "%s/sleeping", dir);
	if (graph) {
		bool ok;

		if (asprintf(&text, "%s%s", GRAPH_HEAD, graph) < 0)
			return false;
		ok = write_file(mk, text);
		free(text);
		if (!ok)
			return false;
	}
	if (!start(&check, dir, env, argv, false))
		return false;
	if (sig) {
		if (!wait_file(&check, marker)) {
			printf("# no step started to sleep\n");
			finish(&check);
			show(&check);
			return false;
		}
		kill(-check.pid, sig);
	}
	finish(&check);
	return true;
}

/* Its last line must be @want, and its exit status @status (-1: not 0). */
static bool summary_is(const char *want, int status)
{
	char last[512];

	if (exited(&check, status) && !strcmp(last_line(&check, last, sizeof(last)), want))
		return true;
	if (status < 0)
		printf("# want a non-zero exit status and the last line \"%s\"\n", want);
	else
		printf("# want exit status %d and the last line \"%s\"\n", status, want);
	show(&check);
	return false;
}

/* @dir/@rel must exist, or not. */
static bool file_is(const char *dir, const char *rel, bool there, const char *why)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (exists(path) == there)
		return true;
	printf("# %s %s: %s\n", path, there ? "missing" : "exists", why);
	return false;
}

/* The counted steps (results/steps/tests.log) must hold @text. */
static bool steps_hold(const char *dir, const char *text)
{
	char path[PATH_MAX + 32];
	char *log;
	bool ok;

	snprintf(path, sizeof(path), "%s/results/steps/tests.log", dir);
	log = read_file(path);
	ok = log && strstr(log, text);
	if (!ok) {
		printf("# want \"%s\" in %s\n", text, path);
		if (log)
			diag_lines("tests.log", log);
	}
	free(log);
	return ok;
}

static enum verdict check_all_pass(void)
{
	char dir[PATH_MAX];

	if (!case_dir(dir, sizeof(dir), "check") || !run_check_in(dir, ALL_PASS, 0))
		return FAIL;
	return summary_is("3 passed, 0 failed", 0) ? PASS : FAIL;
}

static enum verdict check_one_fails(void)
{
	char dir[PATH_MAX];
	bool ok;

	if (!case_dir(dir, sizeof(dir), "check") || !run_check_in(dir, ONE_FAILS, 0))
		return FAIL;
	ok = summary_is("2 passed, 1 failed", 1);
	return file_is(dir, "three-ran", true, "the step after a failed one did not run") &&
	       ok ? PASS : FAIL;
}

static enum verdict check_needed_fails(void)
{
	char dir[PATH_MAX];
	bool ok;

	if (!case_dir(dir, sizeof(dir), "check") || !run_check_in(dir, NEEDED_FAILS, 0))
		return FAIL;
	ok = summary_is("1 passed, 2 failed", 1);
	ok = file_is(dir, "dependent-ran", false, "ran though the step it needs failed") && ok;
	return steps_hold(dir, "step dependent: not run") && ok ? PASS : FAIL;
}

static enum verdict check_signal(int sig)
{
	char dir[PATH_MAX];

	if (!case_dir(dir, sizeof(dir), "check") || !run_check_in(dir, SLEEPS, sig))
		return FAIL;
	return summary_is("1 passed, 1 failed", -1) ? PASS : FAIL;
}

static enum verdict check_sigint(void)
{
	return check_signal(SIGINT);
}

static enum verdict check_sigterm(void)
{
	return check_signal(SIGTERM);
}

static enum verdict check_sighup(void)
{
	return check_signal(SIGHUP);
}

static enum verdict check_locked(void)
{
	char dir[PATH_MAX], graph[PATH_MAX + 16], want[64], *before, *after;
	bool ok;

	/* The graph first: the snapshot is of everything else. */
	if (!case_dir(dir, sizeof(dir), "check") || !start_holder(&holder, dir))
		return FAIL;
	snprintf(graph, sizeof(graph), "%s/graph.mk", dir);
	if (asprintf(&before, "%s%s", GRAPH_HEAD, ALL_PASS) < 0)
		return FAIL;
	ok = write_file(graph, before);
	free(before);
	before = snapshot(dir, true);
	ok = run_check_in(dir, NULL, 0) && ok;
	after = snapshot(dir, true);
	ok = ok && summary_is("0 passed, 1 failed (no step ran: see above)", 1);
	snprintf(want, sizeof(want), "(pid %d)", (int)holder.pid);
	if (ok && !strstr(check.errbuf, want)) {
		printf("# want \"%s\" on stderr\n", want);
		show(&check);
		ok = false;
	}
	if (strcmp(before, after)) {
		printf("# the holder's build directory changed:\n");
		diag_diff(dir, before, after);
		ok = false;
	}
	free(before);
	free(after);
	return end_holder(&holder) && ok ? PASS : FAIL;
}

static enum verdict check_list_fails(void)
{
	char dir[PATH_MAX];
	bool ok;

	if (!case_dir(dir, sizeof(dir), "check") || !run_check_in(dir, LIST_FAILS, 0))
		return FAIL;
	ok = summary_is("0 passed, 1 failed", 1);
	ok = file_is(dir, "one-ran", false, "a step ran after check.sh failed") && ok;
	return steps_hold(dir, "not ok 1 step check: no step ran") && ok ? PASS : FAIL;
}

/* ---- seed_objs */

/*
 * A kernel's object directory as kbuild leaves it, in the layout of the
 * harness: the tree patched/src, its objects patched/obj (with the
 * source link kbuild makes), seeded one level deeper, as matrix.sh seeds
 * matrix/LINE/patched.  In a .cmd file kbuild's own commands name the
 * tree by its absolute path, objtool's build (tools/) names the object
 * directory by its own, and the dependencies the compiler wrote are
 * relative to the object directory (ccache's base_dir).  @FROM@, @TO@
 * and @SRC@ stand for the three directories.
 */
#define REL_FROM	"../src/"
#define REL_TO		"../../../patched/src/"
#define UMH_CMD(rel) \
	"savedcmd_kernel/umh.o := gcc -Wp,-MMD,kernel/.umh.o.d -nostdinc " \
	"-I@SRC@/include -I./include -include @SRC@/include/linux/kconfig.h " \
	"-fmacro-prefix-map=" rel "= -c -o kernel/umh.o @SRC@/kernel/umh.c\n" \
	"\n" \
	"source_kernel/umh.o := @SRC@/kernel/umh.c\n" \
	"\n" \
	"deps_kernel/umh.o := \\\n" \
	"  " rel "include/linux/kconfig.h \\\n" \
	"    $(wildcard include/config/CPU_BIG_ENDIAN) \\\n" \
	"  " rel "include/linux/umh.h \\\n" \
	"  include/generated/autoconf.h \\\n" \
	"\n" \
	"kernel/umh.o: $(deps_kernel/umh.o)\n" \
	"\n" \
	"$(deps_kernel/umh.o):\n"
#define OBJTOOL_CMD(dir) \
	"cmd_" dir "/tools/objtool/objtool := gcc -I" dir "/tools/objtool/libsubcmd/include " \
	dir "/tools/objtool/objtool-in.o " dir "/tools/objtool/libsubcmd/libsubcmd.a " \
	"-lelf -o " dir "/tools/objtool/objtool\n"
#define BZIMAGE_CMD \
	"savedcmd_arch/x86/boot/bzImage := cp arch/x86/boot/vmlinux.bin arch/x86/boot/bzImage\n"
/* Any file but a .cmd: copied as it is, the old paths in it too. */
#define NOTES		"@FROM@/kernel/umh.o from " REL_FROM "kernel/umh.c\n"

/* What the seeded directory must hold, besides the link "source". */
#define SEEDED_NAMES \
	".config f\n" \
	".seeded f\n" \
	"arch d\n" \
	"arch/x86 d\n" \
	"arch/x86/boot d\n" \
	"arch/x86/boot/.bzImage.cmd f\n" \
	"kernel d\n" \
	"kernel/.umh.o.cmd f\n" \
	"notes.txt f\n" \
	"source l\n" \
	"tools d\n" \
	"tools/objtool d\n" \
	"tools/objtool/.objtool.cmd f\n"

static struct {
	bool done, ok;
	char dir[PATH_MAX], src[PATH_MAX + 16], from[PATH_MAX + 16], to[PATH_MAX + 32];
	char *src_before, *from_before;
	struct proc p;
} seed;

/* @text with @FROM@, @TO@ and @SRC@ replaced; malloc'd. */
static char *subst(const char *text)
{
	static const char *const keys[] = { "@FROM@", "@TO@", "@SRC@" };
	const char *vals[] = { seed.from, seed.to, seed.src };
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (!m)
		abort();
	while (*text) {
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			if (!strncmp(text, keys[i], strlen(keys[i]))) {
				fputs(vals[i], m);
				text += strlen(keys[i]);
				break;
			}
		}
		if (i == ARRAY_SIZE(keys))
			putc(*text++, m);
	}
	fclose(m);
	return out;
}

/* Writes @dir/@rel with @text, its @FROM@, @TO@, @SRC@ replaced. */
static bool put_subst(const char *dir, const char *rel, const char *text)
{
	char *s = subst(text);
	bool ok = put(dir, rel, s);

	free(s);
	return ok;
}

/* Each entry of the tree its own mtime, to the nanosecond. */
static long long mtime_seq;

static int set_mtime(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct timespec ts[2];

	(void)st;
	(void)type;
	(void)ftw;
	mtime_seq++;
	ts[0] = ts[1] = (struct timespec){ 1000000000 + 1000 * mtime_seq, 123456789 + mtime_seq };
	if (utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW))
		printf("# utimensat %s: %s\n", path, strerror(errno));
	return 0;
}

static bool seed_layout(void)
{
	char old[PATH_MAX + 64];

	snprintf(seed.src, sizeof(seed.src), "%s/patched/src", seed.dir);
	snprintf(seed.from, sizeof(seed.from), "%s/patched/obj", seed.dir);
	snprintf(seed.to, sizeof(seed.to), "%s/matrix/no-uevent-helper/patched", seed.dir);
	snprintf(old, sizeof(old), "%s/source", seed.from);
	if (!put(seed.src, "Makefile", "VERSION = 6\n") ||
	    !put(seed.src, "include/linux/kconfig.h", "/* kconfig */\n") ||
	    !put(seed.src, "include/linux/umh.h", "/* umh */\n") ||
	    !put(seed.src, "kernel/umh.c", "/* umh.c */\n") ||
	    !put(seed.from, ".config", "CONFIG_UMH_CAPS=y\n") ||
	    !put_subst(seed.from, "kernel/.umh.o.cmd", UMH_CMD(REL_FROM)) ||
	    !put_subst(seed.from, "tools/objtool/.objtool.cmd", OBJTOOL_CMD("@FROM@")) ||
	    !put(seed.from, "arch/x86/boot/.bzImage.cmd", BZIMAGE_CMD) ||
	    !put_subst(seed.from, "notes.txt", NOTES) ||
	    !put(seed.from, "modroot/lib/modules/6.12.118/kernel/test_umh.ko", "ko\n") ||
	    !put(seed.from, "modules.cpio", "070701\n") ||
	    !put(seed.from, "modules.list", "dir /lib 0755 0 0\n") ||
	    /* What an earlier seeding left where the new one goes. */
	    !put(seed.to, "stale.o", "stale\n") || !put(seed.to, ".seeded", "/elsewhere\n"))
		return false;
	if (symlink(seed.src, old)) {
		printf("# symlink %s: %s\n", old, strerror(errno));
		return false;
	}
	nftw(seed.src, set_mtime, 16, FTW_PHYS);
	nftw(seed.from, set_mtime, 16, FTW_PHYS);
	return true;
}

/* The seeding the seed cases look at, made once. */
static bool seeded(void)
{
	char *argv[] = { "/bin/sh", "-c",
		"set -eu; . \"$1/scripts/lib.sh\"; seed_objs \"$2\" \"$3\"",
		argv0, top, seed.from, seed.to, NULL };
	char build[PATH_MAX + 16];
	const char *env[] = { build, NULL };

	if (seed.done) {
		if (!seed.ok)
			printf("# the seeding failed: see the first seed_objs case\n");
		return seed.ok;
	}
	seed.done = true;
	if (!case_dir(seed.dir, sizeof(seed.dir), "seed") || !seed_layout())
		return false;
	seed.src_before = snapshot(seed.src, true);
	seed.from_before = snapshot(seed.from, true);
	snprintf(build, sizeof(build), "UMHCAP_BUILD=%s", seed.dir);
	if (!run(&seed.p, seed.dir, env, argv))
		return false;
	seed.ok = exited(&seed.p, 0);
	if (!seed.ok) {
		printf("# seed_objs FROM TO failed\n");
		show(&seed.p);
	}
	return seed.ok;
}

/* @dir/@rel must hold exactly @want (its @FROM@, @TO@, @SRC@ replaced). */
static bool holds(const char *dir, const char *rel, const char *want)
{
	char path[PATH_MAX + 64];
	char *text, *w = subst(want);
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	text = read_file(path);
	ok = text && !strcmp(text, w);
	if (!ok) {
		printf("# %s:\n", path);
		diag_lines("want", w);
		diag_lines("got", text ? text : "(cannot read it)");
	}
	free(text);
	free(w);
	return ok;
}

static enum verdict seed_rewrites_paths(void)
{
	bool ok;

	if (!seeded())
		return FAIL;
	ok = holds(seed.to, "kernel/.umh.o.cmd", UMH_CMD(REL_TO));
	ok = holds(seed.to, "tools/objtool/.objtool.cmd", OBJTOOL_CMD("@TO@")) && ok;
	ok = holds(seed.to, "arch/x86/boot/.bzImage.cmd", BZIMAGE_CMD) && ok;
	return ok ? PASS : FAIL;
}

static unsigned int mtimes_compared;
static bool mtimes_ok;

static int same_mtime(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + strlen(seed.to);
	char old[2 * PATH_MAX];
	struct stat ost;

	(void)ftw;
	if (type != FTW_F || !strcmp(rel, "/.seeded"))
		return 0;
	snprintf(old, sizeof(old), "%s%s", seed.from, rel);
	mtimes_compared++;
	if (lstat(old, &ost)) {
		printf("# %s: not in the old directory\n", rel + 1);
		mtimes_ok = false;
	} else if (st->st_mtim.tv_sec != ost.st_mtim.tv_sec ||
		   st->st_mtim.tv_nsec != ost.st_mtim.tv_nsec) {
		printf("# %s: mtime %lld.%09ld, was %lld.%09ld\n", rel + 1,
		       (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
		       (long long)ost.st_mtim.tv_sec, ost.st_mtim.tv_nsec);
		mtimes_ok = false;
	}
	return 0;
}

static enum verdict seed_keeps_mtimes(void)
{
	if (!seeded())
		return FAIL;
	mtimes_compared = 0;
	mtimes_ok = true;
	nftw(seed.to, same_mtime, 16, FTW_PHYS);
	if (mtimes_compared < 5) {
		printf("# only %u files compared\n", mtimes_compared);
		return FAIL;
	}
	return mtimes_ok ? PASS : FAIL;
}

static enum verdict seed_files(void)
{
	char path[PATH_MAX + 64], target[PATH_MAX];
	char *names, *marker;
	ssize_t n;
	bool ok;

	if (!seeded())
		return FAIL;
	names = snapshot(seed.to, false);
	ok = !strcmp(names, SEEDED_NAMES);
	if (!ok)
		diag_diff("seeded directory", SEEDED_NAMES, names);
	free(names);
	snprintf(path, sizeof(path), "%s/.seeded", seed.to);
	marker = read_file(path);
	if (!marker || strncmp(marker, seed.from, strlen(seed.from)) ||
	    strcmp(marker + strlen(seed.from), "\n")) {
		printf("# %s holds \"%s\", not the old directory\n", path,
		       marker ? marker : "(nothing)");
		ok = false;
	}
	free(marker);
	snprintf(path, sizeof(path), "%s/source", seed.to);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0 || (target[n] = '\0', strcmp(target, seed.src))) {
		printf("# %s does not point to %s\n", path, seed.src);
		ok = false;
	}
	return ok ? PASS : FAIL;
}

static enum verdict seed_other_files_as_they_were(void)
{
	if (!seeded())
		return FAIL;
	return holds(seed.to, "notes.txt", NOTES) ? PASS : FAIL;
}

static enum verdict seed_leaves_old(void)
{
	char *src, *from;
	bool ok = true;

	if (!seeded())
		return FAIL;
	src = snapshot(seed.src, true);
	from = snapshot(seed.from, true);
	if (strcmp(src, seed.src_before)) {
		diag_diff("source tree", seed.src_before, src);
		ok = false;
	}
	if (strcmp(from, seed.from_before)) {
		diag_diff("old object directory", seed.from_before, from);
		ok = false;
	}
	free(src);
	free(from);
	return ok ? PASS : FAIL;
}

/* ---- cc.sh, the compiler of every kernel build */

/*
 * sh -c BODY in a case directory of its own, with "$1" TOP and "$2" that
 * directory, and the ccache of that directory; true if BODY exited 0.
 */
static bool cc_run(const char *name, const char *body)
{
	char dir[PATH_MAX], cache[PATH_MAX + 32];
	char *argv[] = { "/bin/sh", "-c", (char *)body, argv0, top, dir, NULL };
	const char *env[] = { cache, NULL };
	struct proc p;

	if (!case_dir(dir, sizeof(dir), name))
		return false;
	snprintf(cache, sizeof(cache), "CCACHE_DIR=%s/ccache", dir);
	if (!run(&p, dir, env, argv))
		return false;
	if (exited(&p, 0))
		return true;
	show(&p);
	return false;
}

/* BODY's compile of @f@ext into @f.o through cc.sh, as kbuild runs it */
#define CC_O(f, ext) \
	"\"$1/scripts/cc.sh\" -Wp,-MMD,." f ".o.d -c -o " f ".o " f ext "; "

/*
 * An object built with .incbin follows the file it includes.  ccache's
 * depend mode, which never reads the preprocessed text, would replay the
 * first object for the second compile.
 */
static enum verdict cc_incbin_follows_its_file(void)
{
	return cc_run("cc-incbin",
		"set -eu; cd \"$2\"; "
		"printf '.section .rodata\\n.incbin \"data\"\\n' >a.S; "
		"echo first-contents >data; " CC_O("a", ".S") "rm a.o; "
		"echo other-contents >data; " CC_O("a", ".S")
		"grep -q other-contents a.o || "
		"{ echo 'a.o holds the first data, not the second'; exit 1; }") ?
		PASS : FAIL;
}

/*
 * Any other object goes through ccache, in depend mode: no preprocessed
 * lookup on the miss, and a direct hit the second time.
 */
static enum verdict cc_caches_in_depend_mode(void)
{
	return cc_run("cc-depend",
		"set -eu; cd \"$2\"; "
		"echo 'int f(void) { return 1; }' >b.c; " CC_O("b", ".c") "rm b.o; "
		CC_O("b", ".c") "ccache --print-stats >stats; "
		"grep -qx 'direct_cache_hit\t1' stats || "
		"{ echo 'no direct hit:'; cat stats; exit 1; }; "
		"! grep -q '^preprocessed_cache_miss\t[1-9]' stats || "
		"{ echo 'the preprocessor looked it up:'; cat stats; exit 1; }") ?
		PASS : FAIL;
}

static const struct {
	enum verdict (*fn)(void);
	const char *desc;
} tests[] = {
	{ lock_refuses_second, "lock: a second run in the same build directory fails, naming the first's pid" },
	{ lock_second_touches_nothing, "lock: the refused run leaves the build directory as the first left it" },
	{ lock_passes_to_child, "lock: a script the holder starts (UMHCAP_LOCKED=UMHCAP_BUILD) goes on" },
	{ lock_other_dir_free, "lock: a run in another build directory is not blocked" },
	{ lock_nested_other_dir, "lock: a run the holder starts in another build directory locks that one, and the holder's stays held" },
	{ lock_free_after_exit, "lock: after the holder exits, a new run takes the lock" },
	{ check_all_pass, "check.sh: every step passes: 3 passed, 0 failed, exit 0" },
	{ check_one_fails, "check.sh: a failed step is counted and the run goes on: 2 passed, 1 failed" },
	{ check_needed_fails, "check.sh: a failed --needed step: what needs it never runs, and counts as failed" },
	{ check_sigint, "check.sh: SIGINT while a step runs: the count is still the last line" },
	{ check_sigterm, "check.sh: SIGTERM while a step runs: the count is still the last line" },
	{ check_sighup, "check.sh: SIGHUP while a step runs: the count is still the last line" },
	{ check_locked, "check.sh: the lock held by another run: 0 passed, 1 failed, and its directory untouched" },
	{ check_list_fails, "check.sh: an error before any step (the graph cannot list): 0 passed, 1 failed" },
	{ seed_rewrites_paths, "seed_objs: .cmd files name the new directory, and the source relative to it" },
	{ seed_keeps_mtimes, "seed_objs: every file keeps its mtime, to the nanosecond" },
	{ seed_files, "seed_objs: the old files but modroot, modules.cpio, modules.list; .seeded names the old directory" },
	{ seed_other_files_as_they_were, "seed_objs: a file that is not a .cmd is copied as it was" },
	{ seed_leaves_old, "seed_objs: the old object directory and the source tree are untouched" },
	{ cc_incbin_follows_its_file, "cc.sh: an object made with .incbin follows the file it includes, not ccache's copy" },
	{ cc_caches_in_depend_mode, "cc.sh: any other object hits ccache the second time, with no preprocessor run (depend mode)" },
};

int main(int argc, char **argv)
{
	unsigned int i, n = ARRAY_SIZE(tests), passed = 0, failed = 0;
	const char *base = getenv("TMPDIR");
	struct sigaction sa = { .sa_handler = on_signal };
	char lib[PATH_MAX + 32];
	double t0 = now();

	if (argc != 2) {
		fprintf(stderr, "usage: harness_test TOP\n");
		return 2;
	}
	if (!realpath(argv[1], top)) {
		fprintf(stderr, "harness_test: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	snprintf(lib, sizeof(lib), "%s/scripts/lib.sh", top);
	if (access(lib, R_OK)) {
		fprintf(stderr, "harness_test: %s: %s\n", lib, strerror(errno));
		return 2;
	}
	snprintf(argv0, sizeof(argv0), "%s/scripts/harness_test", top);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	snprintf(run_dir, sizeof(run_dir), "%s/harness_test.XXXXXX",
		 base && *base ? base : "/tmp");
	if (!mkdtemp(run_dir)) {
		fprintf(stderr, "harness_test: mkdtemp %s: %s\n", run_dir, strerror(errno));
		*run_dir = '\0';
		return 1;
	}
	atexit(cleanup);

	printf("TAP version 13\n");
	printf("1..%u\n", n);
	for (i = 0; i < n && !stop_sig; i++) {
		double t = now();

		if (tests[i].fn() == PASS) {
			passed++;
			printf("ok %u %s\n", i + 1, tests[i].desc);
		} else {
			failed++;
			printf("not ok %u %s\n", i + 1, tests[i].desc);
		}
		if (now() - t > 5)
			printf("# that took %.1f s\n", now() - t);
	}
	printf("# %u passed, %u failed, in %.1f s\n", passed, failed, now() - t0);
	if (stop_sig) {
		printf("# stopped by signal %d\n", (int)stop_sig);
		fflush(stdout);
		cleanup();
		*run_dir = '\0';
		signal(stop_sig, SIG_DFL);
		raise(stop_sig);
	}
	return failed ? 1 : 0;
}
