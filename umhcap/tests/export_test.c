// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap export (export.c, cmdline.c).
 */
#include "common.h"

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
			    "stderr.  With -o, the sysctl.conf lines go to FILE instead, after a\n"
			    "comment that says what wrote them, when and from what: written whole to\n"
			    "a new file, then renamed over FILE, so that on any error FILE is left\n"
			    "as it was.  With --learned --from, the bounds learned from other\n"
			    "machines' saved boots (see learn), for them.  With --json, one object:\n"
			    "each purpose given, its bounds and ids, and the text of both formats.\n");
}

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
	char want[1024];
	const char *p;
	size_t i;
	int n;

	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--cmdline"));
	/* The global bound and the idle purposes, open, are left out. */
	ASSERT_STREQ("usermodehelper.bset=modprobe:0x10000,coredump:0x3 "
		     "usermodehelper.inheritable=modprobe:0x10000,coredump:0x3\n",
		     res.out);

	/*
	 * --include-idle: idle purposes get what they used, nothing here:
	 * every purpose, in order, modprobe and coredump as before.
	 */
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--include-idle",
			 "--cmdline"));
	n = snprintf(want, sizeof(want), "usermodehelper.bset=");
	for (i = 0; i < 2 * NR_PURPOSES; i++) {
		p = purposes[i % NR_PURPOSES];
		if (i == NR_PURPOSES)
			n += snprintf(want + n, sizeof(want) - n,
				      " usermodehelper.inheritable=");
		n += snprintf(want + n, sizeof(want) - n, "%s%s:0x%s",
			      i % NR_PURPOSES ? "," : "", p,
			      !strcmp(p, "modprobe") ? "10000" :
			      !strcmp(p, "coredump") ? "3" : "0");
	}
	snprintf(want + n, sizeof(want) - n, "\n");
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.out, "=modprobe:0x10000,coredump:0x3,");
}

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

#define SYSCTL_CONF	"etc/sysctl.d/50-umhcap.conf"

/* The names in ROOT/etc/sysctl.d and what SYSCTL_CONF holds, into @buf */
static void conf_state(const char *root, char *buf, size_t size)
{
	char dir[PATH_MAX];
	struct dirent *e;
	size_t len;
	DIR *d;

	len = snprintf(buf, size, "%s|", get(root, SYSCTL_CONF));
	snprintf(dir, sizeof(dir), "%s/etc/sysctl.d", root);
	d = opendir(dir);
	while (d && (e = readdir(d)) && len < size)
		len += snprintf(buf + len, size - len, "%s;", e->d_name);
	if (d)
		closedir(d);
	snprintf(dir, sizeof(dir), "%s/etc/nowhere", root);
	if (len < size)
		snprintf(buf + len, size - len, "|%d", access(dir, F_OK));
}

/*
 * -o FILE: the lines export prints, under a comment that says what wrote
 * them, when and from what, in FILE under the root, mode 0644.
 */
TEST_F(umh, export_to_file)
{
	char lines[1 << 16], path[PATH_MAX];
	const char *text;
	struct stat st;

	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	snprintf(lines, sizeof(lines), "%s", res.out);
	put(self->root, SYSCTL_CONF, "kernel.usermodehelper.bset = 0\t0\n");
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl", "-o",
			 "/" SYSCTL_CONF));
	ASSERT_STREQ("", res.err);
	ASSERT_HAS(res.out, "wrote /" SYSCTL_CONF ": the bounds as they were at ");
	text = get(self->root, SYSCTL_CONF);
	ASSERT_EQ(0, strncmp(text, "# Written by umhcap export at ", 30));
	ASSERT_HAS(text, "# bounds of usermode helpers as they were at ");
	ASSERT_HAS(text, lines);
	ASSERT_EQ(0, strcmp(text + strlen(text) - strlen(lines), lines));
	snprintf(path, sizeof(path), "%s/" SYSCTL_CONF, self->root);
	ASSERT_EQ(0, stat(path, &st));
	ASSERT_EQ(0644U, st.st_mode & 07777);

	/* Learned, it says from which boots. */
	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--sysctl", "-o",
			 "/" SYSCTL_CONF));
	ASSERT_HAS(get(self->root, SYSCTL_CONF),
		   "# bounds of usermode helpers learned from this boot only");
}

/*
 * An export that fails leaves FILE as it was, where "> FILE" empties it:
 * no record of what helpers use, a directory that cannot take a file.
 */
TEST_F(umh, export_to_file_keeps_it_on_failure)
{
	char before[8192], after[8192];

	learn_scene(self->root);
	rm_file(self->root, UMH "/used");
	put(self->root, SYSCTL_CONF, "kernel.usermodehelper.bset = 0\t0\n");
	conf_state(self->root, before, sizeof(before));
	ASSERT_EQ(2, RUN(self->root, "export", "--learned", "--sysctl", "-o",
			 "/" SYSCTL_CONF));
	ASSERT_HAS(res.err, "keeps no record of what usermode helpers use");
	ASSERT_STREQ("", res.out);
	conf_state(self->root, after, sizeof(after));
	ASSERT_STREQ(before, after);

	/* A missing directory: nothing made, no file left behind. */
	ASSERT_EQ(2, RUN(self->root, "export", "--sysctl", "-o",
			 "/etc/nowhere/50-umhcap.conf"));
	ASSERT_HAS(res.err, "/etc/nowhere/50-umhcap.conf: cannot create a file in ");
	conf_state(self->root, after, sizeof(after));
	ASSERT_STREQ(before, after);
}

/*
 * -o FILE replaces FILE's text, and nothing else: its mode, its owner
 * and group, and a symlink (FILE stays one, and the file it names, in
 * the root, gets the text), as an editor's save keeps them.
 */
TEST_F(umh, export_to_file_keeps_mode_owner_link)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct stat st;

	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	put(self->root, SYSCTL_CONF, "old\n");
	chmod_rel(self->root, SYSCTL_CONF, 0640);
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl", "-o",
			 "/" SYSCTL_CONF));
	ASSERT_EQ(0640, mode_of(self->root, SYSCTL_CONF));
	ASSERT_HAS(get(self->root, SYSCTL_CONF), "modprobe.bset = 65536");
	/* An absolute link, which is the root's: not this machine's /srv. */
	put(self->root, "srv/conf/umhcap.conf", "old\n");
	chmod_rel(self->root, "srv/conf/umhcap.conf", 0600);
	rm_file(self->root, SYSCTL_CONF);
	snprintf(path, sizeof(path), "%s/" SYSCTL_CONF, self->root);
	ASSERT_EQ(0, symlink("/srv/conf/umhcap.conf", path));
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl", "-o",
			 "/" SYSCTL_CONF)) TH_LOG("%s", res.err);
	ASSERT_EQ(0, lstat(path, &st));
	ASSERT_TRUE(S_ISLNK(st.st_mode));
	ASSERT_HAS(get(self->root, "srv/conf/umhcap.conf"), "modprobe.bset = 65536");
	ASSERT_EQ(0600, mode_of(self->root, "srv/conf/umhcap.conf"));
	ASSERT_HAS(res.out, "wrote /" SYSCTL_CONF " (a link to /srv/conf/umhcap.conf)");
	/* A relative one. */
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, symlink("../../srv/conf/umhcap.conf", path));
	put(self->root, "srv/conf/umhcap.conf", "old\n");
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl", "-o",
			 "/" SYSCTL_CONF));
	ASSERT_EQ(0, lstat(path, &st));
	ASSERT_TRUE(S_ISLNK(st.st_mode));
	ASSERT_HAS(get(self->root, "srv/conf/umhcap.conf"), "modprobe.bset = 65536");
	/* Its owner and group, which root can give it. */
	NEEDS_ROOT();
	snprintf(real, sizeof(real), "%s/srv/conf/umhcap.conf", self->root);
	ASSERT_EQ(0, chown(real, 1, 4));
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl", "-o",
			 "/" SYSCTL_CONF));
	ASSERT_EQ(0, stat(real, &st));
	ASSERT_EQ(1U, st.st_uid);
	ASSERT_EQ(4U, st.st_gid);
	ASSERT_EQ(0600U, st.st_mode & 07777);
}

/* -n says what it would write, and writes nothing. */
TEST_F(umh, export_to_file_dry_run)
{
	char before[8192], after[8192];

	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	put(self->root, SYSCTL_CONF, "old\n");
	conf_state(self->root, before, sizeof(before));
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl", "-o",
			 "/" SYSCTL_CONF, "-n"));
	ASSERT_HAS(res.out, "# Written by umhcap export at ");
	ASSERT_HAS(res.out, "kernel.usermodehelper.modprobe.bset = 65536\t0\n");
	ASSERT_HAS(res.out, "-n, nothing written: would write the above to /" SYSCTL_CONF "\n");
	conf_state(self->root, after, sizeof(after));
	ASSERT_STREQ(before, after);
}

/* -o takes an absolute path, and goes with --sysctl; -n goes with -o. */
TEST_F(umh, export_to_file_refuses_bad_use)
{
	char before[8192], after[8192];

	conf_state(self->root, before, sizeof(before));
	ASSERT_EQ(2, RUN(self->root, "export", "--sysctl", "-o", "50-umhcap.conf"));
	ASSERT_HAS(res.err, "bad -o \"50-umhcap.conf\": give an absolute path");
	ASSERT_EQ(2, RUN(self->root, "export", "--cmdline", "-o", "/etc/x"));
	ASSERT_HAS(res.err, "-o goes with --sysctl");
	ASSERT_EQ(2, RUN(self->root, "export", "--sysctl", "-n"));
	ASSERT_HAS(res.err, "-n goes with -o");
	ASSERT_EQ(2, RUN(self->root, "export", "--sysctl", "-o"));
	conf_state(self->root, after, sizeof(after));
	ASSERT_STREQ(before, after);
}

/*
 * --json: each purpose given, with its bounds as given and its ids, and
 * the text of both formats, byte for byte what --sysctl and --cmdline
 * print; alone, as --sysctl, --cmdline and -o print one format each.
 */
TEST_F(umh, export_json)
{
	char *sysctl, *cmdline;

	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	set_ident(self->root, "coredump", 998, 997);
	ASSERT_EQ(0, RUN(self->root, "export", "--sysctl"));
	sysctl = strdup(res.out);
	ASSERT_EQ(0, RUN(self->root, "export", "--cmdline"));
	cmdline = strdup(res.out);
	ASSERT_EQ(0, RUN(self->root, "--json", "export"));
	ASSERT_STREQ("", res.err);
	ASSERT_JSON(res.out);
	ASSERT_EQ(0, strncmp(res.out, "{\"version\":2,\"learned\":false,\"purposes\":[\n",
			     strlen("{\"version\":2,\"learned\":false,\"purposes\":[\n")));
	ASSERT_HAS(res.out, "{\"purpose\":\"modprobe\",\"open\":false,\"bset\":\"0x10000\",\"bset_caps\":[\"cap_sys_module\"],\"inheritable\":\"0x0\",\"inheritable_caps\":[],\"identity\":{\"uid\":0,\"gid\":0}}");
	ASSERT_HAS(res.out, "{\"purpose\":\"coredump\",\"open\":true,");
	ASSERT_HAS(res.out, "\"identity\":{\"uid\":998,\"gid\":997}}");
	/* An open bound given as all 64 bits names only this kernel's. */
	ASSERT_JSON_AT(res.out, "purposes.1.bset", "\"0xffffffffffffffff\"");
	ASSERT_LACKS(res.out, "\"63\"");
	/* Purposes left open, with root's ids, are left out. */
	ASSERT_LACKS(res.out, "\"purpose\":\"uevent\"");
	ASSERT_HAS(res.out, "\"sysctl\":\"kernel.usermodehelper.modprobe.bset = 65536\\u00090\\u000a");
	ASSERT_EQ(1, count_of(res.out, "\"cmdline\":\""));
	ASSERT_HAS(res.out, ",\"note\":null}\n");
	/* Both formats' text, escaped as JSON: the same lines. */
	for (char *line = strtok(sysctl, "\n"); line; line = strtok(NULL, "\n")) {
		char esc[512], *o = esc;

		for (const char *c = line; *c && o < esc + sizeof(esc) - 7; c++) {
			if (*c == '\t') {
				memcpy(o, "\\u0009", 6);
				o += 6;
			} else {
				*o++ = *c;
			}
		}
		*o = '\0';
		ASSERT_HAS(res.out, esc);
	}
	cmdline[strcspn(cmdline, "\n")] = '\0';
	ASSERT_HAS(res.out, cmdline);
	free(sysctl);
	free(cmdline);
	ASSERT_EQ(2, RUN(self->root, "--json", "export", "--sysctl"));
	ASSERT_HAS(res.err, "--json prints both formats");
	ASSERT_STREQ("", res.out);
	/* The learned bounds, as --learned --sysctl gives them. */
	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--sysctl"));
	sysctl = strdup(res.out);
	ASSERT_EQ(0, RUN(self->root, "--json", "export", "--learned"));
	ASSERT_JSON(res.out);
	ASSERT_HAS(res.out, "{\"version\":2,\"learned\":true,");
	ASSERT_HAS(res.out, "\"purpose\":\"modprobe\",\"open\":false,");
	ASSERT_NE(NULL, strchr(sysctl, '\n'));
	*strchr(sysctl, '\n') = '\0';
	*strchr(sysctl, '\t') = '\0';
	ASSERT_HAS(res.out, sysctl);
	free(sysctl);
}

/*
 * The example for /etc/sysctl.d teaches what the man page does: export
 * -o FILE, which leaves FILE as it was on any error, never a shell's
 * "> FILE", which empties it first.
 */
TEST(example_sysctl_conf_teaches_no_redirect)
{
	char *text = slurp_file(src_path("umhcap.sysctl.conf"));

	ASSERT_NE(NULL, text);
	ASSERT_LACKS(text, "> /etc/");
	ASSERT_HAS(text, "#        umhcap export --learned --sysctl -o /etc/sysctl.d/50-umhcap.conf\n");
	free(text);
}
