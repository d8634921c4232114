// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap refusals (refusals.c): from /dev/kmsg under the
 * root, and from a real journal under it, which systemd-journal-remote
 * writes from journalctl's export format (put_journal(), common.c), and
 * umhcap reads with sd-journal: a journalctl on PATH is never run.
 */
#include "common.h"

#define LINE	"umh: refused a capability its bounds withhold: "

/* A kmsg record of facility 0 (the kernel's), level 4. */
#define KERN(msg)	"4,%d,1000,-;" msg "\n"

static const char *kmsg_text(void)
{
	char *b = slot_buf();

	snprintf(b, 2048,
		 "6,1,10,-;Linux version 6.12\n"
		 "4,2,20,-;" LINE "purpose=coredump pid=756 comm=\"systemd-coredum\" exe=\"/usr/lib/systemd/systemd-coredump\" uid=998 cap=2\n"
		 " SUBSYSTEM=umh\n"
		 "4,3,30,-;" LINE "purpose=modprobe pid=80 comm=\"modprobe\" exe=\"/usr/bin/kmod\" uid=0 cap=16\n"
		 "4,4,40,-;" LINE "purpose=coredump pid=757 comm=\"systemd-coredum\" exe=\"/usr/lib/systemd/systemd-coredump\" uid=998 cap=2\n"
		 /* Written by a process: facility user (1), never counted. */
		 "12,5,50,-;" LINE "purpose=power pid=9 comm=\"x\" exe=\"/x\" uid=0 cap=21\n"
		 "4,6,60,-;" LINE "purpose=bogus pid=9 comm=\"x\" exe=\"/x\" uid=0 cap=21\n"
		 "4,7,70,-;" LINE "purpose=power pid=9 comm=\"x\" exe=\"/x\" uid=0 cap=99\n"
		 "4,8,80,-;" LINE "purpose=power pid=9 comm=\"\\x1b[2J\" exe=\"/sbin/a\\x20b\" uid=0 cap=22\n"
		 "4,9,90,-;umh: something else\n");
	return b;
}

/* Without a journal: /dev/kmsg, this boot; the kernel's lines only. */
TEST_F(umh, refusals_from_kmsg)
{
	put(self->root, "dev/kmsg", "%s", kmsg_text());
	ASSERT_EQ(0, RUN(self->root, "refusals"));
	ASSERT_STREQ("", res.err);
	ASSERT_STREQ("boot " THIS_BOOT " (this boot):\n"
		     "  PURPOSE        CAPABILITY              COUNT  LAST SEEN             PROGRAM\n"
		     "  coredump       cap_dac_read_search         2  -                     /usr/lib/systemd/systemd-coredump\n"
		     "  modprobe       cap_sys_module              1  -                     /usr/bin/kmod\n"
		     "  power          cap_sys_boot                1  -                     /sbin/a\\x20b\n",
		     res.out);
	ASSERT_EQ(0, RUN(self->root, "--json", "refusals"));
	ASSERT_TRUE(json_valid(res.out)) TH_LOG("%s", res.out);
	ASSERT_HAS(res.out, "{\"version\":2,\"source\":\"kmsg\",\"since\":null,\"last\":null,\"boots\":[\n"
			    "  {\"boot_id\":\"" THIS_BOOT "\",\"this_boot\":true,\"refusals\":[\n"
			    "    {\"purpose\":\"coredump\",\"program\":\"/usr/lib/systemd/systemd-coredump\",\"cap\":\"cap_dac_read_search\",\"cap_number\":2,\"boot_id\":\"" THIS_BOOT "\",\"count\":2,\"first_seen\":null,\"last_seen\":null},");
	ASSERT_EQ(0, count_of(res.out, "\"power\",\"program\":\"/x\""));
	/* None at all. */
	put(self->root, "dev/kmsg", "6,1,10,-;Linux version 6.12\n");
	ASSERT_EQ(0, RUN(self->root, "refusals"));
	ASSERT_STREQ("no refusals in the kernel log of this boot (/dev/kmsg)\n", res.out);
	ASSERT_EQ(0, RUN(self->root, "refusals", "--json"));
	ASSERT_STREQ("{\"version\":2,\"source\":\"kmsg\",\"since\":null,\"last\":null,\"boots\":[\n]}\n", res.out);
	ASSERT_TRUE(json_valid(res.out));
	/* No source at all: an error, said. */
	rm_file(self->root, "dev/kmsg");
	ASSERT_EQ(2, RUN(self->root, "refusals"));
	ASSERT_HAS(res.err, "umhcap: refusals: no journal, and cannot open ");
	ASSERT_STREQ("", res.out);
}

/*
 * A journalctl first on PATH that fails, and leaves ROOT/journalctl-ran
 * behind: umhcap reads the journal itself, and never runs it.
 */
static void journalctl_fails(const char *root)
{
	char env[PATH_MAX * 2];

	put(root, "fakebin/journalctl",
	    "#!/bin/sh\necho ran >\"%s/journalctl-ran\"\nexit 1\n", root);
	chmod_rel(root, "fakebin/journalctl", 0755);
	snprintf(env, sizeof(env), "%s/fakebin:%s", root, getenv("PATH"));
	setenv("PATH", env, 1);
}

/*
 * An entry of journalctl's export format, of the kernel's transport, as
 * journald writes a line of /dev/kmsg: the journal gives boot ids as 32
 * hex digits, without dashes, and times in microseconds.
 */
#define ENTRY(boot, usec, fac, msg) \
	"__REALTIME_TIMESTAMP=" usec "\n__MONOTONIC_TIMESTAMP=1000\n_BOOT_ID=" boot \
	"\n_TRANSPORT=kernel\nSYSLOG_FACILITY=" fac "\nMESSAGE=" msg "\n\n"
#define OLD_BOOT	"11111111-2222-3333-4444-555555555555"
#define OLD_BOOT_J	"11111111222233334444555555555555"
#define THIS_BOOT_J	"0b6a1f0e3c1d4f559a432b8e1f0c9d77"
#define T1		"1700000000000000"	/* 2023-11-14T22:13:20Z */
#define T2		"1700086400000000"	/* a day later */

/*
 * From the journal, every boot it keeps, each boot's together, with the
 * time each was last seen; a binary MESSAGE, a line of facility user
 * and one that came to journald by another transport not counted.
 */
TEST_F(umh, refusals_from_journal)
{
	static const char export[] =
		ENTRY(OLD_BOOT_J, T1, "0", LINE "purpose=request_key pid=5 comm=\"request-key\" exe=\"/usr/sbin/request-key\" uid=0 cap=21")
		/* A binary MESSAGE: not the kernel's text. */
		"__REALTIME_TIMESTAMP=1700000001000000\n_BOOT_ID=" OLD_BOOT_J "\n_TRANSPORT=kernel\nSYSLOG_FACILITY=0\n"
		"MESSAGE\n\005\000\000\000\000\000\000\000ab\ncd\n\n"
		ENTRY(OLD_BOOT_J, "1700000002000000", "1", LINE "purpose=modprobe pid=5 comm=\"m\" exe=\"/m\" uid=0 cap=16")
		/* Logged by a process through journald's own socket. */
		"__REALTIME_TIMESTAMP=1700000003000000\n_BOOT_ID=" OLD_BOOT_J "\n_TRANSPORT=journal\nSYSLOG_FACILITY=0\n"
		"MESSAGE=" LINE "purpose=power pid=5 comm=\"p\" exe=\"/p\" uid=0 cap=22\n\n"
		ENTRY(THIS_BOOT_J, T2, "0", LINE "purpose=coredump pid=7 comm=\"c\" exe=\"/usr/lib/systemd/systemd-coredump\" uid=998 cap=2")
		ENTRY(THIS_BOOT_J, "1700086460000000", "0", LINE "purpose=coredump pid=8 comm=\"c\" exe=\"/usr/lib/systemd/systemd-coredump\" uid=998 cap=2");

	JOURNAL(self->root, "system.journal", export);
	journalctl_fails(self->root);
	put(self->root, "dev/kmsg", "%s", kmsg_text());
	ASSERT_EQ(0, RUN(self->root, "refusals"));
	ASSERT_STREQ("", res.err);
	ASSERT_STREQ("boot " OLD_BOOT ":\n"
		     "  PURPOSE        CAPABILITY              COUNT  LAST SEEN             PROGRAM\n"
		     "  request_key    cap_sys_admin               1  2023-11-14T22:13:20Z  /usr/sbin/request-key\n"
		     "\n"
		     "boot " THIS_BOOT " (this boot):\n"
		     "  PURPOSE        CAPABILITY              COUNT  LAST SEEN             PROGRAM\n"
		     "  coredump       cap_dac_read_search         2  2023-11-15T22:14:20Z  /usr/lib/systemd/systemd-coredump\n",
		     res.out);
	ASSERT_EQ(0, RUN(self->root, "--json", "refusals"));
	ASSERT_TRUE(json_valid(res.out)) TH_LOG("%s", res.out);
	ASSERT_HAS(res.out, "\"source\":\"journal\"");
	ASSERT_HAS(res.out, "{\"boot_id\":\"" OLD_BOOT "\",\"this_boot\":false,\"refusals\":[\n"
			    "    {\"purpose\":\"request_key\",\"program\":\"/usr/sbin/request-key\",\"cap\":\"cap_sys_admin\",\"cap_number\":21,\"boot_id\":\"" OLD_BOOT "\",\"count\":1,\"first_seen\":1700000000,\"last_seen\":1700000000}]},\n"
			    "  {\"boot_id\":\"" THIS_BOOT "\",\"this_boot\":true,");
	ASSERT_JSON_AT(res.out, "boots.1.refusals.0.first_seen", "1700086400");
	ASSERT_JSON_AT(res.out, "boots.1.refusals.0.last_seen", "1700086460");
	ASSERT_JSON_AT(res.out, "boots.1.refusals.0.count", "2");
	ASSERT_FALSE(exists(self->root, "journalctl-ran"));
}

/*
 * --since and --last on the journal: the refusals logged then or later,
 * of the last N boots it keeps, with each boot's files apart, as journald
 * archives them.
 */
TEST_F(umh, refusals_journal_since_last)
{
	static const char older[] =
		ENTRY(OLD_BOOT_J, T1, "0", LINE "purpose=modprobe pid=5 comm=\"modprobe\" exe=\"/usr/bin/kmod\" uid=0 cap=16");
	static const char newer[] =
		ENTRY("aaaaaaaabbbb4ccc8dddeeeeeeeeeeee", "1700043200000000", "0", "Linux version 6.12")
		ENTRY(THIS_BOOT_J, T2, "0", LINE "purpose=coredump pid=7 comm=\"c\" exe=\"/usr/lib/systemd/systemd-coredump\" uid=998 cap=2");

	JOURNAL(self->root, "system@0000000000000001-0000000000000001.journal", older);
	JOURNAL(self->root, "system.journal", newer);
	journalctl_fails(self->root);
	ASSERT_EQ(0, RUN(self->root, "refusals", "--since", "2023-11-15"));
	ASSERT_STREQ("", res.err);
	ASSERT_STREQ("refusals logged since 2023-11-15T00:00:00Z:\n\n"
		     "boot " THIS_BOOT " (this boot):\n"
		     "  PURPOSE        CAPABILITY              COUNT  LAST SEEN             PROGRAM\n"
		     "  coredump       cap_dac_read_search         1  2023-11-15T22:13:20Z  /usr/lib/systemd/systemd-coredump\n",
		     res.out);
	ASSERT_EQ(0, RUN(self->root, "refusals", "--since", "2023-11-16"));
	ASSERT_STREQ("no refusals in the journal since 2023-11-16T00:00:00Z\n", res.out);
	/* Three boots: the last two hold the coredump refusal alone. */
	ASSERT_EQ(0, RUN(self->root, "refusals", "--last", "2"));
	ASSERT_LACKS(res.out, OLD_BOOT);
	ASSERT_HAS(res.out, "refusals logged in its last 2 boots:\n\nboot " THIS_BOOT " (this boot):\n");
	ASSERT_EQ(0, RUN(self->root, "refusals", "--last", "3"));
	ASSERT_HAS(res.out, "boot " OLD_BOOT ":\n");
	ASSERT_HAS(res.out, "  modprobe       cap_sys_module              1  2023-11-14T22:13:20Z  /usr/bin/kmod\n");
	ASSERT_EQ(0, RUN(self->root, "--json", "refusals", "--since", "2023-11-14", "--last", "1"));
	ASSERT_JSON_AT(res.out, "last", "1");
	ASSERT_JSON_AT(res.out, "since", "1699920000");
	ASSERT_JSON_AT(res.out, "boots.0.boot_id", "\"" THIS_BOOT "\"");
	ASSERT_FALSE(exists(self->root, "journalctl-ran"));
}

/*
 * No journal file under the root, though journald's directories are
 * there (a machine whose journald keeps nothing on disk): this boot's
 * /dev/kmsg, as without them.
 */
TEST_F(umh, refusals_no_journal_file_kmsg)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/var/log/journal/" JOURNAL_MACHINE, self->root);
	mkdir_p(path);
	put(self->root, "run/log/journal/README", "not a journal\n");
	journalctl_fails(self->root);
	put(self->root, "dev/kmsg", "%s", kmsg_text());
	ASSERT_EQ(0, RUN(self->root, "refusals"));
	ASSERT_STREQ("", res.err);
	ASSERT_HAS(res.out, "boot " THIS_BOOT " (this boot):\n");
	ASSERT_HAS(res.out, "  modprobe       cap_sys_module              1  -                     /usr/bin/kmod\n");
	ASSERT_EQ(0, RUN(self->root, "--json", "refusals"));
	ASSERT_JSON_AT(res.out, "source", "\"kmsg\"");
	rm_file(self->root, "dev/kmsg");
	ASSERT_EQ(2, RUN(self->root, "refusals"));
	ASSERT_HAS(res.err, "umhcap: refusals: no journal, and cannot open ");
	ASSERT_FALSE(exists(self->root, "journalctl-ran"));
}

/*
 * A journal file that is not one, beside a good one: an error that names
 * it, nothing shown, exit 2; the commands that only count refusals
 * (status) say they were not read.
 */
TEST_F(umh, refusals_journal_corrupt)
{
	static const char export[] =
		ENTRY(THIS_BOOT_J, T2, "0", LINE "purpose=coredump pid=7 comm=\"c\" exe=\"/c\" uid=998 cap=2");
	char bad[8192], want[PATH_MAX + 256];

	JOURNAL(self->root, "system.journal", export);
	journalctl_fails(self->root);
	put(self->root, "dev/kmsg", "%s", kmsg_text());
	/* journald's name for a file it set aside, its header gone. */
	memset(bad, 'x', sizeof(bad) - 1);
	bad[sizeof(bad) - 1] = '\0';
	put(self->root, "var/log/journal/" JOURNAL_MACHINE "/system@0000000000000001-0000000000000001.journal~", "%s", bad);
	ASSERT_EQ(2, RUN(self->root, "refusals"));
	snprintf(want, sizeof(want), "umhcap: refusals: cannot read the journal file %s/var/log/journal/" JOURNAL_MACHINE
		 "/system@0000000000000001-0000000000000001.journal~: Bad message; nothing is shown\n", self->root);
	ASSERT_STREQ(want, res.err);
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(2, RUN(self->root, "--json", "refusals"));
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(0, RUN(self->root, "status"));
	ASSERT_HAS(res.out, "refusals this boot: not read (umhcap refusals says why)\n");
	ASSERT_FALSE(exists(self->root, "journalctl-ran"));
}

/*
 * A journal file umhcap may not read (mode 0, read without the
 * capabilities that pass it): named, with why, nothing shown, exit 2.
 */
TEST_F(umh, refusals_journal_unreadable)
{
	static const char export[] =
		ENTRY(THIS_BOOT_J, T2, "0", LINE "purpose=coredump pid=7 comm=\"c\" exe=\"/c\" uid=998 cap=2");
	char path[PATH_MAX], want[PATH_MAX + 256];

	JOURNAL(self->root, "system.journal", export);
	journalctl_fails(self->root);
	put(self->root, "dev/kmsg", "%s", kmsg_text());
	snprintf(path, sizeof(path), "%s/var/log/journal/" JOURNAL_MACHINE "/system.journal", self->root);
	ASSERT_EQ(0, chmod(path, 0));
	drop_caps = B(CAP_DAC_OVERRIDE) | B(CAP_DAC_READ_SEARCH);
	ASSERT_EQ(2, RUN(self->root, "refusals"));
	snprintf(want, sizeof(want), "umhcap: refusals: cannot read the journal file %s: Permission denied; nothing is shown\n", path);
	ASSERT_STREQ(want, res.err);
	ASSERT_STREQ("", res.out);
	/* Readable again: counted. */
	ASSERT_EQ(0, chmod(path, 0640));
	ASSERT_EQ(0, RUN(self->root, "refusals"));
	ASSERT_HAS(res.out, "  coredump       cap_dac_read_search         1  2023-11-15T22:13:20Z  /c\n");
	ASSERT_FALSE(exists(self->root, "journalctl-ran"));
}
