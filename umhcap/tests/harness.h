/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umhcap's own test harness: the part of the kernel's kselftest_harness.h
 * that the host tests use, written for them, so that they build without
 * a kernel tree (a package build has none).  harness.c runs the tests.
 *
 *   TEST(name) { ... }
 *   FIXTURE(f) { members };         in a header, once per program
 *   FIXTURE_SETUP(f) { ... }        in one file: self is the fixture's
 *   FIXTURE_TEARDOWN(f) { ... }     data, zeroed for each test
 *   TEST_F(f, name) { ... }         setup, the test, teardown
 *   ASSERT_EQ(want, got) ...        ends the test on failure
 *   EXPECT_EQ(want, got) ...        fails it, and goes on
 *   ASSERT_* or EXPECT_* followed by a statement, not a ';': the
 *                                   statement runs only on failure
 *                                   (TH_LOG(...) to say more)
 *   TH_LOG(fmt, ...)                a "# " line on stderr
 *   SKIP(statement, fmt, ...)       the test skips, for the reason given;
 *                                   then statement (return, say)
 *
 * As the kernel's: each test runs in a child process of its own, in a
 * process group of its own, so that a crash or an exit fails that test
 * only; a test that runs longer than its timeout (30 s, or
 * UMHCAP_TEST_TIMEOUT seconds) is killed, with its group, and fails.  A
 * failed ASSERT in the test, in setup or in a function the test calls
 * (which must then take struct __test_metadata *_metadata) ends the test
 * there; the fixture's teardown runs after the test, passed or failed,
 * once setup has run.  The results are KTAP on stdout: "TAP version
 * 13", "1..N", then "ok N fixture.name", "not ok N fixture.name" or "ok N
 * fixture.name # SKIP reason" (a TEST's fixture is "global"); then
 * "# PASSED: ..." or "# FAILED: ...", and "# Totals: pass:P fail:F
 * xfail:0 xpass:0 skip:S error:0".  The exit status is 0 when no test
 * failed.  Options: -t NAME runs only the tests so named (fixture.name or
 * name; may be repeated), -l lists them.
 */
#ifndef UMHCAP_HARNESS_H
#define UMHCAP_HARNESS_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

struct __test_metadata {
	const char *fixture;		/* "global" for a TEST */
	const char *name;
	/* A TEST's body, or a TEST_F's; self is the fixture's data. */
	void (*fn)(struct __test_metadata *_metadata, void *self);
	void (*setup)(struct __test_metadata *_metadata, void *self);
	void (*teardown)(struct __test_metadata *_metadata, void *self);
	size_t self_size;
	/* In the test's process: how it is going. */
	bool failed;
	bool skipped;
	bool trigger;			/* a check failed: run its handler */
	bool in_setup;
	jmp_buf env;
	char *skip_reason;		/* shared with the parent */
	struct __test_metadata *next;
};

void __harness_register(struct __test_metadata *t);
void __harness_bail(struct __test_metadata *t);
void __harness_skip(struct __test_metadata *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define TH_LOG(fmt, ...) \
	fprintf(stderr, "# %s:%d:%s:" fmt "\n", __FILE__, __LINE__, \
		_metadata->name, ##__VA_ARGS__)

#define SKIP(statement, fmt, ...) do {					\
	__harness_skip(_metadata, fmt, ##__VA_ARGS__);			\
	statement;							\
} while (0)

/* Registered before main(), in the order of the program's files. */
#define __HARNESS_REGISTER(id, fix, tname, body, su, td, size)		\
	static struct __test_metadata id = {				\
		.fixture = fix, .name = tname, .fn = body,		\
		.setup = su, .teardown = td, .self_size = size,		\
	};								\
	static void __attribute__((constructor)) id##_register(void)	\
	{								\
		__harness_register(&id);				\
	}

#define TEST(test_name)							\
	static void test_name(struct __test_metadata *_metadata);	\
	static void __wrapper_##test_name(struct __test_metadata *m,	\
					  void *self)			\
	{								\
		(void)self;						\
		test_name(m);						\
	}								\
	__HARNESS_REGISTER(__test_##test_name, "global", #test_name,	\
			   __wrapper_##test_name, NULL, NULL, 0)	\
	static void test_name(						\
		struct __test_metadata __attribute__((unused)) *_metadata)

#define FIXTURE_DATA(fixture_name)	struct __fixture_##fixture_name

#define FIXTURE(fixture_name)						\
	FIXTURE_DATA(fixture_name);					\
	void __setup_##fixture_name(struct __test_metadata *_metadata,	\
				    FIXTURE_DATA(fixture_name) *self);	\
	void __teardown_##fixture_name(struct __test_metadata *_metadata,	\
				       FIXTURE_DATA(fixture_name) *self);	\
	FIXTURE_DATA(fixture_name)

#define FIXTURE_SETUP(fixture_name)					\
	void __setup_##fixture_name(					\
		struct __test_metadata __attribute__((unused)) *_metadata, \
		FIXTURE_DATA(fixture_name) __attribute__((unused)) *self)

#define FIXTURE_TEARDOWN(fixture_name)					\
	void __teardown_##fixture_name(					\
		struct __test_metadata __attribute__((unused)) *_metadata, \
		FIXTURE_DATA(fixture_name) __attribute__((unused)) *self)

#define TEST_F(fixture_name, test_name)					\
	static void fixture_name##_##test_name(				\
		struct __test_metadata *_metadata,			\
		FIXTURE_DATA(fixture_name) *self);			\
	static void __wrapper_##fixture_name##_##test_name(		\
		struct __test_metadata *m, void *self)			\
	{								\
		fixture_name##_##test_name(m, self);			\
	}								\
	static void __setup_any_##fixture_name##_##test_name(		\
		struct __test_metadata *m, void *self)			\
	{								\
		__setup_##fixture_name(m, self);			\
	}								\
	static void __teardown_any_##fixture_name##_##test_name(	\
		struct __test_metadata *m, void *self)			\
	{								\
		__teardown_##fixture_name(m, self);			\
	}								\
	__HARNESS_REGISTER(__test_##fixture_name##_##test_name,		\
			   #fixture_name, #test_name,			\
			   __wrapper_##fixture_name##_##test_name,	\
			   __setup_any_##fixture_name##_##test_name,	\
			   __teardown_any_##fixture_name##_##test_name,	\
			   sizeof(FIXTURE_DATA(fixture_name)))		\
	static void fixture_name##_##test_name(				\
		struct __test_metadata __attribute__((unused)) *_metadata, \
		FIXTURE_DATA(fixture_name) __attribute__((unused)) *self)

/*
 * The check, then a for loop that runs only when it failed: its body is
 * what follows the macro (a TH_LOG, a block) or, after a ';', nothing;
 * an ASSERT's ends the test when the body is done.
 */
#define __HARNESS_HANDLER(is_assert)					\
	for (; _metadata->trigger; _metadata->trigger = false,		\
	     (is_assert) ? __harness_bail(_metadata) : (void)0)

#define __harness_signed(x)	(((__typeof__(x))-1) < (__typeof__(x))1)

#define __EXPECT(want, want_str, seen, seen_str, op, is_assert) do {	\
	__typeof__(want) __want = (want);				\
	__typeof__(seen) __seen = (seen);				\
	if (!(__want op __seen)) {					\
		if (__harness_signed(__want) && __harness_signed(__seen)) \
			TH_LOG("Expected %s (%jd) %s %s (%jd)", want_str, \
			       (intmax_t)__want, #op, seen_str,		\
			       (intmax_t)__seen);			\
		else							\
			TH_LOG("Expected %s (%ju) %s %s (%ju)", want_str, \
			       (uintmax_t)__want, #op, seen_str,	\
			       (uintmax_t)__seen);			\
		_metadata->failed = true;				\
		_metadata->trigger = true;				\
	}								\
} while (0); __HARNESS_HANDLER(is_assert)

#define __EXPECT_STR(want, seen, op, is_assert) do {			\
	const char *__want = (want);					\
	const char *__seen = (seen);					\
	if (!(strcmp(__want, __seen) op 0)) {				\
		TH_LOG("Expected '%s' %s '%s'.", __want, #op, __seen);	\
		_metadata->failed = true;				\
		_metadata->trigger = true;				\
	}								\
} while (0); __HARNESS_HANDLER(is_assert)

#define ASSERT_EQ(want, seen)	__EXPECT(want, #want, seen, #seen, ==, 1)
#define ASSERT_NE(want, seen)	__EXPECT(want, #want, seen, #seen, !=, 1)
#define ASSERT_LT(want, seen)	__EXPECT(want, #want, seen, #seen, <, 1)
#define ASSERT_LE(want, seen)	__EXPECT(want, #want, seen, #seen, <=, 1)
#define ASSERT_GT(want, seen)	__EXPECT(want, #want, seen, #seen, >, 1)
#define ASSERT_GE(want, seen)	__EXPECT(want, #want, seen, #seen, >=, 1)
#define ASSERT_TRUE(seen)	__EXPECT(0, "0", seen, #seen, !=, 1)
#define ASSERT_FALSE(seen)	__EXPECT(0, "0", seen, #seen, ==, 1)
#define ASSERT_STREQ(want, seen)	__EXPECT_STR(want, seen, ==, 1)
#define ASSERT_STRNE(want, seen)	__EXPECT_STR(want, seen, !=, 1)
#define EXPECT_EQ(want, seen)	__EXPECT(want, #want, seen, #seen, ==, 0)
#define EXPECT_NE(want, seen)	__EXPECT(want, #want, seen, #seen, !=, 0)
#define EXPECT_LT(want, seen)	__EXPECT(want, #want, seen, #seen, <, 0)
#define EXPECT_LE(want, seen)	__EXPECT(want, #want, seen, #seen, <=, 0)
#define EXPECT_GT(want, seen)	__EXPECT(want, #want, seen, #seen, >, 0)
#define EXPECT_GE(want, seen)	__EXPECT(want, #want, seen, #seen, >=, 0)
#define EXPECT_TRUE(seen)	__EXPECT(0, "0", seen, #seen, !=, 0)
#define EXPECT_FALSE(seen)	__EXPECT(0, "0", seen, #seen, ==, 0)
#define EXPECT_STREQ(want, seen)	__EXPECT_STR(want, seen, ==, 0)
#define EXPECT_STRNE(want, seen)	__EXPECT_STR(want, seen, !=, 0)

#endif
