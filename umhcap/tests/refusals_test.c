// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap refusals (refusals.c): from /dev/kmsg under the
 * root, and from the journal, through a journalctl of the test's own on
 * PATH that prints what the real one's export format would.
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
 * A journalctl of the test's own, first on PATH, printing @export; its
 * exit status @rc.  The journal directory it stands for, under the root.
 */
static void fake_journalctl(const char *root, const char *export,
			    size_t len, int rc)
{
	char path[PATH_MAX], env[PATH_MAX * 2];

	FILE *f;

	snprintf(path, sizeof(path), "%s/fakebin", root);
	mkdir_p(path);
	/* The export format may hold NUL bytes: written by length. */
	snprintf(path, sizeof(path), "%s/fakebin/export", root);
	f = fopen(path, "w");
	if (!f || fwrite(export, 1, len, f) != len || fclose(f))
		abort();
	put(root, "fakebin/journalctl",
	    "#!/bin/sh\n"
	    "case \"$*\" in *--output=export*_TRANSPORT=kernel*--root=%s*) ;; *) exit 3 ;; esac\n"
	    "cat \"$(dirname \"$0\")/export\"\nexit %d\n", root, rc);
	chmod_rel(root, "fakebin/journalctl", 0755);
	mkdir_p(strcat(strcpy(env, root), "/var/log/journal"));
	snprintf(env, sizeof(env), "%s/fakebin:%s", root, getenv("PATH"));
	setenv("PATH", env, 1);
}

/* The journal gives boot ids as 32 hex digits, without dashes. */
#define ENTRY(boot, fac, msg) \
	"__CURSOR=s=1\n_BOOT_ID=" boot "\nSYSLOG_FACILITY=" fac "\nMESSAGE=" msg "\n\n"
#define OLD_BOOT	"11111111-2222-3333-4444-555555555555"
#define OLD_BOOT_J	"11111111222233334444555555555555"
#define THIS_BOOT_J	"0b6a1f0e3c1d4f559a432b8e1f0c9d77"

/*
 * From the journal, every boot it keeps, each boot's together; a binary
 * field skipped; the lines of facility user not counted.
 */
TEST_F(umh, refusals_from_journal)
{
	static const char export[] =
		ENTRY(OLD_BOOT_J, "0", LINE "purpose=request_key pid=5 comm=\"request-key\" exe=\"/usr/sbin/request-key\" uid=0 cap=21")
		/* A binary MESSAGE: skipped whole. */
		"__CURSOR=s=2\n_BOOT_ID=" OLD_BOOT_J "\nMESSAGE\n\005\000\000\000\000\000\000\000ab\ncd\nSYSLOG_FACILITY=0\n\n"
		ENTRY(OLD_BOOT_J, "1", LINE "purpose=modprobe pid=5 comm=\"m\" exe=\"/m\" uid=0 cap=16")
		ENTRY(THIS_BOOT_J, "0", LINE "purpose=coredump pid=7 comm=\"c\" exe=\"/usr/lib/systemd/systemd-coredump\" uid=998 cap=2")
		ENTRY(THIS_BOOT_J, "0", LINE "purpose=coredump pid=8 comm=\"c\" exe=\"/usr/lib/systemd/systemd-coredump\" uid=998 cap=2");

	fake_journalctl(self->root, export, sizeof(export) - 1, 0);
	put(self->root, "dev/kmsg", "%s", kmsg_text());
	ASSERT_EQ(0, RUN(self->root, "refusals"));
	ASSERT_STREQ("", res.err);
	ASSERT_STREQ("boot " OLD_BOOT ":\n"
		     "  PURPOSE        CAPABILITY              COUNT  LAST SEEN             PROGRAM\n"
		     "  request_key    cap_sys_admin               1  -                     /usr/sbin/request-key\n"
		     "\n"
		     "boot " THIS_BOOT " (this boot):\n"
		     "  PURPOSE        CAPABILITY              COUNT  LAST SEEN             PROGRAM\n"
		     "  coredump       cap_dac_read_search         2  -                     /usr/lib/systemd/systemd-coredump\n",
		     res.out);
	ASSERT_EQ(0, RUN(self->root, "--json", "refusals"));
	ASSERT_TRUE(json_valid(res.out)) TH_LOG("%s", res.out);
	ASSERT_HAS(res.out, "\"source\":\"journal\"");
	ASSERT_HAS(res.out, "{\"boot_id\":\"" OLD_BOOT "\",\"this_boot\":false,\"refusals\":[\n"
			    "    {\"purpose\":\"request_key\",\"program\":\"/usr/sbin/request-key\",\"cap\":\"cap_sys_admin\",\"cap_number\":21,\"boot_id\":\"" OLD_BOOT "\",\"count\":1,\"first_seen\":null,\"last_seen\":null}]},\n"
			    "  {\"boot_id\":\"" THIS_BOOT "\",\"this_boot\":true,");
}

/* journalctl that fails: an error, and nothing shown; none: /dev/kmsg. */
TEST_F(umh, refusals_journalctl_fails)
{
	static const char export[] =
		ENTRY(THIS_BOOT_J, "0", LINE "purpose=coredump pid=7 comm=\"c\" exe=\"/c\" uid=998 cap=2");

	char env[PATH_MAX];

	fake_journalctl(self->root, export, sizeof(export) - 1, 1);
	ASSERT_EQ(2, RUN(self->root, "refusals"));
	ASSERT_STREQ("umhcap: refusals: journalctl failed (exit 1); nothing is shown\n", res.err);
	ASSERT_STREQ("", res.out);
	/* No journalctl on PATH: this boot's /dev/kmsg. */
	snprintf(env, sizeof(env), "%s/nothing-here", self->root);
	setenv("PATH", env, 1);
	put(self->root, "dev/kmsg", "%s", kmsg_text());
	ASSERT_EQ(0, RUN(self->root, "refusals"));
	ASSERT_HAS(res.out, "  coredump       cap_dac_read_search         2  -   ");
}
