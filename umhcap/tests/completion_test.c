// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the bash completion, umhcap.bash-completion, run by bash
 * as its loader would: the file sourced, COMP_WORDS set, _umhcap called.
 */
#include "common.h"

/*
 * The completions bash offers for @line, the word under the cursor
 * last (empty after a trailing space), space-separated, sorted; static.
 * "<bash failed>" if bash could not run it.
 */
static const char *complete(const char *line)
{
	static char buf[16384];
	char cmd[PATH_MAX * 2 + 1024];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "bash --norc --noprofile -c '"
		 ". \"$1\" && read -r -a COMP_WORDS <<<\"$2\" && "
		 "case $2 in *\" \") COMP_WORDS+=(\"\") ;; esac && "
		 "COMP_WORDS[0]=$3 && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && "
		 "_umhcap; for w in \"${COMPREPLY[@]}\"; do printf \"%%s\\n\" \"$w\"; done | sort | tr \"\\n\" \" \"' "
		 "bash %s '%s' %s",
		 src_path("umhcap.bash-completion"), line, getenv("UMHCAP_BIN"));
	p = popen(cmd, "r");
	if (!p)
		abort();
	n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	if (pclose(p))
		return "<bash failed>";
	return buf;
}

/* The commands, from umhcap --help: each once, and nothing else. */
TEST(completion_of_commands)
{
	ASSERT_STREQ("boot boots check drop export keep learn policy refusals save show status trace user ",
		     complete("umhcap "));
	ASSERT_STREQ("drop ", complete("umhcap dr"));
	/* After --root DIR, still the command. */
	ASSERT_STREQ("save show status ", complete("umhcap --root /tmp s"));
	ASSERT_STREQ("--root ", complete("umhcap --ro"));
	ASSERT_STREQ("--help --hex ", complete("umhcap --he"));
	ASSERT_STREQ("--json ", complete("umhcap --j"));
}

/* Each command's own options, from its --help. */
TEST(completion_of_options)
{
	ASSERT_STREQ("--remove ", complete("umhcap boot --re"));
	ASSERT_STREQ("--dry-run ", complete("umhcap drop --d"));
	/* Every command reports, so every one offers --json. */
	ASSERT_STREQ("--json ", complete("umhcap boot --j"));
	ASSERT_STREQ("--json ", complete("umhcap trace --j"));
	ASSERT_STREQ("--json ", complete("umhcap user --j"));
	ASSERT_STREQ("", complete("umhcap show --dry"));
	ASSERT_STREQ("--allow --cmdline --dry-run --from --help --include-idle --json --last --learned --output --since --state-dir --sysctl --this-boot -h -n -o ",
		     complete("umhcap export --sysctl -o /tmp/x -"));
	ASSERT_EQ(0, count_of(complete("umhcap learn -"), "--remove"));
}

/* Purposes after -p, the last item of a comma list; and for show. */
TEST(completion_of_purposes)
{
	ASSERT_STREQ("coredump ", complete("umhcap drop -p cored"));
	ASSERT_STREQ("modprobe,coredump ", complete("umhcap keep -p modprobe,co"));
	ASSERT_STREQ("release_agent request_key ", complete("umhcap user --purpose re"));
	ASSERT_STREQ("initrd ", complete("umhcap show in"));
	ASSERT_STREQ("all ", complete("umhcap learn --apply a"));
}

/* Every purpose of the table, and nothing else, all among them. */
TEST(completion_of_every_purpose)
{
	char words[1024], want[64];
	size_t p;

	snprintf(words, sizeof(words), " %s", complete("umhcap show "));
	for (p = 0; p < UMH_NR; p++) {
		snprintf(want, sizeof(want), " %s ", umh_purposes[p].name);
		EXPECT_NE(NULL, strstr(words, want))
			TH_LOG("%s lacks %s", words, umh_purposes[p].name);
	}
	ASSERT_EQ(UMH_NR + 1, count_of(words, " "));
}

/* Capabilities for drop and keep: all, none, and libcap's names. */
TEST(completion_of_capabilities)
{
	ASSERT_STREQ("none ", complete("umhcap drop -p all no"));
	ASSERT_STREQ("all ", complete("umhcap keep -p all al"));
	if (system("command -v capsh >/dev/null"))
		SKIP(return, "no capsh here (libcap2-bin)");
	ASSERT_STREQ("cap_sys_module ", complete("umhcap drop -p modprobe cap_sys_mod"));
}

/*
 * --allow's argument: PURPOSE:CAP items, of the purposes --allow takes
 * (never all, which it refuses), the last item of a comma list; and
 * user's users, under --root those of the root's passwd, not this
 * machine's; boots --forget's ids, those of the root's saved boots;
 * --from's directories.
 */
TEST_F(umh, completion_of_allow_and_root_users)
{
	char line[PATH_MAX + 64], want[PATH_MAX + 64];

	ASSERT_EQ(0, count_of(complete("umhcap boot --allow "), "all"));
	ASSERT_STREQ("coredump: ", complete("umhcap boot --allow cored"));
	ASSERT_STREQ("modprobe:cap_kill,coredump: ",
		     complete("umhcap learn --apply --allow modprobe:cap_kill,cored"));
	ASSERT_EQ(0, count_of(complete("umhcap learn --apply --allow a"), "all"));
	put(self->root, "etc/passwd",
	    "root:x:0:0:root:/root:/bin/sh\numh-only-in-root:x:990:990::/:/bin/false\n");
	snprintf(line, sizeof(line), "umhcap --root %s user -p modprobe umh-o", self->root);
	ASSERT_STREQ("umh-only-in-root ", complete(line));
	snprintf(line, sizeof(line), "umhcap --root %s user -p modprobe ", self->root);
	ASSERT_STREQ("root umh-only-in-root ", complete(line));
	/* --forget: the root's saved boots, by id, or --state-dir's. */
	two_saved_boots(self->root);
	put(self->root, BOOTS "/.tmp-x", "");
	snprintf(line, sizeof(line), "umhcap --root %s boots --forget ", self->root);
	ASSERT_STREQ(BOOT_A " " BOOT_B " ", complete(line));
	snprintf(line, sizeof(line), "umhcap --root %s boots --state-dir /srv --forget ", self->root);
	ASSERT_STREQ("", complete(line));
	/* --from: a directory, each machine's copy. */
	mkdir_p(at(self->root, "fleet-of/web1"));
	snprintf(line, sizeof(line), "umhcap learn --from %s/fleet-o", self->root);
	snprintf(want, sizeof(want), "%s/fleet-of ", self->root);
	ASSERT_STREQ(want, complete(line));
	if (system("command -v capsh >/dev/null"))
		SKIP(return, "no capsh here (libcap2-bin)");
	ASSERT_STREQ("coredump:cap_sys_ptrace ",
		     complete("umhcap boot --allow coredump:cap_sys_pt"));
}
