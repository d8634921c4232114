// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the global options (--root, --json, -n), the table of commands:
 * every command's --help, its options and its errors, and what every
 * command's output has in common (main.c, opts.c, msg.c).
 */
#include "common.h"

TEST_F(umh, root_from_environment)
{
	set_bound(self->root, "power", B(CAP_KILL), B(CAP_KILL));
	setenv("UMHCAP_ROOT", self->root, 1);
	ASSERT_EQ(0, run_argv(self->root, false,
			      (const char *[]){ "show", "power", NULL }));
	ASSERT_HAS(res.out, "power:\n  bset:        cap_kill\n");
}

TEST_F(umh, missing_root)
{
	ASSERT_EQ(2, run_argv(NULL, false, (const char *[]){
		"--root", "/tmp/umhcap-test.nonexistent", "show", NULL }));
	ASSERT_HAS(res.err, "umhcap: cannot open /tmp/umhcap-test.nonexistent/"
			    UMH "/bset: No such file or directory; ");
}

/* The checker itself: what it must refuse, what it must take. */
TEST(json_checker)
{
	static const char *const bad[] = {
		"", "{", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{a:1}", "01",
		"[1] x", "\"x", "\"\\q\"", "[\"\t\"]", "1.", "-", "{}{}",
		"[tru]",
	};
	static const char *const good[] = {
		"{}", "[]", " {\"a\":[1,-2.5e3,\"x\\n\\u00e9\",true,false,null]}\n",
		"0", "\"\"",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_FALSE(json_valid(bad[i])) TH_LOG("took %s", bad[i]);
	for (i = 0; i < ARRAY_SIZE(good); i++)
		EXPECT_TRUE(json_valid(good[i])) TH_LOG("refused %s", good[i]);
}

/* The reader the tests take fields with: by key and by index. */
TEST(json_reader)
{
	static const char doc[] = "{\"a\":[1,{\"b\":\"x\\\"y\"}],\"ab\":null,\"c\":{}}\n";

	ASSERT_STREQ("1", json_get(doc, "a.0"));
	ASSERT_STREQ("\"x\\\"y\"", json_get(doc, "a.1.b"));
	ASSERT_STREQ("null", json_get(doc, "ab"));
	ASSERT_STREQ("{}", json_get(doc, "c"));
	ASSERT_EQ(NULL, json_get(doc, "a.2"));
	ASSERT_EQ(NULL, json_get(doc, "b"));
	ASSERT_EQ(NULL, json_get(doc, "c.d"));
	ASSERT_EQ(NULL, json_get("{\"a\":}", "a"));
}

/*
 * Every command reports, so every command takes --json, before its name
 * or after, learn --apply too; but not export with a format of its own.
 */
TEST_F(umh, json_only_where_supported)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++) {
		ASSERT_EQ(0, RUN(self->root, commands[i], "--help"));
		EXPECT_TRUE(strstr(res.out, "\n  --json ") != NULL)
			TH_LOG("%s --help lists no --json", commands[i]);
		EXPECT_TRUE(strstr(res.out, " [--json]") ||
			    strstr(res.out, "|--json"))
			TH_LOG("%s: no --json in its usage", commands[i]);
	}
	ASSERT_EQ(2, RUN(self->root, "--json", "export", "--sysctl"));
	ASSERT_STREQ("", res.out);
}

/* Every JSON output is valid and ends with a newline, as umhcap.8 says. */
TEST_F(umh, json_ends_with_newline)
{
	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "--json", "show"));
	ASSERT_JSON(res.out);
	ASSERT_EQ(0, RUN(self->root, "--json", "show", "coredump"));
	ASSERT_JSON(res.out);
	ASSERT_EQ(0, RUN(self->root, "--json", "learn"));
	ASSERT_JSON(res.out);
	ASSERT_EQ(0, RUN(self->root, "learn", "--json", "--include-idle",
			 "power"));
	ASSERT_JSON(res.out);
	unpatch(self->root);
	ASSERT_EQ(0, RUN(self->root, "--json", "show"));
	ASSERT_JSON(res.out);
	ASSERT_HAS(res.out, "\"per_purpose\":false,");
}

TEST_F(umh, help_and_version)
{
	ASSERT_EQ(0, RUN(self->root, "--help"));
	ASSERT_HAS(res.out, "usage: umhcap");
	ASSERT_HAS(res.out, "export [--learned [--include-idle] [--this-boot] [--state-dir DIR] [--since DATE] [--last N] [--allow PURPOSE:CAP,...]] --sysctl|--cmdline");
	ASSERT_HAS(res.out, "learn --apply [-n] [--json] [--include-idle]");
	ASSERT_HAS(res.out, "\n  policy [--json]  ");
	ASSERT_EQ(0, RUN(self->root, "--version"));
	ASSERT_HAS(res.out, "umhcap 0.");
}

TEST_F(umh, unknown_command)
{
	ASSERT_EQ(2, RUN(self->root, "frobnicate"));
	ASSERT_HAS(res.err, "umhcap: unknown command \"frobnicate\"");
}

/* Does every line of @s start with @prefix? */
static bool every_line_starts(const char *s, const char *prefix)
{
	for (; *s; s = strchr(s, '\n') + 1) {
		if (strncmp(s, prefix, strlen(prefix)) || !strchr(s, '\n'))
			return false;
	}
	return true;
}

/*
 * Every error and warning starts "umhcap: ", whatever argv[0] is:
 * getopt's own messages too, which would start with argv[0].
 */
TEST_F(umh, errors_start_with_umhcap)
{
	static const char *const argv0s[] = {
		"./umhcap", "/x/umhcap", "keep", "umhcap.static",
	};
	static const char *const runs[][6] = {
		{ "--bogus" },
		{ "-Q" },
		{ "--root" },
		{ "--json=1", "show" },
		{ "frobnicate" },
		{ "keep", "-Q", "cap_chown" },
		{ "keep", "--bogus", "cap_chown" },
		{ "keep", "cap_chown", "-p" },
		{ "keep", "--dry-run=1", "cap_chown" },
		{ "keep", "--d" },
		{ "keep", "-p", "bogus", "cap_chown" },
		{ "keep", "cap_bogus" },
		{ "keep", "-p", "modprobe", "cap_chown" },
		{ "keep" },
		{ "drop", "-p", "modprobe" },
		{ "user", "-p", "coredump", "no-such-user-here" },
		{ "learn", "-n" },
		{ "export" },
		{ "save", "--json", "--this-boot" },
		{ "trace", "--count", "0" },
		{ "show", "--json=x" },
	};
	char *before, *after;
	size_t i, r;

	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(argv0s); i++) {
		for (r = 0; r < ARRAY_SIZE(runs); r++) {
			argv0 = argv0s[i];
			EXPECT_EQ(2, run_argv(self->root, true,
					      (const char **)runs[r]))
				TH_LOG("%s %s %s", argv0s[i], runs[r][0],
				       runs[r][1]);
			EXPECT_NE(0, res.err[0]);
			EXPECT_TRUE(every_line_starts(res.err, "umhcap: "))
				TH_LOG("%s %s %s: %s", argv0s[i], runs[r][0],
				       runs[r][1], res.err);
		}
		/* A warning, as an error. */
		argv0 = argv0s[i];
		EXPECT_EQ(0, run_argv(self->root, true, (const char *[]){
			"keep", "-n", "-p", "modprobe", "sys_module", NULL }));
		ASSERT_HAS(res.err, "umhcap: warning: ");
		EXPECT_TRUE(every_line_starts(res.err, "umhcap: "))
			TH_LOG("%s: %s", argv0s[i], res.err);
	}
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* Is @word in @hay, between spaces or line ends? */
static bool has_word(const char *hay, const char *word)
{
	size_t n = strlen(word);
	const char *s;

	for (s = hay; (s = strstr(s, word)); s++)
		if ((s == hay || s[-1] == ' ' || s[-1] == '\n') &&
		    (!s[n] || s[n] == ' ' || s[n] == '\n'))
			return true;
	return false;
}

/*
 * What each command would run with, writing where it writes; umhcap runs
 * the command, with the option added, once learn_scene() has given
 * learn --apply something to write.
 */
static const char *const *cmd_args(const char *cmd)
{
	static const struct {
		const char *cmd;
		const char *args[4];
	} args[] = {
		{ "drop", { "-p", "modprobe", "cap_chown" } },
		{ "keep", { "-p", "modprobe", "cap_chown" } },
		{ "user", { "-p", "modprobe", "1:1" } },
		{ "learn", { "--apply" } },
		{ "export", { "--sysctl" } },
		{ "trace", { "--count", "1" } },
	};
	static const char *const none[] = { NULL };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(args); i++)
		if (!strcmp(cmd, args[i].cmd))
			return args[i].args;
	return none;
}

/* umhcap --root ROOT CMD OPT ARGS..., ARGS from cmd_args(). */
static int run_cmd(const char *root, const char *cmd, const char *opt)
{
	const char *const *args = cmd_args(cmd);
	const char *argv[8] = { cmd };
	int n = 1, i;

	if (opt)
		argv[n++] = opt;
	for (i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return run_argv(root, true, argv);
}

/* Every command answers -h and --help with its own usage, on stdout. */
TEST_F(umh, every_command_answers_help)
{
	static const char *const helps[] = { "--help", "-h" };
	char *before, *after, want[64];
	const char *purposes_at;
	size_t i, h, p;

	learn_scene(self->root);
	before = tree(self->root);
	for (i = 0; i < NR_COMMANDS; i++) {
		for (h = 0; h < ARRAY_SIZE(helps); h++) {
			EXPECT_EQ(0, run_cmd(self->root, commands[i],
					     helps[h]))
				TH_LOG("%s %s: %s", commands[i], helps[h],
				       res.err);
			EXPECT_STREQ("", res.err);
			snprintf(want, sizeof(want), "usage: umhcap %s",
				 commands[i]);
			EXPECT_EQ(0, strncmp(res.out, want, strlen(want)))
				TH_LOG("%s %s printed:\n%s", commands[i],
				       helps[h], res.out);
			EXPECT_TRUE(strstr(res.out, "\noptions:\n") &&
				    strstr(res.out, "\n  -h, --help "))
				TH_LOG("%s: %s", commands[i], res.out);
		}
		/* A command that names purposes says which there are. */
		if (!strcmp(commands[i], "show") ||
		    !strcmp(commands[i], "drop") ||
		    !strcmp(commands[i], "keep") ||
		    !strcmp(commands[i], "user") ||
		    !strcmp(commands[i], "learn")) {
			purposes_at = strstr(res.out, "\npurposes: ");
			ASSERT_NE(NULL, purposes_at) TH_LOG("%s", commands[i]);
			for (p = 0; p < UMH_NR; p++)
				EXPECT_TRUE(has_word(purposes_at,
						     umh_purposes[p].name))
					TH_LOG("%s --help lacks %s", commands[i],
					       umh_purposes[p].name);
		}
	}
	/* Every command that writes can say what it would, instead. */
	ASSERT_EQ(0, RUN(self->root, "drop", "--help"));
	ASSERT_HAS(res.out, "\n  -n, --dry-run ");
	ASSERT_EQ(0, RUN(self->root, "keep", "--help"));
	ASSERT_HAS(res.out, "\n  -n, --dry-run ");
	ASSERT_EQ(0, RUN(self->root, "user", "--help"));
	ASSERT_HAS(res.out, "\n  -n, --dry-run ");
	ASSERT_EQ(0, RUN(self->root, "learn", "--help"));
	ASSERT_HAS(res.out, "\n       umhcap learn --apply [-n] ");
	ASSERT_HAS(res.out, "\n  -n, --dry-run ");
	/* Help reads nothing, and writes nothing. */
	ASSERT_EQ(0, run_argv(NULL, false, (const char *[]){
		"--root", "/tmp/umhcap-test.nonexistent", "trace", "--help",
		NULL }));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * An option a command does not take: one line on stderr, exit 2, and
 * nothing written, though the command would write.
 */
TEST_F(umh, every_command_refuses_unknown_options)
{
	static const struct {
		const char *opt, *err;
	} bad[] = {
		{ "--bogus-option", "unknown option \"--bogus-option\"; usage: umhcap " },
		{ "-Q", "unknown option \"-Q\"; usage: umhcap " },
		{ "--help=1", "option --help takes no argument; usage: umhcap " },
	};
	char *before, *after, want[128];
	size_t i, b;

	for (i = 0; i < NR_COMMANDS; i++) {
		learn_scene(self->root);
		set_bound(self->root, "modprobe", full(), full());
		set_bound(self->root, "coredump", full(), full());
		before = tree(self->root);
		for (b = 0; b < ARRAY_SIZE(bad); b++) {
			EXPECT_EQ(2, run_cmd(self->root, commands[i],
					     bad[b].opt))
				TH_LOG("%s %s", commands[i], bad[b].opt);
			EXPECT_STREQ("", res.out);
			snprintf(want, sizeof(want), "umhcap: %s%s",
				 bad[b].err, commands[i]);
			EXPECT_EQ(0, strncmp(res.err, want, strlen(want)))
				TH_LOG("%s %s: want \"%s\" at the start of: %s",
				       commands[i], bad[b].opt, want,
				       res.err);
			EXPECT_EQ(1, count_of(res.err, "\n"))
				TH_LOG("%s %s: %s", commands[i], bad[b].opt,
				       res.err);
		}
		after = tree(self->root);
		EXPECT_STREQ(before, after) TH_LOG("%s wrote", commands[i]);
		free(before);
		free(after);
		/* The same arguments without it: the command runs. */
		EXPECT_NE(2, run_cmd(self->root, commands[i], NULL))
			TH_LOG("%s: %s", commands[i], res.err);
	}
	/* An option missing its argument, and the global options. */
	ASSERT_EQ(2, RUN(self->root, "drop", "cap_chown", "-p"));
	ASSERT_STREQ("umhcap: option -p needs an argument; usage: umhcap drop -p PURPOSE[,PURPOSE...] [-n] [--json] CAP...\n",
		     res.err);
	ASSERT_EQ(2, RUN(self->root, "trace", "--count"));
	ASSERT_HAS(res.err, "umhcap: option --count needs an argument; usage: umhcap trace");
	ASSERT_EQ(2, RUN(self->root, "--bogus-option", "drop", "cap_chown"));
	ASSERT_STREQ("umhcap: unknown option \"--bogus-option\"; see umhcap --help\n",
		     res.err);
	ASSERT_EQ(2, RUN(self->root, "-Q", "drop", "cap_chown"));
	ASSERT_STREQ("umhcap: unknown option \"-Q\"; see umhcap --help\n",
		     res.err);
	ASSERT_EQ(2, RUN(self->root, "--json=1", "drop", "cap_chown"));
	ASSERT_STREQ("umhcap: option --json takes no argument; see umhcap --help\n",
		     res.err);
	ASSERT_STREQ(kernel_fmt(full()), get(self->root, UMH "/bset"));
}

/* Each option refused where a command does not take it, and nothing run. */
TEST_F(umh, options_only_where_taken)
{
	char *before, *after;

	learn_scene(self->root);
	before = tree(self->root);
	ASSERT_EQ(2, RUN(self->root, "drop", "-x", "cap_chown"));
	ASSERT_HAS(res.err, "unknown option \"-x\"; usage: umhcap drop");
	ASSERT_EQ(2, RUN(self->root, "keep", "--apply", "cap_chown"));
	ASSERT_EQ(2, RUN(self->root, "export", "--sysctl", "-n"));
	ASSERT_EQ(2, RUN(self->root, "show", "-p", "modprobe"));
	ASSERT_EQ(2, RUN(self->root, "learn", "--apply", "--count", "1"));
	ASSERT_EQ(2, RUN(self->root, "trace", "--json=1"));
	ASSERT_HAS(res.err, "umhcap trace");
	ASSERT_EQ(2, RUN(self->root, "save", "--this-boot"));
	ASSERT_HAS(res.err, "unknown option \"--this-boot\"; usage: umhcap save");
	ASSERT_EQ(2, RUN(self->root, "check", "modprobe"));
	ASSERT_STREQ("umhcap: unexpected argument \"modprobe\"; usage: umhcap check [--json]\n",
		     res.err);
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/* The purposes an error calls valid: every one of the table, in order. */
TEST_F(umh, valid_lists_every_purpose)
{
	static const char *const runs[][5] = {
		{ "show", "bogus" },
		{ "learn", "modprobe", "bogus" },
		{ "learn", "--apply", "bogus" },
		{ "drop", "-p", "bogus", "cap_chown" },
		{ "keep", "-p", "bogus", "cap_chown" },
		{ "user", "-p", "coredump,bogus", "1:1" },
	};
	char want[256] = "umhcap: unknown purpose \"bogus\"; valid: all";
	char *before, *after, *valid;
	size_t i, p;

	for (i = 0; i < NR_PURPOSES; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 " %s", purposes[i]);
	strcat(want, "\n");
	learn_scene(self->root);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		EXPECT_EQ(2, run_argv(self->root, true, (const char **)runs[i]));
		EXPECT_STREQ(want, res.err) TH_LOG("umhcap %s %s", runs[i][0],
						   runs[i][1]);
		EXPECT_STREQ("", res.out);
		valid = strstr(res.err, "valid:");
		ASSERT_NE(NULL, valid);
		for (p = 0; p < UMH_NR; p++)
			EXPECT_TRUE(has_word(valid, umh_purposes[p].name))
				TH_LOG("valid: lacks %s: %s",
				       umh_purposes[p].name, res.err);
	}
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * "\npurposes: all modprobe ...\n", the table's names in its order,
 * wrapped as --help wraps a list: before 72 columns, under the first word.
 */
static void purposes_lines(char *buf, size_t len)
{
	static const char label[] = "purposes: ";
	size_t indent = strlen(label), col = indent, i, w;
	int n = snprintf(buf, len, "\n%s", label);

	for (i = 0; i < UMH_NR; i++) {
		w = strlen(umh_purposes[i].name);
		if (col > indent && col + 1 + w > 72) {
			n += snprintf(buf + n, len - n, "\n%*s", (int)indent, "");
			col = indent;
		}
		if (col > indent) {
			n += snprintf(buf + n, len - n, " ");
			col++;
		}
		n += snprintf(buf + n, len - n, "%s", umh_purposes[i].name);
		col += w;
	}
	snprintf(buf + n, len - n, "\n");
}

/* umhcap --help lists every command, in order, and each answers --help. */
TEST_F(umh, help_lists_every_command)
{
	char help[sizeof(res.out)], name[32], want[256];
	const char *s, *end;
	size_t n = 0, i;

	ASSERT_EQ(0, RUN(self->root, "--help"));
	memcpy(help, res.out, sizeof(help));
	s = strstr(help, "\ncommands:\n");
	ASSERT_NE(NULL, s);
	s += strlen("\ncommands:\n");
	end = strstr(s, "\n\n");
	ASSERT_NE(NULL, end);
	for (; s < end; s = strchr(s, '\n') + 1) {
		/* "  NAME ...": a form; more indented: its summary. */
		if (s[2] == ' ')
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(s + 2, " \n"),
			 s + 2);
		if (n && !strcmp(name, commands[n - 1]))
			continue;
		ASSERT_LT(n, NR_COMMANDS) TH_LOG("%s: not a command", name);
		EXPECT_STREQ(commands[n], name);
		n++;
		EXPECT_EQ(0, RUN(self->root, name, "--help")) TH_LOG("%s", name);
		snprintf(want, sizeof(want), "usage: umhcap %s", name);
		EXPECT_EQ(0, strncmp(res.out, want, strlen(want)));
	}
	ASSERT_EQ(NR_COMMANDS, n);
	for (i = 0; i < NR_COMMANDS; i++) {
		snprintf(want, sizeof(want), "\n  %s", commands[i]);
		ASSERT_HAS(help, want);
	}
	ASSERT_HAS(help, "\n  -x, --hex       also print hex masks (show, learn, trace)\n");
	ASSERT_HAS(help, "\n  --json          machine-readable output (every command)\n");
	purposes_lines(want, sizeof(want));
	ASSERT_HAS(help, want);
	ASSERT_HAS(help, "umhcap COMMAND --help");
}

/*
 * Every line about a write, or one that would be, names the root when
 * it is not /, and where it came from; under / none does.
 */
TEST_F(umh, writes_name_the_root)
{
	char under[256], want[PATH_MAX], *before, *after;
	const char *s;

	see_root = true;
	snprintf(under, sizeof(under), " under root %s (--root)", self->root);
	learn_scene(self->root);

	/* Dry runs: every line, and nothing written. */
	before = tree(self->root);
	ASSERT_EQ(0, RUN(self->root, "keep", "--dry-run", "-p", "modprobe",
			 "sys_module"));
	snprintf(want, sizeof(want), "would write \"65536 0\" to %s/" UMH
		 "/modprobe/bset (cap_sys_module)%s\n"
		 "would write \"65536 0\" to %s/" UMH
		 "/modprobe/inheritable (cap_sys_module)%s\n",
		 self->root, under, self->root, under);
	ASSERT_STREQ(want, res.out);
	ASSERT_EQ(0, RUN(self->root, "drop", "-n", "-p", "all", "all"));
	ASSERT_EQ(2, count_of(res.out, under));
	ASSERT_EQ(0, RUN(self->root, "user", "--dry-run", "-p", "coredump",
			 "1:1"));
	snprintf(want, sizeof(want), "would write \"1\" to %s/" UMH
		 "/coredump/gid%s\n", self->root, under);
	ASSERT_EQ(0, strncmp(res.out, want, strlen(want))) TH_LOG("%s", res.out);
	ASSERT_EQ(3, count_of(res.out, under));
	s = strstr(res.out, "coredump: would run as ");
	ASSERT_NE(NULL, s);
	snprintf(want, sizeof(want), "%s\n", under);
	ASSERT_STREQ(want, s + strlen(s) - strlen(want));
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply", "--dry-run"));
	snprintf(want, sizeof(want), "-n, nothing written: %s%s\n",
		 applied(2, 0), under);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(5, count_of(res.out, under));
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);

	/* What was written. */
	ASSERT_EQ(0, RUN(self->root, "drop", "-p", "power", "kill"));
	snprintf(want, sizeof(want), "power bset: all except cap_kill%s\n"
		 "power inheritable: all except cap_kill%s\n", under, under);
	ASSERT_STREQ(want, res.out);
	ASSERT_EQ(0, RUN(self->root, "learn", "--apply"));
	snprintf(want, sizeof(want), "modprobe: narrowed to what its helpers used: bset cap_sys_module, inheritable cap_sys_module%s\n",
		 under);
	ASSERT_HAS(res.out, want);
	snprintf(want, sizeof(want), "%s%s\n", applied(2, 0), under);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(0, RUN(self->root, "user", "-p", "uevent", "0:0"));
	snprintf(want, sizeof(want), "uevent: runs as root already; unchanged%s\n",
		 under);
	ASSERT_STREQ(want, res.out);

	/* Nothing written, or some. */
	ASSERT_EQ(2, RUN(self->root, "user", "-p", "coredump",
			 "no-such-user-here"));
	snprintf(want, sizeof(want), "umhcap: user: nothing was written%s\n",
		 under);
	ASSERT_HAS(res.err, want);
	read_only(self->root, UMH "/uevent/inheritable");
	ASSERT_EQ(3, RUN(self->root, "keep", "-p", "coredump,uevent", "none"));
	snprintf(want, sizeof(want), "umhcap: keep stopped at uevent, after writing to: coredump uevent (in part); the purposes after uevent were not narrowed%s\n",
		 under);
	ASSERT_HAS(res.err, want);

	/* From the environment: said so; a trailing slash is no other root. */
	snprintf(want, sizeof(want), "%s/", self->root);
	setenv("UMHCAP_ROOT", want, 1);
	ASSERT_EQ(0, run_argv(self->root, false, (const char *[]){
		"drop", "-n", "-p", "power", "none", NULL }));
	snprintf(want, sizeof(want), "/power/bset (all except cap_kill) under root %s (UMHCAP_ROOT)\n",
		 self->root);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(2, count_of(res.out, " (UMHCAP_ROOT)\n"));

	/* Under / nothing is named; --root wins over UMHCAP_ROOT. */
	ASSERT_EQ(2, run_argv(NULL, false, (const char *[]){
		"--root", "/", "user", "-p", "coredump", "no-such-user-here",
		NULL }));
	ASSERT_HAS(res.err, "umhcap: user: nothing was written\n");
	ASSERT_LACKS(res.err, "under root");
	unsetenv("UMHCAP_ROOT");
	ASSERT_EQ(2, run_argv(NULL, false, (const char *[]){
		"--root", "//", "user", "-p", "coredump", "no-such-user-here",
		NULL }));
	ASSERT_HAS(res.err, "umhcap: user: nothing was written\n");

	/* As the help says. */
	ASSERT_EQ(0, RUN(self->root, "--help"));
	ASSERT_HAS(res.out, "(env UMHCAP_ROOT); each\n"
			    "                  line about a write names it; empty is an error\n");
	ASSERT_EQ(0, RUN(self->root, "keep", "--help"));
	ASSERT_HAS(res.out, "\nUnder a root other than / (--root DIR, or UMHCAP_ROOT), each line\n");
}

/*
 * Every command that writes takes -n and --dry-run alike: each file and
 * value it would write, one line each, and nothing written.
 */
TEST_F(umh, dry_run_everywhere)
{
	static const char *const runs[][6] = {
		{ "drop", "-p", "coredump,power", "kill,chown" },
		{ "keep", "-p", "all,uevent", "none" },
		{ "user", "-p", "coredump,power", "1:2" },
		{ "learn", "--apply", "--include-idle" },
	};
	/* learn --apply --include-idle: bset and inheritable, every purpose */
	static const int files[] = { 4, 4, 4, 2 * (int)NR_PURPOSES };
	char *before, *after, *shorts;
	size_t i;

	learn_scene(self->root);
	before = tree(self->root);
	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		const char *argv[8] = { runs[i][0], "-n" };
		int n;

		for (n = 1; runs[i][n]; n++)
			argv[n + 1] = runs[i][n];
		ASSERT_EQ(0, run_argv(self->root, true, argv)) TH_LOG("%s", res.err);
		shorts = strdup(res.out);
		argv[1] = "--dry-run";
		ASSERT_EQ(0, run_argv(self->root, true, argv));
		EXPECT_STREQ(shorts, res.out);
		EXPECT_EQ(files[i], count_of(res.out, "would write \""))
			TH_LOG("%s: %s", runs[i][0], res.out);
		EXPECT_EQ(files[i], count_of(res.out, self->root))
			TH_LOG("%s: %s", runs[i][0], res.out);
		EXPECT_STREQ("", res.err);
		free(shorts);
	}
	ASSERT_HAS(res.out, "/" UMH "/other/inheritable (none)\n");
	after = tree(self->root);
	ASSERT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * A write to stdout that fails fails the command, with a message, as it
 * fails sysctl: each command that reports, --help, and a command that
 * wrote before its output failed (3).
 */
TEST_F(umh, output_that_cannot_be_written)
{
	static const char *const runs[][7] = {
		{ "show" }, { "--json", "show" }, { "show", "-x" },
		{ "policy" }, { "learn" }, { "--json", "learn" },
		{ "check" }, { "export", "--sysctl" }, { "export", "--cmdline" },
		{ "--help" }, { "show", "--help" }, { "--version" },
		{ "drop", "-n", "-p", "modprobe", "cap_sys_module" },
		{ "--json", "drop", "-n", "-p", "modprobe", "cap_sys_module" },
		{ "--json", "user", "-n", "-p", "modprobe", "root" },
		{ "--json", "save", "-n" }, { "--json", "boot", "-n" },
		{ "--json", "boot", "--remove", "-n" },
	};
	static const char full_msg[] =
		"umhcap: cannot write the output: No space left on device\n";
	static const char wrote_msg[] =
		"umhcap: cannot write the output: No space left on device; written before it: ";
	size_t i;
	int rc;

	if (access("/dev/full", W_OK))
		SKIP(return, "no /dev/full to write to");
	learn_scene(self->root);
	/* So that export --cmdline has something to print */
	set_bound(self->root, "uevent", B(CAP_MKNOD), B(CAP_MKNOD));
	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		out_to = "/dev/full";
		rc = run_argv(self->root, true, (const char **)runs[i]);
		if (rc != 2 || !strstr(res.err, full_msg))
			TH_LOG("umhcap %s %s: exit %d, stderr:\n%s", runs[i][0],
			       runs[i][1] ?: "", rc, res.err);
		EXPECT_EQ(2, rc);
		EXPECT_TRUE(strstr(res.err, full_msg) != NULL);
	}
	/* Written, then the output lost: 3, and the bound is narrowed. */
	out_to = "/dev/full";
	EXPECT_EQ(3, RUN(self->root, "drop", "-p", "modprobe", "cap_sys_module"));
	EXPECT_TRUE(strstr(res.err, wrote_msg) != NULL);
	EXPECT_STRNE(kernel_fmt(full()), get(self->root, UMH "/modprobe/bset"));
	/* The same with --json: its one object lost, after the write. */
	out_to = "/dev/full";
	EXPECT_EQ(3, RUN(self->root, "--json", "keep", "-p", "modprobe",
			 "none"));
	EXPECT_TRUE(strstr(res.err, wrote_msg) != NULL);
	EXPECT_STREQ(written(0), get(self->root, UMH "/modprobe/bset"));
	out_to = "/dev/full";
	EXPECT_EQ(3, RUN(self->root, "--json", "save"));
	EXPECT_TRUE(strstr(res.err, wrote_msg) != NULL);
	EXPECT_TRUE(exists(self->root, BOOTS "/" THIS_BOOT));
}

/*
 * An empty --root or UMHCAP_ROOT, as a script's unset variable gives, is
 * an error and touches nothing; --root / is this machine, said outright.
 */
TEST_F(umh, empty_root_refused)
{
	char before[4096];

	snprintf(before, sizeof(before), "%s", get(self->root, UMH "/bset"));
	ASSERT_EQ(2, run_argv(NULL, false, (const char *[]){
		"--root", "", "drop", "-n", "cap_kill", NULL }));
	ASSERT_STREQ("umhcap: empty --root: give the root directory, or / for this machine\n",
		     res.err);
	ASSERT_STREQ("", res.out);
	setenv("UMHCAP_ROOT", "", 1);
	ASSERT_EQ(2, run_argv(NULL, false, (const char *[]){ "show", NULL }));
	unsetenv("UMHCAP_ROOT");
	ASSERT_STREQ("umhcap: empty UMHCAP_ROOT: give the root directory, or / for this machine\n",
		     res.err);
	/* --root wins over the environment, as before */
	setenv("UMHCAP_ROOT", "", 1);
	ASSERT_EQ(0, run_argv(NULL, false, (const char *[]){
		"--root", self->root, "show", NULL }));
	unsetenv("UMHCAP_ROOT");
	ASSERT_STREQ(before, get(self->root, UMH "/bset"));
}

/* Every option has a long form, in every command's help; -V is --version. */
TEST_F(umh, every_option_has_a_long_form)
{
	const char *opts, *line;
	size_t i;

	ASSERT_EQ(0, RUN(self->root, "-V"));
	ASSERT_STARTS(res.out, "umhcap 0.");
	ASSERT_EQ(0, RUN(self->root, "--hex", "show", "modprobe"));
	ASSERT_HAS(res.out, "0x");
	ASSERT_EQ(0, RUN(self->root, "show", "--hex", "modprobe"));
	ASSERT_HAS(res.out, "0x");
	ASSERT_EQ(0, RUN(self->root, "drop", "--purpose", "modprobe",
			 "--dry-run", "cap_sys_module"));
	ASSERT_HAS(res.out, "would write");
	for (i = 0; i < NR_COMMANDS; i++) {
		ASSERT_EQ(0, RUN(self->root, commands[i], "--help"));
		opts = strstr(res.out, "\noptions:\n");
		ASSERT_NE(NULL, opts);
		for (line = opts + 10; *line == ' '; line = strchr(line, '\n') + 1) {
			size_t len = strcspn(line, "\n");
			char *l = strndup(line, len);

			EXPECT_TRUE(strstr(l, " --") != NULL)
				TH_LOG("%s: no long form in \"%s\"", commands[i], l);
			free(l);
		}
	}
	ASSERT_EQ(0, RUN(self->root, "--help"));
	opts = strstr(res.out, "\noptions:\n");
	ASSERT_NE(NULL, opts);
	for (line = opts + 10; *line == ' '; line = strchr(line, '\n') + 1)
		EXPECT_TRUE(strncmp(line, "  --", 4) == 0 ||
			    strncmp(line + 4, ", --", 4) == 0 || line[2] != '-')
			TH_LOG("no long form: %.40s", line);
}

/*
 * The global -x, as the global --json, only before a command that
 * prints masks: refused before any other, and with learn --apply, whose
 * lines have none, with the commands that take it named.
 */
TEST_F(umh, hex_only_where_supported)
{
	static const char *const no_hex[] = {
		"policy", "check", "refusals", "save", "boot",
	};
	size_t i;

	learn_scene(self->root);
	for (i = 0; i < ARRAY_SIZE(no_hex); i++) {
		EXPECT_EQ(2, RUN(self->root, "-x", no_hex[i]))
			TH_LOG("umhcap -x %s", no_hex[i]);
		EXPECT_STREQ("", res.out);
	}
	ASSERT_EQ(2, RUN(self->root, "--hex", "policy"));
	ASSERT_STREQ("umhcap: -x is not supported by policy; only show, learn and trace print hex masks\n",
		     res.err);
	ASSERT_EQ(2, RUN(self->root, "-x", "learn", "--apply", "-n"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "-x goes with learn's report, not --apply");
	ASSERT_EQ(0, RUN(self->root, "-x", "show", "modprobe"));
	ASSERT_EQ(0, RUN(self->root, "-x", "learn"));
}

/*
 * Exit 3, after the output was lost: the message says what was written
 * before, as the "stopped at" of a write that failed does, and under
 * which root; nothing written, nothing said, and exit 2.
 */
TEST_F(umh, exit_3_says_what_was_written)
{
	if (access("/dev/full", W_OK))
		SKIP(return, "no /dev/full to write to");
	learn_scene(self->root);
	out_to = "/dev/full";
	see_root = true;
	EXPECT_EQ(3, RUN(self->root, "drop", "-p", "modprobe", "cap_sys_module"));
	ASSERT_HAS(res.err, "umhcap: cannot write the output: No space left on device; written before it: /" UMH "/modprobe/bset, /" UMH "/modprobe/inheritable under root ");
	out_to = "/dev/full";
	EXPECT_EQ(3, RUN(self->root, "save"));
	ASSERT_HAS(res.err, "; written before it: /" BOOTS "/" THIS_BOOT " under root ");
	/* A dry run writes nothing: 2. */
	out_to = "/dev/full";
	EXPECT_EQ(2, RUN(self->root, "drop", "-n", "-p", "coredump", "cap_kill"));
	ASSERT_LACKS(res.err, "written before it");
}
