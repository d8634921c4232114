// SPDX-License-Identifier: GPL-2.0
/*
 * The harness's own tests: tests/harness_demo, whose tests pass, fail,
 * crash, skip and hang on purpose, run one test at a time, and what it
 * printed held to what harness.h promises.  make check gives the
 * program's path in UMHCAP_HARNESS_DEMO.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

struct demo {
	int code;		/* its exit status; 128 if killed */
	char out[8192];		/* stdout and stderr */
	char marks[1024];	/* what its tests did, a line each */
};

static struct demo demo;

static void slurp_path(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/* Run the demo program's tests @tests (-t each), with a 1 s timeout. */
static int run_demo(const char *const tests[])
{
	const char *bin = getenv("UMHCAP_HARNESS_DEMO") ?: "./tests/harness_demo";
	char out[] = "/tmp/umhcap-harness.XXXXXX", marks[sizeof(out) + 8];
	const char *argv[32] = { bin };
	int fd, i, n = 1, status;
	pid_t pid;

	fd = mkstemp(out);
	if (fd < 0)
		abort();
	snprintf(marks, sizeof(marks), "%s.marks", out);
	for (i = 0; tests[i] && n < 30; i++) {
		argv[n++] = "-t";
		argv[n++] = tests[i];
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		setenv("UMHCAP_TEST_TIMEOUT", "1", 1);
		setenv("HARNESS_DEMO_MARKS", marks, 1);
		execv(bin, (char **)argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	close(fd);
	slurp_path(out, demo.out, sizeof(demo.out));
	slurp_path(marks, demo.marks, sizeof(demo.marks));
	unlink(out);
	unlink(marks);
	demo.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	return demo.code;
}

#define DEMO(...) run_demo((const char *const[]){ __VA_ARGS__, NULL })

/*
 * The demo's output, each line after "# | ": its KTAP, quoted, must not
 * read as this program's.  Static.
 */
static const char *quoted(void)
{
	static char buf[2 * sizeof(demo.out)];
	const char *s = demo.out;
	size_t n = 0;

	while (*s && n + 8 < sizeof(buf)) {
		if (s == demo.out || s[-1] == '\n')
			n += snprintf(buf + n, sizeof(buf) - n, "# | ");
		buf[n++] = *s++;
	}
	buf[n] = '\0';
	return buf;
}

#define ASSERT_OUT(needle) do {						\
	if (!strstr(demo.out, needle))					\
		TH_LOG("missing \"%s\" in:\n%s", needle, quoted());	\
	ASSERT_TRUE(strstr(demo.out, needle) != NULL);			\
} while (0)

/* A KTAP plan, one result a test, and the totals, which make check greps. */
TEST(harness_passing_test)
{
	ASSERT_EQ(0, DEMO("passes"));
	ASSERT_EQ(0, strncmp(demo.out, "TAP version 13\n1..1\n", 20))
		TH_LOG("%s", quoted());
	ASSERT_OUT("\nok 1 global.passes\n");
	ASSERT_OUT("\n# PASSED: 1 / 1 tests passed.\n");
	ASSERT_OUT("\n# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0\n");
	ASSERT_STREQ("passed\n", demo.marks);
}

/*
 * A failed ASSERT fails the test, runs its handler, and ends the test;
 * the other tests run (in the order they are defined in).
 */
TEST(harness_failed_assert)
{
	ASSERT_EQ(1, DEMO("assert_fails", "passes"));
	ASSERT_OUT("\nok 1 global.passes\n");
	ASSERT_OUT("\nnot ok 2 global.assert_fails\n");
	ASSERT_OUT("assert_fails:Expected 1 (1) == 2 (2)\n");
	ASSERT_OUT(":assert_fails:the handler of a failed ASSERT\n");
	ASSERT_OUT("\n# FAILED: 1 / 2 tests passed.\n");
	ASSERT_OUT("\n# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0\n");
	ASSERT_STREQ("passed\n", demo.marks);
}

/* ... and so does one in a function the test calls. */
TEST(harness_failed_assert_in_a_helper)
{
	ASSERT_EQ(1, DEMO("assert_fails_in_a_helper"));
	ASSERT_OUT("\nnot ok 1 global.assert_fails_in_a_helper\n");
	ASSERT_STREQ("", demo.marks);
}

/* A failed EXPECT fails the test, and the test goes on. */
TEST(harness_failed_expect)
{
	ASSERT_EQ(1, DEMO("expect_fails_and_goes_on"));
	ASSERT_OUT("\nnot ok 1 global.expect_fails_and_goes_on\n");
	ASSERT_OUT(":expect_fails_and_goes_on:Expected 'a' == 'b'.\n");
	ASSERT_OUT(":expect_fails_and_goes_on:the handler of a failed EXPECT\n");
	ASSERT_STREQ("after a failed EXPECT\n", demo.marks);
}

/* A crash fails its test only: the others run. */
TEST(harness_crash)
{
	ASSERT_EQ(1, DEMO("crashes", "passes"));
	ASSERT_OUT("\n# crashes: died of signal 11 ");
	ASSERT_OUT("\nok 1 global.passes\n");
	ASSERT_OUT("\nnot ok 2 global.crashes\n");
	ASSERT_STREQ("passed\n", demo.marks);
}

/* SKIP: a KTAP skip with its reason, which is no failure. */
TEST(harness_skip)
{
	ASSERT_EQ(0, DEMO("skips"));
	ASSERT_OUT("\nok 1 global.skips # SKIP no tracefs here\n");
	ASSERT_OUT("\n# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0\n");
	ASSERT_STREQ("", demo.marks);
}

/* A test that runs past its timeout is killed, and fails. */
TEST(harness_timeout)
{
	ASSERT_EQ(1, DEMO("hangs", "passes"));
	ASSERT_OUT("\n# hangs: timed out after 1 s");
	ASSERT_OUT("\nok 1 global.passes\n");
	ASSERT_OUT("\nnot ok 2 global.hangs\n");
	ASSERT_STREQ("passed\nhanging\n", demo.marks);
}

/* A fixture: setup, the test, teardown, on one zeroed fixture data. */
TEST(harness_fixture)
{
	ASSERT_EQ(0, DEMO("demo.with_fixture"));
	ASSERT_OUT("\nok 1 demo.with_fixture\n");
	ASSERT_STREQ("setup\ntest\nteardown\n", demo.marks);
}

/* The teardown runs after a failed ASSERT, and the test ends there. */
TEST(harness_teardown_after_failed_assert)
{
	ASSERT_EQ(1, DEMO("assert_fails_in_fixture"));
	ASSERT_OUT("\nnot ok 1 demo.assert_fails_in_fixture\n");
	ASSERT_STREQ("setup\ntest\nteardown\n", demo.marks);
}
