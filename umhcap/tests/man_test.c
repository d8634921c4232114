// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the man page, umhcap.8, as the build makes it from umhcap.8.in.
 */
#include "common.h"

/*
 * The man page: a real date, and SEE ALSO sorted by section, then name,
 * as man-pages(7) asks, with the pages umhcap sends a reader to.
 */
TEST(man_head_and_see_also)
{
	static const char *const need[] = {
		"capsh(1)", "trace-cmd(1)", "sysctl(8)", "capabilities(7)",
		"sysctl.d(5)", "bootparam(7)",
	};
	char *text, *s, prev[64] = "", cur[64], sec, prev_sec = '0';
	char list[1024] = "";
	size_t i;
	int y, m, d;

	text = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, text);
	s = strstr(text, "\n.TH UMHCAP 8 ");
	ASSERT_NE(NULL, s);
	ASSERT_EQ(3, sscanf(s, "\n.TH UMHCAP 8 %4d-%2d-%2d ", &y, &m, &d));
	ASSERT_EQ(0, strncmp(s, "\n.TH UMHCAP 8 2026-12-05 ", 25));
	s = strstr(text, "\n.SH SEE ALSO\n");
	ASSERT_NE(NULL, s);
	for (s = strchr(s + 1, '\n') + 1; !strncmp(s, ".BR ", 4);
	     s = strchr(s, '\n') + 1) {
		ASSERT_EQ(2, sscanf(s, ".BR %63s (%c)", cur, &sec)) TH_LOG("%.40s", s);
		cut_all(cur, "\\");
		/* By section, then by name. */
		EXPECT_TRUE(sec > prev_sec ||
			    (sec == prev_sec && strcmp(cur, prev) > 0))
			TH_LOG("%s(%c) after %s(%c)", cur, sec, prev, prev_sec);
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 " %s(%c)", cur, sec);
		strcpy(prev, cur);
		prev_sec = sec;
	}
	for (i = 0; i < ARRAY_SIZE(need); i++) {
		EXPECT_TRUE(strstr(list, need[i]) != NULL)
			TH_LOG("SEE ALSO lacks %s:%s", need[i], list);
	}
	free(text);
}

/*
 * The unit umhcap.8 quotes for save: the package's
 * umhcap-save.service to the byte where the tree holds it, and in any
 * case a oneshot that saves as it stops, only on a kernel with the
 * record, and before /var is unmounted.
 */
TEST_F(umh, man_quotes_the_save_unit)
{
	static const char *const lines[] = {
		"[Unit]\n", "\nConditionPathExists=/proc/sys/kernel/usermodehelper/used\n",
		"\nAfter=local-fs.target\n", "\n[Service]\nType=oneshot\n",
		"\nRemainAfterExit=yes\n", "\nExecStart=/bin/true\n",
		"\nExecStop=/usr/sbin/umhcap save\n", "\nStateDirectory=umhcap\n",
		"\nCapabilityBoundingSet=\n", "\nProtectSystem=strict\n",
		"\n[Install]\nWantedBy=multi-user.target\n",
	};
	char *man, *unit, *quoted, *s, *e;
	size_t i, n = 0;

	man = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, man);
	s = strstr(man, "\n.IR /lib/systemd/system/umhcap\\-save.service :\n.RS\n.IP\n.EX\n");
	ASSERT_NE(NULL, s);
	s = strstr(s, ".EX\n") + 4;
	e = strstr(s, ".EE\n");
	ASSERT_NE(NULL, e);
	quoted = calloc(1, e - s + 1);
	ASSERT_NE(NULL, quoted);
	/* As printed: the escapes the quote uses. */
	while (s < e) {
		if (!strncmp(s, "\\-", 2)) {
			quoted[n++] = '-';
			s += 2;
		} else if (!strncmp(s, "\\e", 2)) {
			quoted[n++] = '\\';
			s += 2;
		} else if (!strncmp(s, "\\&", 2)) {
			s += 2;
		} else if (!strncmp(s, "\\(ti", 4)) {
			quoted[n++] = '~';
			s += 4;
		} else {
			ASSERT_NE('\\', *s) TH_LOG("an escape in the quoted unit: %.8s", s);
			quoted[n++] = *s++;
		}
	}
	for (i = 0; i < ARRAY_SIZE(lines); i++)
		ASSERT_HAS(quoted, lines[i]);
	unit = slurp_file(src_path("umhcap-save.service"));
	if (unit)
		ASSERT_STREQ(unit, quoted);
	free(unit);
	free(quoted);
	free(man);
}

/* The words of @s, man's "\-" as "-", split at blanks and at [ ] | , */
static bool has_word(const char *s, const char *word)
{
	char buf[64];
	size_t n;

	while (*s) {
		n = 0;
		while (*s && !strchr(" \t\n[]|,", *s) && n < sizeof(buf) - 1) {
			if (s[0] == '\\' && s[1] == '-')
				s++;
			buf[n++] = *s++;
		}
		buf[n] = '\0';
		if (n && !strcmp(buf, word))
			return true;
		while (*s && strchr(" \t\n[]|,", *s))
			s++;
	}
	return false;
}

/*
 * The man page's SYNOPSIS gives each command every option its --help
 * lists (but -h, which a form of its own gives): the synopsis of one is
 * read as the other.  And each form of export, all of which take
 * --learned, takes --allow with it, as its --help says: not only one.
 */
TEST_F(umh, man_synopsis_has_every_option)
{
	char *man, *syn, *end, *form, *line, *opt, cmdword[64], alt[64], *all;
	char *one;
	size_t i, len, learned_forms = 0;

	man = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, man);
	syn = strstr(man, "\n.SH SYNOPSIS\n");
	ASSERT_NE(NULL, syn);
	end = strstr(syn + 1, "\n.SH ");
	ASSERT_NE(NULL, end);
	*end = '\0';
	for (i = 0; i < NR_COMMANDS; i++) {
		/* Every form of the command: its .br-separated lines. */
		all = calloc(1, strlen(syn) + 1);
		ASSERT_NE(NULL, all);
		snprintf(cmdword, sizeof(cmdword), "\n.B %s", commands[i]);
		for (form = syn; form; form = strstr(form + 1, "\n.br\n")) {
			end = strstr(form + 1, "\n.br\n");
			/* show, the default, is ".RB [ show". */
			line = strstr(form + 1, cmdword);
			len = strlen(cmdword);
			if (!line || (end && line > end)) {
				snprintf(alt, sizeof(alt), "\n.RB [ %s",
					 commands[i]);
				line = strstr(form + 1, alt);
				len = strlen(alt);
			}
			if (!line || (end && line > end) ||
			    (line[len] != '\n' && line[len] != ' '))
				continue;
			strncat(all, form, end ? (size_t)(end - form) : strlen(form));
			if (strcmp(commands[i], "export"))
				continue;
			one = strndup(form, end ? (size_t)(end - form) : strlen(form));
			ASSERT_NE(NULL, one);
			if (has_word(one, "--learned")) {
				learned_forms++;
				EXPECT_TRUE(has_word(one, "--allow"))
					TH_LOG("a synopsis of export lacks --allow:%s", one);
			}
			free(one);
		}
		ASSERT_NE(0U, strlen(all)) TH_LOG("no synopsis of %s", commands[i]);
		ASSERT_EQ(0, RUN(self->root, commands[i], "--help"));
		opt = strstr(res.out, "\noptions:\n");
		ASSERT_NE(NULL, opt);
		for (line = strtok(opt + 10, "\n"); line && !strncmp(line, "  -", 3);
		     line = strtok(NULL, "\n")) {
			char s[16] = "", l[48] = "";

			if (line[3] != '-')
				sscanf(line + 2, "%15[^, ], %47s", s, l);
			else
				sscanf(line + 2, "%47s", l);
			if (!strcmp(l, "--help"))
				continue;
			EXPECT_TRUE((*s && has_word(all, s)) || has_word(all, l))
				TH_LOG("the synopsis of %s lacks %s %s", commands[i], s, l);
		}
		free(all);
	}
	/* export's three forms, each read. */
	EXPECT_EQ(3U, learned_forms);
	free(man);
}

/*
 * @line of roff as text, lowercase, appended to @f: a font macro's
 * arguments (quoted ones whole), each alternating one run on as roff
 * runs them on, escapes as they print (\- a '-', \fX and \& nothing).
 */
static void roff_text(FILE *f, const char *line)
{
	bool macro = line[0] == '.', alt = false, quoted = false;
	const char *s = line;

	if (macro) {
		alt = strlen(line) > 3 && line[3] == ' ' && strchr("BIR", line[1]) &&
		      strchr("BIR", line[2]);
		s += strcspn(s, " ");
		s += strspn(s, " ");
	}
	for (; *s; s++) {
		if (*s == '\\') {
			if (s[1] == '-' || s[1] == 'e')
				fputc(s[1] == '-' ? '-' : '\\', f);
			else if (s[1] == '(')
				s += 2;
			else if (s[1] == 'f')
				s++;
			s += !!s[1];
		} else if (macro && *s == '"') {
			quoted = !quoted;
		} else if (macro && alt && *s == ' ' && !quoted) {
			/* .BR "learn \-\-apply" , runs on: "learn --apply," */
		} else {
			fputc(tolower((unsigned char)*s), f);
		}
	}
	fputc(' ', f);
}

/* Does the sentence @s say that something is refused, in any wording? */
static bool says_refused(const char *s)
{
	static const char *const words[] = {
		"refus", "reject", "not take", "takes no", "not accept",
		"does not allow", "not allowed", "cannot", "can't", "incompatible",
		"not support", "unsupported", "error", "exit 2", "not go with",
		"does not go", "do not go", "without --json", "no --json",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strstr(s, words[i]))
			return true;
	return false;
}

/*
 * The sentences of @man that say learn --apply refuses --json, in any
 * wording, each logged: a sentence that says something is refused, of
 * --json (it names json, or is of the paragraph of the option --json),
 * and of learn --apply (it names learn and --apply, or is of the
 * paragraph of learn --apply).  Returns how many.
 */
static int apply_refuses_json(struct __test_metadata *_metadata, char *man)
{
	char *text = NULL, *para, *next, *sent, *tag, *line, *nl;
	bool json_para, apply_para, json, apply;
	int found = 0;
	size_t len;
	FILE *f;

	f = open_memstream(&text, &len);
	if (!f)
		abort();
	/* Paragraphs, each on a line: its tag, '|', its text. */
	for (line = man; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(line, ".TP", 3) || !strncmp(line, ".PP", 3) ||
		    !strncmp(line, ".IP", 3) || !strncmp(line, ".SH", 3) ||
		    !strncmp(line, ".SS", 3) || !strncmp(line, ".LP", 3)) {
			fputc('\n', f);
			if (!strncmp(line, ".TP", 3) && nl && nl[1]) {
				line = nl + 1;
				nl = strchr(line, '\n');
				if (nl)
					*nl = '\0';
				roff_text(f, line);
			}
			fputc('|', f);
			continue;
		}
		if (!strncmp(line, ".\\\"", 3) || !strncmp(line, "'\\\"", 3))
			continue;
		roff_text(f, line);
	}
	fclose(f);
	for (para = text; para; para = next) {
		next = strchr(para, '\n');
		if (next)
			*next++ = '\0';
		tag = para;
		para = strchr(para, '|');
		if (!para)
			continue;
		*para++ = '\0';
		json_para = !strncmp(tag, "--json ", 7);
		apply_para = !strncmp(tag, "learn --apply", 13);
		for (sent = strtok(para, ".;"); sent; sent = strtok(NULL, ".;")) {
			json = json_para || strstr(sent, "json");
			apply = apply_para ||
				(strstr(sent, "learn") && strstr(sent, "--apply"));
			if (json && apply && says_refused(sent)) {
				TH_LOG("says learn --apply refuses --json:%s", sent);
				found++;
			}
		}
	}
	free(text);
	return found;
}

/*
 * What the page says of --json is what umhcap does: learn --apply takes
 * it, so no sentence of the page says that it refuses it, however worded.
 */
TEST_F(umh, man_json_option_as_it_is)
{
	char *man;

	learn_scene(self->root);
	ASSERT_EQ(0, RUN(self->root, "--json", "learn", "--apply", "-n"));
	ASSERT_JSON(res.out);
	man = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, man);
	ASSERT_NE(NULL, strstr(man, "\n.B \\-\\-json\nMachine-readable output"));
	EXPECT_EQ(0, apply_refuses_json(_metadata, man));
	free(man);
}

/*
 * Where umhcap.8 names every purpose, mkman wrote it from the table: the
 * paragraph that lists them, in order, and the example of a saved record,
 * a line each, in order; and where it names the purposes no helper of
 * which was measured, those.
 */
TEST(man_names_every_purpose)
{
	char *man, *at, *end, *bold, want[64];
	size_t i;

	man = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, man);
	at = strstr(man, "\nThe purposes are\n");
	ASSERT_NE(NULL, at);
	end = strstr(at, "the name of the global bound.");
	ASSERT_NE(NULL, end);
	for (i = 0; i < NR_PURPOSES; i++) {
		snprintf(want, sizeof(want), "\n%s %s", i + 2 == NR_PURPOSES ?
			 ".B" : ".BR", purposes[i]);
		at = strstr(at, want);
		ASSERT_TRUE(at && at < end) TH_LOG("%s", want);
	}
	snprintf(want, sizeof(want), "\n.BR %s ,\n%zu; ",
		 kernel_purposes[NR_PURPOSES - 1], NR_PURPOSES - 1);
	ASSERT_HAS(at, want);

	at = strstr(man, "\nall started 6 used 65539 0\n");
	ASSERT_NE(NULL, at);
	for (i = 0; i < NR_PURPOSES; i++) {
		snprintf(want, sizeof(want), "\n%s started ", purposes[i]);
		ASSERT_EQ(0, strncmp(strchr(at + 1, '\n'), want, strlen(want)))
			TH_LOG("%s", want);
		at = strchr(at + 1, '\n');
	}
	ASSERT_EQ(0, strncmp(strchr(at + 1, '\n'), "\n.EE\n", 5));

	at = strstr(man, "\nNo helper of purpose\n");
	ASSERT_NE(NULL, at);
	end = strstr(at, "was measured: for them\n");
	ASSERT_NE(NULL, end);
	*end = '\0';
	for (i = 0; i < NR_PURPOSES; i++) {
		snprintf(want, sizeof(want), "\n.B %s\n", purposes[i]);
		bold = strstr(at, want);
		snprintf(want, sizeof(want), "\n.BR %s ,\n", purposes[i]);
		bold = bold ? bold : strstr(at, want);
		EXPECT_EQ(!umh_measured_for(umh_purpose_lookup(purposes[i])),
			  bold != NULL) TH_LOG("%s", purposes[i]);
	}
	free(man);
}
