// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap boots (boots.c), of the kernel a saved boot
 * records (save.c, savedboots.c), and of --since and --last, which
 * choose among the saved boots (learn, export --learned, boot) and the
 * refusals (refusals.c), with each refusal's time.
 */
#include "common.h"

#define KMSG_LINE	"umh: refused a capability its bounds withhold: purpose=coredump pid=7 comm=\"c\" exe=\"/usr/lib/systemd/systemd-coredump\" uid=998 cap="
#define BTIME		1735786000LL	/* 2025-01-02T02:46:40Z */

/* Saved boot A without a kernel line, B with one; this boot's too. */
static void three_saved_boots(const char *root)
{
	static const struct boot_rec live = {
		.started = { 6, 4, 2 },
		.used = { B(CAP_SYS_MODULE) | CD_USED, B(CAP_SYS_MODULE), CD_USED },
	};
	char text[4096];

	learn_scene(root);
	two_saved_boots(root);
	snprintf(text, sizeof(text), "%skernel 6.12.118-umhcap\n",
		 get(root, BOOTS "/" BOOT_B));
	put_saved(root, BOOT_B, text);
	put_saved(root, THIS_BOOT, saved_text(THIS_BOOT, SAVED_B + 60, &live));
}

/* boots: every saved boot, oldest first, with what it recorded. */
TEST_F(umh, boots_lists_saved_boots)
{
	char *before, *after;

	three_saved_boots(self->root);
	put(self->root, "dev/kmsg", "4,1,1,-;" KMSG_LINE "21\n4,2,1,-;" KMSG_LINE "21\n");
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "boots"));
	ASSERT_STREQ("", res.err);
	ASSERT_STARTS(res.out, "3 saved boots in /var/lib/umhcap/boots, oldest first:\n\n"
		      "boot " BOOT_A "\n"
		      "  saved:       2023-11-14T22:13:20Z, began 2023-11-14T21:13:20Z\n"
		      "  kernel:      (not saved)\n"
		      "  started:     2 helpers\n"
		      "    modprobe       1, used cap_kill, cap_sys_module\n"
		      "    power          1, used cap_sys_boot\n"
		      "  refused:     0 (/dev/kmsg holds this boot's only)\n\n"
		      "boot " BOOT_B "\n"
		      "  saved:       2023-11-15T22:13:20Z, began 2023-11-15T21:13:20Z\n"
		      "  kernel:      6.12.118-umhcap\n"
		      "  started:     4 helpers\n"
		      "    coredump       3, used cap_chown, cap_dac_override, cap_fowner\n"
		      "    request_key    1, used none\n");
	ASSERT_HAS(res.out, "\nboot " THIS_BOOT " (this boot)\n");
	ASSERT_HAS(res.out, "  refused:     2 (umhcap refusals)\n");
	ASSERT_HAS(res.out, "umhcap boots --forget BOOT_ID removes one.\n");
	ASSERT_EQ(0, RUN(self->root, "--json", "boots"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "boots_dir", "\"/var/lib/umhcap/boots\"");
	ASSERT_JSON_AT(res.out, "refusals_source", "\"kmsg\"");
	ASSERT_JSON_AT(res.out, "boots.0.boot_id", "\"" BOOT_A "\"");
	ASSERT_JSON_AT(res.out, "boots.0.kernel", "null");
	ASSERT_JSON_AT(res.out, "boots.0.saved", "1700000000");
	ASSERT_JSON_AT(res.out, "boots.0.btime", "1699996400");
	ASSERT_JSON_AT(res.out, "boots.0.started", "2");
	ASSERT_JSON_AT(res.out, "boots.0.purposes.0.purpose", "\"modprobe\"");
	ASSERT_JSON_AT(res.out, "boots.0.purposes.0.used_caps", "[\"cap_kill\",\"cap_sys_module\"]");
	ASSERT_JSON_AT(res.out, "boots.1.kernel", "\"6.12.118-umhcap\"");
	ASSERT_JSON_AT(res.out, "boots.1.this_boot", "false");
	ASSERT_JSON_AT(res.out, "boots.2.this_boot", "true");
	ASSERT_JSON_AT(res.out, "boots.2.refused.0.count", "2");
	ASSERT_JSON_AT(res.out, "boots.0.refused", "[]");
	/* A file learn refuses: warned of, not listed. */
	put(self->root, BOOTS "/" BOOT_A, "umhcap-record 9\n");
	ASSERT_EQ(0, RUN(self->root, "boots"));
	ASSERT_HAS(res.err, "umhcap: warning: ignoring saved record ");
	ASSERT_STARTS(res.out, "2 saved boots in /var/lib/umhcap/boots, oldest first; files refused are not listed (see the warnings):\n");
	ASSERT_LACKS(res.out, BOOT_A);
	/* None at all. */
	rm_file(self->root, BOOTS "/" BOOT_A);
	rm_file(self->root, BOOTS "/" BOOT_B);
	rm_file(self->root, BOOTS "/" THIS_BOOT);
	ASSERT_EQ(0, RUN(self->root, "boots"));
	ASSERT_STREQ("no saved boots in /var/lib/umhcap/boots\n", res.out);
	ASSERT_EQ(0, RUN(self->root, "boots", "--state-dir", "/srv/nothing"));
	ASSERT_STREQ("no saved boots in /srv/nothing/boots\n", res.out);
	/* Listing writes nothing; -n goes with --forget. */
	ASSERT_EQ(2, RUN(self->root, "boots", "-n"));
	ASSERT_HAS(res.err, "umhcap: -n goes with --forget");
	free(before);
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "boots", "--json"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * boots --forget: the one file removed, -n says so and removes nothing,
 * and an id with no file, or not an id, is an error that changes nothing.
 */
TEST_F(umh, boots_forget_one)
{
	char *before, *after, want[PATH_MAX + 256];

	three_saved_boots(self->root);
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "boots", "--forget", BOOT_A, "-n"));
	snprintf(want, sizeof(want), "-n, nothing removed: would remove %s/" BOOTS "/" BOOT_A "\n",
		 self->root);
	ASSERT_STREQ(want, res.out);
	ASSERT_EQ(0, RUN(self->root, "--json", "boots", "--dry-run", "--forget", BOOT_A));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "dry_run", "true");
	ASSERT_JSON_AT(res.out, "action", "\"forget\"");
	ASSERT_JSON_AT(res.out, "boot.boot_id", "\"" BOOT_A "\"");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(after);
	/* Unknown, or no id: exit 2, nothing removed. */
	ASSERT_EQ(2, RUN(self->root, "boots", "--forget", "99999999-2222-4333-8444-555555555555"));
	ASSERT_HAS(res.err, "umhcap: boots --forget 99999999-2222-4333-8444-555555555555: not there: no saved boot 99999999-2222-4333-8444-555555555555 in ");
	ASSERT_HAS(res.err, "(umhcap boots lists them); nothing was removed\n");
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(2, RUN(self->root, "boots", "--forget", "../../etc/passwd"));
	ASSERT_STREQ("umhcap: bad --forget \"../../etc/passwd\": a boot id is 8-4-4-4-12 lowercase hex digits, as umhcap boots lists them\n",
		     res.err);
	ASSERT_EQ(2, RUN(self->root, "boots", "--forget", BOOT_A, "--forget", BOOT_B));
	ASSERT_HAS(res.err, "give --forget once");
	mkdir_p(strcat(strcpy(want, self->root), "/" BOOTS "/99999999-2222-4333-8444-555555555555"));
	free(before);
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "boots", "--forget", "99999999-2222-4333-8444-555555555555"));
	ASSERT_HAS(res.err, "is not a regular file, which save never writes; nothing was removed\n");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(after);
	free(before);
	rmdir(want);
	/* Forgotten: gone, and learn no longer merges it. */
	ASSERT_EQ(0, RUN(self->root, "boots", "--forget", BOOT_A));
	snprintf(want, sizeof(want), "forgot boot " BOOT_A ": removed %s/" BOOTS "/" BOOT_A "\n",
		 self->root);
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
	ASSERT_STREQ(" " THIS_BOOT " " BOOT_B, entries(self->root, BOOTS));
	ASSERT_EQ(0, RUN(self->root, "learn"));
	ASSERT_HAS(res.out, "learned from 1 saved boot (saved 2023-11-15T22:13:20Z) and this boot");
	/* This boot's: said that save keeps it again. */
	ASSERT_EQ(0, RUN(self->root, "boots", "--forget", THIS_BOOT));
	ASSERT_HAS(res.err, "umhcap: note: " THIS_BOOT " is this boot: umhcap save keeps its record again at shutdown\n");
	ASSERT_STREQ(" " BOOT_B, entries(self->root, BOOTS));
}

/* save keeps the kernel's release; learn merges a file with one. */
TEST_F(umh, save_keeps_the_kernel)
{
	learn_scene(self->root);
	put(self->root, "proc/sys/kernel/osrelease", "6.12.118-umhcap\n");
	ASSERT_EQ(0, RUN(self->root, "save"));
	ASSERT_HAS(get(self->root, BOOTS "/" THIS_BOOT), "\nkernel 6.12.118-umhcap\n");
	ASSERT_EQ(0, RUN(self->root, "boots"));
	ASSERT_HAS(res.out, "  kernel:      6.12.118-umhcap\n");
	/* A file with a kernel line is merged, one with two refused. */
	{
		char text[4096], *at;

		snprintf(text, sizeof(text), "%s", get(self->root, BOOTS "/" THIS_BOOT));
		at = strstr(text, THIS_BOOT);
		memcpy(at, BOOT_A, strlen(BOOT_A));
		put_saved(self->root, BOOT_A, text);
		ASSERT_EQ(0, RUN(self->root, "learn"));
		ASSERT_STREQ("", res.err);
		ASSERT_HAS(res.out, "learned from 1 saved boot");
		strcat(text, "kernel 6.1.0\n");
		put_saved(self->root, BOOT_A, text);
		ASSERT_EQ(0, RUN(self->root, "learn"));
		ASSERT_HAS(res.err, "a second kernel line");
	}
	/* No osrelease: no kernel line. */
	rm_file(self->root, "proc/sys/kernel/osrelease");
	ASSERT_EQ(0, RUN(self->root, "save"));
	ASSERT_LACKS(get(self->root, BOOTS "/" THIS_BOOT), "kernel");
}

/*
 * --since DATE and --last N choose among the saved boots that learn,
 * export --learned and boot merge: A (a day before B) has modprobe use
 * cap_kill, which only A holds.
 */
TEST_F(umh, learn_since_and_last)
{
	char *before, *after;

	learn_scene(self->root);
	two_saved_boots(self->root);
	ASSERT_EQ(0, RUN(self->root, "learn", "--since", "2023-11-15"));
	ASSERT_STREQ("", res.err);
	ASSERT_STARTS(res.out, "learned from 1 saved boot (saved 2023-11-15T22:13:20Z) and this boot; 1 saved boot before 2023-11-15T00:00:00Z left out (--since)\n");
	ASSERT_HAS(res.out, "\nmodprobe: 4 helpers started in 2 boots\n");
	ASSERT_HAS(res.out, "\ncoredump: 5 helpers started in 2 boots\n");
	ASSERT_EQ(0, RUN(self->root, "learn", "--last", "1"));
	ASSERT_STARTS(res.out, "learned from 1 saved boot (saved 2023-11-15T22:13:20Z) and this boot; 1 older saved boot left out (--last 1)\n");
	/* The time given is the first second that counts. */
	ASSERT_EQ(0, RUN(self->root, "learn", "--since", "2023-11-14T22:13:20Z"));
	ASSERT_STARTS(res.out, "learned from 2 saved boots");
	ASSERT_EQ(0, RUN(self->root, "learn", "--since", "2023-11-14 22:13:21"));
	ASSERT_STARTS(res.out, "learned from 1 saved boot ");
	ASSERT_EQ(0, RUN(self->root, "learn", "--since", "2024-01-01", "--last", "5"));
	ASSERT_STARTS(res.out, "learned from this boot only; 2 older saved boots left out (--since 2024-01-01T00:00:00Z, --last 5)\n");
	ASSERT_EQ(0, RUN(self->root, "--json", "learn", "--since", "2023-11-15", "--last", "2"));
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "learned_from.saved_boots", "1");
	ASSERT_JSON_AT(res.out, "learned_from.since", "1700006400");
	ASSERT_JSON_AT(res.out, "learned_from.last", "2");
	ASSERT_JSON_AT(res.out, "learned_from.skipped", "1");
	/* export --learned and boot learn from the same. */
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--cmdline"));
	ASSERT_HAS(res.out, "modprobe:0x10020");
	ASSERT_EQ(0, RUN(self->root, "export", "--learned", "--cmdline", "--last", "1"));
	ASSERT_HAS(res.out, "modprobe:0x10000,");
	ASSERT_EQ(0, RUN(self->root, "--json", "export", "--learned", "--since", "2023-11-15"));
	ASSERT_JSON_AT(res.out, "learned_from.saved_boots", "1");
	ASSERT_EQ(0, RUN(self->root, "boot", "-n", "--last", "1"));
	ASSERT_HAS(res.out, "# learned from 1 saved boot, saved 2023-11-15T22:13:20Z, and this\n");
	ASSERT_HAS(res.out, "modprobe:0x10000,");

	/* Bad input: exit 2, said, and nothing written. */
	before = tree(self->root);
	{
		static const char *const bad_since[] = {
			"2023-02-30", "2023-13-01", "yesterday", "2023-11-15T25:00",
			"2023-11-15T10:00:00+01:00", "2023-1-5", "", "1969-12-31",
		};
		static const char *const bad_last[] = { "0", "-1", "x", "1x", "" };
		size_t i;

		for (i = 0; i < ARRAY_SIZE(bad_since); i++) {
			EXPECT_EQ(2, RUN(self->root, "learn", "--apply", "--since", bad_since[i]))
				TH_LOG("--since %s", bad_since[i]);
			EXPECT_TRUE(strstr(res.err, "umhcap: bad --since \"") == res.err &&
				    strstr(res.err, "\"; give a date, YYYY-MM-DD, or a time, YYYY-MM-DDTHH:MM:SS, in UTC\n"))
				TH_LOG("--since %s: %s", bad_since[i], res.err);
			EXPECT_STREQ("", res.out);
		}
		for (i = 0; i < ARRAY_SIZE(bad_last); i++) {
			EXPECT_EQ(2, RUN(self->root, "export", "--learned", "--sysctl", "-o", "/etc/sysctl.d/x.conf", "--last", bad_last[i]))
				TH_LOG("--last %s", bad_last[i]);
			EXPECT_TRUE(strstr(res.err, "umhcap: bad --last \"") == res.err)
				TH_LOG("--last %s: %s", bad_last[i], res.err);
		}
	}
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply", "--this-boot", "--last", "1"));
	ASSERT_HAS(res.err, "umhcap: --since and --last choose among the saved boots, which --this-boot leaves out: give one or the other\n");
	ASSERT_HAS(res.err, "umhcap: learn --apply: nothing was written\n");
	ASSERT_EQ(2, RUN(self->root, "export", "--cmdline", "--since", "2023-11-15"));
	ASSERT_HAS(res.err, "--since, --last, --from and --allow go with --learned");
	ASSERT_EQ(2, RUN(self->root, "boot", "--remove", "--last", "1"));
	ASSERT_EQ(2, RUN(self->root, "show", "--since", "2023-11-15"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* "2025-01-02T02:46:40Z" of @t; static. */
static const char *iso(long long t)
{
	static char buf[4][32];
	static int slot;
	time_t tt = t;
	struct tm tm;
	char *b = buf[slot++ % 4];

	gmtime_r(&tt, &tm);
	strftime(b, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return b;
}

/*
 * refusals: when each was logged last (kmsg: the boot's btime and the
 * line's microseconds), --since counting only the later ones.
 */
TEST_F(umh, refusals_times_and_since)
{
	char want[1024], since[32];

	put(self->root, "proc/stat", "cpu 1 2 3\nbtime %lld\n", BTIME);
	put(self->root, "dev/kmsg",
	    "4,1,2000000,-;" KMSG_LINE "21\n"
	    "4,2,3600000000,-;" KMSG_LINE "21\n"
	    "4,3,7200500000,-;" KMSG_LINE "2\n");
	ASSERT_EQ(0, RUN(self->root, "refusals"));
	snprintf(want, sizeof(want),
		 "boot " THIS_BOOT " (this boot):\n"
		 "  PURPOSE        CAPABILITY              COUNT  LAST SEEN             PROGRAM\n"
		 "  coredump       cap_sys_admin               2  %s  /usr/lib/systemd/systemd-coredump\n"
		 "  coredump       cap_dac_read_search         1  %s  /usr/lib/systemd/systemd-coredump\n",
		 iso(BTIME + 3600), iso(BTIME + 7200));
	ASSERT_STREQ(want, res.out);
	ASSERT_EQ(0, RUN(self->root, "--json", "refusals"));
	ASSERT_JSON(res.out);
	snprintf(want, sizeof(want), "%lld", BTIME + 2);
	ASSERT_JSON_AT(res.out, "boots.0.refusals.0.first_seen", want);
	snprintf(want, sizeof(want), "%lld", BTIME + 3600);
	ASSERT_JSON_AT(res.out, "boots.0.refusals.0.last_seen", want);
	/* --since: only what was logged then or later. */
	snprintf(since, sizeof(since), "%s", iso(BTIME + 60));
	ASSERT_EQ(0, RUN(self->root, "refusals", "--since", since));
	snprintf(want, sizeof(want), "refusals logged since %s:\n\n", since);
	ASSERT_STARTS(res.out, want);
	ASSERT_HAS(res.out, "  coredump       cap_sys_admin               1  ");
	ASSERT_EQ(0, RUN(self->root, "--json", "refusals", "--since", since));
	snprintf(want, sizeof(want), "%lld", BTIME + 60);
	ASSERT_JSON_AT(res.out, "since", want);
	ASSERT_JSON_AT(res.out, "boots.0.refusals.0.count", "1");
	ASSERT_EQ(0, RUN(self->root, "refusals", "--since", "2030-01-01"));
	ASSERT_STREQ("no refusals in the kernel log of this boot (/dev/kmsg) since 2030-01-01T00:00:00Z\n",
		     res.out);
	/* learn shows the refusals of --since alone. */
	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "learn", "coredump", "--since", since));
	ASSERT_HAS(res.out, "cap_sys_admin to /usr/lib/systemd/systemd-coredump (1, this boot)");
	/* Without a boot time, no time: "-", and --since counts none. */
	rm_file(self->root, "proc/stat");
	ASSERT_EQ(0, RUN(self->root, "refusals"));
	ASSERT_HAS(res.out, "  coredump       cap_sys_admin               2  -                     /usr");
	ASSERT_EQ(0, RUN(self->root, "refusals", "--since", "2020-01-01"));
	ASSERT_HAS(res.out, "no refusals in the kernel log");
	ASSERT_EQ(2, RUN(self->root, "refusals", "--since", "2020-01"));
	ASSERT_HAS(res.err, "umhcap: bad --since \"2020-01\"");
	ASSERT_STREQ("", res.out);
}

#define JENTRY(boot, usec, msg) \
	"__REALTIME_TIMESTAMP=" usec "\n_BOOT_ID=" boot \
	"\n_TRANSPORT=kernel\nSYSLOG_FACILITY=0\nMESSAGE=" msg "\n\n"

/* refusals --last N: those of the N boots the journal holds last. */
TEST_F(umh, refusals_last_boots)
{
	static const char export[] =
		JENTRY("11111111222243338444555555555555", "1700000000000000", KMSG_LINE "21")
		JENTRY("aaaaaaaabbbb4ccc8dddeeeeeeeeeeee", "1700086400000000", "Linux version 6.12")
		JENTRY("0b6a1f0e3c1d4f559a432b8e1f0c9d77", "1700172800500000", KMSG_LINE "2");

	JOURNAL(self->root, "system.journal", export);
	ASSERT_EQ(0, RUN(self->root, "refusals"));
	ASSERT_HAS(res.out, "boot " BOOT_A ":\n");
	ASSERT_HAS(res.out, "  coredump       cap_sys_admin               1  2023-11-14T22:13:20Z  /usr");
	ASSERT_HAS(res.out, "  coredump       cap_dac_read_search         1  2023-11-16T22:13:20Z  /usr");
	ASSERT_EQ(0, RUN(self->root, "refusals", "--last", "2"));
	ASSERT_LACKS(res.out, BOOT_A);
	ASSERT_HAS(res.out, "refusals logged in its last 2 boots:\n\nboot " THIS_BOOT " (this boot):\n");
	ASSERT_EQ(0, RUN(self->root, "--json", "refusals", "--last", "3"));
	ASSERT_JSON_AT(res.out, "boots.0.boot_id", "\"" BOOT_A "\"");
	ASSERT_JSON_AT(res.out, "last", "3");
	ASSERT_EQ(0, RUN(self->root, "refusals", "--since", "2023-11-15", "--last", "3"));
	ASSERT_LACKS(res.out, BOOT_A);
}
