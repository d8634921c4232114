// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap status (status.c): the one-screen view.
 */
#include "common.h"

#define SYSCTL_D	"etc/sysctl.d/50-umhcap.conf"

/*
 * The record, each purpose's ceiling, identity and helpers started, where
 * each bound of the next boot is set, file by file, the saved boots and
 * this boot's refusals; the same as JSON; and nothing written.
 */
TEST_F(umh, status_one_screen)
{
	char *before, *after;

	learn_scene(self->root);
	two_saved_boots(self->root);
	set_ident(self->root, "coredump", 59998, 59998);
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), B(CAP_SYS_MODULE));
	put(self->root, "etc/default/grub",
	    "GRUB_CMDLINE_LINUX=\"quiet usermodehelper.bset=power:0x0\"\n"
	    "# GRUB_CMDLINE_LINUX=\"usermodehelper.bset=initrd:0x0\"\n");
	put(self->root, GRUB_CFG,
	    "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT usermodehelper.bset=modprobe:0x10000,coredump:0x3 usermodehelper.inheritable=modprobe:0x10000\"\n");
	put(self->root, SYSCTL_D,
	    "kernel.usermodehelper.coredump.uid = 998\n"
	    "-kernel.usermodehelper.bset = 4294967295\t511\n");
	put(self->root, "dev/kmsg",
	    "4,1,1,-;umh: refused a capability its bounds withhold: purpose=modprobe pid=7 comm=\"m\" exe=\"/usr/bin/kmod\" uid=0 cap=12\n");
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "status"));
	ASSERT_STREQ("", res.err);
	ASSERT_STARTS(res.out, "record: on, 6 helpers started since boot\n"
		      "saved boots: 2 in /var/lib/umhcap/boots (umhcap learn merges them)\n"
		      "refusals this boot: 1 (umhcap refusals; from /dev/kmsg)\n");
	ASSERT_HAS(res.out, "\nmodprobe       4        root                 cap_sys_module\n");
	ASSERT_HAS(res.out, "\ncoredump       2        59998:59998          all\n");
	ASSERT_HAS(res.out, "\n  all            bset 4294967295 511 (/etc/sysctl.d/50-umhcap.conf)\n");
	ASSERT_HAS(res.out, "\n  modprobe       bset 0x10000 (/etc/default/grub.d/umhcap.cfg); inheritable 0x10000 (/etc/default/grub.d/umhcap.cfg)\n");
	ASSERT_HAS(res.out, "\n  coredump       bset 0x3 (/etc/default/grub.d/umhcap.cfg); uid 998 (/etc/sysctl.d/50-umhcap.conf)\n");
	ASSERT_HAS(res.out, "\n  power          bset 0x0 (/etc/default/grub)\n");
	/* A comment sets nothing. */
	ASSERT_HAS(res.out, "\n  initrd         set nowhere: open, as root\n");
	ASSERT_LACKS(res.out, self->root);
	ASSERT_EQ(0, RUN(self->root, "--json", "status"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "version", "2");
	ASSERT_JSON_AT(res.out, "record", "true");
	ASSERT_JSON_AT(res.out, "started", "6");
	ASSERT_JSON_AT(res.out, "purposes.0.purpose", "\"all\"");
	ASSERT_JSON_AT(res.out, "purposes.0.identity", "null");
	ASSERT_JSON_AT(res.out, "purposes.1.purpose", "\"modprobe\"");
	ASSERT_JSON_AT(res.out, "purposes.1.identity", "{\"uid\":0,\"gid\":0}");
	ASSERT_JSON_AT(res.out, "purposes.1.started", "4");
	ASSERT_JSON_AT(res.out, "purposes.1.ceiling", "\"0x10000\"");
	ASSERT_JSON_AT(res.out, "purposes.1.next_boot.1",
		       "{\"param\":\"inheritable\",\"value\":\"0x10000\",\"file\":\"/etc/default/grub.d/umhcap.cfg\"}");
	ASSERT_JSON_AT(res.out, "purposes.2.next_boot.1.file", "\"/etc/sysctl.d/50-umhcap.conf\"");
	ASSERT_JSON_AT(res.out, "saved_boots", "2");
	ASSERT_JSON_AT(res.out, "refusals.0.cap", "\"cap_net_admin\"");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* Nothing set anywhere, no record, no saved boot: said plainly. */
TEST_F(umh, status_of_a_fresh_machine)
{
	rm_file(self->root, UMH "/used");
	ASSERT_EQ(0, RUN(self->root, "status"));
	ASSERT_HAS(res.out, "record: off: this kernel keeps no record of what helpers use (no ");
	ASSERT_HAS(res.out, "saved boots: 0 in /var/lib/umhcap/boots");
	ASSERT_HAS(res.out, "refusals this boot: 0 ");
	ASSERT_HAS(res.out, "no file sets one: the next boot's helpers start with open bounds, as root\n");
	ASSERT_EQ(0, RUN(self->root, "status", "--json"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "record", "false");
	ASSERT_JSON_AT(res.out, "purposes.1.next_boot", "[]");
	/* --help, and an argument it does not take. */
	ASSERT_EQ(0, RUN(self->root, "status", "--help"));
	ASSERT_STARTS(res.out, "usage: umhcap status [--json] [--state-dir DIR]\n");
	ASSERT_EQ(2, RUN(self->root, "status", "modprobe"));
	ASSERT_HAS(res.err, "usage: umhcap status");
}

/*
 * A bound set only in kernel-install's /etc/kernel/cmdline, the command
 * line a kernel is installed with: status names that file as where the
 * next boot's bound comes from, in text and in JSON.
 */
TEST_F(umh, status_names_kernel_cmdline)
{
	put(self->root, KI_CMDLINE,
	    "root=/dev/vda ro usermodehelper.bset=uevent:0x8000000,power:0x0 usermodehelper.inheritable=uevent:0x8000000\n");
	ASSERT_EQ(0, RUN(self->root, "status"));
	ASSERT_STREQ("", res.err);
	ASSERT_HAS(res.out, "\n  uevent         bset 0x8000000 (/etc/kernel/cmdline); inheritable 0x8000000 (/etc/kernel/cmdline)\n");
	ASSERT_HAS(res.out, "\n  power          bset 0x0 (/etc/kernel/cmdline)\n");
	ASSERT_HAS(res.out, "\n  all            set nowhere: open\n");
	ASSERT_HAS(res.out, "\n  modprobe       set nowhere: open, as root\n");
	ASSERT_LACKS(res.out, "no file sets one");
	ASSERT_EQ(0, RUN(self->root, "--json", "status"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "purposes.3.purpose", "\"uevent\"");
	ASSERT_JSON_AT(res.out, "purposes.3.next_boot",
		       "[{\"param\":\"bset\",\"value\":\"0x8000000\",\"file\":\"/etc/kernel/cmdline\"},"
		       "{\"param\":\"inheritable\",\"value\":\"0x8000000\",\"file\":\"/etc/kernel/cmdline\"}]");
	ASSERT_JSON_AT(res.out, "purposes.6.purpose", "\"power\"");
	ASSERT_JSON_AT(res.out, "purposes.6.next_boot.0.file", "\"/etc/kernel/cmdline\"");
	ASSERT_JSON_AT(res.out, "purposes.0.next_boot", "[]");
}

/*
 * Under --root, no link leads out of the root: an absolute one is the
 * root's own, resolved in it, as its system resolves it booted.  Links
 * to a directory and files of this machine's (ROOT.out), each of which
 * sets a bound no file of the root sets, are read in the root, where
 * their targets set others; nothing of ROOT.out is read, or changed.
 */
TEST_F(umh, status_reads_no_link_out_of_the_root)
{
	const char *out = outside(self->root);
	char target[PATH_MAX], *before, *after;
	static const char *const theirs[] = {
		"0x4242", "0x4243", "0x4244", "4245", "/etc/default/grub.d/99-out.cfg",
	};
	size_t i;

	put(out, "grub.d/99-out.cfg",
	    "GRUB_CMDLINE_LINUX=\"usermodehelper.bset=power:0x4242\"\n");
	put(out, "grub", "GRUB_CMDLINE_LINUX=\"usermodehelper.bset=initrd:0x4243\"\n");
	put(out, "cmdline", "root=/dev/vda usermodehelper.bset=uevent:0x4244\n");
	put(out, "60-out.conf", "kernel.usermodehelper.modprobe.bset = 4245 0\n");
	link_to(self->root, "etc/default/grub.d", out, "grub.d");
	link_to(self->root, "etc/default/grub", out, "grub");
	link_to(self->root, KI_CMDLINE, out, "cmdline");
	link_to(self->root, "etc/sysctl.d/60-out.conf", out, "60-out.conf");
	/* Where the links lead in the root. */
	snprintf(target, sizeof(target), "%s/grub.d/10-in.cfg", out + 1);
	put(self->root, target,
	    "GRUB_CMDLINE_LINUX=\"usermodehelper.bset=power:0x10\"\n");
	snprintf(target, sizeof(target), "%s/cmdline", out + 1);
	put(self->root, target, "root=/dev/vda usermodehelper.bset=uevent:0x11\n");
	before = tree(out);
	ASSERT_EQ(0, RUN(self->root, "status"));
	for (i = 0; i < ARRAY_SIZE(theirs); i++)
		ASSERT_LACKS(res.out, theirs[i]);
	ASSERT_HAS(res.out, "\n  power          bset 0x10 (/etc/default/grub.d/10-in.cfg)\n");
	ASSERT_HAS(res.out, "\n  uevent         bset 0x11 (/etc/kernel/cmdline)\n");
	ASSERT_HAS(res.out, "\n  initrd         set nowhere: open, as root\n");
	ASSERT_HAS(res.out, "\n  modprobe       set nowhere: open, as root\n");
	ASSERT_EQ(0, RUN(self->root, "--json", "status"));
	ASSERT_JSON(res.out);
	for (i = 0; i < ARRAY_SIZE(theirs); i++)
		ASSERT_LACKS(res.out, theirs[i]);
	after = tree(out);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}
