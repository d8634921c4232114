// SPDX-License-Identifier: GPL-2.0
/*
 * mkman: umhcap.8 from umhcap.8.in, at build time, so that the man page
 * shows the table of measured.c and no copy of it.
 *
 *   mkman UNIT <umhcap.8.in >umhcap.8
 *
 * Copies its input, and writes in place of each of these lines, which
 * must each be there once, what measured.c says:
 *
 *   .\" @MEASURED_TABLE@           the table: a row per row of measured.c
 *   .\" @MEASURED_NOT_ON_DEBIAN@   why Debian 12 as installed runs no
 *                                  helper of a purpose measured on busybox
 *                                  systems (.not_on_debian)
 *   .\" @MEASURED_NOTES@           what a set keeps although its job is
 *                                  done without it (.kept, .note), or the
 *                                  sentence that says none does
 *   .\" @MEASURED_REACHES@         the rows that say what a compromised
 *                                  helper reaches (.reaches): purpose,
 *                                  program, user, set, and that
 *   .\" @MEASURED_HANDLERS@        the handler table (umh_handlers): a
 *                                  paragraph per program, a line per row
 *   .\" @SAVE_UNIT@                the unit file named as mkman's argument,
 *                                  umhcap-save.service, as roff text
 *
 * and, in place of these, what the table of purposes (purpose.c) says:
 *
 *   .\" @PURPOSES@                 the paragraph that lists the purposes,
 *                                  in umhcap's order and the kernel's
 *   .\" @PURPOSES_UNMEASURED@      those no row of measured.c names, "(a,
 *                                  b),"
 *   .\" @PURPOSES_UNMEASURED_OR@   the same, "a or b"
 *   .\" @PURPOSES_RECORD@          a saved record's line of each purpose
 *
 * A program of the build, not of the package: it links measured.c,
 * purpose.c and msg.c, and takes the capabilities' names from libcap.
 * So the man page names no purpose one by one but where it is about
 * that purpose.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>

#include "umhcap.h"

#define MARK_TABLE	".\\\" @MEASURED_TABLE@"
#define MARK_NEVER	".\\\" @MEASURED_NOT_ON_DEBIAN@"
#define MARK_NOTES	".\\\" @MEASURED_NOTES@"
#define MARK_UNIT	".\\\" @SAVE_UNIT@"
#define MARK_REACHES	".\\\" @MEASURED_REACHES@"
#define MARK_HANDLERS	".\\\" @MEASURED_HANDLERS@"
#define MARK_PURPOSES	".\\\" @PURPOSES@"
#define MARK_UNMEASURED	".\\\" @PURPOSES_UNMEASURED@"
#define MARK_UNMEASURED_OR ".\\\" @PURPOSES_UNMEASURED_OR@"
#define MARK_RECORD	".\\\" @PURPOSES_RECORD@"

/* The unit file the man page quotes whole: main()'s argument. */
static const char *unit_path;

/*
 * @s as roff text: a backslash, a hyphen and a tilde escaped, and a
 * leading dot or quote kept from starting a request.  @breaks: each word
 * kept from being hyphenated (\%), and a line allowed to break after
 * each character of @breaks (\:).
 */
static void roff(const char *s, const char *breaks)
{
	const char *start = s;
	bool word = true;

	if (*s == '.' || *s == '\'')
		fputs("\\&", stdout);
	for (; *s; s++) {
		if (breaks && word && *s != ' ')
			fputs("\\%", stdout);
		word = false;
		if (*s == '\\')
			fputs("\\e", stdout);
		else if (*s == '-')
			fputs("\\-", stdout);
		else if (*s == '~')
			fputs("\\(ti", stdout);
		else
			putchar(*s);
		if (*s == ' ')
			word = true;
		else if (breaks && s[1] && s[1] != ' ' && strchr(breaks, *s) &&
			 s != start) {
			fputs("\\:", stdout);
			word = true;
		}
	}
}

/* A cell of @s that tbl may fill over lines: a text block. */
static void block(const char *s, const char *breaks)
{
	fputs("T{\n", stdout);
	roff(s, breaks);
	fputs("\nT}", stdout);
}

/* "cap_a, cap_b" or "none", in the order of their numbers. */
static void caps(uint64_t mask)
{
	const char *sep = "";
	char *name;
	int i;

	if (!mask)
		fputs("none", stdout);
	for (i = 0; i < 64; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		name = cap_to_name(i);
		if (!name)
			umh_oom();
		printf("%s", sep);
		roff(name, NULL);
		cap_free(name);
		sep = ", ";
	}
}

/*
 * The table: a head, then each configuration's rows after a row that
 * names it, spanning the table: .T&, the format of that row, then the
 * format of the rows (tbl takes format lines by row: the head has one,
 * its own).  Not adjusted: tbl cannot justify a text block's one-word
 * lines.  A program's path may break after a slash or a hyphen, a
 * package's version after a plus.  The table starts on a new page unless
 * the page has room for all of it, about 3 lines a row: groff cannot
 * break a page inside a text block, and warns.
 */
static void table(void)
{
	const struct umh_measured *m;
	int conf = -1;
	size_t i;

	printf(".ne %zuv\n", 3 * umh_measured_nr + 6);
	printf(".na\n.TS\ntab(@);\nlB1 lB1 lB1 rB1 lB.\n"
	       "purpose@program@T{\nDebian 12 \\%%package\nT}@runs@capabilities\n_\n");
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		if ((int)m->conf != conf) {
			conf = m->conf;
			printf(".T&\nlI s s s s\nl1 lw(14)1 lw(16)1 r1 lw(20).\n");
			roff(umh_measured_conf_name(m->conf), NULL);
			putchar('\n');
		}
		printf("%s@", umh_purpose_name(m->purpose));
		block(m->program, "/-");
		putchar('@');
		fputs("T{\n", stdout);
		roff(m->package, "");
		putchar(' ');
		roff(m->version, "+");
		fputs("\nT}", stdout);
		printf("@%u@T{\n", m->runs);
		caps(m->caps);
		fputs("\nT}\n", stdout);
	}
	printf(".TE\n.ad\n");
}

/* A note's head: .TP, then the row's purpose and configuration, bold. */
static void note_of(const struct umh_measured *m)
{
	printf(".TP\n.B \"%s (", umh_purpose_name(m->purpose));
	roff(umh_measured_conf_name(m->conf), NULL);
	printf(")\"\n");
}

static const char *const counts[] = {
	"no", "one", "two", "three", "four", "five", "six", "seven", "eight",
	"nine", "ten",
};

/* Why Debian 12 as installed never runs a row's helper. */
static void not_on_debian(void)
{
	const struct umh_measured *m;
	size_t i, n = 0;

	for (i = 0; i < umh_measured_nr; i++)
		n += !!umh_measured[i].not_on_debian;
	if (!n)
		return;
	if (n < ARRAY_SIZE(counts))
		printf("Debian 12 as installed starts no helper of %s of the purposes measured\n",
		       counts[n]);
	else
		printf("Debian 12 as installed starts no helper of %zu of the purposes measured\n",
		       n);
	printf("on busybox systems:\n");
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		if (!m->not_on_debian)
			continue;
		note_of(m);
		printf("Not run on Debian 12: ");
		roff(m->not_on_debian, NULL);
		printf(".\n");
	}
}

/* What a set keeps although the job is done without it, and why. */
static void notes(void)
{
	const struct umh_measured *m;
	bool any = false;
	size_t i;

	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		if (!m->note)
			continue;
		note_of(m);
		printf("Kept: ");
		caps(m->kept);
		printf(": ");
		roff(m->note, NULL);
		putchar('\n');
		any = true;
	}
	if (!any)
		printf("No set keeps a capability that its job is done without.\n");
}

/*
 * The rows to run, as an administrator would: what each helper reaches
 * beyond the object that started it.
 */
static void reaches(void)
{
	const struct umh_measured *m;
	size_t i, n = 0;

	for (i = 0; i < umh_measured_nr; i++)
		n += !!umh_measured[i].reaches;
	printf(".ne %zuv\n", 5 * n + 3);
	printf(".na\n.nh\n.TS\ntab(@);\nlB1 lB1 lB1 lB\nl1 lw(17)1 l1 l.\n"
	       "purpose@program@runs as@set\n_\n");
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		if (!m->reaches)
			continue;
		printf("%s@", umh_purpose_name(m->purpose));
		block(m->program, "/");
		putchar('@');
		roff(m->user ? m->user : "root", NULL);
		putchar('@');
		caps(m->caps);
		/* Under the row, across it: what it reaches. */
		printf("\n.T&\nl1 s1 s1 s.\nT{\n\\h'2n'beyond its trigger: ");
		roff(m->reaches, NULL);
		printf("\nT}\n.T&\nl1 lw(17)1 l1 l.\n");
	}
	printf(".TE\n.hy\n.ad\n");
}

/*
 * The handler table: for each program, what starts it and its package,
 * then a line per row: as whom, and its set, or why its job fails; and
 * what it reaches, where the row says.
 */
static void handlers(void)
{
	const struct umh_handler *h;
	const char *program = NULL;
	size_t i;

	for (i = 0; i < umh_handlers_nr; i++) {
		h = &umh_handlers[i];
		if (!program || strcmp(program, h->program)) {
			program = h->program;
			printf(".TP\n.B ");
			roff(h->program, NULL);
			printf("\n(");
			roff(h->package, NULL);
			putchar(' ');
			roff(h->version, NULL);
			printf("), for ");
			roff(h->trigger, NULL);
			printf(".\n");
			if (h->note) {
				printf(".br\nNote: ");
				roff(h->note, NULL);
				printf(".\n");
			}
		}
		printf(".br\n");
		roff(umh_measured_conf_name(h->conf), NULL);
		printf(", as ");
		roff(h->user ? h->user : "root", NULL);
		printf(": ");
		if (h->fails) {
			printf("its job fails: ");
			roff(h->fails, NULL);
		} else {
			caps(h->caps);
		}
		if (h->reaches) {
			printf("; beyond its trigger it reaches ");
			roff(h->reaches, NULL);
		}
		printf(".\n");
	}
}

/*
 * The purposes @ids, @n of them, one a line, bold: separated by commas,
 * the last two by @conj ("and", "or") on a line of its own, or by a comma
 * if it is NULL; @open before the first and @close after the last, in
 * roman, if not NULL.
 */
static void purpose_list(const int *ids, size_t n, const char *open,
			 const char *conj, const char *close)
{
	const char *after;
	size_t i;

	for (i = 0; i < n; i++) {
		after = i + 1 == n ? close :
			conj && i + 2 == n ? NULL : ",";
		if (!i && open)
			printf(".RB %s %s%s%s\n", open,
			       umh_purpose_name(ids[i]), after ? " " : "",
			       after ? after : "");
		else if (after)
			printf(".BR %s %s\n", umh_purpose_name(ids[i]), after);
		else
			printf(".B %s\n", umh_purpose_name(ids[i]));
		if (conj && n > 1 && i + 2 == n)
			printf("%s\n", conj);
	}
}

/* Every purpose, in the order umhcap shows them, "all" left out. */
static size_t every_purpose(int *ids)
{
	const struct umh_purpose_info *u;
	size_t n = 0;

	umh_for_each_purpose(u)
		ids[n++] = u->id;
	return n;
}

/* The paragraph that lists the purposes, in umhcap's order and the kernel's. */
static void purposes(void)
{
	int ids[UMH_NR];

	printf("The purposes are\n");
	purpose_list(ids, every_purpose(ids), NULL, "and", ",");
	printf("and\n.B umhcap\nlists them in this order, after\n.BR %s ,\n"
	       "the name of the global bound.\n"
	       "(The kernel numbers them from\n.BR %s ,\n0, to\n.BR %s ,\n"
	       "%d; its trace events record the name.)\n",
	       umh_purpose_name(UMH_ALL), umh_purpose_name(0),
	       umh_purpose_name(UMH_NR_PURPOSES - 1), UMH_NR_PURPOSES - 1);
}

/* The purposes no row of measured.c names, in umhcap's order. */
static size_t unmeasured(int *ids)
{
	const struct umh_purpose_info *u;
	size_t n = 0;

	umh_for_each_purpose(u)
		if (!umh_measured_for(u->id))
			ids[n++] = u->id;
	return n;
}

static void purposes_unmeasured(void)
{
	int ids[UMH_NR];

	purpose_list(ids, unmeasured(ids), "(", NULL, "),");
}

static void purposes_unmeasured_or(void)
{
	int ids[UMH_NR];

	purpose_list(ids, unmeasured(ids), NULL, "or", NULL);
}

/*
 * A saved record's line of each purpose, after the example's
 * "all started 6 used 65539 0": four modprobe helpers used
 * cap_sys_module, two coredump ones cap_chown and cap_dac_override.
 */
static void purposes_record(void)
{
	const struct umh_purpose_info *u;

	umh_for_each_purpose(u)
		printf("%s started %d used %d 0\n", u->name,
		       u->id == UMH_MODPROBE ? 4 : u->id == UMH_COREDUMP ? 2 : 0,
		       u->id == UMH_MODPROBE ? 65536 :
		       u->id == UMH_COREDUMP ? 3 : 0);
}

/* The unit file, line by line, as roff text for .EX; exits on an error. */
static void save_unit(void)
{
	char *line = NULL;
	size_t size = 0;
	ssize_t len;
	FILE *f = fopen(unit_path, "r");

	if (!f) {
		umh_err("mkman: cannot open %s: %s", unit_path, strerror(errno));
		exit(1);
	}
	while ((len = getline(&line, &size, f)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		roff(line, NULL);
		putchar('\n');
	}
	if (ferror(f)) {
		umh_err("mkman: cannot read %s", unit_path);
		exit(1);
	}
	free(line);
	fclose(f);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *mark;
		void (*write)(void);
	} marks[] = {
		{ MARK_TABLE, table },
		{ MARK_NEVER, not_on_debian },
		{ MARK_NOTES, notes },
		{ MARK_UNIT, save_unit },
		{ MARK_REACHES, reaches },
		{ MARK_HANDLERS, handlers },
		{ MARK_PURPOSES, purposes },
		{ MARK_UNMEASURED, purposes_unmeasured },
		{ MARK_UNMEASURED_OR, purposes_unmeasured_or },
		{ MARK_RECORD, purposes_record },
	};
	int seen[ARRAY_SIZE(marks)] = { 0 };
	char *line = NULL;
	size_t size = 0, i;
	ssize_t len;

	if (argc != 2) {
		umh_err("usage: mkman UNIT <umhcap.8.in >umhcap.8");
		return 1;
	}
	unit_path = argv[1];

	while ((len = getline(&line, &size, stdin)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		for (i = 0; i < ARRAY_SIZE(marks); i++)
			if (!strcmp(line, marks[i].mark))
				break;
		if (i == ARRAY_SIZE(marks)) {
			puts(line);
			continue;
		}
		if (seen[i]++) {
			umh_err("mkman: a second \"%s\" line", marks[i].mark);
			return 1;
		}
		marks[i].write();
	}
	free(line);
	for (i = 0; i < ARRAY_SIZE(marks); i++)
		if (!seen[i]) {
			umh_err("mkman: no \"%s\" line in the input", marks[i].mark);
			return 1;
		}
	if (ferror(stdin) || fflush(stdout) || ferror(stdout)) {
		umh_err("mkman: reading or writing failed");
		return 1;
	}
	return 0;
}
