// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests for umhcap. Every test builds a fake root in a temporary
 * directory and runs the binary with --root; nothing touches the host's
 * /proc/sys, /sys or tracefs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define B(cap)		(1ULL << (cap))
#define UMH		"proc/sys/kernel/usermodehelper"
#define TFS		"sys/kernel/tracing"
#define INST		TFS "/instances/umhcap"

static const char *const purposes[] = {
	"modprobe", "coredump", "uevent", "request_key", "release_agent",
	"power", "initrd", "other",
};
#define NR_PURPOSES	(sizeof(purposes) / sizeof(purposes[0]))

struct result {
	int code;
	char out[1 << 16];
	char err[1 << 14];
};

static struct result res;

static uint64_t full(void)
{
	int n = cap_max_bits();

	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

/* The policy table, restated independently of check.c. */
static uint64_t policy(const char *p)
{
	if (!strcmp(p, "modprobe"))
		return B(CAP_SYS_MODULE);
	if (!strcmp(p, "coredump"))
		return B(CAP_CHOWN) | B(CAP_DAC_OVERRIDE) | B(CAP_FOWNER) |
		       B(CAP_SETGID) | B(CAP_SETUID);
	if (!strcmp(p, "uevent"))
		return B(CAP_CHOWN) | B(CAP_DAC_OVERRIDE) | B(CAP_FOWNER) |
		       B(CAP_MKNOD) | B(CAP_SYS_MODULE);
	if (!strcmp(p, "request_key"))
		return B(CAP_DAC_OVERRIDE) | B(CAP_SETGID) | B(CAP_SETUID);
	if (!strcmp(p, "release_agent"))
		return 0;
	if (!strcmp(p, "power"))
		return B(CAP_KILL) | B(CAP_SYS_ADMIN) | B(CAP_SYS_BOOT);
	return full();
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

	for (i = 0; i < NR_PURPOSES; i++) {
		snprintf(path, sizeof(path), "%s/" UMH "/%s", root,
			 purposes[i]);
		if (strncmp(path, "/tmp/umhcap-test.", 17))
			abort();
		nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	}
}

/* Every purpose bounded to its policy: check must be clean. */
static void harden(const char *root)
{
	size_t i;

	set_bound(root, NULL, full(), full());
	for (i = 0; i < NR_PURPOSES; i++)
		set_bound(root, purposes[i], policy(purposes[i]),
			  policy(purposes[i]));
}

static void slurp(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n < 0 ? 0 : n] = '\0';
	close(fd);
}

/* Run umhcap with args; with_root adds "--root ROOT" in front. */
static int run_argv(const char *root, bool with_root, const char *args[])
{
	const char *bin = getenv("UMHCAP_BIN") ?: "./umhcap";
	const char *argv[64] = { bin };
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
		execv(bin, (char **)argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	slurp(out, res.out, sizeof(res.out));
	slurp(err, res.err, sizeof(res.err));
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

FIXTURE(umh) {
	char root[64];
};

FIXTURE_SETUP(umh)
{
	size_t i;

	strcpy(self->root, "/tmp/umhcap-test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	set_bound(self->root, NULL, full(), full());
	for (i = 0; i < NR_PURPOSES; i++)
		set_bound(self->root, purposes[i], full(), full());
	put(self->root, "proc/cmdline",
	    "BOOT_IMAGE=/vmlinuz root=/dev/vda console=ttyS0\n");
	put(self->root, TFS "/events/umh/umh_exec/enable", "0\n");
	put(self->root, INST "/events/umh/umh_exec/enable", "0\n");
	put(self->root, INST "/trace_pipe", "");
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
			 "cap_bogus", "cap_kill,cap_chown"));
	ASSERT_HAS(res.err, "unknown capability \"cap_bogus\"");
	ASSERT_HAS(res.err, "unknown capability \"cap_kill,cap_chown\"");
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
	ASSERT_STREQ(kernel_fmt(full()),
		     get(self->root, UMH "/modprobe/inheritable"));
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
	size_t i;
	int n;

	set_bound(self->root, NULL, g, g);
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	n = snprintf(want, sizeof(want),
		     "kernel.usermodehelper.bset = %u\t%u\n"
		     "kernel.usermodehelper.inheritable = %u\t%u\n"
		     "kernel.usermodehelper.modprobe.bset = 65536\t0\n"
		     "kernel.usermodehelper.modprobe.inheritable = 0\t0\n",
		     (uint32_t)g, (uint32_t)(g >> 32),
		     (uint32_t)g, (uint32_t)(g >> 32));
	for (i = 1; i < NR_PURPOSES; i++)
		n += snprintf(want + n, sizeof(want) - n,
			      "kernel.usermodehelper.%s.bset = %u\t%u\n"
			      "kernel.usermodehelper.%s.inheritable = %u\t%u\n",
			      purposes[i], (uint32_t)full(),
			      (uint32_t)(full() >> 32), purposes[i],
			      (uint32_t)full(), (uint32_t)(full() >> 32));
	ASSERT_STREQ(want, res.out);
	expect_sysctl(_metadata, res.out, "kernel.usermodehelper.bset", g);
}

TEST_F(umh, export_cmdline)
{
	char want[2048], f[32];
	size_t i;
	int n;

	snprintf(f, sizeof(f), "0x%" PRIx64, full());
	harden(self->root);
	set_bound(self->root, "other", full(), 0);
	ASSERT_EQ(0, RUN(self->root, "export", "--cmdline"));
	n = snprintf(want, sizeof(want), "usermodehelper.bset=all:%s", f);
	for (i = 0; i < NR_PURPOSES; i++)
		n += snprintf(want + n, sizeof(want) - n, ",%s:0x%" PRIx64,
			      purposes[i], policy(purposes[i]));
	n += snprintf(want + n, sizeof(want) - n,
		      " usermodehelper.inheritable=all:%s", f);
	for (i = 0; i < NR_PURPOSES; i++)
		n += snprintf(want + n, sizeof(want) - n, ",%s:0x%" PRIx64,
			      purposes[i], i == NR_PURPOSES - 1 ? 0 :
			      policy(purposes[i]));
	snprintf(want + n, sizeof(want) - n, "\n");
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.out, ",modprobe:0x10000,");
	ASSERT_HAS(res.out, ",release_agent:0x0,");
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

/* ---- check ---- */

TEST_F(umh, check_clean)
{
	harden(self->root);
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
}

TEST_F(umh, check_excess_caps)
{
	uint64_t m = policy("coredump") | B(CAP_SYS_ADMIN) | B(CAP_NET_RAW);

	harden(self->root);
	set_bound(self->root, "coredump", m, m);
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "coredump: ceiling exceeds policy (cap_chown, cap_dac_override, cap_fowner, cap_setgid, cap_setuid) by: cap_net_raw, cap_sys_admin\n");
	ASSERT_HAS(res.out, "1 finding\n");
}

TEST_F(umh, check_release_agent_any_cap)
{
	harden(self->root);
	set_bound(self->root, "release_agent", B(CAP_KILL), B(CAP_KILL));
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "release_agent: ceiling exceeds policy (none) by: cap_kill\n");
}

TEST_F(umh, check_global_bound_limits_ceiling)
{
	size_t i;

	/* All purposes open, but the global bound keeps only sys_module. */
	set_bound(self->root, NULL, B(CAP_SYS_MODULE), B(CAP_SYS_MODULE));
	for (i = 0; i < NR_PURPOSES; i++)
		set_bound(self->root, purposes[i], full(), full());
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "coredump: ceiling exceeds policy");
	ASSERT_HAS(res.out, "request_key: ceiling exceeds policy");
	ASSERT_HAS(res.out, "release_agent: ceiling exceeds policy (none) by: cap_sys_module\n");
	ASSERT_HAS(res.out, "power: ceiling exceeds policy");
	ASSERT_LACKS(res.out, "modprobe:");
	ASSERT_LACKS(res.out, "uevent:");
	ASSERT_HAS(res.out, "4 findings\n");
}

TEST_F(umh, check_disagree)
{
	harden(self->root);
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	set_bound(self->root, NULL, full(), full() & ~B(CAP_SYSLOG));
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "modprobe: bset and inheritable disagree: only in bset: cap_sys_module\n");
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
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: unknown purpose \"foo\" in item \"foo:0x1\"\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: bad hex mask \"0xzz\" in item \"modprobe:0xzz\"\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: missing colon in item \"nocolon\"\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: empty item\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.inheritable: empty item\n");
	ASSERT_HAS(res.out, "5 findings\n");
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

TEST_F(umh, check_unpatched)
{
	unpatch(self->root);
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "per-purpose bounds are not available");
	set_bound(self->root, NULL, full(), 0);
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "all: bset and inheritable disagree: only in bset: all\n");
}

TEST_F(umh, check_missing_cmdline)
{
	harden(self->root);
	rm_file(self->root, "proc/cmdline");
	ASSERT_EQ(2, RUN(self->root, "check"));
	ASSERT_HAS(res.err, "/proc/cmdline: No such file or directory");
}

/* ---- trace ---- */

#define EV_MODPROBE \
	"        modprobe-57      [000] .....    12.345678: umh_exec: " \
	"purpose=modprobe path=/sbin/modprobe argv=\"-q -- fs-nosuchfs\" " \
	"trigger_pid=123 trigger_comm=mount trigger_uid=0 " \
	"bset=0x000001ffffffffff inheritable=0x0000000000000000 ret=0\n"
#define EV_COREDUMP \
	"           <...>-60      [001] d....    13.000001: umh_exec: " \
	"purpose=coredump path=/usr/lib/core handler " \
	"argv=\"a b trigger_pid=9 c\" trigger_pid=77 trigger_comm=my prog " \
	"trigger_uid=1000 bset=0x0000000000010000 " \
	"inheritable=0x0000000000000001 ret=-2\n"
#define EV_OTHER \
	"           <...>-61      [001] d....    14.000001: umh_exec: " \
	"purpose=other path=/bin/x argv=\"\" trigger_pid=1 " \
	"trigger_comm=init trigger_uid=0 bset=0x0 inheritable=0x0 ret=-8\n"

TEST_F(umh, trace_basic)
{
	put(self->root, INST "/trace_pipe", EV_MODPROBE);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("12.345678 modprobe: /sbin/modprobe -q -- fs-nosuchfs "
		     "(trigger pid=123 comm=mount uid=0) caps: all; "
		     "result: ok\n", res.out);
	ASSERT_STREQ("0", get(self->root, INST "/events/umh/umh_exec/enable"));
}

TEST_F(umh, trace_errno_inheritable_spaces)
{
	put(self->root, INST "/trace_pipe", EV_COREDUMP EV_OTHER);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("13.000001 coredump: /usr/lib/core handler "
		     "a b trigger_pid=9 c (trigger pid=77 comm=my prog "
		     "uid=1000) caps: cap_sys_module; inheritable: cap_chown; "
		     "result: ENOENT\n"
		     "14.000001 other: /bin/x (trigger pid=1 comm=init uid=0) "
		     "caps: none; result: ENOEXEC\n", res.out);
}

TEST_F(umh, trace_count)
{
	put(self->root, INST "/trace_pipe",
	    EV_MODPROBE EV_COREDUMP EV_OTHER);
	ASSERT_EQ(0, RUN(self->root, "trace", "--count", "2"));
	ASSERT_HAS(res.out, "12.345678 modprobe:");
	ASSERT_HAS(res.out, "13.000001 coredump:");
	ASSERT_LACKS(res.out, "14.000001");
	ASSERT_EQ(2, RUN(self->root, "trace", "--count", "0"));
	ASSERT_HAS(res.err, "give a positive number");
}

TEST_F(umh, trace_hex)
{
	put(self->root, INST "/trace_pipe", EV_MODPROBE);
	ASSERT_EQ(0, RUN(self->root, "-x", "trace", "--count", "1"));
	ASSERT_HAS(res.out, "caps: all [0x1ffffffffff]; result: ok\n");
}

TEST_F(umh, trace_skips_noise)
{
	put(self->root, INST "/trace_pipe",
	    "# tracer: nop\n"
	    "CPU:1 [LOST 3 EVENTS]\n"
	    "   bash-1 [000] ..... 1.0: sched_switch: prev=a\n"
	    "   x-2 [000] ..... 2.0: umh_exec: purpose=modprobe garbage\n"
	    EV_OTHER);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("14.000001 other: /bin/x (trigger pid=1 comm=init uid=0) "
		     "caps: none; result: ENOEXEC\n", res.out);
	ASSERT_HAS(res.err, "cannot parse umh_exec event at 2.0");
}

TEST_F(umh, trace_bad_count)
{
	ASSERT_EQ(2, RUN(self->root, "trace", "--count", "x"));
	ASSERT_HAS(res.err, "bad --count");
	ASSERT_STREQ("0\n", get(self->root, INST "/events/umh/umh_exec/enable"));
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
	/* Nothing enabled. */
	ASSERT_STREQ("0\n", get(self->root, INST "/events/umh/umh_exec/enable"));
}

TEST_F(umh, trace_debugfs_fallback)
{
	char from[PATH_MAX], to[PATH_MAX];

	snprintf(from, sizeof(from), "%s/" TFS, self->root);
	snprintf(to, sizeof(to), "%s/sys/kernel/debug", self->root);
	mkdir_p(to);
	strcat(to, "/tracing");
	ASSERT_EQ(0, rename(from, to));
	put(self->root, "sys/kernel/debug/tracing/instances/umhcap/trace_pipe",
	    EV_MODPROBE);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_HAS(res.out, "12.345678 modprobe:");
	ASSERT_STREQ("0", get(self->root, "sys/kernel/debug/tracing/instances/"
			      "umhcap/events/umh/umh_exec/enable"));
}

TEST_F(umh, trace_removes_created_instance)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" INST, self->root);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ASSERT_FALSE(exists(self->root, INST));
	/* A plain directory has no enable file: fail, and clean up. */
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "cannot write 1 to ");
	ASSERT_FALSE(exists(self->root, INST));
	ASSERT_TRUE(exists(self->root, TFS "/instances"));
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

TEST_F(umh, trace_sigterm_cleans_up)
{
	const char *bin = getenv("UMHCAP_BIN") ?: "./umhcap";
	char fifo[PATH_MAX];
	int out = fileno(tmpfile()), w, status;
	pid_t pid;

	snprintf(fifo, sizeof(fifo), "%s/" INST "/trace_pipe", self->root);
	unlink(fifo);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		dup2(out, 1);
		execl(bin, bin, "--root", self->root, "trace", (char *)NULL);
		_exit(127);
	}
	w = open(fifo, O_WRONLY);
	ASSERT_LE(0, w);
	ASSERT_STREQ("1", get(self->root, INST "/events/umh/umh_exec/enable"));
	ASSERT_EQ((ssize_t)strlen(EV_MODPROBE),
		  write(w, EV_MODPROBE, strlen(EV_MODPROBE)));
	ASSERT_TRUE(wait_for_output(out, 5000));
	ASSERT_EQ(0, kill(pid, SIGTERM));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(w);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	slurp(out, res.out, sizeof(res.out));
	ASSERT_HAS(res.out, "12.345678 modprobe: /sbin/modprobe");
	ASSERT_STREQ("0", get(self->root, INST "/events/umh/umh_exec/enable"));
}

TEST_F(umh, trace_epipe_cleans_up)
{
	const char *bin = getenv("UMHCAP_BIN") ?: "./umhcap";
	int p[2], status;
	pid_t pid;

	put(self->root, INST "/trace_pipe", EV_MODPROBE EV_OTHER);
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
	ASSERT_STREQ("0", get(self->root, INST "/events/umh/umh_exec/enable"));
}

/* ---- misc ---- */

TEST_F(umh, help_and_version)
{
	ASSERT_EQ(0, RUN(self->root, "--help"));
	ASSERT_HAS(res.out, "usage: umhcap");
	ASSERT_HAS(res.out, "export --sysctl|--cmdline");
	ASSERT_EQ(0, RUN(self->root, "--version"));
	ASSERT_HAS(res.out, "umhcap 0.");
}

TEST_F(umh, unknown_command)
{
	ASSERT_EQ(2, RUN(self->root, "frobnicate"));
	ASSERT_HAS(res.err, "umhcap: unknown command \"frobnicate\"");
}

TEST_HARNESS_MAIN
