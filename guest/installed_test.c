// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's own helpers, in Debian 12 as installed
 *
 * scripts/installed.sh makes the disk: systemd as PID 1, and the helpers
 * as Debian's packages install and configure them.  systemd starts this
 * test (umhcap-test.service) once the machine is up; it judges each job
 * as the helper's users would:
 *
 *   modprobe     opening /dev/nvram, a node kmod-static-nodes made,
 *                loads nvram.ko.xz: kmod's modprobe decompresses it;
 *   coredump     a crash of a user's process and of a root service
 *                reaches systemd-coredump through the core_pattern of
 *                Debian's 50-coredump.conf and PID 1's socket unit.  The
 *                job is every field coredumpctl info shows, and the
 *                user's access to its own core;
 *   request_key  a user's request for a dns_resolver key runs Debian's
 *                request-key.conf handler, key.dns_resolver, which
 *                instantiates it with the address of /etc/hosts.  The
 *                key type is a module, loaded here as the CIFS and NFS
 *                clients that use it would load it;
 *   power        orderly_poweroff() and orderly_reboot() run
 *                /sbin/poweroff and /sbin/reboot, which are systemctl:
 *                PID 1 takes the machine down.  That is judged last, by
 *                this program again, run as a systemd-shutdown hook
 *                ("installed_test shutdown poweroff|reboot").
 *
 * The modes, from the kernel command line:
 *
 *  - learning: what a plain boot started, each of a purpose the table
 *    has a row for; each job with open bounds; the table's runs are the
 *    helpers started; "umhcap learn --apply"; each job bounded to what it
 *    used, then to the measured table; power, open, last.  The shutdown
 *    hook names the further boots: "# umhcap-installed-boot: <kernel
 *    parameters>".
 *  - UMH_INSTALLED=bounded: the learned sets from the command line, from
 *    the first helper; each job, then power through orderly_reboot().
 *    UMH_INSTALLED=table: the same with the measured table's sets, as an
 *    administrator would boot, and power through orderly_poweroff().
 *  - UMH_INSTALLED=keep1 to keep4: the administrator's loop across four
 *    boots of one disk (scripts/keep.sh), each on the kernel dpkg
 *    installed, each after the first from the boot menu the one before
 *    made with Debian's grub-mkconfig.  Boot 1 checks the package and
 *    its unit, does every job with open bounds but a user's crash, held
 *    back, and writes the learned bounds with "umhcap boot --grub"; the
 *    unit saves the record at shutdown.  Boot 2: umhcap learn merges
 *    boot 1's record, every helper is bounded from the first, the jobs
 *    are done, the one held back is refused, and journalctl -k and
 *    umhcap refusals show why; "umhcap boot --grub --allow" gives that
 *    capability back.  Boot 3: every job is done, and "umhcap boot
 *    --remove" undoes boot.  Boot 4: the bounds are open, the jobs done,
 *    and "dpkg --purge umhcap" removes what umhcap wrote.
 *  - UMH_INSTALLED=handlers: request-key's handlers of nfs-common and
 *    cifs-utils, each against its row of umhcap's handler table, with
 *    request-key as root, then as its own user (see handlers_boot()).
 *  - UMH_INSTALLED_MINUS=<purpose>:<cap>,...: the learned sets less one
 *    capability of each purpose named; a job of the purpose must fail
 *    exactly when the table lists the capability, unless the table says
 *    why it keeps it.
 *
 * With UMH_INSTALLED_IDENT=1 as well, the helpers of each purpose run as
 * a system user of their own (kernel.usermodehelper.<purpose>.uid and
 * .gid): systemd-coredump's own, and users the disk was given with
 * adduser --system for the others.  The learning boot gives them their
 * users with "umhcap user", the further boots from the command line, and
 * the table is its rows of Debian as installed with helpers as their own
 * users.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/syscall.h>

#include "umh/common.h"
#include "../umhcap/umhcap.h"
#include "jobs.h"

#define USER_NAME	"umhuser"
#define USER_UID	1000
#define TEST_DIR	"/usr/lib/umhcap-test"
#define SELF		TEST_DIR "/installed_test"
#define VERSIONS	TEST_DIR "/versions"
#define UMHCAP		"/usr/sbin/umhcap"
#define MARK		"/run/umhcap-test-power"
#define TRACE		"/sys/kernel/tracing/trace"
#define TEST_UMH	"/sys/kernel/debug/test_umh/"
#define DNS_NAME	"umhcap.test"
#define DNS_ADDR	"10.99.0.1"
#define COREDUMP_MSGID	"fc2e22bc6ee647b6b90729ab34a250b1"

typedef int (*job_fn)(char *why, size_t n);

struct job {
	enum umh_purpose id;
	const char *purpose;
	const char *name;	/* short, for a list */
	const char *what;
	job_fn fn;
};

/* What @cmd printed, at most @n - 1 bytes of it; -1 if it failed. */
static int capture(const char *cmd, char *out, size_t n)
{
	FILE *p = popen(cmd, "r");
	size_t got;

	if (!p)
		return -1;
	got = fread(out, 1, n - 1, p);
	out[got] = '\0';
	return pclose(p) ? -1 : 0;
}

/* How many helpers of @purpose started since boot; 0 if unreadable. */
static unsigned long long started(const char *purpose)
{
	char path[PATH_MAX], text[32];

	snprintf(path, sizeof(path), "/proc/sys/kernel/usermodehelper/%s/started",
		 purpose);
	if (read_text(path, text, sizeof(text)) < 0)
		return 0;
	return strtoull(text, NULL, 10);
}

/* Appends a line to /etc/hosts, once. */
static int add_host(void)
{
	char text[4096];
	int fd;

	if (read_text("/etc/hosts", text, sizeof(text)) >= 0 &&
	    strstr(text, DNS_NAME))
		return 0;
	fd = open("/etc/hosts", O_WRONLY | O_APPEND);
	if (fd < 0)
		return -errno;
	dprintf(fd, DNS_ADDR "\t" DNS_NAME "\n");
	close(fd);
	return 0;
}

/* ---- modprobe: kmod loads nvram.ko.xz, for an open of /dev/nvram */

static int modprobe_job(char *why, size_t n)
{
	int fd, ret = 0;

	unload("nvram");
	if (exists("/sys/module/nvram"))
		return fail(why, n, "nvram is loaded and stays loaded");
	fd = open("/dev/nvram", O_RDONLY);
	if (fd < 0)
		return fail(why, n, "open /dev/nvram: %s", strerror(errno));
	close(fd);
	if (!exists("/sys/module/nvram"))
		ret = fail(why, n, "/dev/nvram opened, /sys/module/nvram missing");
	unload("nvram");
	return ret;
}

/* ---- coredump: systemd-coredump, as Debian installs it */

/*
 * The fields coredumpctl info shows that the helper reads from /proc of
 * the crashed task: without them the record is cut short, as Debian's
 * administrators saw it with the helper bounded to nothing.  The first
 * ones are the fields a helper short of capabilities loses.
 */
static const char *const coredump_fields[] = {
	"COREDUMP_EXE", "COREDUMP_CWD", "COREDUMP_ROOT", "COREDUMP_ENVIRON",
	"COREDUMP_OPEN_FDS", "COREDUMP_PROC_MAPS", "COREDUMP_PROC_AUXV",
	"COREDUMP_PID", "COREDUMP_UID", "COREDUMP_GID", "COREDUMP_SIGNAL",
	"COREDUMP_SIGNAL_NAME", "COREDUMP_TIMESTAMP", "COREDUMP_RLIMIT",
	"COREDUMP_HOSTNAME", "COREDUMP_COMM", "COREDUMP_CMDLINE",
	"COREDUMP_CGROUP", "COREDUMP_PROC_STATUS", "COREDUMP_PROC_LIMITS",
	"COREDUMP_PROC_CGROUP", "COREDUMP_PROC_MOUNTINFO",
	"COREDUMP_FILENAME",
};

#define NR_FIELDS (sizeof(coredump_fields) / sizeof(coredump_fields[0]))

struct record {
	bool found;
	int nfields;			/* COREDUMP_* fields, all of them */
	bool has[NR_FIELDS];
	char filename[PATH_MAX];
};

/*
 * Reads the journal's record of a crash, in journalctl's export format:
 * "FIELD=value" lines, or, for a field that is not text, "FIELD", a
 * 64-bit little-endian size, the data and a newline.
 */
static void read_record(const char *match, struct record *r)
{
	char cmd[256], line[8192];
	FILE *p;

	memset(r, 0, sizeof(*r));
	snprintf(cmd, sizeof(cmd),
		 "journalctl -q --no-pager -o export MESSAGE_ID=" COREDUMP_MSGID " %s",
		 match);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		char *eq = strchr(line, '=');
		size_t len = strcspn(line, "\n");

		if (!len)
			continue;
		line[len] = '\0';
		if (!eq) {
			unsigned char size[8];
			unsigned long long sz = 0;

			if (fread(size, 1, 8, p) != 8)
				break;
			for (int i = 7; i >= 0; i--)
				sz = sz << 8 | size[i];
			while (sz-- && fgetc(p) != EOF)
				;
			fgetc(p);
		} else {
			*eq = '\0';
		}
		if (!strcmp(line, "MESSAGE_ID"))
			r->found = true;
		if (strncmp(line, "COREDUMP_", 9))
			continue;
		r->nfields++;
		for (size_t i = 0; i < NR_FIELDS; i++)
			if (!strcmp(line, coredump_fields[i]))
				r->has[i] = true;
		if (eq && !strcmp(line, "COREDUMP_FILENAME"))
			snprintf(r->filename, sizeof(r->filename), "%s", eq + 1);
	}
	pclose(p);
}

static char crash_match[128];
static struct record crash_record;

static bool crash_recorded(void)
{
	read_record(crash_match, &crash_record);
	return crash_record.found;
}

/* Whether the record is whole; if not, says which fields it lacks. */
static int judge_record(const char *who, char *why, size_t n)
{
	struct record *r = &crash_record;
	char missing[512] = "";

	if (!wait_for(crash_recorded))
		return fail(why, n, "no record of %s's crash in the journal", who);
	for (size_t i = 0; i < NR_FIELDS; i++)
		if (!r->has[i])
			snprintf(missing + strlen(missing),
				 sizeof(missing) - strlen(missing), " %s",
				 coredump_fields[i] + 9);
	ksft_print_msg("coredump: %s's record has %d COREDUMP_ fields%s%s\n",
		       who, r->nfields, *missing ? "; lacks" : "", missing);
	if (*missing)
		return fail(why, n, "%s's record lacks%s", who, missing);
	return 0;
}

static int crash_seq;

static int coredump_user_job(char *why, size_t n)
{
	char *const crash[] = { SELF, "crash", NULL };
	char *const cat[] = { "/bin/sh", "-c", "exec head -c 4 \"$0\" >/dev/null",
			      crash_record.filename, NULL };
	char list[64];
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return fail(why, n, "fork: %s", strerror(errno));
	if (!pid) {
		if (become(USER_UID))
			_exit(126);
		execv(crash[0], crash);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status) ||
	    !WCOREDUMP(status))
		return fail(why, n, "uid %d did not dump core (status %#x)",
			    USER_UID, status);
	snprintf(crash_match, sizeof(crash_match), "COREDUMP_PID=%d", pid);
	if (judge_record("a user's process", why, n))
		return -1;
	snprintf(list, sizeof(list), "coredumpctl -q --no-pager list %d >/dev/null", pid);
	if (system(list))
		return fail(why, n, "coredumpctl list %d shows nothing", pid);
	/* The user reads its own core: systemd-coredump gave it an ACL. */
	if (!*crash_record.filename || !exists(crash_record.filename))
		return fail(why, n, "no core stored for pid %d", pid);
	if (run_as(USER_UID, cat))
		return fail(why, n, "uid %d cannot read its core %s",
			    USER_UID, crash_record.filename);
	return 0;
}

static int coredump_root_job(char *why, size_t n)
{
	char unit[64], cmd[256];

	snprintf(unit, sizeof(unit), "umhcap-crash-%d-%d.service", getpid(),
		 ++crash_seq);
	snprintf(cmd, sizeof(cmd),
		 "systemd-run -q --no-block --unit=%s -p LimitCORE=infinity "
		 SELF " crash", unit);
	if (system(cmd))
		return fail(why, n, "systemd-run %s failed", unit);
	snprintf(crash_match, sizeof(crash_match), "COREDUMP_UNIT=%s", unit);
	if (judge_record("a root service", why, n))
		return -1;
	if (!*crash_record.filename || !exists(crash_record.filename))
		return fail(why, n, "no core stored for %s", unit);
	return 0;
}

/* ---- request_key: key.dns_resolver, as Debian's request-key.conf says */

static int request_key_job(char *why, size_t n)
{
	return user_request_key(USER_UID, "dns_resolver", DNS_NAME, "",
				DNS_ADDR, why, n);
}

static const struct job jobs[] = {
	{ UMH_MODPROBE, "modprobe", "nvram",
	  "kmod loads nvram.ko.xz for /dev/nvram", modprobe_job },
	{ UMH_COREDUMP, "coredump", "a user's crash",
	  "a user's crash: the whole record, the core readable by its user",
	  coredump_user_job },
	{ UMH_COREDUMP, "coredump", "a root service's crash",
	  "a root service's crash: the whole record, the core stored",
	  coredump_root_job },
	{ UMH_REQUEST_KEY, "request_key", "a user's dns_resolver key",
	  "key.dns_resolver instantiates a user's dns_resolver key",
	  request_key_job },
};

#define NR_JOBS (sizeof(jobs) / sizeof(jobs[0]))

/*
 * The purposes this test judges, power last, and the user each runs as
 * with UMH_INSTALLED_IDENT=1.  Power cannot do its job as any user but
 * root (see power_as_user()): it is tried as its user, then left root.
 */
static const struct {
	enum umh_purpose id;
	const char *name;
	const char *user;
	bool root_only;
} purposes[] = {
	{ UMH_MODPROBE, "modprobe", "umh-modprobe", false },
	{ UMH_COREDUMP, "coredump", "systemd-coredump", false },
	{ UMH_REQUEST_KEY, "request_key", "umh-request-key", false },
	{ UMH_POWER, "power", "umh-power", true },
};

/* UMH_INSTALLED_IDENT=1: each purpose's helpers as their own user */
static bool ident;

#define NR_JUDGED (sizeof(purposes) / sizeof(purposes[0]))

/* The purposes no Debian 12 helper has: bounded to nothing from boot. */
#define UNJUDGED	"uevent:0,release_agent:0,initrd:0,other:0"

static int purpose_lookup(const char *name)
{
	for (size_t i = 0; i < NR_JUDGED; i++)
		if (!strcmp(purposes[i].name, name))
			return purposes[i].id;
	return -1;
}

/*
 * The busybox rows of the table are another system's.  With
 * UMH_INSTALLED_IDENT=1, the rows of helpers as their own users, but for
 * a purpose that stays root.
 */
static const struct umh_measured *table(enum umh_purpose id)
{
	bool as_user = ident;

	for (size_t i = 0; i < NR_JUDGED; i++)
		if (purposes[i].id == id && purposes[i].root_only)
			as_user = false;
	return umh_measured_find(id, as_user ? UMH_CONF_INSTALLED_USER :
				 UMH_CONF_INSTALLED);
}

static void do_job(const struct job *j, const char *bounds)
{
	char why[512] = "";
	int ret = j->fn(why, sizeof(why));

	ksft_test_result(!ret, "%s: %s, %s%s%s%s\n", j->purpose, j->what,
			 bounds, ident ? ", as its own user" : "",
			 ret ? ": " : "", why);
}

/* The uid and gid of @user, or -1. */
static int user_ids(const char *user, unsigned int *uid, unsigned int *gid)
{
	struct passwd *pw = getpwnam(user);

	if (!pw)
		return -1;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

/* Whether the helpers of purpose @i run as @uid:@gid; says if not. */
static bool runs_as(size_t i, unsigned int uid, unsigned int gid)
{
	unsigned int kuid = 0, kgid = 0;

	if (!read_ident(purposes[i].name, "uid", &kuid) &&
	    !read_ident(purposes[i].name, "gid", &kgid) &&
	    kuid == uid && kgid == gid)
		return true;
	ksft_print_msg("%s: helpers run as %u:%u, not %s (%u:%u)\n",
		       purposes[i].name, kuid, kgid, purposes[i].user, uid, gid);
	return false;
}

/*
 * UMH_INSTALLED_IDENT=1: each judged purpose runs as its user.  The
 * learning boot gives it with umhcap, as an administrator would; the
 * further boots had it from the command line, which is checked first.
 * umhcap user runs in those too: it opens what the helpers reach as
 * their user (the core dump socket), which a boot of the disk's
 * snapshot does not keep.
 */
static int set_idents(bool from_boot)
{
	int ret = 0;

	for (size_t i = 0; i < NR_JUDGED; i++) {
		unsigned int uid, gid;
		char cmd[256];

		if (purposes[i].root_only)
			continue;
		if (user_ids(purposes[i].user, &uid, &gid)) {
			ksft_print_msg("no user %s\n", purposes[i].user);
			ret = -1;
			continue;
		}
		if (from_boot && !runs_as(i, uid, gid)) {
			ret = -1;
			continue;
		}
		snprintf(cmd, sizeof(cmd), UMHCAP " user -p %s %s",
			 purposes[i].name, purposes[i].user);
		if (system(cmd)) {
			ksft_print_msg("%s failed\n", cmd);
			ret = -1;
		}
		if (!runs_as(i, uid, gid)) {
			ret = -1;
			continue;
		}
		ksft_print_msg("%s: helpers run as %s (%u:%u)\n",
			       purposes[i].name, purposes[i].user, uid, gid);
	}
	return ret;
}

/* The kernel parameters that give each judged purpose its user. */
static void ident_params(char *out, size_t n)
{
	char uids[256] = "", gids[256] = "";

	*out = '\0';
	if (!ident)
		return;
	for (size_t i = 0; i < NR_JUDGED; i++) {
		unsigned int uid = 0, gid = 0;

		if (!purposes[i].root_only)
			user_ids(purposes[i].user, &uid, &gid);
		snprintf(uids + strlen(uids), sizeof(uids) - strlen(uids),
			 "%s%s:%u", i ? "," : "", purposes[i].name, uid);
		snprintf(gids + strlen(gids), sizeof(gids) - strlen(gids),
			 "%s%s:%u", i ? "," : "", purposes[i].name, gid);
	}
	snprintf(out, n, " usermodehelper.uid=%s usermodehelper.gid=%s UMH_INSTALLED_IDENT=1",
		 uids, gids);
}

/*
 * What used each capability, from the trace of umh_capable events: the
 * program, once per capability, so that a capability in a learned set
 * can be traced to its caller; and each check refused, so that a job
 * that fails can be traced to the check that failed it.  The trace is
 * emptied.
 */
static void show_users(void)
{
	char line[1024], seen[64][96];
	int nseen = 0, fd;
	FILE *f = fopen(TRACE, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char purpose[32], comm[32], key[96];
		char *p = strstr(line, "umh_capable: ");
		int cap, noaudit, ret, i;

		/* A check that is not audited is not counted either. */
		if (!p || sscanf(p, "umh_capable: purpose=%31s pid=%*d comm=\"%31[^\"]\" uid=%*u cap=%d noaudit=%d ret=%d",
				 purpose, comm, &cap, &noaudit, &ret) != 5 ||
		    noaudit)
			continue;
		snprintf(key, sizeof(key), "%s: %s %s %s", ret ? "refused" : "used",
			 purpose, comm, cap_to_name(cap));
		for (i = 0; i < nseen && strcmp(seen[i], key); i++)
			;
		if (i < nseen || nseen == 64)
			continue;
		strcpy(seen[nseen++], key);
		ksft_print_msg("%s\n", key);
	}
	fclose(f);
	fd = open(TRACE, O_WRONLY | O_TRUNC);
	if (fd >= 0)
		close(fd);
}

/*
 * The helpers a plain boot started, from the trace: each is named, and
 * each must be of a purpose the table has a row of Debian as installed
 * for, or the table misses a helper Debian runs.  -1 if none could be
 * read, else how many were of a purpose without a row.
 */
static int boot_helpers(void)
{
	char line[1024];
	FILE *f = fopen(TRACE, "r");
	int n = 0, unmeasured = 0;

	if (!f) {
		ksft_print_msg("no trace of the boot's helpers: %s\n", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "umh_exec: "), purpose[32];
		int id = -1;

		if (!p || sscanf(p, "umh_exec: purpose=%31s", purpose) != 1)
			continue;
		n++;
		for (size_t i = 0; i < NR_JUDGED; i++)
			if (!strcmp(purposes[i].name, purpose))
				id = purposes[i].id;
		if (id < 0 || !table(id))
			unmeasured++;
		ksft_print_msg("started at boot: %s", p + 10);
	}
	fclose(f);
	ksft_print_msg("the plain boot started %d helper%s\n", n, n == 1 ? "" : "s");
	show_output(UMHCAP " learn");
	return unmeasured;
}

static void show_versions(void)
{
	static const char *const pkgs[] = {
		"systemd", "udev", "kmod", "systemd-coredump", "keyutils",
		"libc6",
	};
	char text[65536], *line, *save;

	if (read_text(VERSIONS, text, sizeof(text)) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		for (size_t i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++)
			if (!strncmp(line, pkgs[i], strlen(pkgs[i])) &&
			    line[strlen(pkgs[i])] == ' ')
				ksft_print_msg("package: %s\n", line);
}

/* The machine is up: systemd says it is running (or degraded: which). */
static void wait_running(void)
{
	char state[64] = "";

	capture("systemctl is-system-running --wait", state, sizeof(state));
	state[strcspn(state, "\n")] = '\0';
	ksft_print_msg("systemd: %s\n", state);
	if (strcmp(state, "running"))
		show_output("systemctl --failed --no-legend --no-pager");
}

static int setup(void)
{
	char *const useradd[] = { "/usr/sbin/useradd", "-u", "1000", "-m",
				  USER_NAME, NULL };
	char *const modprobe[] = { "/sbin/modprobe", "-a", "test_umh",
				   "dns_resolver", NULL };
	char pattern[256] = "";
	int ret = 0, rc;

	/* 9: the user is there already. */
	rc = run(useradd);
	if (rc && rc != 9) {
		ksft_print_msg("useradd " USER_NAME ": exit %d\n", rc);
		ret = -1;
	}
	if (add_host()) {
		ksft_print_msg("cannot add " DNS_NAME " to /etc/hosts\n");
		ret = -1;
	}
	if (run(modprobe)) {
		ksft_print_msg("modprobe test_umh dns_resolver failed\n");
		ret = -1;
	}
	read_text("/proc/sys/kernel/core_pattern", pattern, sizeof(pattern));
	ksft_print_msg("core_pattern: %s", pattern);
	show_output("sh -c 'modinfo -n nvram; ls -l /dev/nvram'");
	return ret;
}

/* The kernel parameter @name=value, or NULL. */
static char cmdline[4096];

static const char *param(const char *name)
{
	static char value[2048];
	char *p = cmdline;
	size_t len = strlen(name);

	while ((p = strstr(p, name))) {
		if ((p == cmdline || p[-1] == ' ') && p[len] == '=') {
			snprintf(value, sizeof(value), "%s", p + len + 1);
			value[strcspn(value, " \n")] = '\0';
			return value;
		}
		p += len;
	}
	return NULL;
}

/*
 * Power, last: the machine goes down if the job is done.  MARK tells the
 * shutdown hook what was asked, the test's number, how the purpose was
 * bounded and the helpers started before.  If nothing happens in time,
 * the job failed: this test says so and powers the machine off itself.
 */
static void power(const char *how, const char *bounds, bool must_fail)
{
	char text[256], knob[64];
	long long end;
	int fd;

	snprintf(text, sizeof(text), "%s %u %llu %d %s\n", how,
		 ksft_test_num() + 1, started("power"), must_fail, bounds);
	fd = open(MARK, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    close(fd)) {
		ksft_test_result_fail("power: cannot write " MARK "\n");
		return;
	}
	snprintf(knob, sizeof(knob), TEST_UMH "orderly_%s", how);
	fflush(stdout);
	if (write_text(knob, "1") < 0) {
		unlink(MARK);
		ksft_test_result_fail("power: %s: %s\n", knob, strerror(errno));
		return;
	}
	end = now_ms() + deadline_ms() * 3;
	while (now_ms() < end)
		usleep(100000);
	/* Still here: the helper did not get PID 1 to do it.  Why: */
	unlink(MARK);
	show_users();
	show_output("journalctl -b -q --no-pager -o short-monotonic -n 20 _COMM=systemctl + _COMM=systemd-logind + _COMM=dbus-daemon");
	ksft_test_result(must_fail, "power: orderly_%s(), %s: the machine is still up\n",
			 how, bounds);
}

/* The measured table's sets as boot items; a purpose without a row: 0. */
static void table_bounds(char *bounds, size_t n)
{
	int len = snprintf(bounds, n, "%s", UNJUDGED);

	for (size_t i = 0; i < NR_JUDGED; i++) {
		const struct umh_measured *m = table(purposes[i].id);

		len += snprintf(bounds + len, n - len, ",%s:%#llx",
				purposes[i].name,
				m ? (unsigned long long)m->caps : 0ULL);
	}
}

/*
 * The further boots, named from the record once every job has run:
 * one with the learned sets from the command line, then one per
 * capability to take away, from every purpose at once.  The purposes
 * Debian runs no helper of are bounded to nothing.
 */
static void name_boots(void)
{
	unsigned long long used[NR_JUDGED];
	char bounds[512], idp[640];
	int most = 0;

	ident_params(idp, sizeof(idp));

	for (size_t i = 0; i < NR_JUDGED; i++) {
		if (read_bound(purposes[i].name, "used", &used[i]))
			used[i] = CAPS_FULL;
		printf("# learned: %s %#llx\n", purposes[i].name, used[i]);
		if (__builtin_popcountll(used[i]) > most)
			most = __builtin_popcountll(used[i]);
	}
	for (int k = 0; k <= most; k++) {
		char minus[512] = "";
		int len;

		/* "all" would be the global bound: name each purpose. */
		len = snprintf(bounds, sizeof(bounds), "%s", UNJUDGED);
		for (size_t i = 0; i < NR_JUDGED; i++) {
			unsigned long long b = used[i];
			int cap = k ? nth_cap(b, k) : -1;

			if (cap >= 0) {
				b &= ~(1ULL << cap);
				snprintf(minus + strlen(minus),
					 sizeof(minus) - strlen(minus), "%s%s:%d",
					 *minus ? "," : "", purposes[i].name, cap);
			}
			len += snprintf(bounds + len, sizeof(bounds) - len,
					",%s:%#llx", purposes[i].name, b);
		}
		if (!k) {
			printf("# umhcap-installed-boot: usermodehelper.bset=%s usermodehelper.inheritable=%s UMH_INSTALLED=bounded%s\n",
			       bounds, bounds, idp);
			table_bounds(bounds, sizeof(bounds));
			printf("# umhcap-installed-boot: usermodehelper.bset=%s usermodehelper.inheritable=%s UMH_INSTALLED=table%s\n",
			       bounds, bounds, idp);
		} else {
			printf("# umhcap-installed-boot: usermodehelper.bset=%s usermodehelper.inheritable=%s UMH_INSTALLED_MINUS=%s%s\n",
			       bounds, bounds, minus, idp);
		}
	}
}

/* The shutdown hook: judges the power job, names the further boots. */
static int shutdown_hook(const char *how)
{
	char text[256], mhow[16], bounds[128];
	unsigned long long before;
	int num, must_fail;

	if (read_text(MARK, text, sizeof(text)) >= 0 &&
	    sscanf(text, "%15s %d %llu %d %127[^\n]", mhow, &num, &before,
		   &must_fail, bounds) == 5) {
		bool ok;

		ok = !strcmp(mhow, how) && started("power") > before;
		printf("%s %d power: orderly_%s() ran /sbin/%s, and PID 1 %s the machine, %s%s%s\n",
		       ok != (bool)must_fail ? "ok" : "not ok", num, mhow,
		       mhow, !strcmp(how, "reboot") ? "rebooted" : "powered off",
		       bounds, ident && !strstr(bounds, " as ") ?
		       ", as root" : "",
		       ok ? "" : ": not through the helper");
		show_users();
		if (!strcmp(bounds, "open bounds") ||
		    !strcmp(bounds, "open bounds, as root"))
			name_boots();
	}
	printf("# umhcap-guest: done\n");
	fflush(stdout);
	return 0;
}

/*
 * Power as its own user, with every capability: /sbin/poweroff is
 * systemctl, which as any user but root asks logind over D-Bus, and
 * logind lets a caller power off only through polkit or as uid 0 (it
 * does not trust capabilities it reads from /proc).  The machine must
 * stay up; the same command run as that user says why.  Then power is
 * root again, for good.
 */
static void power_as_user(void)
{
	const char *user = purposes[NR_JUDGED - 1].user;
	char cmd[512];

	snprintf(cmd, sizeof(cmd), UMHCAP " user -p power %s", user);
	if (system(cmd)) {
		ksft_test_result_fail("power: %s failed\n", cmd);
		return;
	}
	snprintf(cmd, sizeof(cmd), "open bounds, as %s", user);
	power("poweroff", cmd, true);
	snprintf(cmd, sizeof(cmd),
		 "setpriv --reuid=%s --regid=%s --clear-groups --inh-caps=+all --ambient-caps=+all /sbin/poweroff 2>&1; echo exit $?",
		 user, user);
	show_output(cmd);
	if (system(UMHCAP " user -p power root"))
		ksft_print_msg("umhcap user -p power root failed\n");
}

/* Learning: open, learned, the table; power names the further boots. */
static void learn(int unmeasured)
{
	char *const apply[] = { UMHCAP, "learn", "--apply", NULL };
	unsigned long long used[NR_JUDGED], b;
	bool same = true, within = true, runs = true;

	ksft_set_plan(3 * NR_JOBS + 6 + ident);
	ksft_test_result(!unmeasured, "every helper the plain boot started has a row of Debian as installed\n");
	for (size_t i = 0; i < NR_JOBS; i++) {
		do_job(&jobs[i], "open bounds");
		show_users();
	}
	show_output(UMHCAP " learn");
	for (size_t i = 0; i < NR_JUDGED; i++)
		if (read_bound(purposes[i].name, "used", &used[i]))
			used[i] = CAPS_FULL;
	/* The table says how many helpers its sets are the record of. */
	for (size_t i = 0; i + 1 < NR_JUDGED; i++) {
		const struct umh_measured *m = table(purposes[i].id);
		unsigned long long n = started(purposes[i].name);

		if (!m || m->runs != n) {
			ksft_print_msg("%s: %llu helpers started, the table says %u\n",
				       purposes[i].name, n, m ? m->runs : 0);
			runs = false;
		}
	}
	ksft_test_result(runs, "the table's runs are the helpers this boot started\n");
	ksft_test_result(run(apply) == 0, "umhcap learn --apply\n");
	for (size_t i = 0; i + 1 < NR_JUDGED; i++)
		same &= !read_bound(purposes[i].name, "bset", &b) && b == used[i];
	ksft_test_result(same, "each purpose that ran is bounded to what it used\n");
	for (size_t i = 0; i < NR_JOBS; i++)
		do_job(&jobs[i], "bounded to what it used");

	/* The measured table may need less than was used, never more. */
	for (size_t i = 0; i + 1 < NR_JUDGED; i++) {
		const struct umh_measured *m = table(purposes[i].id);

		if (!m || m->caps & ~used[i]) {
			ksft_print_msg("%s: the table needs %#llx, more than was used\n",
				       purposes[i].name,
				       m ? (unsigned long long)m->caps : 0);
			within = false;
			continue;
		}
		within &= write_bound(purposes[i].name, "bset", m->caps) >= 0 &&
			  write_bound(purposes[i].name, "inheritable", m->caps) >= 0;
	}
	ksft_test_result(within, "bounded to the measured table, within what was used\n");
	for (size_t i = 0; i < NR_JOBS; i++)
		do_job(&jobs[i], "bounded to the measured table");
	if (ident) {
		power_as_user();
		power("poweroff", "open bounds, as root", false);
	} else {
		power("poweroff", "open bounds", false);
	}
}

/*
 * The learned sets, or the measured table's, from the command line: every
 * job, then power, through orderly_reboot() for the learned sets.
 */
static void bounded(bool learned)
{
	const char *bounds = learned ? "bounded from boot to what it used" :
			     "bounded from boot to the measured table";

	ksft_set_plan(NR_JOBS + 1);
	for (size_t i = 0; i < NR_JOBS; i++)
		do_job(&jobs[i], bounds);
	power(learned ? "reboot" : "poweroff", bounds, false);
}

/* Why the measured table keeps @cap for @purpose, or NULL. */
static const char *kept_because(enum umh_purpose purpose, int cap)
{
	const struct umh_measured *m = table(purpose);

	return m && m->note && (m->kept >> cap & 1) ? m->note : NULL;
}

/*
 * Each purpose named, less one capability: the table needs it if one of
 * the purpose's jobs fails without it (a root service's crash may need
 * less than a user's), and does not if all are still done.
 */
static void minus(char *list)
{
	char *item, *save, power_item[64] = "", copy[512];
	unsigned int plan = 0;

	snprintf(copy, sizeof(copy), "%s", list);
	for (item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save))
		plan++;
	ksft_set_plan(plan);
	for (item = strtok_r(list, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':'), failed[512] = "";
		const struct umh_measured *need;
		const char *kept, *name;
		bool needed;
		int cap, p;

		if (!colon || (*colon = '\0', p = purpose_lookup(item)) < 0) {
			ksft_test_result_fail("bad item %s in UMH_INSTALLED_MINUS\n", item);
			continue;
		}
		cap = atoi(colon + 1);
		name = cap_to_name(cap);
		if (p == UMH_POWER) {
			snprintf(power_item, sizeof(power_item), "%s", name);
			continue;
		}
		need = table(p);
		needed = need && (need->caps >> cap & 1);
		kept = kept_because(p, cap);
		for (size_t i = 0; i < NR_JOBS; i++) {
			char why[512] = "";

			if ((int)jobs[i].id != p)
				continue;
			if (!jobs[i].fn(why, sizeof(why))) {
				ksft_print_msg("%s without %s: %s: done\n", item,
					       name, jobs[i].what);
			} else {
				ksft_print_msg("%s without %s: %s: fails: %s\n", item,
					       name, jobs[i].what, why);
				snprintf(failed + strlen(failed),
					 sizeof(failed) - strlen(failed), "%s%s",
					 *failed ? ", " : "", jobs[i].name);
			}
		}
		if (*failed)
			ksft_test_result(needed, "%s without %s: fails: %s; %s\n",
					 item, name, failed,
					 needed ? "the table needs it" :
					 "the table does not list it");
		else
			ksft_test_result(!needed || kept,
					 "%s without %s: every job is still done; %s%s\n",
					 item, name,
					 kept ? "kept because: " :
					 needed ? "the table needs it and says not why" :
					 "the table does not need it",
					 kept ? kept : "");
	}
	if (*power_item) {
		char bounds[96];
		const struct umh_measured *m = table(UMH_POWER);

		snprintf(bounds, sizeof(bounds), "without %s", power_item);
		power("poweroff", bounds, m && m->caps);
	}
}

/* ---- request_key's handlers (UMH_INSTALLED=handlers) */

/*
 * The lines of the test's own in request-key.d: cifs.upcall for a user
 * key of a cifs.spnego key's description (the kernel refuses to make
 * cifs.spnego keys for user space), and, for a run of a handler with
 * fewer capabilities, that handler through "installed_test only".
 */
#define HANDLER_CONF	"/etc/request-key.d/umhcap-test.conf"
#define CIFS_UPCALL	"/usr/sbin/cifs.upcall"
#define NFSIDMAP	"/usr/sbin/nfsidmap"

/*
 * "installed_test only MASK PROGRAM ARG...": PROGRAM with no capability
 * outside MASK, in any set, the bounding set first (which needs
 * CAP_SETPCAP, dropped last): root's exec would take it back from there.
 */
static int only_exec(const char *mask_text, char **argv)
{
	unsigned long long mask = strtoull(mask_text, NULL, 0);
	cap_t caps = cap_get_proc();
	cap_value_t v;

	if (!caps)
		return 127;
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++) {
		if (mask >> cap & 1)
			continue;
		v = cap;
		if (cap != CAP_SETPCAP &&
		    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			return 127;
		cap_set_flag(caps, CAP_EFFECTIVE, 1, &v, CAP_CLEAR);
		cap_set_flag(caps, CAP_PERMITTED, 1, &v, CAP_CLEAR);
		cap_set_flag(caps, CAP_INHERITABLE, 1, &v, CAP_CLEAR);
	}
	if (!(mask >> CAP_SETPCAP & 1) &&
	    prctl(PR_CAPBSET_DROP, CAP_SETPCAP, 0, 0, 0))
		return 127;
	if (cap_set_proc(caps))
		return 127;
	cap_free(caps);
	execv(argv[0], argv);
	return 127;
}

/* nfsidmap maps uid 1000 to its NFSv4 name, umhuser@<domain>. */
static int nfsidmap_job(char *why, size_t n)
{
	return user_request_key(USER_UID, "id_resolver", "user:1000", "",
				USER_NAME "@", why, n);
}

static char cifs_host[64];

/*
 * What cifs.upcall logged of the run for cifs_host, its last lines: 1 if
 * it asked for the ticket, 0 if it exited first, -1 if it is not all in
 * the journal yet.  It logs "host=" as it reads the key, and "Exit
 * status" last.
 */
static int cifs_outcome(void)
{
	static char out[32768];
	char host[80], ticket[160];
	const char *start, *end, *asked;

	if (capture("journalctl -q -o cat -n 100 -t cifs.upcall", out, sizeof(out)))
		return -1;
	snprintf(host, sizeof(host), "\nhost=%s\n", cifs_host);
	snprintf(ticket, sizeof(ticket),
		 "handle_krb5_mech: getting service ticket for %s\n", cifs_host);
	start = strstr(out, host);
	end = start ? strstr(start, "\nExit status") : NULL;
	if (!end)
		return -1;
	asked = strstr(start, ticket);
	return asked && asked < end;
}

static bool cifs_logged(void)
{
	return cifs_outcome() >= 0;
}

/*
 * A user's Kerberos SMB mount, as cifs.upcall sees it: a key of the
 * user's, with its uid, creduid and pid.  No KDC answers, so the key is
 * negated; the job is done when cifs.upcall, as the user, in the user's
 * namespaces, asks for the service ticket: it logs that after setuid().
 */
static int cifs_upcall_job(char *why, size_t n)
{
	static int seq;
	char host[64];
	int status;
	pid_t pid;

	snprintf(host, sizeof(host), "umhcap-cifs-%d-%d", getpid(), ++seq);
	snprintf(cifs_host, sizeof(cifs_host), "%s", host);
	pid = fork();
	if (pid < 0)
		return fail(why, n, "fork: %s", strerror(errno));
	if (!pid) {
		char desc[256];

		if (become(USER_UID) ||
		    syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
			_exit(2);
		snprintf(desc, sizeof(desc),
			 "ver=0x2;host=%s;ip4=127.0.0.1;sec=krb5;uid=0x%x;creduid=0x%x;pid=0x%x",
			 host, USER_UID, USER_UID, getpid());
		_exit(syscall(SYS_request_key, "user", desc, "",
			      KEY_SPEC_SESSION_KEYRING) < 0 ? 0 : 3);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return fail(why, n, "the user's request_key(): %s",
			    WIFEXITED(status) && WEXITSTATUS(status) == 3 ?
			    "a key came, with no KDC" : "failed to start");
	if (!wait_for(cifs_logged))
		return fail(why, n, "cifs.upcall logged no whole run for %s", host);
	if (!cifs_outcome())
		return fail(why, n, "cifs.upcall exited before it asked for a ticket for %s",
			    host);
	return 0;
}

static const struct handler {
	const char *program;
	const char *name;	/* its comm */
	/* request-key.d's line for it, less the program and its arguments */
	const char *line;
	const char *args;
	job_fn fn;
} handlers[] = {
	{ NFSIDMAP, "nfsidmap", "create id_resolver user:* *",
	  "-t 600 %k %d", nfsidmap_job },
	{ CIFS_UPCALL, "cifs.upcall", "create user ver=0x2;* *", "%k",
	  cifs_upcall_job },
};

#define NR_HANDLERS (sizeof(handlers) / sizeof(handlers[0]))

/*
 * request-key.d's lines of the test: cifs.upcall's stand-in always, and
 * @h, if not NULL, through "installed_test only @mask".  nfsidmap runs
 * from Debian's own id_resolver.conf otherwise.
 */
static int handler_conf(const struct handler *h, unsigned long long mask)
{
	FILE *f = fopen(HANDLER_CONF, "w");

	if (!f)
		return -1;
	for (size_t i = 0; i < NR_HANDLERS; i++) {
		const struct handler *o = &handlers[i];

		if (o == h)
			fprintf(f, "%s " SELF " only %#llx %s %s\n", o->line,
				mask, o->program, o->args);
		else if (!strcmp(o->program, CIFS_UPCALL))
			fprintf(f, "%s %s %s\n", o->line, o->program, o->args);
	}
	return fclose(f) ? -1 : 0;
}

/*
 * What the trace saw @comm, a helper of request_key, use and be refused
 * since it was last emptied; it is emptied.
 */
static void handler_trace(const char *comm, unsigned long long *used,
			  unsigned long long *refused)
{
	char line[1024];
	FILE *f = fopen(TRACE, "r");
	int fd;

	*used = *refused = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char purpose[32], name[32];
		char *p = strstr(line, "umh_capable: ");
		int cap, noaudit, ret;

		if (!p || sscanf(p, "umh_capable: purpose=%31s pid=%*d comm=\"%31[^\"]\" uid=%*u cap=%d noaudit=%d ret=%d",
				 purpose, name, &cap, &noaudit, &ret) != 5 ||
		    noaudit || strcmp(purpose, "request_key") ||
		    strcmp(name, comm) || cap < 0 || cap > CAP_LAST_CAP)
			continue;
		if (ret)
			*refused |= 1ULL << cap;
		else
			*used |= 1ULL << cap;
	}
	fclose(f);
	fd = open(TRACE, O_WRONLY | O_TRUNC);
	if (fd >= 0)
		close(fd);
}

/* @set's names, comma-separated, or "none". */
static const char *cap_names(unsigned long long set, char *out, size_t n)
{
	size_t len = 0;

	out[0] = '\0';
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++) {
		char *name;

		if (!(set >> cap & 1))
			continue;
		name = cap_to_name(cap);
		len += snprintf(out + len, len < n ? n - len : 0, "%s%s",
				len ? "," : "", name ? name : "?");
		cap_free(name);
	}
	if (!len)
		snprintf(out, n, "none");
	return out;
}

/* How many results handlers_as() gives for @conf. */
static unsigned int handlers_plan(enum umh_measured_conf conf)
{
	unsigned int plan = 0;

	for (size_t i = 0; i < NR_HANDLERS; i++) {
		const struct umh_handler *row = umh_handler_find(handlers[i].program,
								  conf);

		plan++;
		if (row && !row->fails)
			plan += 1 + __builtin_popcountll(row->caps);
	}
	return plan;
}

/*
 * Each handler, its helper as root or as its own user (@conf): its job
 * with open bounds, which must be done or fail as its row says; then, for
 * a row whose job is done, the job with the row's set only, which must be
 * done, and with that set less each of its capabilities, which must fail.
 * What the trace saw it use is shown, not judged: a program may need a
 * capability no check asks for, as one that capset() raises.
 */
static void handlers_as(enum umh_measured_conf conf, const char *as)
{
	char have[512], want[512];

	for (size_t i = 0; i < NR_HANDLERS; i++) {
		const struct handler *h = &handlers[i];
		const struct umh_handler *row = umh_handler_find(h->program, conf);
		unsigned long long used, refused;
		char why[512] = "";
		bool done;

		handler_trace(h->name, &used, &refused);
		if (handler_conf(NULL, 0)) {
			ksft_test_result_fail("%s, %s: cannot write " HANDLER_CONF "\n",
					      h->name, as);
			continue;
		}
		done = !h->fn(why, sizeof(why));
		handler_trace(h->name, &used, &refused);
		ksft_print_msg("%s, %s, open bounds: %s%s; used %s; refused %s\n",
			       h->name, as, done ? "done" : "fails: ", why,
			       cap_names(used, have, sizeof(have)),
			       cap_names(refused, want, sizeof(want)));
		if (!done) {
			char cmd[128];

			snprintf(cmd, sizeof(cmd),
				 "journalctl -q -o cat -t %s | tail -n 3", h->name);
			show_output(cmd);
		}
		if (!row) {
			ksft_test_result_fail("%s, %s: no row in the handler table\n",
					      h->name, as);
			continue;
		}
		ksft_test_result(done == !row->fails,
				 "request_key: %s, %s, open bounds: %s, as its row says\n",
				 h->name, as, done ? "its job is done" : "it fails");
		if (row->fails)
			continue;
		handler_conf(h, row->caps);
		done = !h->fn(why, sizeof(why));
		ksft_test_result(done, "request_key: %s, %s, with its row's set only: its job is done%s%s\n",
				 h->name, as, done ? "" : ": ", why);
		for (int cap = 0; cap <= CAP_LAST_CAP; cap++) {
			char *name, cmd[128], error[256] = "";

			if (!(row->caps >> cap & 1))
				continue;
			handler_conf(h, row->caps & ~(1ULL << cap));
			*why = '\0';
			done = !h->fn(why, sizeof(why));
			name = cap_to_name(cap);
			/* Its caller: the error the handler logged last. */
			snprintf(cmd, sizeof(cmd),
				 "journalctl -q -o cat -p err -n 1 -t %s", h->name);
			if (!done && !capture(cmd, error, sizeof(error)))
				error[strcspn(error, "\n")] = '\0';
			ksft_test_result(!done, "request_key: %s, %s, without %s: %s%s%s%s\n",
					 h->name, as, name,
					 done ? "its job is still done" : "fails: ",
					 why, *error ? "; it logged: " : "", error);
			cap_free(name);
		}
	}
	unlink(HANDLER_CONF);
}

/*
 * umhcap check, on Debian's request-key.d with open bounds: a note for
 * @program, and for no other handler, or for none if NULL.
 */
static void check_notes(const char *program)
{
	char out[8192] = "", want[128] = "";
	const char *p;
	int notes = 0;

	capture(UMHCAP " check", out, sizeof(out));
	for (p = out; (p = strstr(p, "note: request_key: ")); p++)
		notes++;
	if (program)
		snprintf(want, sizeof(want), "note: request_key: %s, ", program);
	ksft_test_result(notes == !!program && (!program || strstr(out, want)),
			 "umhcap check: %s, open bounds: %s\n",
			 program ? "request-key as its own user" : "request-key as root",
			 program ? "a note for nfsidmap, which only runs as root" :
			 "no note on any handler");
	if (notes != !!program)
		show_output(UMHCAP " check");
}

/*
 * request_key's handlers from nfs-common and cifs-utils, each against its
 * row of the handler table: request-key as root, then as its own user.
 */
static void handlers_boot(void)
{
	char *const nfsv4[] = { "/sbin/modprobe", "nfsv4", NULL };
	char cmd[256];

	ksft_set_plan(handlers_plan(UMH_CONF_INSTALLED) +
		      handlers_plan(UMH_CONF_INSTALLED_USER) + 3);
	/* The NFSv4 client registers the id_resolver key type. */
	ksft_test_result(run(nfsv4) == 0, "modprobe nfsv4, as root\n");
	show_output("sh -c 'head -n 20 /etc/request-key.d/*.conf'");
	handlers_as(UMH_CONF_INSTALLED, "as root");
	check_notes(NULL);
	snprintf(cmd, sizeof(cmd), UMHCAP " user -p request_key umh-request-key");
	show_output(cmd);
	handlers_as(UMH_CONF_INSTALLED_USER, "as umh-request-key");
	check_notes(NFSIDMAP);
}

/* ---- Install and keep: the administrator's loop, four boots (keep.sh) */

#define GRUB_CFG	"/etc/default/grub.d/umhcap.cfg"
#define GRUB_MENU	"/boot/grub/grub.cfg"
#define REFUSED		"umh: refused a capability its bounds withhold: "
/*
 * The job boot 1 holds back: a user's crash needs cap_dac_read_search
 * (the measured table's row), which a root service's does not use.
 */
#define HELD_BACK	1
#define HELD_BACK_CAP	CAP_DAC_READ_SEARCH
#define ALLOW		"coredump:cap_dac_read_search"

/* @cmd's first line of output, without its newline; "" if none. */
static void first_line(const char *cmd, char *out, size_t n)
{
	out[0] = '\0';
	capture(cmd, out, n);
	out[strcspn(out, "\n")] = '\0';
}

/*
 * The kernel this boot runs is the one dpkg installed: /boot/vmlinuz-<its
 * release> belongs to the package linux-image-<release>, installed, and
 * is the file QEMU booted (UMH_KERNEL_SHA256, which keep.sh computed).
 */
static void kernel_from_dpkg(void)
{
	char cmd[256], owner[256], status[256], sum[128];
	const char *want = param("UMH_KERNEL_SHA256");
	struct utsname u;
	bool ok;

	if (uname(&u))
		ksft_exit_fail_msg("uname: %s\n", strerror(errno));
	snprintf(cmd, sizeof(cmd), "dpkg -S /boot/vmlinuz-%s 2>&1", u.release);
	first_line(cmd, owner, sizeof(owner));
	snprintf(cmd, sizeof(cmd),
		 "dpkg-query -W -f='${Status} ${Version}' linux-image-%s 2>&1",
		 u.release);
	first_line(cmd, status, sizeof(status));
	snprintf(cmd, sizeof(cmd), "sha256sum /boot/vmlinuz-%s", u.release);
	first_line(cmd, sum, sizeof(sum));
	sum[strcspn(sum, " ")] = '\0';
	ksft_print_msg("dpkg -S /boot/vmlinuz-%s: %s\n", u.release, owner);
	ksft_print_msg("linux-image-%s: %s\n", u.release, status);
	ok = !strncmp(owner, "linux-image-", 12) &&
	     !strncmp(status, "install ok installed ", 21) &&
	     want && !strcmp(sum, want);
	ksft_test_result(ok, "the kernel booted is /boot/vmlinuz-%s, from the package linux-image-%s as dpkg installed it (sha256 %.12s, QEMU's %.12s)\n",
			 u.release, u.release, sum, want ? want : "unknown");
}

/*
 * Debian's own grub-mkconfig makes the boot menu, as update-grub does,
 * from what umhcap wrote: with @bounded, the bounds are on every normal
 * entry and on no recovery entry ("single"); without, on none.  Its
 * 10_linux lists the kernels dpkg put in /boot; 05_debian_theme wants
 * /boot/grub, which grub-install would have made.  keep.sh boots the
 * menu's first entry next.
 */
static void grub_menu(bool bounded)
{
	char out[65536], *line, *save;
	int normal = 0, recovery = 0, wrong = 0;

	if (mkdir("/boot/grub", 0755) && errno != EEXIST)
		ksft_exit_fail_msg("mkdir /boot/grub: %s\n", strerror(errno));
	if (system("grub-mkconfig -o " GRUB_MENU " >/dev/null 2>&1") ||
	    read_text(GRUB_MENU, out, sizeof(out)) <= 0) {
		show_output("grub-mkconfig -o " GRUB_MENU " 2>&1 >/dev/null; echo grub-mkconfig: exit $?");
		out[0] = '\0';
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		bool rec, has;

		line += strspn(line, " \t");
		if (strncmp(line, "linux", 5) || !strchr(" \t", line[5]))
			continue;
		ksft_print_msg(GRUB_MENU ": %s\n", line);
		rec = strstr(line, " single");
		has = strstr(line, " usermodehelper.");
		recovery += rec;
		normal += !rec;
		wrong += rec ? has : has != bounded;
	}
	ksft_test_result(normal && recovery && !wrong,
			 "grub-mkconfig -o " GRUB_MENU ": the bounds on %s of %d normal entries, on none of %d recovery entries\n",
			 bounded ? "each" : "none", normal, recovery);
}

/* The exposure systemd-analyze security gives @unit, or -1. */
static double exposure(const char *unit)
{
	char cmd[128], out[16384], *s;
	double score;

	snprintf(cmd, sizeof(cmd),
		 "systemd-analyze security --no-pager %s 2>&1", unit);
	capture(cmd, out, sizeof(out));
	s = strstr(out, "Overall exposure level for ");
	if (!s || !(s = strstr(s, ": ")) || sscanf(s, ": %lf", &score) != 1) {
		ksft_print_msg("%s", out);
		return -1;
	}
	ksft_print_msg("systemd-analyze security %s:%.*s\n", unit,
		       (int)strcspn(s + 1, "\n"), s + 1);
	return score;
}

/*
 * The package's units, hardened: each scores 2.0 or less; the timer is
 * active, and its service saves this boot's record as it runs.
 */
static void keep1_units(void)
{
	char out[256], path[128], id[64] = "";
	double save = exposure("umhcap-save.service");
	double snap = exposure("umhcap-snapshot.service");
	struct stat st;

	ksft_test_result(save >= 0 && save <= 2.0 && snap >= 0 && snap <= 2.0,
			 "systemd-analyze security: umhcap-save.service %.1f, umhcap-snapshot.service %.1f, each 2.0 or less\n",
			 save, snap);
	first_line("systemctl is-active umhcap-snapshot.timer", out, sizeof(out));
	read_text("/proc/sys/kernel/random/boot_id", id, sizeof(id));
	id[strcspn(id, "\n")] = '\0';
	snprintf(path, sizeof(path), "/var/lib/umhcap/boots/%s", id);
	ksft_test_result(!strcmp(out, "active") && stat(path, &st) &&
			 !system("systemctl start umhcap-snapshot.service") &&
			 !stat(path, &st),
			 "umhcap-snapshot.timer is %s, and its service, hardened, saves this boot's record while it runs\n",
			 out);
}

/*
 * Boot 1: the kernel as dpkg installed it; the package as dpkg -i left
 * it, its unit running; every job with open bounds but the one held back;
 * the learned bounds written where GRUB reads them, and the menu made.
 * The unit saves the record at shutdown.
 */
static void keep1(void)
{
	char out[4096];
	int rc;

	ksft_set_plan(NR_JOBS - 1 + 8);
	kernel_from_dpkg();
	first_line("dpkg-query -W -f='${Status} ${Version}' umhcap", out,
		   sizeof(out));
	ksft_test_result(!strncmp(out, "install ok installed ", 21),
			 "the umhcap package is installed: %s\n", out);
	show_output("cat " TEST_DIR "/lintian.txt");
	show_output("dpkg -V umhcap; echo dpkg -V: exit $?");
	ksft_test_result(!system("dpkg -V umhcap"),
			 "dpkg -V umhcap: every file as the package has it\n");
	first_line("systemctl is-active umhcap-save.service", out, sizeof(out));
	ksft_test_result(!strcmp(out, "active"),
			 "umhcap-save.service is active, to save the record at shutdown: %s\n",
			 out);
	keep1_units();
	for (size_t i = 0; i < NR_JOBS; i++)
		if (i != HELD_BACK)
			do_job(&jobs[i], "open bounds");
	show_output(UMHCAP " learn");
	show_output(UMHCAP " boot --grub 2>&1; echo exit $?");
	rc = read_text(GRUB_CFG, out, sizeof(out));
	ksft_test_result(rc > 0 && strstr(out, "usermodehelper.bset="),
			 "umhcap boot --grub wrote the learned bounds to " GRUB_CFG "\n");
	show_output("cat " GRUB_CFG);
	grub_menu(true);
}

/* The mask of purpose @name in the boot items @items, or CAPS_FULL. */
static unsigned long long item_mask(const char *items, const char *name)
{
	size_t len = strlen(name);
	const char *p = items;

	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ':')
			return strtoull(p + len + 1, NULL, 16);
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return CAPS_FULL;
}

/*
 * Every helper the trace saw start, of a purpose the command line
 * bounds, started with the bounding set the command line gives it.
 */
static void bounded_from_first(const char *items)
{
	unsigned long long global = item_mask(items, "all"), want, bset;
	int checked = 0, wrong = 0;
	char line[1024];
	FILE *f = fopen(TRACE, "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "umh_exec: "), purpose[32], *b;

		if (!p || sscanf(p, "umh_exec: purpose=%31s", purpose) != 1)
			continue;
		want = item_mask(items, purpose);
		if (want == CAPS_FULL)
			continue;
		b = strstr(p, " bset=");
		if (!b || sscanf(b, " bset=%llx", &bset) != 1)
			continue;
		checked++;
		if (bset != (want & global)) {
			wrong++;
			ksft_print_msg("started with bset %#llx, not %#llx: %s",
				       bset, want & global, p + 10);
		}
	}
	if (f)
		fclose(f);
	ksft_test_result(checked && !wrong,
			 "every helper of a bounded purpose started within its bounds, from the first (%d checked)\n",
			 checked);
}

/* The refusals of @purpose's capability @cap that journalctl -k shows */
static int journal_refusals(const char *purpose, int cap)
{
	char out[65536], *line, *save, want[64];
	int n = 0;

	snprintf(want, sizeof(want), "purpose=%s ", purpose);
	capture("journalctl -k -b -q --no-pager -o cat", out, sizeof(out));
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *r = strstr(line, REFUSED);
		int c;

		if (!r)
			continue;
		ksft_print_msg("journalctl -k: %s\n", r);
		r = strstr(r, " cap=");
		n += strstr(line, want) && r && sscanf(r, " cap=%d", &c) == 1 &&
		     c == cap;
	}
	return n;
}

/*
 * Boot 2, from the menu boot 1 made: the record of boot 1 merged; the
 * jobs boot 1 did still done; the one held back refused; every helper
 * bounded from the first; the refusal in the journal and in umhcap
 * refusals.  Then the way back for that one capability: boot --grub
 * --allow, and the menu made again.
 */
static void keep2(void)
{
	char out[65536], *line, items[1024] = "";
	const char *bset = param("usermodehelper.bset");
	int saved;

	if (bset)
		snprintf(items, sizeof(items), "%s", bset);
	ksft_set_plan(NR_JOBS + 8);
	kernel_from_dpkg();
	show_output(UMHCAP " learn");
	capture(UMHCAP " learn --json", out, sizeof(out));
	line = strstr(out, "\"saved_boots\":");
	if (!line || sscanf(line, "\"saved_boots\":%d", &saved) != 1)
		saved = -1;
	ksft_test_result(saved == 1,
			 "umhcap learn merges the record boot 1 saved at shutdown (saved boots: %d)\n",
			 saved);
	for (size_t i = 0; i < NR_JOBS; i++) {
		char why[512] = "";
		int ret;

		if (i != HELD_BACK) {
			do_job(&jobs[i], "bounded from boot to what boot 1 used");
			continue;
		}
		ret = jobs[i].fn(why, sizeof(why));
		ksft_test_result(ret, "%s: %s, bounded to what boot 1 used: refused, it needs more%s%s\n",
				 jobs[i].purpose, jobs[i].what, ret ? ": " : "",
				 why);
	}
	/* The plain boot started none: the jobs' helpers are the first. */
	bounded_from_first(items);
	ksft_test_result(journal_refusals("coredump", HELD_BACK_CAP) > 0,
			 "journalctl -k shows the core dump helper refused cap_dac_read_search\n");
	/* The same, counted by umhcap from the journal. */
	capture(UMHCAP " refusals", out, sizeof(out));
	ksft_print_msg("umhcap refusals:\n%s", out);
	line = strstr(out, " (this boot):\n");
	ksft_test_result(line && strstr(line, "\n  coredump       cap_dac_read_search "),
			 "umhcap refusals counts this boot's refusal of cap_dac_read_search to coredump, from the journal\n");
	/* Learn, with the one refused capability named: for the next boot. */
	show_output(UMHCAP " boot --grub --allow " ALLOW " 2>&1; echo exit $?");
	read_text(GRUB_CFG, out, sizeof(out));
	line = strstr(out, " usermodehelper.bset=");
	if (line)
		line += strlen(" usermodehelper.bset=");
	ksft_test_result(line && (item_mask(line, "coredump") &
				  (1ULL << HELD_BACK_CAP)),
			 "umhcap boot --grub --allow " ALLOW " gives coredump cap_dac_read_search back for the next boot\n");
	/* The second day's one screen, with the next boot's bounds' file */
	if (capture(UMHCAP " status", out, sizeof(out)))
		out[0] = '\0';
	ksft_print_msg("umhcap status:\n%s", out);
	line = strstr(out, "\nsaved boots: ");
	if (!line || sscanf(line, "\nsaved boots: %d", &saved) != 1)
		saved = -1;
	ksft_test_result(saved >= 1 && strstr(out, "\n  coredump ") &&
			 strstr(out, "(" GRUB_CFG ")"),
			 "umhcap status: %d saved boots, and coredump's bounds of the next boot from " GRUB_CFG "\n",
			 saved);
	grub_menu(true);
}

/*
 * Boot 3, from the menu boot 2 made: every job done, the one held back
 * too, within bounds from the first; then boot --remove undoes boot, and
 * the menu made again has no bounds.
 */
static void keep3(void)
{
	const char *bset = param("usermodehelper.bset");
	char out[8192], items[1024] = "";
	struct stat st;
	bool ok;

	if (bset)
		snprintf(items, sizeof(items), "%s", bset);
	ksft_set_plan(NR_JOBS + 6);
	kernel_from_dpkg();
	ksft_test_result(bset && (item_mask(items, "coredump") &
				  (1ULL << HELD_BACK_CAP)),
			 "the command line gives coredump cap_dac_read_search: %s\n",
			 items);
	for (size_t i = 0; i < NR_JOBS; i++)
		do_job(&jobs[i], "bounded to what boot 1 used and " ALLOW);
	bounded_from_first(items);
	ok = !capture(UMHCAP " boot --remove -n", out, sizeof(out)) &&
	     !strcmp(out, "-n, nothing removed: would remove " GRUB_CFG "\n") &&
	     !stat(GRUB_CFG, &st);
	if (!ok)
		ksft_print_msg("umhcap boot --remove -n: %s\n", out);
	ksft_test_result(ok, "umhcap boot --remove -n names " GRUB_CFG " and leaves it\n");
	show_output(UMHCAP " boot --remove 2>&1; echo exit $?");
	ksft_test_result(stat(GRUB_CFG, &st) && errno == ENOENT,
			 "umhcap boot --remove removes " GRUB_CFG "\n");
	grub_menu(false);
}

/*
 * Boot 4, from the menu boot 3 made: every purpose's bounds open, every
 * job done; then the package purged takes what umhcap wrote with it: the
 * boot loader's file (written again here) and the saved records.
 */
static void keep4(void)
{
	unsigned long long val = 0;
	int open = 0, narrow = 0;
	DIR *d = opendir(UMH_SYSCTL_DIR);
	struct dirent *e;
	char out[8192];
	struct stat st;
	bool ok;

	ksft_set_plan(NR_JOBS + 3);
	kernel_from_dpkg();
	/* Each purpose the kernel has, and the global bound */
	while (d && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (read_bound(e->d_name, "bset", &val) ||
		    (val & CAPS_FULL) != CAPS_FULL) {
			ksft_print_msg("%s: bset %#llx\n", e->d_name, val);
			narrow++;
		} else {
			open++;
		}
	}
	if (d)
		closedir(d);
	if (read_bound(NULL, "bset", &val) || (val & CAPS_FULL) != CAPS_FULL)
		narrow++;
	ksft_test_result(open && !narrow,
			 "every purpose's bounds are open again (%d open, %d not)\n",
			 open, narrow);
	for (size_t i = 0; i < NR_JOBS; i++)
		do_job(&jobs[i], "open bounds again");
	show_output(UMHCAP " boot --grub 2>&1; echo exit $?");
	ok = !capture("dpkg --purge umhcap 2>&1", out, sizeof(out)) &&
	     strstr(out, "umhcap: removed " GRUB_CFG "\n") &&
	     stat(GRUB_CFG, &st) && errno == ENOENT &&
	     stat("/var/lib/umhcap", &st) && errno == ENOENT;
	ksft_print_msg("dpkg --purge umhcap: %s\n", out);
	ksft_test_result(ok, "dpkg --purge umhcap removes " GRUB_CFG " and /var/lib/umhcap\n");
}

int main(int argc, char **argv)
{
	const char *minus_list, *mode;
	int unmeasured = 0;
	bool from_boot;

	if (argc == 2 && !strcmp(argv[1], "crash")) {
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		return 1;
	}
	read_text("/proc/cmdline", cmdline, sizeof(cmdline));
	ident = param("UMH_INSTALLED_IDENT") &&
		!strcmp(param("UMH_INSTALLED_IDENT"), "1");
	if (argc >= 4 && !strcmp(argv[1], "only"))
		return only_exec(argv[2], argv + 3);
	if (argc == 3 && !strcmp(argv[1], "shutdown"))
		return shutdown_hook(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: installed_test [crash | shutdown poweroff|reboot | only MASK PROGRAM ARG...]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* param() returns its own buffer: copy what is kept. */
	from_boot = param("usermodehelper.uid");
	minus_list = param("UMH_INSTALLED_MINUS");
	minus_list = minus_list ? strdup(minus_list) : NULL;
	mode = param("UMH_INSTALLED");
	mode = mode ? strdup(mode) : NULL;
	ksft_print_header();
	wait_running();
	show_versions();
	if (!minus_list && !mode)
		unmeasured = boot_helpers();
	if (setup() || (ident && set_idents(from_boot))) {
		/* The machine goes down either way: see below. */
		printf("Bail out! setup failed\n");
		fflush(stdout);
		run((char *const[]){ "/bin/systemctl", "poweroff", NULL });
		pause();
	}
	if (minus_list) {
		char list[512];

		snprintf(list, sizeof(list), "%s", minus_list);
		minus(list);
	} else if (mode && !strcmp(mode, "bounded")) {
		bounded(true);
	} else if (mode && !strcmp(mode, "table")) {
		bounded(false);
	} else if (mode && !strcmp(mode, "keep1")) {
		keep1();
	} else if (mode && !strcmp(mode, "keep2")) {
		keep2();
	} else if (mode && !strcmp(mode, "keep3")) {
		keep3();
	} else if (mode && !strcmp(mode, "keep4")) {
		keep4();
	} else if (mode && !strcmp(mode, "handlers")) {
		handlers_boot();
	} else {
		learn(unmeasured);
	}
	/* power() returns only if the machine stayed up. */
	fflush(stdout);
	run((char *const[]){ "/bin/systemctl", "poweroff", NULL });
	pause();
	return 0;
}
