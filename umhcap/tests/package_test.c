// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap's Debian package, debian/: what its description
 * says it ships, and what its maintainer scripts do, run on a fake root
 * (DPKG_ROOT, as dpkg gives one) with fake commands on PATH.
 */
#include "common.h"

/* The package's description names every unit debian/umhcap.install ships. */
TEST(package_description_names_every_unit)
{
	char *install = slurp_file(src_path("debian/umhcap.install"));
	char *control = slurp_file(src_path("debian/control"));
	char *line, *save, unit[256];
	int units = 0;

	if (!install || !control)
		SKIP(return, "no debian/ beside the sources");
	for (line = strtok_r(install, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "umhcap-%250s", unit) != 1 ||
		    !strstr(line, "lib/systemd/system/"))
			continue;
		snprintf(unit, sizeof(unit), "%.*s", (int)strcspn(line, " "), line);
		EXPECT_TRUE(strstr(control, unit) != NULL)
			TH_LOG("debian/control's description does not name %s", unit);
		units++;
	}
	ASSERT_EQ(3, units);
	free(install);
	free(control);
}

/*
 * Run debian/umhcap.postrm with ARG under DPKG_ROOT=@root, as dpkg runs
 * it for a root of its own, with fake update-grub and systemctl on PATH
 * that log their arguments to @root/calls.  Its exit status; res.out and
 * res.err hold what it printed.
 */
static int postrm(const char *root, const char *arg)
{
	char cmd[PATH_MAX * 4], bin[PATH_MAX];
	const char *script = src_path("debian/umhcap.postrm");
	FILE *p;
	size_t n;
	int st;

	/* One that knows no DPKG_ROOT would purge this machine: not run. */
	if (!strstr(slurp_file(script) ?: "", "$DPKG_ROOT/var/lib/umhcap"))
		return -2;
	snprintf(bin, sizeof(bin), "%s/fakebin", root);
	mkdir(bin, 0755);
	put(root, "fakebin/systemctl", "#!/bin/sh\necho \"systemctl $*\" >>\"$DPKG_ROOT/calls\"\n");
	put(root, "fakebin/update-grub", "#!/bin/sh\necho \"update-grub $*\" >>\"$DPKG_ROOT/calls\"\n");
	chmod_rel(root, "fakebin/systemctl", 0755);
	chmod_rel(root, "fakebin/update-grub", 0755);
	snprintf(cmd, sizeof(cmd),
		 "DPKG_ROOT='%s' PATH='%s':/usr/bin:/bin sh '%s' %s 2>'%s/stderr'",
		 root, bin, script, arg, root);
	p = popen(cmd, "r");
	if (!p)
		abort();
	n = fread(res.out, 1, sizeof(res.out) - 1, p);
	res.out[n] = '\0';
	st = pclose(p);
	snprintf(res.err, sizeof(res.err), "%s", get(root, "stderr"));
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define SOCKET_DROPIN	"etc/systemd/system/systemd-coredump.socket.d/umhcap-user.conf"

/*
 * Purge takes back what umhcap wrote, and names what it cannot: bounds
 * in /etc/default/grub's own GRUB_CMDLINE_LINUX, as in
 * /etc/kernel/cmdline and /etc/sysctl.d.
 */
TEST_F(umh, package_purge_names_every_place_of_bounds)
{
	if (access(src_path("debian/umhcap.postrm"), R_OK))
		SKIP(return, "no debian/ beside the sources");
	put(self->root, "etc/default/grub",
	    "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX=\"quiet usermodehelper.bset=modprobe:0x10000\"\n");
	put(self->root, SOCKET_DROPIN, "[Socket]\nSocketUser=systemd-coredump\n");
	put(self->root, GRUB_CFG, "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT usermodehelper.bset=x\"\n");
	put(self->root, "var/lib/umhcap/boots/x", "");
	put(self->root, "run/systemd/system/.keep", "");
	ASSERT_EQ(0, postrm(self->root, "purge"));
	ASSERT_FALSE(exists(self->root, SOCKET_DROPIN));
	ASSERT_FALSE(exists(self->root, GRUB_CFG));
	ASSERT_FALSE(exists(self->root, "var/lib/umhcap"));
	ASSERT_HAS(res.err, "/etc/default/grub still sets usermodehelper.* items (GRUB_CMDLINE_LINUX): remove them, or they bound every boot\n");
	ASSERT_LACKS(res.err, "GRUB_CMDLINE_LINUX_DEFAULT");
	/* Nothing of umhcap's left: nothing said, nothing reloaded. */
	rm_file(self->root, "calls");
	put(self->root, "etc/default/grub", "GRUB_DEFAULT=0\n");
	ASSERT_EQ(0, postrm(self->root, "purge"));
	ASSERT_STREQ("", res.err);
	ASSERT_FALSE(exists(self->root, "calls"));
}

/*
 * Purge names bounds in /etc/default/grub's GRUB_CMDLINE_LINUX_DEFAULT
 * too, and removes the socket's drop-in.  It reloads systemd only for
 * this machine's own root, where systemd runs it, as debhelper's snippets
 * do: never under a DPKG_ROOT, whose /run/systemd/system says nothing of
 * the systemd that systemctl would reach, this machine's.
 */
TEST_F(umh, package_purge_reloads_only_under_systemd)
{
	if (access(src_path("debian/umhcap.postrm"), R_OK))
		SKIP(return, "no debian/ beside the sources");
	put(self->root, "etc/default/grub",
	    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet usermodehelper.inheritable=modprobe:0x10000\"\n");
	put(self->root, SOCKET_DROPIN, "[Socket]\nSocketUser=systemd-coredump\n");
	ASSERT_EQ(0, postrm(self->root, "purge"));
	ASSERT_FALSE(exists(self->root, SOCKET_DROPIN));
	ASSERT_HAS(res.err, "/etc/default/grub still sets usermodehelper.* items (GRUB_CMDLINE_LINUX_DEFAULT): remove them, or they bound every boot\n");
	ASSERT_LACKS(get(self->root, "calls"), "daemon-reload");
	/* A root of dpkg's own where systemd would run: still not this one's */
	put(self->root, SOCKET_DROPIN, "[Socket]\nSocketUser=systemd-coredump\n");
	put(self->root, "run/systemd/system/.keep", "");
	ASSERT_EQ(0, postrm(self->root, "purge"));
	ASSERT_FALSE(exists(self->root, SOCKET_DROPIN));
	ASSERT_LACKS(get(self->root, "calls"), "daemon-reload");
	/* remove, not purge: nothing of it. */
	put(self->root, SOCKET_DROPIN, "[Socket]\nSocketUser=systemd-coredump\n");
	put(self->root, "run/systemd/system/.keep", "");
	ASSERT_EQ(0, postrm(self->root, "remove"));
	ASSERT_TRUE(exists(self->root, SOCKET_DROPIN));
	ASSERT_LACKS(get(self->root, "calls"), "daemon-reload");
}

/*
 * The users the measured table runs helpers as: the package makes every
 * one no other package of Debian makes (systemd-coredump is systemd's),
 * with a sysusers.d file dh_installsysusers installs and its postinst
 * runs; purge leaves them, as Debian policy asks (their files may
 * outlive the package).
 */
TEST(package_makes_the_users_of_the_table)
{
	char *sysusers = slurp_file(src_path("debian/umhcap.sysusers"));
	char *postrm = slurp_file(src_path("debian/umhcap.postrm"));
	char line[128], *gecos;
	size_t i;

	if (!postrm)
		SKIP(return, "no debian/ beside the sources");
	ASSERT_NE(NULL, sysusers) TH_LOG("no debian/umhcap.sysusers");
	for (i = 0; i < umh_measured_nr + umh_handlers_nr; i++) {
		const char *user = i < umh_measured_nr ? umh_measured[i].user :
				   umh_handlers[i - umh_measured_nr].user;

		if (!user || !strcmp(user, "systemd-coredump"))
			continue;
		snprintf(line, sizeof(line), "\nu %s ", user);
		EXPECT_TRUE(strstr(sysusers, line) != NULL)
			TH_LOG("debian/umhcap.sysusers makes no %s", user);
	}
	/*
	 * Each user's GECOS, its quoted fourth field, is a field of
	 * /etc/passwd: systemd-sysusers refuses one with a ':', and with
	 * it the package's configuration.
	 */
	for (gecos = strstr(sysusers, "\nu "); gecos;
	     gecos = strstr(gecos + 1, "\nu ")) {
		char *open = strchr(gecos + 1, '"');
		char *end = strchr(gecos + 1, '\n');

		ASSERT_TRUE(open && (!end || open < end))
			TH_LOG("a user of debian/umhcap.sysusers has no GECOS");
		EXPECT_EQ(NULL, memchr(open, ':', strcspn(open, "\n")))
			TH_LOG("a GECOS of debian/umhcap.sysusers holds ':': %.*s",
			       (int)strcspn(open, "\n"), open);
	}
	/* Installed, and run by postinst: compat 13 needs the sequence. */
	ASSERT_HAS(slurp_file(src_path("debian/control")),
		   "dh-sequence-installsysusers");
	ASSERT_LACKS(postrm, "deluser");
	ASSERT_LACKS(postrm, "userdel");
	free(sysusers);
	free(postrm);
}
