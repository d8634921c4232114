// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap save (save.c, savedboots.c).
 */
#include "common.h"

/* What learn_scene() puts in the live record. */
static const struct boot_rec live_scene = {
	.started = { 6, 4, 2 },
	.used = { B(CAP_SYS_MODULE) | CD_USED, B(CAP_SYS_MODULE), CD_USED },
};

/* save: the record, the boot id and times, one line said. */
TEST_F(umh, save_writes_the_record)
{
	char want[4096], line[PATH_MAX + 256];
	const char *text, *at;
	long long t0, t1, saved;
	size_t i;
	mode_t old;
	int n;

	learn_scene(self->root);
	put(self->root, "proc/stat", "cpu  1 2 3\nbtime 1735786000\nprocesses 9\n");
	t0 = time(NULL);
	old = umask(077);
	ASSERT_EQ(0, RUN(self->root, "save"));
	umask(old);
	t1 = time(NULL);
	snprintf(line, sizeof(line),
		 "saved boot " THIS_BOOT "'s record (6 helpers started: modprobe 4, coredump 2) to %s/" BOOTS "/" THIS_BOOT "\n",
		 self->root);
	ASSERT_STREQ(line, res.out);
	ASSERT_STREQ("", res.err);
	text = get(self->root, BOOTS "/" THIS_BOOT);
	/* The first line, then a comment with the time, then the rest. */
	ASSERT_STARTS(text, "umhcap-record 1\n# saved by umhcap ");
	at = strstr(text, "\nsaved ");
	ASSERT_NE(NULL, at);
	saved = atoll(at + 7);
	ASSERT_LE(t0, saved);
	ASSERT_GE(t1, saved);
	n = snprintf(want, sizeof(want), "boot_id " THIS_BOOT "\nsaved %lld\n"
		     "btime 1735786000\n", saved);
	for (i = 0; i <= NR_PURPOSES; i++)
		n += snprintf(want + n, sizeof(want) - n,
			      "%s started %llu used %u 0\n", rec_name(i),
			      live_scene.started[i],
			      (uint32_t)live_scene.used[i]);
	ASSERT_STREQ(want, strchr(strstr(text, "\n# saved by") + 1, '\n') + 1);
	/* 0644 in directories of 0755, whatever the umask. */
	ASSERT_EQ(0644, mode_of(self->root, BOOTS "/" THIS_BOOT));
	ASSERT_EQ(0755, mode_of(self->root, BOOTS));
	ASSERT_EQ(0755, mode_of(self->root, "var/lib/umhcap"));
	ASSERT_EQ(0755, mode_of(self->root, "var"));
	ASSERT_STREQ(" " THIS_BOOT, entries(self->root, BOOTS));
	/* Without /proc/stat: no btime line. */
	rm_file(self->root, "proc/stat");
	ASSERT_EQ(0, RUN(self->root, "save"));
	ASSERT_LACKS(get(self->root, BOOTS "/" THIS_BOOT), "btime");
	/* --state-dir: under the root, absolute. */
	ASSERT_EQ(0, RUN(self->root, "save", "--state-dir", "/srv/umh/"));
	ASSERT_TRUE(exists(self->root, "srv/umh/boots/" THIS_BOOT));
	ASSERT_EQ(2, RUN(self->root, "save", "--state-dir", "srv"));
	ASSERT_HAS(res.err, "umhcap: bad --state-dir \"srv\": give an absolute path");
}

/*
 * Saved again in the same boot: the file replaced in one step, never
 * written in place; a failed save leaves the old file whole.
 */
TEST_F(umh, save_replaces_atomically)
{
	char old_text[4096], buf[4096], tmp[PATH_MAX];
	struct stat before, after;
	ssize_t n;
	int fd;

	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "save"));
	strcpy(old_text, get(self->root, BOOTS "/" THIS_BOOT));
	snprintf(tmp, sizeof(tmp), "%s/" BOOTS "/" THIS_BOOT, self->root);
	fd = open(tmp, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &before));
	/* The record grew. */
	set_record(self->root, "modprobe", B(CAP_SYS_MODULE) | B(CAP_KILL), 9);
	ASSERT_EQ(0, RUN(self->root, "save"));
	ASSERT_HAS(get(self->root, BOOTS "/" THIS_BOOT),
		   "\nmodprobe started 9 used 65568 0\n");
	ASSERT_EQ(0, stat(tmp, &after));
	ASSERT_NE(before.st_ino, after.st_ino);
	/* Who had the old file open reads it whole. */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	ASSERT_STREQ(old_text, buf);
	ASSERT_STREQ(" " THIS_BOOT, entries(self->root, BOOTS));
	/* A save that cannot write: exit 2, the file as it was. */
	strcpy(old_text, get(self->root, BOOTS "/" THIS_BOOT));
	set_record(self->root, "modprobe", B(CAP_SYS_MODULE), 12);
	chmod_rel(self->root, BOOTS, 0555);
	drop_caps = B(CAP_DAC_OVERRIDE);
	ASSERT_EQ(2, RUN(self->root, "save"));
	chmod_rel(self->root, BOOTS, 0755);
	ASSERT_HAS(res.err, "umhcap: cannot write ");
	ASSERT_HAS(res.err, "umhcap: save: nothing was written\n");
	ASSERT_STREQ("", res.out);
	ASSERT_STREQ(old_text, get(self->root, BOOTS "/" THIS_BOOT));
	ASSERT_STREQ(" " THIS_BOOT, entries(self->root, BOOTS));
}

/* save -n: the file it would write, said; nothing written or made. */
TEST_F(umh, save_dry_run_writes_nothing)
{
	char *before, *after, want[PATH_MAX + 128];

	learn_scene(self->root);
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "save", "-n"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(after);
	ASSERT_STARTS(res.out, "umhcap-record 1\n");
	ASSERT_HAS(res.out, "\nboot_id " THIS_BOOT "\n");
	ASSERT_HAS(res.out, "\ncoredump started 2 used 3 0\n");
	snprintf(want, sizeof(want),
		 "\n-n, nothing written: would save boot " THIS_BOOT "'s record (6 helpers started: modprobe 4, coredump 2) to %s/" BOOTS "/" THIS_BOOT "\n",
		 self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(0, RUN(self->root, "save", "--dry-run", "--state-dir", "/x"));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* No record, or no boot id: exit 2, and nothing written or made. */
TEST_F(umh, save_without_record)
{
	char *before, *after;

	learn_scene(self->root);
	/* The record, but no boot id to name it by. */
	put(self->root, BOOT_ID_FILE, "not-a-boot-id\n");
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "save"));
	ASSERT_HAS(res.err, BOOT_ID_FILE ": unexpected content \"not-a-boot-id\"; expected a boot id");
	ASSERT_HAS(res.err, "umhcap: save: nothing was written\n");
	ASSERT_STREQ("", res.out);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	/* A boot id, and no record. */
	put(self->root, BOOT_ID_FILE, "%s\n", THIS_BOOT);
	rm_file(self->root, UMH "/used");
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "save"));
	ASSERT_HAS(res.err, "umhcap: this kernel keeps no record of what usermode helpers use (no ");
	ASSERT_HAS(res.err, "umhcap: save: nothing was written\n");
	ASSERT_STREQ("", res.out);
	ASSERT_EQ(2, RUN(self->root, "save", "-n"));
	ASSERT_STREQ("", res.out);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	/* An unpatched kernel. */
	unpatch(self->root);
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "save"));
	ASSERT_HAS(res.err, "keeps no record");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	ASSERT_FALSE(exists(self->root, "var"));
	free(before);
	free(after);
}

/*
 * save and boot name a root other than / in every line about a write,
 * or one that would be, and in "nothing was written", as the other
 * commands that write do; under / they name none.
 */
TEST_F(umh, save_and_boot_name_the_root)
{
	char under[PATH_MAX + 32], want[PATH_MAX * 2 + 512];

	see_root = true;
	snprintf(under, sizeof(under), " under root %s (--root)", self->root);
	learn_scene(self->root);

	/* save, -n and not. */
	ASSERT_EQ(0, RUN(self->root, "save", "-n"));
	snprintf(want, sizeof(want), "\n-n, nothing written: would save boot " THIS_BOOT "'s record (6 helpers started: modprobe 4, coredump 2) to %s/" BOOTS "/" THIS_BOOT "%s\n",
		 self->root, under);
	ASSERT_HAS(res.out, want);
	ASSERT_FALSE(exists(self->root, "var"));
	ASSERT_EQ(0, RUN(self->root, "save"));
	snprintf(want, sizeof(want), "saved boot " THIS_BOOT "'s record (6 helpers started: modprobe 4, coredump 2) to %s/" BOOTS "/" THIS_BOOT "%s\n",
		 self->root, under);
	ASSERT_STREQ(want, res.out);

	/* boot, -n and not, to either loader. */
	ASSERT_EQ(0, RUN(self->root, "boot", "-n", "--kernel-install"));
	snprintf(want, sizeof(want), "\n-n, nothing written: would write the above to %s/" KI_CMDLINE "%s\n",
		 self->root, under);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(1, count_of(res.out, under));
	ASSERT_EQ(0, RUN(self->root, "boot", "--grub"));
	snprintf(want, sizeof(want), "wrote %s/" GRUB_CFG "%s, with the bounds learned from ",
		 self->root, under);
	ASSERT_STARTS(res.out, want);
	ASSERT_EQ(1, count_of(res.out, under));
	ASSERT_EQ(0, RUN(self->root, "boot", "--kernel-install"));
	snprintf(want, sizeof(want), "wrote %s/" KI_CMDLINE "%s (made from %s/proc/cmdline",
		 self->root, under, self->root);
	ASSERT_STARTS(res.out, want);

	/* Nothing written. */
	rm_file(self->root, UMH "/used");
	ASSERT_EQ(2, RUN(self->root, "save"));
	snprintf(want, sizeof(want), "umhcap: save: nothing was written%s\n", under);
	ASSERT_HAS(res.err, want);
	ASSERT_EQ(2, RUN(self->root, "boot"));
	snprintf(want, sizeof(want), "umhcap: boot: nothing was written%s\n", under);
	ASSERT_HAS(res.err, want);
	set_record(self->root, NULL, 0, 0);
	set_record(self->root, "modprobe", 0, 0);
	set_record(self->root, "coredump", 0, 0);
	ASSERT_EQ(2, RUN(self->root, "boot"));
	snprintf(want, sizeof(want), ": no helper started; let the machine run with open bounds, save its boots, and try again; nothing was written%s\n",
		 under);
	ASSERT_HAS(res.err, want);

	/* From the environment: said so. */
	learn_scene(self->root);
	setenv("UMHCAP_ROOT", self->root, 1);
	ASSERT_EQ(0, run_argv(self->root, false, (const char *[]){
		"save", "--dry-run", NULL }));
	snprintf(want, sizeof(want), "/" THIS_BOOT " under root %s (UMHCAP_ROOT)\n",
		 self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(0, run_argv(self->root, false, (const char *[]){
		"boot", "--dry-run", NULL }));
	snprintf(want, sizeof(want), "/" KI_CMDLINE " under root %s (UMHCAP_ROOT)\n",
		 self->root);
	ASSERT_HAS(res.out, want);
	unsetenv("UMHCAP_ROOT");
}

/* save and boot take -n and --dry-run alike, and write nothing. */
TEST_F(umh, save_and_boot_dry_run_alike)
{
	static const char *const cmds[][3] = {
		{ "save" }, { "boot", "--kernel-install" }, { "boot", "--grub" },
	};
	char *before, *after, *shorts;
	size_t i;

	learn_scene(self->root);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		const char *argv[5] = { cmds[i][0], "-n", cmds[i][1] };

		ASSERT_EQ(0, run_argv(self->root, true, argv)) TH_LOG("%s", res.err);
		ASSERT_STREQ("", res.err);
		ASSERT_HAS(res.out, "\n-n, nothing written: would ");
		shorts = strdup(res.out);
		argv[1] = "--dry-run";
		ASSERT_EQ(0, run_argv(self->root, true, argv));
		ASSERT_STREQ("", res.err);
		/* The same, but for the time in a line of its own. */
		ASSERT_EQ(count_of(shorts, "\n"), count_of(res.out, "\n"));
		ASSERT_STREQ(strstr(shorts, "\n-n, nothing written: "),
			     strstr(res.out, "\n-n, nothing written: "));
		free(shorts);
	}
	ASSERT_EQ(0, RUN(self->root, "save", "--help"));
	ASSERT_HAS(res.out, "usage: umhcap save [-n] [--json] [--state-dir DIR]\n");
	ASSERT_HAS(res.out, "-n, --dry-run");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * --json: the file, the boot, the helpers started per purpose and the
 * text written, which is the file's; -n: the same, dry_run true, and
 * nothing written.
 */
TEST_F(umh, save_json)
{
	char *before, *after, want[PATH_MAX + 64], at[64];

	learn_scene(self->root);
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "--json", "save", "-n"));
	ASSERT_STREQ("", res.err);
	ASSERT_JSON(res.out);
	ASSERT_LACKS(res.out, "nothing written");
	ASSERT_JSON_AT(res.out, "dry_run", "true");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
	ASSERT_EQ(0, RUN(self->root, "save", "--json"));
	ASSERT_STREQ("", res.err);
	ASSERT_JSON(res.out);
	ASSERT_JSON_AT(res.out, "version", "2");
	ASSERT_JSON_AT(res.out, "dry_run", "false");
	ASSERT_JSON_AT(res.out, "boot_id", "\"" THIS_BOOT "\"");
	snprintf(want, sizeof(want), "\"%s/" BOOTS "/" THIS_BOOT "\"",
		 self->root);
	ASSERT_JSON_AT(res.out, "file", want);
	ASSERT_JSON_AT(res.out, "started", "6");
	ASSERT_JSON_AT(res.out, "purposes.0.purpose", "\"modprobe\"");
	ASSERT_JSON_AT(res.out, "purposes.0.started", "4");
	ASSERT_JSON_AT(res.out, "purposes.1.started", "2");
	/* Every purpose, "other" last. */
	snprintf(at, sizeof(at), "purposes.%zu.purpose", NR_PURPOSES - 1);
	ASSERT_JSON_AT(res.out, at, "\"other\"");
	snprintf(at, sizeof(at), "purposes.%zu.started", NR_PURPOSES - 1);
	ASSERT_JSON_AT(res.out, at, "0");
	snprintf(at, sizeof(at), "purposes.%zu.purpose", NR_PURPOSES);
	ASSERT_EQ(NULL, json_get(res.out, at));
	ASSERT_JSON_AT(res.out, "contents",
		       json_quote(get(self->root, BOOTS "/" THIS_BOOT)));
	/* An error: no JSON, nothing written. */
	rm_file(self->root, BOOT_ID_FILE);
	ASSERT_EQ(2, RUN(self->root, "--json", "save"));
	ASSERT_STREQ("", res.out);
}
