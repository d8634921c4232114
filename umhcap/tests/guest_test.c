// SPDX-License-Identifier: GPL-2.0
/*
 * umhcap on a patched kernel, in the test guest: the real sysctl files,
 * the real permission checks, the real trace event.
 */

#include "guest.h"

TEST(show_names_every_purpose)
{
	static const char * const purposes[] = {
		"modprobe:", "coredump:", "uevent:", "request_key:",
		"release_agent:", "power:", "initrd:", "other:",
	};
	struct out o;
	int i;

	ASSERT_EQ(0, umhcap_run(&o, -1, "show", NULL));
	ASSERT_EQ(0, o.status);
	EXPECT_NE(NULL, strstr(o.std, "all (global"));
	for (i = 0; i < 8; i++)
		EXPECT_NE(NULL, strstr(o.std, purposes[i]));
	EXPECT_EQ(NULL, strstr(o.std, "not available"));
}

TEST(drop_narrows_one_purpose)
{
	unsigned long long before = read_mask("uevent", "bset");
	struct out o;

	ASSERT_EQ(0, umhcap_run(&o, -1, "drop", "-p", "coredump",
				"cap_sys_module", NULL));
	ASSERT_EQ(0, o.status) {
		TH_LOG("stderr: %s", o.err);
	}
	EXPECT_EQ(0ULL, read_mask("coredump", "bset") & (1ULL << 16));
	EXPECT_EQ(0ULL, read_mask("coredump", "inheritable") & (1ULL << 16));
	EXPECT_EQ(before, read_mask("uevent", "bset"));
	EXPECT_NE(0ULL, read_mask(NULL, "bset") & (1ULL << 16));

	ASSERT_EQ(0, umhcap_run(&o, -1, "show", "coredump", NULL));
	EXPECT_NE(NULL, strstr(o.std, "cap_sys_module"));
}

TEST(keep_bounds_exactly)
{
	struct out o;

	ASSERT_EQ(0, umhcap_run(&o, -1, "keep", "-p", "release_agent",
				"cap_chown", "cap_kill", NULL));
	ASSERT_EQ(0, o.status);
	EXPECT_EQ(0x21ULL, read_mask("release_agent", "bset"));
	EXPECT_EQ(0x21ULL, read_mask("release_agent", "inheritable"));
	/* A capability already gone cannot be kept: refused, unchanged. */
	ASSERT_EQ(0, umhcap_run(&o, -1, "keep", "-p", "release_agent",
				"cap_setuid", NULL));
	EXPECT_EQ(2, o.status);
	EXPECT_EQ(0x21ULL, read_mask("release_agent", "bset"));
}

TEST(dry_run_writes_nothing)
{
	char before[4096], after[4096];
	struct out o;

	snapshot(before, sizeof(before));
	ASSERT_EQ(0, umhcap_run(&o, -1, "drop", "-n", "-p", "uevent",
				"cap_net_admin", NULL));
	EXPECT_EQ(0, o.status);
	EXPECT_NE(NULL, strstr(o.std, "uevent/bset"));
	snapshot(after, sizeof(after));
	EXPECT_STREQ(before, after);
}

TEST(bad_input_changes_nothing)
{
	char before[4096], after[4096];
	struct out o;

	snapshot(before, sizeof(before));
	ASSERT_EQ(0, umhcap_run(&o, -1, "drop", "-p", "nosuch",
				"cap_chown", NULL));
	EXPECT_EQ(2, o.status);
	EXPECT_NE(NULL, strstr(o.err, "nosuch"));
	ASSERT_EQ(0, umhcap_run(&o, -1, "drop", "cap_chown", "cap_nosuch",
				NULL));
	EXPECT_EQ(2, o.status);
	EXPECT_NE(NULL, strstr(o.err, "cap_nosuch"));
	snapshot(after, sizeof(after));
	EXPECT_STREQ(before, after);
}

TEST(refusal_is_explained)
{
	char before[4096], after[4096];
	struct out o;

	snapshot(before, sizeof(before));
	/* Root without CAP_SETPCAP in its bounding set: the kernel says no. */
	ASSERT_EQ(0, umhcap_run(&o, 8 /* CAP_SETPCAP */, "drop", "-p",
				"power", "cap_sys_rawio", NULL));
	EXPECT_EQ(2, o.status);
	EXPECT_NE(NULL, strcasestr(o.err, "cap_setpcap")) {
		TH_LOG("stderr: %s", o.err);
	}
	ASSERT_EQ(0, umhcap_run(&o, 16 /* CAP_SYS_MODULE */, "drop", "-p",
				"power", "cap_sys_rawio", NULL));
	EXPECT_EQ(2, o.status);
	EXPECT_NE(NULL, strcasestr(o.err, "cap_sys_module"));
	snapshot(after, sizeof(after));
	EXPECT_STREQ(before, after);
}

TEST(check_reports_findings)
{
	struct out o;

	ASSERT_EQ(0, umhcap_run(&o, -1, "check", NULL));
	EXPECT_EQ(1, o.status);
	EXPECT_NE(NULL, strstr(o.std, "modprobe: ceiling exceeds policy"));
}

TEST(export_reproduces_state)
{
	char want[128];
	struct out o;

	ASSERT_EQ(0, umhcap_run(&o, -1, "export", "--sysctl", NULL));
	ASSERT_EQ(0, o.status);
	snprintf(want, sizeof(want),
		 "kernel.usermodehelper.release_agent.bset = %llu\t%llu\n",
		 read_mask("release_agent", "bset") & 0xffffffffULL,
		 read_mask("release_agent", "bset") >> 32);
	EXPECT_NE(NULL, strstr(o.std, want)) {
		TH_LOG("want %s in:\n%s", want, o.std);
	}
	ASSERT_EQ(0, umhcap_run(&o, -1, "export", "--cmdline", NULL));
	ASSERT_EQ(0, o.status);
	EXPECT_NE(NULL, strstr(o.std, "release_agent:0x21,"));
	EXPECT_NE(NULL, strstr(o.std, "usermodehelper.inheritable="));
}

/* umhcap trace sees a real modprobe helper, by name and capabilities. */
TEST(trace_follows_a_helper)
{
	char buf[4096] = "";
	int outp[2], status;
	struct out o;
	pid_t pid;
	int i;

	ASSERT_EQ(0, pipe(outp));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(outp[1], 1);
		execl(UMHCAP, UMHCAP, "trace", "--count", "1", NULL);
		_exit(127);
	}
	close(outp[1]);
	/* Wait for umhcap to set up its tracefs instance. */
	for (i = 0; i < 500; i++) {
		if (!access("/sys/kernel/tracing/instances/umhcap/trace_pipe",
			    R_OK) && i > 20)
			break;
		usleep(10000);
	}
	ASSERT_EQ(0, umhcap_run(&o, -1, "show", NULL));
	EXPECT_NE(0, mount("none", "/", "umhcap-guest-nosuchfs", 0, NULL));
	drain(outp[0], buf, sizeof(buf));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_NE(NULL, strstr(buf, "modprobe")) {
		TH_LOG("trace printed: %s", buf);
	}
	EXPECT_NE(NULL, strstr(buf, "fs-umhcap-guest-nosuchfs"));
	EXPECT_NE(NULL, strstr(buf, "guest_test"));
	/* The instance is gone once umhcap exits. */
	EXPECT_NE(0, access("/sys/kernel/tracing/instances/umhcap", F_OK));
}

TEST(missing_tracefs_is_an_error)
{
	struct out o;

	ASSERT_EQ(0, mkdir("/tmp/umhcap-empty", 0755));
	ASSERT_EQ(0, umhcap_run(&o, -1, "--root", "/tmp/umhcap-empty",
				"trace", NULL));
	EXPECT_EQ(2, o.status);
	EXPECT_NE(0UL, strlen(o.err));
}

TEST_HARNESS_MAIN
