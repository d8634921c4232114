// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests for umhcap. Every test builds a fake root in a temporary
 * directory and runs the binary with --root; nothing touches the host's
 * /proc/sys, /sys or tracefs.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * The measured table (measured.c) and the table of purposes (purpose.c),
 * linked in, and their declarations.
 */
#include "../umhcap.h"
#include "harness.h"

#define B(cap)		(1ULL << (cap))
#define UMH		"proc/sys/kernel/usermodehelper"
#define TFS		"sys/kernel/tracing"
/*
 * A fake tracefs has no instances of its own: tests/fake_tracefs.so,
 * preloaded into umhcap, moves FRESH into the instance umhcap makes, and
 * the instance, when umhcap removes it, to REMOVED/NAME.
 */
#define INSTANCES	TFS "/instances"
#define FRESH		TFS "/fresh-instance"
#define REMOVED		TFS "/removed-instances"
/* This boot, as the kernel names it, and where umhcap save keeps boots. */
#define BOOT_ID_FILE	"proc/sys/kernel/random/boot_id"
#define THIS_BOOT	"0b6a1f0e-3c1d-4f55-9a43-2b8e1f0c9d77"
#define BOOTS		"var/lib/umhcap/boots"

/* The purposes, in the order umhcap shows them, after "all". */
static const char *const purposes[] = {
	"modprobe", "coredump", "uevent", "request_key", "release_agent",
	"power", "initrd", "other",
};
#define NR_PURPOSES	(sizeof(purposes) / sizeof(purposes[0]))

/*
 * The kernel's enum umh_purpose, by number, and the names its trace
 * events carry.
 */
static const char *const kernel_purposes[] = {
	"other", "modprobe", "coredump", "uevent", "request_key",
	"release_agent", "power", "initrd",
};

/* The commands, in the order umhcap --help lists them. */
static const char *const commands[] = {
	"show", "drop", "keep", "user", "learn", "check", "policy", "export",
	"trace", "save", "boot",
};

struct result {
	int code;
	char out[1 << 16];
	char err[1 << 14];
};

static struct result res;
/* Capabilities taken from the bounding set of the next umhcap run. */
static uint64_t drop_caps;
/* The argv[0] of the next umhcap run; NULL: the binary's path. */
static const char *argv0;
/*
 * Messages about a write name a root other than /: " under root ROOT
 * (--root)".  The tests of other things take it out of what umhcap
 * printed with --root ROOT; those of the root itself set see_root.
 */
static bool see_root;

static uint64_t full(void)
{
	int n = cap_max_bits();

	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

/*
 * The row of measured.c that check holds purpose @p to, or NULL.  The
 * tests take the sets from the table itself, so that measured values
 * replace the placeholders without a test to edit.
 */
static const struct umh_measured *row(const char *p)
{
	return umh_measured_for(umh_purpose_lookup(p));
}

/* What check allows purpose @p: its measured set, or nothing. */
static uint64_t need(const char *p)
{
	const struct umh_measured *m = row(p);

	return m ? m->caps : 0;
}

/* The lowest capability outside @m: one bit too wide. */
static uint64_t one_more(uint64_t m)
{
	int i;

	for (i = 0; i < cap_max_bits(); i++)
		if (!(m & B(i)))
			return B(i);
	abort();
}

/* A rotating static buffer, for the formatters below. */
static char *slot_buf(void)
{
	static char buf[8][2048];
	static int slot;

	return buf[slot++ % 8];
}

/* "cap_a, cap_b" or "none", as umhcap lists sets. */
static const char *names(uint64_t m)
{
	char *b = slot_buf(), *name;
	size_t n = 0;
	int i;

	strcpy(b, "none");
	for (i = 0; i < 64; i++) {
		if (!(m & B(i)))
			continue;
		name = cap_to_name(i);
		n += snprintf(b + n, 2048 - n, "%s%s", n ? ", " : "", name);
		cap_free(name);
	}
	return b;
}

/* The shortest of "all", "all except ..." and the list, as show prints. */
static const char *fmt(uint64_t m)
{
	char *b = slot_buf();
	const char *pos;

	if (m == full())
		return "all";
	pos = names(m);
	snprintf(b, 2048, "all except %s", names(full() & ~m));
	return m && strlen(b) < strlen(pos) ? b : pos;
}

static void mkdir_p(const char *path)
{
	char buf[PATH_MAX], *s;

	snprintf(buf, sizeof(buf), "%s", path);
	for (s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(buf, 0755);
		*s = '/';
	}
	mkdir(buf, 0755);
}

static void put(const char *root, const char *rel, const char *fmt, ...)
{
	char path[PATH_MAX], *slash;
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdir_p(path);
	*slash = '/';
	f = fopen(path, "w");
	if (!f)
		abort();
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* Contents of ROOT/rel, or "<missing>". Returns a static buffer. */
static const char *get(const char *root, const char *rel)
{
	static char buf[4][4096];
	static int slot;
	char path[PATH_MAX], *b = buf[slot++ % 4];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return "<missing>";
	n = read(fd, b, 4095);
	close(fd);
	b[n < 0 ? 0 : n] = '\0';
	return b;
}

static bool exists(const char *root, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return !stat(path, &st);
}

static void rm_file(const char *root, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
}

/* Set a bound in the kernel's own format (tab separated). */
static void set_bound(const char *root, const char *purpose, uint64_t bset,
		      uint64_t inh)
{
	char dir[256];

	snprintf(dir, sizeof(dir), UMH "%s%s/bset", purpose ? "/" : "",
		 purpose ? purpose : "");
	put(root, dir, "%u\t%u\n", (uint32_t)bset, (uint32_t)(bset >> 32));
	snprintf(dir, sizeof(dir), UMH "%s%s/inheritable", purpose ? "/" : "",
		 purpose ? purpose : "");
	put(root, dir, "%u\t%u\n", (uint32_t)inh, (uint32_t)(inh >> 32));
}

/* The kernel's record of one purpose (NULL: the global one). */
static void set_record(const char *root, const char *purpose, uint64_t used,
		       unsigned long long started)
{
	char path[256];

	snprintf(path, sizeof(path), UMH "%s%s/used", purpose ? "/" : "",
		 purpose ? purpose : "");
	put(root, path, "%u\t%u\n", (uint32_t)used, (uint32_t)(used >> 32));
	snprintf(path, sizeof(path), UMH "%s%s/started", purpose ? "/" : "",
		 purpose ? purpose : "");
	put(root, path, "%llu\n", started);
}

/* Who the helpers of @purpose run as, in the kernel's format. */
static void set_ident(const char *root, const char *purpose, uint32_t uid,
		      uint32_t gid)
{
	char path[256];

	snprintf(path, sizeof(path), UMH "/%s/uid", purpose);
	put(root, path, "%u\n", uid);
	snprintf(path, sizeof(path), UMH "/%s/gid", purpose);
	put(root, path, "%u\n", gid);
}

/* A kernel with per-purpose bounds, but no identities. */
static void no_idents(const char *root)
{
	char path[256];
	size_t i;

	for (i = 0; i < NR_PURPOSES; i++) {
		snprintf(path, sizeof(path), UMH "/%s/uid", purposes[i]);
		rm_file(root, path);
		snprintf(path, sizeof(path), UMH "/%s/gid", purposes[i]);
		rm_file(root, path);
	}
}

/* What umhcap writes: "LOW HIGH\n". */
static const char *written(uint64_t mask)
{
	static char buf[4][32];
	static int slot;
	char *b = buf[slot++ % 4];

	snprintf(b, 32, "%u %u\n", (uint32_t)mask, (uint32_t)(mask >> 32));
	return b;
}

static const char *kernel_fmt(uint64_t mask)
{
	static char buf[4][32];
	static int slot;
	char *b = buf[slot++ % 4];

	snprintf(b, 32, "%u\t%u\n", (uint32_t)mask, (uint32_t)(mask >> 32));
	return b;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

static void rm_rf(const char *root)
{
	if (!strncmp(root, "/tmp/umhcap-test.", 17))
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void unpatch(const char *root)
{
	char path[PATH_MAX];
	size_t i;

	rm_file(root, UMH "/used");
	rm_file(root, UMH "/started");

	for (i = 0; i < NR_PURPOSES; i++) {
		snprintf(path, sizeof(path), "%s/" UMH "/%s", root,
			 purposes[i]);
		if (strncmp(path, "/tmp/umhcap-test.", 17))
			abort();
		nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	}
}

/*
 * Every purpose bounded to its measured set, the others (initrd, other)
 * to what they used, nothing: check must be clean.
 */
static void harden(const char *root)
{
	size_t i;

	set_bound(root, NULL, full(), full());
	for (i = 0; i < NR_PURPOSES; i++)
		set_bound(root, purposes[i], need(purposes[i]),
			  need(purposes[i]));
}

static void slurp(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n < 0 ? 0 : n] = '\0';
	close(fd);
}

/* Take every @cut out of @buf. */
static void cut_all(char *buf, const char *cut)
{
	size_t n = strlen(cut);
	char *s;

	while ((s = strstr(buf, cut)))
		memmove(s, s + n, strlen(s + n) + 1);
}

/* Run umhcap with args; with_root adds "--root ROOT" in front. */
static int run_argv(const char *root, bool with_root, const char *args[])
{
	const char *bin = getenv("UMHCAP_BIN") ?: "./umhcap";
	const char *argv[64] = { argv0 ?: bin };
	int out = fileno(tmpfile()), err = fileno(tmpfile());
	int i, n = 1, status;
	pid_t pid;

	if (with_root) {
		argv[n++] = "--root";
		argv[n++] = root;
	}
	for (i = 0; args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(out, 1);
		dup2(err, 2);
		if (with_root)
			unsetenv("UMHCAP_ROOT");
		/* Not root: the files' modes stop umhcap already. */
		for (i = 0; i < 64 && !geteuid(); i++)
			if ((drop_caps & B(i)) && prctl(PR_CAPBSET_DROP, i, 0, 0, 0))
				_exit(126);
		execv(bin, (char **)argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	drop_caps = 0;
	argv0 = NULL;
	slurp(out, res.out, sizeof(res.out));
	slurp(err, res.err, sizeof(res.err));
	if (with_root && !see_root) {
		char under[PATH_MAX + 32];

		snprintf(under, sizeof(under), " under root %s (--root)", root);
		cut_all(res.out, under);
		cut_all(res.err, under);
	}
	res.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	return res.code;
}

#define RUN(root, ...) run_argv(root, true, (const char *[]){ __VA_ARGS__, NULL })
#define RUN0(root) run_argv(root, true, (const char *[]){ NULL })

#define ASSERT_HAS(hay, needle) do {					\
	if (!strstr(hay, needle))					\
		TH_LOG("missing \"%s\" in:\n%s", needle, hay);		\
	ASSERT_TRUE(strstr(hay, needle) != NULL);				\
} while (0)

#define ASSERT_LACKS(hay, needle) do {					\
	if (strstr(hay, needle))					\
		TH_LOG("unexpected \"%s\" in:\n%s", needle, hay);	\
	ASSERT_TRUE(strstr(hay, needle) == NULL);				\
} while (0)

#define ASSERT_STARTS(hay, prefix) do {					\
	if (strncmp(hay, prefix, strlen(prefix)))			\
		TH_LOG("want \"%s\" at the start of:\n%s", prefix, hay);	\
	ASSERT_EQ(0, strncmp(hay, prefix, strlen(prefix)));		\
} while (0)

static void fake_tracefs(const char *root, const char *dir);
static int count_of(const char *hay, const char *needle);
static char *tree(const char *root);
static void read_only(const char *root, const char *rel);

FIXTURE(umh) {
	char root[64];
};

FIXTURE_SETUP(umh)
{
	const char *so = getenv("UMHCAP_FAKE_TRACEFS") ?:
			 "./tests/fake_tracefs.so";
	size_t i;

	/* The instances of the fake tracefs, in every umhcap run. */
	ASSERT_EQ(0, access(so, R_OK))
		TH_LOG("%s: %s; make check builds it and sets UMHCAP_FAKE_TRACEFS",
		       so, strerror(errno));
	ASSERT_EQ(0, setenv("LD_PRELOAD", so, 1));
	strcpy(self->root, "/tmp/umhcap-test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	set_bound(self->root, NULL, full(), full());
	set_record(self->root, NULL, 0, 0);
	for (i = 0; i < NR_PURPOSES; i++) {
		set_bound(self->root, purposes[i], full(), full());
		set_ident(self->root, purposes[i], 0, 0);
		set_record(self->root, purposes[i], 0, 0);
	}
	put(self->root, "proc/cmdline",
	    "BOOT_IMAGE=/vmlinuz root=/dev/vda console=ttyS0\n");
	put(self->root, BOOT_ID_FILE, "%s\n", THIS_BOOT);
	fake_tracefs(self->root, TFS);
}

FIXTURE_TEARDOWN(umh)
{
	rm_rf(self->root);
}

/* ---- show ---- */

TEST_F(umh, show_default_is_all)
{
	ASSERT_EQ(0, RUN0(self->root));
	ASSERT_HAS(res.out, "all (global, applies to every helper):\n"
			    "  bset:        all\n"
			    "  inheritable: all\n"
			    "  ceiling:     all\n");
	ASSERT_HAS(res.out, "other:\n  bset:        all\n");
	ASSERT_HAS(res.out, "does not widen anything");
	ASSERT_EQ(0, strcmp(res.err, ""));
}

TEST_F(umh, show_none)
{
	set_bound(self->root, "release_agent", 0, 0);
	ASSERT_EQ(0, RUN(self->root, "show"));
	ASSERT_HAS(res.out, "release_agent:\n"
			    "  bset:        none\n"
			    "  inheritable: none\n"
			    "  ceiling:     none\n");
}

TEST_F(umh, show_list)
{
	uint64_t m = B(CAP_SYS_MODULE) | B(CAP_CHOWN);

	set_bound(self->root, "modprobe", m, m);
	ASSERT_EQ(0, RUN(self->root, "show"));
	ASSERT_HAS(res.out, "modprobe:\n  bset:        cap_chown, cap_sys_module\n");
}

TEST_F(umh, show_all_except)
{
	uint64_t m = full() & ~(B(CAP_SYS_ADMIN) | B(CAP_NET_RAW));

	set_bound(self->root, "coredump", m, m);
	ASSERT_EQ(0, RUN(self->root, "show"));
	ASSERT_HAS(res.out, "coredump:\n"
			    "  bset:        all except cap_net_raw, cap_sys_admin\n");
}

TEST_F(umh, show_ceiling_is_intersection)
{
	uint64_t g = full() & ~B(CAP_SYS_MODULE);
	uint64_t m = B(CAP_SYS_MODULE) | B(CAP_CHOWN);

	set_bound(self->root, NULL, g, g);
	set_bound(self->root, "modprobe", m, m);
	ASSERT_EQ(0, RUN(self->root, "show", "modprobe"));
	ASSERT_HAS(res.out, "  ceiling:     cap_chown\n");
}

TEST_F(umh, show_hex)
{
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	ASSERT_EQ(0, RUN(self->root, "-x", "show", "modprobe"));
	ASSERT_HAS(res.out, "  bset:        0x0000000000010000  cap_sys_module\n"
			    "  inheritable: 0x0000000000000000  none\n");
}

TEST_F(umh, show_json)
{
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	ASSERT_EQ(0, RUN(self->root, "--json", "show", "all", "modprobe"));
	ASSERT_HAS(res.out, "\"version\":1,\"per_purpose\":true,");
	ASSERT_HAS(res.out, "{\"purpose\":\"modprobe\",\"bset\":\"0x10000\","
			    "\"bset_caps\":[\"cap_sys_module\"],"
			    "\"inheritable\":\"0x0\",\"inheritable_caps\":[],"
			    "\"ceiling\":\"0x10000\","
			    "\"ceiling_caps\":[\"cap_sys_module\"]}");
	ASSERT_HAS(res.out, "{\"purpose\":\"all\",");
	ASSERT_LACKS(res.out, "coredump");
	ASSERT_LACKS(res.out, "ceiling =");
}

TEST_F(umh, show_selected_purpose_only)
{
	ASSERT_EQ(0, RUN(self->root, "show", "coredump"));
	ASSERT_HAS(res.out, "coredump:\n");
	ASSERT_LACKS(res.out, "modprobe:");
	ASSERT_LACKS(res.out, "all (global");
}

TEST_F(umh, show_unknown_purpose)
{
	ASSERT_EQ(2, RUN(self->root, "show", "bogus"));
	ASSERT_HAS(res.err, "umhcap: unknown purpose \"bogus\"");
	ASSERT_EQ(0, strcmp(res.out, ""));
}

TEST_F(umh, show_unpatched_kernel)
{
	unpatch(self->root);
	ASSERT_EQ(0, RUN(self->root, "show"));
	ASSERT_HAS(res.out, "all (global");
	ASSERT_HAS(res.out, "per-purpose bounds are not available on this kernel");
	ASSERT_LACKS(res.out, "modprobe:");
}

TEST_F(umh, show_unpatched_purpose_fails)
{
	unpatch(self->root);
	ASSERT_EQ(2, RUN(self->root, "show", "modprobe"));
	ASSERT_HAS(res.err, "per-purpose bounds are not available");
}

TEST_F(umh, root_from_environment)
{
	set_bound(self->root, "power", B(CAP_KILL), B(CAP_KILL));
	setenv("UMHCAP_ROOT", self->root, 1);
	ASSERT_EQ(0, run_argv(self->root, false,
			      (const char *[]){ "show", "power", NULL }));
	ASSERT_HAS(res.out, "power:\n  bset:        cap_kill\n");
}

TEST_F(umh, missing_root)
{
	ASSERT_EQ(2, run_argv(NULL, false, (const char *[]){
		"--root", "/tmp/umhcap-test.nonexistent", "show", NULL }));
	ASSERT_HAS(res.err, "umhcap: cannot open /tmp/umhcap-test.nonexistent/"
			    UMH "/bset: No such file or directory; ");
}

TEST_F(umh, malformed_bound_file)
{
	put(self->root, UMH "/uevent/bset", "12 x\n");
	ASSERT_EQ(2, RUN(self->root, "show"));
	ASSERT_HAS(res.err, "cannot parse");
	ASSERT_HAS(res.err, "uevent/bset");
}

/* ---- drop / keep ---- */

TEST_F(umh, drop_global)
{
	uint64_t want = full() & ~B(CAP_SYS_MODULE);

	ASSERT_EQ(0, RUN(self->root, "drop", "cap_sys_module"));
	ASSERT_STREQ(written(want), get(self->root, UMH "/bset"));
	ASSERT_STREQ(written(want), get(self->root, UMH "/inheritable"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
	ASSERT_HAS(res.out, "all bset: all except cap_sys_module\n");
}

TEST_F(umh, drop_name_forms)
{
	uint64_t want = full() & ~(B(CAP_SYS_ADMIN) | B(CAP_NET_RAW) |
				   B(CAP_NET_ADMIN));

	ASSERT_EQ(0, RUN(self->root, "drop", "-p", "coredump", "SYS_ADMIN",
			 "Cap_Net_Raw", "12"));
	ASSERT_STREQ(written(want), get(self->root, UMH "/coredump/bset"));
	ASSERT_STREQ(written(want),
		     get(self->root, UMH "/coredump/inheritable"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/bset"));
}

TEST_F(umh, drop_p_all_is_global)
{
	uint64_t want = full() & ~B(CAP_SYS_BOOT);

	ASSERT_EQ(0, RUN(self->root, "drop", "-p", "all", "sys_boot"));
	ASSERT_STREQ(written(want), get(self->root, UMH "/bset"));
	ASSERT_STREQ(written(want), get(self->root, UMH "/inheritable"));
}

TEST_F(umh, drop_narrows_existing)
{
	uint64_t b = B(CAP_KILL) | B(CAP_SYS_ADMIN);
	uint64_t i = B(CAP_SYS_ADMIN);

	set_bound(self->root, "power", b, i);
	ASSERT_EQ(0, RUN(self->root, "drop", "-p", "power", "sys_admin"));
	ASSERT_STREQ(written(B(CAP_KILL)), get(self->root, UMH "/power/bset"));
	ASSERT_STREQ(written(0), get(self->root, UMH "/power/inheritable"));
}

TEST_F(umh, drop_dry_run_writes_nothing)
{
	char want[PATH_MAX + 64];
	uint64_t m = full() & ~B(CAP_SYS_MODULE);

	ASSERT_EQ(0, RUN(self->root, "drop", "-n", "-p", "uevent",
			 "sys_module"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/uevent/bset"));
	ASSERT_STREQ(kernel_fmt(full()),
		     get(self->root, UMH "/uevent/inheritable"));
	snprintf(want, sizeof(want), "would write \"%u %u\" to %s/" UMH
		 "/uevent/bset (all except cap_sys_module)\n",
		 (uint32_t)m, (uint32_t)(m >> 32), self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_HAS(res.out, "/uevent/inheritable (all except cap_sys_module)\n");
}

TEST_F(umh, keep_exact)
{
	ASSERT_EQ(0, RUN(self->root, "keep", "-p", "modprobe",
			 "cap_sys_module"));
	ASSERT_STREQ("65536 0\n", get(self->root, UMH "/modprobe/bset"));
	ASSERT_STREQ("65536 0\n", get(self->root, UMH "/modprobe/inheritable"));
	ASSERT_HAS(res.out, "modprobe bset: cap_sys_module\n");
}

TEST_F(umh, keep_high_word)
{
	uint64_t m = B(CAP_CHECKPOINT_RESTORE) | B(CAP_CHOWN);

	ASSERT_EQ(0, RUN(self->root, "keep", "-p", "other",
			 "checkpoint_restore", "0"));
	ASSERT_STREQ(written(m), get(self->root, UMH "/other/bset"));
	ASSERT_STREQ("1 256\n", get(self->root, UMH "/other/bset"));
}

TEST_F(umh, keep_cap_not_in_bound_fails)
{
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE),
		  B(CAP_SYS_MODULE));
	ASSERT_EQ(2, RUN(self->root, "keep", "-p", "modprobe", "sys_module",
			 "chown"));
	ASSERT_HAS(res.err, "cannot keep cap_chown: not in the modprobe bset");
	ASSERT_HAS(res.err, "bounds can only be narrowed");
	ASSERT_STREQ(kernel_fmt(B(CAP_SYS_MODULE)),
		     get(self->root, UMH "/modprobe/bset"));
	ASSERT_STREQ(kernel_fmt(B(CAP_SYS_MODULE)),
		     get(self->root, UMH "/modprobe/inheritable"));
}

TEST_F(umh, keep_inheritable_narrower)
{
	uint64_t m = B(CAP_CHOWN) | B(CAP_MKNOD);

	set_bound(self->root, "uevent", full(), B(CAP_MKNOD));
	ASSERT_EQ(0, RUN(self->root, "keep", "-p", "uevent", "chown",
			 "mknod"));
	ASSERT_STREQ(written(m), get(self->root, UMH "/uevent/bset"));
	ASSERT_STREQ(written(B(CAP_MKNOD)),
		     get(self->root, UMH "/uevent/inheritable"));
	ASSERT_HAS(res.err, "warning: cap_chown is not in the uevent inheritable");
}

TEST_F(umh, unknown_cap_writes_nothing)
{
	ASSERT_EQ(2, RUN(self->root, "drop", "-p", "modprobe", "cap_chown",
			 "cap_bogus", "cap_kill,cap_bogus2"));
	ASSERT_HAS(res.err, "unknown capability \"cap_bogus\"");
	ASSERT_HAS(res.err, "unknown capability \"cap_bogus2\"");
	ASSERT_LACKS(res.err, "cap_kill");
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
	ASSERT_STREQ(kernel_fmt(full()),
		     get(self->root, UMH "/modprobe/inheritable"));
}

/* Comma-separated lists, mixed with arguments of their own. */
TEST_F(umh, cap_lists)
{
	uint64_t m = B(CAP_SYS_PTRACE) | B(CAP_DAC_OVERRIDE) | B(CAP_CHOWN);
	uint64_t d = full() & ~(B(CAP_SYS_MODULE) | B(CAP_NET_ADMIN));

	ASSERT_EQ(0, RUN(self->root, "keep", "-p", "coredump",
			 "sys_ptrace,dac_override", "chown"));
	ASSERT_STREQ(written(m), get(self->root, UMH "/coredump/bset"));
	ASSERT_STREQ(written(m), get(self->root, UMH "/coredump/inheritable"));
	ASSERT_EQ(0, RUN(self->root, "drop", "cap_sys_module,cap_net_admin"));
	ASSERT_STREQ(written(d), get(self->root, UMH "/bset"));
	ASSERT_STREQ(written(d), get(self->root, UMH "/inheritable"));
	/* Names, numbers and cases, in one list; a name twice is once. */
	ASSERT_EQ(0, RUN(self->root, "keep", "-p", "coredump",
			 "CAP_SYS_PTRACE,1,Sys_Ptrace"));
	ASSERT_STREQ(written(B(CAP_SYS_PTRACE) | B(CAP_DAC_OVERRIDE)),
		     get(self->root, UMH "/coredump/bset"));
	ASSERT_EQ(0, RUN(self->root, "keep", "-p", "coredump", "sys_ptrace"));
	ASSERT_STREQ(written(B(CAP_SYS_PTRACE)),
		     get(self->root, UMH "/coredump/bset"));
	/* As their help says. */
	ASSERT_EQ(0, RUN(self->root, "drop", "--help"));
	ASSERT_HAS(res.out, "several, as arguments or comma-separated\n"
			    "(sys_module,net_admin); all: every capability; none: no capability,\n"
			    "alone\n");
}

/*
 * none, the empty set: keep none and drop all narrow to nothing; drop
 * none and keep all leave a bound as it is, whatever it is, for bounds
 * only narrow.  From everything, one bit, and nothing.
 */
TEST_F(umh, cap_none_and_all)
{
	static const char *const runs[][2] = {
		{ "keep", "none" }, { "drop", "all" },
		{ "keep", "all" }, { "drop", "none" },
		{ "keep", "ALL" }, { "keep", "None" },
	};
	const uint64_t bounds[] = { full(), B(CAP_KILL), 0 };
	size_t r, b;
	uint64_t want;

	for (r = 0; r < ARRAY_SIZE(runs); r++) {
		for (b = 0; b < ARRAY_SIZE(bounds); b++) {
			/* The inheritable bound narrower: it stays so. */
			set_bound(self->root, "power", bounds[b], 0);
			want = !strcasecmp(runs[r][1], "none") ==
			       !strcmp(runs[r][0], "keep") ? 0 : bounds[b];
			EXPECT_EQ(0, RUN(self->root, runs[r][0], "-p", "power",
					 runs[r][1]))
				TH_LOG("%s %s: %s", runs[r][0], runs[r][1],
				       res.err);
			EXPECT_STREQ(written(want),
				     get(self->root, UMH "/power/bset"))
				TH_LOG("%s %s over %s", runs[r][0], runs[r][1],
				       fmt(bounds[b]));
			EXPECT_STREQ(written(0),
				     get(self->root, UMH "/power/inheritable"));
			EXPECT_STREQ("", res.err);
		}
	}
	ASSERT_EQ(0, RUN(self->root, "keep", "-p", "power", "none"));
	ASSERT_STREQ("power bset: none\npower inheritable: none\n", res.out);
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/bset"));
}

/*
 * umhcap --root ROOT ARGV... refused: exit 2, nothing on stdout, and @err
 * on stderr, at its start where @at_start.
 */
static void refused(struct __test_metadata *_metadata, const char *root,
		    const char *const *argv, const char *err, bool at_start)
{
	const char *at;

	EXPECT_EQ(2, run_argv(root, true, (const char **)argv))
		TH_LOG("%s %s %s", argv[0], argv[1], argv[2]);
	at = strstr(res.err, err);
	EXPECT_TRUE(at_start ? at == res.err : at != NULL)
		TH_LOG("%s %s %s: want \"%s\"%s in: %s", argv[0], argv[1],
		       argv[2], err, at_start ? " at the start" : "", res.err);
	EXPECT_STREQ("", res.out);
}

/* Empty elements, none with names, unknown names: said, nothing written. */
TEST_F(umh, cap_list_errors_write_nothing)
{
	static const struct {
		const char *cmd, *caps[3], *err;
	} bad[] = {
		{ "keep", { "sys_module,,kill" },
		  "umhcap: empty capability name in \"sys_module,,kill\"; " },
		{ "keep", { "sys_module," },
		  "umhcap: empty capability name in \"sys_module,\"; " },
		{ "drop", { ",sys_module" },
		  "umhcap: empty capability name in \",sys_module\"; " },
		{ "drop", { "kill", "" },
		  "umhcap: empty capability name in \"\"; " },
		{ "keep", { "," },
		  "umhcap: empty capability name in \",\"; " },
		{ "keep", { "none,sys_module" },
		  "umhcap: none is the empty set and goes alone: name capabilities, or none\n" },
		{ "drop", { "none", "kill" },
		  "umhcap: none is the empty set and goes alone" },
		{ "keep", { "all", "none" },
		  "umhcap: none is the empty set and goes alone" },
		{ "keep", { "kill,cap_bogus" },
		  "umhcap: unknown capability \"cap_bogus\"; use a name like cap_sys_module or sys_module, a number below " },
		{ "drop", { "allx" },
		  "umhcap: unknown capability \"allx\"" },
		{ "drop", { "kill,99" },
		  "umhcap: unknown capability \"99\"" },
	};
	char *before, *after;
	size_t i;

	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), B(CAP_KILL));
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		refused(_metadata, self->root, (const char *[]){
			bad[i].cmd, "-p", "modprobe", bad[i].caps[0],
			bad[i].caps[1], NULL }, bad[i].err, false);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* -p takes a list, all the global bound among them, and more than once. */
TEST_F(umh, set_purpose_lists)
{
	uint64_t d = full() & ~B(CAP_SYS_ADMIN);
	size_t i;

	ASSERT_EQ(0, RUN(self->root, "keep", "-p", "coredump,uevent",
			 "sys_ptrace"));
	for (i = 0; i < NR_PURPOSES; i++) {
		char bset[64], inh[64];
		uint64_t want = !strcmp(purposes[i], "coredump") ||
				!strcmp(purposes[i], "uevent") ?
				B(CAP_SYS_PTRACE) : full();

		snprintf(bset, sizeof(bset), UMH "/%s/bset", purposes[i]);
		snprintf(inh, sizeof(inh), UMH "/%s/inheritable", purposes[i]);
		EXPECT_STREQ(want == full() ? kernel_fmt(want) : written(want),
			     get(self->root, bset)) TH_LOG("%s", purposes[i]);
		EXPECT_STREQ(want == full() ? kernel_fmt(want) : written(want),
			     get(self->root, inh)) TH_LOG("%s", purposes[i]);
	}
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/bset"));
	ASSERT_STREQ("coredump bset: cap_sys_ptrace\n"
		     "coredump inheritable: cap_sys_ptrace\n"
		     "uevent bset: cap_sys_ptrace\n"
		     "uevent inheritable: cap_sys_ptrace\n", res.out);

	/* all is the global bound; the global bound first, then in order. */
	ASSERT_EQ(0, RUN(self->root, "drop", "-p", "power,all,modprobe",
			 "-p", "power", "sys_admin"));
	ASSERT_STREQ(written(d), get(self->root, UMH "/bset"));
	ASSERT_STREQ(written(d), get(self->root, UMH "/modprobe/bset"));
	ASSERT_STREQ(written(d), get(self->root, UMH "/power/inheritable"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/other/bset"));
	ASSERT_STREQ("all bset: all except cap_sys_admin\n"
		     "all inheritable: all except cap_sys_admin\n"
		     "modprobe bset: all except cap_sys_admin\n"
		     "modprobe inheritable: all except cap_sys_admin\n"
		     "power bset: all except cap_sys_admin\n"
		     "power inheritable: all except cap_sys_admin\n", res.out);

	/* As the help says. */
	ASSERT_EQ(0, RUN(self->root, "keep", "--help"));
	ASSERT_HAS(res.out, "usage: umhcap keep [-p PURPOSE[,PURPOSE...]] [-n] CAP...\n");
	ASSERT_HAS(res.out, "\n  -p PURPOSES         comma-separated bounds to change; all: global (default)\n");
}

/*
 * Every purpose is checked before anything is written: keep names each
 * one a capability is gone from, and writes to none.
 */
TEST_F(umh, set_purpose_list_errors_write_nothing)
{
	static const char *const runs[][6] = {
		{ "keep", "-p", "modprobe,coredump,power", "sys_module" },
		{ "keep", "-p", "uevent,,power", "sys_module" },
		{ "drop", "-p", "uevent,", "sys_module" },
		{ "drop", "-p", ",uevent", "sys_module" },
		{ "drop", "-p", "uevent,bogus", "sys_module" },
		{ "drop", "-p", "uevent", "-p", "", "sys_module" },
	};
	static const char *const errs[] = {
		"umhcap: cannot keep cap_sys_module: not in the coredump bset (currently cap_kill); bounds can only be narrowed, nothing written\n"
		"umhcap: cannot keep cap_sys_module: not in the power bset (currently none); bounds can only be narrowed, nothing written\n",
		"umhcap: empty purpose name in \"uevent,,power\"; separate purposes with one comma, none before the first or after the last\n",
		"umhcap: empty purpose name in \"uevent,\"; ",
		"umhcap: empty purpose name in \",uevent\"; ",
		"umhcap: unknown purpose \"bogus\"; valid: all ",
		"umhcap: empty purpose name in \"\"; ",
	};
	char *before, *after;
	size_t i;

	set_bound(self->root, "coredump", B(CAP_KILL), B(CAP_KILL));
	set_bound(self->root, "power", 0, 0);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(runs); i++)
		refused(_metadata, self->root, runs[i], errs[i], true);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* A write that fails stops drop and keep: what was written is said. */
TEST_F(umh, set_purpose_list_partial_failure)
{
	char want[PATH_MAX + 64], path[PATH_MAX];

	read_only(self->root, UMH "/uevent/bset");
	ASSERT_EQ(3, RUN(self->root, "keep", "-p", "coredump,uevent,power",
			 "sys_ptrace"));
	snprintf(want, sizeof(want), "umhcap: cannot write %s/" UMH
		 "/uevent/bset: Permission denied", self->root);
	ASSERT_HAS(res.err, want);
	ASSERT_HAS(res.err, "umhcap: keep stopped at uevent, after writing to: coredump; the purposes after uevent were not narrowed\n");
	ASSERT_STREQ(written(B(CAP_SYS_PTRACE)),
		     get(self->root, UMH "/coredump/inheritable"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/power/bset"));

	/* The global bound in part. */
	snprintf(path, sizeof(path), "%s/" UMH "/uevent/bset", self->root);
	ASSERT_EQ(0, chmod(path, 0644));
	read_only(self->root, UMH "/inheritable");
	ASSERT_EQ(3, RUN(self->root, "drop", "-p", "all,power", "kill"));
	ASSERT_HAS(res.err, "umhcap: drop stopped at all, after writing to: all (in part); the purposes after all were not narrowed\n");
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/power/bset"));

	/* Nothing written: said so, exit 2. */
	snprintf(path, sizeof(path), "%s/" UMH "/inheritable", self->root);
	ASSERT_EQ(0, chmod(path, 0644));
	set_bound(self->root, NULL, full(), full());
	read_only(self->root, UMH "/bset");
	ASSERT_EQ(2, RUN(self->root, "drop", "kill"));
	ASSERT_HAS(res.err, "umhcap: drop: nothing was written\n");
}

TEST_F(umh, cap_number_out_of_range)
{
	ASSERT_EQ(2, RUN(self->root, "drop", "99"));
	ASSERT_HAS(res.err, "unknown capability \"99\"");
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/bset"));
}

TEST_F(umh, unknown_purpose_writes_nothing)
{
	ASSERT_EQ(2, RUN(self->root, "keep", "-p", "modprob", "sys_module"));
	ASSERT_HAS(res.err, "unknown purpose \"modprob\"");
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/bset"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
}

TEST_F(umh, drop_without_caps_is_usage_error)
{
	ASSERT_EQ(2, RUN(self->root, "drop", "-p", "modprobe"));
	ASSERT_HAS(res.err, "usage: umhcap drop");
}

TEST_F(umh, drop_unpatched)
{
	uint64_t want = full() & ~B(CAP_SYS_RAWIO);

	unpatch(self->root);
	ASSERT_EQ(2, RUN(self->root, "drop", "-p", "modprobe", "sys_rawio"));
	ASSERT_HAS(res.err, "per-purpose bounds are not available");
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/bset"));
	ASSERT_EQ(0, RUN(self->root, "drop", "sys_rawio"));
	ASSERT_STREQ(written(want), get(self->root, UMH "/bset"));
}

/* ---- export ---- */

static void expect_sysctl(struct __test_metadata *_metadata,
			  const char *out, const char *key, uint64_t m)
{
	char line[256];

	snprintf(line, sizeof(line), "%s = %u\t%u\n", key, (uint32_t)m,
		 (uint32_t)(m >> 32));
	ASSERT_HAS(out, line);
}

TEST_F(umh, export_sysctl)
{
	uint64_t g = full() & ~B(CAP_SYS_RAWIO);
	char want[4096];

	set_bound(self->root, NULL, g, g);
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	/* The purposes left open are left out. */
	snprintf(want, sizeof(want),
		 "kernel.usermodehelper.bset = %u\t%u\n"
		 "kernel.usermodehelper.inheritable = %u\t%u\n"
		 "kernel.usermodehelper.modprobe.bset = 65536\t0\n"
		 "kernel.usermodehelper.modprobe.inheritable = 0\t0\n",
		 (uint32_t)g, (uint32_t)(g >> 32),
		 (uint32_t)g, (uint32_t)(g >> 32));
	ASSERT_STREQ(want, res.out);
	expect_sysctl(_metadata, res.out, "kernel.usermodehelper.bset", g);
}

TEST_F(umh, export_cmdline)
{
	char want[2048];
	size_t i;
	int n;

	harden(self->root);
	set_bound(self->root, "other", full(), 0);
	ASSERT_EQ(0, RUN(self->root, "export", "--cmdline"));
	/* The global bound, open, is left out; an open bset is all 64 bits. */
	n = snprintf(want, sizeof(want), "usermodehelper.bset=");
	for (i = 0; i < NR_PURPOSES; i++)
		n += snprintf(want + n, sizeof(want) - n, "%s%s:0x%" PRIx64,
			      i ? "," : "", purposes[i],
			      i == NR_PURPOSES - 1 ? UINT64_MAX : need(purposes[i]));
	n += snprintf(want + n, sizeof(want) - n,
		      " usermodehelper.inheritable=");
	for (i = 0; i < NR_PURPOSES; i++)
		n += snprintf(want + n, sizeof(want) - n, "%s%s:0x%" PRIx64,
			      i ? "," : "", purposes[i],
			      i == NR_PURPOSES - 1 ? 0 : need(purposes[i]));
	snprintf(want + n, sizeof(want) - n, "\n");
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.out, ",initrd:0x0,");
	ASSERT_HAS(res.out, ",other:0xffffffffffffffff ");
	ASSERT_STREQ("", res.err);
}

TEST_F(umh, export_unpatched_global_only)
{
	char want[256];

	unpatch(self->root);
	set_bound(self->root, NULL, B(CAP_SYS_MODULE), 0);
	ASSERT_EQ(0, RUN(self->root, "export", "--cmdline"));
	ASSERT_STREQ("usermodehelper.bset=all:0x10000 "
		     "usermodehelper.inheritable=all:0x0\n", res.out);
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	snprintf(want, sizeof(want),
		 "kernel.usermodehelper.bset = 65536\t0\n"
		 "kernel.usermodehelper.inheritable = 0\t0\n");
	ASSERT_STREQ(want, res.out);
}

TEST_F(umh, export_needs_one_mode)
{
	ASSERT_EQ(2, RUN(self->root, "export"));
	ASSERT_EQ(2, RUN(self->root, "export", "--sysctl", "--cmdline"));
	ASSERT_HAS(res.err, "give exactly one");
}

/*
 * Open bounds, every capability the kernel knows, as at boot, are left
 * out; an open bound beside a narrowed one is every bit of the 64, which
 * keeps a capability a newer kernel adds: the kernel takes it, as check
 * reads the command line.  Bounds of nothing, one bit, everything.
 */
TEST_F(umh, export_open_bounds)
{
	char want[1024];

	/* Every bound open. */
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	ASSERT_STREQ("# every usermode helper bound is open (every capability the kernel\n"
		     "# knows), as at boot: no bound to narrow\n", res.out);
	ASSERT_STREQ("", res.err);
	ASSERT_EQ(0, RUN(self->root, "export", "--cmdline"));
	ASSERT_STREQ("", res.out);
	ASSERT_STREQ("umhcap: note: every usermode helper bound is open (every capability the kernel knows), as at boot: no usermodehelper.bset= or usermodehelper.inheritable= to give\n",
		     res.err);

	/* Nothing; one bit; the bset open, the inheritable bound one bit. */
	set_bound(self->root, "coredump", 0, 0);
	set_bound(self->root, "uevent", B(CAP_MKNOD), B(CAP_MKNOD));
	set_bound(self->root, "power", full(), B(CAP_SYS_BOOT));
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	ASSERT_STREQ("kernel.usermodehelper.coredump.bset = 0\t0\n"
		     "kernel.usermodehelper.coredump.inheritable = 0\t0\n"
		     "kernel.usermodehelper.uevent.bset = 134217728\t0\n"
		     "kernel.usermodehelper.uevent.inheritable = 134217728\t0\n"
		     "kernel.usermodehelper.power.bset = 4294967295\t4294967295\n"
		     "kernel.usermodehelper.power.inheritable = 4194304\t0\n",
		     res.out);
	ASSERT_EQ(0, RUN(self->root, "export", "--cmdline"));
	ASSERT_STREQ("usermodehelper.bset=coredump:0x0,uevent:0x8000000,"
		     "power:0xffffffffffffffff usermodehelper.inheritable="
		     "coredump:0x0,uevent:0x8000000,power:0x400000\n", res.out);
	ASSERT_STREQ("", res.err);

	/* The kernel takes it: 16 hex digits. */
	put(self->root, "proc/cmdline", "quiet %s", res.out);
	RUN(self->root, "check");
	ASSERT_LACKS(res.out, "cmdline:");

	/* Open but for bits beyond what the kernel knows: open. */
	set_bound(self->root, "coredump", UINT64_MAX, full());
	set_bound(self->root, "uevent", full(), full());
	set_bound(self->root, "power", full(), full());
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	ASSERT_HAS(res.out, "no bound to narrow\n");

	/* The global bound open beside a narrowed one, and alone. */
	set_bound(self->root, NULL, B(CAP_KILL), full());
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	snprintf(want, sizeof(want),
		 "kernel.usermodehelper.bset = 32\t0\n"
		 "kernel.usermodehelper.inheritable = 4294967295\t4294967295\n");
	ASSERT_STREQ(want, res.out);
	unpatch(self->root);
	ASSERT_EQ(0, RUN(self->root, "export", "--cmdline"));
	ASSERT_STREQ("usermodehelper.bset=all:0x20 "
		     "usermodehelper.inheritable=all:0xffffffffffffffff\n",
		     res.out);
	set_bound(self->root, NULL, full(), full());
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	ASSERT_HAS(res.out, "no bound to narrow\n");
	ASSERT_EQ(0, RUN(self->root, "export", "--cmdline"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "umhcap: note: every usermode helper bound is open");

	/* As its help says. */
	ASSERT_EQ(0, RUN(self->root, "export", "--help"));
	ASSERT_HAS(res.out, "A purpose whose bounds are both open\n"
			    "(every capability the kernel knows, as at boot) is left out; an open\n"
			    "bound beside a narrowed one is given as all 64 bits, so that it keeps a\n"
			    "capability a newer kernel adds.  With every bound open, --sysctl prints\n"
			    "a comment that says so, and --cmdline no parameter, with a note on\n"
			    "stderr.\n");
}

/* ---- check ---- */

/* check's finding for measured purpose @p with ceiling @ceiling. */
static const char *measured_finding(const char *p, uint64_t ceiling)
{
	const struct umh_measured *m = row(p);
	char *b = slot_buf();

	snprintf(b, 2048, "%s: ceiling exceeds what %s (%s %s) was measured to need on %s (%s) by: %s\n",
		 p, m->program, m->package, m->version,
		 umh_measured_conf_name(m->conf), fmt(m->caps),
		 names(ceiling & ~m->caps));
	return b;
}

/* ... for a purpose no helper of which was measured, with the record. */
static const char *unmeasured_finding(const char *p, uint64_t ceiling,
				      uint64_t used, unsigned long long n)
{
	char *b = slot_buf();

	snprintf(b, 2048, "%s: no helper of this purpose was measured; its ceiling exceeds what the kernel's record shows its helpers used (%s, %llu started) by: %s; bound it to that: umhcap learn --apply --include-idle %s\n",
		 p, fmt(used), n, names(ceiling & ~used), p);
	return b;
}

/* Either, for purpose @p when no helper started since boot. */
static const char *finding_for(const char *p, uint64_t ceiling)
{
	return row(p) ? measured_finding(p, ceiling) :
			unmeasured_finding(p, ceiling, 0, 0);
}

/* What check notes on a kernel without per-purpose bounds. */
static const char *unpatched_notes(const char *root, uint64_t gbset)
{
	char *b = slot_buf();

	snprintf(b, 2048,
		 "note: this kernel keeps no record of what helpers use (no %s/" UMH "/used); unused capabilities were not checked\n"
		 "note: per-purpose bounds are not available on this kernel; checked the global bound against what any measured helper needs; every helper gets it, so what one helper needs every helper gets: %s\n",
		 root, fmt(gbset & umh_measured_union()));
	return b;
}

/* Where umhcap shows purpose @id: its place in umh_purposes. */
static int shown_at(enum umh_purpose id)
{
	int i;

	for (i = 0; i < UMH_NR; i++)
		if (umh_purposes[i].id == id)
			return i;
	return -1;
}

TEST(measured_table_is_sound)
{
	const struct umh_measured *m, *prev;
	size_t i, j;

	ASSERT_LT(0U, umh_measured_nr);
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		ASSERT_LT((unsigned int)m->purpose, ARRAY_SIZE(kernel_purposes));
		ASSERT_NE(NULL, umh_measured_conf_name(m->conf))
			TH_LOG("%s", m->program);
		ASSERT_EQ('/', m->program[0]);
		ASSERT_NE(0U, strlen(m->package));
		ASSERT_NE(0U, strlen(m->version));
		ASSERT_EQ(0ULL, m->caps & ~full()) TH_LOG("%s", m->program);
		/* What is kept needs a why, and a why what it is for. */
		ASSERT_EQ(0ULL, m->kept & ~m->caps) TH_LOG("%s", m->program);
		ASSERT_EQ(!m->kept, !m->note) TH_LOG("%s", m->program);
		ASSERT_TRUE(!m->note || *m->note);
		/*
		 * Only a busybox row can say that Debian runs no such helper,
		 * and then Debian as installed has no row of its purpose.
		 */
		if (m->not_on_debian) {
			ASSERT_NE(0U, strlen(m->not_on_debian));
			ASSERT_EQ(UMH_CONF_BUSYBOX, (int)m->conf);
			ASSERT_EQ(NULL, umh_measured_find(m->purpose,
							  UMH_CONF_INSTALLED))
				TH_LOG("%s", m->program);
		}
		/* The rows of helpers as their own users name the user. */
		ASSERT_EQ(m->conf == UMH_CONF_INSTALLED_USER, m->user != NULL)
			TH_LOG("%s", m->program);
		ASSERT_TRUE(!m->user || (*m->user && strcmp(m->user, "root")))
			TH_LOG("%s", m->program);
		/* One row per purpose and configuration. */
		for (j = 0; j < i; j++)
			ASSERT_FALSE(m->purpose == umh_measured[j].purpose &&
				     m->conf == umh_measured[j].conf)
				TH_LOG("%s twice in %s",
				       kernel_purposes[m->purpose],
				       umh_measured_conf_name(m->conf));
		/*
		 * Debian as installed first, then busybox systems, each in
		 * the order umhcap shows purposes: policy prints them so.
		 */
		if (!i)
			continue;
		prev = m - 1;
		ASSERT_TRUE(prev->conf < m->conf ||
			    (prev->conf == m->conf &&
			     shown_at(prev->purpose) < shown_at(m->purpose)))
			TH_LOG("%s (%s) after %s (%s)",
			       kernel_purposes[m->purpose],
			       umh_measured_conf_name(m->conf),
			       kernel_purposes[prev->purpose],
			       umh_measured_conf_name(prev->conf));
	}
	/* Nothing was measured for these: check holds them to the record. */
	ASSERT_EQ(NULL, row("initrd"));
	ASSERT_EQ(NULL, row("other"));
	ASSERT_STREQ("Debian 12 as installed",
		     umh_measured_conf_name(UMH_CONF_INSTALLED));
	ASSERT_STREQ("busybox systems",
		     umh_measured_conf_name(UMH_CONF_BUSYBOX));
	ASSERT_EQ(NULL, umh_measured_conf_name(UMH_NR_CONFS));
}

/*
 * check holds a purpose to its row of Debian as installed, or, without
 * one, to its busybox row; guest/real_test finds its busybox rows with
 * umh_measured_find(), whether or not the purpose has an installed row.
 */
TEST(measured_for_prefers_installed)
{
	/* real_test's purposes: each has a busybox row. */
	static const enum umh_purpose real[] = {
		UMH_MODPROBE, UMH_COREDUMP, UMH_UEVENT, UMH_REQUEST_KEY,
		UMH_RELEASE_AGENT, UMH_POWER,
	};
	const struct umh_measured *inst, *bb;
	size_t i;
	int p;

	for (p = 0; p < UMH_NR_PURPOSES; p++) {
		inst = umh_measured_find(p, UMH_CONF_INSTALLED);
		bb = umh_measured_find(p, UMH_CONF_BUSYBOX);
		ASSERT_EQ(inst ? inst : bb, umh_measured_for(p))
			TH_LOG("%s", kernel_purposes[p]);
		if (inst) {
			ASSERT_EQ(p, (int)inst->purpose);
			ASSERT_EQ(UMH_CONF_INSTALLED, (int)inst->conf);
		}
		if (bb) {
			ASSERT_EQ(p, (int)bb->purpose);
			ASSERT_EQ(UMH_CONF_BUSYBOX, (int)bb->conf);
		}
	}
	for (i = 0; i < ARRAY_SIZE(real); i++) {
		bb = umh_measured_find(real[i], UMH_CONF_BUSYBOX);
		ASSERT_NE(NULL, bb) TH_LOG("%s", kernel_purposes[real[i]]);
		ASSERT_EQ(real[i], bb->purpose);
		ASSERT_EQ(UMH_CONF_BUSYBOX, (int)bb->conf);
	}
	/* Both rows: the installed one, though the busybox one is there. */
	inst = umh_measured_find(UMH_MODPROBE, UMH_CONF_INSTALLED);
	ASSERT_NE(NULL, inst);
	ASSERT_NE(NULL, umh_measured_find(UMH_MODPROBE, UMH_CONF_BUSYBOX));
	ASSERT_EQ(inst, umh_measured_for(UMH_MODPROBE));
	ASSERT_EQ(inst, row("modprobe"));
	/* Debian runs no uevent helper: the busybox row it is. */
	ASSERT_EQ(NULL, umh_measured_find(UMH_UEVENT, UMH_CONF_INSTALLED));
	bb = umh_measured_find(UMH_UEVENT, UMH_CONF_BUSYBOX);
	ASSERT_NE(NULL, bb);
	ASSERT_EQ(bb, umh_measured_for(UMH_UEVENT));
	ASSERT_STREQ("/sbin/mdev", bb->program);
	/* Neither: nothing. */
	ASSERT_EQ(NULL, umh_measured_find(UMH_INITRD, UMH_CONF_BUSYBOX));
	ASSERT_EQ(NULL, umh_measured_for(UMH_INITRD));
	ASSERT_EQ(NULL, umh_measured_for(UMH_NR_PURPOSES));
}

/* Every purpose open, nothing started: every purpose is a finding. */
TEST_F(umh, check_open_patched)
{
	char want[1 << 15] = "";
	size_t i;

	ASSERT_EQ(1, RUN(self->root, "check"));
	for (i = 0; i < NR_PURPOSES; i++)
		strcat(want, finding_for(purposes[i], full()));
	strcat(want, "8 findings\n");
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.out, "modprobe: ceiling exceeds what /sbin/modprobe (kmod ");
	ASSERT_HAS(res.out, "initrd: no helper of this purpose was measured;");
	ASSERT_STREQ("", res.err);
}

/*
 * An unpatched kernel, open: every helper gets every capability, so the
 * global bound beyond what any measured helper needs is a finding, and
 * what one needs (cap_sys_module, for modprobe) every helper gets.
 */
TEST_F(umh, check_open_unpatched)
{
	uint64_t excess = full() & ~umh_measured_union();
	const char *note;
	char want[4096];

	unpatch(self->root);
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want),
		 "all: the global bound, which every helper gets, exceeds what any measured helper needs (%s) by: %s\n"
		 "%s1 finding\n", fmt(umh_measured_union()), names(excess),
		 unpatched_notes(self->root, full()));
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.out, ", cap_sys_admin, ");
	ASSERT_HAS(res.out, ", cap_net_admin, ");
	/* What modprobe needs goes to every helper: said, not counted. */
	note = strstr(res.out, "every helper gets: ");
	ASSERT_NE(NULL, note);
	ASSERT_NE(0ULL, need("modprobe") & B(CAP_SYS_MODULE));
	ASSERT_TRUE(strstr(note, "cap_sys_module") < strchr(note, '\n'));
}

/* The global bound at what the measured helpers need: nothing to do. */
TEST_F(umh, check_unpatched_union)
{
	uint64_t u = umh_measured_union(), extra = one_more(u);
	char want[4096];

	unpatch(self->root);
	set_bound(self->root, NULL, u, u);
	ASSERT_EQ(0, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "%sno findings\n",
		 unpatched_notes(self->root, u));
	ASSERT_STREQ(want, res.out);
	/* One capability more is that finding. */
	set_bound(self->root, NULL, u | extra, u | extra);
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want),
		 "all: the global bound, which every helper gets, exceeds what any measured helper needs (%s) by: %s\n"
		 "%s1 finding\n", fmt(u), names(extra),
		 unpatched_notes(self->root, u));
	ASSERT_STREQ(want, res.out);
}

TEST_F(umh, check_narrowed_to_table)
{
	harden(self->root);
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
}

/* One bit too wide on any one purpose: exactly that finding. */
TEST_F(umh, check_one_bit_too_wide)
{
	char want[4096];
	uint64_t m;
	size_t i;

	for (i = 0; i < NR_PURPOSES; i++) {
		harden(self->root);
		m = need(purposes[i]) | one_more(need(purposes[i]));
		set_bound(self->root, purposes[i], m, m);
		ASSERT_EQ(1, RUN(self->root, "check"));
		snprintf(want, sizeof(want), "%s1 finding\n",
			 finding_for(purposes[i], m));
		ASSERT_STREQ(want, res.out);
	}
}

TEST_F(umh, check_global_bound_limits_ceiling)
{
	char want[1 << 15] = "";
	int n = 0;
	size_t i;

	/* All purposes open, but the global bound keeps only sys_module. */
	set_bound(self->root, NULL, B(CAP_SYS_MODULE), B(CAP_SYS_MODULE));
	for (i = 0; i < NR_PURPOSES; i++) {
		set_bound(self->root, purposes[i], full(), full());
		if (need(purposes[i]) & B(CAP_SYS_MODULE))
			continue;
		strcat(want, finding_for(purposes[i], B(CAP_SYS_MODULE)));
		n++;
	}
	sprintf(want + strlen(want), "%d findings\n", n);
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.out, "initrd: no helper of this purpose was measured; its ceiling exceeds what the kernel's record shows its helpers used (none, 0 started) by: cap_sys_module;");
	ASSERT_LACKS(res.out, "modprobe:");
}

/*
 * No helper of initrd was measured: its ceiling is held to what the
 * kernel's record shows it used, and reported once, not also as "never
 * used".
 */
TEST_F(umh, check_unmeasured_follows_record)
{
	uint64_t used = B(CAP_KILL) | B(CAP_CHOWN);
	char want[4096];

	harden(self->root);
	set_record(self->root, "initrd", used, 2);
	set_bound(self->root, "initrd", used, used);
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
	set_bound(self->root, "initrd", full(), full());
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "%s1 finding\n",
		 unmeasured_finding("initrd", full(), used, 2));
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.out, "(cap_chown, cap_kill, 2 started)");
	/* Narrower than what it used: the record's own finding remains. */
	set_bound(self->root, "initrd", B(CAP_KILL), B(CAP_KILL));
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_STREQ("initrd: its helpers used capabilities since boot that the bound no longer allows: cap_chown; they may fail now\n"
		     "1 finding\n", res.out);
}

TEST_F(umh, check_disagree)
{
	char want[256];

	harden(self->root);
	ASSERT_NE(0ULL, need("modprobe"));
	set_bound(self->root, "modprobe", need("modprobe"), 0);
	set_bound(self->root, NULL, full(), full() & ~B(CAP_SYSLOG));
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "modprobe: bset and inheritable disagree: only in bset: %s\n",
		 fmt(need("modprobe")));
	ASSERT_HAS(res.out, want);
	ASSERT_HAS(res.out, "all: bset and inheritable disagree: only in bset: cap_syslog\n");
	ASSERT_HAS(res.out, "2 findings\n");
}

TEST_F(umh, check_cmdline_malformed)
{
	harden(self->root);
	put(self->root, "proc/cmdline",
	    "quiet usermodehelper.bset=all:0x1ff,foo:0x1,modprobe:0xzz,"
	    "nocolon,,power:0x1 usermodehelper.inheritable= ro\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: unknown purpose \"foo\" in item \"foo:0x1\": every helper's bset is bounded to nothing\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: bad hex mask \"0xzz\" in item \"modprobe:0xzz\": modprobe's bset is bounded to nothing\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: missing colon in item \"nocolon\": every helper's bset is bounded to nothing\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: empty item: every helper's bset is bounded to nothing\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.inheritable: empty item: every helper's inheritable is bounded to nothing\n");
	ASSERT_HAS(res.out, "5 findings\n");
}

/*
 * The kernel fails closed: a bad mask bounds the purpose it names to
 * nothing (all: every helper), in the set of its parameter.  A mask is
 * bad when empty after 0x or longer than 16 hex digits; 16 are fine.
 */
TEST_F(umh, check_cmdline_fails_closed)
{
	harden(self->root);
	put(self->root, "proc/cmdline",
	    "usermodehelper.bset=coredump:0x,uevent:1ffffffffffffffff,"
	    "request_key:0xffffffffffffffff,all:zz "
	    "usermodehelper.inheritable=power:0,,"
	    "initrd:0X12345678901234567,other:0123456789abcdef\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_STREQ("cmdline: usermodehelper.bset: bad hex mask \"0x\" in item \"coredump:0x\": coredump's bset is bounded to nothing\n"
		     "cmdline: usermodehelper.bset: bad hex mask \"1ffffffffffffffff\" in item \"uevent:1ffffffffffffffff\": uevent's bset is bounded to nothing\n"
		     "cmdline: usermodehelper.bset: bad hex mask \"zz\" in item \"all:zz\": every helper's bset is bounded to nothing\n"
		     "cmdline: usermodehelper.inheritable: empty item: every helper's inheritable is bounded to nothing\n"
		     "cmdline: usermodehelper.inheritable: bad hex mask \"0X12345678901234567\" in item \"initrd:0X12345678901234567\": initrd's inheritable is bounded to nothing\n"
		     "5 findings\n", res.out);
}

TEST_F(umh, check_cmdline_valid)
{
	harden(self->root);
	put(self->root, "proc/cmdline",
	    "usermodehelper.bset=all:1FFFFFFFFFF,coredump:0x0 "
	    "\"usermodehelper.inheritable=modprobe:0X10000\" "
	    "usermodehelper_x=foo:zz\n");
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
}

TEST_F(umh, check_unpatched_disagree)
{
	uint64_t u = umh_measured_union();

	unpatch(self->root);
	set_bound(self->root, NULL, u, 0);
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "per-purpose bounds are not available");
	ASSERT_TRUE(!strncmp(res.out, "all: bset and inheritable disagree: only in bset: ", 50));
	ASSERT_HAS(res.out, "\n1 finding\n");
}

TEST_F(umh, check_missing_cmdline)
{
	harden(self->root);
	rm_file(self->root, "proc/cmdline");
	ASSERT_EQ(2, RUN(self->root, "check"));
	ASSERT_HAS(res.err, "/proc/cmdline: No such file or directory");
}

/* ---- learn ---- */

/*
 * A JSON checker, enough to tell valid JSON (RFC 8259) from not: one
 * value, then only whitespace.  Returns the end of the value, or NULL.
 */
static const char *json_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

static const char *json_value(const char *s, int depth);

static const char *json_string(const char *s)
{
	if (*s++ != '"')
		return NULL;
	for (; *s != '"'; s++) {
		if ((unsigned char)*s < 0x20)
			return NULL;
		if (*s != '\\')
			continue;
		s++;
		if (*s == 'u') {
			if (strspn(s + 1, "0123456789abcdefABCDEF") < 4)
				return NULL;
			s += 4;
		} else if (!*s || !strchr("\"\\/bfnrt", *s)) {
			return NULL;
		}
	}
	return s + 1;
}

static const char *json_number(const char *s)
{
	const char *d;

	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		s += strspn(s, "0123456789");
	else
		return NULL;
	if (*s == '.') {
		d = ++s;
		s += strspn(s, "0123456789");
		if (s == d)
			return NULL;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		d = s;
		s += strspn(s, "0123456789");
		if (s == d)
			return NULL;
	}
	return s;
}

/* Members of an object (@obj) or elements of an array, up to @close. */
static const char *json_list(const char *s, char close, bool obj, int depth)
{
	s = json_ws(s + 1);
	if (*s == close)
		return s + 1;
	for (;;) {
		if (obj) {
			s = json_string(json_ws(s));
			if (!s)
				return NULL;
			s = json_ws(s);
			if (*s++ != ':')
				return NULL;
		}
		s = json_value(s, depth + 1);
		if (!s)
			return NULL;
		s = json_ws(s);
		if (*s == close)
			return s + 1;
		if (*s++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *s, int depth)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i;

	if (depth > 64)
		return NULL;
	s = json_ws(s);
	if (*s == '{')
		return json_list(s, '}', true, depth);
	if (*s == '[')
		return json_list(s, ']', false, depth);
	if (*s == '"')
		return json_string(s);
	for (i = 0; i < 3; i++)
		if (!strncmp(s, words[i], strlen(words[i])))
			return s + strlen(words[i]);
	return json_number(s);
}

static bool json_valid(const char *s)
{
	s = json_value(s, 0);
	return s && !*json_ws(s);
}

/* The checker itself: what it must refuse, what it must take. */
TEST(json_checker)
{
	static const char *const bad[] = {
		"", "{", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{a:1}", "01",
		"[1] x", "\"x", "\"\\q\"", "[\"\t\"]", "1.", "-", "{}{}",
		"[tru]",
	};
	static const char *const good[] = {
		"{}", "[]", " {\"a\":[1,-2.5e3,\"x\\n\\u00e9\",true,false,null]}\n",
		"0", "\"\"",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_FALSE(json_valid(bad[i])) TH_LOG("took %s", bad[i]);
	for (i = 0; i < ARRAY_SIZE(good); i++)
		EXPECT_TRUE(json_valid(good[i])) TH_LOG("refused %s", good[i]);
}

#define ASSERT_JSON(out) do {						\
	size_t _n = strlen(out);					\
	if (!json_valid(out))						\
		TH_LOG("not valid JSON:\n%s", out);			\
	ASSERT_TRUE(json_valid(out));					\
	ASSERT_TRUE(_n > 0);						\
	ASSERT_EQ('\n', (out)[_n - 1]);					\
} while (0)

/*
 * Six helpers since boot: four modprobe (cap_sys_module), two core dump
 * handlers (cap_chown, cap_dac_override); every other purpose idle.
 */
static void learn_scene(const char *root)
{
	set_record(root, NULL, B(CAP_SYS_MODULE) | B(CAP_CHOWN) |
		   B(CAP_DAC_OVERRIDE), 6);
	set_record(root, "modprobe", B(CAP_SYS_MODULE), 4);
	set_record(root, "coredump", B(CAP_CHOWN) | B(CAP_DAC_OVERRIDE), 2);
}

#define CD_USED		(B(CAP_CHOWN) | B(CAP_DAC_OVERRIDE))

/* Every bound and record file, to prove that nothing was written. */
static void snapshot(const char *root, char *buf, size_t size)
{
	static const char *const files[] = {
		"bset", "inheritable", "used", "started",
	};
	char rel[256];
	size_t i, f, len = 0;

	for (i = 0; i <= NR_PURPOSES; i++)
		for (f = 0; f < ARRAY_SIZE(files); f++) {
			snprintf(rel, sizeof(rel), UMH "%s%s/%s",
				 i ? "/" : "", i ? purposes[i - 1] : "",
				 files[f]);
			len += snprintf(buf + len, size - len, "%s=%s;", rel,
					get(root, rel));
		}
}

TEST_F(umh, learn_text)
{
	learn_scene(self->root);
	set_record(self->root, "power", 0, 1);
	ASSERT_EQ(0, RUN(self->root, "learn"));
	ASSERT_HAS(res.out,
		   "all (every helper): 6 helpers started since boot\n"
		   "  used:        cap_chown, cap_dac_override, cap_sys_module\n"
		   "modprobe: 4 helpers started since boot\n"
		   "  used:        cap_sys_module\n"
		   "  allowed:     all\n"
		   "  never used:  all except cap_sys_module\n"
		   "coredump: 2 helpers started since boot\n"
		   "  used:        cap_chown, cap_dac_override\n"
		   "  allowed:     all\n"
		   "  never used:  all except cap_chown, cap_dac_override\n"
		   "uevent: no helper started since boot (idle: --apply leaves it alone)\n"
		   "  used:        none\n"
		   "  allowed:     all\n"
		   "  never used:  all\n");
	ASSERT_HAS(res.out, "power: 1 helper started since boot\n"
			    "  used:        none\n");
	ASSERT_HAS(res.out, "other: no helper started since boot (idle");
	ASSERT_LACKS(res.out, "now refused");
	ASSERT_STREQ("", res.err);
	/* Reading changes nothing. */
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
}

/* allowed is the ceiling; a bound narrower than what was used shows. */
TEST_F(umh, learn_allowed_is_ceiling)
{
	learn_scene(self->root);
	set_bound(self->root, NULL, full() & ~B(CAP_KILL), full());
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE) | B(CAP_KILL), 0);
	set_bound(self->root, "coredump", B(CAP_CHOWN), B(CAP_CHOWN));
	ASSERT_EQ(0, RUN(self->root, "learn", "--include-idle"));
	ASSERT_HAS(res.out, "modprobe: 4 helpers started since boot\n"
			    "  used:        cap_sys_module\n"
			    "  allowed:     cap_sys_module\n"
			    "  never used:  none\n"
			    "coredump:");
	ASSERT_HAS(res.out, "coredump: 2 helpers started since boot\n"
			    "  used:        cap_chown, cap_dac_override\n"
			    "  allowed:     cap_chown\n"
			    "  never used:  none\n"
			    "  now refused: cap_dac_override\n");
	ASSERT_HAS(res.out, "uevent: no helper started since boot (idle; --include-idle narrows it to what it used)\n"
			    "  used:        none\n"
			    "  allowed:     all except cap_kill\n");
}

TEST_F(umh, learn_hex)
{
	char want[128];

	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "learn", "-x"));
	ASSERT_HAS(res.out, "modprobe: 4 helpers started since boot\n"
			    "  used:        0x0000000000010000  cap_sys_module\n");
	snprintf(want, sizeof(want), "  never used:  0x%016" PRIx64
		 "  all except cap_sys_module\n",
		 (uint64_t)(full() & ~B(CAP_SYS_MODULE)));
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(0, RUN(self->root, "-x", "learn"));
	ASSERT_HAS(res.out, "  used:        0x0000000000010000  cap_sys_module\n");
}

TEST_F(umh, learn_json)
{
	char want[512];

	learn_scene(self->root);
	set_bound(self->root, "coredump", full(), B(CAP_CHOWN));
	ASSERT_EQ(0, RUN(self->root, "learn", "--json"));
	ASSERT_JSON(res.out);
	snprintf(want, sizeof(want),
		 "{\"version\":1,\"cap_bits\":%d,\"started\":6,"
		 "\"used\":\"0x10003\",\"used_caps\":[\"cap_chown\","
		 "\"cap_dac_override\",\"cap_sys_module\"],\"purposes\":[",
		 cap_max_bits());
	ASSERT_EQ(0, strncmp(res.out, want, strlen(want))) {
		TH_LOG("want %s at the start of:\n%s", want, res.out);
	}
	snprintf(want, sizeof(want),
		 "{\"purpose\":\"modprobe\",\"started\":4,\"idle\":false,"
		 "\"used\":\"0x10000\",\"used_caps\":[\"cap_sys_module\"],"
		 "\"allowed\":\"0x%" PRIx64 "\",", full());
	ASSERT_HAS(res.out, want);
	snprintf(want, sizeof(want),
		 "\"never_used\":\"0x%" PRIx64 "\",", (uint64_t)(full() & ~B(CAP_SYS_MODULE)));
	ASSERT_HAS(res.out, want);
	ASSERT_HAS(res.out, "\"now_refused\":\"0x0\",\"now_refused_caps\":[],"
			    "\"learned_bset\":\"0x10000\","
			    "\"learned_bset_caps\":[\"cap_sys_module\"],"
			    "\"learned_inheritable\":\"0x10000\",");
	/* The learned inheritable bound: what was used, and no wider. */
	ASSERT_HAS(res.out, "\"learned_bset\":\"0x3\",\"learned_bset_caps\":"
			    "[\"cap_chown\",\"cap_dac_override\"],"
			    "\"learned_inheritable\":\"0x1\","
			    "\"learned_inheritable_caps\":[\"cap_chown\"]}");
	snprintf(want, sizeof(want),
		 "{\"purpose\":\"uevent\",\"started\":0,\"idle\":true,"
		 "\"used\":\"0x0\",\"used_caps\":[],\"allowed\":\"0x%" PRIx64 "\"",
		 full());
	ASSERT_HAS(res.out, want);
	snprintf(want, sizeof(want), "\"learned_bset\":\"0x%" PRIx64 "\"",
		 full());
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(8, count_of(res.out, "{\"purpose\":"));
	/* With --include-idle, idle purposes are learned as nothing. */
	ASSERT_EQ(0, RUN(self->root, "--json", "learn", "--include-idle"));
	ASSERT_JSON(res.out);
	ASSERT_HAS(res.out, "\"purpose\":\"other\",\"started\":0,\"idle\":true,");
	ASSERT_EQ(6, count_of(res.out, "\"learned_bset\":\"0x0\""));
}

TEST_F(umh, show_json_is_valid)
{
	ASSERT_EQ(0, RUN(self->root, "--json", "show"));
	ASSERT_JSON(res.out);
	ASSERT_EQ(0, RUN(self->root, "show", "--json", "modprobe"));
	ASSERT_JSON(res.out);
}

TEST_F(umh, json_only_where_supported)
{
	ASSERT_EQ(2, RUN(self->root, "--json", "policy"));
	ASSERT_STREQ("umhcap: --json is not supported by policy; only show, learn and check print JSON\n",
		     res.err);
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(2, RUN(self->root, "--json", "export", "--sysctl"));
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply", "--json"));
	ASSERT_HAS(res.err, "--json is not supported by learn --apply");
}

TEST_F(umh, learn_apply)
{
	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply"));
	ASSERT_STREQ(written(B(CAP_SYS_MODULE)),
		     get(self->root, UMH "/modprobe/bset"));
	ASSERT_STREQ(written(B(CAP_SYS_MODULE)),
		     get(self->root, UMH "/modprobe/inheritable"));
	ASSERT_STREQ(written(CD_USED), get(self->root, UMH "/coredump/bset"));
	ASSERT_STREQ(written(CD_USED),
		     get(self->root, UMH "/coredump/inheritable"));
	/* Idle purposes and the global bound as they were. */
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/uevent/bset"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/other/inheritable"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/bset"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/inheritable"));
	ASSERT_HAS(res.out, "modprobe: narrowed to what its helpers used: bset cap_sys_module, inheritable cap_sys_module\n"
			    "coredump: narrowed to what its helpers used: bset cap_chown, cap_dac_override, inheritable cap_chown, cap_dac_override\n"
			    "uevent: no helper started since boot; left alone (--include-idle narrows it too)\n");
	ASSERT_HAS(res.out, "other: no helper started since boot; left alone");
	ASSERT_HAS(res.out, "2 purposes narrowed, 0 unchanged, 6 idle left alone\n");
	ASSERT_STREQ("", res.err);
	/* Again: nothing left to narrow, nothing written. */
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), B(CAP_SYS_MODULE));
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply"));
	ASSERT_HAS(res.out, "modprobe: no wider than what its helpers used (cap_sys_module); unchanged\n");
	ASSERT_STREQ(kernel_fmt(B(CAP_SYS_MODULE)),
		     get(self->root, UMH "/modprobe/bset"));
	ASSERT_HAS(res.out, "0 purposes narrowed, 2 unchanged, 6 idle left alone\n");
	ASSERT_LACKS(res.out, "narrowed to");
}

/* Bounds only narrow: a bound narrower than the record stays narrower. */
TEST_F(umh, learn_apply_keeps_narrower)
{
	learn_scene(self->root);
	set_bound(self->root, "coredump", full(), B(CAP_CHOWN) | B(CAP_KILL));
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply"));
	ASSERT_STREQ(written(CD_USED), get(self->root, UMH "/coredump/bset"));
	ASSERT_STREQ(written(B(CAP_CHOWN)),
		     get(self->root, UMH "/coredump/inheritable"));
	/* Already what it used: not written (the kernel's tab remains). */
	ASSERT_STREQ(kernel_fmt(B(CAP_SYS_MODULE)),
		     get(self->root, UMH "/modprobe/bset"));
	ASSERT_HAS(res.out, "1 purpose narrowed, 1 unchanged, 6 idle left alone\n");
}

TEST_F(umh, learn_apply_dry_run_writes_nothing)
{
	char before[8192], after[8192], want[PATH_MAX + 128];

	learn_scene(self->root);
	snapshot(self->root, before, sizeof(before));
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply", "-n"));
	snapshot(self->root, after, sizeof(after));
	ASSERT_STREQ(before, after);
	snprintf(want, sizeof(want), "would write \"65536 0\" to %s/" UMH
		 "/modprobe/bset (cap_sys_module)\n"
		 "would write \"65536 0\" to %s/" UMH
		 "/modprobe/inheritable (cap_sys_module)\n"
		 "would write \"3 0\" to %s/" UMH
		 "/coredump/bset (cap_chown, cap_dac_override)\n",
		 self->root, self->root, self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_HAS(res.out, "uevent: no helper started since boot; left alone");
	ASSERT_HAS(res.out, "-n, nothing written: 2 purposes narrowed, 0 unchanged, 6 idle left alone\n");
	ASSERT_EQ(0, RUN(self->root, "learn", "--dry-run", "--apply",
			 "--include-idle"));
	snapshot(self->root, after, sizeof(after));
	ASSERT_STREQ(before, after);
	ASSERT_HAS(res.out, "/other/bset (none)\n");
	/* -n alone would read as if it applied something: refused. */
	ASSERT_EQ(2, RUN(self->root, "learn", "-n"));
	ASSERT_HAS(res.err, "-n/--dry-run goes with --apply");
}

TEST_F(umh, learn_apply_include_idle)
{
	learn_scene(self->root);
	set_record(self->root, "other", B(CAP_KILL), 0);
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply", "--include-idle"));
	ASSERT_STREQ(written(B(CAP_SYS_MODULE)),
		     get(self->root, UMH "/modprobe/bset"));
	ASSERT_STREQ(written(0), get(self->root, UMH "/uevent/bset"));
	ASSERT_STREQ(written(0), get(self->root, UMH "/uevent/inheritable"));
	ASSERT_STREQ(written(0), get(self->root, UMH "/initrd/bset"));
	/* Not started, yet a check was recorded: that is what it keeps. */
	ASSERT_STREQ(written(B(CAP_KILL)), get(self->root, UMH "/other/bset"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/bset"));
	ASSERT_HAS(res.out, "uevent: narrowed to what its helpers used: bset none, inheritable none\n");
	ASSERT_HAS(res.out, "8 purposes narrowed, 0 unchanged, 0 idle left alone\n");
	ASSERT_LACKS(res.out, "left alone (");
}

TEST_F(umh, learn_without_record)
{
	char before[8192], after[8192], want[PATH_MAX + 64];

	learn_scene(self->root);
	rm_file(self->root, UMH "/used");
	snapshot(self->root, before, sizeof(before));
	snprintf(want, sizeof(want),
		 "umhcap: this kernel keeps no record of what usermode helpers use (no %s/" UMH "/used); ",
		 self->root);
	ASSERT_EQ(2, RUN(self->root, "learn"));
	ASSERT_HAS(res.err, want);
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply"));
	ASSERT_HAS(res.err, want);
	ASSERT_HAS(res.err, "learn --apply: nothing was written");
	ASSERT_EQ(2, RUN(self->root, "export", "--learned", "--sysctl"));
	ASSERT_HAS(res.err, want);
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(2, RUN(self->root, "export", "--learned", "--cmdline"));
	ASSERT_HAS(res.err, want);
	snapshot(self->root, after, sizeof(after));
	ASSERT_STREQ(before, after);
	/* The plain export does not need the record. */
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
}

/* A kernel with used but no started cannot tell idle purposes. */
TEST_F(umh, learn_without_started)
{
	char want[PATH_MAX + 64];

	learn_scene(self->root);
	rm_file(self->root, UMH "/started");
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply"));
	snprintf(want, sizeof(want), "(no %s/" UMH "/started)", self->root);
	ASSERT_HAS(res.err, want);
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
}

TEST_F(umh, learn_unpatched_kernel)
{
	unpatch(self->root);
	ASSERT_EQ(2, RUN(self->root, "learn"));
	ASSERT_HAS(res.err, "keeps no record of what usermode helpers use");
	ASSERT_EQ(2, RUN(self->root, "export", "--learned", "--cmdline"));
	ASSERT_HAS(res.err, "keeps no record of what usermode helpers use");
	/* A global record on a kernel without purposes is no record. */
	set_record(self->root, NULL, 0, 3);
	ASSERT_EQ(2, RUN(self->root, "learn"));
	ASSERT_HAS(res.err, "keeps no record");
	ASSERT_HAS(res.err, UMH "/modprobe)");
}

/* Bad record files: a clear error, and nothing written. */
TEST_F(umh, learn_garbled_record)
{
	static const struct {
		const char *file, *text, *err;
	} bad[] = {
		{ "modprobe/used", "12 x\n", "unexpected content \"12 x\"; expected two decimal 32-bit words" },
		{ "modprobe/used", "", "unexpected content \"\"" },
		{ "modprobe/used", "65536\n", "unexpected content \"65536\"" },
		{ "coredump/used", "4294967296\t0\n", "expected two decimal" },
		{ "coredump/used", "-1\t0\n", "expected two decimal" },
		{ "used", "1\t0\tjunk\n", "expected two decimal" },
		{ "modprobe/started", "three\n", "unexpected content \"three\"; expected a decimal count" },
		{ "modprobe/started", "-1\n", "expected a decimal count" },
		{ "other/started", "", "expected a decimal count" },
		{ "started", "99999999999999999999999\n", "expected a decimal count" },
	};
	char before[8192], after[8192], rel[128], want[PATH_MAX + 128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		learn_scene(self->root);
		snprintf(rel, sizeof(rel), UMH "/%s", bad[i].file);
		put(self->root, rel, "%s", bad[i].text);
		snapshot(self->root, before, sizeof(before));
		ASSERT_EQ(2, RUN(self->root, "learn", "--apply"));
		snprintf(want, sizeof(want), "umhcap: cannot parse %s/%s: ",
			 self->root, rel);
		ASSERT_HAS(res.err, want);
		ASSERT_HAS(res.err, bad[i].err);
		ASSERT_HAS(res.err, "learn --apply: nothing was written");
		snapshot(self->root, after, sizeof(after));
		ASSERT_STREQ(before, after);
		ASSERT_EQ(2, RUN(self->root, "learn"));
		ASSERT_HAS(res.err, want);
		ASSERT_STREQ("", res.out);
		ASSERT_EQ(2, RUN(self->root, "check"));
		ASSERT_HAS(res.err, want);
	}
}

/* The global record is there, a purpose's is not. */
TEST_F(umh, learn_incomplete_record)
{
	char before[8192], after[8192], want[PATH_MAX + 128];

	learn_scene(self->root);
	rm_file(self->root, UMH "/coredump/used");
	snapshot(self->root, before, sizeof(before));
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply"));
	snprintf(want, sizeof(want), "umhcap: cannot open %s/" UMH
		 "/coredump/used: No such file or directory; the kernel's record of what helpers use is incomplete",
		 self->root);
	ASSERT_HAS(res.err, want);
	snapshot(self->root, after, sizeof(after));
	ASSERT_STREQ(before, after);
}

/* Mode 0400 files read by a user without them: say so. */
TEST_F(umh, learn_unreadable_record)
{
	char path[PATH_MAX];

	learn_scene(self->root);
	snprintf(path, sizeof(path), "%s/" UMH "/modprobe/used", self->root);
	ASSERT_EQ(0, chmod(path, 0));
	drop_caps = B(CAP_DAC_OVERRIDE) | B(CAP_DAC_READ_SEARCH);
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply"));
	ASSERT_HAS(res.err, "modprobe/used: Permission denied; the record is readable by root only: run as root");
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
}

/*
 * A write that fails after others went through: exit 3, and what was
 * written is named.  The file is made read-only and umhcap runs without
 * CAP_DAC_OVERRIDE.
 */
static void read_only(const char *root, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (chmod(path, 0444))
		abort();
	drop_caps = B(CAP_DAC_OVERRIDE);
}

TEST_F(umh, learn_apply_partial_failure)
{
	char want[PATH_MAX + 64];

	learn_scene(self->root);
	set_record(self->root, "power", B(CAP_SYS_BOOT), 1);
	read_only(self->root, UMH "/coredump/bset");
	ASSERT_EQ(3, RUN(self->root, "learn", "--apply"));
	snprintf(want, sizeof(want), "umhcap: cannot write %s/" UMH
		 "/coredump/bset: Permission denied", self->root);
	ASSERT_HAS(res.err, want);
	ASSERT_HAS(res.err, "umhcap: learn --apply stopped at coredump, after writing to: modprobe; the purposes after coredump were not narrowed\n");
	ASSERT_STREQ(written(B(CAP_SYS_MODULE)),
		     get(self->root, UMH "/modprobe/bset"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/coredump/bset"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/power/bset"));
	ASSERT_HAS(res.out, "modprobe: narrowed to what");
	ASSERT_LACKS(res.out, "purposes narrowed");

	/* The bset went through, the inheritable bound did not. */
	snprintf(want, sizeof(want), "%s/" UMH "/coredump/bset", self->root);
	ASSERT_EQ(0, chmod(want, 0644));
	learn_scene(self->root);
	set_bound(self->root, "modprobe", full(), full());
	set_bound(self->root, "coredump", full(), full());
	read_only(self->root, UMH "/coredump/inheritable");
	ASSERT_EQ(3, RUN(self->root, "learn", "--apply"));
	ASSERT_HAS(res.err, "stopped at coredump, after writing to: modprobe coredump (in part);");
	ASSERT_STREQ(written(CD_USED), get(self->root, UMH "/coredump/bset"));
}

TEST_F(umh, learn_apply_first_write_fails)
{
	char before[8192], after[8192];

	learn_scene(self->root);
	read_only(self->root, UMH "/modprobe/bset");
	snapshot(self->root, before, sizeof(before));
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply"));
	ASSERT_HAS(res.err, "modprobe/bset: Permission denied");
	ASSERT_HAS(res.err, "umhcap: learn --apply: nothing was written\n");
	snapshot(self->root, after, sizeof(after));
	ASSERT_STREQ(before, after);
}

TEST_F(umh, learn_named_purposes)
{
	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "learn", "coredump"));
	ASSERT_HAS(res.out, "coredump: 2 helpers started since boot\n");
	ASSERT_LACKS(res.out, "modprobe:");
	ASSERT_LACKS(res.out, "all (every helper)");
	ASSERT_EQ(0, RUN(self->root, "learn", "--json", "uevent", "modprobe"));
	ASSERT_JSON(res.out);
	ASSERT_EQ(2, count_of(res.out, "{\"purpose\":"));
	ASSERT_HAS(res.out, "[\n    {\"purpose\":\"modprobe\",");
	ASSERT_HAS(res.out, "},\n    {\"purpose\":\"uevent\",");
	/* Only the purposes named are narrowed. */
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply", "coredump"));
	ASSERT_STREQ(written(CD_USED), get(self->root, UMH "/coredump/bset"));
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
	ASSERT_STREQ("coredump: narrowed to what its helpers used: bset cap_chown, cap_dac_override, inheritable cap_chown, cap_dac_override\n"
		     "1 purpose narrowed, 0 unchanged, 0 idle left alone\n", res.out);
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply", "modprob"));
	ASSERT_HAS(res.err, "unknown purpose \"modprob\"");
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
}

TEST_F(umh, learn_usage)
{
	ASSERT_EQ(2, RUN(self->root, "learn", "extra"));
	ASSERT_HAS(res.err, "unknown purpose \"extra\"");
	ASSERT_EQ(2, RUN(self->root, "learn", "--idle"));
	ASSERT_HAS(res.err, "usage: umhcap learn");
	ASSERT_EQ(2, RUN(self->root, "export", "--include-idle", "--sysctl"));
	ASSERT_HAS(res.err, "usage: umhcap export");
}

/* ---- export --learned ---- */

TEST_F(umh, export_learned_sysctl)
{
	uint64_t g = full() & ~B(CAP_SYS_RAWIO);
	char want[4096];

	learn_scene(self->root);
	set_bound(self->root, NULL, g, g);
	set_bound(self->root, "uevent", B(CAP_MKNOD), 0);
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--sysctl"));
	/* The idle purposes, left open, are left out. */
	snprintf(want, sizeof(want),
		 "kernel.usermodehelper.bset = %u\t%u\n"
		 "kernel.usermodehelper.inheritable = %u\t%u\n"
		 "kernel.usermodehelper.modprobe.bset = 65536\t0\n"
		 "kernel.usermodehelper.modprobe.inheritable = 65536\t0\n"
		 "kernel.usermodehelper.coredump.bset = 3\t0\n"
		 "kernel.usermodehelper.coredump.inheritable = 3\t0\n"
		 "kernel.usermodehelper.uevent.bset = 134217728\t0\n"
		 "kernel.usermodehelper.uevent.inheritable = 0\t0\n",
		 (uint32_t)g, (uint32_t)(g >> 32),
		 (uint32_t)g, (uint32_t)(g >> 32));
	ASSERT_STREQ(want, res.out);
	/* Nothing written: the learned state is only printed. */
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
}

TEST_F(umh, export_learned_cmdline)
{
	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--cmdline"));
	/* The global bound and the idle purposes, open, are left out. */
	ASSERT_STREQ("usermodehelper.bset=modprobe:0x10000,coredump:0x3 "
		     "usermodehelper.inheritable=modprobe:0x10000,coredump:0x3\n",
		     res.out);

	/* --include-idle: idle purposes get what they used, nothing here. */
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--include-idle",
			 "--cmdline"));
	ASSERT_STREQ("usermodehelper.bset=modprobe:0x10000,coredump:0x3,"
		     "uevent:0x0,request_key:0x0,release_agent:0x0,power:0x0,"
		     "initrd:0x0,other:0x0 usermodehelper.inheritable="
		     "modprobe:0x10000,coredump:0x3,uevent:0x0,request_key:0x0,"
		     "release_agent:0x0,power:0x0,initrd:0x0,other:0x0\n",
		     res.out);
}

/* ---- user ---- */

/*
 * A user of this machine's passwd, not root, whose primary group the
 * group file names: umhcap resolves names with the C library, so the
 * tests take theirs from it too.  @other: a group of neither root nor
 * the user.  @stranger: a uid passwd does not know.
 */
struct who {
	char user[64], group[64], other[64];
	uint32_t uid, gid, other_gid, stranger;
};

static bool is_number(const char *s)
{
	return *s && !s[strspn(s, "0123456789")];
}

static bool find_who(struct who *w)
{
	const struct passwd *pw;
	const struct group *gr;
	bool found = false;

	setpwent();
	while (!found && (pw = getpwent())) {
		gr = getgrgid(pw->pw_gid);
		if (!pw->pw_uid || !pw->pw_gid || !gr ||
		    is_number(pw->pw_name) || is_number(gr->gr_name) ||
		    strlen(pw->pw_name) >= sizeof(w->user) ||
		    strlen(gr->gr_name) >= sizeof(w->group))
			continue;
		snprintf(w->user, sizeof(w->user), "%s", pw->pw_name);
		snprintf(w->group, sizeof(w->group), "%s", gr->gr_name);
		w->uid = pw->pw_uid;
		w->gid = pw->pw_gid;
		found = true;
	}
	endpwent();
	setgrent();
	while (found && (gr = getgrent()))
		if (gr->gr_gid && gr->gr_gid != w->gid &&
		    !is_number(gr->gr_name) &&
		    strlen(gr->gr_name) < sizeof(w->other))
			break;
	endgrent();
	if (!found || !gr)
		return false;
	snprintf(w->other, sizeof(w->other), "%s", gr->gr_name);
	w->other_gid = gr->gr_gid;
	for (w->stranger = 4242; getpwuid(w->stranger); w->stranger++)
		;
	return true;
}

#define WHO(w)	do {							\
	ASSERT_TRUE(find_who(&(w)))					\
		TH_LOG("no user but root, or no group, in this machine's passwd"); \
} while (0)

/* "user(uid):group(gid)", as show and user print it. */
static const char *who_str(const struct who *w)
{
	char *b = slot_buf();

	snprintf(b, 2048, "%s(%u):%s(%u)", w->user, w->uid, w->group, w->gid);
	return b;
}

/* The uid and gid files of @purpose: "uid gid". */
static const char *ident_of(const char *root, const char *purpose)
{
	char rel[2][256], *b = slot_buf();

	snprintf(rel[0], sizeof(rel[0]), UMH "/%s/uid", purpose);
	snprintf(rel[1], sizeof(rel[1]), UMH "/%s/gid", purpose);
	snprintf(b, 2048, "%.32s %.32s", get(root, rel[0]), get(root, rel[1]));
	return b;
}

/* "uid\n gid\n", as ident_of() reads what umhcap, or the kernel, wrote. */
static const char *ident(uint32_t uid, uint32_t gid)
{
	char *b = slot_buf();

	snprintf(b, 2048, "%u\n %u\n", uid, gid);
	return b;
}

TEST_F(umh, user_by_name)
{
	struct who w;
	char want[256];
	size_t i;

	WHO(w);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "coredump", w.user));
	ASSERT_STREQ(ident(w.uid, w.gid), ident_of(self->root, "coredump"));
	snprintf(want, sizeof(want), "coredump: runs as %s\n", who_str(&w));
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
	for (i = 0; i < NR_PURPOSES; i++)
		if (strcmp(purposes[i], "coredump"))
			ASSERT_STREQ(ident(0, 0),
				     ident_of(self->root, purposes[i]));
	/* The bounds are left as they were. */
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/coredump/bset"));
	/* A group named: that group, not the user's own. */
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "power,coredump",
			 strcat(strcat(strcpy(want, w.user), ":"), w.other)));
	ASSERT_STREQ(ident(w.uid, w.other_gid),
		     ident_of(self->root, "coredump"));
	ASSERT_STREQ(ident(w.uid, w.other_gid), ident_of(self->root, "power"));
	snprintf(want, sizeof(want), "%s(%u):%s(%u)\n", w.user, w.uid,
		 w.other, w.other_gid);
	ASSERT_HAS(res.out, want);
	/* In the order of the purposes, not of -p. */
	ASSERT_TRUE(strstr(res.out, "coredump: runs as ") == res.out);
}

TEST_F(umh, user_by_number)
{
	char spec[160], want[256];
	struct who w;

	WHO(w);
	/* A uid passwd knows: its primary group. */
	snprintf(spec, sizeof(spec), "%u", w.uid);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "initrd", spec));
	ASSERT_STREQ(ident(w.uid, w.gid), ident_of(self->root, "initrd"));
	snprintf(want, sizeof(want), "initrd: runs as %s\n", who_str(&w));
	ASSERT_STREQ(want, res.out);
	/* One it does not know takes a group, by name or by number. */
	snprintf(spec, sizeof(spec), "%u:%s", w.stranger, w.group);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "initrd", spec));
	ASSERT_STREQ(ident(w.stranger, w.gid), ident_of(self->root, "initrd"));
	snprintf(want, sizeof(want), "initrd: runs as %u:%s(%u)\n",
		 w.stranger, w.group, w.gid);
	ASSERT_STREQ(want, res.out);
	snprintf(spec, sizeof(spec), "%s:%u", w.user, w.stranger);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "other", spec));
	ASSERT_STREQ(ident(w.uid, w.stranger), ident_of(self->root, "other"));
	snprintf(want, sizeof(want), "other: runs as %s(%u):%u\n", w.user,
		 w.uid, w.stranger);
	ASSERT_STREQ(want, res.out);
}

/* Every purpose, by all. */
TEST_F(umh, user_all_purposes)
{
	struct who w;
	size_t i;

	WHO(w);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "modprobe,all", w.user));
	for (i = 0; i < NR_PURPOSES; i++)
		ASSERT_STREQ(ident(w.uid, w.gid),
			     ident_of(self->root, purposes[i]));
	ASSERT_EQ((int)NR_PURPOSES, count_of(res.out, ": runs as "));
	ASSERT_TRUE(strstr(res.out, "modprobe: runs as ") == res.out);
}

/* What umhcap user refused, and said; nothing was written. */
struct refusal {
	char spec[128];
	char err[256];
};

/* A user, group or id that is not there: refused, and nothing written. */
TEST_F(umh, user_unknown_refused)
{
	struct refusal bad[7];
	char *before, *after;
	struct who w;
	size_t i;

	WHO(w);
	ASSERT_EQ(NULL, getpwnam("umhcap-no-such-user"));
	ASSERT_EQ(NULL, getgrnam("umhcap-no-such-group"));
	bad[0] = (struct refusal){ "umhcap-no-such-user",
		"umhcap: unknown user \"umhcap-no-such-user\": this machine's passwd has no such user; give a user it knows (getent passwd), or a uid\n" };
	snprintf(bad[1].spec, sizeof(bad[1].spec), "umhcap-no-such-user:%s",
		 w.group);
	strcpy(bad[1].err, bad[0].err);
	snprintf(bad[2].spec, sizeof(bad[2].spec), "%s:umhcap-no-such-group",
		 w.user);
	strcpy(bad[2].err, "umhcap: unknown group \"umhcap-no-such-group\": this machine's group file has no such group; give a group it knows (getent group), or a gid\n");
	snprintf(bad[3].spec, sizeof(bad[3].spec), "%u", w.stranger);
	snprintf(bad[3].err, sizeof(bad[3].err), "umhcap: uid %u is in no passwd entry, so it has no primary group: name one, %u:GROUP\n",
		 w.stranger, w.stranger);
	/* (u32)-1 is no id, and the kernel refuses it. */
	bad[4] = (struct refusal){ "4294967295",
		"umhcap: bad user \"4294967295\": an id is a number below 4294967295\n" };
	bad[5] = (struct refusal){ "99999999999:0",
		"umhcap: bad user \"99999999999\": an id is a number below 4294967295\n" };
	bad[6] = (struct refusal){ "0:4294967295",
		"umhcap: bad group \"4294967295\": an id is a number below 4294967295\n" };
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(2, RUN(self->root, "user", "-p", "modprobe,coredump",
				 bad[i].spec))
			TH_LOG("%s", bad[i].spec);
		strcat(bad[i].err, "umhcap: user: nothing was written\n");
		EXPECT_STREQ(bad[i].err, res.err);
		EXPECT_STREQ("", res.out);
	}
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* How user is used: one line, and nothing written. */
TEST_F(umh, user_usage)
{
	static const char *const runs[][5] = {
		{ "user", "daemon" },
		{ "user", "-p", "coredump" },
		{ "user", "-p", "coredump", "daemon", "root" },
		{ "user", "-p", "coredump", "daemon:" },
		{ "user", "-p", "coredump", ":daemon" },
		{ "user", "-p", "coredump", "" },
		{ "user", "-p", "coredump,bogus", "daemon" },
		{ "user", "-p", "coredump,,power", "daemon" },
	};
	static const char *const errs[] = {
		"umhcap: name the purposes with -p; usage: umhcap user -p PURPOSE[,PURPOSE...] [-n] USER[:GROUP]\n",
		"umhcap: name a user; usage: umhcap user ",
		"umhcap: unexpected argument \"root\"; usage: umhcap user ",
		"umhcap: bad USER[:GROUP] \"daemon:\"; usage: umhcap user ",
		"umhcap: bad USER[:GROUP] \":daemon\"; usage: umhcap user ",
		"umhcap: bad USER[:GROUP] \"\"; usage: umhcap user ",
		"umhcap: unknown purpose \"bogus\"; valid: all modprobe ",
		"umhcap: empty purpose name in \"coredump,,power\"; separate purposes with one comma, none before the first or after the last\n",
	};
	char *before, *after;
	size_t i;

	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		EXPECT_EQ(2, run_argv(self->root, true, (const char **)runs[i]))
			TH_LOG("run %zu", i);
		EXPECT_EQ(0, strncmp(res.err, errs[i], strlen(errs[i])))
			TH_LOG("run %zu: want \"%s\" at the start of: %s", i,
			       errs[i], res.err);
		EXPECT_EQ(1, count_of(res.err, "\n")) TH_LOG("%s", res.err);
		EXPECT_STREQ("", res.out);
	}
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * -n: the files, in the order they would be written, and nothing
 * written.  Away from root the gid first; back to root the uid first.
 */
TEST_F(umh, user_dry_run_writes_nothing)
{
	char *before, *after, want[2 * PATH_MAX];
	struct who w;

	WHO(w);
	set_ident(self->root, "power", w.uid, w.gid);
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "user", "-n", "-p", "coredump,power",
			 w.user));
	snprintf(want, sizeof(want),
		 "would write \"%u\" to %s/" UMH "/coredump/gid\n"
		 "would write \"%u\" to %s/" UMH "/coredump/uid\n"
		 "coredump: would run as %s\n"
		 "power: would run as %s already; unchanged\n",
		 w.gid, self->root, w.uid, self->root, who_str(&w),
		 who_str(&w));
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
	ASSERT_EQ(0, RUN(self->root, "user", "--dry-run", "-p", "power",
			 "root"));
	snprintf(want, sizeof(want),
		 "would write \"0\" to %s/" UMH "/power/uid\n"
		 "would write \"0\" to %s/" UMH "/power/gid\n"
		 "power: would run as root\n", self->root, self->root);
	ASSERT_STREQ(want, res.out);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * The order of the writes, seen where the second fails: away from root
 * the gid is written and the uid is not; back to root, the uid and not
 * the gid.  Exit 3, and what was written is named.
 */
TEST_F(umh, user_write_order)
{
	struct who w;

	WHO(w);
	read_only(self->root, UMH "/coredump/uid");
	ASSERT_EQ(3, RUN(self->root, "user", "-p", "coredump", w.user));
	ASSERT_STREQ(ident(0, w.gid), ident_of(self->root, "coredump"));
	ASSERT_HAS(res.err, "/" UMH "/coredump/uid: Permission denied\n");
	ASSERT_HAS(res.err, "umhcap: user stopped at coredump, after writing to: coredump (in part); the purposes after coredump were not changed\n");
	ASSERT_STREQ("", res.out);

	set_ident(self->root, "power", w.uid, w.gid);
	read_only(self->root, UMH "/power/gid");
	ASSERT_EQ(3, RUN(self->root, "user", "-p", "power", "root"));
	ASSERT_STREQ(ident(0, w.gid), ident_of(self->root, "power"));
	ASSERT_HAS(res.err, "/" UMH "/power/gid: Permission denied\n");
	ASSERT_HAS(res.err, "stopped at power, after writing to: power (in part);");
}

/* Back to root, by name and by number; what is already so is not written. */
TEST_F(umh, user_back_to_root)
{
	char *before, *after, want[256];
	struct who w;

	WHO(w);
	set_ident(self->root, "coredump", w.uid, w.gid);
	set_ident(self->root, "uevent", w.uid, 0);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "coredump,uevent", "root"));
	ASSERT_STREQ(ident(0, 0), ident_of(self->root, "coredump"));
	ASSERT_STREQ(ident(0, 0), ident_of(self->root, "uevent"));
	ASSERT_STREQ("coredump: runs as root\nuevent: runs as root\n", res.out);
	set_ident(self->root, "coredump", w.uid, w.gid);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "coredump", "0"));
	ASSERT_STREQ(ident(0, 0), ident_of(self->root, "coredump"));
	/* What is already so: nothing to write. */
	set_ident(self->root, "power", w.uid, w.gid);
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "coredump", "root:0"));
	ASSERT_STREQ("coredump: runs as root already; unchanged\n", res.out);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "power", w.user));
	snprintf(want, sizeof(want), "power: runs as %s already; unchanged\n",
		 who_str(&w));
	ASSERT_STREQ(want, res.out);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* A purpose that fails stops the rest; those before it were written. */
TEST_F(umh, user_partial_failure)
{
	struct who w;

	WHO(w);
	read_only(self->root, UMH "/coredump/gid");
	ASSERT_EQ(3, RUN(self->root, "user", "-p", "modprobe,coredump,power",
			 w.user));
	ASSERT_STREQ(ident(w.uid, w.gid), ident_of(self->root, "modprobe"));
	ASSERT_STREQ(ident(0, 0), ident_of(self->root, "coredump"));
	ASSERT_STREQ(ident(0, 0), ident_of(self->root, "power"));
	ASSERT_HAS(res.err, "umhcap: user stopped at coredump, after writing to: modprobe; the purposes after coredump were not changed\n");
	ASSERT_HAS(res.out, "modprobe: runs as ");
	ASSERT_LACKS(res.out, "power");
	/* The first write fails: nothing was written. */
	read_only(self->root, UMH "/coredump/gid");
	ASSERT_EQ(2, RUN(self->root, "user", "-p", "coredump", w.user));
	ASSERT_HAS(res.err, "umhcap: user: nothing was written\n");
	ASSERT_STREQ(ident(0, 0), ident_of(self->root, "coredump"));
}

/*
 * EPERM, as the kernel refuses: what the write needs, and what this
 * process lacks of it.  Away from root: cap_setpcap, cap_sys_module and
 * cap_setuid (cap_setgid for the gid); back to root, every capability.
 */
TEST_F(umh, user_eperm_explained)
{
	char want[PATH_MAX + 256];
	struct who w;

	WHO(w);
	ASSERT_EQ(0, setenv("UMHCAP_FAKE_EPERM", "/coredump/uid", 1));
	drop_caps = B(CAP_SETUID);
	ASSERT_EQ(3, RUN(self->root, "user", "-p", "coredump", w.user));
	snprintf(want, sizeof(want), "umhcap: cannot write %s/" UMH
		 "/coredump/uid: Operation not permitted; needs cap_setuid, cap_setpcap, cap_sys_module, and this process lacks cap_setuid in its effective set; run as root with full capabilities\n",
		 self->root);
	ASSERT_HAS(res.err, want);
	ASSERT_STREQ(ident(0, w.gid), ident_of(self->root, "coredump"));
	/* Held, but refused: the user namespace is to blame. */
	ASSERT_EQ(2, RUN(self->root, "user", "-p", "coredump", w.user));
	ASSERT_HAS(res.err, "/coredump/uid: Operation not permitted; needs cap_setuid, cap_setpcap, cap_sys_module, which this process holds in its effective set, but not in the initial user namespace: run outside any container or user namespace\n");

	/* Back to root: every capability. */
	set_ident(self->root, "coredump", w.uid, w.gid);
	drop_caps = B(CAP_SETUID);
	ASSERT_EQ(2, RUN(self->root, "user", "-p", "coredump", "root"));
	ASSERT_HAS(res.err, "/coredump/uid: Operation not permitted; needs every capability, and this process lacks ");
	ASSERT_HAS(res.err, "cap_setuid");
	ASSERT_HAS(res.err, "umhcap: user: nothing was written\n");
	ASSERT_STREQ(ident(w.uid, w.gid), ident_of(self->root, "coredump"));

	/* The gid, moved away from root: cap_setgid. */
	set_ident(self->root, "coredump", 0, 0);
	ASSERT_EQ(0, setenv("UMHCAP_FAKE_EPERM", "/coredump/gid", 1));
	drop_caps = B(CAP_SETGID) | B(CAP_SYS_MODULE);
	ASSERT_EQ(2, RUN(self->root, "user", "-p", "coredump", w.user));
	ASSERT_HAS(res.err, "/coredump/gid: Operation not permitted; needs cap_setgid, cap_setpcap, cap_sys_module, and this process lacks cap_setgid, cap_sys_module in its effective set;");
}

/* A bound, as drop writes it: what narrowing needs. */
TEST_F(umh, drop_eperm_explained)
{
	ASSERT_EQ(0, setenv("UMHCAP_FAKE_EPERM", "/modprobe/bset", 1));
	drop_caps = B(CAP_SETPCAP);
	ASSERT_EQ(2, RUN(self->root, "drop", "-p", "modprobe", "cap_chown"));
	ASSERT_HAS(res.err, "/modprobe/bset: Operation not permitted; needs cap_setpcap, cap_sys_module, and this process lacks cap_setpcap in its effective set; run as root with full capabilities\n");
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
}

/* A kernel without identities: said plainly, and nothing written. */
TEST_F(umh, user_without_idents)
{
	char *before, *after, want[PATH_MAX + 256];

	no_idents(self->root);
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "user", "-p", "coredump", "1:1"));
	snprintf(want, sizeof(want), "umhcap: no identities in this kernel (no %s/" UMH
		 "/modprobe/uid): its helpers run as root, and cannot run as another user; boot a kernel with usermodehelper identities (<purpose>/uid and gid)\n"
		 "umhcap: user: nothing was written\n", self->root);
	ASSERT_STREQ(want, res.err);
	ASSERT_STREQ("", res.out);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(after);
	/* show says so, and shows no identity. */
	ASSERT_EQ(0, RUN(self->root, "show"));
	snprintf(want, sizeof(want), "\nno identities in this kernel (no %s/" UMH
		 "/modprobe/uid):\nevery helper runs as root.\n", self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_LACKS(res.out, "runs as:");
	ASSERT_EQ(0, RUN(self->root, "--json", "show"));
	ASSERT_JSON(res.out);
	ASSERT_HAS(res.out, "\n  ],\"identities\":null\n}\n");
	/* Without per-purpose bounds, neither. */
	unpatch(self->root);
	ASSERT_EQ(2, RUN(self->root, "user", "-p", "coredump", "1:1"));
	ASSERT_HAS(res.err, "umhcap: no identities in this kernel (no ");
	ASSERT_EQ(0, RUN(self->root, "show"));
	ASSERT_HAS(res.out, "no identities in this kernel");
	free(before);
}

/* An id file that is not a decimal id: an error, and nothing written. */
TEST_F(umh, ident_malformed)
{
	static const char *const bad[] = {
		"abc\n", "", "-1\n", "4294967295\n", "1 2\n", "0x10\n",
	};
	char *before, *after, want[PATH_MAX + 128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		put(self->root, UMH "/power/gid", "%s", bad[i]);
		before = tree(self->root);
		snprintf(want, sizeof(want), "umhcap: cannot parse %s/" UMH
			 "/power/gid: unexpected content \"%.*s\"; expected a decimal id\n",
			 self->root, (int)strcspn(bad[i], "\n"), bad[i]);
		EXPECT_EQ(2, RUN(self->root, "show"));
		EXPECT_STREQ(want, res.err);
		EXPECT_EQ(2, RUN(self->root, "export", "--sysctl"));
		EXPECT_EQ(2, RUN(self->root, "user", "-p", "coredump", "1:1"));
		ASSERT_HAS(res.err, want);
		ASSERT_HAS(res.err, "umhcap: user: nothing was written\n");
		after = tree(self->root);
		EXPECT_STREQ(before, after);
		free(before);
		free(after);
	}
	/* The largest id the kernel takes is one. */
	set_ident(self->root, "power", 4294967294U, 4294967294U);
	ASSERT_EQ(0, RUN(self->root, "show", "power"));
	ASSERT_HAS(res.out, "  runs as:     4294967294:4294967294\n");
}

/* show: who each purpose's helpers run as, below its bounds. */
TEST_F(umh, show_identity)
{
	char want[512];
	struct who w;

	WHO(w);
	set_ident(self->root, "coredump", w.uid, w.gid);
	set_ident(self->root, "initrd", w.stranger, w.gid);
	ASSERT_EQ(0, RUN(self->root, "show"));
	snprintf(want, sizeof(want), "coredump:\n"
		 "  bset:        all\n"
		 "  inheritable: all\n"
		 "  ceiling:     all\n"
		 "  runs as:     %s\n"
		 "uevent:\n", who_str(&w));
	ASSERT_HAS(res.out, want);
	ASSERT_HAS(res.out, "modprobe:\n  bset:        all\n  inheritable: all\n"
			    "  ceiling:     all\n  runs as:     root\ncoredump:\n");
	snprintf(want, sizeof(want), "  runs as:     %u:%s(%u)\n", w.stranger,
		 w.group, w.gid);
	ASSERT_HAS(res.out, want);
	/* The global bound has no identity: every helper gets it. */
	ASSERT_HAS(res.out, "  ceiling:     all\nmodprobe:\n");
	ASSERT_EQ(8, count_of(res.out, "  runs as:"));
	ASSERT_HAS(res.out, "\nFor a purpose that runs as a user (umhcap user), the ceiling is also\n");
	ASSERT_LACKS(res.out, "no identities");
	/* uid 0 with a group: still root, shown with both. */
	set_ident(self->root, "power", 0, w.gid);
	ASSERT_EQ(0, RUN(self->root, "show", "power"));
	snprintf(want, sizeof(want), "  runs as:     root(0):%s(%u)\n", w.group,
		 w.gid);
	ASSERT_HAS(res.out, want);
}

/* As a user, a helper gets only what the inheritable bounds leave too. */
TEST_F(umh, show_ceiling_as_user)
{
	struct who w;

	WHO(w);
	set_bound(self->root, NULL, full(), full() & ~B(CAP_KILL));
	set_bound(self->root, "coredump", full(), B(CAP_CHOWN) | B(CAP_KILL));
	ASSERT_EQ(0, RUN(self->root, "show", "coredump"));
	ASSERT_HAS(res.out, "  ceiling:     all\n");
	set_ident(self->root, "coredump", w.uid, w.gid);
	ASSERT_EQ(0, RUN(self->root, "show", "coredump"));
	ASSERT_HAS(res.out, "  ceiling:     cap_chown\n");
	/* A group alone leaves the helper root. */
	set_ident(self->root, "coredump", 0, w.gid);
	ASSERT_EQ(0, RUN(self->root, "show", "coredump"));
	ASSERT_HAS(res.out, "  ceiling:     all\n");
}

TEST_F(umh, show_json_identities)
{
	struct who w;
	char want[256];

	WHO(w);
	set_ident(self->root, "coredump", w.uid, w.gid);
	ASSERT_EQ(0, RUN(self->root, "--json", "show", "all", "coredump",
			 "power"));
	ASSERT_JSON(res.out);
	snprintf(want, sizeof(want), "\n  ],\"identities\":{\n"
		 "    \"coredump\":{\"uid\":%u,\"gid\":%u},\n"
		 "    \"power\":{\"uid\":0,\"gid\":0}\n  }\n}\n",
		 w.uid, w.gid);
	ASSERT_HAS(res.out, want);
	ASSERT_LACKS(res.out, "\"all\":{");
	ASSERT_EQ(0, RUN(self->root, "--json", "show", "all"));
	ASSERT_JSON(res.out);
	ASSERT_HAS(res.out, "],\"identities\":{\n  }\n}\n");
}

/* ---- export, with identities ---- */

/* The sysctl lines of a bound, global when @p is NULL. */
static int bound_lines(char *buf, size_t len, const char *p, uint64_t bset,
		       uint64_t inh)
{
	return snprintf(buf, len,
			"kernel.usermodehelper%s%s.bset = %u\t%u\n"
			"kernel.usermodehelper%s%s.inheritable = %u\t%u\n",
			p ? "." : "", p ? p : "", (uint32_t)bset,
			(uint32_t)(bset >> 32), p ? "." : "", p ? p : "",
			(uint32_t)inh, (uint32_t)(inh >> 32));
}

/* The gid and uid of a purpose not root, before its bounds. */
TEST_F(umh, export_identity_sysctl)
{
	char want[4096];
	struct who w;
	size_t i;
	int n;

	WHO(w);
	set_ident(self->root, "coredump", w.uid, w.gid);
	set_ident(self->root, "initrd", 0, w.other_gid);
	set_bound(self->root, NULL, B(CAP_KILL), 0);
	for (i = 0; i < NR_PURPOSES; i++)
		set_bound(self->root, purposes[i], B(i), B(i));
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	n = bound_lines(want, sizeof(want), NULL, B(CAP_KILL), 0);
	for (i = 0; i < NR_PURPOSES; i++) {
		if (!strcmp(purposes[i], "coredump"))
			n += snprintf(want + n, sizeof(want) - n,
				      "kernel.usermodehelper.coredump.gid = %u\n"
				      "kernel.usermodehelper.coredump.uid = %u\n",
				      w.gid, w.uid);
		if (!strcmp(purposes[i], "initrd"))
			n += snprintf(want + n, sizeof(want) - n,
				      "kernel.usermodehelper.initrd.gid = %u\n"
				      "kernel.usermodehelper.initrd.uid = 0\n",
				      w.other_gid);
		n += bound_lines(want + n, sizeof(want) - n, purposes[i],
				 B(i), B(i));
	}
	ASSERT_STREQ(want, res.out);

	/* Every bound open: the identities, and the comment that says so. */
	set_bound(self->root, NULL, full(), full());
	for (i = 0; i < NR_PURPOSES; i++)
		set_bound(self->root, purposes[i], full(), full());
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	snprintf(want, sizeof(want),
		 "# every usermode helper bound is open (every capability the kernel\n"
		 "# knows), as at boot: no bound to narrow\n"
		 "kernel.usermodehelper.coredump.gid = %u\n"
		 "kernel.usermodehelper.coredump.uid = %u\n"
		 "kernel.usermodehelper.initrd.gid = %u\n"
		 "kernel.usermodehelper.initrd.uid = 0\n",
		 w.gid, w.uid, w.other_gid);
	ASSERT_STREQ(want, res.out);
}

/* Before the bounds, as all root would print them: gid=, then uid=. */
TEST_F(umh, export_identity_cmdline)
{
	char want[256], *bounds;
	struct who w;

	WHO(w);
	harden(self->root);
	ASSERT_EQ(0, RUN(self->root, "export", "--cmdline"));
	bounds = strdup(res.out);
	set_ident(self->root, "coredump", w.uid, w.gid);
	set_ident(self->root, "other", w.stranger, w.other_gid);
	ASSERT_EQ(0, RUN(self->root, "export", "--cmdline"));
	snprintf(want, sizeof(want),
		 "usermodehelper.gid=coredump:%u,other:%u "
		 "usermodehelper.uid=coredump:%u,other:%u ",
		 w.gid, w.other_gid, w.uid, w.stranger);
	ASSERT_EQ(0, strncmp(want, res.out, strlen(want))) TH_LOG("%s", res.out);
	ASSERT_STREQ(bounds, res.out + strlen(want));
	free(bounds);

	/* Every bound open: the identities alone, and a note on stderr. */
	set_bound(self->root, NULL, full(), full());
	for (size_t i = 0; i < NR_PURPOSES; i++)
		set_bound(self->root, purposes[i], full(), full());
	ASSERT_EQ(0, RUN(self->root, "export", "--cmdline"));
	want[strlen(want) - 1] = '\n';
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.err, "umhcap: note: every usermode helper bound is open");
}

/* Every purpose root: export as on a kernel without identities. */
TEST_F(umh, export_all_root_unchanged)
{
	static const char *const forms[] = { "--sysctl", "--cmdline" };
	char *with[2];
	size_t f;

	learn_scene(self->root);
	for (f = 0; f < ARRAY_SIZE(forms); f++) {
		ASSERT_EQ(0, RUN(self->root, "export", forms[f]));
		with[f] = strdup(res.out);
		ASSERT_LACKS(res.out, "uid");
		ASSERT_LACKS(res.out, "gid");
	}
	no_idents(self->root);
	for (f = 0; f < ARRAY_SIZE(forms); f++) {
		ASSERT_EQ(0, RUN(self->root, "export", forms[f]));
		ASSERT_STREQ(with[f], res.out);
		free(with[f]);
	}
}

/* export --learned: the bounds learned, the identities as they are. */
TEST_F(umh, export_learned_identity)
{
	char want[512];
	struct who w;

	WHO(w);
	learn_scene(self->root);
	set_ident(self->root, "coredump", w.uid, w.gid);
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--sysctl"));
	snprintf(want, sizeof(want),
		 "kernel.usermodehelper.modprobe.inheritable = 65536\t0\n"
		 "kernel.usermodehelper.coredump.gid = %u\n"
		 "kernel.usermodehelper.coredump.uid = %u\n"
		 "kernel.usermodehelper.coredump.bset = 3\t0\n", w.gid, w.uid);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--cmdline"));
	snprintf(want, sizeof(want),
		 "usermodehelper.gid=coredump:%u usermodehelper.uid=coredump:%u "
		 "usermodehelper.bset=modprobe:0x10000,", w.gid, w.uid);
	ASSERT_EQ(0, strncmp(res.out, want, strlen(want))) TH_LOG("%s", res.out);
}

/* learn: who a purpose's helpers run as, when not root. */
TEST_F(umh, learn_shows_identity)
{
	char want[512];
	struct who w;

	WHO(w);
	learn_scene(self->root);
	set_ident(self->root, "coredump", w.uid, w.gid);
	ASSERT_EQ(0, RUN(self->root, "learn"));
	snprintf(want, sizeof(want),
		 "coredump: 2 helpers started since boot\n"
		 "  runs as:     %s\n"
		 "  used:        cap_chown, cap_dac_override\n", who_str(&w));
	ASSERT_HAS(res.out, want);
	ASSERT_HAS(res.out, "modprobe: 4 helpers started since boot\n"
			    "  used:        cap_sys_module\n");
	ASSERT_EQ(1, count_of(res.out, "  runs as:"));
	ASSERT_HAS(res.out, "\nruns as: the user and group a purpose's helpers run as now");
	ASSERT_EQ(0, RUN(self->root, "learn", "--json", "coredump"));
	ASSERT_JSON(res.out);
	snprintf(want, sizeof(want), "\n  ],\"identities\":{\n"
		 "    \"coredump\":{\"uid\":%u,\"gid\":%u}\n  },\n",
		 w.uid, w.gid);
	ASSERT_HAS(res.out, want);
	/* --apply narrows the bounds, and leaves the identity. */
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply"));
	ASSERT_STREQ(written(CD_USED), get(self->root, UMH "/coredump/bset"));
	ASSERT_STREQ(ident(w.uid, w.gid), ident_of(self->root, "coredump"));
}

/* ---- check, with the record ---- */

TEST_F(umh, check_unused_capabilities)
{
	char want[512];

	harden(self->root);
	ASSERT_NE(0ULL, need("modprobe"));
	set_record(self->root, "modprobe", 0, 2);
	set_record(self->root, "coredump", need("coredump"), 1);
	/* Idle: its empty record says nothing. */
	set_record(self->root, "power", 0, 0);
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "modprobe: the bound allows capabilities its helpers never used since boot (2 started): %s; 'umhcap learn --apply' narrows it\n"
		 "1 finding\n", fmt(need("modprobe")));
	ASSERT_STREQ(want, res.out);
	set_record(self->root, "modprobe", need("modprobe"), 2);
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
}

TEST_F(umh, check_used_now_refused)
{
	uint64_t more = one_more(need("modprobe"));
	char want[512];

	more |= one_more(need("modprobe") | more);
	harden(self->root);
	set_record(self->root, "modprobe", need("modprobe") | more, 1);
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "modprobe: its helpers used capabilities since boot that the bound no longer allows: %s; they may fail now\n"
		 "1 finding\n", names(more));
	ASSERT_STREQ(want, res.out);
}

TEST_F(umh, check_without_record)
{
	char want[PATH_MAX + 128];
	uint64_t m;

	harden(self->root);
	rm_file(self->root, UMH "/used");
	ASSERT_EQ(0, RUN(self->root, "check"));
	snprintf(want, sizeof(want),
		 "note: this kernel keeps no record of what helpers use (no %s/" UMH "/used); unused capabilities were not checked\n"
		 "no findings\n", self->root);
	ASSERT_STREQ(want, res.out);
	m = need("release_agent") | one_more(need("release_agent"));
	set_bound(self->root, "release_agent", m, m);
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, measured_finding("release_agent", m));
	/* No record: what no helper was measured for is held to nothing. */
	set_bound(self->root, "release_agent", need("release_agent"),
		  need("release_agent"));
	set_bound(self->root, "other", B(CAP_KILL), B(CAP_KILL));
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "other: no helper of this purpose was measured, and this kernel keeps no record of what its helpers use; its ceiling allows: cap_kill; bound it to nothing\n"
			    "note: this kernel keeps no record");
	ASSERT_HAS(res.out, "\n1 finding\n");
}

/* ---- trace ---- */

/*
 * A fake tracefs as the kernel shows it: the ring-buffer page layout,
 * the umh_exec format with the offsets x86_64 gives its fields, and
 * per-CPU trace_pipe_raw files holding pages built here, record by record.
 */
#define UMH_EXEC_ID	1742
#define OTHER_ID	317
#define PAGE_SIZE	4096
#define PAGE_HDR	16		/* u64 timestamp, long commit */

/*
 * Whether the fake kernel's umh_exec records who the helper ran as, uid
 * and gid after inheritable, as it does since helpers have identities of
 * their own.  old_umh_exec() makes it a kernel from before; each test runs
 * in a child of its own, so that lasts for the one test.
 */
static bool exec_ident = true;

/* offsetof(..., __data), sizeof(struct trace_event_raw_umh_exec), ret's */
#define EV_DATA		(exec_ident ? 68 : 60)
#define EV_SIZE		(exec_ident ? 72 : 64)
#define EV_RET		(exec_ident ? 64 : 56)

#define HEADER_PAGE \
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n" \
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n" \
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n" \
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n"

#define HEADER_EVENT \
	"# compressed entry header\n" \
	"\ttype_len    :    5 bits\n" \
	"\ttime_delta  :   27 bits\n" \
	"\tarray       :   32 bits\n" \
	"\n" \
	"\tpadding     : type == 29\n" \
	"\ttime_extend : type == 30\n" \
	"\ttime_stamp : type == 31\n" \
	"\tdata max type_len  == 28\n"

/*
 * The purpose as the kernel records it, __string(purpose, name): its
 * name, after the fixed part of the record.  Every char[] field is
 * signed:0: the kernel is built with -funsigned-char.
 */
#define FMT_PURPOSE \
	"\tfield:__data_loc char[] purpose;\toffset:8;\tsize:4;\tsigned:0;\n"
#define ARG_PURPOSE	"__get_str(purpose)"
/* As the series recorded it before: the kernel's number, shown by name. */
#define FMT_PURPOSE_NUM \
	"\tfield:unsigned int purpose;\toffset:8;\tsize:4;\tsigned:0;\n"
#define ARG_PURPOSE_NUM \
	"__print_symbolic(REC->purpose, { 0, \"other\" }, { 1, \"modprobe\" }, { 2, \"coredump\" }, { 3, \"uevent\" }, { 4, \"request_key\" }, { 5, \"release_agent\" }, { 6, \"power\" }, { 7, \"initrd\" })"

#define FMT_PROGRAM \
	"\tfield:__data_loc char[] program;\toffset:16;\tsize:4;\tsigned:0;\n"

/* Who the helper ran as, after inheritable; ret follows them, at 64. */
#define FMT_UID		"\tfield:uid_t uid;\toffset:56;\tsize:4;\tsigned:0;\n"
#define FMT_GID		"\tfield:gid_t gid;\toffset:60;\tsize:4;\tsigned:0;\n"
#define FMT_IDENT	FMT_UID FMT_GID

/*
 * The umh_exec format as x86_64 has it, with @purpose_line and
 * @purpose_arg (its argument in the print fmt) for "purpose",
 * @program_line for "program", and @ident_lines for the helper's uid and
 * gid: "" for a kernel without them, whose ret comes right after
 * inheritable.
 */
static const char *exec_format_ident(const char *purpose_line,
				     const char *purpose_arg,
				     const char *program_line,
				     const char *ident_lines)
{
	bool ident = *ident_lines;
	static char buf[4096];

	snprintf(buf, sizeof(buf),
		 "name: umh_exec\n"
		 "ID: %d\n"
		 "format:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "%s"
		 "\tfield:__data_loc char[] path;\toffset:12;\tsize:4;\tsigned:0;\n"
		 "%s"
		 "\tfield:__data_loc char[] args;\toffset:20;\tsize:4;\tsigned:0;\n"
		 "\tfield:int argc;\toffset:24;\tsize:4;\tsigned:1;\n"
		 "\tfield:pid_t trigger_pid;\toffset:28;\tsize:4;\tsigned:1;\n"
		 "\tfield:__data_loc char[] trigger_comm;\toffset:32;\tsize:4;\tsigned:0;\n"
		 "\tfield:uid_t trigger_uid;\toffset:36;\tsize:4;\tsigned:0;\n"
		 "\tfield:u64 bset;\toffset:40;\tsize:8;\tsigned:0;\n"
		 "\tfield:u64 inheritable;\toffset:48;\tsize:8;\tsigned:0;\n"
		 "%s"
		 "\tfield:int ret;\toffset:%d;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "print fmt: \"purpose=%%s path=\\\"%%s\\\" program=\\\"%%s\\\" argc=%%d args=\\\"%%s\\\" trigger_pid=%%d trigger_comm=\\\"%%s\\\" trigger_uid=%%u bset=0x%%016llx inheritable=0x%%016llx%s ret=%%d\", "
		 "%s, "
		 "__get_str(path), __get_str(program), REC->argc, __get_str(args), REC->trigger_pid, __get_str(trigger_comm), REC->trigger_uid, REC->bset, REC->inheritable%s, REC->ret\n",
		 UMH_EXEC_ID, purpose_line, program_line, ident_lines,
		 ident ? 64 : 56, ident ? " uid=%u gid=%u" : "", purpose_arg,
		 ident ? ", REC->uid, REC->gid" : "");
	return buf;
}

/* The same, with the identity as the kernel of exec_ident has it. */
static const char *exec_format(const char *purpose_line,
			       const char *purpose_arg,
			       const char *program_line)
{
	return exec_format_ident(purpose_line, purpose_arg, program_line,
				 exec_ident ? FMT_IDENT : "");
}

/* The umh_exec format, with @program_line for "program". */
static const char *umh_exec_format(const char *program_line)
{
	return exec_format(FMT_PURPOSE, ARG_PURPOSE, program_line);
}

#define UMH_CAPABLE_ID	1743
#define CAP_DATA	36		/* offsetof(..., __data) */

#define FMT_CAP_FIELD	"\tfield:int cap;\toffset:24;\tsize:4;\tsigned:1;\n"

/*
 * The umh_capable format as x86_64 has it, with @purpose_line and
 * @purpose_arg for "purpose", and @cap_line for "cap".
 */
static const char *capable_format(const char *purpose_line,
				  const char *purpose_arg,
				  const char *cap_line)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf),
		 "name: umh_capable\n"
		 "ID: %d\n"
		 "format:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "%s"
		 "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
		 "\tfield:__data_loc char[] comm;\toffset:16;\tsize:4;\tsigned:0;\n"
		 "\tfield:uid_t uid;\toffset:20;\tsize:4;\tsigned:0;\n"
		 "%s"
		 "\tfield:bool noaudit;\toffset:28;\tsize:1;\tsigned:0;\n"
		 "\tfield:int ret;\toffset:32;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "print fmt: \"purpose=%%s pid=%%d comm=\\\"%%s\\\" uid=%%u cap=%%d noaudit=%%d ret=%%d\", "
		 "%s, "
		 "REC->pid, __get_str(comm), REC->uid, REC->cap, REC->noaudit, REC->ret\n",
		 UMH_CAPABLE_ID, purpose_line, cap_line, purpose_arg);
	return buf;
}

/* The umh_capable format, with @cap_line for "cap". */
static const char *umh_capable_format(const char *cap_line)
{
	return capable_format(FMT_PURPOSE, ARG_PURPOSE, cap_line);
}

/* The files of a new instance, as the kernel makes it. */
static const char *const fresh[][2] = {
	{ "tracing_on",				"1\n" },
	{ "set_event_pid",			"" },
	{ "set_event_notrace_pid",		"" },
	{ "events/umh/umh_exec/enable",		"0\n" },
	{ "events/umh/umh_exec/filter",		"none\n" },
	{ "events/umh/umh_capable/enable",	"0\n" },
	{ "events/umh/umh_capable/filter",	"none\n" },
	{ "per_cpu/cpu0/trace_pipe_raw",	"" },
};

/*
 * The tracefs files umhcap reads, under ROOT/DIR, and those a new
 * instance holds, under DIR/fresh-instance.
 */
static void fake_tracefs(const char *root, const char *dir)
{
	char rel[256], path[PATH_MAX];
	size_t i;

	snprintf(rel, sizeof(rel), "%s/events/header_page", dir);
	put(root, rel, HEADER_PAGE);
	snprintf(rel, sizeof(rel), "%s/events/header_event", dir);
	put(root, rel, HEADER_EVENT);
	snprintf(rel, sizeof(rel), "%s/events/umh/enable", dir);
	put(root, rel, "0\n");
	snprintf(rel, sizeof(rel), "%s/events/umh/umh_exec/enable", dir);
	put(root, rel, "0\n");
	snprintf(rel, sizeof(rel), "%s/events/umh/umh_exec/format", dir);
	put(root, rel, "%s", umh_exec_format(FMT_PROGRAM));
	snprintf(rel, sizeof(rel), "%s/events/umh/umh_capable/enable", dir);
	put(root, rel, "0\n");
	snprintf(rel, sizeof(rel), "%s/events/umh/umh_capable/format", dir);
	put(root, rel, "%s", umh_capable_format(FMT_CAP_FIELD));
	snprintf(path, sizeof(path), "%s/%s/instances", root, dir);
	mkdir_p(path);
	for (i = 0; i < ARRAY_SIZE(fresh); i++) {
		snprintf(rel, sizeof(rel), "%s/fresh-instance/%s", dir,
			 fresh[i][0]);
		put(root, rel, "%s", fresh[i][1]);
	}
}

struct ev {
	unsigned long long ts;		/* ns */
	const char *purpose;		/* NULL: @number, as FMT_PURPOSE_NUM */
	unsigned int number;
	const char *path, *program, *args;
	int argc, pid;
	const char *comm;
	unsigned int uid;
	uint64_t bset, inh;
	int ret;
	unsigned int as_uid, as_gid;	/* who the helper ran as */
};

/* A sub-buffer being filled, as the kernel's ring buffer lays it out. */
struct page {
	unsigned char b[PAGE_SIZE];
	size_t len;			/* bytes of data after the header */
	unsigned long long ts;		/* of the last event */
	unsigned long long flags;	/* ORed into commit */
};

static void page_init(struct page *pg, unsigned long long ts)
{
	memset(pg, 0, sizeof(*pg));
	pg->ts = ts;
	memcpy(pg->b, &ts, 8);
}

static void page_u32(struct page *pg, uint32_t v)
{
	memcpy(pg->b + PAGE_HDR + pg->len, &v, 4);
	pg->len += 4;
}

/* One record of @len bytes, with a time extend first if the delta needs it. */
static void page_add(struct page *pg, unsigned long long ts, const void *data,
		     size_t len)
{
	unsigned long long delta = ts - pg->ts;
	size_t alen = (len + 3) & ~3UL;

	/* A time extend, a long header and the record must fit. */
	if (PAGE_HDR + pg->len + 16 + alen > PAGE_SIZE)
		abort();
	if (delta >= 1ULL << 27) {
		page_u32(pg, 30 | (uint32_t)(delta & ((1U << 27) - 1)) << 5);
		page_u32(pg, delta >> 27);
		delta = 0;
	}
	pg->ts = ts;
	if (alen <= 28 * 4) {
		page_u32(pg, alen / 4 | (uint32_t)delta << 5);
	} else {
		page_u32(pg, (uint32_t)delta << 5);
		page_u32(pg, alen + 4);
	}
	memcpy(pg->b + PAGE_HDR + pg->len, data, len);
	pg->len += alen;
}

/* __string(): the bytes go after the fixed part, the field says where. */
static void ev_str(unsigned char *rec, size_t *end, int off, const char *s)
{
	uint32_t loc, len = strlen(s) + 1;

	loc = len << 16 | *end;
	memcpy(rec + off, &loc, 4);
	memcpy(rec + *end, s, len);
	*end += len;
}

/* The purpose, at offset 8 of both events: by name, or by @number. */
static void ev_purpose(unsigned char *rec, size_t *end, const char *purpose,
		       unsigned int number)
{
	if (purpose)
		ev_str(rec, end, 8, purpose);
	else
		memcpy(rec + 8, &number, 4);
}

static size_t ev_record(unsigned char *rec, const struct ev *e)
{
	uint16_t type = UMH_EXEC_ID;
	int32_t common_pid = 57;
	size_t end = EV_DATA;

	memset(rec, 0, 1024);
	memcpy(rec, &type, 2);
	memcpy(rec + 4, &common_pid, 4);
	ev_purpose(rec, &end, e->purpose, e->number);
	ev_str(rec, &end, 12, e->path);
	ev_str(rec, &end, 16, e->program ?: e->path);
	ev_str(rec, &end, 20, e->args);
	memcpy(rec + 24, &e->argc, 4);
	memcpy(rec + 28, &e->pid, 4);
	ev_str(rec, &end, 32, e->comm);
	memcpy(rec + 36, &e->uid, 4);
	memcpy(rec + 40, &e->bset, 8);
	memcpy(rec + 48, &e->inh, 8);
	if (exec_ident) {
		memcpy(rec + 56, &e->as_uid, 4);
		memcpy(rec + 60, &e->as_gid, 4);
	}
	memcpy(rec + EV_RET, &e->ret, 4);
	return end < (size_t)EV_SIZE ? (size_t)EV_SIZE : end;
}

static void page_ev(struct page *pg, const struct ev *e)
{
	unsigned char rec[1024];

	page_add(pg, e->ts, rec, ev_record(rec, e));
}

/*
 * Append @e's record with the data_loc at byte @off of it pointing out
 * of the record.
 */
static void page_ev_bad_loc(struct page *pg, const struct ev *e, size_t off)
{
	uint32_t loc = 200 << 16 | (uint32_t)EV_DATA;
	unsigned char rec[1024];
	size_t len = ev_record(rec, e);

	memcpy(rec + off, &loc, 4);
	page_add(pg, e->ts, rec, len);
}

/* Append the page to CPU @cpu's trace_pipe_raw, as read() returns it. */
static void page_write(const char *root, int cpu, struct page *pg)
{
	char path[PATH_MAX];
	uint64_t commit = pg->len | pg->flags;
	int fd;

	memcpy(pg->b + 8, &commit, 8);
	snprintf(path, sizeof(path), "%s/" FRESH "/per_cpu/cpu%d", root, cpu);
	mkdir_p(path);
	strcat(path, "/trace_pipe_raw");
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0 || write(fd, pg->b, PAGE_SIZE) != PAGE_SIZE)
		abort();
	close(fd);
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* Events on CPU 0, one page. */
static void trace_events(const char *root, const struct ev *e, int n)
{
	struct page pg;
	int i;

	page_init(&pg, e[0].ts);
	for (i = 0; i < n; i++)
		page_ev(&pg, &e[i]);
	page_write(root, 0, &pg);
}

/* As umhcap names its instances: "umhcap-" and 16 hex digits. */
static bool instance_name_ok(const char *name)
{
	size_t i;

	if (strlen(name) != 23 || strncmp(name, "umhcap-", 7))
		return false;
	for (i = 7; i < 23; i++)
		if (!isdigit(name[i]) && (name[i] < 'a' || name[i] > 'f'))
			return false;
	return true;
}

/* "@dir/NAME", NAME the one entry of ROOT/@dir; "" for none, "*" for more. */
static const char *only_entry(const char *root, const char *dir)
{
	char path[PATH_MAX], *b = slot_buf();
	struct dirent *d;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/%s", root, dir);
	b[0] = '\0';
	dp = opendir(path);
	while (dp && (d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (b[0]) {
			strcpy(b, "*");
			break;
		}
		snprintf(b, 2048, "%s/%s", dir, d->d_name);
	}
	if (dp)
		closedir(dp);
	return b;
}

/*
 * The instance umhcap made in ROOT and removed, as a path under ROOT; NULL
 * unless it is the only one, it is named as umhcap names them, and no
 * instance is left.
 */
static const char *removed(struct __test_metadata *_metadata,
			   const char *root)
{
	const char *inst = only_entry(root, REMOVED);
	const char *left = only_entry(root, INSTANCES);

	if (strncmp(inst, REMOVED "/", strlen(REMOVED "/")) ||
	    !instance_name_ok(inst + strlen(REMOVED "/")) || left[0]) {
		TH_LOG("removed: \"%s\", left: \"%s\"", inst, left);
		return NULL;
	}
	return inst;
}

/* The file @file of the instance at @inst. */
static const char *at(const char *inst, const char *file)
{
	char *b = slot_buf();

	snprintf(b, 2048, "%s/%s", inst, file);
	return b;
}

/* No instance made: none removed, none left, FRESH unused. */
static bool made_none(const char *root)
{
	return !exists(root, REMOVED) && !only_entry(root, INSTANCES)[0] &&
	       exists(root, FRESH "/tracing_on");
}

/* The removed instance as FRESH again, for another run; 0 or -1. */
static int fresh_again(const char *root)
{
	const char *inst = only_entry(root, REMOVED);
	char from[PATH_MAX], to[PATH_MAX];

	if (!inst[0] || !strcmp(inst, "*"))
		return -1;
	snprintf(from, sizeof(from), "%s/%s", root, inst);
	snprintf(to, sizeof(to), "%s/" FRESH, root);
	if (rename(from, to))
		return -1;
	snprintf(from, sizeof(from), "%s/" REMOVED, root);
	return rmdir(from);
}

#define EV_MODPROBE { .ts = 12345678000ULL, .purpose = "modprobe",	\
	.path = "/sbin/modprobe", .args = "-q -- fs-nosuchfs",		\
	.argc = 3, .pid = 123, .comm = "mount", .uid = 0,		\
	.bset = full(), .inh = 0, .ret = 0 }
#define LINE_MODPROBE "12.345678 modprobe: /sbin/modprobe -q -- fs-nosuchfs " \
	"(trigger pid=123 comm=mount uid=0) caps: all; result: ok\n"

/* Under CONFIG_STATIC_USERMODEHELPER, with arguments left out. */
#define EV_COREDUMP { .ts = 13000001000ULL, .purpose = "coredump",	\
	.path = "/sbin/static-helper", .program = "/usr/lib/core\\x20handler", \
	.args = "77 a\\\"b", .argc = 5, .pid = 77, .comm = "my\\x20prog", \
	.uid = 1000, .bset = B(CAP_SYS_MODULE), .inh = B(CAP_CHOWN),	\
	.ret = -2 }
#define LINE_COREDUMP "13.000001 coredump: /sbin/static-helper 77 a\\\"b " \
	"...(+3) [requested /usr/lib/core\\x20handler] (trigger pid=77 " \
	"comm=my\\x20prog uid=1000) caps: cap_sys_module; " \
	"inheritable: cap_chown; result: ENOENT\n"

#define EV_OTHER { .ts = 14000001000ULL, .purpose = "other",		\
	.path = "/bin/x", .args = "", .argc = 0, .pid = 1, .comm = "init", \
	.bset = 0, .ret = -8 }
#define LINE_OTHER "14.000001 other: /bin/x (trigger pid=1 comm=init uid=0) " \
	"caps: none; result: ENOEXEC\n"

TEST_F(umh, trace_basic)
{
	struct ev e[] = { EV_MODPROBE };
	const char *inst;

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	ASSERT_STREQ("", res.err);
	/* In an instance of its own, enabled there, and removed at the end. */
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_STREQ("1", get(self->root, at(inst, "events/umh/umh_exec/enable")));
	ASSERT_STREQ("0\n", get(self->root, TFS "/events/umh/umh_exec/enable"));
}

/* Named at random: a helper cannot make it first, or know it in advance. */
TEST_F(umh, trace_instance_name)
{
	struct ev e[] = { EV_MODPROBE };
	char first[PATH_MAX];
	const char *inst;

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	snprintf(first, sizeof(first), "%s", inst);
	ASSERT_EQ(0, fresh_again(self->root));
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_STRNE(first, inst);
}

/*
 * An instance of the name umhcap picked exists already: refused, not
 * used, and not removed either: it is not umhcap's.
 */
TEST_F(umh, trace_refuses_existing_instance)
{
	struct ev e[] = { EV_MODPROBE };

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, setenv("UMHCAP_FAKE_EEXIST", "1", 1));
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "umhcap: tracefs instance ");
	ASSERT_HAS(res.err, " exists already: umhcap uses only an instance it made itself; run it again\n");
	ASSERT_TRUE(made_none(self->root));
}

/*
 * Whoever turned its instance's tracing off may hold the file it wrote
 * open still, and tracefs keeps an instance with an open file: umhcap
 * waits for it, and removes the instance once it is let go.
 */
TEST_F(umh, trace_waits_for_a_busy_instance)
{
	struct ev e[] = { EV_MODPROBE };

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, setenv("UMHCAP_FAKE_EBUSY", "5", 1));
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	ASSERT_STREQ("", res.err);
	ASSERT_NE(NULL, removed(_metadata, self->root));
}

/*
 * A holder that never lets go, a helper say, costs umhcap two seconds:
 * then it leaves the instance, says so, and says why.
 */
TEST_F(umh, trace_leaves_an_instance_held_open)
{
	struct ev e[] = { EV_MODPROBE };
	struct timespec t0, t1;
	const char *left;

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, setenv("UMHCAP_FAKE_EBUSY", "1000000", 1));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	left = only_entry(self->root, INSTANCES);
	ASSERT_TRUE(!strncmp(left, INSTANCES "/", strlen(INSTANCES "/")) &&
		    instance_name_ok(left + strlen(INSTANCES "/"))) {
		TH_LOG("left: \"%s\"", left);
	}
	ASSERT_FALSE(exists(self->root, REMOVED));
	ASSERT_HAS(res.err, "umhcap: warning: cannot remove tracefs instance ");
	ASSERT_HAS(res.err, ": Device or resource busy (a process holds one of its files open); remove it with rmdir\n");
	ASSERT_LE(2000, (t1.tv_sec - t0.tv_sec) * 1000 +
			(t1.tv_nsec - t0.tv_nsec) / 1000000);
}

/* One umh_capable record: a check of @cap by pid 731, "core dump". */
struct cap_ev {
	unsigned long long ts;
	const char *purpose;		/* NULL: @number, as FMT_PURPOSE_NUM */
	int cap;
	unsigned char noaudit;
	int ret;
	unsigned int number;
};

#define CAP_EV(t, p, c, n, r) \
	{ .ts = (t), .purpose = (p), .cap = (c), .noaudit = (n), .ret = (r) }

static void page_cap(struct page *pg, const struct cap_ev *e)
{
	uint16_t type = UMH_CAPABLE_ID;
	unsigned char rec[512] = { 0 };
	int32_t pid = 731;
	uint32_t uid = 0;
	size_t end = CAP_DATA;

	memcpy(rec, &type, 2);
	ev_purpose(rec, &end, e->purpose, e->number);
	memcpy(rec + 12, &pid, 4);
	ev_str(rec, &end, 16, "core\\x20dump");
	memcpy(rec + 20, &uid, 4);
	memcpy(rec + 24, &e->cap, 4);
	rec[28] = e->noaudit;
	memcpy(rec + 32, &e->ret, 4);
	page_add(pg, e->ts, rec, end);
}

#define LINE_REFUSED "12.500000 coredump: refused cap_dac_override to " \
	"pid=731 comm=core\\x20dump uid=0\n"

/* A page: a modprobe helper starts, then a core dump handler's checks. */
static void trace_checks(const char *root)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct cap_ev refused = CAP_EV(12500000000ULL, "coredump",
				       CAP_DAC_OVERRIDE, 0, -1);
	struct cap_ev granted = CAP_EV(12600000000ULL, "coredump", CAP_CHOWN,
				       0, 0);
	struct cap_ev probe = CAP_EV(12700000000ULL, "coredump", CAP_SYS_ADMIN,
				     1, -1);
	struct page pg;

	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	page_cap(&pg, &refused);
	page_cap(&pg, &granted);
	page_cap(&pg, &probe);
	page_ev(&pg, &c);
	page_write(root, 0, &pg);
}

/* Refused checks show, granted ones and probes do not. */
TEST_F(umh, trace_refused_checks)
{
	const char *inst;

	trace_checks(self->root);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_REFUSED LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
	/* Filtered and turned on in its instance. */
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_STREQ("1", get(self->root, at(inst, "events/umh/umh_capable/enable")));
	ASSERT_STREQ("ret != 0 && noaudit == 0",
		     get(self->root, at(inst, "events/umh/umh_capable/filter")));
	ASSERT_EQ(0, fresh_again(self->root));
	ASSERT_EQ(0, RUN(self->root, "trace", "--count", "2"));
	ASSERT_STREQ(LINE_MODPROBE LINE_REFUSED, res.out);
}

/*
 * What a helper could have set up before umhcap ran: an instance named
 * "umhcap", tracing off, umh_exec filtered to hide modprobe helpers.
 * umhcap uses its own, and leaves that one as it was.
 */
TEST_F(umh, trace_ignores_a_prepared_instance)
{
	static const char *const hostile[][2] = {
		{ "tracing_on",			"0\n" },
		{ "events/umh/umh_exec/enable",	"1\n" },
		{ "events/umh/umh_exec/filter",	"purpose != \"modprobe\"\n" },
		{ "per_cpu/cpu0/trace_pipe_raw", "" },
	};
	const char *inst;
	char rel[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hostile); i++) {
		snprintf(rel, sizeof(rel), INSTANCES "/umhcap/%s",
			 hostile[i][0]);
		put(self->root, rel, "%s", hostile[i][1]);
	}
	trace_checks(self->root);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_REFUSED LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
	for (i = 0; i < ARRAY_SIZE(hostile); i++) {
		snprintf(rel, sizeof(rel), INSTANCES "/umhcap/%s",
			 hostile[i][0]);
		ASSERT_STREQ(hostile[i][1], get(self->root, rel));
	}
	ASSERT_STREQ(INSTANCES "/umhcap", only_entry(self->root, INSTANCES));
	inst = only_entry(self->root, REMOVED);
	ASSERT_EQ(0, strncmp(inst, REMOVED "/", strlen(REMOVED "/")));
	ASSERT_TRUE(instance_name_ok(inst + strlen(REMOVED "/")));
}

/* A kernel without umh_capable: helper starts only, and no complaint. */
TEST_F(umh, trace_without_capable_event)
{
	char path[PATH_MAX];
	const char *inst;

	snprintf(path, sizeof(path), "%s/" TFS "/events/umh/umh_capable",
		 self->root);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	trace_checks(self->root);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_STREQ("0\n", get(self->root, at(inst, "events/umh/umh_capable/enable")));
}

/*
 * A filter the kernel refuses: umh_capable is left off, not turned on
 * without it, and helper starts are still shown.
 */
TEST_F(umh, trace_capable_filter_refused)
{
	char path[PATH_MAX];
	const char *inst;

	snprintf(path, sizeof(path), "%s/" FRESH "/events/umh/umh_capable/filter",
		 self->root);
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, mkdir(path, 0755));
	trace_checks(self->root);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_HAS(res.out, LINE_MODPROBE);
	ASSERT_HAS(res.err, "umhcap: warning: cannot enable umh/umh_capable in ");
	ASSERT_HAS(res.err, "; refused capability checks are not shown\n");
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_STREQ("0\n", get(self->root, at(inst, "events/umh/umh_capable/enable")));
}

/* A umh_capable umhcap cannot read: warn once, helper starts still shown. */
TEST_F(umh, trace_capable_unknown_field)
{
	const char *w;

	put(self->root, TFS "/events/umh/umh_capable/format", "%s",
	    umh_capable_format("\tfield:u64 cap;\toffset:24;\tsize:8;\tsigned:0;\n"));
	trace_checks(self->root);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_OTHER, res.out);
	w = "umhcap: warning: the umh_capable field \"cap\" is missing or not of the type umhcap knows";
	ASSERT_HAS(res.err, w);
	ASSERT_EQ(1, count_of(res.err, w));
}

TEST_F(umh, trace_requested_cut_errno_inheritable)
{
	struct ev e[] = { EV_COREDUMP, EV_OTHER };

	trace_events(self->root, e, 2);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_COREDUMP LINE_OTHER, res.out);
}

/*
 * Strings as a kernel without escaping, or a bug, would record them: a
 * comm and arguments that spell out fields, a newline, a terminal escape.
 * The line keeps the real trigger and stays one line.
 */
TEST_F(umh, trace_is_not_forged)
{
	struct ev e[] = { {
		.ts = 15000000000ULL, .purpose = "coredump", .path = "/bin/core",
		.args = "x trigger_pid=1 bset=0xffffffffff\n1.0 modprobe: evil",
		.argc = 5, .pid = 4242,
		.comm = "x trigger_pid=1 bset=0xffffffffff\x1b[2J\n",
		.uid = 1000, .bset = B(CAP_CHOWN), .ret = 0,
	} };

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("15.000000 coredump: /bin/core x trigger_pid=1 "
		     "bset=0xffffffffff\\x0a1.0 modprobe: evil (trigger "
		     "pid=4242 comm=x\\x20trigger_pid=1\\x20bset=0xffffffffff"
		     "\\x1b[2J\\x0a uid=1000) caps: cap_chown; result: ok\n",
		     res.out);
	ASSERT_EQ(NULL, strchr(res.out, '\x1b'));
	ASSERT_EQ(strchr(res.out, '\n'), strrchr(res.out, '\n'));
}

TEST_F(umh, trace_unusual_values)
{
	struct ev e[] = { {
		.ts = 16000000000ULL, .purpose = "firmware", .path = "/bin/y",
		.args = "", .argc = -1, .pid = -5, .comm = "",
		.uid = 4294967295U, .bset = 0, .ret = -9999,
	} };

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("16.000000 purpose?firmware: /bin/y (trigger pid=-5 comm= "
		     "uid=4294967295) caps: none; result: -9999\n", res.out);
}

/* Every purpose of the kernel's, by its name, on both events. */
TEST_F(umh, trace_every_purpose)
{
	char want[4096] = "";
	struct page pg;
	size_t i, n = 0;

	page_init(&pg, 20000000000ULL);
	for (i = 0; i < ARRAY_SIZE(kernel_purposes); i++) {
		struct ev e = {
			.ts = (20 + i) * 1000000000ULL,
			.purpose = kernel_purposes[i], .path = "/bin/h",
			.args = "", .pid = 1, .comm = "init",
		};
		struct cap_ev c = CAP_EV(e.ts + 500000000ULL,
					 kernel_purposes[i], CAP_DAC_OVERRIDE,
					 0, -1);

		page_ev(&pg, &e);
		page_cap(&pg, &c);
		n += snprintf(want + n, sizeof(want) - n,
			      "%zu.000000 %s: /bin/h (trigger pid=1 comm=init uid=0) caps: none; result: ok\n"
			      "%zu.500000 %s: refused cap_dac_override to pid=731 comm=core\\x20dump uid=0\n",
			      20 + i, kernel_purposes[i], 20 + i,
			      kernel_purposes[i]);
	}
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
}

/*
 * A purpose name umhcap does not know: a newer kernel's, the "invalid"
 * the kernel records for a number out of its table, or anything a fake
 * or hostile tracefs holds.  It is shown as such, on either event, never
 * raw and never as a purpose umhcap knows.
 */
TEST_F(umh, trace_unknown_purpose_names)
{
	static const struct {
		const char *name, *shown;
	} names[] = {
		{ "firmware",		"purpose?firmware" },
		{ "invalid",		"purpose?invalid" },
		/* umhcap's global bound, which is no purpose of the kernel's */
		{ "all",		"purpose?all" },
		{ "",			"purpose?" },
		{ "Modprobe",		"purpose?\\x4dodprobe" },
		{ "modprobe ",		"purpose?modprobe\\x20" },
		{ "coredump:",		"purpose?coredump\\x3a" },
		/* as if escaped: its '\' cannot pass for an escape of umhcap's */
		{ "request\\x5fkey",	"purpose?request\\x5cx5fkey" },
		{ "power\x1b[2J",	"purpose?power\\x1b\\x5b2\\x4a" },
		{ "modprobe: /sbin/evil (trigger pid=1 comm=init uid=0) caps: all; result: ok\n9.000000 coredump",
		  "purpose?modprobe\\x3a\\x20\\x2fsbin\\x2fevil\\x20\\x28trigger\\x20pid\\x3d1\\x20comm\\x3dinit\\x20uid\\x3d0\\x29\\x20caps\\x3a\\x20all\\x3b\\x20result\\x3a\\x20ok\\x0a9\\x2e000000\\x20coredump" },
		/* too long for a name: not looked up, and shown whole */
		{ "modprobe_modprobe_modprobe_modprobe",
		  "purpose?modprobe_modprobe_modprobe_modprobe" },
		{ "\xff\x80",		"purpose?\\xff\\x80" },
	};
	char want[8192] = "", known[32];
	struct page pg;
	size_t i, n = 0;

	page_init(&pg, 30000000000ULL);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct ev e = {
			.ts = (30 + i) * 1000000000ULL,
			.purpose = names[i].name, .path = "/bin/h",
			.args = "", .pid = 1, .comm = "init",
		};
		struct cap_ev c = CAP_EV(e.ts + 500000000ULL, names[i].name,
					 CAP_DAC_OVERRIDE, 0, -1);

		page_ev(&pg, &e);
		page_cap(&pg, &c);
		n += snprintf(want + n, sizeof(want) - n,
			      "%zu.000000 %s: /bin/h (trigger pid=1 comm=init uid=0) caps: none; result: ok\n"
			      "%zu.500000 %s: refused cap_dac_override to pid=731 comm=core\\x20dump uid=0\n",
			      30 + i, names[i].shown, 30 + i, names[i].shown);
	}
	ASSERT_LT(n, sizeof(want));
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
	/* One line per event, nothing raw, no purpose umhcap knows. */
	ASSERT_EQ(2 * (int)ARRAY_SIZE(names), count_of(res.out, "\n"));
	ASSERT_EQ(NULL, strchr(res.out, '\x1b'));
	for (i = 0; i < ARRAY_SIZE(kernel_purposes); i++) {
		snprintf(known, sizeof(known), " %s:", kernel_purposes[i]);
		ASSERT_EQ(0, count_of(res.out, known)) TH_LOG("%s", known);
	}
}

/* Oldest first across CPUs; time extends carry the big gaps. */
TEST_F(umh, trace_orders_cpus)
{
	struct ev a = EV_MODPROBE, b = EV_COREDUMP, c = EV_OTHER;
	struct page p0, p1;

	page_init(&p0, a.ts);
	page_ev(&p0, &a);
	page_ev(&p0, &c);
	page_write(self->root, 0, &p0);
	page_init(&p1, b.ts - 5);
	page_ev(&p1, &b);
	page_write(self->root, 1, &p1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_COREDUMP LINE_OTHER, res.out);
}

TEST_F(umh, trace_skips_other_events)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	unsigned char other[12] = { OTHER_ID & 0xff, OTHER_ID >> 8 };
	struct page pg;

	page_init(&pg, a.ts - 1000);
	page_add(&pg, a.ts - 1000, other, sizeof(other));
	page_ev(&pg, &a);
	page_add(&pg, c.ts - 1000, other, sizeof(other));
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
}

TEST_F(umh, trace_count)
{
	struct ev e[] = { EV_MODPROBE, EV_COREDUMP, EV_OTHER };

	trace_events(self->root, e, 3);
	ASSERT_EQ(0, RUN(self->root, "trace", "--count", "2"));
	ASSERT_STREQ(LINE_MODPROBE LINE_COREDUMP, res.out);
	ASSERT_EQ(2, RUN(self->root, "trace", "--count", "0"));
	ASSERT_HAS(res.err, "give a positive number");
}

TEST_F(umh, trace_hex)
{
	struct ev e[] = { EV_MODPROBE, EV_COREDUMP };

	trace_events(self->root, e, 2);
	ASSERT_EQ(0, RUN(self->root, "-x", "trace"));
	ASSERT_HAS(res.out, "caps: all [0x1ffffffffff]; result: ok\n");
	ASSERT_HAS(res.out, "caps: cap_sys_module [0x10000]; "
			    "inheritable: cap_chown [0x1]; result: ENOENT\n");
	/* -x after the command, as show and learn take it. */
	ASSERT_EQ(0, fresh_again(self->root));
	ASSERT_EQ(0, RUN(self->root, "trace", "-x"));
	ASSERT_HAS(res.out, "caps: all [0x1ffffffffff]; result: ok\n");
}

/* A field of another type than umhcap knows: warn once, print nothing. */
TEST_F(umh, trace_unknown_field_type)
{
	struct ev e[] = { EV_MODPROBE, EV_OTHER };
	const char *w;

	put(self->root, TFS "/events/umh/umh_exec/format", "%s",
	    umh_exec_format("\tfield:u64 program;\toffset:16;\tsize:8;\tsigned:0;\n"));
	trace_events(self->root, e, 2);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("", res.out);
	w = "umhcap: warning: the umh_exec field \"program\" is missing or not of the type umhcap knows";
	ASSERT_HAS(res.err, w);
	ASSERT_EQ(1, count_of(res.err, w));
}

TEST_F(umh, trace_missing_field)
{
	struct ev e[] = { EV_MODPROBE };

	put(self->root, TFS "/events/umh/umh_exec/format", "%s",
	    umh_exec_format(""));
	trace_events(self->root, e, 1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "field \"program\" is missing");
}

/* ---- trace: who a helper ran as ---- */

/* A kernel from before helpers had users: umh_exec records neither id. */
static void old_umh_exec(const char *root)
{
	exec_ident = false;
	put(root, TFS "/events/umh/umh_exec/format", "%s",
	    umh_exec_format(FMT_PROGRAM));
}

/* "name(id)" with this machine's name for uid (gid, with @gid) @id, or "id". */
static const char *id_str(bool gid, uint32_t id)
{
	const struct group *gr = gid ? getgrgid(id) : NULL;
	const struct passwd *pw = gid ? NULL : getpwuid(id);
	const char *name = gr ? gr->gr_name : pw ? pw->pw_name : NULL;
	char *b = slot_buf();

	if (name)
		snprintf(b, 2048, "%s(%u)", name, id);
	else
		snprintf(b, 2048, "%u", id);
	return b;
}

/* A uid this machine has no user of. */
static uint32_t no_user(void)
{
	uint32_t uid;

	for (uid = 4242; getpwuid(uid); uid++)
		;
	return uid;
}

/* A core dump handler, started by pid 4242 of uid 1000, as @u:@g. */
#define EV_AS(t, u, g, b, i) { .ts = (t), .purpose = "coredump",	\
	.path = "/lib/systemd/systemd-coredump", .args = "4242 11",	\
	.argc = 2, .pid = 4242, .comm = "crash", .uid = 1000,		\
	.bset = (b), .inh = (i), .ret = 0, .as_uid = (u), .as_gid = (g) }
#define LINE_AS "%s coredump: /lib/systemd/systemd-coredump 4242 11 "	\
	"(trigger pid=4242 comm=crash uid=1000) "

/*
 * A kernel that records who helpers ran as: a helper of root's, uid and
 * gid 0, is shown as before, with its whole bset and no identity.
 */
TEST_F(umh, trace_identity_root)
{
	struct ev e[] = { EV_MODPROBE, EV_COREDUMP, EV_OTHER };

	ASSERT_HAS(get(self->root, TFS "/events/umh/umh_exec/format"),
		   FMT_IDENT);
	trace_events(self->root, e, 3);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_COREDUMP LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
}

/*
 * A helper that ran as a user of its own: who, by this machine's names,
 * and as its capabilities only what both bounds leave, bset &
 * inheritable (the kernel records that as the inheritable set, which it
 * raised as ambient).  uid 0 with a group of its own is root still: its
 * whole bset, and both ids shown.
 */
TEST_F(umh, trace_identity_user)
{
	const uint64_t pt = B(CAP_DAC_READ_SEARCH) | B(CAP_SYS_PTRACE);
	const uint32_t stranger = no_user();
	struct ev e[] = {
		EV_AS(40000000000ULL, 996, 996, full(), pt),
		/* the intersection: neither set alone */
		EV_AS(41000000000ULL, 996, 996,
		      B(CAP_SYS_PTRACE) | B(CAP_CHOWN), pt),
		EV_AS(42000000000ULL, stranger, stranger, full(), 0),
		EV_AS(43000000000ULL, 0, 996, B(CAP_CHOWN), pt),
		EV_MODPROBE,
	};
	char want[4096];
	size_t n = 0;

	e[4].ts = 44000000000ULL;
	trace_events(self->root, e, 5);
	n += snprintf(want + n, sizeof(want) - n, LINE_AS "as: %s:%s; "
		      "caps: cap_dac_read_search, cap_sys_ptrace; "
		      "inheritable: cap_dac_read_search, cap_sys_ptrace; "
		      "result: ok\n", "40.000000", id_str(false, 996),
		      id_str(true, 996));
	n += snprintf(want + n, sizeof(want) - n, LINE_AS "as: %s:%s; "
		      "caps: cap_sys_ptrace; "
		      "inheritable: cap_dac_read_search, cap_sys_ptrace; "
		      "result: ok\n", "41.000000", id_str(false, 996),
		      id_str(true, 996));
	n += snprintf(want + n, sizeof(want) - n, LINE_AS "as: %u:%s; "
		      "caps: none; result: ok\n", "42.000000", stranger,
		      id_str(true, stranger));
	n += snprintf(want + n, sizeof(want) - n, LINE_AS "as: %s:%s; "
		      "caps: cap_chown; "
		      "inheritable: cap_dac_read_search, cap_sys_ptrace; "
		      "result: ok\n", "43.000000", id_str(false, 0),
		      id_str(true, 996));
	/* root's, uid and gid 0, among them: as before */
	n += snprintf(want + n, sizeof(want) - n, "44.000000%s",
		      LINE_MODPROBE + strlen("12.345678"));
	ASSERT_LT(n, sizeof(want));
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
	/* With -x, the mask of what it got. */
	ASSERT_EQ(0, fresh_again(self->root));
	ASSERT_EQ(0, RUN(self->root, "-x", "trace", "--count", "2"));
	ASSERT_HAS(res.out, "; caps: cap_dac_read_search, cap_sys_ptrace [0x80004]; "
			    "inheritable: cap_dac_read_search, cap_sys_ptrace [0x80004]; result: ok\n");
	ASSERT_HAS(res.out, "; caps: cap_sys_ptrace [0x80000]; ");
}

/*
 * A kernel from before helpers had users: no uid or gid in umh_exec.
 * Every helper ran as root, and is shown as before, without a warning.
 */
TEST_F(umh, trace_identity_older_kernel)
{
	struct ev e[] = { EV_MODPROBE, EV_COREDUMP, EV_OTHER };
	const char *format;

	old_umh_exec(self->root);
	format = get(self->root, TFS "/events/umh/umh_exec/format");
	ASSERT_LACKS(format, "\tfield:uid_t uid;");
	ASSERT_LACKS(format, "\tfield:gid_t gid;");
	ASSERT_HAS(format, "\tfield:int ret;\toffset:56;");
	trace_events(self->root, e, 3);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_COREDUMP LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
}

/*
 * A uid or gid of a type umhcap does not know, or one without the
 * other, is not guessed at: warned once, every event skipped, as for a
 * field umhcap needs.
 */
TEST_F(umh, trace_identity_unknown_field)
{
	static const struct {
		const char *lines, *field;
	} bad[] = {
		{ "\tfield:u64 uid;\toffset:56;\tsize:8;\tsigned:0;\n" FMT_GID,
		  "uid" },
		{ FMT_UID "\tfield:__data_loc char[] gid;\toffset:60;\tsize:4;\tsigned:0;\n",
		  "gid" },
		{ FMT_UID, "gid" },
		{ FMT_GID, "uid" },
	};
	struct ev e[] = { EV_AS(40000000000ULL, 996, 996, full(), 0),
			  EV_MODPROBE };
	char want[512];
	size_t i;

	e[1].ts = 44000000000ULL;
	trace_events(self->root, e, 2);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (i)
			ASSERT_EQ(0, fresh_again(self->root));
		put(self->root, TFS "/events/umh/umh_exec/format", "%s",
		    exec_format_ident(FMT_PURPOSE, ARG_PURPOSE, FMT_PROGRAM,
				      bad[i].lines));
		ASSERT_EQ(0, RUN(self->root, "trace"));
		EXPECT_STREQ("", res.out);
		snprintf(want, sizeof(want), "umhcap: warning: the umh_exec field \"%s\" is missing or not of the type umhcap knows; every event is skipped (is umhcap older or newer than the kernel?)\n",
			 bad[i].field);
		EXPECT_STREQ(want, res.err) TH_LOG("case %zu", i);
	}
}

/* A string whose data_loc points out of its record is not read. */
TEST_F(umh, trace_malformed_record)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct page pg;

	page_init(&pg, a.ts);
	page_ev_bad_loc(&pg, &a, 32);
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_OTHER, res.out);
	ASSERT_HAS(res.err, "warning: malformed umh_exec record at 12.345678 skipped");
}

/*
 * A kernel of the series from before the purpose was recorded by name:
 * a number where umhcap reads a string is a field of an unexpected type,
 * said once for each event, and nothing is misread.
 */
TEST_F(umh, trace_numeric_purpose)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct cap_ev refused = CAP_EV(12500000000ULL, NULL, CAP_DAC_OVERRIDE,
				       0, -1);
	struct cap_ev probe = CAP_EV(12700000000ULL, NULL, CAP_SYS_ADMIN, 1,
				     -1);
	struct page pg;
	const char *w;

	a.purpose = NULL;
	a.number = 1;
	c.purpose = NULL;
	c.number = 0;
	refused.number = probe.number = 2;
	put(self->root, TFS "/events/umh/umh_exec/format", "%s",
	    exec_format(FMT_PURPOSE_NUM, ARG_PURPOSE_NUM, FMT_PROGRAM));
	put(self->root, TFS "/events/umh/umh_capable/format", "%s",
	    capable_format(FMT_PURPOSE_NUM, ARG_PURPOSE_NUM, FMT_CAP_FIELD));
	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	page_cap(&pg, &refused);
	page_cap(&pg, &probe);
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("", res.out);
	w = "umhcap: warning: the umh_exec field \"purpose\" is missing or not of the type umhcap knows; every event is skipped (is umhcap older or newer than the kernel?)\n";
	ASSERT_EQ(1, count_of(res.err, w)) TH_LOG("%s", res.err);
	w = "umhcap: warning: the umh_capable field \"purpose\" is missing or not of the type umhcap knows; refused capability checks are skipped (is umhcap older or newer than the kernel?)\n";
	ASSERT_EQ(1, count_of(res.err, w)) TH_LOG("%s", res.err);
	ASSERT_EQ(2, count_of(res.err, "\n"));
}

/* A umh_capable with the number only: helper starts are still shown. */
TEST_F(umh, trace_capable_numeric_purpose)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct cap_ev refused = CAP_EV(12500000000ULL, NULL, CAP_DAC_OVERRIDE,
				       0, -1);
	struct cap_ev granted = CAP_EV(12600000000ULL, NULL, CAP_CHOWN, 0, 0);
	struct cap_ev again = CAP_EV(12700000000ULL, NULL, CAP_SYS_ADMIN, 0,
				     -1);
	struct page pg;
	const char *w;

	refused.number = granted.number = again.number = 2;
	put(self->root, TFS "/events/umh/umh_capable/format", "%s",
	    capable_format(FMT_PURPOSE_NUM, ARG_PURPOSE_NUM, FMT_CAP_FIELD));
	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	page_cap(&pg, &refused);
	page_cap(&pg, &granted);
	page_cap(&pg, &again);
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_OTHER, res.out);
	w = "umhcap: warning: the umh_capable field \"purpose\" is missing or not of the type umhcap knows; refused capability checks are skipped (is umhcap older or newer than the kernel?)\n";
	ASSERT_STREQ(w, res.err);
}

/* A purpose whose data_loc points out of its record is not read. */
TEST_F(umh, trace_malformed_purpose)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct cap_ev refused = CAP_EV(12500000000ULL, "coredump",
				       CAP_DAC_OVERRIDE, 0, -1);
	struct page pg;

	page_init(&pg, a.ts);
	page_ev_bad_loc(&pg, &a, 8);
	page_cap(&pg, &refused);
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_REFUSED LINE_OTHER, res.out);
	ASSERT_STREQ("umhcap: warning: malformed umh_exec record at 12.345678 skipped\n",
		     res.err);
}

/* A page that claims more data than it holds is skipped whole. */
TEST_F(umh, trace_malformed_page)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct page pg;

	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	pg.len = PAGE_SIZE;
	page_write(self->root, 0, &pg);
	page_init(&pg, c.ts);
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_OTHER, res.out);
	ASSERT_HAS(res.err, "warning: malformed ring-buffer page from CPU 0 skipped");
}

TEST_F(umh, trace_lost_events)
{
	struct ev a = EV_MODPROBE;
	struct page pg;

	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	pg.flags = 1ULL << 31;		/* RB_MISSED_EVENTS, count not stored */
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	ASSERT_HAS(res.err, "warning: events lost on CPU 0: the buffer was full");
}

TEST_F(umh, trace_bad_count)
{
	ASSERT_EQ(2, RUN(self->root, "trace", "--count", "x"));
	ASSERT_HAS(res.err, "bad --count");
	ASSERT_TRUE(made_none(self->root));
}

TEST_F(umh, trace_missing_tracefs)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys", self->root);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "umhcap: tracefs not found at ");
	ASSERT_HAS(res.err, "mount -t tracefs");
	ASSERT_STREQ("", res.out);
}

TEST_F(umh, trace_missing_event)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" TFS "/events/umh", self->root);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "trace event umh/umh_exec not found");
	ASSERT_TRUE(made_none(self->root));
}

TEST_F(umh, trace_bad_format)
{
	put(self->root, TFS "/events/umh/umh_exec/format", "garbage\n");
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "umhcap: cannot parse ");
	ASSERT_HAS(res.err, "/events/umh/umh_exec/format");
	ASSERT_TRUE(made_none(self->root));
}

TEST_F(umh, trace_missing_header_page)
{
	rm_file(self->root, TFS "/events/header_page");
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "/events/header_page");
	ASSERT_TRUE(made_none(self->root));
}

TEST_F(umh, trace_debugfs_fallback)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct ev e[] = { EV_MODPROBE };
	const char *inst;

	trace_events(self->root, e, 1);
	snprintf(from, sizeof(from), "%s/" TFS, self->root);
	snprintf(to, sizeof(to), "%s/sys/kernel/debug", self->root);
	mkdir_p(to);
	strcat(to, "/tracing");
	ASSERT_EQ(0, rename(from, to));
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	inst = only_entry(self->root, "sys/kernel/debug/tracing/removed-instances");
	ASSERT_STREQ("1", get(self->root, at(inst, "events/umh/umh_exec/enable")));
}

/* A plain directory has no enable file: fail, and remove it. */
TEST_F(umh, trace_removes_instance_on_error)
{
	char path[PATH_MAX];
	const char *inst;

	snprintf(path, sizeof(path), "%s/" FRESH, self->root);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "umhcap: cannot enable umh/umh_exec in ");
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_FALSE(exists(self->root, at(inst, "events")));
}

TEST_F(umh, trace_no_cpu_buffers)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" FRESH "/per_cpu", self->root);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "per_cpu");
	ASSERT_NE(NULL, removed(_metadata, self->root));
}

static bool wait_for_output(int fd, int ms)
{
	struct stat st;

	for (; ms > 0; ms -= 10) {
		if (!fstat(fd, &st) && st.st_size > 0)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * umhcap trace on a live buffer, stdout and stderr to files: a FIFO with
 * a writer stands for trace_pipe_raw, which never ends and is empty once
 * read, as it is between helpers.  The FIFO moves with the instance, and
 * so serves every run of a test.
 */
struct live {
	pid_t pid;
	int w;			/* the FIFO's writer, or -1 */
	int out, err;
};

/* Start it, and wait until it printed the event on the FIFO: 0 or -1. */
static int live_start(const char *root, struct live *l)
{
	const char *bin = getenv("UMHCAP_BIN") ?: "./umhcap";
	struct ev e = EV_MODPROBE;
	char fifo[PATH_MAX];
	struct page pg;

	if (l->w < 0) {
		snprintf(fifo, sizeof(fifo),
			 "%s/" FRESH "/per_cpu/cpu0/trace_pipe_raw", root);
		unlink(fifo);
		if (mkfifo(fifo, 0600))
			return -1;
		l->w = open(fifo, O_RDWR);
		if (l->w < 0)
			return -1;
	}
	l->out = fileno(tmpfile());
	l->err = fileno(tmpfile());
	fflush(NULL);
	l->pid = fork();
	if (l->pid < 0)
		return -1;
	if (l->pid == 0) {
		dup2(l->out, 1);
		dup2(l->err, 2);
		execl(bin, bin, "--root", root, "trace", (char *)NULL);
		_exit(127);
	}
	page_init(&pg, e.ts);
	page_ev(&pg, &e);
	memcpy(pg.b + 8, &pg.len, 8);
	if (write(l->w, pg.b, PAGE_SIZE) == PAGE_SIZE &&
	    wait_for_output(l->out, 5000))
		return 0;
	kill(l->pid, SIGKILL);
	waitpid(l->pid, NULL, 0);
	return -1;
}

/* Wait up to @ms for it to exit; its exit code, or -1 (killed then). */
static int live_wait(struct live *l, int ms)
{
	int status = -1;

	for (; ms > 0; ms -= 10) {
		if (waitpid(l->pid, &status, WNOHANG) == l->pid)
			goto out;
		usleep(10000);
	}
	kill(l->pid, SIGKILL);
	waitpid(l->pid, &status, 0);
out:
	slurp(l->out, res.out, sizeof(res.out));
	slurp(l->err, res.err, sizeof(res.err));
	return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Stopped by @sig once it has printed what the buffer held and gone on
 * waiting: the instance goes with it.
 */
static void trace_signal(struct __test_metadata *_metadata, const char *root,
			 int sig)
{
	struct live l = { .w = -1 };
	const char *inst;

	ASSERT_EQ(0, live_start(root, &l));
	inst = only_entry(root, INSTANCES);
	ASSERT_STREQ("1", get(root, at(inst, "events/umh/umh_exec/enable")));
	usleep(300000);		/* a few empty rounds */
	ASSERT_EQ(0, waitpid(l.pid, NULL, WNOHANG));
	ASSERT_EQ(0, kill(l.pid, sig));
	ASSERT_EQ(0, live_wait(&l, 5000));
	close(l.w);
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	ASSERT_STREQ("", res.err);
	ASSERT_NE(NULL, removed(_metadata, root));
}

TEST_F(umh, trace_sigterm_cleans_up)
{
	trace_signal(_metadata, self->root, SIGTERM);
}

TEST_F(umh, trace_sigint_cleans_up)
{
	trace_signal(_metadata, self->root, SIGINT);
}

/* The terminal closed. */
TEST_F(umh, trace_sighup_cleans_up)
{
	trace_signal(_metadata, self->root, SIGHUP);
}

/* FRESH/@file as a new instance holds it. */
static void fresh_file(const char *root, const char *file)
{
	char rel[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fresh); i++)
		if (!strcmp(fresh[i][0], file))
			break;
	if (i == ARRAY_SIZE(fresh))
		abort();
	snprintf(rel, sizeof(rel), FRESH "/%s", file);
	put(root, rel, "%s", fresh[i][1]);
}

/* The error for @file of @inst holding @shown: "... holds ..., not ...". */
static const char *tampered(const char *root, const char *inst,
			    const char *file, const char *shown,
			    const char *want)
{
	char *b = slot_buf();

	snprintf(b, 2048, "umhcap: %s/" INSTANCES "/%s/%s holds \"%s\", not \"%s\": umhcap's tracefs instance was changed, so helpers may be missing from the trace; umhcap learn shows what they used, from the kernel's record\n",
		 root, strrchr(inst, '/') + 1, file, shown, want);
	return b;
}

/*
 * What could hide helpers in umhcap's instance, set before umhcap enabled
 * anything: refused before it reports anything, with the file and what it
 * held (escaped), and the instance removed.  A helper cannot know the
 * name in time; this is what it would find if it could.
 */
TEST_F(umh, trace_checks_instance_first)
{
	static const char *const bad[][4] = {
		/* file, content, as shown, what it must hold */
		{ "tracing_on", "0\n", "0", "1" },
		{ "events/umh/umh_exec/filter", "purpose != \"modprobe\"\n",
		  "purpose != \\x22modprobe\\x22", "none" },
		{ "set_event_pid", "1\n2\n", "1\\x0a2", "" },
		{ "set_event_notrace_pid", "1\n", "1", "" },
	};
	struct ev e[] = { EV_MODPROBE };
	char rel[256];
	const char *inst;
	size_t i;

	trace_events(self->root, e, 1);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(rel, sizeof(rel), FRESH "/%s", bad[i][0]);
		put(self->root, rel, "%s", bad[i][1]);
		ASSERT_EQ(2, RUN(self->root, "trace"));
		ASSERT_STREQ("", res.out);
		ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
		ASSERT_STREQ(tampered(self->root, inst, bad[i][0], bad[i][2],
				      bad[i][3]), res.err);
		ASSERT_EQ(0, fresh_again(self->root));
		fresh_file(self->root, bad[i][0]);
	}
	/* And with each put back, the event is shown. */
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
}

/*
 * The same, and what umhcap itself set, changed while it traces: it stops
 * within a round or two with the error, not silently.
 */
TEST_F(umh, trace_checks_instance_while_tracing)
{
	static const char *const bad[][4] = {
		{ "tracing_on", "0\n", "0", "1" },
		{ "events/umh/umh_exec/enable", "0\n", "0", "1" },
		{ "events/umh/umh_exec/filter", "ret != 0\n", "ret != 0",
		  "none" },
		{ "events/umh/umh_capable/enable", "0\n", "0", "1" },
		{ "events/umh/umh_capable/filter", "none\n", "none",
		  "ret != 0 && noaudit == 0" },
		{ "set_event_pid", "4242\n", "4242", "" },
		{ "set_event_notrace_pid", "1\n", "1", "" },
	};
	struct live l = { .w = -1 };
	const char *inst;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, live_start(self->root, &l));
		inst = only_entry(self->root, INSTANCES);
		put(self->root, at(inst, bad[i][0]), "%s", bad[i][1]);
		ASSERT_EQ(2, live_wait(&l, 5000));
		ASSERT_STREQ(LINE_MODPROBE, res.out);
		ASSERT_STREQ(tampered(self->root, inst, bad[i][0], bad[i][2],
				      bad[i][3]), res.err);
		ASSERT_NE(NULL, removed(_metadata, self->root));
		ASSERT_EQ(0, fresh_again(self->root));
		fresh_file(self->root, bad[i][0]);
	}
	close(l.w);
}

TEST_F(umh, trace_epipe_cleans_up)
{
	const char *bin = getenv("UMHCAP_BIN") ?: "./umhcap";
	struct ev e[] = { EV_MODPROBE, EV_OTHER };
	int p[2], status;
	pid_t pid;

	trace_events(self->root, e, 2);
	ASSERT_EQ(0, pipe(p));
	close(p[0]);
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		dup2(p[1], 1);
		signal(SIGPIPE, SIG_DFL);
		execl(bin, bin, "--root", self->root, "trace", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_NE(NULL, removed(_metadata, self->root));
}

/* ---- policy: the measured table ---- */

/*
 * Split a line of umhcap policy into its columns, which are separated by
 * two spaces or more; @col gets each column's offset.  Returns how many.
 */
static int columns(const char *line, char cell[][256], int col[], int max)
{
	const char *s = line, *e;
	int n = 0;

	while (*s && *s != '\n' && n < max) {
		e = strstr(s, "  ");
		if (!e || e > strchrnul(s, '\n'))
			e = strchrnul(s, '\n');
		snprintf(cell[n], 256, "%.*s", (int)(e - s), s);
		col[n++] = s - line;
		s = e + strspn(e, " ");
	}
	return n;
}

TEST_F(umh, policy_prints_the_table)
{
	static const char *const head[] = {
		"purpose", "program", "Debian 12 package", "configuration",
		"runs", "capabilities",
	};
	char cell[6][256], want[512], hcell[6][256];
	int col[6], hcol[6], n, k;
	const struct umh_measured *m;
	const char *line;
	size_t i;
	bool notes = false;

	ASSERT_EQ(0, RUN(self->root, "policy"));
	ASSERT_STREQ("", res.err);
	line = res.out;
	ASSERT_EQ(6, columns(line, hcell, hcol, 6));
	for (k = 0; k < 6; k++)
		ASSERT_STREQ(head[k], hcell[k]);
	/* One line per row, in the table's order, lined up under the head. */
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		line = strchr(line, '\n') + 1;
		n = columns(line, cell, col, 6);
		ASSERT_EQ(6, n) TH_LOG("row: %.*s", (int)strcspn(line, "\n"), line);
		ASSERT_STREQ(kernel_purposes[m->purpose], cell[0]);
		ASSERT_STREQ(m->program, cell[1]);
		snprintf(want, sizeof(want), "%s %s", m->package, m->version);
		ASSERT_STREQ(want, cell[2]);
		ASSERT_STREQ(umh_measured_conf_name(m->conf), cell[3]);
		snprintf(want, sizeof(want), "%u", m->runs);
		ASSERT_STREQ(want, cell[4]);
		ASSERT_STREQ(fmt(m->caps), cell[5]);
		ASSERT_EQ(0, memcmp(col, hcol, sizeof(col)));
		/* Its notes, named by purpose and configuration. */
		if (m->user) {
			snprintf(want, sizeof(want), "\n  %s (%s): ran as %s\n",
				 kernel_purposes[m->purpose],
				 umh_measured_conf_name(m->conf), m->user);
			ASSERT_HAS(res.out, want);
		}
		if (m->note) {
			snprintf(want, sizeof(want), "\n  %s (%s): kept: %s: %s\n",
				 kernel_purposes[m->purpose],
				 umh_measured_conf_name(m->conf), fmt(m->kept),
				 m->note);
			ASSERT_HAS(res.out, want);
		}
		if (m->not_on_debian) {
			snprintf(want, sizeof(want), "\n  %s (%s): not run on Debian 12: %s\n",
				 kernel_purposes[m->purpose],
				 umh_measured_conf_name(m->conf),
				 m->not_on_debian);
			ASSERT_HAS(res.out, want);
		}
		notes |= m->user || m->note || m->not_on_debian;
	}
	ASSERT_EQ('\n', strchr(line, '\n')[1]);
	if (notes)
		ASSERT_HAS(res.out, "\nnotes:\n");
	else
		ASSERT_LACKS(res.out, "notes:");
	ASSERT_HAS(res.out, "\n  uevent (busybox systems): not run on Debian 12: ");
	ASSERT_HAS(res.out, "\nnot measured: initrd, other; check holds such a purpose to what the kernel's record shows its helpers used\n");
	ASSERT_HAS(res.out, "in a QEMU guest, by the umhcap project's 'make check'");
	ASSERT_HAS(res.out, "'umhcap check' holds each purpose's ceiling to its Debian 12 as installed\n"
			    "set or, for a purpose without one, to its busybox systems set.\n");
	/* It reads nothing from the machine. */
	ASSERT_EQ(0, run_argv(NULL, false, (const char *[]){
		"--root", "/tmp/umhcap-test.nonexistent", "policy", NULL }));
}

TEST_F(umh, policy_usage)
{
	ASSERT_EQ(2, RUN(self->root, "policy", "extra"));
	ASSERT_HAS(res.err, "usage: umhcap policy");
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(2, RUN(self->root, "--json", "policy"));
	ASSERT_HAS(res.err, "--json is not supported by policy");
}

/* ---- the man page ---- */

/* A whole file, NUL-terminated, or NULL (errno set). */
static char *slurp_file(const char *path)
{
	char *buf = NULL;
	size_t len;
	FILE *f, *m;
	int c;

	f = fopen(path, "r");
	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	if (!m)
		abort();
	while ((c = getc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

/* A file of the umhcap source tree (make check sets UMHCAP_SRC). */
static const char *src_path(const char *rel)
{
	char *b = slot_buf();

	snprintf(b, 2048, "%s/%s", getenv("UMHCAP_SRC") ?: ".", rel);
	return b;
}

/* @text with the first @from replaced by @to; static. */
static const char *edited(const char *text, const char *from, const char *to)
{
	static char buf[1 << 14];
	const char *at = strstr(text, from);

	if (!at)
		abort();
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - text), text, to,
		 at + strlen(from));
	return buf;
}

/*
 * The man page: a real date, and SEE ALSO sorted by section, then name,
 * as man-pages(7) asks, with the pages umhcap sends a reader to.
 */
TEST(man_head_and_see_also)
{
	static const char *const need[] = {
		"capsh(1)", "trace-cmd(1)", "sysctl(8)", "capabilities(7)",
		"sysctl.d(5)", "bootparam(7)",
	};
	char *text, *s, prev[64] = "", cur[64], sec, prev_sec = '0';
	char list[1024] = "";
	size_t i;
	int y, m, d;

	text = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, text);
	s = strstr(text, "\n.TH UMHCAP 8 ");
	ASSERT_NE(NULL, s);
	ASSERT_EQ(3, sscanf(s, "\n.TH UMHCAP 8 %4d-%2d-%2d ", &y, &m, &d));
	ASSERT_EQ(0, strncmp(s, "\n.TH UMHCAP 8 2026-12-05 ", 25));
	s = strstr(text, "\n.SH SEE ALSO\n");
	ASSERT_NE(NULL, s);
	for (s = strchr(s + 1, '\n') + 1; !strncmp(s, ".BR ", 4);
	     s = strchr(s, '\n') + 1) {
		ASSERT_EQ(2, sscanf(s, ".BR %63s (%c)", cur, &sec)) TH_LOG("%.40s", s);
		cut_all(cur, "\\");
		/* By section, then by name. */
		EXPECT_TRUE(sec > prev_sec ||
			    (sec == prev_sec && strcmp(cur, prev) > 0))
			TH_LOG("%s(%c) after %s(%c)", cur, sec, prev, prev_sec);
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 " %s(%c)", cur, sec);
		strcpy(prev, cur);
		prev_sec = sec;
	}
	for (i = 0; i < ARRAY_SIZE(need); i++) {
		EXPECT_TRUE(strstr(list, need[i]) != NULL)
			TH_LOG("SEE ALSO lacks %s:%s", need[i], list);
	}
	free(text);
}

/*
 * roff text as mkman writes it, plain: the escapes it uses, and no
 * others; any other makes the text "<unknown escape ...>".  Static.
 */
static const char *plain(const char *in)
{
	static const struct {
		const char *esc, *text;
	} escs[] = {
		{ "\\-", "-" }, { "\\(ti", "~" }, { "\\e", "\\" },
		{ "\\:", "" }, { "\\%", "" }, { "\\&", "" },
	};
	static char buf[4][4096];
	static int slot;
	char *out = buf[slot++ % 4];
	size_t n = 0, i;

	while (*in && n < sizeof(buf[0]) - 8) {
		if (*in != '\\') {
			out[n++] = *in++;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(escs); i++)
			if (!strncmp(in, escs[i].esc, strlen(escs[i].esc)))
				break;
		if (i == ARRAY_SIZE(escs)) {
			snprintf(out, sizeof(buf[0]), "<unknown escape \"%.4s\">", in);
			return out;
		}
		n += snprintf(out + n, sizeof(buf[0]) - n, "%s", escs[i].text);
		in += strlen(escs[i].esc);
	}
	out[n] = '\0';
	return out;
}

/*
 * The next row of a table, from the text at *@s (which it takes up to
 * the row's end), with its text blocks (T{ ... T}) joined into their
 * cells; NULL at the end.  Static.
 */
static const char *tbl_row(char **s)
{
	static char row[4096];
	int block = 0;
	size_t n = 0, len;
	char *line;

	row[0] = '\0';
	while ((line = strsep(s, "\n"))) {
		if (block && strncmp(line, "T}", 2)) {
			n += snprintf(row + n, sizeof(row) - n, "%s%s",
				      block == 2 ? " " : "", line);
			block = 2;
			continue;
		}
		if (block)
			line += 2;
		block = 0;
		len = strlen(line);
		if (len >= 2 && !strcmp(line + len - 2, "T{")) {
			n += snprintf(row + n, sizeof(row) - n, "%.*s",
				      (int)len - 2, line);
			block = 1;
			continue;
		}
		snprintf(row + n, sizeof(row) - n, "%s", line);
		return row;
	}
	return n ? row : NULL;
}

/*
 * umhcap.8 is made at build time by mkman, from umhcap.8.in and
 * measured.c: its POLICY section holds every row of measured.c, in its
 * order, each cell of it, under its configuration's name; then, as .TP
 * paragraphs, why Debian 12 never runs a row's helper, and what a set
 * keeps although its job is done without it.
 */
TEST(man_page_holds_the_measured_table)
{
	char *text, *s, *e, *sec, want[1024], conf[64] = "", notes[4096] = "";
	char got[4096] = "";
	const struct umh_measured *m;
	const char *r, *key;
	bool kept = false, sentence;
	size_t i = 0, n;

	text = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, text) TH_LOG("%s: %s; make builds it from umhcap.8.in",
				     src_path("umhcap.8"), strerror(errno));
	ASSERT_EQ(NULL, strstr(text, "@MEASURED_"));
	sec = strstr(text, "\n.SH POLICY\n");
	ASSERT_NE(NULL, sec);
	e = strstr(sec + 1, "\n.SH ");
	ASSERT_NE(NULL, e);
	*e = '\0';
	s = strstr(sec, "\n.TS\n");
	ASSERT_NE(NULL, s);
	e = strstr(s, "\n.TE\n");
	ASSERT_NE(NULL, e);
	*e = '\0';
	/* Past the options, the head's format and the head, to the rule. */
	s = strstr(s, "\n_\n");
	ASSERT_NE(NULL, s);
	s += 3;
	while ((r = tbl_row(&s))) {
		if (!strcmp(r, ".T&")) {
			do {
				r = tbl_row(&s);
				ASSERT_NE(NULL, r);
			} while (!*r || r[strlen(r) - 1] != '.');
			r = tbl_row(&s);
			ASSERT_NE(NULL, r);
			snprintf(conf, sizeof(conf), "%s", plain(r));
			continue;
		}
		ASSERT_LT(i, umh_measured_nr) TH_LOG("a row measured.c lacks: %s", r);
		m = &umh_measured[i++];
		EXPECT_STREQ(umh_measured_conf_name(m->conf), conf);
		snprintf(want, sizeof(want), "%s@%s@%s %s@%u@%s",
			 kernel_purposes[m->purpose], m->program, m->package,
			 m->version, m->runs, names(m->caps));
		EXPECT_STREQ(want, plain(r));
	}
	ASSERT_EQ(umh_measured_nr, i) TH_LOG("rows missing from umhcap.8");

	sentence = strstr(e + 5, "\nNo set keeps a capability that its job is done without.\n");
	/* The notes, as "KEY: TEXT" lines, the TEXT of each plain. */
	s = e + 5;
	while ((r = strsep(&s, "\n"))) {
		if (strcmp(r, ".TP"))
			continue;
		key = strsep(&s, "\n");
		ASSERT_NE(NULL, key);
		n = strlen(notes);
		snprintf(notes + n, sizeof(notes) - n, "%s:", key);
		while (s && *s && *s != '.') {
			r = strsep(&s, "\n");
			n = strlen(notes);
			snprintf(notes + n, sizeof(notes) - n, " %s", plain(r));
		}
		n = strlen(notes);
		snprintf(notes + n, sizeof(notes) - n, "\n");
	}
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		n = strlen(got);
		if (m->not_on_debian)
			n += snprintf(got + n, sizeof(got) - n,
				      ".B \"%s (%s)\": Not run on Debian 12: %s.\n",
				      kernel_purposes[m->purpose],
				      umh_measured_conf_name(m->conf),
				      m->not_on_debian);
	}
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		n = strlen(got);
		if (m->note)
			snprintf(got + n, sizeof(got) - n,
				 ".B \"%s (%s)\": Kept: %s: %s\n",
				 kernel_purposes[m->purpose],
				 umh_measured_conf_name(m->conf),
				 names(m->kept), m->note);
		kept |= !!m->note;
	}
	EXPECT_STREQ(got, notes);
	/* Without a note on what a set keeps, the sentence that says so. */
	EXPECT_EQ(!kept, sentence);
	free(text);
}


/* ---- JSON ---- */

/* Every JSON output is valid and ends with a newline, as umhcap.8 says. */
TEST_F(umh, json_ends_with_newline)
{
	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "--json", "show"));
	ASSERT_JSON(res.out);
	ASSERT_EQ(0, RUN(self->root, "--json", "show", "coredump"));
	ASSERT_JSON(res.out);
	ASSERT_EQ(0, RUN(self->root, "--json", "learn"));
	ASSERT_JSON(res.out);
	ASSERT_EQ(0, RUN(self->root, "learn", "--json", "--include-idle",
			 "power"));
	ASSERT_JSON(res.out);
	unpatch(self->root);
	ASSERT_EQ(0, RUN(self->root, "--json", "show"));
	ASSERT_JSON(res.out);
	ASSERT_HAS(res.out, "\"per_purpose\":false,");
}

/* ---- misc ---- */

TEST_F(umh, help_and_version)
{
	ASSERT_EQ(0, RUN(self->root, "--help"));
	ASSERT_HAS(res.out, "usage: umhcap");
	ASSERT_HAS(res.out, "export [--learned [--include-idle] [--this-boot] [--state-dir DIR]] --sysctl|--cmdline");
	ASSERT_HAS(res.out, "learn --apply [-n] [--include-idle]");
	ASSERT_HAS(res.out, "\n  policy  ");
	ASSERT_EQ(0, RUN(self->root, "--version"));
	ASSERT_HAS(res.out, "umhcap 0.");
}

TEST_F(umh, unknown_command)
{
	ASSERT_EQ(2, RUN(self->root, "frobnicate"));
	ASSERT_HAS(res.err, "umhcap: unknown command \"frobnicate\"");
}

/* Does every line of @s start with @prefix? */
static bool every_line_starts(const char *s, const char *prefix)
{
	for (; *s; s = strchr(s, '\n') + 1) {
		if (strncmp(s, prefix, strlen(prefix)) || !strchr(s, '\n'))
			return false;
	}
	return true;
}

/*
 * Every error and warning starts "umhcap: ", whatever argv[0] is:
 * getopt's own messages too, which would start with argv[0].
 */
TEST_F(umh, errors_start_with_umhcap)
{
	static const char *const argv0s[] = {
		"./umhcap", "/x/umhcap", "keep", "umhcap.static",
	};
	static const char *const runs[][6] = {
		{ "--bogus" },
		{ "-Q" },
		{ "--root" },
		{ "--json=1", "show" },
		{ "frobnicate" },
		{ "keep", "-Q", "cap_chown" },
		{ "keep", "--bogus", "cap_chown" },
		{ "keep", "cap_chown", "-p" },
		{ "keep", "--dry-run=1", "cap_chown" },
		{ "keep", "--d" },
		{ "keep", "-p", "bogus", "cap_chown" },
		{ "keep", "cap_bogus" },
		{ "keep", "-p", "modprobe", "cap_chown" },
		{ "keep" },
		{ "drop", "-p", "modprobe" },
		{ "user", "-p", "coredump", "no-such-user-here" },
		{ "learn", "-n" },
		{ "export" },
		{ "policy", "--json" },
		{ "trace", "--count", "0" },
		{ "show", "--json=x" },
	};
	char *before, *after;
	size_t i, r;

	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(argv0s); i++) {
		for (r = 0; r < ARRAY_SIZE(runs); r++) {
			argv0 = argv0s[i];
			EXPECT_EQ(2, run_argv(self->root, true,
					      (const char **)runs[r]))
				TH_LOG("%s %s %s", argv0s[i], runs[r][0],
				       runs[r][1]);
			EXPECT_NE(0, res.err[0]);
			EXPECT_TRUE(every_line_starts(res.err, "umhcap: "))
				TH_LOG("%s %s %s: %s", argv0s[i], runs[r][0],
				       runs[r][1], res.err);
		}
		/* A warning, as an error. */
		argv0 = argv0s[i];
		EXPECT_EQ(0, run_argv(self->root, true, (const char *[]){
			"keep", "-n", "-p", "modprobe", "sys_module", NULL }));
		ASSERT_HAS(res.err, "umhcap: warning: ");
		EXPECT_TRUE(every_line_starts(res.err, "umhcap: "))
			TH_LOG("%s: %s", argv0s[i], res.err);
	}
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* ---- the table of purposes ---- */

/* umhcap numbers purposes as the kernel does, and names them the same. */
TEST(purpose_table_is_the_kernels)
{
	size_t i;

	ASSERT_EQ(ARRAY_SIZE(kernel_purposes), (size_t)UMH_NR_PURPOSES);
	ASSERT_EQ(0, UMH_OTHER);
	ASSERT_EQ(1, UMH_MODPROBE);
	ASSERT_EQ(7, UMH_INITRD);
	for (i = 0; i < ARRAY_SIZE(kernel_purposes); i++) {
		ASSERT_STREQ(kernel_purposes[i], umh_purpose_name(i));
		ASSERT_EQ((int)i, umh_purpose_lookup(kernel_purposes[i]));
	}
	/* The global bound is no purpose of the kernel's. */
	ASSERT_LE(UMH_NR_PURPOSES, UMH_ALL);
	ASSERT_STREQ("all", umh_purpose_name(UMH_ALL));
	ASSERT_EQ((int)UMH_ALL, umh_purpose_lookup("all"));
	ASSERT_EQ(NULL, umh_purpose_name(UMH_NR));
	ASSERT_EQ(-1, umh_purpose_lookup("bogus"));
	ASSERT_EQ(-1, umh_purpose_lookup("All"));
	/* Shown "all" first, then in the order umhcap has always shown. */
	ASSERT_EQ((int)UMH_ALL, (int)umh_purposes[0].id);
	for (i = 0; i < NR_PURPOSES; i++) {
		ASSERT_STREQ(purposes[i], umh_purposes[i + 1].name);
		ASSERT_STREQ(purposes[i], umh_purpose_name(umh_purposes[i + 1].id));
	}
	ASSERT_STREQ("all modprobe coredump uevent request_key release_agent "
		     "power initrd other", umh_purpose_list());
}

/* Is @word in @hay, between spaces or line ends? */
static bool has_word(const char *hay, const char *word)
{
	size_t n = strlen(word);
	const char *s;

	for (s = hay; (s = strstr(s, word)); s++)
		if ((s == hay || s[-1] == ' ' || s[-1] == '\n') &&
		    (!s[n] || s[n] == ' ' || s[n] == '\n'))
			return true;
	return false;
}

/* Every file under a fake root: its path, size, time and content. */
static FILE *tree_out;

static int tree_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	uint64_t h = 14695981039346656037ULL;
	unsigned char buf[4096];
	ssize_t n, i;
	int fd;

	(void)flag; (void)ftw;
	fprintf(tree_out, "%s %o %lld %lld.%09ld", path, st->st_mode,
		(long long)st->st_size, (long long)st->st_mtim.tv_sec,
		st->st_mtim.tv_nsec);
	if (S_ISREG(st->st_mode) && (fd = open(path, O_RDONLY)) >= 0) {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			for (i = 0; i < n; i++)
				h = (h ^ buf[i]) * 1099511628211ULL;
		close(fd);
		fprintf(tree_out, " %016" PRIx64, h);
	}
	fputc('\n', tree_out);
	return 0;
}

/* The whole fake root, to prove that nothing was written or made. */
static char *tree(const char *root)
{
	char *buf = NULL;
	size_t len;

	tree_out = open_memstream(&buf, &len);
	if (!tree_out || nftw(root, tree_one, 16, FTW_PHYS))
		abort();
	fclose(tree_out);
	return buf;
}

/*
 * What each command would run with, writing where it writes; umhcap runs
 * the command, with the option added, once learn_scene() has given
 * learn --apply something to write.
 */
static const char *const *cmd_args(const char *cmd)
{
	static const struct {
		const char *cmd;
		const char *args[4];
	} args[] = {
		{ "drop", { "-p", "modprobe", "cap_chown" } },
		{ "keep", { "-p", "modprobe", "cap_chown" } },
		{ "user", { "-p", "modprobe", "1:1" } },
		{ "learn", { "--apply" } },
		{ "export", { "--sysctl" } },
		{ "trace", { "--count", "1" } },
	};
	static const char *const none[] = { NULL };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(args); i++)
		if (!strcmp(cmd, args[i].cmd))
			return args[i].args;
	return none;
}

/* umhcap --root ROOT CMD OPT ARGS..., ARGS from cmd_args(). */
static int run_cmd(const char *root, const char *cmd, const char *opt)
{
	const char *const *args = cmd_args(cmd);
	const char *argv[8] = { cmd };
	int n = 1, i;

	if (opt)
		argv[n++] = opt;
	for (i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return run_argv(root, true, argv);
}

/* Every command answers -h and --help with its own usage, on stdout. */
TEST_F(umh, every_command_answers_help)
{
	static const char *const helps[] = { "--help", "-h" };
	char *before, *after, want[64];
	const char *purposes_at;
	size_t i, h, p;

	learn_scene(self->root);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		for (h = 0; h < ARRAY_SIZE(helps); h++) {
			EXPECT_EQ(0, run_cmd(self->root, commands[i],
					     helps[h]))
				TH_LOG("%s %s: %s", commands[i], helps[h],
				       res.err);
			EXPECT_STREQ("", res.err);
			snprintf(want, sizeof(want), "usage: umhcap %s",
				 commands[i]);
			EXPECT_EQ(0, strncmp(res.out, want, strlen(want)))
				TH_LOG("%s %s printed:\n%s", commands[i],
				       helps[h], res.out);
			EXPECT_TRUE(strstr(res.out, "\noptions:\n") &&
				    strstr(res.out, "\n  -h, --help "))
				TH_LOG("%s: %s", commands[i], res.out);
		}
		/* A command that names purposes says which there are. */
		if (!strcmp(commands[i], "show") ||
		    !strcmp(commands[i], "drop") ||
		    !strcmp(commands[i], "keep") ||
		    !strcmp(commands[i], "user") ||
		    !strcmp(commands[i], "learn")) {
			purposes_at = strstr(res.out, "\npurposes: ");
			ASSERT_NE(NULL, purposes_at) TH_LOG("%s", commands[i]);
			for (p = 0; p < UMH_NR; p++)
				EXPECT_TRUE(has_word(purposes_at,
						     umh_purposes[p].name))
					TH_LOG("%s --help lacks %s", commands[i],
					       umh_purposes[p].name);
		}
	}
	/* Every command that writes can say what it would, instead. */
	ASSERT_EQ(0, RUN(self->root, "drop", "--help"));
	ASSERT_HAS(res.out, "\n  -n, --dry-run ");
	ASSERT_EQ(0, RUN(self->root, "keep", "--help"));
	ASSERT_HAS(res.out, "\n  -n, --dry-run ");
	ASSERT_EQ(0, RUN(self->root, "user", "--help"));
	ASSERT_HAS(res.out, "\n  -n, --dry-run ");
	ASSERT_EQ(0, RUN(self->root, "learn", "--help"));
	ASSERT_HAS(res.out, "\n       umhcap learn --apply [-n] ");
	ASSERT_HAS(res.out, "\n  -n, --dry-run ");
	/* Help reads nothing, and writes nothing. */
	ASSERT_EQ(0, run_argv(NULL, false, (const char *[]){
		"--root", "/tmp/umhcap-test.nonexistent", "trace", "--help",
		NULL }));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * An option a command does not take: one line on stderr, exit 2, and
 * nothing written, though the command would write.
 */
TEST_F(umh, every_command_refuses_unknown_options)
{
	static const struct {
		const char *opt, *err;
	} bad[] = {
		{ "--bogus-option", "unknown option \"--bogus-option\"; usage: umhcap " },
		{ "-Q", "unknown option \"-Q\"; usage: umhcap " },
		{ "--help=1", "option --help takes no argument; usage: umhcap " },
	};
	char *before, *after, want[128];
	size_t i, b;

	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		learn_scene(self->root);
		set_bound(self->root, "modprobe", full(), full());
		set_bound(self->root, "coredump", full(), full());
		before = tree(self->root);
		for (b = 0; b < ARRAY_SIZE(bad); b++) {
			EXPECT_EQ(2, run_cmd(self->root, commands[i],
					     bad[b].opt))
				TH_LOG("%s %s", commands[i], bad[b].opt);
			EXPECT_STREQ("", res.out);
			snprintf(want, sizeof(want), "umhcap: %s%s",
				 bad[b].err, commands[i]);
			EXPECT_EQ(0, strncmp(res.err, want, strlen(want)))
				TH_LOG("%s %s: want \"%s\" at the start of: %s",
				       commands[i], bad[b].opt, want,
				       res.err);
			EXPECT_EQ(1, count_of(res.err, "\n"))
				TH_LOG("%s %s: %s", commands[i], bad[b].opt,
				       res.err);
		}
		after = tree(self->root);
		EXPECT_STREQ(before, after) TH_LOG("%s wrote", commands[i]);
		free(before);
		free(after);
		/* The same arguments without it: the command runs. */
		EXPECT_NE(2, run_cmd(self->root, commands[i], NULL))
			TH_LOG("%s: %s", commands[i], res.err);
	}
	/* An option missing its argument, and the global options. */
	ASSERT_EQ(2, RUN(self->root, "drop", "cap_chown", "-p"));
	ASSERT_STREQ("umhcap: option -p needs an argument; usage: umhcap drop [-p PURPOSE[,PURPOSE...]] [-n] CAP...\n",
		     res.err);
	ASSERT_EQ(2, RUN(self->root, "trace", "--count"));
	ASSERT_HAS(res.err, "umhcap: option --count needs an argument; usage: umhcap trace");
	ASSERT_EQ(2, RUN(self->root, "--bogus-option", "drop", "cap_chown"));
	ASSERT_STREQ("umhcap: unknown option \"--bogus-option\"; see umhcap --help\n",
		     res.err);
	ASSERT_EQ(2, RUN(self->root, "-Q", "drop", "cap_chown"));
	ASSERT_STREQ("umhcap: unknown option \"-Q\"; see umhcap --help\n",
		     res.err);
	ASSERT_EQ(2, RUN(self->root, "--json=1", "drop", "cap_chown"));
	ASSERT_STREQ("umhcap: option --json takes no argument; see umhcap --help\n",
		     res.err);
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/bset"));
}

/* Each option refused where a command does not take it, and nothing run. */
TEST_F(umh, options_only_where_taken)
{
	char *before, *after;

	learn_scene(self->root);
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "drop", "-x", "cap_chown"));
	ASSERT_HAS(res.err, "unknown option \"-x\"; usage: umhcap drop");
	ASSERT_EQ(2, RUN(self->root, "keep", "--apply", "cap_chown"));
	ASSERT_EQ(2, RUN(self->root, "export", "--sysctl", "-n"));
	ASSERT_EQ(2, RUN(self->root, "show", "-p", "modprobe"));
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply", "--count", "1"));
	ASSERT_EQ(2, RUN(self->root, "trace", "--json"));
	ASSERT_HAS(res.err, "unknown option \"--json\"; usage: umhcap trace");
	ASSERT_EQ(2, RUN(self->root, "check", "modprobe"));
	ASSERT_STREQ("umhcap: unexpected argument \"modprobe\"; usage: umhcap check [--json]\n",
		     res.err);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* The purposes an error calls valid: every one of the table, in order. */
TEST_F(umh, valid_lists_every_purpose)
{
	static const char *const runs[][5] = {
		{ "show", "bogus" },
		{ "learn", "modprobe", "bogus" },
		{ "learn", "--apply", "bogus" },
		{ "drop", "-p", "bogus", "cap_chown" },
		{ "keep", "-p", "bogus", "cap_chown" },
		{ "user", "-p", "coredump,bogus", "1:1" },
	};
	char want[256] = "umhcap: unknown purpose \"bogus\"; valid: all";
	char *before, *after, *valid;
	size_t i, p;

	for (i = 0; i < NR_PURPOSES; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 " %s", purposes[i]);
	strcat(want, "\n");
	learn_scene(self->root);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		EXPECT_EQ(2, run_argv(self->root, true, (const char **)runs[i]));
		EXPECT_STREQ(want, res.err) TH_LOG("umhcap %s %s", runs[i][0],
						   runs[i][1]);
		EXPECT_STREQ("", res.out);
		valid = strstr(res.err, "valid:");
		ASSERT_NE(NULL, valid);
		for (p = 0; p < UMH_NR; p++)
			EXPECT_TRUE(has_word(valid, umh_purposes[p].name))
				TH_LOG("valid: lacks %s: %s",
				       umh_purposes[p].name, res.err);
	}
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* umhcap --help lists every command, in order, and each answers --help. */
TEST_F(umh, help_lists_every_command)
{
	char help[sizeof(res.out)], name[32], want[64];
	const char *s, *end;
	size_t n = 0, i;

	ASSERT_EQ(0, RUN(self->root, "--help"));
	memcpy(help, res.out, sizeof(help));
	s = strstr(help, "\ncommands:\n");
	ASSERT_NE(NULL, s);
	s += strlen("\ncommands:\n");
	end = strstr(s, "\n\n");
	ASSERT_NE(NULL, end);
	for (; s < end; s = strchr(s, '\n') + 1) {
		/* "  NAME ...": a form; more indented: its summary. */
		if (s[2] == ' ')
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(s + 2, " \n"),
			 s + 2);
		if (n && !strcmp(name, commands[n - 1]))
			continue;
		ASSERT_LT(n, ARRAY_SIZE(commands)) TH_LOG("%s: not a command", name);
		EXPECT_STREQ(commands[n], name);
		n++;
		EXPECT_EQ(0, RUN(self->root, name, "--help")) TH_LOG("%s", name);
		snprintf(want, sizeof(want), "usage: umhcap %s", name);
		EXPECT_EQ(0, strncmp(res.out, want, strlen(want)));
	}
	ASSERT_EQ(ARRAY_SIZE(commands), n);
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		snprintf(want, sizeof(want), "\n  %s", commands[i]);
		ASSERT_HAS(help, want);
	}
	ASSERT_HAS(help, "\n  -x              also print hex masks (show, learn, trace)\n");
	ASSERT_HAS(help, "\n  --json          machine-readable output (show, learn, check)\n");
	ASSERT_HAS(help, "\npurposes: all modprobe coredump uevent request_key release_agent power\n"
			 "          initrd other\n");
	ASSERT_HAS(help, "umhcap COMMAND --help");
}

/* keep -n, as drop -n and learn --apply -n: said, and nothing written. */
TEST_F(umh, keep_dry_run_writes_nothing)
{
	char *before, *after, want[PATH_MAX + 128];

	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "keep", "--dry-run", "-p", "modprobe",
			 "sys_module"));
	snprintf(want, sizeof(want), "would write \"65536 0\" to %s/" UMH
		 "/modprobe/bset (cap_sys_module)\n"
		 "would write \"65536 0\" to %s/" UMH
		 "/modprobe/inheritable (cap_sys_module)\n",
		 self->root, self->root);
	ASSERT_STREQ(want, res.out);
	ASSERT_EQ(0, RUN(self->root, "drop", "--dry-run", "sys_module"));
	ASSERT_HAS(res.out, "/" UMH "/bset (all except cap_sys_module)\n");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* ---- learning across boots: save, learn's merge, boot ---- */

#define BOOT_A		"11111111-2222-4333-8444-555555555555"
#define BOOT_B		"aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
#define SAVED_A		1700000000LL	/* 2023-11-14T22:13:20Z */
#define SAVED_B		1700086400LL	/* a day later */
#define GRUB_CFG	"etc/default/grub.d/umhcap.cfg"
#define KI_CMDLINE	"etc/kernel/cmdline"

/* A boot's record: helpers started and capabilities used, by purpose. */
struct boot_rec {
	unsigned long long started[NR_PURPOSES + 1];	/* [0]: all */
	uint64_t used[NR_PURPOSES + 1];
};

/* What learn_scene() puts in the live record. */
static const struct boot_rec live_scene = {
	.started = { 6, 4, 2 },
	.used = { B(CAP_SYS_MODULE) | CD_USED, B(CAP_SYS_MODULE), CD_USED },
};

/* The name of entry @i of a struct boot_rec. */
static const char *rec_name(size_t i)
{
	return i ? purposes[i - 1] : "all";
}

/*
 * The text of a saved record, in the format umhcap.8 gives; without its
 * comment, which the format lets a file leave out.  Static.
 */
static const char *saved_text(const char *id, long long saved,
			      const struct boot_rec *r)
{
	static char buf[4096];
	size_t i;
	int n;

	n = snprintf(buf, sizeof(buf), "umhcap-record 1\nboot_id %s\n"
		     "saved %lld\nbtime %lld\n", id, saved, saved - 3600);
	for (i = 0; i <= NR_PURPOSES; i++)
		n += snprintf(buf + n, sizeof(buf) - n,
			      "%s started %llu used %u %u\n", rec_name(i),
			      r->started[i], (uint32_t)r->used[i],
			      (uint32_t)(r->used[i] >> 32));
	return buf;
}

static void put_saved(const char *root, const char *id, const char *text)
{
	char rel[128];

	snprintf(rel, sizeof(rel), BOOTS "/%s", id);
	put(root, rel, "%s", text);
}

/*
 * Two saved boots: A, a day before B, ran modprobe once, with cap_kill
 * besides, and power once; B ran coredump three times, with
 * cap_fowner, and request_key once, which used nothing.
 */
static void two_saved_boots(const char *root)
{
	static const struct boot_rec a = {
		.started = { 2, 1, 0, 0, 0, 0, 1 },
		.used = { B(CAP_SYS_MODULE) | B(CAP_KILL) | B(CAP_SYS_BOOT),
			  B(CAP_SYS_MODULE) | B(CAP_KILL), 0, 0, 0, 0,
			  B(CAP_SYS_BOOT) },
	};
	static const struct boot_rec b = {
		.started = { 4, 0, 3, 0, 1 },
		.used = { CD_USED | B(CAP_FOWNER), 0, CD_USED | B(CAP_FOWNER) },
	};

	put_saved(root, BOOT_A, saved_text(BOOT_A, SAVED_A, &a));
	put_saved(root, BOOT_B, saved_text(BOOT_B, SAVED_B, &b));
}

/* The mode of ROOT/rel, or -1. */
static int mode_of(const char *root, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return stat(path, &st) ? -1 : (int)(st.st_mode & 07777);
}

static void chmod_rel(const char *root, const char *rel, mode_t mode)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (chmod(path, mode))
		abort();
}

/* The names in ROOT/rel, dot files too, sorted, ' ' before each. */
static const char *entries(const char *root, const char *rel)
{
	static char buf[4096];
	struct dirent **list;
	char path[PATH_MAX];
	int i, n, len = 0;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	buf[0] = '\0';
	n = scandir(path, &list, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, ".."))
			len += snprintf(buf + len, sizeof(buf) - len, " %s",
					list[i]->d_name);
		free(list[i]);
	}
	if (n >= 0)
		free(list);
	return buf;
}

/* What export --learned --cmdline prints, without its newline; static. */
static const char *learned_params(const char *root,
				  struct __test_metadata *_metadata)
{
	static char buf[4096];

	ASSERT_EQ(0, RUN(root, "export", "--learned", "--cmdline"));
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(res.out, "\n"),
		 res.out);
	return buf;
}

/* save: the record, the boot id and times, one line said. */
TEST_F(umh, save_writes_the_record)
{
	char want[4096], line[PATH_MAX + 256];
	const char *text, *at;
	long long t0, t1, saved;
	size_t i;
	mode_t old;
	int n;

	learn_scene(self->root);
	put(self->root, "proc/stat", "cpu  1 2 3\nbtime 1735786000\nprocesses 9\n");
	t0 = time(NULL);
	old = umask(077);
	ASSERT_EQ(0, RUN(self->root, "save"));
	umask(old);
	t1 = time(NULL);
	snprintf(line, sizeof(line),
		 "saved boot " THIS_BOOT "'s record (6 helpers started: modprobe 4, coredump 2) to %s/" BOOTS "/" THIS_BOOT "\n",
		 self->root);
	ASSERT_STREQ(line, res.out);
	ASSERT_STREQ("", res.err);
	text = get(self->root, BOOTS "/" THIS_BOOT);
	/* The first line, then a comment with the time, then the rest. */
	ASSERT_STARTS(text, "umhcap-record 1\n# saved by umhcap ");
	at = strstr(text, "\nsaved ");
	ASSERT_NE(NULL, at);
	saved = atoll(at + 7);
	ASSERT_LE(t0, saved);
	ASSERT_GE(t1, saved);
	n = snprintf(want, sizeof(want), "boot_id " THIS_BOOT "\nsaved %lld\n"
		     "btime 1735786000\n", saved);
	for (i = 0; i <= NR_PURPOSES; i++)
		n += snprintf(want + n, sizeof(want) - n,
			      "%s started %llu used %u 0\n", rec_name(i),
			      live_scene.started[i],
			      (uint32_t)live_scene.used[i]);
	ASSERT_STREQ(want, strchr(strstr(text, "\n# saved by") + 1, '\n') + 1);
	/* 0644 in directories of 0755, whatever the umask. */
	ASSERT_EQ(0644, mode_of(self->root, BOOTS "/" THIS_BOOT));
	ASSERT_EQ(0755, mode_of(self->root, BOOTS));
	ASSERT_EQ(0755, mode_of(self->root, "var/lib/umhcap"));
	ASSERT_EQ(0755, mode_of(self->root, "var"));
	ASSERT_STREQ(" " THIS_BOOT, entries(self->root, BOOTS));
	/* Without /proc/stat: no btime line. */
	rm_file(self->root, "proc/stat");
	ASSERT_EQ(0, RUN(self->root, "save"));
	ASSERT_LACKS(get(self->root, BOOTS "/" THIS_BOOT), "btime");
	/* --state-dir: under the root, absolute. */
	ASSERT_EQ(0, RUN(self->root, "save", "--state-dir", "/srv/umh/"));
	ASSERT_TRUE(exists(self->root, "srv/umh/boots/" THIS_BOOT));
	ASSERT_EQ(2, RUN(self->root, "save", "--state-dir", "srv"));
	ASSERT_HAS(res.err, "umhcap: bad --state-dir \"srv\": give an absolute path");
}

/*
 * Saved again in the same boot: the file replaced in one step, never
 * written in place; a failed save leaves the old file whole.
 */
TEST_F(umh, save_replaces_atomically)
{
	char old_text[4096], buf[4096], tmp[PATH_MAX];
	struct stat before, after;
	ssize_t n;
	int fd;

	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "save"));
	strcpy(old_text, get(self->root, BOOTS "/" THIS_BOOT));
	snprintf(tmp, sizeof(tmp), "%s/" BOOTS "/" THIS_BOOT, self->root);
	fd = open(tmp, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &before));
	/* The record grew. */
	set_record(self->root, "modprobe", B(CAP_SYS_MODULE) | B(CAP_KILL), 9);
	ASSERT_EQ(0, RUN(self->root, "save"));
	ASSERT_HAS(get(self->root, BOOTS "/" THIS_BOOT),
		   "\nmodprobe started 9 used 65568 0\n");
	ASSERT_EQ(0, stat(tmp, &after));
	ASSERT_NE(before.st_ino, after.st_ino);
	/* Who had the old file open reads it whole. */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	ASSERT_STREQ(old_text, buf);
	ASSERT_STREQ(" " THIS_BOOT, entries(self->root, BOOTS));
	/* A save that cannot write: exit 2, the file as it was. */
	strcpy(old_text, get(self->root, BOOTS "/" THIS_BOOT));
	set_record(self->root, "modprobe", B(CAP_SYS_MODULE), 12);
	chmod_rel(self->root, BOOTS, 0555);
	drop_caps = B(CAP_DAC_OVERRIDE);
	ASSERT_EQ(2, RUN(self->root, "save"));
	chmod_rel(self->root, BOOTS, 0755);
	ASSERT_HAS(res.err, "umhcap: cannot write ");
	ASSERT_HAS(res.err, "umhcap: save: nothing was written\n");
	ASSERT_STREQ("", res.out);
	ASSERT_STREQ(old_text, get(self->root, BOOTS "/" THIS_BOOT));
	ASSERT_STREQ(" " THIS_BOOT, entries(self->root, BOOTS));
}

/* save -n: the file it would write, said; nothing written or made. */
TEST_F(umh, save_dry_run_writes_nothing)
{
	char *before, *after, want[PATH_MAX + 128];

	learn_scene(self->root);
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "save", "-n"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(after);
	ASSERT_STARTS(res.out, "umhcap-record 1\n");
	ASSERT_HAS(res.out, "\nboot_id " THIS_BOOT "\n");
	ASSERT_HAS(res.out, "\ncoredump started 2 used 3 0\n");
	snprintf(want, sizeof(want),
		 "\n-n, nothing written: would save boot " THIS_BOOT "'s record (6 helpers started: modprobe 4, coredump 2) to %s/" BOOTS "/" THIS_BOOT "\n",
		 self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(0, RUN(self->root, "save", "--dry-run", "--state-dir", "/x"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* No record, or no boot id: exit 2, and nothing written or made. */
TEST_F(umh, save_without_record)
{
	char *before, *after;

	learn_scene(self->root);
	/* The record, but no boot id to name it by. */
	put(self->root, BOOT_ID_FILE, "not-a-boot-id\n");
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "save"));
	ASSERT_HAS(res.err, BOOT_ID_FILE ": unexpected content \"not-a-boot-id\"; expected a boot id");
	ASSERT_HAS(res.err, "umhcap: save: nothing was written\n");
	ASSERT_STREQ("", res.out);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	/* A boot id, and no record. */
	put(self->root, BOOT_ID_FILE, "%s\n", THIS_BOOT);
	rm_file(self->root, UMH "/used");
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "save"));
	ASSERT_HAS(res.err, "umhcap: this kernel keeps no record of what usermode helpers use (no ");
	ASSERT_HAS(res.err, "umhcap: save: nothing was written\n");
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(2, RUN(self->root, "save", "-n"));
	ASSERT_STREQ("", res.out);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	/* An unpatched kernel. */
	unpatch(self->root);
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "save"));
	ASSERT_HAS(res.err, "keeps no record");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	ASSERT_FALSE(exists(self->root, "var"));
	free(before);
	free(after);
}

/*
 * learn merges two saved boots with this one: used their union, started
 * their sum; and says how many, and over what time.
 */
TEST_F(umh, learn_merges_saved_boots)
{
	char want[PATH_MAX + 256];

	learn_scene(self->root);
	two_saved_boots(self->root);
	ASSERT_EQ(0, RUN(self->root, "learn"));
	ASSERT_STREQ("", res.err);
	ASSERT_STARTS(res.out, "learned from 2 saved boots (saved 2023-11-14T22:13:20Z to 2023-11-15T22:13:20Z) and this boot\n\n");
	ASSERT_HAS(res.out, "all (every helper): 12 helpers started in 3 boots\n");
	ASSERT_HAS(res.out, "modprobe: 5 helpers started in 3 boots\n"
			    "  used:        cap_kill, cap_sys_module\n");
	ASSERT_HAS(res.out, "coredump: 5 helpers started in 3 boots\n"
			    "  used:        cap_chown, cap_dac_override, cap_fowner\n");
	ASSERT_HAS(res.out, "request_key: 1 helper started in 3 boots\n"
			    "  used:        none\n");
	ASSERT_HAS(res.out, "power: 1 helper started in 3 boots\n"
			    "  used:        cap_sys_boot\n");
	ASSERT_HAS(res.out, "uevent: no helper started in 3 boots (idle");
	/* One saved boot: its time alone. */
	rm_file(self->root, BOOTS "/" BOOT_B);
	ASSERT_EQ(0, RUN(self->root, "learn", "modprobe"));
	ASSERT_HAS(res.out, "learned from 1 saved boot (saved 2023-11-14T22:13:20Z) and this boot\n");
	ASSERT_HAS(res.out, "modprobe: 5 helpers started in 2 boots\n");
	two_saved_boots(self->root);
	/* --this-boot: the live record alone, as without saved boots. */
	ASSERT_EQ(0, RUN(self->root, "learn", "--this-boot"));
	ASSERT_HAS(res.out, "learned from this boot only (--this-boot)\n");
	ASSERT_HAS(res.out, "modprobe: 4 helpers started since boot\n"
			    "  used:        cap_sys_module\n");
	rm_file(self->root, BOOTS "/" BOOT_A);
	rm_file(self->root, BOOTS "/" BOOT_B);
	ASSERT_EQ(0, RUN(self->root, "learn"));
	snprintf(want, sizeof(want),
		 "learned from this boot only: no other boot saved in %s/" BOOTS "\n",
		 self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_HAS(res.out, "modprobe: 4 helpers started since boot\n");
}

/* The merge in JSON, learn --apply and export --learned. */
TEST_F(umh, learn_merged_json_apply_export)
{
	const char *params;

	learn_scene(self->root);
	two_saved_boots(self->root);
	ASSERT_EQ(0, RUN(self->root, "learn", "--json"));
	ASSERT_JSON(res.out);
	ASSERT_HAS(res.out, "{\"version\":1,");
	ASSERT_HAS(res.out, ",\"started\":12,");
	ASSERT_HAS(res.out, "{\"purpose\":\"modprobe\",\"started\":5,\"idle\":false,\"used\":\"0x10020\",");
	ASSERT_HAS(res.out, "\n \"learned_from\":{\"boot_id\":\"" THIS_BOOT "\","
			    "\"this_boot_only\":false,\"saved_boots\":2,"
			    "\"first_saved\":1700000000,\"last_saved\":1700086400,"
			    "\"superseded\":false,\"refused\":0}\n}\n");
	ASSERT_EQ(0, RUN(self->root, "--json", "learn", "--this-boot"));
	ASSERT_JSON(res.out);
	ASSERT_HAS(res.out, "\"this_boot_only\":true,\"saved_boots\":0,"
			    "\"first_saved\":null,\"last_saved\":null,");
	/* --apply narrows to the union, and says what it learned from. */
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply"));
	ASSERT_HAS(res.out, "learned from 2 saved boots (saved 2023-11-14T22:13:20Z to 2023-11-15T22:13:20Z) and this boot\n");
	ASSERT_STREQ(written(B(CAP_SYS_MODULE) | B(CAP_KILL)),
		     get(self->root, UMH "/modprobe/bset"));
	ASSERT_STREQ(written(CD_USED | B(CAP_FOWNER)),
		     get(self->root, UMH "/coredump/inheritable"));
	ASSERT_STREQ(written(0), get(self->root, UMH "/request_key/bset"));
	ASSERT_STREQ(written(B(CAP_SYS_BOOT)), get(self->root, UMH "/power/bset"));
	ASSERT_HAS(res.out, "4 purposes narrowed, 0 unchanged, 4 idle left alone\n");
	/* export --learned: the same, and with --this-boot, this boot's. */
	set_bound(self->root, "modprobe", full(), full());
	set_bound(self->root, "coredump", full(), full());
	params = learned_params(self->root, _metadata);
	/* The global bound is open: left out. */
	ASSERT_HAS(params, "usermodehelper.bset=modprobe:0x10020,coredump:0xb,");
	ASSERT_LACKS(params, "all:");
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--this-boot",
			 "--cmdline"));
	ASSERT_HAS(res.out, "=modprobe:0x10000,coredump:0x3,");
	ASSERT_EQ(2, RUN(self->root, "export", "--this-boot", "--cmdline"));
	ASSERT_HAS(res.err, "--state-dir and --this-boot go with --learned");
	/* --state-dir: the saved boots are elsewhere. */
	ASSERT_EQ(0, RUN(self->root, "learn", "--state-dir", "/nowhere"));
	ASSERT_HAS(res.out, "learned from this boot only: no other boot saved in ");
}

/*
 * This boot's saved file is not counted again: the live record holds
 * all it holds.  save, then learn: the live counts, once.
 */
TEST_F(umh, learn_does_not_count_this_boot_twice)
{
	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "save"));
	ASSERT_EQ(0, RUN(self->root, "learn"));
	ASSERT_STREQ("", res.err);
	ASSERT_HAS(res.out, "learned from this boot only: no other boot saved in ");
	ASSERT_HAS(res.out, "; this boot's saved record left out, the live one holds it\n");
	ASSERT_HAS(res.out, "all (every helper): 6 helpers started since boot\n");
	ASSERT_HAS(res.out, "modprobe: 4 helpers started since boot\n");
	/* With another boot saved: 4 + its 1, not 4 + 4 + 1. */
	two_saved_boots(self->root);
	ASSERT_EQ(0, RUN(self->root, "learn", "modprobe"));
	ASSERT_HAS(res.out, "learned from 2 saved boots (saved 2023-11-14T22:13:20Z to 2023-11-15T22:13:20Z) and this boot; this boot's saved record left out, the live one holds it\n");
	ASSERT_HAS(res.out, "modprobe: 5 helpers started in 3 boots\n");
	ASSERT_EQ(0, RUN(self->root, "--json", "learn"));
	ASSERT_HAS(res.out, "\"saved_boots\":2,");
	ASSERT_HAS(res.out, "\"superseded\":true,");
}

/*
 * A saved file that is not what save writes, or that another than root
 * may have written, is refused with a warning naming it, and merged not
 * at all: each bad file here would add cap_net_admin to modprobe.
 */
TEST_F(umh, learn_refuses_bad_saved_files)
{
	static const struct boot_rec wide = {
		.started = { 1, 1 },
		.used = { B(CAP_NET_ADMIN), B(CAP_NET_ADMIN) },
	};
	static const struct {
		const char *from, *to, *why;
	} bad[] = {
		{ "umhcap-record 1\n", "umhcap-record 2\n", "line 1: not \"umhcap-record 1\"" },
		{ "\nother started 0 used 0 0\n", "\n", "a purpose has no line" },
		{ "\nsaved 1700000000\n", "\n", "no boot_id or no saved line" },
		{ "\nmodprobe started 1 used", "\nmodprobe started -1 used", "line 6: expected decimal numbers" },
		{ "\nmodprobe started 1 used 4096 0\n", "\nmodprobe started 1 used 4096 0 0\n", "line 6: expected \"PURPOSE started N used LOW HIGH\"" },
		{ "\nmodprobe started 1 used 4096 0\n", "\nmodprobe started 1 used 4096 4294967296\n", "line 6: expected decimal numbers" },
		{ "\nmodprobe started", "\nmodprobe  started", "line 6: expected \"PURPOSE started" },
		{ "\npower started", "\nmodprobe started", "line 11: a second line of the purpose" },
		{ "\npower started", "\nbogus started", "line 11: expected boot_id, saved, btime, or a purpose's name" },
		{ "boot_id " BOOT_A, "boot_id " BOOT_B, "its boot_id is not its name" },
		{ "other started 0 used 0 0\n", "other started 0 used 0 0", "not ended by a newline" },
	};
	char rel[256], want[PATH_MAX + 256];
	const char *good;
	size_t i;

	learn_scene(self->root);
	snprintf(rel, sizeof(rel), BOOTS "/" BOOT_A);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		put_saved(self->root, BOOT_A, edited(saved_text(BOOT_A, SAVED_A, &wide),
					       bad[i].from, bad[i].to));
		ASSERT_EQ(0, RUN(self->root, "learn", "modprobe"));
		snprintf(want, sizeof(want), "umhcap: warning: ignoring saved record %s/%s: %s",
			 self->root, rel, bad[i].why);
		EXPECT_TRUE(strstr(res.err, want) != NULL)
			TH_LOG("%zu: want \"%s\" in: %s", i, want, res.err);
		EXPECT_EQ(1, count_of(res.err, "\n"));
		ASSERT_HAS(res.out, "learned from this boot only: no other boot saved in ");
		ASSERT_HAS(res.out, "; 1 saved file refused (see the warnings)\n");
		ASSERT_HAS(res.out, "modprobe: 4 helpers started since boot\n"
				    "  used:        cap_sys_module\n");
	}
	/* Good, but writable by the group, by all, or owned by another. */
	good = saved_text(BOOT_A, SAVED_A, &wide);
	put_saved(self->root, BOOT_A, good);
	ASSERT_EQ(0, RUN(self->root, "learn", "modprobe"));
	ASSERT_STREQ("", res.err);
	ASSERT_HAS(res.out, "  used:        cap_net_admin, cap_sys_module\n");
	chmod_rel(self->root, rel, 0664);
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply"));
	snprintf(want, sizeof(want), "umhcap: warning: ignoring saved record %s/%s: group-writable (mode 0664); only root may write what learn merges: chmod go-w\n",
		 self->root, rel);
	ASSERT_STREQ(want, res.err);
	ASSERT_STREQ(written(B(CAP_SYS_MODULE)), get(self->root, UMH "/modprobe/bset"));
	ASSERT_HAS(res.out, "learned from this boot only: no other boot saved in ");
	chmod_rel(self->root, rel, 0646);
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--cmdline"));
	ASSERT_HAS(res.err, "/" BOOT_A ": world-writable (mode 0646)");
	ASSERT_HAS(res.out, "=modprobe:0x10000,");
	chmod_rel(self->root, rel, 0644);
	snprintf(want, sizeof(want), "%s/%s", self->root, rel);
	ASSERT_EQ(0, chown(want, 4242, 0));
	ASSERT_EQ(0, RUN(self->root, "learn", "modprobe"));
	ASSERT_HAS(res.err, "/" BOOT_A ": owned by uid 4242, not root; only root may write what learn merges: chown root\n");
	ASSERT_HAS(res.out, "  used:        cap_sys_module\n");
	ASSERT_EQ(0, chown(want, 0, 0));
	/* A symbolic link, and a name that is no boot id. */
	rm_file(self->root, rel);
	put(self->root, "elsewhere", "%s", good);
	snprintf(want, sizeof(want), "%s/elsewhere", self->root);
	ASSERT_EQ(0, symlink(want, edited("%s/" BOOTS "/" BOOT_A, "%s", self->root)));
	put(self->root, BOOTS "/notes.txt", "hello\n");
	ASSERT_EQ(0, RUN(self->root, "learn", "modprobe"));
	ASSERT_HAS(res.err, "/" BOOT_A ": a symbolic link\n");
	ASSERT_HAS(res.err, "/" BOOTS "/notes.txt: not a saved record's name, a boot id\n");
	ASSERT_HAS(res.out, "; 2 saved files refused (see the warnings)\n");
	ASSERT_HAS(res.out, "  used:        cap_sys_module\n");
	/* The directory itself writable by others: every file left out. */
	rm_file(self->root, rel);
	rm_file(self->root, BOOTS "/notes.txt");
	put_saved(self->root, BOOT_A, good);
	chmod_rel(self->root, BOOTS, 0775);
	ASSERT_EQ(0, RUN(self->root, "learn", "modprobe"));
	ASSERT_HAS(res.err, "umhcap: warning: ignoring the saved boots in ");
	ASSERT_HAS(res.err, "/" BOOTS ": group-writable (mode 0775)");
	ASSERT_HAS(res.out, "  used:        cap_sys_module\n");
	chmod_rel(self->root, BOOTS, 0755);
	ASSERT_EQ(0, RUN(self->root, "learn", "modprobe"));
	ASSERT_HAS(res.out, "  used:        cap_net_admin, cap_sys_module\n");
}

/* Saved boots, and no boot id to tell this one's: an error, not a guess. */
TEST_F(umh, learn_saved_boots_need_the_boot_id)
{
	learn_scene(self->root);
	two_saved_boots(self->root);
	rm_file(self->root, BOOT_ID_FILE);
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply"));
	ASSERT_HAS(res.err, BOOT_ID_FILE ": No such file or directory; it tells this boot's record from the others");
	ASSERT_HAS(res.err, "umhcap: learn --apply: nothing was written\n");
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
	ASSERT_EQ(0, RUN(self->root, "learn", "--this-boot"));
}

/* The value sh gives GRUB_CMDLINE_LINUX after sourcing ROOT/rel; static. */
static const char *grub_sourced(const char *root, const char *rel)
{
	static char buf[8192];
	char cmd[PATH_MAX + 128];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "/bin/sh -c 'GRUB_CMDLINE_LINUX=\"quiet\"; . \"$0\" && printf %%s \"$GRUB_CMDLINE_LINUX\"' %s/%s",
		 root, rel);
	p = popen(cmd, "r");
	if (!p)
		abort();
	n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	if (pclose(p))
		return "<sh failed>";
	return buf;
}

/* boot --grub: umhcap.cfg, which sh sources into GRUB_CMDLINE_LINUX. */
TEST_F(umh, boot_grub_writes_cfg)
{
	char want[8192], params[4096];
	const char *cfg;

	learn_scene(self->root);
	two_saved_boots(self->root);
	snprintf(params, sizeof(params), "%s", learned_params(self->root, _metadata));
	ASSERT_HAS(params, "=modprobe:0x10020,");
	/* Without /etc/kernel/cmdline, --grub is the default. */
	ASSERT_EQ(0, RUN(self->root, "boot"));
	ASSERT_STREQ("", res.err);
	snprintf(want, sizeof(want), "quiet %s", params);
	ASSERT_STREQ(want, grub_sourced(self->root, GRUB_CFG));
	cfg = get(self->root, GRUB_CFG);
	ASSERT_STARTS(cfg, "# Written by umhcap boot at ");
	ASSERT_HAS(cfg, "\n# helpers learned from 2 saved boots, saved 2023-11-14T22:13:20Z to\n"
			"# 2023-11-15T22:13:20Z, and this boot:\n");
	snprintf(want, sizeof(want), "\nGRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX %s\"\n",
		 params);
	ASSERT_HAS(cfg, want);
	ASSERT_EQ(1, count_of(cfg, "GRUB_CMDLINE_LINUX="));
	ASSERT_EQ(0644, mode_of(self->root, GRUB_CFG));
	ASSERT_EQ(0755, mode_of(self->root, "etc/default/grub.d"));
	ASSERT_STREQ(" umhcap.cfg", entries(self->root, "etc/default/grub.d"));
	snprintf(want, sizeof(want), "wrote %s/" GRUB_CFG ", with the bounds learned from 2 saved boots (saved 2023-11-14T22:13:20Z to 2023-11-15T22:13:20Z) and this boot:\n  %s\n"
		 "next: run update-grub, then reboot: the bounds hold from the first helper of that boot\n",
		 self->root, params);
	ASSERT_STREQ(want, res.out);
	/* Again, with more learned: the file rewritten whole, mode kept. */
	chmod_rel(self->root, GRUB_CFG, 0600);
	set_record(self->root, "uevent", B(CAP_MKNOD), 1);
	ASSERT_EQ(0, RUN(self->root, "boot", "--grub", "--this-boot"));
	snprintf(params, sizeof(params), "%s", learned_params(self->root, _metadata));
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--this-boot", "--cmdline"));
	snprintf(want, sizeof(want), "quiet %.*s", (int)strcspn(res.out, "\n"), res.out);
	ASSERT_STREQ(want, grub_sourced(self->root, GRUB_CFG));
	/* The idle purposes are open: left out, so uevent ends the list. */
	ASSERT_HAS(want, ",uevent:0x8000000 usermodehelper.inheritable=");
	ASSERT_HAS(get(self->root, GRUB_CFG), "# helpers learned from this boot only:\n");
	ASSERT_EQ(1, count_of(get(self->root, GRUB_CFG), "GRUB_CMDLINE_LINUX="));
	ASSERT_EQ(0600, mode_of(self->root, GRUB_CFG));
	ASSERT_STREQ(" umhcap.cfg", entries(self->root, "etc/default/grub.d"));
}

/*
 * boot --kernel-install: every usermodehelper.* item of
 * /etc/kernel/cmdline replaced, all else as it was, byte for byte.
 */
TEST_F(umh, boot_kernel_install_replaces_items)
{
	char want[8192], params[4096];

	learn_scene(self->root);
	set_ident(self->root, "coredump", 998, 997);
	snprintf(params, sizeof(params), "%s", learned_params(self->root, _metadata));
	ASSERT_STARTS(params, "usermodehelper.gid=coredump:997 usermodehelper.uid=coredump:998 usermodehelper.bset=");
	put(self->root, KI_CMDLINE,
	    "  root=UUID=1234 ro usermodehelper.bset=all:0,modprobe:0x10000  quiet\t"
	    "\"usermodehelper.uid=coredump:5\" splash=\"a b\" usermodehelper.inheritable=modprobe:0\n");
	chmod_rel(self->root, KI_CMDLINE, 0600);
	/* With /etc/kernel/cmdline, --kernel-install is the default. */
	ASSERT_EQ(0, RUN(self->root, "boot"));
	ASSERT_STREQ("", res.err);
	snprintf(want, sizeof(want), "  root=UUID=1234 ro  quiet splash=\"a b\" %s\n",
		 params);
	ASSERT_STREQ(want, get(self->root, KI_CMDLINE));
	ASSERT_EQ(0600, mode_of(self->root, KI_CMDLINE));
	ASSERT_STREQ(" cmdline", entries(self->root, "etc/kernel"));
	snprintf(want, sizeof(want), "wrote %s/" KI_CMDLINE " (3 usermodehelper.* items replaced), with the bounds learned from this boot only: no other boot saved in %s/" BOOTS ":\n  %s\n"
		 "next: run kernel-install add $(uname -r) /boot/vmlinuz-$(uname -r), or reinstall the kernel package, then reboot: the bounds hold from the first helper of that boot\n",
		 self->root, self->root, params);
	ASSERT_STREQ(want, res.out);
	/* Again: the items replaced, not added to. */
	ASSERT_EQ(0, RUN(self->root, "boot", "--kernel-install"));
	snprintf(want, sizeof(want), "  root=UUID=1234 ro  quiet splash=\"a b\" %s\n",
		 params);
	ASSERT_STREQ(want, get(self->root, KI_CMDLINE));
	ASSERT_HAS(res.out, "(4 usermodehelper.* items replaced)");
	/* Without the file: /proc/cmdline but for BOOT_IMAGE= and initrd=. */
	rm_file(self->root, KI_CMDLINE);
	put(self->root, "proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.12 root=/dev/vda initrd=\\initrd.img usermodehelper.bset=all:0 console=ttyS0\n");
	ASSERT_EQ(0, RUN(self->root, "boot", "--kernel-install"));
	snprintf(want, sizeof(want), "root=/dev/vda console=ttyS0 %s\n", params);
	ASSERT_STREQ(want, get(self->root, KI_CMDLINE));
	ASSERT_EQ(0644, mode_of(self->root, KI_CMDLINE));
	ASSERT_HAS(res.out, "/proc/cmdline without BOOT_IMAGE= and initrd=; 1 usermodehelper.* item replaced)");
	/* ... or /usr/lib/kernel/cmdline, as kernel-install takes it first. */
	rm_file(self->root, KI_CMDLINE);
	put(self->root, "usr/lib/kernel/cmdline", "BOOT_IMAGE=kept rw");
	ASSERT_EQ(0, RUN(self->root, "boot", "--kernel-install"));
	snprintf(want, sizeof(want), "BOOT_IMAGE=kept rw %s", params);
	ASSERT_STREQ(want, get(self->root, KI_CMDLINE));
	/* An empty file: the parameters alone. */
	put(self->root, KI_CMDLINE, "\n");
	ASSERT_EQ(0, RUN(self->root, "boot"));
	snprintf(want, sizeof(want), "%s\n", params);
	ASSERT_STREQ(want, get(self->root, KI_CMDLINE));
	ASSERT_FALSE(exists(self->root, GRUB_CFG));
}

/* boot -n: the file it would write, said; the tree as it was. */
TEST_F(umh, boot_dry_run_writes_nothing)
{
	char *before, *after, want[8192], params[4096];

	learn_scene(self->root);
	snprintf(params, sizeof(params), "%s", learned_params(self->root, _metadata));
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "boot", "-n"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(after);
	ASSERT_STARTS(res.out, "# Written by umhcap boot at ");
	snprintf(want, sizeof(want), "\nGRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX %s\"\n"
		 "-n, nothing written: would write the above to %s/" GRUB_CFG "\n",
		 params, self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(0, RUN(self->root, "boot", "--dry-run", "--kernel-install"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(after);
	snprintf(want, sizeof(want), "root=/dev/vda console=ttyS0 %s\n"
		 "-n, nothing written: would write the above to %s/" KI_CMDLINE "\n",
		 params, self->root);
	ASSERT_STREQ(want, res.out);
	free(before);
	put(self->root, KI_CMDLINE, "ro usermodehelper.bset=all:0\n");
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "boot", "-n"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	snprintf(want, sizeof(want), "ro %s\n-n, nothing written", params);
	ASSERT_STARTS(res.out, want);
	free(before);
	free(after);
}

/* Nothing learned, no record, or both loaders: exit 2, nothing written. */
TEST_F(umh, boot_refuses_when_nothing_learned)
{
	char *before, *after;

	/* The fixture: a record, and no helper started. */
	set_record(self->root, "other", B(CAP_KILL), 0);
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "boot"));
	ASSERT_HAS(res.err, "umhcap: boot: nothing learned from this boot only: no other boot saved in ");
	ASSERT_HAS(res.err, ": no helper started; let the machine run with open bounds, save its boots, and try again; nothing was written\n");
	ASSERT_STREQ("", res.out);
	/* A check recorded, yet no helper started: nothing learned. */
	ASSERT_EQ(2, RUN(self->root, "boot", "--include-idle", "--kernel-install"));
	ASSERT_HAS(res.err, "nothing learned");
	ASSERT_EQ(2, RUN(self->root, "boot", "-n"));
	ASSERT_STREQ("", res.out);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	/* No record. */
	learn_scene(self->root);
	rm_file(self->root, UMH "/used");
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "boot"));
	ASSERT_HAS(res.err, "keeps no record of what usermode helpers use");
	ASSERT_HAS(res.err, "umhcap: boot: nothing was written\n");
	ASSERT_STREQ("", res.out);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	/* Both loaders. */
	set_record(self->root, NULL, 0, 6);
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "boot", "--grub", "--kernel-install"));
	ASSERT_HAS(res.err, "umhcap: give one of --grub and --kernel-install; usage: umhcap boot");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * Every line about a write, or one that would be, names the root when
 * it is not /, and where it came from; under / none does.
 */
TEST_F(umh, writes_name_the_root)
{
	char under[256], want[PATH_MAX], *before, *after;
	const char *s;

	see_root = true;
	snprintf(under, sizeof(under), " under root %s (--root)", self->root);
	learn_scene(self->root);

	/* Dry runs: every line, and nothing written. */
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "keep", "--dry-run", "-p", "modprobe",
			 "sys_module"));
	snprintf(want, sizeof(want), "would write \"65536 0\" to %s/" UMH
		 "/modprobe/bset (cap_sys_module)%s\n"
		 "would write \"65536 0\" to %s/" UMH
		 "/modprobe/inheritable (cap_sys_module)%s\n",
		 self->root, under, self->root, under);
	ASSERT_STREQ(want, res.out);
	ASSERT_EQ(0, RUN(self->root, "drop", "-n", "all"));
	ASSERT_EQ(2, count_of(res.out, under));
	ASSERT_EQ(0, RUN(self->root, "user", "--dry-run", "-p", "coredump",
			 "1:1"));
	snprintf(want, sizeof(want), "would write \"1\" to %s/" UMH
		 "/coredump/gid%s\n", self->root, under);
	ASSERT_EQ(0, strncmp(res.out, want, strlen(want))) TH_LOG("%s", res.out);
	ASSERT_EQ(3, count_of(res.out, under));
	s = strstr(res.out, "coredump: would run as ");
	ASSERT_NE(NULL, s);
	snprintf(want, sizeof(want), "%s\n", under);
	ASSERT_STREQ(want, s + strlen(s) - strlen(want));
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply", "--dry-run"));
	snprintf(want, sizeof(want), "-n, nothing written: 2 purposes narrowed, 0 unchanged, 6 idle left alone%s\n",
		 under);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(5, count_of(res.out, under));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);

	/* What was written. */
	ASSERT_EQ(0, RUN(self->root, "drop", "-p", "power", "kill"));
	snprintf(want, sizeof(want), "power bset: all except cap_kill%s\n"
		 "power inheritable: all except cap_kill%s\n", under, under);
	ASSERT_STREQ(want, res.out);
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply"));
	snprintf(want, sizeof(want), "modprobe: narrowed to what its helpers used: bset cap_sys_module, inheritable cap_sys_module%s\n",
		 under);
	ASSERT_HAS(res.out, want);
	snprintf(want, sizeof(want), "2 purposes narrowed, 0 unchanged, 6 idle left alone%s\n",
		 under);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "uevent", "0:0"));
	snprintf(want, sizeof(want), "uevent: runs as root already; unchanged%s\n",
		 under);
	ASSERT_STREQ(want, res.out);

	/* Nothing written, or some. */
	ASSERT_EQ(2, RUN(self->root, "user", "-p", "coredump",
			 "no-such-user-here"));
	snprintf(want, sizeof(want), "umhcap: user: nothing was written%s\n",
		 under);
	ASSERT_HAS(res.err, want);
	read_only(self->root, UMH "/uevent/inheritable");
	ASSERT_EQ(3, RUN(self->root, "keep", "-p", "coredump,uevent", "none"));
	snprintf(want, sizeof(want), "umhcap: keep stopped at uevent, after writing to: coredump uevent (in part); the purposes after uevent were not narrowed%s\n",
		 under);
	ASSERT_HAS(res.err, want);

	/* From the environment: said so; a trailing slash is no other root. */
	snprintf(want, sizeof(want), "%s/", self->root);
	setenv("UMHCAP_ROOT", want, 1);
	ASSERT_EQ(0, run_argv(self->root, false, (const char *[]){
		"drop", "-n", "-p", "power", "none", NULL }));
	snprintf(want, sizeof(want), "/power/bset (all except cap_kill) under root %s (UMHCAP_ROOT)\n",
		 self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(2, count_of(res.out, " (UMHCAP_ROOT)\n"));

	/* Under / nothing is named; --root wins over UMHCAP_ROOT. */
	ASSERT_EQ(2, run_argv(NULL, false, (const char *[]){
		"--root", "/", "user", "-p", "coredump", "no-such-user-here",
		NULL }));
	ASSERT_HAS(res.err, "umhcap: user: nothing was written\n");
	ASSERT_LACKS(res.err, "under root");
	unsetenv("UMHCAP_ROOT");
	ASSERT_EQ(2, run_argv(NULL, false, (const char *[]){
		"--root", "//", "user", "-p", "coredump", "no-such-user-here",
		NULL }));
	ASSERT_HAS(res.err, "umhcap: user: nothing was written\n");

	/* As the help says. */
	ASSERT_EQ(0, RUN(self->root, "--help"));
	ASSERT_HAS(res.out, "(env UMHCAP_ROOT); each\n"
			    "                  line about a write names it\n");
	ASSERT_EQ(0, RUN(self->root, "keep", "--help"));
	ASSERT_HAS(res.out, "\nUnder a root other than / (--root DIR, or UMHCAP_ROOT), each line\n");
}

/*
 * Every command that writes takes -n and --dry-run alike: each file and
 * value it would write, one line each, and nothing written.
 */
TEST_F(umh, dry_run_everywhere)
{
	static const char *const runs[][6] = {
		{ "drop", "-p", "coredump,power", "kill,chown" },
		{ "keep", "-p", "all,uevent", "none" },
		{ "user", "-p", "coredump,power", "1:2" },
		{ "learn", "--apply", "--include-idle" },
	};
	static const int files[] = { 4, 4, 4, 16 };
	char *before, *after, *shorts;
	size_t i;

	learn_scene(self->root);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		const char *argv[8] = { runs[i][0], "-n" };
		int n;

		for (n = 1; runs[i][n]; n++)
			argv[n + 1] = runs[i][n];
		ASSERT_EQ(0, run_argv(self->root, true, argv)) TH_LOG("%s", res.err);
		shorts = strdup(res.out);
		argv[1] = "--dry-run";
		ASSERT_EQ(0, run_argv(self->root, true, argv));
		EXPECT_STREQ(shorts, res.out);
		EXPECT_EQ(files[i], count_of(res.out, "would write \""))
			TH_LOG("%s: %s", runs[i][0], res.out);
		EXPECT_EQ(files[i], count_of(res.out, self->root))
			TH_LOG("%s: %s", runs[i][0], res.out);
		EXPECT_STREQ("", res.err);
		free(shorts);
	}
	ASSERT_HAS(res.out, "/" UMH "/other/inheritable (none)\n");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * boot writes what export --learned --cmdline prints, to the byte: a
 * purpose whose bounds are both open is left out (the global bound and
 * the idle purposes here), and an open bound beside a narrowed one is
 * all 64 bits.
 */
TEST_F(umh, boot_leaves_open_purposes_out)
{
	static const char params[] =
		"usermodehelper.bset=modprobe:0x10000,coredump:0x3,"
		"power:0xffffffffffffffff usermodehelper.inheritable="
		"modprobe:0x10000,coredump:0x3,power:0x400000";
	char want[4096];

	learn_scene(self->root);
	/* Idle, and narrowed by hand: its open bset kept as all 64 bits. */
	set_bound(self->root, "power", full(), B(CAP_SYS_BOOT));
	ASSERT_STREQ(params, learned_params(self->root, _metadata));
	ASSERT_STREQ("", res.err);
	ASSERT_EQ(0, RUN(self->root, "boot", "--grub"));
	ASSERT_STREQ("", res.err);
	snprintf(want, sizeof(want), "quiet %s", params);
	ASSERT_STREQ(want, grub_sourced(self->root, GRUB_CFG));
	snprintf(want, sizeof(want), "\nGRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX %s\"\n",
		 params);
	ASSERT_HAS(get(self->root, GRUB_CFG), want);
	snprintf(want, sizeof(want), ":\n  %s\nnext: run update-grub", params);
	ASSERT_HAS(res.out, want);
	put(self->root, KI_CMDLINE, "ro usermodehelper.bset=all:0\n");
	ASSERT_EQ(0, RUN(self->root, "boot", "--kernel-install"));
	ASSERT_STREQ("", res.err);
	snprintf(want, sizeof(want), "ro %s\n", params);
	ASSERT_STREQ(want, get(self->root, KI_CMDLINE));
	ASSERT_LACKS(get(self->root, KI_CMDLINE), "all:");
	ASSERT_LACKS(get(self->root, KI_CMDLINE), "uevent:");
}

/*
 * Every bound learned open, here because the helpers that ran used
 * every capability: nothing to narrow, so boot refuses, exit 2, and
 * writes nothing, not even the identities; export says the same in a
 * note.  --include-idle narrows the idle purposes, and then it writes.
 */
TEST_F(umh, boot_refuses_when_every_bound_is_open)
{
	char *before, *after, want[4096];

	set_record(self->root, NULL, full(), 6);
	set_record(self->root, "modprobe", full(), 4);
	set_record(self->root, "coredump", full(), 2);
	put(self->root, KI_CMDLINE, "ro quiet\n");
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--cmdline"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "umhcap: note: every usermode helper bound is open");
	ASSERT_EQ(2, RUN(self->root, "boot"));
	ASSERT_HAS(res.err, "umhcap: boot: nothing to narrow: every bound learned from this boot only: no other boot saved in ");
	ASSERT_HAS(res.err, " is open (every capability the kernel knows), so the command line would hold no usermodehelper.bset= or usermodehelper.inheritable=; nothing was written\n");
	ASSERT_EQ(1, count_of(res.err, "\n"));
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(2, RUN(self->root, "boot", "--grub"));
	ASSERT_HAS(res.err, "umhcap: boot: nothing to narrow: ");
	ASSERT_EQ(2, RUN(self->root, "boot", "-n"));
	ASSERT_STREQ("", res.out);
	/* Identities alone are no bound to narrow. */
	set_ident(self->root, "coredump", 998, 997);
	free(before);
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--cmdline"));
	ASSERT_STREQ("usermodehelper.gid=coredump:997 usermodehelper.uid=coredump:998\n",
		     res.out);
	ASSERT_EQ(2, RUN(self->root, "boot", "--kernel-install"));
	ASSERT_HAS(res.err, "umhcap: boot: nothing to narrow: ");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	ASSERT_STREQ("ro quiet\n", get(self->root, KI_CMDLINE));
	ASSERT_FALSE(exists(self->root, GRUB_CFG));
	free(before);
	free(after);
	/* --include-idle: the idle purposes narrowed to nothing. */
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--include-idle",
			 "--cmdline"));
	ASSERT_HAS(res.out, "usermodehelper.bset=uevent:0x0,");
	ASSERT_LACKS(res.out, "modprobe:");
	snprintf(want, sizeof(want), "ro quiet %.4000s", res.out);
	ASSERT_EQ(0, RUN(self->root, "boot", "--include-idle"));
	ASSERT_STREQ("", res.err);
	ASSERT_STREQ(want, get(self->root, KI_CMDLINE));
}

/*
 * save and boot name a root other than / in every line about a write,
 * or one that would be, and in "nothing was written", as the other
 * commands that write do; under / they name none.
 */
TEST_F(umh, save_and_boot_name_the_root)
{
	char under[PATH_MAX + 32], want[PATH_MAX * 2 + 512];

	see_root = true;
	snprintf(under, sizeof(under), " under root %s (--root)", self->root);
	learn_scene(self->root);

	/* save, -n and not. */
	ASSERT_EQ(0, RUN(self->root, "save", "-n"));
	snprintf(want, sizeof(want), "\n-n, nothing written: would save boot " THIS_BOOT "'s record (6 helpers started: modprobe 4, coredump 2) to %s/" BOOTS "/" THIS_BOOT "%s\n",
		 self->root, under);
	ASSERT_HAS(res.out, want);
	ASSERT_FALSE(exists(self->root, "var"));
	ASSERT_EQ(0, RUN(self->root, "save"));
	snprintf(want, sizeof(want), "saved boot " THIS_BOOT "'s record (6 helpers started: modprobe 4, coredump 2) to %s/" BOOTS "/" THIS_BOOT "%s\n",
		 self->root, under);
	ASSERT_STREQ(want, res.out);

	/* boot, -n and not, to either loader. */
	ASSERT_EQ(0, RUN(self->root, "boot", "-n", "--kernel-install"));
	snprintf(want, sizeof(want), "\n-n, nothing written: would write the above to %s/" KI_CMDLINE "%s\n",
		 self->root, under);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(1, count_of(res.out, under));
	ASSERT_EQ(0, RUN(self->root, "boot", "--grub"));
	snprintf(want, sizeof(want), "wrote %s/" GRUB_CFG "%s, with the bounds learned from ",
		 self->root, under);
	ASSERT_STARTS(res.out, want);
	ASSERT_EQ(1, count_of(res.out, under));
	ASSERT_EQ(0, RUN(self->root, "boot", "--kernel-install"));
	snprintf(want, sizeof(want), "wrote %s/" KI_CMDLINE "%s (made from %s/proc/cmdline",
		 self->root, under, self->root);
	ASSERT_STARTS(res.out, want);

	/* Nothing written. */
	rm_file(self->root, UMH "/used");
	ASSERT_EQ(2, RUN(self->root, "save"));
	snprintf(want, sizeof(want), "umhcap: save: nothing was written%s\n", under);
	ASSERT_HAS(res.err, want);
	ASSERT_EQ(2, RUN(self->root, "boot"));
	snprintf(want, sizeof(want), "umhcap: boot: nothing was written%s\n", under);
	ASSERT_HAS(res.err, want);
	set_record(self->root, NULL, 0, 0);
	set_record(self->root, "modprobe", 0, 0);
	set_record(self->root, "coredump", 0, 0);
	ASSERT_EQ(2, RUN(self->root, "boot"));
	snprintf(want, sizeof(want), ": no helper started; let the machine run with open bounds, save its boots, and try again; nothing was written%s\n",
		 under);
	ASSERT_HAS(res.err, want);

	/* From the environment: said so. */
	learn_scene(self->root);
	setenv("UMHCAP_ROOT", self->root, 1);
	ASSERT_EQ(0, run_argv(self->root, false, (const char *[]){
		"save", "--dry-run", NULL }));
	snprintf(want, sizeof(want), "/" THIS_BOOT " under root %s (UMHCAP_ROOT)\n",
		 self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(0, run_argv(self->root, false, (const char *[]){
		"boot", "--dry-run", NULL }));
	snprintf(want, sizeof(want), "/" KI_CMDLINE " under root %s (UMHCAP_ROOT)\n",
		 self->root);
	ASSERT_HAS(res.out, want);
	unsetenv("UMHCAP_ROOT");
}

/* save and boot take -n and --dry-run alike, and write nothing. */
TEST_F(umh, save_and_boot_dry_run_alike)
{
	static const char *const cmds[][3] = {
		{ "save" }, { "boot", "--kernel-install" }, { "boot", "--grub" },
	};
	char *before, *after, *shorts;
	size_t i;

	learn_scene(self->root);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		const char *argv[5] = { cmds[i][0], "-n", cmds[i][1] };

		ASSERT_EQ(0, run_argv(self->root, true, argv)) TH_LOG("%s", res.err);
		ASSERT_STREQ("", res.err);
		ASSERT_HAS(res.out, "\n-n, nothing written: would ");
		shorts = strdup(res.out);
		argv[1] = "--dry-run";
		ASSERT_EQ(0, run_argv(self->root, true, argv));
		ASSERT_STREQ("", res.err);
		/* The same, but for the time in a line of its own. */
		ASSERT_EQ(count_of(shorts, "\n"), count_of(res.out, "\n"));
		ASSERT_STREQ(strstr(shorts, "\n-n, nothing written: "),
			     strstr(res.out, "\n-n, nothing written: "));
		free(shorts);
	}
	ASSERT_EQ(0, RUN(self->root, "save", "--help"));
	ASSERT_HAS(res.out, "usage: umhcap save [-n] [--state-dir DIR]\n");
	ASSERT_HAS(res.out, "-n, --dry-run");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * boot --kernel-install with no command line to start from: neither
 * /etc/kernel/cmdline, nor /usr/lib/kernel/cmdline, nor /proc/cmdline.
 * An error naming them, exit 2, and nothing written.
 */
TEST_F(umh, boot_kernel_install_without_a_cmdline)
{
	char *before, *after, want[3 * PATH_MAX];

	learn_scene(self->root);
	rm_file(self->root, "proc/cmdline");
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "boot", "--kernel-install"));
	snprintf(want, sizeof(want), "umhcap: no command line to make %s/" KI_CMDLINE " from: neither it, nor %s/usr/lib/kernel/cmdline, nor %s/proc/cmdline is there\n"
		 "umhcap: boot: nothing was written\n",
		 self->root, self->root, self->root);
	ASSERT_STREQ(want, res.err);
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(2, RUN(self->root, "boot", "-n", "--kernel-install"));
	ASSERT_STREQ(want, res.err);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	/* A NUL byte: refused as well. */
	put(self->root, "proc/cmdline", "root=/dev/vda%c quiet\n", 0);
	ASSERT_EQ(2, RUN(self->root, "boot", "--kernel-install"));
	ASSERT_HAS(res.err, "/proc/cmdline: a NUL byte in it\n");
	ASSERT_FALSE(exists(self->root, KI_CMDLINE));
}

/*
 * The unit umhcap.8 quotes for save: the package's
 * umhcap-save.service to the byte where the tree holds it, and in any
 * case a oneshot that saves as it stops, only on a kernel with the
 * record, and before /var is unmounted.
 */
TEST_F(umh, man_quotes_the_save_unit)
{
	static const char *const lines[] = {
		"[Unit]\n", "\nConditionPathExists=/proc/sys/kernel/usermodehelper/used\n",
		"\nAfter=local-fs.target\n", "\n[Service]\nType=oneshot\n",
		"\nRemainAfterExit=yes\n", "\nExecStart=/bin/true\n",
		"\nExecStop=/usr/sbin/umhcap save\n", "\nStateDirectory=umhcap\n",
		"\n[Install]\nWantedBy=multi-user.target\n",
	};
	char *man, *unit, *quoted, *s, *e;
	size_t i, n = 0;

	man = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, man);
	s = strstr(man, "\n.IR /lib/systemd/system/umhcap\\-save.service :\n.RS\n.IP\n.EX\n");
	ASSERT_NE(NULL, s);
	s = strstr(s, ".EX\n") + 4;
	e = strstr(s, ".EE\n");
	ASSERT_NE(NULL, e);
	quoted = calloc(1, e - s + 1);
	ASSERT_NE(NULL, quoted);
	/* As printed: the escapes the quote uses. */
	while (s < e) {
		if (!strncmp(s, "\\-", 2)) {
			quoted[n++] = '-';
			s += 2;
		} else if (!strncmp(s, "\\e", 2)) {
			quoted[n++] = '\\';
			s += 2;
		} else if (!strncmp(s, "\\&", 2)) {
			s += 2;
		} else {
			ASSERT_NE('\\', *s) TH_LOG("an escape in the quoted unit: %.8s", s);
			quoted[n++] = *s++;
		}
	}
	for (i = 0; i < ARRAY_SIZE(lines); i++)
		ASSERT_HAS(quoted, lines[i]);
	unit = slurp_file(src_path("umhcap-save.service"));
	if (unit)
		ASSERT_STREQ(unit, quoted);
	free(unit);
	free(quoted);
	free(man);
}

/* ---- check --json ---- */

/* Is @s valid UTF-8 (RFC 3629)? */
static bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n, i;

	for (; *p; p += n) {
		n = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2 :
		    *p >= 0xe0 && *p <= 0xef ? 3 : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
		if (!n)
			return false;
		for (i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return false;
		if ((*p == 0xe0 && p[1] < 0xa0) || (*p == 0xed && p[1] > 0x9f) ||
		    (*p == 0xf0 && p[1] < 0x90) || (*p == 0xf4 && p[1] > 0x8f))
			return false;
	}
	return true;
}

/*
 * check and check --json on the same tree: the same exit status, and
 * each finding of the text a "text" of the JSON, in order, as many.
 */
static void same_findings(struct __test_metadata *_metadata,
			  const char *root, int code)
{
	char text[sizeof(res.out)], want[sizeof(res.out) + 32], *line, *end;
	const char *at;
	int n = 0;
	size_t i;

	ASSERT_EQ(code, RUN(root, "check"));
	memcpy(text, res.out, sizeof(text));
	ASSERT_EQ(code, RUN(root, "check", "--json"));
	ASSERT_JSON(res.out);
	ASSERT_TRUE(utf8_valid(res.out));
	ASSERT_EQ(0, strncmp(res.out, "{\"version\":1,\"per_purpose\":", 27));
	at = res.out;
	for (line = text; *line; line = end + 1) {
		end = strchr(line, '\n');
		*end = '\0';
		if (!strncmp(line, "note: ", 6)) {
			snprintf(want, sizeof(want), "\n    \"%s\"", line + 6);
			ASSERT_HAS(strstr(res.out, "\"notes\":["), want);
			continue;
		}
		if (!strcmp(line, "no findings") || strstr(line, " finding"))
			continue;
		n++;
		/* Escaped as JSON: bytes beyond " and \\, check_json's. */
		if (line[strspn(line, " !#$%&'()*+,-./0123456789:;<=>?@"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`"
				"abcdefghijklmnopqrstuvwxyz{|}~\"\\")])
			continue;
		for (i = 0, end = want + sprintf(want, ",\"text\":\""); line[i]; i++)
			end += sprintf(end, "%s%c", strchr("\"\\", line[i]) ? "\\" : "",
				       line[i]);
		strcpy(end, "\"}");
		end = line + strlen(line);
		at = strstr(at, want);
		ASSERT_NE(NULL, at) TH_LOG("missing, or out of order: %s", want);
	}
	snprintf(want, sizeof(want), "\n  ],\"count\":%d\n}\n", n);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(n, count_of(res.out, "{\"kind\":"));
	ASSERT_EQ(0, RUN(root, "--json", "check") == code ? 0 : 1);
	ASSERT_JSON(res.out);
}

TEST_F(umh, check_json)
{
	uint64_t m = B(CAP_SYS_MODULE);

	/* Open: every purpose a finding; hardened: none, exit 0. */
	same_findings(_metadata, self->root, 1);
	ASSERT_HAS(res.out, "{\"kind\":\"ceiling\",\"purpose\":\"modprobe\",\"mask\":\"0x");
	ASSERT_HAS(res.out, "\"per_purpose\":true,\"record\":true,");
	harden(self->root);
	same_findings(_metadata, self->root, 0);
	ASSERT_HAS(res.out, "\"findings\":[\n  ],\"notes\":[\n  ],\"count\":0\n}\n");

	/* One bit too wide; bset and inheritable that disagree. */
	set_bound(self->root, "modprobe", m | B(CAP_KILL), m);
	same_findings(_metadata, self->root, 1);
	ASSERT_HAS(res.out, "{\"kind\":\"ceiling\",\"purpose\":\"modprobe\",\"mask\":\"0x20\",\"mask_caps\":[\"cap_kill\"],\"text\":\"modprobe: ceiling exceeds what ");
	ASSERT_HAS(res.out, "{\"kind\":\"disagree\",\"purpose\":\"modprobe\",\"mask\":\"0x20\",\"mask_caps\":[\"cap_kill\"],\"text\":\"modprobe: bset and inheritable disagree: only in bset: cap_kill\"}");

	/* The record: unused and refused. */
	harden(self->root);
	set_record(self->root, "modprobe", B(CAP_SYS_MODULE), 3);
	set_bound(self->root, "modprobe", 0, 0);
	same_findings(_metadata, self->root, 1);
	ASSERT_HAS(res.out, "{\"kind\":\"refused\",\"purpose\":\"modprobe\",\"mask\":\"0x10000\",\"mask_caps\":[\"cap_sys_module\"],");

	/* The command line; what it holds escaped, and valid UTF-8. */
	harden(self->root);
	put(self->root, "proc/cmdline",
	    "usermodehelper.bset=all:0x1ff,modprobe:0xzz,nocolon,,"
	    "coredump:z\001\\\377\303\251\n");
	same_findings(_metadata, self->root, 1);
	ASSERT_HAS(res.out, "{\"kind\":\"cmdline\",\"purpose\":\"modprobe\",\"mask\":\"0x0\",\"mask_caps\":[],\"text\":\"cmdline: usermodehelper.bset: bad hex mask \\\"0xzz\\\" in item \\\"modprobe:0xzz\\\": modprobe's bset is bounded to nothing\"}");
	ASSERT_HAS(res.out, "{\"kind\":\"cmdline\",\"purpose\":\"all\",\"mask\":\"0x0\",\"mask_caps\":[],\"text\":\"cmdline: usermodehelper.bset: empty item: ");
	ASSERT_HAS(res.out, "bad hex mask \\\"z\\u0001\\\\\\ufffd\303\251\\\" in item");
	ASSERT_HAS(res.out, "\"count\":4\n}\n");

	/* Notes: no record; no per-purpose bounds. */
	put(self->root, "proc/cmdline", "quiet\n");
	rm_file(self->root, UMH "/used");
	same_findings(_metadata, self->root, 0);
	ASSERT_HAS(res.out, "\"record\":false,");
	ASSERT_HAS(res.out, "\"notes\":[\n    \"this kernel keeps no record of what helpers use (no ");
	unpatch(self->root);
	set_bound(self->root, NULL, umh_measured_union(), umh_measured_union());
	same_findings(_metadata, self->root, 0);
	ASSERT_HAS(res.out, "\"per_purpose\":false,");
	ASSERT_HAS(res.out, "\n    \"per-purpose bounds are not available on this kernel; ");

	/* An error: exit 2, and nothing on stdout. */
	rm_file(self->root, "proc/cmdline");
	ASSERT_EQ(2, RUN(self->root, "check", "--json"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "/proc/cmdline: No such file or directory");

	/* As its help says. */
	ASSERT_EQ(0, RUN(self->root, "check", "--help"));
	ASSERT_HAS(res.out, "usage: umhcap check [--json]\n");
	ASSERT_HAS(res.out, "With --json, the same\nfindings and notes as one JSON object, and the same exit status.");
	ASSERT_HAS(res.out, "\n  --json              machine-readable output\n");
}

