// SPDX-License-Identifier: GPL-2.0
/*
 * umhcap on an unpatched 6.12 kernel, in the test guest: only the global
 * bounds exist, and umhcap must say so rather than fail or guess.
 */

#include "guest.h"

TEST(kernel_is_unpatched)
{
	ASSERT_EQ(0, access(UMH_DIR "/bset", R_OK));
	ASSERT_NE(0, access(UMH_DIR "/modprobe", F_OK));
}

TEST(show_says_per_purpose_is_unavailable)
{
	struct out o;

	ASSERT_EQ(0, umhcap_run(&o, -1, "show", NULL));
	EXPECT_EQ(0, o.status);
	EXPECT_NE(NULL, strstr(o.std, "all (global"));
	EXPECT_NE(NULL, strstr(o.std, "not available")) {
		TH_LOG("stdout: %s", o.std);
	}
}

TEST(purpose_commands_refused)
{
	char before[4096], after[4096];
	struct out o;

	snapshot(before, sizeof(before));
	ASSERT_EQ(0, umhcap_run(&o, -1, "drop", "-p", "coredump",
				"cap_sys_module", NULL));
	EXPECT_EQ(2, o.status);
	snapshot(after, sizeof(after));
	EXPECT_STREQ(before, after);
}

TEST(global_drop_works)
{
	struct out o;

	ASSERT_EQ(0, umhcap_run(&o, -1, "drop", "-p", "all", "cap_sys_rawio",
				NULL));
	EXPECT_EQ(0, o.status) {
		TH_LOG("stderr: %s", o.err);
	}
	EXPECT_EQ(0ULL, read_mask(NULL, "bset") & (1ULL << 17));
	EXPECT_EQ(0ULL, read_mask(NULL, "inheritable") & (1ULL << 17));
}

TEST(trace_without_events_is_an_error)
{
	struct out o;

	ASSERT_EQ(0, umhcap_run(&o, -1, "trace", NULL));
	EXPECT_EQ(2, o.status);
	EXPECT_NE(NULL, strstr(o.err, "umh")) {
		TH_LOG("stderr: %s", o.err);
	}
}

/* No record of what helpers use: learn says so and exits 2. */
TEST(learn_needs_the_record)
{
	char before[4096], after[4096];
	struct out o;

	ASSERT_NE(0, access(UMH_DIR "/used", F_OK));
	snapshot(before, sizeof(before));
	ASSERT_EQ(0, umhcap_run(&o, -1, "learn", NULL));
	EXPECT_EQ(2, o.status);
	EXPECT_NE(NULL, strstr(o.err, "keeps no record of what usermode helpers use")) {
		TH_LOG("stderr: %s", o.err);
	}
	EXPECT_STREQ("", o.std);
	ASSERT_EQ(0, umhcap_run(&o, -1, "learn", "--apply", NULL));
	EXPECT_EQ(2, o.status);
	ASSERT_EQ(0, umhcap_run(&o, -1, "export", "--learned", "--cmdline",
				NULL));
	EXPECT_EQ(2, o.status);
	EXPECT_NE(NULL, strstr(o.err, "keeps no record"));
	snapshot(after, sizeof(after));
	EXPECT_STREQ(before, after);
}

/* check works as before, and notes that the record is missing. */
TEST(check_notes_missing_record)
{
	struct out o;

	ASSERT_EQ(0, umhcap_run(&o, -1, "check", NULL));
	EXPECT_TRUE(o.status == 0 || o.status == 1) {
		TH_LOG("stderr: %s", o.err);
	}
	EXPECT_NE(NULL, strstr(o.std, "keeps no record of what helpers use"));
	EXPECT_NE(NULL, strstr(o.std, "per-purpose bounds are not available"));
}

TEST_HARNESS_MAIN
