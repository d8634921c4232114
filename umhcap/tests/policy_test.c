// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap policy (policy.c).
 */
#include "common.h"

/*
 * Split a line of umhcap policy into its columns, which are separated by
 * two spaces or more; @col gets each column's offset.  Returns how many.
 */
static int columns(const char *line, char cell[][256], int col[], int max)
{
	const char *s = line, *e;
	int n = 0;

	while (*s && *s != '\n' && n < max) {
		e = strstr(s, "  ");
		if (!e || e > strchrnul(s, '\n'))
			e = strchrnul(s, '\n');
		snprintf(cell[n], 256, "%.*s", (int)(e - s), s);
		col[n++] = s - line;
		s = e + strspn(e, " ");
	}
	return n;
}

/*
 * The purposes no row of measured.c names, in order, each as @fmt makes
 * it of @sep (none before the first) and its name.
 */
static void unmeasured(char *buf, size_t len, const char *fmt, const char *sep)
{
	const char *s = "";
	size_t i;
	int n = 0;

	*buf = '\0';
	for (i = 0; i < NR_PURPOSES; i++) {
		if (umh_measured_for(umh_purpose_lookup(purposes[i])))
			continue;
		n += snprintf(buf + n, len - n, fmt, s, purposes[i]);
		s = sep;
	}
}

TEST_F(umh, policy_prints_the_table)
{
	static const char *const head[] = {
		"purpose", "program", "Debian 12 package", "configuration",
		"runs", "capabilities",
	};
	char cell[6][256], want[512], hcell[6][256];
	int col[6], hcol[6], n, k;
	const struct umh_measured *m;
	const char *line;
	size_t i;
	bool notes = false;

	ASSERT_EQ(0, RUN(self->root, "policy"));
	ASSERT_STREQ("", res.err);
	line = res.out;
	ASSERT_EQ(6, columns(line, hcell, hcol, 6));
	for (k = 0; k < 6; k++)
		ASSERT_STREQ(head[k], hcell[k]);
	/* One line per row, in the table's order, lined up under the head. */
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		line = strchr(line, '\n') + 1;
		n = columns(line, cell, col, 6);
		ASSERT_EQ(6, n) TH_LOG("row: %.*s", (int)strcspn(line, "\n"), line);
		ASSERT_STREQ(kernel_purposes[m->purpose], cell[0]);
		ASSERT_STREQ(m->program, cell[1]);
		snprintf(want, sizeof(want), "%s %s", m->package, m->version);
		ASSERT_STREQ(want, cell[2]);
		ASSERT_STREQ(umh_measured_conf_name(m->conf), cell[3]);
		snprintf(want, sizeof(want), "%u", m->runs);
		ASSERT_STREQ(want, cell[4]);
		ASSERT_STREQ(fmt(m->caps), cell[5]);
		ASSERT_EQ(0, memcmp(col, hcol, sizeof(col)));
		/* Its notes, named by purpose and configuration. */
		if (m->user) {
			snprintf(want, sizeof(want), "\n  %s (%s): ran as %s\n",
				 kernel_purposes[m->purpose],
				 umh_measured_conf_name(m->conf), m->user);
			ASSERT_HAS(res.out, want);
		}
		if (m->note) {
			snprintf(want, sizeof(want), "\n  %s (%s): kept: %s: %s\n",
				 kernel_purposes[m->purpose],
				 umh_measured_conf_name(m->conf), fmt(m->kept),
				 m->note);
			ASSERT_HAS(res.out, want);
		}
		if (m->not_on_debian) {
			snprintf(want, sizeof(want), "\n  %s (%s): not run on Debian 12: %s\n",
				 kernel_purposes[m->purpose],
				 umh_measured_conf_name(m->conf),
				 m->not_on_debian);
			ASSERT_HAS(res.out, want);
		}
		notes |= m->user || m->note || m->not_on_debian;
	}
	ASSERT_EQ('\n', strchr(line, '\n')[1]);
	if (notes)
		ASSERT_HAS(res.out, "\nnotes:\n");
	else
		ASSERT_LACKS(res.out, "notes:");
	ASSERT_HAS(res.out, "\n  uevent (busybox systems): not run on Debian 12: ");
	n = snprintf(want, sizeof(want), "\nnot measured: ");
	unmeasured(want + n, sizeof(want) - n, "%s%s", ", ");
	strcat(want, "; check holds such a purpose to what the kernel's record shows its helpers used\n");
	ASSERT_HAS(res.out, want);
	ASSERT_HAS(res.out, ", other; check holds");
	ASSERT_HAS(res.out, "in a QEMU guest, by the umhcap project's 'make check'");
	ASSERT_HAS(res.out, "'umhcap check' holds each purpose's ceiling to its Debian 12 as installed\n"
			    "set or, for a purpose without one, to its busybox systems set.\n");
	/* It reads nothing from the machine. */
	ASSERT_EQ(0, run_argv(NULL, false, (const char *[]){
		"--root", "/tmp/umhcap-test.nonexistent", "policy", NULL }));
}

/* The handler table, after the notes: a line per program, then per row. */
TEST_F(umh, policy_prints_the_handler_table)
{
	const struct umh_handler *h;
	char want[1024];
	const char *at;
	size_t i;

	ASSERT_EQ(0, RUN(self->root, "policy"));
	at = strstr(res.out, "\nhandlers, measured on their own");
	ASSERT_NE(NULL, at);
	for (i = 0; i < umh_handlers_nr; i++) {
		h = &umh_handlers[i];
		if (!i || strcmp(h[-1].program, h->program)) {
			snprintf(want, sizeof(want), "\n  request_key %s (%s %s), for %s\n",
				 h->program, h->package, h->version, h->trigger);
			at = strstr(at, want);
			ASSERT_NE(NULL, at) TH_LOG("no line, in order: %s", want);
			if (h->note) {
				snprintf(want, sizeof(want), "\n    note: %s\n", h->note);
				at = strstr(at, want);
				ASSERT_NE(NULL, at) TH_LOG("no line, in order: %s", want);
			}
		}
		snprintf(want, sizeof(want), "\n    %s, as %s: %s%s%s%s\n",
			 umh_measured_conf_name(h->conf),
			 h->user ? h->user : "root",
			 h->fails ? "its job fails: " : "",
			 h->fails ? h->fails : fmt(h->caps),
			 h->reaches ? "; beyond its trigger it reaches " : "",
			 h->reaches ? h->reaches : "");
		at = strstr(at, want);
		ASSERT_NE(NULL, at) TH_LOG("no line, in order: %s", want);
	}
	ASSERT_NE(NULL, strstr(at, "\nnot measured: "));
}

/* --json: every row and handler row, in order, and what was not measured. */
TEST_F(umh, policy_json)
{
	char want[1024];
	const char *at;
	size_t i;
	int n;

	ASSERT_EQ(0, RUN(self->root, "--json", "policy"));
	ASSERT_STREQ("", res.err);
	ASSERT_JSON(res.out);
	ASSERT_EQ(0, strncmp(res.out, "{\"version\":2,\"rows\":[\n",
			     strlen("{\"version\":2,\"rows\":[\n")));
	ASSERT_EQ(umh_measured_nr + umh_handlers_nr,
		  (size_t)count_of(res.out, "{\"purpose\":"));
	at = res.out;
	for (i = 0; i < umh_measured_nr; i++) {
		const struct umh_measured *m = &umh_measured[i];

		snprintf(want, sizeof(want),
			 "{\"purpose\":\"%s\",\"configuration\":\"%s\",\"program\":\"%s\",\"package\":\"%s\",\"version\":\"%s\",\"runs\":%u,",
			 kernel_purposes[m->purpose],
			 umh_measured_conf_name(m->conf), m->program,
			 m->package, m->version, m->runs);
		at = strstr(at, want);
		ASSERT_NE(NULL, at) TH_LOG("no row, in order: %s", want);
		snprintf(want, sizeof(want), "\"needed\":\"%#llx\"",
			 (unsigned long long)m->caps);
		if (!m->caps)
			snprintf(want, sizeof(want), "\"needed\":\"0x0\"");
		ASSERT_NE(NULL, strstr(at, want));
	}
	at = strstr(at, "\n],\"handlers\":[");
	ASSERT_NE(NULL, at);
	for (i = 0; i < umh_handlers_nr; i++) {
		const struct umh_handler *h = &umh_handlers[i];

		snprintf(want, sizeof(want),
			 "{\"purpose\":\"request_key\",\"configuration\":\"%s\",\"program\":\"%s\",",
			 umh_measured_conf_name(h->conf), h->program);
		at = strstr(at, want);
		ASSERT_NE(NULL, at) TH_LOG("no handler, in order: %s", want);
		ASSERT_EQ(0, strncmp(strstr(at, "\"fails\":"),
				     h->fails ? "\"fails\":\"" : "\"fails\":null", 9));
	}
	n = snprintf(want, sizeof(want), "\n],\"unmeasured\":[");
	unmeasured(want + n, sizeof(want) - n, "%s\"%s\"", ",");
	strcat(want, "]}\n");
	ASSERT_HAS(at, want);
}

TEST_F(umh, policy_usage)
{
	ASSERT_EQ(2, RUN(self->root, "policy", "extra"));
	ASSERT_HAS(res.err, "usage: umhcap policy");
	ASSERT_STREQ("", res.out);
}
