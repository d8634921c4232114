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

#define TRACE_INSTANCE	"/sys/kernel/tracing/instances/umhcap"

/*
 * Start "umhcap trace --count 1" with its stdout on *@fd, and wait until
 * it has enabled the event in its instance: a helper started from then
 * on is in its buffer, whether or not umhcap has looked yet.
 */
static pid_t start_trace(int *fd)
{
	char enable[8] = "";
	int outp[2], i;
	pid_t pid;

	if (pipe(outp))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(outp[1], 1);
		execl(UMHCAP, UMHCAP, "trace", "--count", "1", NULL);
		_exit(127);
	}
	close(outp[1]);
	*fd = outp[0];
	for (i = 0; i < 500; i++) {
		if (!read_file(TRACE_INSTANCE "/events/umh/umh_exec/enable",
			       enable, sizeof(enable)) && enable[0] == '1')
			break;
		usleep(10000);
	}
	return pid;
}

/* umhcap trace sees a real modprobe helper, by name and capabilities. */
TEST(trace_follows_a_helper)
{
	char buf[4096] = "";
	int fd, status;
	pid_t pid;

	pid = start_trace(&fd);
	ASSERT_LT(0, pid);
	EXPECT_NE(0, mount("none", "/", "umhcap-guest-nosuchfs", 0, NULL));
	drain(fd, buf, sizeof(buf));
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_NE(NULL, strstr(buf, "modprobe")) {
		TH_LOG("trace printed: %s", buf);
	}
	EXPECT_NE(NULL, strstr(buf, "fs-umhcap-guest-nosuchfs"));
	EXPECT_NE(NULL, strstr(buf, "guest_test"));
	/* The instance is gone once umhcap exits. */
	EXPECT_NE(0, access(TRACE_INSTANCE, F_OK));
}

#define FORGED_COMM	"a pid=1 uid=0"
#define FORGED_UID	4321

/*
 * In a child named FORGED_COMM, running as FORGED_UID with CAP_SYS_ADMIN
 * kept, ask for a filesystem type that does not exist: the kernel starts
 * modprobe for it.  Exits 0 if the mount failed as it should.
 */
static void forged_trigger(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (prctl(PR_SET_NAME, FORGED_COMM, 0, 0, 0) ||
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
	    setresgid(FORGED_UID, FORGED_UID, FORGED_UID) ||
	    setresuid(FORGED_UID, FORGED_UID, FORGED_UID) ||
	    syscall(SYS_capget, &hdr, data))
		_exit(1);
	/* The uid change cleared the effective set; mount needs it back. */
	data[0].effective |= 1U << CAP_SYS_ADMIN;
	if (syscall(SYS_capset, &hdr, data))
		_exit(2);
	if (!mount("none", "/", "umhcap-guest-forged", 0, NULL))
		_exit(3);
	_exit(0);
}

/*
 * A trigger whose comm spells out fields: umhcap shows its real pid and
 * uid, and the forged text only escaped, inside comm, on one line.
 */
TEST(trace_is_not_forged)
{
	char buf[4096] = "", want[128];
	int fd, status;
	pid_t pid, child;

	pid = start_trace(&fd);
	ASSERT_LT(0, pid);
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		forged_trigger();
	ASSERT_EQ(child, waitpid(child, &status, 0));
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		ASSERT_EQ(0, status) {
			TH_LOG("the forged trigger failed to start a helper");
		}
	}
	drain(fd, buf, sizeof(buf));
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_NE(NULL, strstr(buf, " modprobe: ")) {
		TH_LOG("trace printed: %s", buf);
	}
	EXPECT_NE(NULL, strstr(buf, "fs-umhcap-guest-forged"));
	snprintf(want, sizeof(want),
		 " (trigger pid=%d comm=a\\x20pid=1\\x20uid=0 uid=%d) ",
		 child, FORGED_UID);
	EXPECT_NE(NULL, strstr(buf, want)) {
		TH_LOG("want \"%s\" in: %s", want, buf);
	}
	EXPECT_EQ(NULL, strstr(buf, FORGED_COMM));
	/* One event, one line. */
	EXPECT_EQ(strchr(buf, '\n'), buf + strlen(buf) - 1);
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
