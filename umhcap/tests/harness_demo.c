// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the harness's own, which pass, fail, crash, skip and hang on
 * purpose: harness_test.c runs this program, and holds what it prints
 * to what harness.h promises.  What the tests did goes, a line each, to
 * the file HARNESS_DEMO_MARKS names.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "harness.h"

static void mark(const char *what)
{
	const char *path = getenv("HARNESS_DEMO_MARKS");
	FILE *f = fopen(path ? path : "/dev/null", "a");

	if (!f)
		abort();
	fprintf(f, "%s\n", what);
	fclose(f);
}

FIXTURE(demo) {
	int setups;
};

FIXTURE_SETUP(demo)
{
	self->setups++;
	mark("setup");
}

FIXTURE_TEARDOWN(demo)
{
	mark(self->setups == 1 ? "teardown" : "teardown of other data");
}

TEST(passes)
{
	ASSERT_EQ(1, 1);
	EXPECT_STREQ("a", "a");
	ASSERT_NE(NULL, getenv("PATH"));
	mark("passed");
}

TEST(assert_fails)
{
	ASSERT_EQ(1, 2) TH_LOG("the handler of a failed ASSERT");
	mark("after a failed ASSERT");
}

TEST(expect_fails_and_goes_on)
{
	EXPECT_STREQ("a", "b") TH_LOG("the handler of a failed EXPECT");
	mark("after a failed EXPECT");
}

static void helper(struct __test_metadata *_metadata)
{
	ASSERT_TRUE(0);
	mark("in the helper, after its failed ASSERT");
}

TEST(assert_fails_in_a_helper)
{
	helper(_metadata);
	mark("after the helper's failed ASSERT");
}

TEST(crashes)
{
	/* Not dumpable: no core, and no core dump helper started. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	*(volatile int *)NULL = 0;
	mark("after the crash");
}

TEST(skips)
{
	SKIP(return, "no %s here", "tracefs");
	mark("after SKIP");
}

TEST(hangs)
{
	mark("hanging");
	pause();
}

TEST_F(demo, with_fixture)
{
	mark("test");
}

TEST_F(demo, assert_fails_in_fixture)
{
	mark("test");
	ASSERT_FALSE(1);
	mark("after a failed ASSERT");
}
