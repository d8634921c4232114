// SPDX-License-Identifier: GPL-2.0
/*
 * umhcap's test harness: runs the tests harness.h registered, each in a
 * child process of its own, and prints KTAP.  See harness.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define TIMEOUT_DEFAULT	30		/* seconds, as the kernel's harness */
#define REASON_SIZE	1024
/* How a test's process tells its result, when it lives to tell it. */
#define EXIT_PASS	0
#define EXIT_FAIL	1
#define EXIT_SKIP	4		/* KSFT_SKIP */

static struct __test_metadata *first, **last = &first;

void __harness_register(struct __test_metadata *t)
{
	*last = t;
	last = &t->next;
}

/* A failed ASSERT: back to run_test(), which tears down and exits. */
void __harness_bail(struct __test_metadata *t)
{
	longjmp(t->env, 1);
}

void __harness_skip(struct __test_metadata *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->skip_reason, REASON_SIZE, fmt, ap);
	va_end(ap);
	fprintf(stderr, "#      SKIP      %s\n", t->skip_reason);
	t->skipped = true;
	t->trigger = false;
}

/*
 * In the test's process: setup, the test, then, once setup has run, the
 * teardown, whether the test passed or a check ended it.  A failed
 * ASSERT longjmp()s back here; what changes after setjmp() is in *t (and
 * *self), never in a local.
 */
static void __attribute__((noreturn)) run_test(struct __test_metadata *t)
{
	void *self = t->self_size ? calloc(1, t->self_size) : NULL;
	static bool set_up, torn_down;

	if (t->self_size && !self) {
		fprintf(stderr, "# %s: out of memory\n", t->name);
		_exit(EXIT_FAIL);
	}
	if (!setjmp(t->env)) {
		if (t->setup) {
			t->setup(t, self);
			set_up = true;
		}
		if (!t->failed && !t->skipped)
			t->fn(t, self);
	}
	if (set_up && !torn_down) {
		torn_down = true;
		if (!setjmp(t->env))
			t->teardown(t, self);
	}
	fflush(NULL);
	_exit(t->failed ? EXIT_FAIL : t->skipped ? EXIT_SKIP : EXIT_PASS);
}

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

/* The test's process, waited for: its exit status, or -1 on timeout. */
static int wait_test(pid_t pid, unsigned int timeout, int *status)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	pid_t got;

	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: waitpid stops */
	timed_out = 0;
	alarm(timeout);
	do
		got = waitpid(pid, status, 0);
	while (got < 0 && errno == EINTR && !timed_out);
	alarm(0);
	if (got == pid)
		return 0;
	/* Timed out (or waitpid failed): the test and its children go. */
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return -1;
}

static bool selected(const struct __test_metadata *t, char **only, int n)
{
	char full[512];
	int i;

	if (!n)
		return true;
	snprintf(full, sizeof(full), "%s.%s", t->fixture, t->name);
	for (i = 0; i < n; i++)
		if (!strcmp(only[i], t->name) || !strcmp(only[i], full))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	unsigned int timeout = TIMEOUT_DEFAULT, planned = 0, n = 0;
	unsigned int pass = 0, fail = 0, skip = 0;
	struct __test_metadata *t;
	const char *env;
	char **only;
	int nonly = 0, c, status, late;
	bool list = false;
	char *reason;
	pid_t pid;

	only = calloc(argc, sizeof(*only));
	while ((c = getopt(argc, argv, "t:l")) != -1) {
		if (c == 't') {
			only[nonly++] = optarg;
		} else if (c == 'l') {
			list = true;
		} else {
			fprintf(stderr, "usage: %s [-l] [-t TEST]...\n", argv[0]);
			return 2;
		}
	}
	env = getenv("UMHCAP_TEST_TIMEOUT");
	if (env && atoi(env) > 0)
		timeout = atoi(env);
	for (t = first; t; t = t->next) {
		if (!selected(t, only, nonly))
			continue;
		if (list)
			printf("%s.%s\n", t->fixture, t->name);
		planned++;
	}
	if (list)
		return 0;
	reason = mmap(NULL, REASON_SIZE, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (reason == MAP_FAILED) {
		perror("# mmap");
		return 1;
	}
	printf("TAP version 13\n1..%u\n", planned);
	printf("# Starting %u tests.\n", planned);
	for (t = first; t; t = t->next) {
		if (!selected(t, only, nonly))
			continue;
		n++;
		printf("#  RUN           %s.%s ...\n", t->fixture, t->name);
		fflush(NULL);
		reason[0] = '\0';
		t->skip_reason = reason;
		pid = fork();
		if (pid < 0) {
			perror("# fork");
			status = EXIT_FAIL << 8;
		} else if (pid == 0) {
			setpgid(0, 0);
			run_test(t);
		}
		late = pid > 0 ? wait_test(pid, timeout, &status) : 0;
		if (late) {
			printf("# %s: timed out after %u s (UMHCAP_TEST_TIMEOUT)\n",
			       t->name, timeout);
			status = EXIT_FAIL << 8;
		} else if (WIFSIGNALED(status)) {
			printf("# %s: died of signal %d (%s)\n", t->name,
			       WTERMSIG(status), strsignal(WTERMSIG(status)));
		} else if (WEXITSTATUS(status) != EXIT_PASS &&
			   WEXITSTATUS(status) != EXIT_FAIL &&
			   WEXITSTATUS(status) != EXIT_SKIP) {
			printf("# %s: exited %d\n", t->name, WEXITSTATUS(status));
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_PASS) {
			pass++;
			printf("#            OK  %s.%s\nok %u %s.%s\n", t->fixture,
			       t->name, n, t->fixture, t->name);
		} else if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SKIP) {
			skip++;
			printf("#          SKIP  %s.%s\nok %u %s.%s # SKIP %s\n",
			       t->fixture, t->name, n, t->fixture, t->name,
			       reason);
		} else {
			fail++;
			printf("#          FAIL  %s.%s\nnot ok %u %s.%s\n",
			       t->fixture, t->name, n, t->fixture, t->name);
		}
	}
	printf("# %s: %u / %u tests passed.\n", fail ? "FAILED" : "PASSED",
	       pass, planned);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       pass, fail, skip);
	free(only);
	return fail ? 1 : 0;
}
