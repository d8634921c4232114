// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap learn, on this boot's record and merged with
 * saved boots (learn.c, learnedbounds.c, savedboots.c).
 */
#include "common.h"

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
		 "{\"version\":2,\"cap_bits\":%d,\"started\":6,"
		 "\"used\":\"0x10003\",\"used_caps\":[\"cap_chown\","
		 "\"cap_dac_override\",\"cap_sys_module\"],\"purposes\":[",
		 cap_max_bits());
	ASSERT_EQ(0, strncmp(res.out, want, strlen(want))) {
		TH_LOG("want %s at the start of:\n%s", want, res.out);
	}
	snprintf(want, sizeof(want),
		 "{\"purpose\":\"modprobe\",\"started\":4,"
		 "\"used\":\"0x10000\",\"used_caps\":[\"cap_sys_module\"],"
		 "\"idle\":false,\"allowed\":\"0x%" PRIx64 "\",", full());
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
			    "\"learned_inheritable_caps\":[\"cap_chown\"],\"refused\":[]}");
	snprintf(want, sizeof(want),
		 "{\"purpose\":\"uevent\",\"started\":0,"
		 "\"used\":\"0x0\",\"used_caps\":[],\"idle\":true,\"allowed\":\"0x%" PRIx64 "\"",
		 full());
	ASSERT_HAS(res.out, want);
	snprintf(want, sizeof(want), "\"learned_bset\":\"0x%" PRIx64 "\"",
		 full());
	ASSERT_HAS(res.out, want);
	ASSERT_EQ((int)NR_PURPOSES, count_of(res.out, "{\"purpose\":"));
	/* With --include-idle, idle purposes are learned as nothing. */
	ASSERT_EQ(0, RUN(self->root, "--json", "learn", "--include-idle"));
	ASSERT_JSON(res.out);
	ASSERT_HAS(res.out, "\"purpose\":\"other\",\"started\":0,\"used\":\"0x0\",\"used_caps\":[],\"idle\":true,");
	ASSERT_EQ((int)NR_PURPOSES - 2, count_of(res.out, "\"learned_bset\":\"0x0\""));
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
	ASSERT_HAS(res.out, applied(2, 0));
	ASSERT_STREQ("", res.err);
	/* Again: nothing left to narrow, nothing written. */
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), B(CAP_SYS_MODULE));
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply"));
	ASSERT_HAS(res.out, "modprobe: no wider than what its helpers used (cap_sys_module); unchanged\n");
	ASSERT_STREQ(kernel_fmt(B(CAP_SYS_MODULE)),
		     get(self->root, UMH "/modprobe/bset"));
	ASSERT_HAS(res.out, applied(0, 2));
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
	ASSERT_HAS(res.out, applied(1, 1));
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
	snprintf(want, sizeof(want), "-n, nothing written: %s\n", applied(2, 0));
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(0, RUN(self->root, "learn", "--dry-run", "--apply",
			 "--include-idle"));
	snapshot(self->root, after, sizeof(after));
	ASSERT_STREQ(before, after);
	ASSERT_HAS(res.out, "/other/bset (none)\n");
	/* -n alone would read as if it applied something: refused. */
	ASSERT_EQ(2, RUN(self->root, "learn", "-n"));
	ASSERT_HAS(res.err, "-n/--dry-run goes with --apply");
}

/*
 * --json: one object once every bound is written, each purpose's action
 * and bounds before and after; with -n, the same and nothing written.
 */
TEST_F(umh, learn_apply_json)
{
	char before[8192], after[8192], want[64];

	learn_scene(self->root);
	set_bound(self->root, "power", B(CAP_KILL), B(CAP_KILL));
	set_record(self->root, "power", B(CAP_KILL), 1);
	snapshot(self->root, before, sizeof(before));
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply", "-n", "--json"));
	snapshot(self->root, after, sizeof(after));
	ASSERT_STREQ(before, after);
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "dry_run", "true");
	ASSERT_JSON_AT(res.out, "purposes.0.purpose", "\"modprobe\"");
	ASSERT_JSON_AT(res.out, "purposes.0.action", "\"narrowed\"");
	ASSERT_LACKS(res.out, "would write");

	ASSERT_EQ(0, RUN(self->root, "--json", "learn", "--apply"));
	ASSERT_JSON(res.out);
	ASSERT_STREQ("", res.err);
	ASSERT_JSON_AT(res.out, "command", "\"learn --apply\"");
	ASSERT_JSON_AT(res.out, "dry_run", "false");
	ASSERT_JSON_AT(res.out, "learned_from.saved_boots", "0");
	ASSERT_JSON_AT(res.out, "purposes.0.purpose", "\"modprobe\"");
	ASSERT_JSON_AT(res.out, "purposes.0.action", "\"narrowed\"");
	snprintf(want, sizeof(want), "\"0x%llx\"", (unsigned long long)full());
	ASSERT_JSON_AT(res.out, "purposes.0.bset_before", want);
	snprintf(want, sizeof(want), "\"0x%llx\"",
		 (unsigned long long)B(CAP_SYS_MODULE));
	ASSERT_JSON_AT(res.out, "purposes.0.bset_after", want);
	ASSERT_JSON_AT(res.out, "purposes.0.inheritable_after", want);
	ASSERT_JSON_AT(res.out, "purposes.1.purpose", "\"coredump\"");
	/* Already what it used, and an idle purpose: as they were. */
	ASSERT_JSON_AT(res.out, "purposes.5.purpose", "\"power\"");
	ASSERT_JSON_AT(res.out, "purposes.5.action", "\"unchanged\"");
	snprintf(want, sizeof(want), "\"0x%llx\"",
		 (unsigned long long)B(CAP_KILL));
	ASSERT_JSON_AT(res.out, "purposes.5.bset_after", want);
	ASSERT_JSON_AT(res.out, "purposes.2.purpose", "\"uevent\"");
	ASSERT_JSON_AT(res.out, "purposes.2.action", "\"idle\"");
	snprintf(want, sizeof(want), "\"0x%llx\"", (unsigned long long)full());
	ASSERT_JSON_AT(res.out, "purposes.2.bset_after", want);
	ASSERT_JSON_AT(res.out, "narrowed", "2");
	ASSERT_JSON_AT(res.out, "unchanged", "1");
	snprintf(want, sizeof(want), "%zu", NR_PURPOSES - 3);
	ASSERT_JSON_AT(res.out, "idle", want);
	ASSERT_LACKS(res.out, "narrowed to what");
	/* Written, as without --json. */
	ASSERT_STREQ(written(B(CAP_SYS_MODULE)),
		     get(self->root, UMH "/modprobe/bset"));
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
	ASSERT_HAS(res.out, applied(NR_PURPOSES, 0));
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
		 "    \"coredump\":{\"uid\":%u,\"gid\":%u}\n  },",
		 w.uid, w.gid);
	ASSERT_HAS(res.out, want);
	/* --apply narrows the bounds, and leaves the identity. */
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply"));
	ASSERT_STREQ(written(CD_USED), get(self->root, UMH "/coredump/bset"));
	ASSERT_STREQ(ident(w.uid, w.gid), ident_of(self->root, "coredump"));
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
	ASSERT_HAS(res.out, "{\"version\":2,");
	ASSERT_HAS(res.out, ",\"started\":12,");
	ASSERT_HAS(res.out, "{\"purpose\":\"modprobe\",\"started\":5,\"used\":\"0x10020\",");
	ASSERT_HAS(res.out, ",\"learned_from\":{\"boot_id\":\"" THIS_BOOT "\","
			    "\"this_boot_only\":false,\"saved_boots\":2,"
			    "\"first_saved\":1700000000,\"last_saved\":1700086400,"
			    "\"superseded\":false,\"files_refused\":0,"
			    "\"since\":null,\"last\":null,\"skipped\":0,\"machines\":null,"
			    "\"boots_dir\":\"/var/lib/umhcap/boots\"}\n}\n");
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
	ASSERT_HAS(res.out, applied(4, 0));
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
	ASSERT_HAS(res.err, "--state-dir, --this-boot, --since, --last, --from and --allow go with --learned");
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
		{ "\npower started", "\nbogus started", "line 11: expected boot_id, saved, btime, kernel, or a purpose's name" },
		{ "boot_id " BOOT_A, "boot_id " BOOT_B, "its boot_id is not its name" },
		{ "other started 0 used 0 0\n", "other started 0 used 0 0", "not ended by a newline" },
	};
	char rel[256], want[PATH_MAX + 256];
	const char *good;
	size_t i;

	NEEDS_ROOT();

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
