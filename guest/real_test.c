// SPDX-License-Identifier: GPL-2.0
/*
 * Real Debian helpers under the bounds
 *
 * The other tests start helpers this project wrote.  This one sets up the
 * programs a Debian administrator runs, as a distribution sets them up
 * (the initramfs of scripts/realhelpers.sh carries them), and checks that
 * each does its job:
 *
 *   modprobe       kmod's /sbin/modprobe loads configfs for a mount;
 *   coredump       systemd-coredump stores a non-root user's core in
 *                  /var/lib/systemd/coredump, with its socket side run by
 *                  systemd-socket-activate;
 *   uevent         busybox mdev makes the node of a hot-added device
 *                  (nvram) with the owner and mode of /etc/mdev.conf;
 *   request_key    keyutils' /sbin/request-key runs keyctl to instantiate
 *                  the key a non-root user asked for;
 *   release_agent  a cgroup v1 release agent removes the emptied cgroup;
 *   power          busybox poweroff, as kernel.poweroff_cmd, reached
 *                  through orderly_poweroff(), asks init to power off.
 *
 * Two test modes, chosen by the environment (the kernel command line):
 *
 *  - learning (no UMH_REAL_MINUS): each job with open bounds; then
 *    "umhcap learn --apply" bounds each purpose to what its helpers used;
 *    each job again.  Prints, for the harness, one line per further boot
 *    needed to take each capability of the learned sets away, one at a
 *    time:  "# umhcap-real-boot: <kernel parameters>".
 *  - UMH_REAL_MINUS=<purpose>:<cap>,...: the bounds (from the command
 *    line) are the learned sets less one capability of each purpose
 *    named; each such job must fail, unless the measured table says why
 *    the capability stays in the set anyway.
 *
 * And two commands for the demonstration of 'make run' (guest/demo.sh):
 * "real_test setup" sets every helper up, and "real_test job PURPOSE"
 * runs one helper's job and says whether it was done (exit 0) or not.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "umh/common.h"
#include "../umhcap/umhcap.h"
#include "jobs.h"

#define UID		4321
#define CONFIGFS_MNT	"/run/umhreal-configfs"
#define CG_MNT		"/run/umhreal-cg"
#define COREDUMP_DIR	"/var/lib/systemd/coredump"
#define COREDUMP_SOCK	"/run/systemd/coredump"
#define NVRAM_NODE	"/dev/umhreal/nvram"
#define POWEROFF_FLAG	"/run/umhreal-poweroff"
#define TEST_UMH_POWEROFF "/sys/kernel/debug/test_umh/orderly_poweroff"
#define UMHCAP		"/tests/bin/umhcap"

typedef int (*job_fn)(char *why, size_t n);

struct real {
	enum umh_purpose id;
	const char *purpose;
	const char *what;
	int (*setup)(void);
	job_fn job;
};

/* modprobe: kmod loads configfs, asked by the mount of a configfs. */

static int modprobe_setup(void)
{
	return mkdir(CONFIGFS_MNT, 0755) && errno != EEXIST ? -errno : 0;
}

static int modprobe_job(char *why, size_t n)
{
	int ret = 0;

	unload("configfs");
	if (exists("/sys/module/configfs"))
		return fail(why, n, "configfs is loaded and stays loaded");
	if (mount("none", CONFIGFS_MNT, "configfs", 0, NULL))
		return fail(why, n, "mount -t configfs: %s", strerror(errno));
	if (!exists("/sys/module/configfs"))
		ret = fail(why, n, "configfs mounted, /sys/module/configfs missing");
	umount(CONFIGFS_MNT);
	unload("configfs");
	return ret;
}

/* coredump: systemd-coredump, as Debian's 50-coredump.conf sets it up. */

static pid_t socket_side;

static int apply_sysctl_file(const char *file)
{
	char line[512], path[600];
	FILE *f = fopen(file, "r");
	int ret = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '='), *p;

		if (line[0] == '#' || line[0] == ';' || !eq)
			continue;
		*eq = '\0';
		line[strcspn(line, "\n")] = '\0';
		eq[1 + strcspn(eq + 1, "\n")] = '\0';
		snprintf(path, sizeof(path), "/proc/sys/%s", line);
		for (p = path + 10; *p; p++)
			if (*p == '.')
				*p = '/';
		if (write_text(path, eq + 1) < 0)
			ret = -EIO;
	}
	fclose(f);
	return ret;
}

static bool coredump_socket_up(void)
{
	return exists(COREDUMP_SOCK);
}

static int coredump_setup(void)
{
	int ret = apply_sysctl_file("/usr/lib/sysctl.d/50-coredump.conf");

	if (ret)
		return ret;
	/* What systemd-coredump.socket and systemd-coredump@.service do. */
	socket_side = fork();
	if (socket_side < 0)
		return -errno;
	if (!socket_side) {
		int fd = open("/run/umhreal-coredump-socket.log",
			      O_WRONLY | O_CREAT | O_APPEND, 0600);

		/* Its notes on each connection, away from the KTAP. */
		dup2(fd, 1);
		dup2(fd, 2);
		execl("/usr/bin/systemd-socket-activate",
		      "systemd-socket-activate", "--seqpacket", "--accept",
		      "--listen=" COREDUMP_SOCK, "/lib/systemd/systemd-coredump",
		      NULL);
		_exit(127);
	}
	return wait_for(coredump_socket_up) ? 0 : -ETIMEDOUT;
}

static pid_t crashed;

static bool core_stored(void)
{
	char uid[16], pid[16], path[PATH_MAX];
	struct dirent *d;
	struct stat st;
	bool found = false;
	DIR *dir;

	dir = opendir(COREDUMP_DIR);
	if (!dir)
		return false;
	/* core.<comm>.<uid>.<boot id>.<pid>.<time>[.zst] */
	snprintf(uid, sizeof(uid), ".%d.", UID);
	snprintf(pid, sizeof(pid), ".%d.", crashed);
	while ((d = readdir(dir)) && !found) {
		if (strncmp(d->d_name, "core.umhreal-crash.", 19) ||
		    !strstr(d->d_name, uid) || !strstr(d->d_name, pid) ||
		    strstr(d->d_name, "#"))
			continue;
		snprintf(path, sizeof(path), COREDUMP_DIR "/%s", d->d_name);
		found = !stat(path, &st) && S_ISREG(st.st_mode) && st.st_size;
	}
	closedir(dir);
	return found;
}

static void coredump_clean(void)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir = opendir(COREDUMP_DIR);

	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.') {
			snprintf(path, sizeof(path), COREDUMP_DIR "/%s",
				 d->d_name);
			unlink(path);
		}
	closedir(dir);
}

static int coredump_job(char *why, size_t n)
{
	int ret = 0, status;
	pid_t pid;

	coredump_clean();
	pid = fork();
	if (pid < 0)
		return fail(why, n, "fork: %s", strerror(errno));
	if (!pid) {
		if (become(UID))
			_exit(2);
		prctl(PR_SET_NAME, "umhreal-crash", 0, 0, 0);
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		signal(SIGSEGV, SIG_DFL);
		kill(getpid(), SIGSEGV);
		_exit(1);
	}
	crashed = pid;
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status) ||
	    !WCOREDUMP(status))
		return fail(why, n, "uid %d did not dump core (status %#x)",
			    UID, status);
	if (!wait_for(core_stored))
		ret = fail(why, n, "no core of pid %d in " COREDUMP_DIR, pid);
	coredump_clean();
	return ret;
}

/* uevent: busybox mdev makes the node of nvram, a hot-added device. */

static int uevent_setup(void)
{
	return write_text("/sys/kernel/uevent_helper", "/sbin/mdev");
}

static bool nvram_node(void)
{
	struct stat st;

	return !stat(NVRAM_NODE, &st) && S_ISCHR(st.st_mode) &&
	       st.st_uid == UID && st.st_gid == UID &&
	       (st.st_mode & 07777) == 0640 &&
	       st.st_rdev == makedev(10, 144);
}

static int uevent_job(char *why, size_t n)
{
	char *const modprobe[] = { "/sbin/modprobe", "nvram", NULL };
	struct stat st;
	int ret = 0;

	unload("nvram");
	unlink(NVRAM_NODE);
	if (run(modprobe))
		return fail(why, n, "modprobe nvram failed");
	if (!wait_for(nvram_node)) {
		if (stat(NVRAM_NODE, &st))
			ret = fail(why, n, "no " NVRAM_NODE ": %s",
				   strerror(errno));
		else
			ret = fail(why, n, NVRAM_NODE " is %d:%d %o, %u:%u",
				   major(st.st_rdev), minor(st.st_rdev),
				   st.st_mode & 07777, st.st_uid, st.st_gid);
	}
	unload("nvram");
	unlink(NVRAM_NODE);
	return ret;
}

/* request_key: keyutils' request-key, for a non-root user. */

static int request_key_job(char *why, size_t n)
{
	static int seq;
	char desc[32], info[32];

	/* The demo runs each job in a process of its own. */
	snprintf(desc, sizeof(desc), "umhreal:%d:%d", getpid(), ++seq);
	snprintf(info, sizeof(info), "payload-%d", seq);
	return user_request_key(UID, "user", desc, info, info, why, n);
}

/* release_agent: a cgroup v1 hierarchy with notify_on_release. */

static int release_agent_setup(void)
{
	if (mkdir(CG_MNT, 0755) && errno != EEXIST)
		return -errno;
	if (mount("cgroup", CG_MNT, "cgroup", 0, "none,name=umhreal"))
		return -errno;
	return write_text(CG_MNT "/release_agent", "/sbin/umh-release-agent");
}

static bool cgroup_gone(void)
{
	return !exists(CG_MNT "/job");
}

static int release_agent_job(char *why, size_t n)
{
	int status, ret = 0;
	pid_t pid;

	if (mkdir(CG_MNT "/job", 0755) && errno != EEXIST)
		return fail(why, n, "mkdir: %s", strerror(errno));
	if (write_text(CG_MNT "/job/notify_on_release", "1") < 0)
		return fail(why, n, "notify_on_release: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return fail(why, n, "fork: %s", strerror(errno));
	if (!pid)
		_exit(write_text(CG_MNT "/job/cgroup.procs", "0") < 0);
	if (waitpid(pid, &status, 0) != pid || status)
		return fail(why, n, "could not join the cgroup");
	if (!wait_for(cgroup_gone))
		ret = fail(why, n, "the emptied cgroup is still there");
	rmdir(CG_MNT "/job");
	return ret;
}

/* power: poweroff_cmd through orderly_poweroff(); init records it. */

static bool poweroff_asked(void)
{
	return exists(POWEROFF_FLAG);
}

static int power_job(char *why, size_t n)
{
	int ret = 0;

	unlink(POWEROFF_FLAG);
	if (write_text(TEST_UMH_POWEROFF, "1") < 0)
		return fail(why, n, "orderly_poweroff: %s", strerror(errno));
	if (!wait_for(poweroff_asked))
		ret = fail(why, n, "init was not asked to power off");
	unlink(POWEROFF_FLAG);
	return ret;
}

static const struct real reals[] = {
	{ UMH_MODPROBE, "modprobe", "kmod's modprobe loads configfs",
	  modprobe_setup, modprobe_job },
	{ UMH_COREDUMP, "coredump", "systemd-coredump stores the core",
	  coredump_setup, coredump_job },
	{ UMH_UEVENT, "uevent", "mdev makes the nvram node",
	  uevent_setup, uevent_job },
	{ UMH_REQUEST_KEY, "request_key", "request-key instantiates the key",
	  NULL, request_key_job },
	{ UMH_RELEASE_AGENT, "release_agent", "the release agent removes the cgroup",
	  release_agent_setup, release_agent_job },
	{ UMH_POWER, "power", "poweroff asks init to power off",
	  NULL, power_job },
};

#define NR_REAL (sizeof(reals) / sizeof(reals[0]))

static const struct real *real_lookup(const char *purpose)
{
	for (size_t i = 0; i < NR_REAL; i++)
		if (!strcmp(reals[i].purpose, purpose))
			return &reals[i];
	return NULL;
}

static void print_versions(void)
{
	char text[1024], *line, *save;

	if (read_text("/etc/umhcap/real-versions", text, sizeof(text)) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		ksft_print_msg("program: %s\n", line);
}

/* Per helper: 0, or why its setup failed (-errno). */
static int setup_err[NR_REAL];

static void setup_all(void)
{
	for (size_t i = 0; i < NR_REAL; i++) {
		setup_err[i] = reals[i].setup ? reals[i].setup() : 0;
		if (setup_err[i])
			ksft_print_msg("%s: setup failed: %s\n",
				       reals[i].purpose,
				       strerror(-setup_err[i]));
	}
}

static int job(const struct real *r, char *why, size_t n)
{
	int err = setup_err[r - reals];

	if (err)
		return fail(why, n, "not set up: %s", strerror(-err));
	return r->job(why, n);
}

static void do_job(const struct real *r, const char *bounds)
{
	char why[256] = "";
	int ret = job(r, why, sizeof(why));

	ksft_test_result(!ret, "%s: %s, %s%s%s\n", r->purpose, r->what,
			 bounds, ret ? ": " : "", why);
}

static int read_used(const char *purpose, unsigned long long *val)
{
	return read_bound(purpose, "used", val);
}

static void learn(void)
{
	char *const apply[] = { UMHCAP, "learn", "--apply", NULL };
	const char *show = UMHCAP " learn";
	unsigned long long used[NR_REAL];
	int most = 0;

	ksft_set_plan(3 * NR_REAL + 3);
	/* What helpers started at boot (the uevent helper) left in it. */
	for (size_t i = 0; i < NR_REAL; i++)
		if (!read_used(reals[i].purpose, &used[i]))
			ksft_print_msg("used before the jobs: %s %#llx\n",
				       reals[i].purpose, used[i]);
	for (size_t i = 0; i < NR_REAL; i++)
		do_job(&reals[i], "open bounds");

	/* The administrator's workflow, with the real tool. */
	show_output(show);
	for (size_t i = 0; i < NR_REAL; i++) {
		if (read_used(reals[i].purpose, &used[i]))
			used[i] = CAPS_FULL;
		most = __builtin_popcountll(used[i]) > most ?
		       __builtin_popcountll(used[i]) : most;
	}
	ksft_test_result(run(apply) == 0, "umhcap learn --apply\n");
	{
		bool same = true;

		for (size_t i = 0; i < NR_REAL; i++) {
			unsigned long long b;

			same &= !read_bound(reals[i].purpose, "bset", &b) &&
				b == used[i];
			ksft_print_msg("learned: %s %#llx\n",
				       reals[i].purpose, used[i]);
		}
		ksft_test_result(same, "each purpose is bounded to what it used\n");
	}
	for (size_t i = 0; i < NR_REAL; i++)
		do_job(&reals[i], "bounded to what it used");

	/*
	 * The measured table (umhcap/measured.c) may need less than was
	 * used, never more: narrow to it, and each job is still done.
	 */
	{
		bool within = true;

		for (size_t i = 0; i < NR_REAL; i++) {
			const struct umh_measured *m =
				umh_measured_find(reals[i].id, UMH_CONF_BUSYBOX);

			if (!m || m->caps & ~used[i]) {
				ksft_print_msg("%s: the table needs %#llx, more than was used\n",
					       reals[i].purpose,
					       m ? (unsigned long long)m->caps : 0);
				within = false;
				continue;
			}
			within &= write_bound(reals[i].purpose, "bset",
					      m->caps) >= 0 &&
				  write_bound(reals[i].purpose, "inheritable",
					      m->caps) >= 0;
		}
		ksft_test_result(within, "bounded to the measured table, within what was used\n");
	}
	for (size_t i = 0; i < NR_REAL; i++)
		do_job(&reals[i], "bounded to the measured table");

	/* One boot per capability to take away, all purposes at once. */
	for (int k = 1; k <= most; k++) {
		char bounds[512] = "", minus[512] = "";

		for (size_t i = 0; i < NR_REAL; i++) {
			unsigned long long b = used[i];
			int cap = nth_cap(b, k);

			if (cap >= 0) {
				b &= ~(1ULL << cap);
				snprintf(minus + strlen(minus),
					 sizeof(minus) - strlen(minus), "%s%s:%d",
					 *minus ? "," : "", reals[i].purpose, cap);
			}
			snprintf(bounds + strlen(bounds),
				 sizeof(bounds) - strlen(bounds), "%s%s:%#llx",
				 *bounds ? "," : "", reals[i].purpose, b);
		}
		printf("# umhcap-real-boot: usermodehelper.bset=%s usermodehelper.inheritable=%s UMH_REAL_MINUS=%s\n",
		       bounds, bounds, minus);
	}
}

/* Why the measured table keeps @cap for @purpose, or NULL. */
static const char *kept_because(enum umh_purpose purpose, int cap)
{
	const struct umh_measured *m = umh_measured_find(purpose, UMH_CONF_BUSYBOX);

	return m && m->note && (m->kept >> cap & 1) ? m->note : NULL;
}

static void minus(char *list)
{
	char *item, *save;
	int n = 0;

	for (char *p = list; *p; p++)
		n += *p == ',';
	ksft_set_plan(n + 1);
	for (item = strtok_r(list, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':'), why[256] = "", name[32];
		const struct umh_measured *need;
		const struct real *r;
		const char *kept;
		bool needed;
		int cap;

		if (!colon || !(r = real_lookup((*colon = '\0', item)))) {
			ksft_test_result_fail("bad item in UMH_REAL_MINUS\n");
			continue;
		}
		cap = atoi(colon + 1);
		snprintf(name, sizeof(name), "%s", cap_to_name(cap));
		need = umh_measured_find(r->id, UMH_CONF_BUSYBOX);
		needed = need && (need->caps >> cap & 1);
		if (!job(r, why, sizeof(why))) {
			kept = kept_because(r->id, cap);
			ksft_test_result(!needed || kept,
					 "%s: without %s the job is still done; %s%s\n",
					 item, name,
					 kept ? "kept because: " :
					 needed ? "the table needs it and says not why" :
					 "the table does not need it",
					 kept ? kept : "");
		} else {
			ksft_test_result(needed,
					 "%s: without %s the job fails (%s); %s\n",
					 item, name, why,
					 needed ? "the table needs it" :
					 "the table does not list it");
		}
	}
}

/* The demonstration's commands: "setup", and "job PURPOSE". */
static int command(int argc, char **argv)
{
	const struct real *r;
	char why[256] = "";
	int ret = 0;

	if (argc == 2 && !strcmp(argv[1], "setup")) {
		print_versions();
		setup_all();
		for (size_t i = 0; i < NR_REAL; i++)
			ret |= setup_err[i];
		return ret ? 1 : 0;
	}
	if (argc != 3 || strcmp(argv[1], "job") || !(r = real_lookup(argv[2]))) {
		fprintf(stderr, "usage: real_test [setup | job PURPOSE]\n");
		return 2;
	}
	ret = r->job(why, sizeof(why));
	printf("%s: %s: %s%s\n", r->purpose, r->what,
	       ret ? "FAILED: " : "done", why);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	char *list = getenv("UMH_REAL_MINUS");

	if (argc > 1)
		return command(argc, argv);
	ksft_print_header();
	if (!may_narrow())
		ksft_exit_skip("narrows bounds for good: set UMH_SELFTEST_NARROW=1\n");
	print_versions();
	setup_all();
	if (list && *list)
		minus(list);
	else
		learn();
	ksft_finished();
}
