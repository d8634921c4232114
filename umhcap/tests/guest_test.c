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
	EXPECT_NE(NULL, strstr(o.std, "modprobe: ceiling exceeds what "));
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
 * Start "umhcap trace --count @count" with its stdout on *@fd, and wait
 * until it has enabled the event in its instance: a helper started from
 * then on is in its buffer, whether or not umhcap has looked yet.
 * Returns -1 if umhcap exits first or has not enabled it within 20 s (a
 * test that went on would wait for an event that was never recorded).
 */
static pid_t start_trace_count(int *fd, const char *count)
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
		execl(UMHCAP, UMHCAP, "trace", "--count", count, NULL);
		_exit(127);
	}
	close(outp[1]);
	*fd = outp[0];
	for (i = 0; i < 2000; i++) {
		if (!read_file(TRACE_INSTANCE "/events/umh/umh_exec/enable",
			       enable, sizeof(enable)) && enable[0] == '1')
			return pid;
		if (waitpid(pid, NULL, WNOHANG)) {
			close(*fd);
			return -1;
		}
		usleep(10000);
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	close(*fd);
	return -1;
}

static pid_t start_trace(int *fd)
{
	return start_trace_count(fd, "1");
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

/*
 * trace_pipe_raw can read 0 while records are still to come: the buffer
 * holds data (a discarded event's time stamp) but no record yet.  Once,
 * umhcap took that for the end and exited with nothing printed.  Here
 * every CPU's trace_pipe_raw of the instance umhcap will reuse is covered
 * by an empty tracefs file, which reads 0 every time: umhcap must keep
 * waiting until it is told to stop.
 */
#define EMPTY_TRACEFS_FILE	TRACE_INSTANCE "/set_event_pid"

FIXTURE(empty_reads) {
	int ncpus;	/* per_cpu/cpuN files covered, 0..ncpus-1 */
	bool made;	/* the instance is ours to remove */
};

static void pipe_raw_path(char *buf, size_t size, int cpu)
{
	snprintf(buf, size, TRACE_INSTANCE "/per_cpu/cpu%d/trace_pipe_raw",
		 cpu);
}

FIXTURE_SETUP(empty_reads)
{
	char path[PATH_MAX];

	self->ncpus = 0;
	self->made = !mkdir(TRACE_INSTANCE, 0700);
	ASSERT_TRUE(self->made) {
		TH_LOG("cannot create %s: %s", TRACE_INSTANCE,
		       strerror(errno));
	}
	for (;;) {
		pipe_raw_path(path, sizeof(path), self->ncpus);
		if (access(path, F_OK))
			break;
		ASSERT_EQ(0, mount(EMPTY_TRACEFS_FILE, path, NULL, MS_BIND,
				   NULL));
		self->ncpus++;
	}
	ASSERT_LT(0, self->ncpus);
}

FIXTURE_TEARDOWN(empty_reads)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; i < self->ncpus; i++) {
		pipe_raw_path(path, sizeof(path), i);
		EXPECT_EQ(0, umount(path));
	}
	if (self->made)
		EXPECT_EQ(0, rmdir(TRACE_INSTANCE));
}

TEST_F(empty_reads, trace_waits_through_them)
{
	char buf[4096] = "";
	int fd, status;
	pid_t pid, ended;

	pid = start_trace(&fd);
	ASSERT_LT(0, pid);
	/* Several of umhcap's 100 ms polls, each reading 0 on every CPU. */
	usleep(700000);
	ended = waitpid(pid, &status, WNOHANG);
	EXPECT_EQ(0, ended) {
		TH_LOG("umhcap trace ended on a read of 0 (status %#x)",
		       status);
	}
	if (!ended) {
		ASSERT_EQ(0, kill(pid, SIGTERM));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	}
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	drain(fd, buf, sizeof(buf));
	close(fd);
	EXPECT_STREQ("", buf);
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

/* ---- learn: the kernel's record of what helpers use ---- */

#define LEARN_DIR	"/tmp/umhcap-learn"
#define LEARN_HELPER	LEARN_DIR "/modprobe"
#define LOCKED		LEARN_DIR "/locked"
#define CAP_BIT(cap)	(1ULL << (cap))

static unsigned long long read_started(const char *purpose)
{
	char path[PATH_MAX], text[64];
	unsigned long long n;

	if (purpose)
		snprintf(path, sizeof(path), UMH_DIR "/%s/started", purpose);
	else
		snprintf(path, sizeof(path), UMH_DIR "/started");
	if (read_file(path, text, sizeof(text)) || sscanf(text, "%llu", &n) != 1)
		return ~0ULL;
	return n;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0644);
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = write(fd, text, strlen(text));
	close(fd);
	return len == (ssize_t)strlen(text) ? 0 : -EIO;
}

/*
 * A modprobe helper that needs CAP_DAC_OVERRIDE: umh_helper, through a
 * link, with an attempt to open a file of mode 0 for writing.
 */
static int learn_setup(void)
{
	mkdir(LEARN_DIR, 0755);
	unlink(LEARN_HELPER);
	if (symlink("/tests/umh/umh_helper", LEARN_HELPER))
		return -errno;
	if (write_file(LOCKED, "") || chmod(LOCKED, 0))
		return -1;
	return write_file(LEARN_HELPER ".try", LOCKED "\tx\n");
}

/* The last line of @file, in @buf. */
static int last_line(const char *file, char *buf, size_t size)
{
	char all[16384], *nl;

	if (read_file(file, all, sizeof(all)))
		return -1;
	nl = all + strlen(all);
	if (nl > all && nl[-1] == '\n')
		*--nl = '\0';
	nl = strrchr(all, '\n');
	snprintf(buf, size, "%s", nl ? nl + 1 : all);
	return 0;
}

/*
 * Point kernel.modprobe at our helper for one mount of an unknown
 * filesystem type: the kernel starts it and waits for it to end.
 * Returns the bounding set it recorded, or ~0 if it did not run.
 */
static unsigned long long run_learn_helper(const char *fstype)
{
	char old[PATH_MAX] = "", line[1024], *bnd;
	unsigned long long set;

	/* Only a line this run writes counts. */
	unlink(LEARN_HELPER ".log");
	if (read_file("/proc/sys/kernel/modprobe", old, sizeof(old)) ||
	    write_file("/proc/sys/kernel/modprobe", LEARN_HELPER))
		return ~0ULL;
	mount("none", "/", fstype, 0, NULL);
	write_file("/proc/sys/kernel/modprobe", old);
	if (last_line(LEARN_HELPER ".log", line, sizeof(line)))
		return ~0ULL;
	bnd = strstr(line, " bnd=");
	if (!bnd || sscanf(bnd, " bnd=%llx", &set) != 1)
		return ~0ULL;
	return set;
}

/* The errno of the helper's last attempt on LOCKED, or -1. */
static int last_tried(void)
{
	char line[256], *tab;

	if (last_line(LEARN_HELPER ".tried", line, sizeof(line)))
		return -1;
	tab = strrchr(line, '\t');
	return tab ? atoi(tab + 1) : -1;
}

/* The text from "@purpose: " up to the next purpose's line. */
static void section(const char *out, const char *purpose, char *buf,
		    size_t size)
{
	char head[64];
	const char *s, *e;

	snprintf(head, sizeof(head), "\n%s: ", purpose);
	s = strstr(out, head);
	if (!s) {
		buf[0] = '\0';
		return;
	}
	s++;
	for (e = strchr(s, '\n'); e && e[1] == ' '; e = strchr(e + 1, '\n'))
		;
	snprintf(buf, size, "%.*s", e ? (int)(e - s) : (int)strlen(s), s);
}

/*
 * A real modprobe helper runs: the kernel counts it, records what it
 * used, and umhcap learn shows both.
 */
TEST(learn_after_a_modprobe_helper)
{
	unsigned long long before, after, all_before, used, ceiling, bnd;
	char sec[1024], want[256];
	struct out o;
	int tried;

	ASSERT_EQ(0, learn_setup());
	before = read_started("modprobe");
	all_before = read_started(NULL);
	ASSERT_NE(~0ULL, before);
	ceiling = read_mask(NULL, "bset") & read_mask("modprobe", "bset");

	bnd = run_learn_helper("umhcap-guest-learn");
	ASSERT_NE(~0ULL, bnd) {
		TH_LOG("the modprobe helper did not run");
	}
	EXPECT_EQ(ceiling, bnd);
	after = read_started("modprobe");
	EXPECT_EQ(before + 1, after);
	EXPECT_LE(all_before + 1, read_started(NULL));
	used = read_mask("modprobe", "used");
	/* It needed CAP_DAC_OVERRIDE: got it and used it, or was refused. */
	tried = last_tried();
	if (ceiling & CAP_BIT(CAP_DAC_OVERRIDE)) {
		EXPECT_EQ(0, tried);
		EXPECT_NE(0ULL, used & CAP_BIT(CAP_DAC_OVERRIDE));
	} else {
		EXPECT_EQ(EACCES, tried);
	}
	EXPECT_EQ(used, used & read_mask(NULL, "used"));

	ASSERT_EQ(0, umhcap_run(&o, -1, "learn", NULL));
	ASSERT_EQ(0, o.status) {
		TH_LOG("stderr: %s", o.err);
	}
	TH_LOG("umhcap learn:\n%s", o.std);
	section(o.std, "modprobe", sec, sizeof(sec));
	snprintf(want, sizeof(want), "modprobe: %llu helper%s started since boot\n  used:        ",
		 after, after == 1 ? "" : "s");
	EXPECT_EQ(0, strncmp(sec, want, strlen(want))) {
		TH_LOG("want \"%s\" in:\n%s", want, o.std);
	}
	if (used & CAP_BIT(CAP_DAC_OVERRIDE))
		EXPECT_NE(NULL, strstr(sec, "cap_dac_override"));
	EXPECT_NE(NULL, strstr(sec, "\n  allowed:     "));
	EXPECT_NE(NULL, strstr(sec, "\n  never used:  "));

	ASSERT_EQ(0, umhcap_run(&o, -1, "learn", "--json", NULL));
	ASSERT_EQ(0, o.status);
	EXPECT_EQ('\n', o.std[strlen(o.std) - 1]);
	snprintf(want, sizeof(want),
		 "{\"purpose\":\"modprobe\",\"started\":%llu,\"idle\":false,\"used\":\"0x%llx\",",
		 after, used);
	EXPECT_NE(NULL, strstr(o.std, want)) {
		TH_LOG("want %s in:\n%s", want, o.std);
	}
}

static const char *const learn_purposes[] = {
	"modprobe", "coredump", "uevent", "request_key", "release_agent",
	"power", "initrd", "other",
};

/*
 * learn --apply: -n writes nothing; then every purpose that ran is
 * narrowed to what it used, the others and the global bound stay, and
 * the modprobe helper runs again with exactly what it learned.
 */
TEST(learn_apply_narrows_what_ran)
{
	unsigned long long bset[8], inh[8], used[8], started[8], gbset, bnd;
	char before[4096], after[4096];
	struct out o;
	int i, ran = 0;

	snapshot(before, sizeof(before));
	ASSERT_EQ(0, umhcap_run(&o, -1, "learn", "--apply", "-n", NULL));
	EXPECT_EQ(0, o.status) {
		TH_LOG("stderr: %s", o.err);
	}
	EXPECT_NE(NULL, strstr(o.std, "-n, nothing written: "));
	snapshot(after, sizeof(after));
	ASSERT_STREQ(before, after);

	gbset = read_mask(NULL, "bset");
	for (i = 0; i < 8; i++) {
		bset[i] = read_mask(learn_purposes[i], "bset");
		inh[i] = read_mask(learn_purposes[i], "inheritable");
		used[i] = read_mask(learn_purposes[i], "used");
		started[i] = read_started(learn_purposes[i]);
		ASSERT_NE(~0ULL, started[i]);
		ran += started[i] > 0;
	}
	ASSERT_LT(0, ran);
	ASSERT_NE(0ULL, started[0]);
	ASSERT_EQ(0, umhcap_run(&o, -1, "learn", "--apply", NULL));
	ASSERT_EQ(0, o.status) {
		TH_LOG("stdout: %s\nstderr: %s", o.std, o.err);
	}
	for (i = 0; i < 8; i++) {
		const char *p = learn_purposes[i];

		if (started[i]) {
			EXPECT_EQ(bset[i] & used[i], read_mask(p, "bset"))
				TH_LOG("%s bset", p);
			EXPECT_EQ(inh[i] & used[i], read_mask(p, "inheritable"))
				TH_LOG("%s inheritable", p);
		} else {
			EXPECT_EQ(bset[i], read_mask(p, "bset")) TH_LOG("%s", p);
			EXPECT_EQ(inh[i], read_mask(p, "inheritable"))
				TH_LOG("%s", p);
			EXPECT_NE(NULL, strstr(o.std, p));
		}
	}
	EXPECT_EQ(gbset, read_mask(NULL, "bset"));

	/* The helper still works, with exactly what it learned. */
	bnd = run_learn_helper("umhcap-guest-learn-again");
	EXPECT_EQ(gbset & bset[0] & used[0], bnd);
	EXPECT_EQ(bnd & CAP_BIT(CAP_DAC_OVERRIDE) ? 0 : EACCES, last_tried());

	/* Nothing left that a purpose's helpers never used. */
	ASSERT_EQ(0, umhcap_run(&o, -1, "check", NULL));
	EXPECT_EQ(NULL, strstr(o.std, "never used since boot")) {
		TH_LOG("check: %s", o.std);
	}
	EXPECT_EQ(NULL, strstr(o.std, "keeps no record"));
	/* The state it leads to, for the next boot, is the state now. */
	ASSERT_EQ(0, umhcap_run(&o, -1, "export", "--learned", "--sysctl",
				NULL));
	EXPECT_EQ(0, o.status);
	memcpy(before, o.std, sizeof(before) - 1);
	before[sizeof(before) - 1] = '\0';
	ASSERT_EQ(0, umhcap_run(&o, -1, "export", "--sysctl", NULL));
	EXPECT_STREQ(before, o.std);
}

/*
 * A helper short of a capability it used before: umhcap trace shows the
 * refused check, and check says the bound no longer allows what was used.
 */
TEST(trace_shows_a_refused_check)
{
	char buf[4096] = "";
	struct out o;
	int fd, status;
	pid_t pid;

	ASSERT_NE(0ULL, read_mask("modprobe", "used") &
			CAP_BIT(CAP_DAC_OVERRIDE)) {
		TH_LOG("the modprobe helper of learn_after_a_modprobe_helper did not use cap_dac_override");
	}
	ASSERT_EQ(0, umhcap_run(&o, -1, "drop", "-p", "modprobe",
				"cap_dac_override", NULL));
	ASSERT_EQ(0, o.status);
	pid = start_trace_count(&fd, "100");
	ASSERT_LT(0, pid);
	EXPECT_EQ(0ULL, run_learn_helper("umhcap-guest-refused") &
			CAP_BIT(CAP_DAC_OVERRIDE));
	EXPECT_EQ(EACCES, last_tried());
	/* What is in the buffer is printed before umhcap stops. */
	kill(pid, SIGINT);
	drain(fd, buf, sizeof(buf));
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_NE(NULL, strstr(buf, " modprobe: " LEARN_HELPER " -q -- fs-umhcap-guest-refused ")) {
		TH_LOG("trace printed: %s", buf);
	}
	EXPECT_NE(NULL, strstr(buf, " modprobe: refused cap_dac_override to pid=")) {
		TH_LOG("trace printed: %s", buf);
	}
	EXPECT_NE(NULL, strstr(buf, " comm=modprobe uid=0\n"));

	ASSERT_EQ(0, umhcap_run(&o, -1, "check", NULL));
	EXPECT_EQ(1, o.status);
	EXPECT_NE(NULL, strstr(o.std, "modprobe: its helpers used capabilities since boot that the bound no longer allows: cap_dac_override")) {
		TH_LOG("check: %s", o.std);
	}
}

TEST_HARNESS_MAIN
