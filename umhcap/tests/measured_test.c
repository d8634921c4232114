// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the measured table (measured.c), and the man page generated from it.
 */
#include "common.h"

/* Where umhcap shows purpose @id: its place in umh_purposes. */
static int shown_at(enum umh_purpose id)
{
	int i;

	for (i = 0; i < UMH_NR; i++)
		if (umh_purposes[i].id == id)
			return i;
	return -1;
}

TEST(measured_table_is_sound)
{
	const struct umh_measured *m, *prev;
	size_t i, j;

	ASSERT_LT(0U, umh_measured_nr);
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		ASSERT_LT((unsigned int)m->purpose, NR_PURPOSES);
		ASSERT_NE(NULL, umh_measured_conf_name(m->conf))
			TH_LOG("%s", m->program);
		ASSERT_EQ('/', m->program[0]);
		ASSERT_NE(0U, strlen(m->package));
		ASSERT_NE(0U, strlen(m->version));
		ASSERT_EQ(0ULL, m->caps & ~full()) TH_LOG("%s", m->program);
		/* What is kept needs a why, and a why what it is for. */
		ASSERT_EQ(0ULL, m->kept & ~m->caps) TH_LOG("%s", m->program);
		ASSERT_EQ(!m->kept, !m->note) TH_LOG("%s", m->program);
		ASSERT_TRUE(!m->note || *m->note);
		/*
		 * Only a busybox row can say that Debian runs no such helper,
		 * and then Debian as installed has no row of its purpose.
		 */
		if (m->not_on_debian) {
			ASSERT_NE(0U, strlen(m->not_on_debian));
			ASSERT_EQ(UMH_CONF_BUSYBOX, (int)m->conf);
			ASSERT_EQ(NULL, umh_measured_find(m->purpose,
							  UMH_CONF_INSTALLED))
				TH_LOG("%s", m->program);
		}
		/* The rows of helpers as their own users name the user. */
		ASSERT_EQ(m->conf == UMH_CONF_INSTALLED_USER, m->user != NULL)
			TH_LOG("%s", m->program);
		ASSERT_TRUE(!m->user || (*m->user && strcmp(m->user, "root")))
			TH_LOG("%s", m->program);
		/* One row per purpose and configuration. */
		for (j = 0; j < i; j++)
			ASSERT_FALSE(m->purpose == umh_measured[j].purpose &&
				     m->conf == umh_measured[j].conf)
				TH_LOG("%s twice in %s",
				       kernel_purposes[m->purpose],
				       umh_measured_conf_name(m->conf));
		/*
		 * Debian as installed first, then busybox systems, each in
		 * the order umhcap shows purposes: policy prints them so.
		 */
		if (!i)
			continue;
		prev = m - 1;
		ASSERT_TRUE(prev->conf < m->conf ||
			    (prev->conf == m->conf &&
			     shown_at(prev->purpose) < shown_at(m->purpose)))
			TH_LOG("%s (%s) after %s (%s)",
			       kernel_purposes[m->purpose],
			       umh_measured_conf_name(m->conf),
			       kernel_purposes[prev->purpose],
			       umh_measured_conf_name(prev->conf));
	}
	/* Nothing was measured for these: check holds them to the record. */
	ASSERT_EQ(NULL, row("initrd"));
	ASSERT_EQ(NULL, row("other"));
	ASSERT_STREQ("Debian 12 as installed",
		     umh_measured_conf_name(UMH_CONF_INSTALLED));
	ASSERT_STREQ("busybox systems",
		     umh_measured_conf_name(UMH_CONF_BUSYBOX));
	ASSERT_EQ(NULL, umh_measured_conf_name(UMH_NR_CONFS));
}

/*
 * check holds a purpose to its row of Debian as installed, or, without
 * one, to its busybox row; guest/real_test finds its busybox rows with
 * umh_measured_find(), whether or not the purpose has an installed row.
 */
TEST(measured_for_prefers_installed)
{
	/* real_test's purposes: each has a busybox row. */
	static const enum umh_purpose real[] = {
		UMH_MODPROBE, UMH_COREDUMP, UMH_UEVENT, UMH_REQUEST_KEY,
		UMH_RELEASE_AGENT, UMH_POWER,
	};
	const struct umh_measured *inst, *bb;
	size_t i;
	int p;

	for (p = 0; p < UMH_NR_PURPOSES; p++) {
		inst = umh_measured_find(p, UMH_CONF_INSTALLED);
		bb = umh_measured_find(p, UMH_CONF_BUSYBOX);
		ASSERT_EQ(inst ? inst : bb, umh_measured_for(p))
			TH_LOG("%s", kernel_purposes[p]);
		if (inst) {
			ASSERT_EQ(p, (int)inst->purpose);
			ASSERT_EQ(UMH_CONF_INSTALLED, (int)inst->conf);
		}
		if (bb) {
			ASSERT_EQ(p, (int)bb->purpose);
			ASSERT_EQ(UMH_CONF_BUSYBOX, (int)bb->conf);
		}
	}
	for (i = 0; i < ARRAY_SIZE(real); i++) {
		bb = umh_measured_find(real[i], UMH_CONF_BUSYBOX);
		ASSERT_NE(NULL, bb) TH_LOG("%s", kernel_purposes[real[i]]);
		ASSERT_EQ(real[i], bb->purpose);
		ASSERT_EQ(UMH_CONF_BUSYBOX, (int)bb->conf);
	}
	/* Both rows: the installed one, though the busybox one is there. */
	inst = umh_measured_find(UMH_MODPROBE, UMH_CONF_INSTALLED);
	ASSERT_NE(NULL, inst);
	ASSERT_NE(NULL, umh_measured_find(UMH_MODPROBE, UMH_CONF_BUSYBOX));
	ASSERT_EQ(inst, umh_measured_for(UMH_MODPROBE));
	ASSERT_EQ(inst, row("modprobe"));
	/* Debian runs no uevent helper: the busybox row it is. */
	ASSERT_EQ(NULL, umh_measured_find(UMH_UEVENT, UMH_CONF_INSTALLED));
	bb = umh_measured_find(UMH_UEVENT, UMH_CONF_BUSYBOX);
	ASSERT_NE(NULL, bb);
	ASSERT_EQ(bb, umh_measured_for(UMH_UEVENT));
	ASSERT_STREQ("/sbin/mdev", bb->program);
	/* Neither: nothing. */
	ASSERT_EQ(NULL, umh_measured_find(UMH_INITRD, UMH_CONF_BUSYBOX));
	ASSERT_EQ(NULL, umh_measured_for(UMH_INITRD));
	ASSERT_EQ(NULL, umh_measured_for(UMH_NR_PURPOSES));
}

/*
 * roff text as mkman writes it, plain: the escapes it uses, and no
 * others; any other makes the text "<unknown escape ...>".  Static.
 */
static const char *plain(const char *in)
{
	static const struct {
		const char *esc, *text;
	} escs[] = {
		{ "\\-", "-" }, { "\\(ti", "~" }, { "\\e", "\\" },
		{ "\\:", "" }, { "\\%", "" }, { "\\&", "" },
	};
	static char buf[4][4096];
	static int slot;
	char *out = buf[slot++ % 4];
	size_t n = 0, i;

	while (*in && n < sizeof(buf[0]) - 8) {
		if (*in != '\\') {
			out[n++] = *in++;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(escs); i++)
			if (!strncmp(in, escs[i].esc, strlen(escs[i].esc)))
				break;
		if (i == ARRAY_SIZE(escs)) {
			snprintf(out, sizeof(buf[0]), "<unknown escape \"%.4s\">", in);
			return out;
		}
		n += snprintf(out + n, sizeof(buf[0]) - n, "%s", escs[i].text);
		in += strlen(escs[i].esc);
	}
	out[n] = '\0';
	return out;
}

/*
 * The next row of a table, from the text at *@s (which it takes up to
 * the row's end), with its text blocks (T{ ... T}) joined into their
 * cells; NULL at the end.  Static.
 */
static const char *tbl_row(char **s)
{
	static char row[4096];
	int block = 0;
	size_t n = 0, len;
	char *line;

	row[0] = '\0';
	while ((line = strsep(s, "\n"))) {
		if (block && strncmp(line, "T}", 2)) {
			n += snprintf(row + n, sizeof(row) - n, "%s%s",
				      block == 2 ? " " : "", line);
			block = 2;
			continue;
		}
		if (block)
			line += 2;
		block = 0;
		len = strlen(line);
		if (len >= 2 && !strcmp(line + len - 2, "T{")) {
			n += snprintf(row + n, sizeof(row) - n, "%.*s",
				      (int)len - 2, line);
			block = 1;
			continue;
		}
		snprintf(row + n, sizeof(row) - n, "%s", line);
		return row;
	}
	return n ? row : NULL;
}

/* The subsection of umhcap.8 that holds the handler table. */
#define HANDLERS_SS	"\n.SS What request\\-key's handlers need\n"

/*
 * umhcap.8 is made at build time by mkman, from umhcap.8.in and
 * measured.c: its POLICY section holds every row of measured.c, in its
 * order, each cell of it, under its configuration's name; then, as .TP
 * paragraphs, why Debian 12 never runs a row's helper, and what a set
 * keeps although its job is done without it.
 */
TEST(man_page_holds_the_measured_table)
{
	char *text, *s, *e, *sec, want[1024], conf[64] = "", notes[4096] = "";
	char got[4096] = "";
	const struct umh_measured *m;
	const char *r, *key;
	bool kept = false, sentence;
	size_t i = 0, n;

	text = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, text) TH_LOG("%s: %s; make builds it from umhcap.8.in",
				     src_path("umhcap.8"), strerror(errno));
	ASSERT_EQ(NULL, strstr(text, "@MEASURED_"));
	sec = strstr(text, "\n.SH POLICY\n");
	ASSERT_NE(NULL, sec);
	e = strstr(sec + 1, "\n.SH ");
	ASSERT_NE(NULL, e);
	*e = '\0';
	s = strstr(sec, "\n.TS\n");
	ASSERT_NE(NULL, s);
	e = strstr(s, "\n.TE\n");
	ASSERT_NE(NULL, e);
	*e = '\0';
	/* Past the options, the head's format and the head, to the rule. */
	s = strstr(s, "\n_\n");
	ASSERT_NE(NULL, s);
	s += 3;
	while ((r = tbl_row(&s))) {
		if (!strcmp(r, ".T&")) {
			do {
				r = tbl_row(&s);
				ASSERT_NE(NULL, r);
			} while (!*r || r[strlen(r) - 1] != '.');
			r = tbl_row(&s);
			ASSERT_NE(NULL, r);
			snprintf(conf, sizeof(conf), "%s", plain(r));
			continue;
		}
		ASSERT_LT(i, umh_measured_nr) TH_LOG("a row measured.c lacks: %s", r);
		m = &umh_measured[i++];
		EXPECT_STREQ(umh_measured_conf_name(m->conf), conf);
		snprintf(want, sizeof(want), "%s@%s@%s %s@%u@%s",
			 kernel_purposes[m->purpose], m->program, m->package,
			 m->version, m->runs, names(m->caps));
		EXPECT_STREQ(want, plain(r));
	}
	ASSERT_EQ(umh_measured_nr, i) TH_LOG("rows missing from umhcap.8");

	/* The handler table's paragraphs are another test's. */
	r = strstr(e + 5, HANDLERS_SS);
	ASSERT_NE(NULL, r);
	*(char *)r = '\0';
	sentence = strstr(e + 5, "\nNo set keeps a capability that its job is done without.\n");
	/* The notes, as "KEY: TEXT" lines, the TEXT of each plain. */
	s = e + 5;
	while ((r = strsep(&s, "\n"))) {
		if (strcmp(r, ".TP"))
			continue;
		key = strsep(&s, "\n");
		ASSERT_NE(NULL, key);
		n = strlen(notes);
		snprintf(notes + n, sizeof(notes) - n, "%s:", key);
		while (s && *s && *s != '.') {
			r = strsep(&s, "\n");
			n = strlen(notes);
			snprintf(notes + n, sizeof(notes) - n, " %s", plain(r));
		}
		n = strlen(notes);
		snprintf(notes + n, sizeof(notes) - n, "\n");
	}
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		n = strlen(got);
		if (m->not_on_debian)
			n += snprintf(got + n, sizeof(got) - n,
				      ".B \"%s (%s)\": Not run on Debian 12: %s.\n",
				      kernel_purposes[m->purpose],
				      umh_measured_conf_name(m->conf),
				      m->not_on_debian);
	}
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		n = strlen(got);
		if (m->note)
			snprintf(got + n, sizeof(got) - n,
				 ".B \"%s (%s)\": Kept: %s: %s\n",
				 kernel_purposes[m->purpose],
				 umh_measured_conf_name(m->conf),
				 names(m->kept), m->note);
		kept |= !!m->note;
	}
	EXPECT_STREQ(got, notes);
	/* Without a note on what a set keeps, the sentence that says so. */
	EXPECT_EQ(!kept, sentence);
	free(text);
}

/*
 * What a compromised helper reaches: every row of helpers as their own
 * users says it, as the row of power, which stays root, does; the man
 * page's table has each, under its purpose, program, user and set.
 */
TEST(man_page_says_what_helpers_reach)
{
	const struct umh_measured *m;
	char *text, *sec, *e, want[512];
	size_t i, n = 0;

	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		if (m->conf == UMH_CONF_INSTALLED_USER ||
		    (m->conf == UMH_CONF_INSTALLED && m->purpose == UMH_POWER))
			EXPECT_NE(NULL, m->reaches)
				TH_LOG("%s on %s says nothing of what it reaches",
				       m->program, umh_measured_conf_name(m->conf));
	}
	text = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, text);
	ASSERT_EQ(NULL, strstr(text, "@MEASURED_REACHES@"));
	sec = strstr(text, "\n.SS What a compromised helper reaches\n");
	ASSERT_NE(NULL, sec);
	e = strstr(sec + 1, "\n.S");
	ASSERT_NE(NULL, e);
	*e = '\0';
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		if (!m->reaches)
			continue;
		n++;
		snprintf(want, sizeof(want), "\n%s@T{\n", kernel_purposes[m->purpose]);
		EXPECT_NE(NULL, strstr(sec, want)) TH_LOG("no row of %s", want + 1);
		snprintf(want, sizeof(want), "T}@%s@", m->user ? m->user : "root");
		/* As roff text: each hyphen escaped. */
		for (char *h = strchr(want, '-'); h; h = strchr(h + 2, '-')) {
			memmove(h + 1, h, strlen(h) + 1);
			*h = '\\';
		}
		EXPECT_NE(NULL, strstr(sec, want)) TH_LOG("no user %s", want);
		snprintf(want, sizeof(want), "beyond its trigger: %s\n", m->reaches);
		EXPECT_NE(NULL, strstr(sec, want)) TH_LOG("no %s", want);
	}
	ASSERT_EQ((size_t)4, n);
	free(text);
}

/*
 * The handler table: request_key's, each program with a row as root and
 * one as the purpose's own user, which names the user; a row whose job
 * fails says why and uses nothing it could be refused; every row of a
 * user says what a compromised handler reaches.
 */
TEST(handler_table_is_sound)
{
	const struct umh_handler *h;
	size_t i;

	ASSERT_LT(0U, umh_handlers_nr);
	ASSERT_EQ(0U, umh_handlers_nr % 2);
	for (i = 0; i < umh_handlers_nr; i++) {
		h = &umh_handlers[i];
		ASSERT_EQ(UMH_REQUEST_KEY, (int)h->purpose) TH_LOG("%s", h->program);
		ASSERT_EQ('/', h->program[0]);
		ASSERT_NE(0U, strlen(h->package));
		ASSERT_NE(0U, strlen(h->version));
		ASSERT_NE(0U, strlen(h->trigger));
		ASSERT_EQ(0ULL, h->caps & ~full()) TH_LOG("%s", h->program);
		ASSERT_TRUE(!h->fails || *h->fails);
		/* Root's row first, then the same program's as its user. */
		ASSERT_EQ(i % 2 ? UMH_CONF_INSTALLED_USER : UMH_CONF_INSTALLED,
			  (int)h->conf) TH_LOG("%s", h->program);
		ASSERT_EQ(h->conf == UMH_CONF_INSTALLED_USER, h->user != NULL);
		ASSERT_EQ(h->conf == UMH_CONF_INSTALLED_USER, h->reaches != NULL);
		ASSERT_TRUE(!h->note || *h->note);
		if (i % 2) {
			ASSERT_STREQ(h[-1].program, h->program);
			ASSERT_STREQ(h[-1].version, h->version);
			ASSERT_STREQ(h[-1].trigger, h->trigger);
			/* The man page and policy print it once. */
			ASSERT_EQ(!h[-1].note, !h->note);
			ASSERT_TRUE(!h->note || !strcmp(h[-1].note, h->note));
		}
		ASSERT_EQ(h, umh_handler_find(h->program, h->conf));
	}
	ASSERT_EQ(NULL, umh_handler_find("/sbin/request-key", UMH_CONF_INSTALLED));
	ASSERT_EQ(NULL, umh_handler_find(umh_handlers[0].program, UMH_CONF_BUSYBOX));
}

/*
 * umhcap.8's subsection of handlers: a .TP paragraph per program, with
 * its package, version and trigger, then a line per row, in order.
 */
TEST(man_page_holds_the_handler_table)
{
	char *text, *s, *e, *line, got[8192] = "", want[8192] = "";
	const struct umh_handler *h;
	size_t i, n;

	text = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, text);
	s = strstr(text, HANDLERS_SS);
	ASSERT_NE(NULL, s);
	e = strstr(s + 1, "\n.PP\n");
	ASSERT_NE(NULL, e);
	*e = '\0';
	s = strstr(s, "\n.TP\n");
	ASSERT_NE(NULL, s);
	s++;
	/* Each line plain, .br and .TP as line breaks. */
	while ((line = strsep(&s, "\n"))) {
		n = strlen(got);
		if (!strcmp(line, ".TP") || !strcmp(line, ".br"))
			snprintf(got + n, sizeof(got) - n, "%s", n ? "\n" : "");
		else
			snprintf(got + n, sizeof(got) - n, "%s%s",
				 n && got[n - 1] != '\n' ? " " : "",
				 plain(!strncmp(line, ".B ", 3) ? line + 3 : line));
	}
	for (i = 0; i < umh_handlers_nr; i++) {
		h = &umh_handlers[i];
		n = strlen(want);
		if (!i || strcmp(h[-1].program, h->program))
			n += snprintf(want + n, sizeof(want) - n,
				      "%s%s (%s %s), for %s.",
				      n ? "\n" : "", h->program, h->package,
				      h->version, h->trigger);
		if ((!i || strcmp(h[-1].program, h->program)) && h->note)
			n += snprintf(want + n, sizeof(want) - n, "\nNote: %s.",
				      h->note);
		n += snprintf(want + n, sizeof(want) - n, "\n%s, as %s: ",
			      umh_measured_conf_name(h->conf),
			      h->user ? h->user : "root");
		if (h->fails)
			n += snprintf(want + n, sizeof(want) - n,
				      "its job fails: %s", h->fails);
		else
			n += snprintf(want + n, sizeof(want) - n, "%s",
				      names(h->caps));
		if (h->reaches)
			n += snprintf(want + n, sizeof(want) - n,
				      "; beyond its trigger it reaches %s",
				      h->reaches);
		snprintf(want + n, sizeof(want) - n, ".");
	}
	EXPECT_STREQ(want, got);
	free(text);
}
