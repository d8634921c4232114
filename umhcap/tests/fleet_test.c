// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of a fleet (fleet.c): learn --from and export --learned
 * --from over the saved boots of three machines, gathered as rsync or
 * Ansible's fetch leave them, under the fake root; nothing of the
 * machine umhcap runs on read.
 */
#include "common.h"

#define WEB1	"fleet/web1"		/* fetch: web1/var/lib/umhcap/boots */
#define WEB2	"fleet/web2"		/* web2/boots */
#define DB1	"fleet/db1"		/* the boots themselves */
#define W1A	"11111111-0000-4000-8000-000000000001"
#define W1B	"11111111-0000-4000-8000-000000000002"
#define W2A	"22222222-0000-4000-8000-000000000001"
#define D1A	"33333333-0000-4000-8000-000000000001"

/* A saved boot of @dir, its modprobe helpers having used @modprobe. */
static void machine_boot(const char *root, const char *dir, const char *id,
			 long long saved, const char *kernel, uint64_t modprobe,
			 unsigned long long coredump)
{
	const struct boot_rec r = {
		.started = { 2 + coredump, 2, coredump },
		.used = { modprobe | (coredump ? CD_USED : 0), modprobe,
			  coredump ? CD_USED : 0 },
	};
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/%s", dir, id);
	put(root, rel, "%s%s%s%s", saved_text(id, saved, &r),
	    kernel ? "kernel " : "", kernel ?: "", kernel ? "\n" : "");
}

/*
 * Three machines: web1 (two boots) and db1 used cap_sys_module for
 * modprobe, web2 cap_kill besides; db1 ran another kernel; coredump
 * started on web1 and db1.
 */
static void fleet(const char *root)
{
	/* Each test runs in a process of its own: only its own cwd. */
	if (chdir(root))
		abort();
	machine_boot(root, WEB1 "/var/lib/umhcap/boots", W1A, SAVED_A,
		     "6.12.118-umhcap", B(CAP_SYS_MODULE), 1);
	machine_boot(root, WEB1 "/var/lib/umhcap/boots", W1B, SAVED_B,
		     "6.12.118-umhcap", B(CAP_SYS_MODULE), 0);
	machine_boot(root, WEB2 "/boots", W2A, SAVED_B + 100,
		     "6.12.118-umhcap", B(CAP_SYS_MODULE) | B(CAP_KILL), 0);
	machine_boot(root, DB1, D1A, SAVED_B + 200, "6.12.110",
		     B(CAP_SYS_MODULE), 1);
}

/*
 * RUN with --from fleet/web1 ... after @args: paths as given, from the
 * directory the command runs in, which the test makes ROOT.
 */
#define FROM(root, ...)	run_argv(root, true, (const char *[]){ __VA_ARGS__,	\
	"--from", WEB1, "--from", WEB2, "--from", DB1, NULL })

/*
 * learn --from: how many machines and boots each purpose was learned
 * from, and the machines whose record disagrees; nothing of this machine.
 */
TEST_F(umh, fleet_learn)
{
	char *before, *after;

	fleet(self->root);
	/* This machine's own record and saved boots are no part of it. */
	learn_scene(self->root);
	two_saved_boots(self->root);
	before = tree(self->root);
	ASSERT_EQ(0, FROM(self->root, "learn"));
	ASSERT_STREQ("", res.err);
	ASSERT_STARTS(res.out,
		      "learned from 3 machines: 4 saved boots (saved 2023-11-14T22:13:20Z to 2023-11-15T22:16:40Z)\n\n"
		      "MACHINE     BOOTS  KERNEL\n"
		      "fleet/web1      2  6.12.118-umhcap\n"
		      "fleet/web2      1  6.12.118-umhcap\n"
		      "fleet/db1       1  6.12.110\n\n"
		      "all (every helper): 10 helpers started in 4 boots\n");
	ASSERT_HAS(res.out, "\nmodprobe: 8 helpers started, learned from 4 of 4 boots on 3 of 3 machines\n"
			    "  used:        cap_kill, cap_sys_module\n"
			    "  learned:     cap_kill, cap_sys_module\n"
			    "coredump: 2 helpers started, learned from 2 of 4 boots on 2 of 3 machines\n");
	ASSERT_HAS(res.out, "\nuevent: no helper started in 4 boots (idle: left open)\n");
	ASSERT_HAS(res.out, "\nmachines whose record disagrees:\n"
			    "  modprobe: fleet/web1 never used cap_kill, which fleet/web2 used\n"
			    "  modprobe: fleet/db1 never used cap_kill, which fleet/web2 used\n"
			    "  kernels differ: 6.12.110 on fleet/db1; 6.12.118-umhcap on fleet/web1, fleet/web2\n");
	/* Not this machine's: no "this boot", nothing of its record. */
	ASSERT_LACKS(res.out, "this boot");
	ASSERT_LACKS(res.out, "cap_fowner");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);

	ASSERT_EQ(0, FROM(self->root, "--json", "learn", "modprobe", "coredump"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "version", "2");
	ASSERT_JSON_AT(res.out, "started", "10");
	ASSERT_JSON_AT(res.out, "purposes.0.started", "8");
	ASSERT_JSON_AT(res.out, "purposes.0.learned_bset_caps", "[\"cap_kill\",\"cap_sys_module\"]");
	ASSERT_JSON_AT(res.out, "purposes.0.refused", "[]");
	ASSERT_JSON_AT(res.out, "learned_from.saved_boots", "4");
	ASSERT_JSON_AT(res.out, "learned_from.machines", "3");
	ASSERT_JSON_AT(res.out, "learned_from.boots_dir", "null");
	ASSERT_JSON_AT(res.out, "learned_from.boot_id", "null");
	ASSERT_JSON_AT(res.out, "fleet.machines.1.saved_boots", "1");
	ASSERT_JSON_AT(res.out, "fleet.machines.1.used_caps", "[\"cap_kill\",\"cap_sys_module\"]");
	ASSERT_JSON_AT(res.out, "fleet.machines.2.kernels", "[\"6.12.110\"]");
	ASSERT_JSON_AT(res.out, "fleet.purposes.0", "{\"purpose\":\"modprobe\",\"boots\":4,\"machines\":3}");
	ASSERT_JSON_AT(res.out, "fleet.purposes.1", "{\"purpose\":\"coredump\",\"boots\":2,\"machines\":2}");
	ASSERT_JSON_AT(res.out, "fleet.disagreements.1.purpose", "\"modprobe\"");
	ASSERT_JSON_AT(res.out, "fleet.disagreements.1.lacks_caps", "[\"cap_kill\"]");
	ASSERT_EQ(NULL, json_get(res.out, "fleet.disagreements.2"));
	ASSERT_JSON_AT(res.out, "fleet.kernels.1.kernel", "\"6.12.118-umhcap\"");
	ASSERT_JSON_AT(res.out, "fleet.duplicates", "0");
	ASSERT_JSON_AT(res.out, "fleet.disagreements.1.machine", "\"fleet/db1\"");
	ASSERT_JSON_AT(res.out, "fleet.disagreements.1.used_by", "[\"fleet/web2\"]");
	ASSERT_JSON_AT(res.out, "fleet.machines.0.boots_dir", "\"fleet/web1/var/lib/umhcap/boots\"");
	ASSERT_JSON_AT(res.out, "fleet.machines.1.boots_dir", "\"fleet/web2/boots\"");
	ASSERT_JSON_AT(res.out, "fleet.machines.2.boots_dir", "\"fleet/db1\"");
}

/* Records that agree: said so. */
TEST_F(umh, fleet_that_agrees)
{
	fleet(self->root);
	machine_boot(self->root, WEB2 "/boots", W2A, SAVED_B + 100,
		     "6.12.110", B(CAP_SYS_MODULE), 0);
	rm_file(self->root, WEB1 "/var/lib/umhcap/boots/" W1A);
	machine_boot(self->root, WEB1 "/var/lib/umhcap/boots", W1B, SAVED_B,
		     "6.12.110", B(CAP_SYS_MODULE), 1);
	ASSERT_EQ(0, FROM(self->root, "learn"));
	ASSERT_HAS(res.out, "\nno machine's record disagrees with another's: where a purpose ran, it\n"
			    "used the same on each, and every boot ran the same kernel\n");
	ASSERT_LACKS(res.out, "machines whose record disagrees");
}

/*
 * export --learned --from: the bounds the fleet's records lead to, for
 * the machines; a note of what it learned from on stderr; -o's comment.
 */
TEST_F(umh, fleet_export)
{
	char *text;

	fleet(self->root);
	ASSERT_EQ(0, FROM(self->root, "export", "--learned", "--cmdline"));
	ASSERT_STREQ("usermodehelper.bset=modprobe:0x10020,coredump:0x3 usermodehelper.inheritable=modprobe:0x10020,coredump:0x3\n",
		     res.out);
	ASSERT_HAS(res.err, "umhcap: note: learned from 3 machines: 4 saved boots (saved 2023-11-14T22:13:20Z to 2023-11-15T22:16:40Z); 3 disagreements among their records (umhcap learn --from names them)\n");
	ASSERT_EQ(0, FROM(self->root, "export", "--learned", "--sysctl"));
	ASSERT_HAS(res.out, "kernel.usermodehelper.modprobe.bset = 65568\t0\n");
	mkdir_p(at(self->root, "etc/sysctl.d"));
	ASSERT_EQ(0, FROM(self->root, "export", "--learned", "--sysctl", "-o", "/etc/sysctl.d/50-fleet.conf"));
	text = slurp_file(at(self->root, "etc/sysctl.d/50-fleet.conf"));
	ASSERT_NE(NULL, text);
	ASSERT_HAS(text, "bounds of usermode helpers learned from 3 machines: 4 saved boots");
	ASSERT_HAS(text, "kernel.usermodehelper.coredump.bset = 3\t0\n");
	free(text);
	ASSERT_EQ(0, FROM(self->root, "export", "--learned", "--json"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "learned_from.machines", "3");
	ASSERT_JSON_AT(res.out, "fleet.purposes.0", "{\"purpose\":\"modprobe\",\"boots\":4,\"machines\":3}");
	/* --allow, for the fleet too; --since and --last, per machine. */
	ASSERT_EQ(0, FROM(self->root, "export", "--learned", "--cmdline", "--allow", "coredump:cap_fowner"));
	ASSERT_HAS(res.out, "coredump:0xb ");
	ASSERT_EQ(0, FROM(self->root, "export", "--learned", "--cmdline", "--last", "1"));
	ASSERT_HAS(res.err, "learned from 3 machines: 3 saved boots");
	ASSERT_HAS(res.err, "; 1 older saved boot left out (--last 1)");
	ASSERT_EQ(0, FROM(self->root, "export", "--learned", "--cmdline", "--since", "2023-11-15"));
	ASSERT_HAS(res.err, "learned from 3 machines: 3 saved boots");
	/* Without the kernel's record here: the fleet's still learned. */
	unpatch(self->root);
	ASSERT_EQ(0, FROM(self->root, "export", "--learned", "--cmdline"));
	ASSERT_HAS(res.out, "modprobe:0x10020");
}

/*
 * What is wrong is said, exit 2, nothing written: a DIR that is none,
 * options that are this machine's; a boot under two machines merged
 * once; a machine with no boot warned of.
 */
TEST_F(umh, fleet_errors)
{
	char *before, *after;

	fleet(self->root);
	learn_scene(self->root);
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "learn", "--from", "fleet/none"));
	ASSERT_STREQ("umhcap: --from fleet/none: not a directory; give each machine's copy of /var/lib/umhcap/boots\n",
		     res.err);
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(2, RUN(self->root, "learn", "--from", ""));
	ASSERT_HAS(res.err, "umhcap: bad --from \"\"");
	ASSERT_EQ(2, FROM(self->root, "learn", "--apply"));
	ASSERT_HAS(res.err, "umhcap: --from learns a fleet's bounds from their saved boots, not this machine's");
	ASSERT_EQ(2, FROM(self->root, "learn", "--this-boot"));
	ASSERT_EQ(2, FROM(self->root, "learn", "--state-dir", "/var/lib/umhcap"));
	ASSERT_EQ(2, FROM(self->root, "export", "--cmdline"));
	ASSERT_HAS(res.err, "--from and --allow go with --learned");
	ASSERT_EQ(2, FROM(self->root, "export", "--learned", "--cmdline", "--this-boot"));
	ASSERT_HAS(res.err, "--from learns from the machines' saved boots, not this machine's");
	ASSERT_EQ(2, FROM(self->root, "boot", "-n"));
	ASSERT_HAS(res.err, "unknown option \"--from\"; usage: umhcap boot");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	/* The same boot under two machines: merged once, said. */
	machine_boot(self->root, DB1, W2A, SAVED_B + 100,
		     "6.12.118-umhcap", B(CAP_SYS_MODULE) | B(CAP_KILL), 0);
	ASSERT_EQ(0, FROM(self->root, "learn", "modprobe"));
	ASSERT_STREQ("umhcap: warning: boot " W2A " is both fleet/web2's and fleet/db1's: merged once, as fleet/web2's\n",
		     res.err);
	ASSERT_HAS(res.out, "learned from 3 machines: 4 saved boots");
	/* A machine with nothing: warned, learned from the others. */
	mkdir_p(at(self->root, "fleet/empty"));
	ASSERT_EQ(0, run_argv(self->root, true, (const char *[]){ "learn",
		"--from", WEB1, "--from", "fleet/empty/", NULL }));
	ASSERT_STREQ("umhcap: warning: --from fleet/empty: no saved boot merged from fleet/empty\n",
		     res.err);
	ASSERT_HAS(res.out, "learned from 2 machines: 2 saved boots");
}
