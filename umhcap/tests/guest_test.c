// SPDX-License-Identifier: GPL-2.0
/*
 * umhcap on a patched kernel, in the test guest: the real sysctl files,
 * the real permission checks, the real trace event.
 */

#include "guest.h"

TEST(show_names_every_purpose)
{
	const struct umh_purpose_info *u;
	char want[64];
	struct out o;

	ASSERT_EQ(0, umhcap_run(&o, -1, "show", NULL));
	ASSERT_EQ(0, o.status);
	EXPECT_NE(NULL, strstr(o.std, "all (global"));
	umh_for_each_purpose(u) {
		snprintf(want, sizeof(want), "%s:", u->name);
		EXPECT_NE(NULL, strstr(o.std, want)) {
			TH_LOG("no %s in:\n%s", want, o.std);
		}
	}
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
	ASSERT_EQ(0, umhcap_run(&o, -1, "drop", "-p", "all", "cap_chown",
				"cap_nosuch", NULL));
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
	const char *at;
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
	/* The purposes after it may be open, and left out. */
	at = strstr(o.std, "release_agent:0x21");
	ASSERT_NE(NULL, at) {
		TH_LOG("%s", o.std);
	}
	EXPECT_TRUE(at[18] == ',' || at[18] == ' ');
	EXPECT_NE(NULL, strstr(o.std, "usermodehelper.inheritable="));
}

#define INSTANCES	"/sys/kernel/tracing/instances"
#define NAME_LEN	(NAME_MAX + 1)
#define MAX_INSTANCES	32

/*
 * umhcap trace, started by trace_start(): its pid, its stdout and stderr,
 * and the instance it made, found as the one that was not there before.
 */
struct tracer {
	pid_t pid;
	int out, err;
	char inst[PATH_MAX];	/* INSTANCES/NAME, or "" */
	char before[MAX_INSTANCES][NAME_LEN];
	int nbefore;
};

/* The names in INSTANCES; how many, or -1. */
static int list_instances(char names[][NAME_LEN], int max)
{
	struct dirent *d;
	DIR *dp = opendir(INSTANCES);
	int n = 0;

	if (!dp)
		return -1;
	while (n < max && (d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			snprintf(names[n++], NAME_LEN, "%s", d->d_name);
	closedir(dp);
	return n;
}

/* Whether the instance umhcap made is there now, in tr->inst. */
static bool find_instance(struct tracer *tr)
{
	char now[MAX_INSTANCES][NAME_LEN];
	int n = list_instances(now, MAX_INSTANCES), i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < tr->nbefore; j++)
			if (!strcmp(now[i], tr->before[j]))
				break;
		if (j == tr->nbefore) {
			snprintf(tr->inst, sizeof(tr->inst), INSTANCES "/%s",
				 now[i]);
			return true;
		}
	}
	return false;
}

/* As umhcap names its instances: "umhcap-" and 16 hex digits. */
static bool instance_name_ok(const char *path)
{
	const char *name = strrchr(path, '/') + 1;
	size_t i;

	if (strlen(name) != 23 || strncmp(name, "umhcap-", 7))
		return false;
	for (i = 7; i < 23; i++)
		if (!strchr("0123456789abcdef", name[i]))
			return false;
	return true;
}

static void instance_file(char *buf, size_t size, const struct tracer *tr,
			  const char *file)
{
	snprintf(buf, size, "%s/%s", tr->inst, file);
}

static bool is_mkdir(unsigned long long nr)
{
#ifdef __NR_mkdir
	if (nr == __NR_mkdir)
		return true;
#endif
	return nr == __NR_mkdirat;
}

/*
 * Run the child, which stopped itself under PTRACE_TRACEME before its
 * exec, to the return of its first mkdir that succeeds, and leave it
 * stopped there.
 */
static int run_to_mkdir(pid_t pid)
{
	struct __ptrace_syscall_info info;
	unsigned long long nr = ~0ULL;
	int status, sig = 0;

	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD |
		   PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, 0, sig) ||
		    waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
			return -1;
		sig = 0;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
			/* A signal for it, not the exec's event stop. */
			if (!(status >> 16))
				sig = WSTOPSIG(status);
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info),
			   &info) <= 0)
			return -1;
		if (info.op == PTRACE_SYSCALL_INFO_ENTRY)
			nr = info.entry.nr;
		else if (info.op == PTRACE_SYSCALL_INFO_EXIT && is_mkdir(nr) &&
			 !info.exit.is_error)
			return 0;
	}
}

/* Whether umhcap has not exited yet; it is not waited for. */
static bool trace_running(const struct tracer *tr)
{
	siginfo_t info = { 0 };

	return !waitid(P_PID, tr->pid, &info, WEXITED | WNOHANG | WNOWAIT) &&
	       !info.si_pid;
}

/*
 * Whether umhcap has enabled umh_exec in its instance: a helper started
 * from then on is in its buffer, whether or not umhcap has looked yet.
 * Waits up to 20 s; false if umhcap exits first.
 */
static bool trace_enabled(struct tracer *tr)
{
	char path[PATH_MAX], enable[8] = "";
	int i;

	for (i = 0; i < 2000; i++) {
		if (tr->inst[0] || find_instance(tr)) {
			instance_file(path, sizeof(path), tr,
				      "events/umh/umh_exec/enable");
			if (!read_file(path, enable, sizeof(enable)) &&
			    enable[0] == '1')
				return true;
		}
		if (!trace_running(tr))
			return false;
		usleep(10000);
	}
	return false;
}

/*
 * Start "umhcap trace --count @count".  With @hold, return with umhcap
 * held under ptrace at the return of its mkdir of the instance, before
 * it enabled, opened or checked anything there, so that the test can
 * change the instance first; trace_release() lets it go.  Without, return
 * once trace_enabled().  Returns 0, or -1 (umhcap killed).
 */
static int trace_start(struct tracer *tr, const char *count, bool hold)
{
	int outp[2], errp[2];

	memset(tr, 0, sizeof(*tr));
	tr->nbefore = list_instances(tr->before, MAX_INSTANCES);
	if (tr->nbefore < 0 || pipe(outp) || pipe(errp))
		return -1;
	tr->pid = fork();
	if (tr->pid < 0)
		return -1;
	if (!tr->pid) {
		dup2(outp[1], 1);
		dup2(errp[1], 2);
		if (hold && (ptrace(PTRACE_TRACEME, 0, NULL, NULL) ||
			     raise(SIGSTOP)))
			_exit(126);
		execl(UMHCAP, UMHCAP, "trace", "--count", count, NULL);
		_exit(127);
	}
	close(outp[1]);
	close(errp[1]);
	tr->out = outp[0];
	tr->err = errp[0];
	if (hold ? !run_to_mkdir(tr->pid) && find_instance(tr) :
		   trace_enabled(tr))
		return 0;
	kill(tr->pid, SIGKILL);
	waitpid(tr->pid, NULL, 0);
	close(tr->out);
	close(tr->err);
	return -1;
}

static int trace_release(struct tracer *tr)
{
	return ptrace(PTRACE_DETACH, tr->pid, 0, 0);
}

/*
 * Wait up to @ms for umhcap to exit, killing it then; its stdout and
 * stderr in @o.
 */
static void trace_end(struct tracer *tr, int ms, struct out *o)
{
	int status = -1;

	for (; ms > 0 && trace_running(tr); ms -= 10)
		usleep(10000);
	if (ms <= 0)
		kill(tr->pid, SIGKILL);
	if (waitpid(tr->pid, &status, 0) != tr->pid)
		status = -1;
	o->status = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) :
							 -1;
	drain(tr->out, o->std, sizeof(o->std));
	drain(tr->err, o->err, sizeof(o->err));
	close(tr->out);
	close(tr->err);
}

/*
 * Trace while a mount of the filesystem type @fstype, which does not
 * exist, starts a modprobe helper: umhcap prints it and exits 0.
 */
static void trace_modprobe(struct __test_metadata *_metadata,
			   struct tracer *tr, struct out *o, const char *fstype)
{
	char want[64];

	ASSERT_EQ(0, trace_start(tr, "1", false));
	EXPECT_NE(0, mount("none", "/", fstype, 0, NULL));
	trace_end(tr, 20000, o);
	EXPECT_EQ(0, o->status);
	EXPECT_NE(NULL, strstr(o->std, " modprobe: ")) {
		TH_LOG("trace printed: %s", o->std);
	}
	snprintf(want, sizeof(want), " fs-%s ", fstype);
	EXPECT_NE(NULL, strstr(o->std, want));
}

/* umhcap trace sees a real modprobe helper, by name and capabilities. */
TEST(trace_follows_a_helper)
{
	struct tracer tr;
	struct out o;

	trace_modprobe(_metadata, &tr, &o, "umhcap-guest-nosuchfs");
	EXPECT_NE(NULL, strstr(o.std, "guest_test"));
	/* The instance is gone once umhcap exits. */
	EXPECT_NE(0, access(tr.inst, F_OK));
}

/*
 * Its instance has a name no helper can know before it exists: not
 * "umhcap", but "umhcap-" and 16 hex digits, new each time.
 */
TEST(trace_instance_name)
{
	char first[PATH_MAX];
	struct tracer tr;
	struct out o;

	ASSERT_EQ(0, trace_start(&tr, "1", false));
	EXPECT_TRUE(instance_name_ok(tr.inst)) {
		TH_LOG("umhcap's instance: %s", tr.inst);
	}
	snprintf(first, sizeof(first), "%s", tr.inst);
	ASSERT_EQ(0, kill(tr.pid, SIGTERM));
	trace_end(&tr, 20000, &o);
	EXPECT_EQ(0, o.status);
	EXPECT_NE(0, access(first, F_OK));
	ASSERT_EQ(0, trace_start(&tr, "1", false));
	EXPECT_TRUE(instance_name_ok(tr.inst));
	EXPECT_STRNE(first, tr.inst);
	ASSERT_EQ(0, kill(tr.pid, SIGTERM));
	trace_end(&tr, 20000, &o);
	EXPECT_EQ(0, o.status);
}

#define PREPARED	INSTANCES "/umhcap"

/*
 * What a helper, uid 0 without capabilities, can set up before umhcap
 * runs: an instance named "umhcap", as umhcap's once was, with tracing
 * off and umh_exec filtered to hide modprobe helpers.
 */
FIXTURE(prepared) {
	bool made;
};

FIXTURE_SETUP(prepared)
{
	rmdir(PREPARED);
	self->made = !mkdir(PREPARED, 0700);
	ASSERT_TRUE(self->made) {
		TH_LOG("cannot create %s: %s", PREPARED, strerror(errno));
	}
	ASSERT_EQ(0, write_file(PREPARED "/events/umh/umh_exec/filter",
				"purpose != \"modprobe\""));
	ASSERT_EQ(0, write_file(PREPARED "/events/umh/umh_exec/enable", "1"));
	ASSERT_EQ(0, write_file(PREPARED "/tracing_on", "0"));
}

FIXTURE_TEARDOWN(prepared)
{
	if (self->made)
		EXPECT_EQ(0, rmdir(PREPARED));
}

/* umhcap uses an instance of its own, and leaves that one alone. */
TEST_F(prepared, trace_ignores_it)
{
	char text[64] = "";
	struct tracer tr;
	struct out o;

	trace_modprobe(_metadata, &tr, &o, "umhcap-guest-prepared");
	EXPECT_STRNE(PREPARED, tr.inst);
	EXPECT_EQ(0, read_file(PREPARED "/tracing_on", text, sizeof(text)));
	EXPECT_STREQ("0\n", text);
}

/*
 * Were a helper to find umhcap's instance and turn its tracing off, umhcap
 * says so and fails; it does not wait in silence.  With @hold the change
 * comes first: umhcap is held at its mkdir, before it enabled, opened or
 * printed anything; without, it comes while umhcap traces.
 */
static void tracing_turned_off(struct __test_metadata *_metadata, bool hold)
{
	char path[PATH_MAX];
	struct tracer tr;
	struct out o;

	ASSERT_EQ(0, trace_start(&tr, "1", hold));
	instance_file(path, sizeof(path), &tr, "tracing_on");
	EXPECT_EQ(0, write_file(path, "0"));
	if (hold)
		ASSERT_EQ(0, trace_release(&tr));
	/* A helper that a silent umhcap would miss. */
	EXPECT_NE(0, mount("none", "/", "umhcap-guest-off", 0, NULL));
	trace_end(&tr, 20000, &o);
	EXPECT_EQ(2, o.status);
	EXPECT_STREQ("", o.std);
	EXPECT_NE(NULL, strstr(o.err, "/tracing_on holds \"0\", not \"1\"")) {
		TH_LOG("umhcap said: %s", o.err);
	}
	EXPECT_NE(0, access(tr.inst, F_OK)) {
		TH_LOG("%s is left; umhcap said: %s", tr.inst, o.err);
	}
}

TEST(trace_refuses_tracing_turned_off_first)
{
	tracing_turned_off(_metadata, true);
}

/* It looks again before each round of printing. */
TEST(trace_stops_when_tracing_is_turned_off)
{
	tracing_turned_off(_metadata, false);
}

/*
 * Whoever turns tracing off may keep tracing_on open, and tracefs will not
 * remove an instance with a file open (EBUSY).  Held for @hold_ms, about
 * what umhcap waits for it, the instance is still removed once let go;
 * held until umhcap has exited, it is left, and umhcap says why.
 */
static void held_open(struct __test_metadata *_metadata, int hold_ms)
{
	char path[PATH_MAX];
	struct tracer tr;
	struct out o;
	int fd;

	ASSERT_EQ(0, trace_start(&tr, "1", false));
	instance_file(path, sizeof(path), &tr, "tracing_on");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "0", 1));
	if (hold_ms) {
		usleep(hold_ms * 1000);
		close(fd);
	}
	trace_end(&tr, 20000, &o);
	if (!hold_ms)
		close(fd);
	EXPECT_EQ(2, o.status);
	EXPECT_NE(NULL, strstr(o.err, "/tracing_on holds \"0\", not \"1\""));
	if (hold_ms) {
		EXPECT_NE(0, access(tr.inst, F_OK)) {
			TH_LOG("%s is left; umhcap said: %s", tr.inst, o.err);
		}
		EXPECT_EQ(NULL, strstr(o.err, "cannot remove"));
		return;
	}
	EXPECT_EQ(0, access(tr.inst, F_OK));
	EXPECT_NE(NULL, strstr(o.err, ": Device or resource busy (a process holds one of its files open); remove it with rmdir\n")) {
		TH_LOG("umhcap said: %s", o.err);
	}
	EXPECT_EQ(0, rmdir(tr.inst));
}

TEST(trace_waits_for_a_file_held_open)
{
	held_open(_metadata, 1000);
}

TEST(trace_leaves_an_instance_held_open)
{
	held_open(_metadata, 0);
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
	char want[128], *buf;
	struct tracer tr;
	struct out o;
	pid_t child;
	int status;

	ASSERT_EQ(0, trace_start(&tr, "1", false));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		forged_trigger();
	ASSERT_EQ(child, waitpid(child, &status, 0));
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		kill(tr.pid, SIGTERM);
		trace_end(&tr, 20000, &o);
		ASSERT_EQ(0, status) {
			TH_LOG("the forged trigger failed to start a helper");
		}
	}
	trace_end(&tr, 20000, &o);
	buf = o.std;
	EXPECT_EQ(0, o.status);
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
 * every CPU's trace_pipe_raw of umhcap's instance is covered, while
 * umhcap is held at its mkdir, by an empty tracefs file, which reads 0
 * every time: umhcap must keep waiting until it is told to stop.
 */
FIXTURE(empty_reads) {
	struct tracer tr;
	bool started;	/* umhcap is running, or held */
	int ncpus;	/* per_cpu/cpuN files covered, 0..ncpus-1 */
};

static void pipe_raw_path(char *buf, size_t size, const struct tracer *tr,
			  int cpu)
{
	snprintf(buf, size, "%s/per_cpu/cpu%d/trace_pipe_raw", tr->inst, cpu);
}

/*
 * Lazily: umhcap reads the covering file, and a mount in use cannot be
 * unmounted at once.
 */
static void uncover(FIXTURE_DATA(empty_reads) *self)
{
	char path[PATH_MAX];

	for (; self->ncpus > 0; self->ncpus--) {
		pipe_raw_path(path, sizeof(path), &self->tr, self->ncpus - 1);
		umount2(path, MNT_DETACH);
	}
}

FIXTURE_SETUP(empty_reads)
{
	char path[PATH_MAX], empty[PATH_MAX];

	self->ncpus = 0;
	self->started = !trace_start(&self->tr, "1", true);
	ASSERT_TRUE(self->started);
	instance_file(empty, sizeof(empty), &self->tr, "set_event_pid");
	for (;;) {
		pipe_raw_path(path, sizeof(path), &self->tr, self->ncpus);
		if (access(path, F_OK))
			break;
		ASSERT_EQ(0, mount(empty, path, NULL, MS_BIND, NULL));
		self->ncpus++;
	}
	ASSERT_LT(0, self->ncpus);
	ASSERT_EQ(0, trace_release(&self->tr));
	ASSERT_TRUE(trace_enabled(&self->tr));
}

FIXTURE_TEARDOWN(empty_reads)
{
	struct out o;

	uncover(self);
	if (self->started) {
		/* Let go, if held: SIGTERM lets umhcap remove its instance. */
		trace_release(&self->tr);
		kill(self->tr.pid, SIGTERM);
		trace_end(&self->tr, 20000, &o);
	}
}

TEST_F(empty_reads, trace_waits_through_them)
{
	struct out o;

	/* Several of umhcap's 100 ms polls, each reading 0 on every CPU. */
	usleep(700000);
	EXPECT_TRUE(trace_running(&self->tr)) {
		TH_LOG("umhcap trace ended on a read of 0");
	}
	uncover(self);
	kill(self->tr.pid, SIGTERM);
	self->started = false;
	trace_end(&self->tr, 20000, &o);
	EXPECT_EQ(0, o.status);
	EXPECT_STREQ("", o.std);
	EXPECT_NE(0, access(self->tr.inst, F_OK));
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
		 "{\"purpose\":\"modprobe\",\"started\":%llu,\"used\":\"0x%llx\",",
		 after, used);
	EXPECT_NE(NULL, strstr(o.std, want)) {
		TH_LOG("want %s in:\n%s", want, o.std);
	}
}

/* Purpose @i of learn_apply_narrows_what_ran, in umhcap's order: 0 is modprobe. */
static const char *learn_purpose(int i)
{
	return umh_purposes[i + 1].name;
}

/*
 * learn --apply: -n writes nothing; then every purpose that ran is
 * narrowed to what it used, the others and the global bound stay, and
 * the modprobe helper runs again with exactly what it learned.
 */
TEST(learn_apply_narrows_what_ran)
{
	unsigned long long bset[UMH_NR_PURPOSES], inh[UMH_NR_PURPOSES];
	unsigned long long used[UMH_NR_PURPOSES], started[UMH_NR_PURPOSES];
	unsigned long long gbset, bnd;
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
	ASSERT_STREQ("modprobe", learn_purpose(0));
	for (i = 0; i < UMH_NR_PURPOSES; i++) {
		bset[i] = read_mask(learn_purpose(i), "bset");
		inh[i] = read_mask(learn_purpose(i), "inheritable");
		used[i] = read_mask(learn_purpose(i), "used");
		started[i] = read_started(learn_purpose(i));
		ASSERT_NE(~0ULL, started[i]);
		ran += started[i] > 0;
	}
	ASSERT_LT(0, ran);
	ASSERT_NE(0ULL, started[0]);
	ASSERT_EQ(0, umhcap_run(&o, -1, "learn", "--apply", NULL));
	ASSERT_EQ(0, o.status) {
		TH_LOG("stdout: %s\nstderr: %s", o.std, o.err);
	}
	for (i = 0; i < UMH_NR_PURPOSES; i++) {
		const char *p = learn_purpose(i);

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
	struct tracer tr;
	char *buf;
	struct out o;

	ASSERT_NE(0ULL, read_mask("modprobe", "used") &
			CAP_BIT(CAP_DAC_OVERRIDE)) {
		TH_LOG("the modprobe helper of learn_after_a_modprobe_helper did not use cap_dac_override");
	}
	ASSERT_EQ(0, umhcap_run(&o, -1, "drop", "-p", "modprobe",
				"cap_dac_override", NULL));
	ASSERT_EQ(0, o.status);
	ASSERT_EQ(0, trace_start(&tr, "100", false));
	EXPECT_EQ(0ULL, run_learn_helper("umhcap-guest-refused") &
			CAP_BIT(CAP_DAC_OVERRIDE));
	EXPECT_EQ(EACCES, last_tried());
	/* What is in the buffer is printed before umhcap stops. */
	kill(tr.pid, SIGINT);
	trace_end(&tr, 20000, &o);
	buf = o.std;
	EXPECT_EQ(0, o.status);
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
