// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap boot (boot.c).
 */
#include "common.h"

/*
 * The value sh gives GRUB_CMDLINE_LINUX_DEFAULT after sourcing ROOT/rel,
 * with GRUB_CMDLINE_LINUX, which the recovery entries also take, after a
 * "|"; static.
 */
static const char *grub_sourced(const char *root, const char *rel)
{
	static char buf[8192];
	char cmd[PATH_MAX + 128];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "/bin/sh -c 'GRUB_CMDLINE_LINUX=\"ro\"; GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"; . \"$0\" && printf %%s \"$GRUB_CMDLINE_LINUX_DEFAULT|$GRUB_CMDLINE_LINUX\"' %s/%s",
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

/*
 * boot --grub: umhcap.cfg, which sh sources into GRUB_CMDLINE_LINUX_DEFAULT,
 * and not into GRUB_CMDLINE_LINUX, which the recovery entries also take.
 */
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
	snprintf(want, sizeof(want), "quiet %s|ro", params);
	ASSERT_STREQ(want, grub_sourced(self->root, GRUB_CFG));
	cfg = get(self->root, GRUB_CFG);
	ASSERT_STARTS(cfg, "# Written by umhcap boot at ");
	ASSERT_HAS(cfg, "\n# learned from 2 saved boots, saved 2023-11-14T22:13:20Z to\n"
			"# 2023-11-15T22:13:20Z, and this boot:\n");
	snprintf(want, sizeof(want), "\nGRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT %s\"\n",
		 params);
	ASSERT_HAS(cfg, want);
	ASSERT_EQ(1, count_of(cfg, "\nGRUB_CMDLINE_LINUX"));
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
	snprintf(want, sizeof(want), "quiet %.*s|ro", (int)strcspn(res.out, "\n"), res.out);
	ASSERT_STREQ(want, grub_sourced(self->root, GRUB_CFG));
	/* The idle purposes are open: left out, so uevent ends the list. */
	ASSERT_HAS(want, ",uevent:0x8000000 usermodehelper.inheritable=");
	ASSERT_HAS(get(self->root, GRUB_CFG), "\n# learned from this boot only:\n");
	ASSERT_EQ(1, count_of(get(self->root, GRUB_CFG), "\nGRUB_CMDLINE_LINUX"));
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
	snprintf(want, sizeof(want), "\nGRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT %s\"\n"
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
	snprintf(want, sizeof(want), "quiet %s|ro", params);
	ASSERT_STREQ(want, grub_sourced(self->root, GRUB_CFG));
	snprintf(want, sizeof(want), "\nGRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT %s\"\n",
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

/* boot --remove: umhcap.cfg removed, -n first; then nothing to remove. */
TEST_F(umh, boot_remove_takes_grub_cfg_away)
{
	char *before, *after, want[8192];

	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "boot"));
	ASSERT_TRUE(exists(self->root, GRUB_CFG));
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove", "-n"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	snprintf(want, sizeof(want),
		 "-n, nothing removed: would remove %s/" GRUB_CFG "\n",
		 self->root);
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
	/* --kernel-install names the other file: this one stays, and says so. */
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove", "--kernel-install"));
	ASSERT_STREQ("nothing to remove: no usermodehelper.* item in /" KI_CMDLINE "\n"
		     "set elsewhere, and in force from the next boot:\n"
		     "  /" GRUB_CFG " (GRUB_CMDLINE_LINUX_DEFAULT): modprobe bset 0x10000, coredump bset 0x3, modprobe inheritable 0x10000, coredump inheritable 0x3\n",
		     res.out);
	ASSERT_TRUE(exists(self->root, GRUB_CFG));
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove"));
	ASSERT_FALSE(exists(self->root, GRUB_CFG));
	ASSERT_STREQ("", entries(self->root, "etc/default/grub.d"));
	snprintf(want, sizeof(want), "removed %s/" GRUB_CFG "\n"
		 "next: run update-grub, then reboot: helpers start with open bounds from that boot\n",
		 self->root);
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove", "--grub"));
	ASSERT_STREQ("nothing to remove: no /" GRUB_CFG "\n", res.out);
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove"));
	ASSERT_STREQ("nothing to remove: no /" GRUB_CFG ", and no usermodehelper.* item in /"
		     KI_CMDLINE "\n", res.out);
}

/*
 * boot --remove: every usermodehelper.* item out of /etc/kernel/cmdline,
 * all else as it was, its mode kept; an administrator's own items too,
 * as boot replaces them.
 */
TEST_F(umh, boot_remove_takes_items_out_of_kernel_cmdline)
{
	char *before, *after, want[8192];

	put(self->root, KI_CMDLINE,
	    "  root=UUID=1234 ro usermodehelper.bset=all:0,modprobe:0x10000  quiet\t"
	    "\"usermodehelper.uid=coredump:5\" splash=\"a b\" usermodehelper.inheritable=modprobe:0\n");
	chmod_rel(self->root, KI_CMDLINE, 0600);
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove", "--dry-run"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	snprintf(want, sizeof(want), "  root=UUID=1234 ro  quiet splash=\"a b\"\n"
		 "-n, nothing written: would write the above to %s/" KI_CMDLINE "\n",
		 self->root);
	ASSERT_STREQ(want, res.out);
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove"));
	ASSERT_STREQ("  root=UUID=1234 ro  quiet splash=\"a b\"\n",
		     get(self->root, KI_CMDLINE));
	ASSERT_EQ(0600, mode_of(self->root, KI_CMDLINE));
	ASSERT_STREQ(" cmdline", entries(self->root, "etc/kernel"));
	snprintf(want, sizeof(want), "took 3 usermodehelper.* items out of %s/" KI_CMDLINE "\n"
		 "next: run kernel-install add $(uname -r) /boot/vmlinuz-$(uname -r), or reinstall the kernel package, then reboot: helpers start with open bounds from that boot\n",
		 self->root);
	ASSERT_STREQ(want, res.out);
	/* Again: nothing left to take out; the file as it was. */
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove", "--kernel-install"));
	ASSERT_STREQ("nothing to remove: no usermodehelper.* item in /" KI_CMDLINE "\n",
		     res.out);
	ASSERT_STREQ("  root=UUID=1234 ro  quiet splash=\"a b\"\n",
		     get(self->root, KI_CMDLINE));
	/* One item alone: an empty line. */
	put(self->root, KI_CMDLINE, "usermodehelper.bset=all:0\n");
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove"));
	ASSERT_STREQ("\n", get(self->root, KI_CMDLINE));
	ASSERT_HAS(res.out, "took 1 usermodehelper.* item out of ");
}

/* boot --remove takes none of what only learning needs; nothing changes. */
TEST_F(umh, boot_remove_refuses_learning_options)
{
	static const char *const opts[] = {
		"--include-idle", "--this-boot", "--state-dir=/var/tmp",
	};
	char *before, *after;
	size_t i;

	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "boot"));
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		ASSERT_EQ(2, RUN(self->root, "boot", "--remove", opts[i]));
		ASSERT_HAS(res.err, "umhcap: --remove takes no --include-idle, --this-boot, --state-dir, --since, --last or --allow; usage: umhcap boot");
		ASSERT_STREQ("", res.out);
	}
	ASSERT_EQ(2, RUN(self->root, "boot", "--remove", "--grub", "--kernel-install"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* The kernel's lines of refusals, in /dev/kmsg: @n of @cap to coredump. */
static void refused_lines(const char *root, int cap, int n, bool append)
{
	char path[PATH_MAX];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/dev/kmsg", root);
	f = fopen(path, append ? "a" : "w");
	if (!f)
		abort();
	for (i = 0; i < n; i++)
		fprintf(f, "4,%d,1,-;umh: refused a capability its bounds withhold: purpose=coredump pid=%d comm=\"c\" exe=\"/usr/lib/systemd/systemd-coredump\" uid=998 cap=%d\n",
			i, 100 + i, cap);
	if (fclose(f))
		abort();
}

/*
 * A refusal is shown, never learned: a compromised helper that asks for
 * cap_sys_admin fifty times is shown asking, and the next boot's bounds
 * are what its helpers used, as without the refusals.
 */
TEST_F(umh, refusals_are_shown_never_learned)
{
	char before[4096];

	learn_scene(self->root);
	snprintf(before, sizeof(before), "%s", learned_params(self->root, _metadata));
	refused_lines(self->root, CAP_SYS_ADMIN, 50, false);
	refused_lines(self->root, CAP_DAC_READ_SEARCH, 2, true);
	ASSERT_EQ(0, RUN(self->root, "learn", "coredump"));
	ASSERT_HAS(res.out, "\n  refused:     cap_sys_admin to /usr/lib/systemd/systemd-coredump (50, this boot)\n"
			    "  refused:     cap_dac_read_search to /usr/lib/systemd/systemd-coredump (2, this boot)\n");
	ASSERT_HAS(res.out, "Never learned: a compromised helper asks for what it likes.");
	ASSERT_EQ(0, RUN(self->root, "--json", "learn", "coredump"));
	ASSERT_TRUE(json_valid(res.out));
	ASSERT_HAS(res.out, "\"refused\":[{\"purpose\":\"coredump\",\"program\":\"/usr/lib/systemd/systemd-coredump\",\"cap\":\"cap_sys_admin\",\"cap_number\":21,\"boot_id\":\"" THIS_BOOT "\",\"count\":50,\"first_seen\":null,\"last_seen\":null},");
	/* Learned as before: no refusal in the next boot's bounds. */
	ASSERT_STREQ(before, learned_params(self->root, _metadata));
	ASSERT_EQ(0, RUN(self->root, "boot"));
	ASSERT_EQ(0, count_of(get(self->root, GRUB_CFG), "coredump:0x20"));
	ASSERT_HAS(get(self->root, GRUB_CFG), before);
}

/*
 * --allow adds what the administrator names, and nothing else: to the
 * next boot's bounds (boot, and export --learned alike), and to this
 * boot's within its bounds (learn --apply, which cannot widen).
 */
TEST_F(umh, allow_adds_only_what_is_named)
{
	char before[4096], after[4096], *s;
	uint64_t mask;

	learn_scene(self->root);
	refused_lines(self->root, CAP_SYS_ADMIN, 50, false);
	snprintf(before, sizeof(before), "%s", learned_params(self->root, _metadata));
	s = strstr(before, "coredump:0x");
	ASSERT_NE(NULL, s);
	ASSERT_EQ(B(CAP_CHOWN) | B(CAP_DAC_OVERRIDE), strtoull(s + 9, NULL, 16));
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--cmdline",
			 "--allow", "coredump:cap_dac_read_search"));
	snprintf(after, sizeof(after), "%.*s", (int)strcspn(res.out, "\n"), res.out);
	s = strstr(after, "usermodehelper.bset=");
	ASSERT_NE(NULL, s);
	s = strstr(s, "coredump:0x");
	ASSERT_NE(NULL, s);
	mask = strtoull(s + 9, NULL, 16);
	ASSERT_EQ(B(CAP_CHOWN) | B(CAP_DAC_OVERRIDE) | B(CAP_DAC_READ_SEARCH), mask);
	ASSERT_EQ(0, RUN(self->root, "boot", "--allow", "coredump:cap_dac_read_search"));
	ASSERT_HAS(get(self->root, GRUB_CFG), after);
	ASSERT_EQ(0, count_of(after, "0x200000"));
	/* Beyond this boot's bounds, for the next: a bound narrowed already. */
	set_bound(self->root, "coredump", B(CAP_CHOWN) | B(CAP_DAC_OVERRIDE),
		  B(CAP_CHOWN) | B(CAP_DAC_OVERRIDE));
	ASSERT_EQ(0, RUN(self->root, "boot", "--allow", "coredump:cap_dac_read_search,modprobe:cap_kill"));
	ASSERT_HAS(get(self->root, GRUB_CFG), "coredump:0x7 ");
	ASSERT_HAS(get(self->root, GRUB_CFG), "modprobe:0x10020,");
	/* learn --apply: within this boot's bounds only; it cannot widen. */
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply", "--allow", "coredump:cap_dac_read_search", "coredump"));
	ASSERT_HAS(res.out, "coredump: no wider than what its helpers used");
}

#define EXPECT_HAS_EMPTY(item) do {					\
	char _w[256];							\
	snprintf(_w, sizeof(_w), "umhcap: bad --allow \"%s\": an empty item; separate items with one comma, none before the first or after the last\n", item); \
	EXPECT_STREQ(_w, res.err);					\
	EXPECT_STREQ("", res.out);					\
} while (0)

/* A bad --allow is an error, with nothing written. */
TEST_F(umh, allow_refuses_what_it_cannot_read)
{
	static const char *const bad[] = {
		"coredump", "all:cap_kill", "foo:cap_kill", "coredump:cap_nope",
		"coredump:", ",", ":cap_kill",
	};
	char *before, *after;
	size_t i;

	learn_scene(self->root);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(2, RUN(self->root, "boot", "--allow", bad[i])) TH_LOG("%s", bad[i]);
		EXPECT_NE(NULL, strstr(res.err, "bad --allow")) TH_LOG("%s", bad[i]);
		EXPECT_STREQ("", res.out);
	}
	ASSERT_EQ(2, RUN(self->root, "learn", "--allow", "coredump:cap_kill"));
	ASSERT_HAS(res.err, "--allow goes with --apply");
	ASSERT_EQ(2, RUN(self->root, "export", "--cmdline", "--allow", "coredump:cap_kill"));
	ASSERT_HAS(res.err, "--state-dir, --this-boot, --since, --last, --from and --allow go with --learned");
	ASSERT_EQ(2, RUN(self->root, "boot", "--remove", "--allow", "coredump:cap_kill"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * An --allow item is never dropped: an empty one is an error, as in -p's
 * list, and so is one for a purpose the command leaves alone, idle
 * without --include-idle or left out by learn's PURPOSE..., which it
 * would add nothing to.  Nothing is written.
 */
TEST_F(umh, allow_drops_no_item)
{
	static const char *const empty[] = {
		"coredump:cap_dac_override,", ",coredump:cap_dac_override",
		"coredump:cap_dac_override,,modprobe:cap_kill",
	};
	char *before, *after;
	size_t i;

	learn_scene(self->root);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(empty); i++) {
		EXPECT_EQ(2, RUN(self->root, "boot", "--allow", empty[i]))
			TH_LOG("%s", empty[i]);
		EXPECT_HAS_EMPTY(empty[i]);
	}
	/* power is idle: nothing started. */
	ASSERT_EQ(2, RUN(self->root, "boot", "--allow", "power:cap_kill"));
	ASSERT_STREQ("umhcap: --allow power:cap_kill: no helper of power started since boot, so power is left alone and would not get it; add --include-idle to narrow power to what it used, and give it this too\n"
		     "umhcap: boot: nothing was written\n", res.err);
	ASSERT_EQ(2, RUN(self->root, "export", "--learned", "--cmdline",
			 "--allow", "power:cap_kill"));
	ASSERT_HAS(res.err, "--allow power:cap_kill: no helper of power started");
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply", "--allow",
			 "power:cap_kill"));
	ASSERT_HAS(res.err, "--allow power:cap_kill: no helper of power started");
	/* learn --apply modprobe leaves coredump out. */
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply", "--allow",
			 "coredump:cap_kill", "modprobe"));
	ASSERT_STREQ("umhcap: --allow coredump:cap_kill: coredump is not among the purposes named, so it would not get it; name it too: umhcap learn --apply ... coredump\n"
		     "umhcap: learn --apply: nothing was written\n", res.err);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	/* With --include-idle, power is narrowed, and gets it. */
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--cmdline",
			 "--include-idle", "--allow", "power:cap_kill"));
	ASSERT_HAS(res.out, "power:0x20");
}

/*
 * --json: the loader, the file written, the parameters and the text the
 * file holds; -n: the same, dry_run true, and nothing written.
 */
TEST_F(umh, boot_json)
{
	char *before, *after, want[8192], params[4096];

	learn_scene(self->root);
	snprintf(params, sizeof(params), "%s", learned_params(self->root, _metadata));
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "--json", "boot", "-n"));
	ASSERT_STREQ("", res.err);
	ASSERT_JSON(res.out);
	ASSERT_LACKS(res.out, "nothing written");
	ASSERT_JSON_AT(res.out, "dry_run", "true");
	ASSERT_JSON_AT(res.out, "action", "\"write\"");
	ASSERT_JSON_AT(res.out, "loader", "\"grub\"");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	ASSERT_EQ(0, RUN(self->root, "boot", "--json"));
	ASSERT_STREQ("", res.err);
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "dry_run", "false");
	ASSERT_JSON_AT(res.out, "loader", "\"grub\"");
	snprintf(want, sizeof(want), "\"%s/" GRUB_CFG "\"", self->root);
	ASSERT_JSON_AT(res.out, "file", want);
	ASSERT_JSON_AT(res.out, "parameters", json_quote(params));
	ASSERT_JSON_AT(res.out, "contents", json_quote(get(self->root, GRUB_CFG)));
	ASSERT_JSON_AT(res.out, "items_replaced", "null");
	ASSERT_JSON_AT(res.out, "made_from", "null");
	ASSERT_JSON_AT(res.out, "next", "\"run update-grub, then reboot: the bounds hold from the first helper of that boot\"");
	/* --kernel-install, made from /proc/cmdline. */
	ASSERT_EQ(0, RUN(self->root, "--json", "boot", "--kernel-install"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "loader", "\"kernel-install\"");
	snprintf(want, sizeof(want), "\"%s/" KI_CMDLINE "\"", self->root);
	ASSERT_JSON_AT(res.out, "file", want);
	snprintf(want, sizeof(want), "\"%s/proc/cmdline\"", self->root);
	ASSERT_JSON_AT(res.out, "made_from", want);
	ASSERT_JSON_AT(res.out, "items_replaced", "0");
	snprintf(want, sizeof(want), "root=/dev/vda console=ttyS0 %s\n", params);
	ASSERT_STREQ(want, get(self->root, KI_CMDLINE));
	ASSERT_JSON_AT(res.out, "contents", json_quote(want));
	/* An error: no JSON. */
	ASSERT_EQ(2, RUN(self->root, "--json", "boot", "--grub",
			 "--kernel-install"));
	ASSERT_STREQ("", res.out);
}

/* --remove --json: each file changed, or none; -n removes nothing. */
TEST_F(umh, boot_remove_json)
{
	char *before, *after, want[PATH_MAX + 8];

	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "boot"));
	put(self->root, KI_CMDLINE, "ro usermodehelper.bset=all:0 quiet\n");
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "--json", "boot", "--remove", "-n"));
	ASSERT_STREQ("", res.err);
	ASSERT_JSON(res.out);
	ASSERT_LACKS(res.out, "nothing removed");
	ASSERT_JSON_AT(res.out, "dry_run", "true");
	ASSERT_JSON_AT(res.out, "action", "\"remove\"");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	ASSERT_EQ(0, RUN(self->root, "--json", "boot", "--remove"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "dry_run", "false");
	ASSERT_JSON_AT(res.out, "removed.0.loader", "\"grub\"");
	snprintf(want, sizeof(want), "\"%s/" GRUB_CFG "\"", self->root);
	ASSERT_JSON_AT(res.out, "removed.0.file", want);
	ASSERT_JSON_AT(res.out, "removed.0.contents", "null");
	ASSERT_JSON_AT(res.out, "removed.1.loader", "\"kernel-install\"");
	ASSERT_JSON_AT(res.out, "removed.1.items_replaced", "1");
	ASSERT_JSON_AT(res.out, "removed.1.contents", "\"ro quiet\\u000a\"");
	ASSERT_EQ(NULL, json_get(res.out, "removed.2"));
	ASSERT_FALSE(exists(self->root, GRUB_CFG));
	ASSERT_STREQ("ro quiet\n", get(self->root, KI_CMDLINE));
	/* Nothing left: an empty list. */
	ASSERT_EQ(0, RUN(self->root, "--json", "boot", "--remove"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "removed", "[]");
}

/*
 * boot --remove, and boot, name every other place that sets the next
 * boot's bounds or ids: /etc/default/grub's GRUB_CMDLINE_LINUX (which the
 * recovery entries get too) and GRUB_CMDLINE_LINUX_DEFAULT, another file
 * of grub.d, /etc/kernel/cmdline, sysctl.conf and the sysctl.d
 * directories (one of /usr/lib replaced by /etc's of its name); and
 * never promise open bounds while one is left.
 */
TEST_F(umh, boot_remove_names_what_is_left)
{
	static const char open_bounds[] = "helpers start with open bounds from that boot";
	char *before, *after, want[PATH_MAX + 512];

	learn_scene(self->root);
	put(self->root, "etc/default/grub",
	    "GRUB_DEFAULT=0\n"
	    "GRUB_CMDLINE_LINUX=\"quiet usermodehelper.bset=power:0x0\"\n"
	    "# GRUB_CMDLINE_LINUX=\"usermodehelper.bset=initrd:0x0\"\n"
	    "export GRUB_CMDLINE_LINUX_DEFAULT=\"usermodehelper.inheritable=uevent:0x0\"\n");
	put(self->root, "etc/default/grub.d/50-mine.cfg",
	    "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT usermodehelper.uid=coredump:998\"\n");
	put(self->root, "etc/sysctl.d/50-umh.conf", "kernel.usermodehelper.request_key.bset = 0 0\n");
	put(self->root, "usr/lib/sysctl.d/50-umh.conf", "kernel.usermodehelper.initrd.bset = 0 0\n");
	put(self->root, "run/sysctl.d/60-umh.conf", "kernel.usermodehelper.other.gid = 7\n");
	put(self->root, "etc/sysctl.conf", "-kernel.usermodehelper.bset = 4294967295 0\n");

	/* boot: what else is in force beside what it wrote. */
	ASSERT_EQ(0, RUN(self->root, "boot", "--grub"));
	ASSERT_HAS(res.out, "\nalso set elsewhere, and in force beside these (each narrows):\n"
			    "  /etc/default/grub (GRUB_CMDLINE_LINUX, the recovery entries too): power bset 0x0\n"
			    "  /etc/default/grub (GRUB_CMDLINE_LINUX_DEFAULT): uevent inheritable 0x0\n"
			    "  /etc/default/grub.d/50-mine.cfg (GRUB_CMDLINE_LINUX_DEFAULT): coredump uid 998\n"
			    "  /etc/sysctl.conf: all bset 4294967295 0\n"
			    "  /etc/sysctl.d/50-umh.conf: request_key bset 0 0\n"
			    "  /run/sysctl.d/60-umh.conf: other gid 7\n"
			    "next: run update-grub");
	ASSERT_LACKS(res.out, "umhcap.cfg (");
	ASSERT_LACKS(res.out, "initrd");
	ASSERT_EQ(0, RUN(self->root, "--json", "boot", "--grub", "-n"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "elsewhere.0",
		       "{\"file\":\"/etc/default/grub\",\"var\":\"GRUB_CMDLINE_LINUX\",\"purpose\":\"power\",\"param\":\"bset\",\"value\":\"0x0\"}");
	ASSERT_JSON_AT(res.out, "elsewhere.5.file", "\"/run/sysctl.d/60-umh.conf\"");
	ASSERT_JSON_AT(res.out, "recovery_disabled_by", "null");

	/* --remove -n: what would be left, nothing removed. */
	put(self->root, KI_CMDLINE, "root=/dev/vda usermodehelper.bset=modprobe:0x10000\n");
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove", "--grub", "-n"));
	ASSERT_HAS(res.out, "\nstill set elsewhere, and in force from the next boot:\n");
	ASSERT_HAS(res.out, "\n  /" KI_CMDLINE ": modprobe bset 0x10000\n");
	ASSERT_LACKS(res.out, "umhcap.cfg (");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);

	/* --remove: umhcap.cfg and the items of /etc/kernel/cmdline gone, the rest named. */
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove"));
	ASSERT_FALSE(exists(self->root, GRUB_CFG));
	ASSERT_STREQ("root=/dev/vda\n", get(self->root, KI_CMDLINE));
	snprintf(want, sizeof(want), "removed %s/" GRUB_CFG "\n"
		 "took 1 usermodehelper.* item out of %s/" KI_CMDLINE "\n"
		 "still set elsewhere, and in force from the next boot:\n"
		 "  /etc/default/grub (GRUB_CMDLINE_LINUX, the recovery entries too): power bset 0x0\n",
		 self->root, self->root);
	ASSERT_STARTS(res.out, want);
	ASSERT_HAS(res.out, "\nnext: run update-grub, then reboot: what is still set elsewhere (above) holds from that boot; helpers start with open bounds only once it is gone too\n");
	ASSERT_LACKS(res.out, open_bounds);
	ASSERT_LACKS(res.out, "/" KI_CMDLINE ":");
	ASSERT_STREQ("", res.err);

	/* Nothing of umhcap's to remove: what is set is named all the same. */
	ASSERT_EQ(0, RUN(self->root, "--json", "boot", "--remove"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "removed", "[]");
	ASSERT_JSON_AT(res.out, "elsewhere.1.var", "\"GRUB_CMDLINE_LINUX_DEFAULT\"");
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove"));
	ASSERT_HAS(res.out, "\nset elsewhere, and in force from the next boot:\n");

	/* Only uids and gids left: no bound, but still not open as root. */
	put(self->root, "etc/default/grub", "GRUB_DEFAULT=0\n");
	rm_file(self->root, "etc/sysctl.d/50-umh.conf");
	rm_file(self->root, "usr/lib/sysctl.d/50-umh.conf");
	rm_file(self->root, "etc/sysctl.conf");
	ASSERT_EQ(0, RUN(self->root, "boot", "--grub"));
	ASSERT_EQ(0, RUN(self->root, "--json", "boot", "--remove"));
	ASSERT_JSON_AT(res.out, "removed.0.next", "\"run update-grub, then reboot: what is still set elsewhere (above) holds from that boot; helpers start with open bounds only once it is gone too\"");

	/* Nothing left anywhere: then, and only then, open bounds. */
	rm_file(self->root, "etc/default/grub.d/50-mine.cfg");
	rm_file(self->root, "run/sysctl.d/60-umh.conf");
	ASSERT_EQ(0, RUN(self->root, "boot", "--grub"));
	ASSERT_LACKS(res.out, "elsewhere");
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove"));
	snprintf(want, sizeof(want), "removed %s/" GRUB_CFG "\n"
		 "next: run update-grub, then reboot: %s\n", self->root, open_bounds);
	ASSERT_STREQ(want, res.out);
}

/*
 * GRUB_DISABLE_RECOVERY=true: update-grub makes no recovery entry, which
 * umhcap.cfg's comment and boot's way back count on: boot --grub warns,
 * wherever update-grub would read it, the last assignment winning.
 */
TEST_F(umh, boot_warns_without_recovery)
{
	static const char warning[] = "sets GRUB_DISABLE_RECOVERY=true: update-grub makes no recovery entry";
	char want[PATH_MAX + 256];

	learn_scene(self->root);
	put(self->root, "etc/default/grub", "GRUB_DEFAULT=0\nGRUB_DISABLE_RECOVERY=\"true\"\n");
	ASSERT_EQ(0, RUN(self->root, "boot", "-n"));
	snprintf(want, sizeof(want), "umhcap: warning: %s/etc/default/grub %s", self->root, warning);
	ASSERT_STARTS(res.err, want);
	ASSERT_EQ(1, count_of(res.err, "\n"));
	ASSERT_EQ(0, RUN(self->root, "boot"));
	ASSERT_HAS(res.err, warning);
	ASSERT_TRUE(exists(self->root, GRUB_CFG));
	ASSERT_EQ(0, RUN(self->root, "--json", "boot"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "recovery_disabled_by", "\"/etc/default/grub\"");
	/* Unquoted, in a file of grub.d; undone by a later false. */
	put(self->root, "etc/default/grub", "GRUB_DISABLE_RECOVERY=false\n");
	ASSERT_EQ(0, RUN(self->root, "boot"));
	ASSERT_STREQ("", res.err);
	put(self->root, "etc/default/grub.d/60-x.cfg", "GRUB_DISABLE_RECOVERY=true\n");
	ASSERT_EQ(0, RUN(self->root, "boot"));
	ASSERT_HAS(res.err, "/etc/default/grub.d/60-x.cfg sets GRUB_DISABLE_RECOVERY=true");
	put(self->root, "etc/default/grub.d/70-y.cfg", "GRUB_DISABLE_RECOVERY='false'\n");
	ASSERT_EQ(0, RUN(self->root, "boot"));
	ASSERT_STREQ("", res.err);
	/* A comment says nothing; kernel-install makes no recovery entry of its own. */
	rm_file(self->root, "etc/default/grub.d/70-y.cfg");
	put(self->root, "etc/default/grub.d/60-x.cfg", "# GRUB_DISABLE_RECOVERY=true\n");
	ASSERT_EQ(0, RUN(self->root, "boot"));
	ASSERT_STREQ("", res.err);
	put(self->root, "etc/default/grub.d/60-x.cfg", "GRUB_DISABLE_RECOVERY=true\n");
	ASSERT_EQ(0, RUN(self->root, "boot", "--kernel-install"));
	ASSERT_STREQ("", res.err);
}

/*
 * Under --root, no link leads out of the root (as in status_test.c's
 * status_reads_no_link_out_of_the_root): /etc/default/grub.d and
 * /etc/kernel/cmdline, links to ROOT.out on this machine, are the root's,
 * read, written and removed in it; ROOT.out's cmdline, and the umhcap.cfg
 * its grub.d holds, are never read, and ROOT.out stays as it was.
 */
TEST_F(umh, boot_writes_no_link_out_of_the_root)
{
	static const char *const theirs[] = {
		"outside_marker", "0x4242", "0x4244",
	};
	const char *out = outside(self->root);
	char cfg[PATH_MAX], ki[PATH_MAX], want[PATH_MAX + 64];
	char *before, *after;
	size_t i;

	learn_scene(self->root);
	put(out, "grub.d/umhcap.cfg",
	    "GRUB_CMDLINE_LINUX=\"usermodehelper.bset=power:0x4242\"\n");
	put(out, "cmdline", "outside_marker=1 usermodehelper.bset=uevent:0x4244\n");
	link_to(self->root, "etc/default/grub.d", out, "grub.d");
	link_to(self->root, KI_CMDLINE, out, "cmdline");
	/* Where the links lead in the root. */
	snprintf(cfg, sizeof(cfg), "%s/grub.d/umhcap.cfg", out + 1);
	snprintf(ki, sizeof(ki), "%s/cmdline", out + 1);
	before = tree(out);
	/*
	 * The root has no /etc/kernel/cmdline (its link leads nowhere in
	 * it): --grub, and a umhcap.cfg to write, none to remove.
	 */
	ASSERT_EQ(0, RUN(self->root, "boot", "-n"));
	for (i = 0; i < ARRAY_SIZE(theirs); i++)
		ASSERT_LACKS(res.out, theirs[i]);
	snprintf(want, sizeof(want), "would write the above to %s/" GRUB_CFG "\n",
		 self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(0, RUN(self->root, "--json", "boot", "-n"));
	for (i = 0; i < ARRAY_SIZE(theirs); i++)
		ASSERT_LACKS(res.out, theirs[i]);
	ASSERT_EQ(0, RUN(self->root, "boot", "-n", "--kernel-install"));
	for (i = 0; i < ARRAY_SIZE(theirs); i++)
		ASSERT_LACKS(res.out, theirs[i]);
	/* Made from /proc/cmdline, the root's. */
	ASSERT_STARTS(res.out, "root=/dev/vda console=ttyS0 usermodehelper.");
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove", "-n"));
	for (i = 0; i < ARRAY_SIZE(theirs); i++)
		ASSERT_LACKS(res.out, theirs[i]);
	ASSERT_HAS(res.out, "nothing to remove");
	ASSERT_EQ(0, RUN(self->root, "--json", "boot", "--remove", "-n"));
	for (i = 0; i < ARRAY_SIZE(theirs); i++)
		ASSERT_LACKS(res.out, theirs[i]);
	ASSERT_JSON_AT(res.out, "removed", "[]");
	/* Written, then removed, in the root. */
	ASSERT_EQ(0, RUN(self->root, "boot", "--grub")) TH_LOG("%s", res.err);
	ASSERT_HAS(get(self->root, cfg), "usermodehelper.bset=modprobe:");
	ASSERT_EQ(0, RUN(self->root, "boot", "--kernel-install")) TH_LOG("%s", res.err);
	ASSERT_STARTS(get(self->root, ki), "root=/dev/vda console=ttyS0 usermodehelper.");
	ASSERT_EQ(0, RUN(self->root, "boot", "--remove")) TH_LOG("%s", res.err);
	ASSERT_FALSE(exists(self->root, cfg));
	ASSERT_STREQ("root=/dev/vda console=ttyS0\n", get(self->root, ki));
	after = tree(out);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}
