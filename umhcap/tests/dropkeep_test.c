// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap drop and umhcap keep (dropkeep.c).
 */
#include "common.h"

TEST_F(umh, drop_global)
{
	uint64_t want = full() & ~B(CAP_SYS_MODULE);

	ASSERT_EQ(0, RUN(self->root, "drop", "-p", "all", "cap_sys_module"));
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
	ASSERT_EQ(0, RUN(self->root, "drop", "-p", "all", "cap_sys_module,cap_net_admin"));
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
	ASSERT_HAS(res.out, "usage: umhcap keep -p PURPOSE[,PURPOSE...] [-n] [--json] CAP...\n");
	ASSERT_HAS(res.out, "\n  -p, --purpose PURPOSES  comma-separated bounds to change; all: the global bound\n");
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
	ASSERT_EQ(2, RUN(self->root, "drop", "-p", "all", "kill"));
	ASSERT_HAS(res.err, "umhcap: drop: nothing was written\n");
}

TEST_F(umh, cap_number_out_of_range)
{
	ASSERT_EQ(2, RUN(self->root, "drop", "-p", "all", "99"));
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
	ASSERT_EQ(0, RUN(self->root, "drop", "-p", "all", "sys_rawio"));
	ASSERT_STREQ(written(want), get(self->root, UMH "/bset"));
}

/* A bound, as drop writes it: what narrowing needs. */
TEST_F(umh, drop_eperm_explained)
{
	NEEDS_ROOT();
	ASSERT_EQ(0, setenv("UMHCAP_FAKE_EPERM", "/modprobe/bset", 1));
	drop_caps = B(CAP_SETPCAP);
	ASSERT_EQ(2, RUN(self->root, "drop", "-p", "modprobe", "cap_chown"));
	ASSERT_HAS(res.err, "/modprobe/bset: Operation not permitted; needs cap_setpcap, cap_sys_module, and this process lacks cap_setpcap in its effective set; run as root with full capabilities\n");
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
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
	ASSERT_EQ(0, RUN(self->root, "drop", "--dry-run", "-p", "all",
			 "sys_module"));
	ASSERT_HAS(res.out, "/" UMH "/bset (all except cap_sys_module)\n");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * Without -p, drop and keep narrow nothing: the global bound, which
 * every helper is under, is -p all, said outright.
 */
TEST_F(umh, drop_keep_need_a_purpose)
{
	char *before, *after;

	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "drop", "cap_sys_module"));
	ASSERT_STREQ("umhcap: give -p: -p PURPOSE[,PURPOSE...] for purposes, -p all for the global bound, which every helper is under; usage: umhcap drop -p PURPOSE[,PURPOSE...] [-n] [--json] CAP...\n",
		     res.err);
	ASSERT_EQ(2, RUN(self->root, "keep", "-n", "none"));
	ASSERT_HAS(res.err, "umhcap: give -p: ");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* "\"0x...\"", a mask as the JSON of umhcap spells it; static. */
static const char *json_mask(uint64_t m)
{
	char *b = slot_buf();

	snprintf(b, 2048, "\"0x%llx\"", (unsigned long long)m);
	return b;
}

/*
 * --json: one object, written once every bound is: each bound named,
 * the global one first, with its masks before and after, and nothing of
 * the lines drop prints without it.
 */
TEST_F(umh, drop_json)
{
	const uint64_t all = full(), mod = B(CAP_SYS_MODULE);

	set_bound(self->root, "modprobe", all, B(CAP_CHOWN) | mod);
	ASSERT_EQ(0, RUN(self->root, "--json", "drop", "-p", "modprobe,all",
			 "cap_sys_module"));
	ASSERT_STREQ("", res.err);
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "version", "2");
	ASSERT_JSON_AT(res.out, "command", "\"drop\"");
	ASSERT_JSON_AT(res.out, "dry_run", "false");
	ASSERT_JSON_AT(res.out, "bounds.0.purpose", "\"all\"");
	ASSERT_JSON_AT(res.out, "bounds.1.purpose", "\"modprobe\"");
	ASSERT_EQ(NULL, json_get(res.out, "bounds.2"));
	ASSERT_JSON_AT(res.out, "bounds.1.bset_before", json_mask(all));
	ASSERT_JSON_AT(res.out, "bounds.1.bset_after", json_mask(all & ~mod));
	ASSERT_JSON_AT(res.out, "bounds.1.inheritable_before",
		       json_mask(B(CAP_CHOWN) | mod));
	ASSERT_JSON_AT(res.out, "bounds.1.inheritable_after",
		       json_mask(B(CAP_CHOWN)));
	ASSERT_JSON_AT(res.out, "bounds.1.inheritable_after_caps",
		       "[\"cap_chown\"]");
	ASSERT_JSON_AT(res.out, "bounds.0.inheritable_after", json_mask(all & ~mod));
	/* What it says it wrote is what the files hold. */
	ASSERT_STREQ(written(all & ~mod), get(self->root, UMH "/modprobe/bset"));
	ASSERT_STREQ(written(B(CAP_CHOWN)),
		     get(self->root, UMH "/modprobe/inheritable"));
	ASSERT_STREQ(written(all & ~mod), get(self->root, UMH "/bset"));
	/* The option after the command name too; and keep alike. */
	ASSERT_EQ(0, RUN(self->root, "keep", "--json", "-p", "modprobe", "none"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "command", "\"keep\"");
	ASSERT_JSON_AT(res.out, "bounds.0.bset_before", json_mask(all & ~mod));
	ASSERT_JSON_AT(res.out, "bounds.0.bset_after", "\"0x0\"");
	ASSERT_JSON_AT(res.out, "bounds.0.bset_after_caps", "[]");
	ASSERT_STREQ(written(0), get(self->root, UMH "/modprobe/bset"));
}

/* -n --json: what would be written, dry_run true; nothing written. */
TEST_F(umh, keep_json_dry_run_writes_nothing)
{
	const uint64_t two = B(CAP_SYS_MODULE) | B(CAP_CHOWN);
	char *before, *after;

	set_bound(self->root, "modprobe", two, B(CAP_CHOWN));
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "--json", "keep", "-n", "-p", "modprobe",
			 "cap_sys_module"));
	/* Warnings, as ever, on stderr. */
	ASSERT_STREQ("umhcap: warning: cap_sys_module is not in the modprobe inheritable bound and stays cleared there\n",
		     res.err);
	ASSERT_JSON(res.out);
	ASSERT_LACKS(res.out, "would write");
	ASSERT_JSON_AT(res.out, "dry_run", "true");
	ASSERT_JSON_AT(res.out, "bounds.0.purpose", "\"modprobe\"");
	ASSERT_JSON_AT(res.out, "bounds.0.bset_before", json_mask(two));
	ASSERT_JSON_AT(res.out, "bounds.0.bset_after",
		       json_mask(B(CAP_SYS_MODULE)));
	ASSERT_JSON_AT(res.out, "bounds.0.inheritable_after", "\"0x0\"");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	/* An error: no JSON at all, and the exit status of before. */
	ASSERT_EQ(2, RUN(self->root, "--json", "keep", "-p", "modprobe",
			 "cap_kill"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "cannot keep cap_kill");
	/* A write that fails after another: 3, and no JSON either. */
	read_only(self->root, UMH "/modprobe/inheritable");
	ASSERT_EQ(3, RUN(self->root, "--json", "drop", "-p", "modprobe",
			 "cap_chown"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "drop stopped at modprobe");
}
