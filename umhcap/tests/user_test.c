// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap user (user.c).
 */
#include "common.h"

#include <sys/socket.h>
#include <sys/un.h>

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
	char err[512];
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
	/* Under --root, the root's passwd and group, which say so */
	bad[0] = (struct refusal){ "umhcap-no-such-user", "" };
	snprintf(bad[0].err, sizeof(bad[0].err),
		 "umhcap: unknown user \"umhcap-no-such-user\": %s/etc/passwd has no such user (under --root, names are the root's); give a user it knows, or a uid\n",
		 self->root);
	snprintf(bad[1].spec, sizeof(bad[1].spec), "umhcap-no-such-user:%s",
		 w.group);
	strcpy(bad[1].err, bad[0].err);
	snprintf(bad[2].spec, sizeof(bad[2].spec), "%s:umhcap-no-such-group",
		 w.user);
	snprintf(bad[2].err, sizeof(bad[2].err),
		 "umhcap: unknown group \"umhcap-no-such-group\": %s/etc/group has no such group (under --root, names are the root's); give a group it knows, or a gid\n",
		 self->root);
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
		"umhcap: name the purposes with -p; usage: umhcap user -p PURPOSE[,PURPOSE...] [-n] [--json] USER[:GROUP]\n",
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

	NEEDS_ROOT();

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

/* ---- systemd-coredump's socket, opened to the helpers' group */

#define CD_UNIT_FILE	"lib/systemd/system/systemd-coredump.socket"
#define CD_DROPIN	"etc/systemd/system/systemd-coredump.socket.d/umhcap-user.conf"
#define CD_SOCKET	"run/systemd/coredump"

/* A listening socket at ROOT/CD_SOCKET, root's alone, as PID 1 makes it. */
static void cd_socket(const char *root)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char dir[PATH_MAX];
	int fd, cwd = open(".", O_RDONLY | O_DIRECTORY);

	snprintf(dir, sizeof(dir), "%s/run/systemd", root);
	mkdir_p(dir);
	/* A fake root's path may not fit sun_path: bound from its directory. */
	strcpy(sun.sun_path, "coredump");
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (cwd < 0 || fd < 0 || chdir(dir) ||
	    bind(fd, (struct sockaddr *)&sun, sizeof(sun)) || fchdir(cwd) ||
	    chown(strcat(dir, "/coredump"), 0, 0) || chmod(dir, 0600))
		abort();
	close(fd);
	close(cwd);
}

/* Whether passwd and group put no user but @user in group @gid. */
static bool alone_in(gid_t gid, const char *user)
{
	const struct group *gr = getgrgid(gid);
	const struct passwd *pw;
	bool alone = gr && gid;

	for (char **m = gr ? gr->gr_mem : NULL; alone && *m; m++)
		alone = !strcmp(*m, user);
	setpwent();
	while (alone && (pw = getpwent()))
		alone = pw->pw_gid != gid || !strcmp(pw->pw_name, user);
	endpwent();
	return alone;
}

static gid_t gid_of(const char *root, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return lstat(path, &st) ? (gid_t)-1 : st.st_gid;
}

/*
 * Away from root, the socket opens to the helpers' group: a drop-in for
 * the boots to come, and the live socket at once; back to root, both
 * close.  Without the unit, or for another purpose, nothing of it.
 */
TEST_F(umh, user_opens_coredump_socket)
{
	char want[2 * PATH_MAX], conf[512];
	struct who w;

	NEEDS_ROOT();

	WHO(w);
	if (!alone_in(w.gid, w.user))
		SKIP(return, "%s's group %s has other users here", w.user,
		     w.group);
	put(self->root, CD_UNIT_FILE, "[Socket]\nSocketMode=0600\n");
	cd_socket(self->root);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "power", w.user));
	ASSERT_FALSE(exists(self->root, CD_DROPIN));

	ASSERT_EQ(0, RUN(self->root, "user", "-p", "coredump", w.user));
	snprintf(want, sizeof(want),
		 "coredump: systemd-coredump.socket is open to group %u: %s/" CD_DROPIN ", and /run/systemd/coredump now\n"
		 "coredump: runs as %s\n", w.gid, self->root, who_str(&w));
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
	snprintf(conf, sizeof(conf), "[Socket]\nSocketGroup=%u\nSocketMode=0660\n",
		 w.gid);
	ASSERT_HAS(get(self->root, CD_DROPIN), conf);
	ASSERT_EQ(0644, mode_of(self->root, CD_DROPIN));
	ASSERT_EQ(0660, mode_of(self->root, CD_SOCKET));
	ASSERT_EQ(w.gid, gid_of(self->root, CD_SOCKET));
	/* Again: the file is as it was, and the command says so. */
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "coredump", w.user));
	ASSERT_HAS(res.out, "is open to group");
	ASSERT_HAS(res.out, " already: ");

	ASSERT_EQ(0, RUN(self->root, "user", "-p", "coredump", "root"));
	snprintf(want, sizeof(want),
		 "coredump: runs as root\n"
		 "coredump: systemd-coredump.socket is root's alone again: removed %s/" CD_DROPIN ", and /run/systemd/coredump now\n",
		 self->root);
	ASSERT_STREQ(want, res.out);
	ASSERT_FALSE(exists(self->root, CD_DROPIN));
	ASSERT_EQ(0600, mode_of(self->root, CD_SOCKET));
	ASSERT_EQ(0u, gid_of(self->root, CD_SOCKET));
	/* Nothing of user's to undo: nothing said. */
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "coredump", "root"));
	ASSERT_STREQ("coredump: runs as root already; unchanged\n", res.out);
}

/* -n: what it would open, and nothing written. */
TEST_F(umh, user_coredump_socket_dry_run)
{
	char *before, *after;
	struct who w;

	WHO(w);
	if (!alone_in(w.gid, w.user))
		SKIP(return, "%s's group %s has other users here", w.user,
		     w.group);
	put(self->root, CD_UNIT_FILE, "[Socket]\n");
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "user", "-n", "-p", "coredump", w.user));
	ASSERT_HAS(res.out, "coredump: would open systemd-coredump.socket to group ");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * The attacker's road: a group other users are in.  Any process of it
 * could hand the journal a core, so the socket stays root's; the
 * helpers' user is set, with a warning that says why.
 */
TEST_F(umh, user_coredump_socket_not_to_a_shared_group)
{
	char spec[160];
	struct who w;

	NEEDS_ROOT();

	WHO(w);
	if (alone_in(w.other_gid, w.user))
		SKIP(return, "group %s has no other user here", w.other);
	put(self->root, CD_UNIT_FILE, "[Socket]\n");
	cd_socket(self->root);
	snprintf(spec, sizeof(spec), "%s:%s", w.user, w.other);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "coredump", spec));
	ASSERT_HAS(res.err, "systemd-coredump.socket is left to root: other users are in group");
	ASSERT_FALSE(exists(self->root, CD_DROPIN));
	ASSERT_EQ(0600, mode_of(self->root, CD_SOCKET));
	ASSERT_EQ(0u, gid_of(self->root, CD_SOCKET));
	ASSERT_STREQ(ident(w.uid, w.other_gid), ident_of(self->root, "coredump"));
	/* Root, its group: not a group of its own either. */
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "coredump", "nobody:0"));
	ASSERT_FALSE(exists(self->root, CD_DROPIN));
}

/*
 * Under --root, names are the root's: a user only the root's passwd has
 * is found, with its primary group from the root's passwd and shown by
 * the root's names; a user only this machine has is not.
 */
TEST_F(umh, user_names_from_the_root)
{
	char want[PATH_MAX + 128];

	ASSERT_EQ(NULL, getpwnam("umhcap-image-only"));
	ASSERT_NE(NULL, getpwnam("daemon"));
	put(self->root, "etc/passwd",
	    "root:x:0:0:root:/root:/bin/sh\n"
	    "umhcap-image-only:x:4321:4322::/nonexistent:/usr/sbin/nologin\n");
	put(self->root, "etc/group", "root:x:0:\numhcap-image-only:x:4322:\n");
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "coredump",
			 "umhcap-image-only"));
	ASSERT_STREQ("4321\n", get(self->root, UMH "/coredump/uid"));
	ASSERT_STREQ("4322\n", get(self->root, UMH "/coredump/gid"));
	ASSERT_EQ(0, RUN(self->root, "show", "coredump"));
	ASSERT_HAS(res.out, "umhcap-image-only(4321):umhcap-image-only(4322)");

	ASSERT_EQ(2, RUN(self->root, "user", "-p", "power", "daemon"));
	snprintf(want, sizeof(want),
		 "umhcap: unknown user \"daemon\": %s/etc/passwd has no such user",
		 self->root);
	ASSERT_HAS(res.err, want);
	ASSERT_STREQ("0\n", get(self->root, UMH "/power/uid"));
}

/*
 * --json: each purpose's ids before and after, dry_run, and the socket
 * left alone (null) without systemd-coredump's unit; -n writes nothing.
 */
TEST_F(umh, user_json)
{
	char *before, *after, want[64];
	struct who w;

	WHO(w);
	set_ident(self->root, "power", w.uid, w.gid);
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "--json", "user", "-n", "-p",
			 "power,initrd", w.user));
	ASSERT_STREQ("", res.err);
	ASSERT_JSON(res.out);
	ASSERT_LACKS(res.out, "would write");
	ASSERT_JSON_AT(res.out, "dry_run", "true");
	ASSERT_JSON_AT(res.out, "purposes.0.purpose", "\"power\"");
	ASSERT_JSON_AT(res.out, "purposes.0.changed", "false");
	ASSERT_JSON_AT(res.out, "purposes.1.purpose", "\"initrd\"");
	ASSERT_JSON_AT(res.out, "purposes.1.before", "{\"uid\":0,\"gid\":0}");
	snprintf(want, sizeof(want), "%u", w.uid);
	ASSERT_JSON_AT(res.out, "purposes.1.after.uid", want);
	snprintf(want, sizeof(want), "%u", w.gid);
	ASSERT_JSON_AT(res.out, "purposes.1.after.gid", want);
	ASSERT_JSON_AT(res.out, "purposes.1.changed", "true");
	ASSERT_EQ(NULL, json_get(res.out, "purposes.2"));
	ASSERT_JSON_AT(res.out, "coredump_socket", "null");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	/* Written: the same object, dry_run false; the ids as it says. */
	ASSERT_EQ(0, RUN(self->root, "user", "--json", "-p", "initrd",
			 w.user));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "dry_run", "false");
	ASSERT_JSON_AT(res.out, "purposes.0.after.gid", want);
	ASSERT_STREQ(ident(w.uid, w.gid), ident_of(self->root, "initrd"));
	/* Back to root: before is the user. */
	ASSERT_EQ(0, RUN(self->root, "--json", "user", "-p", "initrd", "root"));
	ASSERT_JSON_AT(res.out, "purposes.0.before.gid", want);
	ASSERT_JSON_AT(res.out, "purposes.0.after", "{\"uid\":0,\"gid\":0}");
	ASSERT_STREQ(ident(0, 0), ident_of(self->root, "initrd"));
	/* An error: no JSON. */
	ASSERT_EQ(2, RUN(self->root, "--json", "user", "-p", "initrd",
			 "no-such-user-here"));
	ASSERT_STREQ("", res.out);
}

/* --json with the unit: what was done to the socket, and the drop-in. */
TEST_F(umh, user_json_coredump_socket)
{
	char want[PATH_MAX + 8];
	struct who w;

	WHO(w);
	if (!alone_in(w.gid, w.user))
		SKIP(return, "%s's group %s has other users here", w.user,
		     w.group);
	put(self->root, CD_UNIT_FILE, "[Socket]\n");
	ASSERT_EQ(0, RUN(self->root, "--json", "user", "-p", "coredump",
			 w.user));
	ASSERT_STREQ("", res.err);
	ASSERT_JSON(res.out);
	ASSERT_LACKS(res.out, "coredump: ");
	ASSERT_JSON_AT(res.out, "coredump_socket.action", "\"open\"");
	snprintf(want, sizeof(want), "\"%s/" CD_DROPIN "\"", self->root);
	ASSERT_JSON_AT(res.out, "coredump_socket.dropin", want);
	snprintf(want, sizeof(want), "%u", w.gid);
	ASSERT_JSON_AT(res.out, "coredump_socket.gid", want);
	ASSERT_JSON_AT(res.out, "coredump_socket.already", "false");
	ASSERT_JSON_AT(res.out, "coredump_socket.socket_now", "false");
	ASSERT_TRUE(exists(self->root, CD_DROPIN));
	ASSERT_EQ(0, RUN(self->root, "--json", "user", "-n", "-p", "coredump",
			 "root"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "coredump_socket.action", "\"close\"");
	ASSERT_EQ(NULL, json_get(res.out, "coredump_socket.gid"));
	ASSERT_TRUE(exists(self->root, CD_DROPIN));
	ASSERT_EQ(0, RUN(self->root, "--json", "user", "-p", "coredump",
			 "root"));
	ASSERT_JSON_AT(res.out, "coredump_socket.action", "\"close\"");
	ASSERT_FALSE(exists(self->root, CD_DROPIN));
}

/*
 * A user the table runs helpers as, missing: said so, and how to make
 * it, by umhcap's package or by the package whose user it is.
 */
TEST_F(umh, user_of_the_table_missing)
{
	put(self->root, "etc/passwd", "root:x:0:0:root:/root:/bin/sh\n");
	put(self->root, "etc/group", "root:x:0:\n");
	ASSERT_EQ(2, RUN(self->root, "user", "-p", "modprobe", "umh-modprobe"));
	ASSERT_HAS(res.err, "umhcap: unknown user \"umh-modprobe\": ");
	ASSERT_HAS(res.err, "; it is the user umhcap's table runs modprobe's helpers as (umhcap policy), which umhcap's package makes: make it with: systemd-sysusers --root ");
	ASSERT_HAS(res.err, " umhcap.conf\n");
	ASSERT_EQ(2, RUN(self->root, "user", "-p", "coredump", "systemd-coredump"));
	ASSERT_HAS(res.err, "; it is the user umhcap's table runs coredump's helpers as (umhcap policy), which systemd-coredump's package makes: apt-get install systemd-coredump\n");
	/* Any other: as before. */
	ASSERT_EQ(2, RUN(self->root, "user", "-p", "modprobe", "nobody-here"));
	ASSERT_LACKS(res.err, "umhcap's table");
}

/*
 * Under --root, no link leads out of the root (as in status_test.c's
 * status_reads_no_link_out_of_the_root): etc/passwd and etc/group, links
 * to ROOT.out on this machine, are read in the root, where they name
 * other users; ROOT.out's, whose user no file of the root knows, are
 * never read, and ROOT.out stays as it was.
 */
TEST_F(umh, user_names_no_link_out_of_the_root)
{
	const char *out = outside(self->root);
	char target[PATH_MAX], *before, *after;

	put(out, "passwd", "outsider:x:4242:4242::/:/bin/false\n");
	put(out, "group", "outsiders:x:4242:\n");
	link_to(self->root, "etc/passwd", out, "passwd");
	link_to(self->root, "etc/group", out, "group");
	/* Where the links lead in the root. */
	snprintf(target, sizeof(target), "%s/passwd", out + 1);
	put(self->root, target, "root:x:0:0::/root:/bin/sh\n"
	    "insider:x:4343:4343::/:/bin/false\n");
	snprintf(target, sizeof(target), "%s/group", out + 1);
	put(self->root, target, "root:x:0:\ninsiders:x:4343:\n");
	before = tree(out);
	ASSERT_EQ(2, RUN(self->root, "user", "-n", "-p", "modprobe", "outsider"));
	ASSERT_HAS(res.err, "umhcap: unknown user \"outsider\": ");
	ASSERT_EQ(2, RUN(self->root, "user", "-n", "-p", "modprobe",
			 "4242:outsiders"));
	ASSERT_HAS(res.err, "umhcap: unknown group \"outsiders\": ");
	ASSERT_EQ(0, RUN(self->root, "user", "-n", "-p", "modprobe", "insider"));
	ASSERT_HAS(res.out, "insider(4343):insiders(4343)");
	/* Shown by number: the root's passwd has no uid 4242. */
	set_ident(self->root, "power", 4242, 4242);
	ASSERT_EQ(0, RUN(self->root, "show"));
	ASSERT_LACKS(res.out, "outsider");
	ASSERT_HAS(res.out, "4242:4242");
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "power", "insider"));
	ASSERT_STREQ(ident(4343, 4343), ident_of(self->root, "power"));
	after = tree(out);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}
