// SPDX-License-Identifier: GPL-2.0
/*
 * check: a hardening report.
 *
 *  - a purpose's ceiling (all.bset & <purpose>.bset) beyond what the
 *    program its knob names was measured to need (program.c: measured.c's
 *    row of that program, as its own user where the purpose has one, of
 *    Debian 12 as installed, or of busybox systems), named with that row;
 *    for a program with no row, or a purpose with no knob and no row,
 *    beyond what the kernel's record shows it used; for a purpose whose
 *    knob says no helper starts, anything at all; without per-purpose
 *    bounds, the global bound beyond what any measured helper needs;
 *  - bset and inheritable that disagree;
 *  - malformed usermodehelper.bset=, .inheritable=, .uid= and .gid=
 *    items on the kernel command line, and what the kernel bounds to
 *    nothing for each;
 *  - from the kernel's record: a purpose whose helpers ran, with a bound
 *    that allows capabilities they never used since boot, or that no
 *    longer allows one they used;
 *  - a purpose that runs as a user of its own on a kernel whose list of
 *    LSMs lacks umh, which keeps its helpers from each other; a note
 *    where the kernel has no list to read.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umhcap.h"

/* Where the boot loader gets the kernel's command line. */
#define CMDLINE_FILES	"where the boot loader gets it (/etc/default/grub, /etc/kernel/cmdline)"

/* A command line's item is fixed where it is set. */
#define CMDLINE_FIX \
	"; correct it " CMDLINE_FILES ", or, if umhcap wrote it: umhcap boot --remove"

/*
 * The LSMs the kernel runs, in securityfs: their names, comma-separated,
 * in order, e.g. "capability,landlock,lockdown,yama,umh".
 */
#define LSM_FILE	"/sys/kernel/security/lsm"
#define LSM_MAX		4096

struct check {
	bool json;		/* --json */
	int findings;
	int notes;
};

/* What check knows of the umh LSM, read before anything is printed. */
struct lsm {
	bool own_user;		/* a purpose runs as a user of its own */
	char *list;		/* LSM_FILE's names; NULL: no such file */
};

/* What check holds a purpose to: the program configured, and its row. */
struct judge {
	struct umh_program prog;
	const struct umh_measured *row;	/* NULL: none measured */
};

static void finding(struct check *c, const char *kind, int purpose,
		    uint64_t mask, const char *fmt, ...) __printf(5, 6);

/*
 * A finding of @kind about @purpose (UMH_ALL: every helper), naming the
 * capabilities @mask: a line, or with --json an object of "findings"
 * whose text is the line.  With @kind NULL, a note, after the findings:
 * "note: ...", or a string of "notes".
 */
static void finding(struct check *c, const char *kind, int purpose,
		    uint64_t mask, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = umh_xvasprintf(fmt, ap);
	va_end(ap);
	if (!c->json) {
		printf("%s%s\n", kind ? "" : "note: ", text);
	} else if (!kind) {
		printf("%s\n    ", c->notes ? "," : "");
		umh_print_json_string(text);
	} else {
		printf("%s\n    {\"kind\":\"%s\",\"purpose\":\"%s\"",
		       c->findings ? "," : "", kind, umh_purpose_name(purpose));
		umh_print_json_mask("mask", mask);
		fputs(",\"text\":", stdout);
		umh_print_json_string(text);
		putchar('}');
	}
	free(text);
	if (kind)
		c->findings++;
	else
		c->notes++;
}

#define note(c, ...)	finding(c, NULL, UMH_ALL, 0, __VA_ARGS__)

/* @mask as --allow takes it for purpose @p: "p:cap_a,p:cap_b". */
static char *allow_arg(int p, uint64_t mask)
{
	char *list = caps_list(mask), *s = list, *tok, *buf;
	const char *sep = "";
	size_t len;
	FILE *f;

	f = umh_xmemstream(&buf, &len);
	while ((tok = strsep(&s, ","))) {
		fprintf(f, "%s%s:%s", sep, umh_purpose_name(p),
			tok + strspn(tok, " "));
		sep = ",";
	}
	umh_xmemclose(f);
	free(list);
	return buf;
}

/* @mask as keep takes it: "cap_a,cap_b", or "none". */
static char *keep_arg(uint64_t mask)
{
	char *list = caps_list(mask), *s, *d;

	for (s = d = list; *s; s++)
		if (*s != ' ')
			*d++ = *s;
	*d = '\0';
	return list;
}

static void check_agree(struct check *c, int p, const struct umh_bound *b)
{
	const char *who = umh_purpose_name(p);
	uint64_t ob = b->bset & ~b->inh, oi = b->inh & ~b->bset;
	char *only_b, *only_i, *both;

	if (!ob && !oi)
		return;
	only_b = caps_format(ob);
	only_i = caps_format(oi);
	/* drop clears both: what only one holds goes from it. */
	both = keep_arg(ob | oi);
	finding(c, "disagree", p, ob | oi,
		"%s: bset and inheritable disagree:%s%s%s%s%s; make them agree: umhcap drop -p %s %s",
		who, ob ? " only in bset: " : "", ob ? only_b : "",
		ob && oi ? ";" : "",
		oi ? " only in inheritable: " : "", oi ? only_i : "",
		who, both);
	free(both);
	free(only_b);
	free(only_i);
}

/* Empty, more than 16 hex digits after an optional 0x, or not hex: bad. */
static bool valid_hex(const char *s)
{
	size_t n;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0 || n > 16)
		return false;
	return strspn(s, "0123456789abcdefABCDEF") == n;
}

/*
 * The kernel fails closed on an item it cannot use.  Where it can read
 * the purpose, all or a purpose's name before the first ':', that
 * purpose's set of @param is bounded to nothing; where it cannot, every
 * helper's, as the global bound.  Each finding says which.
 */
static void check_item(struct check *c, const char *param, char *item)
{
	const char *set = strrchr(param, '.') + 1;
	char *colon = strchr(item, ':');
	char whose[64] = "every helper's";
	char *esc, *name, *mask;
	int p;

	if (!*item) {
		finding(c, "cmdline", UMH_ALL, 0,
			"cmdline: %s: empty item: %s %s is bounded to nothing%s",
			param, whose, set, CMDLINE_FIX);
		return;
	}
	/*
	 * The item is the command line's, not umhcap's: escaped, in the
	 * JSON's text too, so that a finding's text is its line.
	 */
	esc = umh_escape(item, strlen(item));
	if (!colon) {
		finding(c, "cmdline", UMH_ALL, 0,
			"cmdline: %s: missing colon in item \"%s\": %s %s is bounded to nothing%s",
			param, esc, whose, set, CMDLINE_FIX);
		free(esc);
		return;
	}
	*colon = '\0';
	p = umh_purpose_lookup(item);
	*colon = ':';
	name = umh_escape(item, colon - item);
	mask = umh_escape(colon + 1, strlen(colon + 1));
	if (p < 0) {
		finding(c, "cmdline", UMH_ALL, 0,
			"cmdline: %s: unknown purpose \"%s\" in item \"%s\": %s %s is bounded to nothing%s",
			param, name, esc, whose, set, CMDLINE_FIX);
	} else if (!valid_hex(colon + 1)) {
		if (p != UMH_ALL)
			snprintf(whose, sizeof(whose), "%s's",
				 umh_purpose_name(p));
		finding(c, "cmdline", p, 0,
			"cmdline: %s: bad hex mask \"%s\" in item \"%s\": %s %s is bounded to nothing%s",
			param, mask, esc, whose, set, CMDLINE_FIX);
	}
	free(mask);
	free(name);
	free(esc);
}

/* A uid or gid as the kernel reads one: decimal, 32 bits, not -1. */
static bool valid_id(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 10 || strspn(s, "0123456789") != n)
		return false;
	return strtoull(s, NULL, 10) < 0xffffffffULL;
}

/*
 * usermodehelper.uid= and .gid= items fail closed too, in both sets: an
 * item whose purpose the kernel reads, that purpose's helpers; one whose
 * purpose it cannot read, or "all", every helper.
 */
static void check_id_item(struct check *c, const char *param, char *item)
{
	char *colon = strchr(item, ':');
	char *esc = umh_escape(item, strlen(item)), *id;
	int p = -1;

	if (colon) {
		*colon = '\0';
		p = umh_purpose_lookup(item);
		*colon = ':';
	}
	if (p < 0) {
		finding(c, "cmdline", UMH_ALL, 0,
			"cmdline: %s: malformed item \"%s\": every helper is bounded to nothing%s",
			param, esc, CMDLINE_FIX);
	} else if (!valid_id(colon + 1)) {
		id = umh_escape(colon + 1, strlen(colon + 1));
		if (p == UMH_ALL)
			finding(c, "cmdline", p, 0,
				"cmdline: %s: bad id \"%s\" in item \"%s\": every helper is bounded to nothing%s",
				param, id, esc, CMDLINE_FIX);
		else
			finding(c, "cmdline", p, 0,
				"cmdline: %s: bad id \"%s\" in item \"%s\": %s's helpers are bounded to nothing%s",
				param, id, esc, umh_purpose_name(p), CMDLINE_FIX);
		free(id);
	}
	free(esc);
}

static void check_param(struct check *c, char *tok)
{
	static const struct {
		const char *name;
		void (*check)(struct check *c, const char *param, char *item);
	} params[] = {
		{ "usermodehelper.bset",	check_item },
		{ "usermodehelper.inheritable",	check_item },
		{ "usermodehelper.uid",		check_id_item },
		{ "usermodehelper.gid",		check_id_item },
	};
	char *eq = strchr(tok, '=');
	char *item, *next;
	size_t i;

	if (!eq)
		return;
	*eq = '\0';
	for (i = 0; i < ARRAY_SIZE(params); i++)
		if (!strcmp(tok, params[i].name))
			break;
	if (i == ARRAY_SIZE(params))
		return;
	for (item = eq + 1; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		/* The kernel reads no id item after a last comma, nor in "". */
		if (params[i].check == check_id_item && !*item && !next)
			break;
		params[i].check(c, tok, item);
	}
}

/* Split like the kernel's next_arg(): spaces separate, quotes group. */
static char *next_token(char **s)
{
	bool quoted = false;
	char *p = *s, *out, *tok;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	tok = out = p;
	for (; *p && (quoted || !isspace((unsigned char)*p)); p++) {
		if (*p == '"')
			quoted = !quoted;
		else
			*out++ = *p;
	}
	*s = *p ? p + 1 : p;
	*out = '\0';
	return tok;
}

/* /proc/cmdline into @buf, before anything is printed. */
static int read_cmdline(const char *root, char *buf, size_t size)
{
	char *path = umh_in_root(root, "/proc/cmdline", true);
	ssize_t n;
	int fd;

	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0) {
		umh_err("cannot open %s/proc/cmdline: %s; check --root/UMHCAP_ROOT",
			root, strerror(errno));
		free(path);
		return -1;
	}
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0) {
		umh_err("cannot read %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	buf[n] = '\0';
	return 0;
}

static void check_cmdline(struct check *c, char *cmdline)
{
	char *s, *tok;

	for (s = cmdline; (tok = next_token(&s)); )
		check_param(c, tok);
}

static void check_measured(struct check *c, const struct umh_state *st,
			   const struct umh_measured *m)
{
	uint64_t excess = umh_ceiling(st, m->purpose) & ~m->caps;
	char *need, *ex, *keep;

	if (!excess)
		return;
	need = caps_format(m->caps);
	ex = caps_format(excess);
	/* keep narrows only: what the bound still holds of the row's set */
	keep = keep_arg(m->caps & st->b[m->purpose].bset);
	finding(c, "ceiling", m->purpose, excess,
		"%s: ceiling exceeds what %s (%s %s) was measured to need on %s (%s) by: %s; bound it to that: umhcap keep -p %s %s",
		umh_purpose_name(m->purpose), m->program, m->package,
		m->version, umh_measured_conf_name(m->conf), need, ex,
		umh_purpose_name(m->purpose), keep);
	free(keep);
	free(need);
	free(ex);
}

/*
 * No helper of @p was measured, so nothing says what it needs but the
 * kernel's record of what it used: the ceiling is held to that, and to
 * nothing when the kernel keeps no record.
 */
static void check_unmeasured(struct check *c, const struct umh_state *st,
			     const struct umh_record *rec, bool no_record,
			     int p, const struct umh_program *prog)
{
	uint64_t used = no_record ? 0 : rec->used[p];
	uint64_t excess = umh_ceiling(st, p) & ~used;
	const char *name = umh_purpose_name(p);
	char *shown, *ex, *why, *esc;

	if (!excess)
		return;
	if (prog->state == UMH_PROGRAM_SET) {
		esc = umh_escape(prog->path, strlen(prog->path));
		why = umh_xasprintf("no measured row for %s (%s)", esc,
				    prog->knob);
		free(esc);
	} else {
		why = umh_xstrdup("no helper of this purpose was measured");
	}
	ex = caps_format(excess);
	if (no_record) {
		finding(c, "ceiling", p, excess,
			"%s: %s, and this kernel keeps no record of what its helpers use; its ceiling allows: %s; bound it to nothing: umhcap drop -p %s all",
			name, why, ex, name);
		free(ex);
		free(why);
		return;
	}
	shown = caps_format(used);
	finding(c, "ceiling", p, excess,
		"%s: %s; its ceiling exceeds what the kernel's record shows its helpers used (%s, %llu started) by: %s; bound it to that: umhcap learn --apply --include-idle %s",
		name, why, shown, rec->started[p], ex, name);
	free(shown);
	free(ex);
	free(why);
}

/* The knob of @p says no helper starts: a ceiling is only a risk. */
static void check_no_program(struct check *c, const struct umh_state *st,
			     int p, const struct umh_program *prog)
{
	uint64_t ceiling = umh_ceiling(st, p);
	const char *name = umh_purpose_name(p);
	char *allows;

	if (!ceiling)
		return;
	allows = caps_format(ceiling);
	finding(c, "ceiling", p, ceiling,
		"%s: no helper of this purpose starts (%s: %s); its ceiling allows: %s; bound it to nothing: umhcap drop -p %s all",
		name, prog->knob, prog->why, allows, name);
	free(allows);
}

/* Without per-purpose bounds every helper gets the global bound. */
static void check_global(struct check *c, const struct umh_state *st)
{
	uint64_t need = umh_measured_union();
	uint64_t excess = st->b[UMH_ALL].bset & ~need;
	char *needed, *ex, *keep;

	if (!excess)
		return;
	needed = caps_format(need);
	ex = caps_format(excess);
	keep = keep_arg(need & st->b[UMH_ALL].bset);
	finding(c, "ceiling", UMH_ALL, excess,
		"%s: the global bound, which every helper gets, exceeds what any measured helper needs (%s) by: %s; bound it to that: umhcap keep -p all %s",
		umh_purpose_name(UMH_ALL), needed, ex, keep);
	free(keep);
	free(needed);
	free(ex);
}

static void check_ceilings(struct check *c, const struct umh_state *st,
			   const struct umh_record *rec, bool no_record,
			   const struct judge *j)
{
	const struct umh_purpose_info *u;

	if (!st->per_purpose) {
		check_global(c, st);
		return;
	}
	umh_for_each_purpose(u) {
		if (j[u->id].prog.state == UMH_PROGRAM_NONE)
			check_no_program(c, st, u->id, &j[u->id].prog);
		else if (j[u->id].row)
			check_measured(c, st, j[u->id].row);
		else
			check_unmeasured(c, st, rec, no_record, u->id,
					 &j[u->id].prog);
	}
}

/* Only purposes whose helpers ran: an empty record says nothing. */
static void check_record(struct check *c, const struct umh_state *st,
			 const struct umh_record *rec, const struct judge *j)
{
	const struct umh_purpose_info *u;
	unsigned long long n;
	uint64_t allowed, used;
	char *list, *give;
	int p;

	umh_for_each_purpose(u) {
		p = u->id;
		n = rec->started[p];
		if (!n)
			continue;
		allowed = umh_ceiling(st, p);
		used = rec->used[p];
		/* check_unmeasured() reported it already. */
		if ((allowed & ~used) && j[p].row) {
			list = caps_format(allowed & ~used);
			finding(c, "unused", p, allowed & ~used,
				"%s: the bound allows capabilities its helpers never used since boot (%llu started): %s; narrow it to what they used: umhcap learn --apply %s",
				u->name, n, list, u->name);
			free(list);
		}
		if (used & ~allowed) {
			list = caps_format(used & ~allowed);
			give = allow_arg(p, used & ~allowed);
			finding(c, "refused", p, used & ~allowed,
				"%s: its helpers used capabilities since boot that the bound no longer allows: %s; they may fail now; give them back from the next boot: umhcap boot --allow %s",
				u->name, list, give);
			free(give);
			free(list);
		}
	}
}

/*
 * A purpose directory this kernel has and umhcap does not know, as a
 * newer kernel may add: its helpers are judged by nothing above, so it
 * is a finding, not silence.
 */
static void check_unknown_purposes(struct check *c, const char *root)
{
	char dir[PATH_MAX], *path, *real, *esc;
	struct dirent *e;
	struct stat sb;
	bool sub;
	DIR *d;

	if (umh_path(dir, sizeof(dir), root, UMH_ALL, NULL))
		return;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		/* @dir is in the root already; so is what it links to. */
		path = umh_xasprintf("%s/%s", dir + strlen(root), e->d_name);
		real = umh_in_root(root, path, true);
		sub = real && !stat(real, &sb) && S_ISDIR(sb.st_mode);
		free(real);
		free(path);
		if (e->d_name[0] == '.' || !sub ||
		    umh_purpose_lookup(e->d_name) >= 0)
			continue;
		esc = umh_escape(e->d_name, strlen(e->d_name));
		finding(c, "unknown", UMH_ALL, 0,
			"%s: a purpose this kernel has and umhcap does not know: its helpers' bounds, record and program are not checked; a newer umhcap knows it",
			esc);
		free(esc);
	}
	if (d)
		closedir(d);
}

/* Does @list, the names of LSM_FILE, name umh: exactly that, not "umhx"? */
static bool lsm_has_umh(const char *list)
{
	char *copy = umh_xstrdup(list), *s = copy, *name;
	bool found = false;

	while (!found && (name = strsep(&s, ",")))
		found = !strcmp(name, "umh");
	free(copy);
	return found;
}

/*
 * umh, the series' LSM, makes each helper, with every process it starts,
 * a principal of its own: without it, the helpers of a purpose that runs
 * as a user of its own reach each other as that user.  A finding for each
 * such purpose where the kernel's list of LSMs lacks umh, whose fix is
 * that list with umh added, for lsm= (capability is always first, and
 * naming it there is harmless).
 */
static void check_lsm(struct check *c, const struct umh_state *st,
		      const struct lsm *l)
{
	const struct umh_purpose_info *u;
	char *list, *user;

	if (!l->own_user || !l->list || lsm_has_umh(l->list))
		return;
	list = umh_escape(l->list, strlen(l->list));
	umh_for_each_purpose(u) {
		if (!st->id[u->id].uid)
			continue;
		user = umh_id_format(false, st->id[u->id].uid);
		finding(c, "lsm", u->id, 0,
			"%s: its helpers run as a user of their own, %s, but the umh LSM is not on (" LSM_FILE ": %s), so they, and every process they start, reach each other as that user; add umh to the lsm= kernel parameter " CMDLINE_FILES ": lsm=%s%sumh",
			u->name, user, list, list, *list ? "," : "");
		free(user);
	}
	free(list);
}

/* No list of LSMs to read: whether umh is on is not known, and said. */
static void note_lsm(struct check *c, const struct umh_state *st,
		     const struct lsm *l)
{
	const struct umh_purpose_info *u;
	const char *sep = "";
	char *who;
	size_t len;
	FILE *f;

	if (!l->own_user || l->list)
		return;
	f = umh_xmemstream(&who, &len);
	umh_for_each_purpose(u) {
		if (!st->id[u->id].uid)
			continue;
		fprintf(f, "%s%s", sep, u->name);
		sep = ", ";
	}
	umh_xmemclose(f);
	note(c, "cannot tell whether the umh LSM is on (no " LSM_FILE ": securityfs is not mounted, or the kernel has no CONFIG_SECURITY); without it, the helpers of a purpose that runs as a user of its own (%s), and every process they start, reach each other as that user",
	     who);
	free(who);
}

/*
 * LSM_FILE under @root into @l, where a purpose of @st runs as a user of
 * its own (uid not 0: a group of its own is root still), and only then.
 * Without the file, l->list is NULL.  Returns 0, or -1 after an error
 * (printed) reading a file that is there.
 */
static int lsm_read(const char *root, const struct umh_state *st,
		    struct lsm *l)
{
	const struct umh_purpose_info *u;
	char *path, *text;
	size_t len;
	int err;

	*l = (struct lsm){ 0 };
	umh_for_each_purpose(u)
		if (st->id[u->id].uid)
			l->own_user = true;
	if (!l->own_user)
		return 0;
	path = umh_in_root(root, LSM_FILE, true);
	if (!path) {
		umh_err("cannot read %s%s: %s", root, LSM_FILE,
			strerror(errno));
		return -1;
	}
	err = umh_read_all(path, LSM_MAX, &text, &len);
	if (err == -ENOENT) {
		free(path);
		return 0;
	}
	if (err) {
		umh_err("cannot read %s: %s", path, strerror(-err));
		free(path);
		return -1;
	}
	free(path);
	/* The kernel ends the list with no newline; a copy of it may. */
	while (len && isspace((unsigned char)text[len - 1]))
		text[--len] = '\0';
	l->list = text;
	return 0;
}

/*
 * What one measured helper needs, every helper gets: only per-purpose
 * bounds can keep it from the others.  Said, not counted: no global
 * bound does better.
 */
static void note_global(struct check *c, const struct umh_state *st)
{
	char *shared = caps_format(st->b[UMH_ALL].bset & umh_measured_union());

	note(c, "per-purpose bounds are not available on this kernel; checked the global bound against what any measured helper needs; every helper gets it, so what one helper needs every helper gets: %s",
	     shared);
	free(shared);
}

struct key_handlers {
	struct check *c;
	const struct umh_state *st;
	const char *root;
};

/*
 * A handler of request-key's with a row: a note if it cannot do its job
 * as request_key's helpers run now, as their user, within their ceiling.
 * A note, not a finding: the machine may never need that job.
 */
static void check_key_handler(void *arg, const char *type,
			      const char *program, const char *file)
{
	struct key_handlers *k = arg;
	bool own = !umh_is_root(&k->st->id[UMH_REQUEST_KEY]);
	const struct umh_handler *h;
	char *prog, *t, *f, *caps, *allow;
	uint64_t missing;

	h = umh_handler_row(k->root, program, own ? UMH_CONF_INSTALLED_USER :
			    UMH_CONF_INSTALLED);
	if (!h)
		return;
	missing = h->caps & ~umh_ceiling(k->st, UMH_REQUEST_KEY);
	if (!h->fails && !missing)
		return;
	prog = umh_escape(program, strlen(program));
	t = umh_escape(type, strlen(type));
	f = umh_escape(file, strlen(file));
	if (h->fails) {
		note(k->c, "request_key: %s, for %s keys (%s), cannot do its job as request_key's own user: %s",
		     prog, t, f, h->fails);
	} else {
		caps = caps_list(missing);
		allow = allow_arg(UMH_REQUEST_KEY, missing);
		note(k->c, "request_key: %s, for %s keys (%s), needs %s, which request_key's ceiling withholds, so its job fails; allow them only if that job is needed: umhcap boot --allow %s",
		     prog, t, f, caps, allow);
		free(allow);
		free(caps);
	}
	free(f);
	free(t);
	free(prog);
}

/*
 * Each purpose's program and row, read before anything is printed: the
 * row of the program its knob names, or without a knob its purpose's.
 */
static int judge_purposes(const char *root, const struct umh_state *st,
			  struct judge *j)
{
	const struct umh_purpose_info *u;
	struct umh_program *prog;
	int p;

	umh_for_each_purpose(u) {
		p = u->id;
		prog = &j[p].prog;
		if (umh_program_read(root, p, prog))
			return -1;
		if (prog->state == UMH_PROGRAM_UNKNOWN)
			j[p].row = umh_measured_for(p);
		else if (prog->state == UMH_PROGRAM_SET)
			j[p].row = umh_program_row(root, p, prog,
						   !umh_is_root(&st->id[p]));
	}
	return 0;
}

static void judge_free(struct judge *j)
{
	int p;

	for (p = 0; p < UMH_NR; p++)
		umh_program_free(&j[p].prog);
}

int cmd_check(const struct umh_args *a)
{
	const struct umh_purpose_info *u;
	struct check c = { .json = a->json };
	struct judge j[UMH_NR] = { 0 };
	struct lsm lsm = { 0 };
	struct umh_record rec;
	struct umh_state st;
	char cmdline[4096];
	int no_record;

	if (umh_load(a->root, &st))
		return UMH_EXIT_ERROR;
	no_record = umh_record_load(a->root, &rec);
	if (no_record < 0 || read_cmdline(a->root, cmdline, sizeof(cmdline)) ||
	    judge_purposes(a->root, &st, j) || lsm_read(a->root, &st, &lsm)) {
		judge_free(j);
		return UMH_EXIT_ERROR;
	}
	if (c.json) {
		umh_print_json_begin();
		printf(",\"per_purpose\":%s,\"record\":%s,\"cap_bits\":%d,\"findings\":[",
		       st.per_purpose ? "true" : "false",
		       no_record ? "false" : "true", caps_nbits());
	}
	check_ceilings(&c, &st, &rec, no_record, j);
	umh_for_each(u)
		if (u->id == UMH_ALL || st.per_purpose)
			check_agree(&c, u->id, &st.b[u->id]);
	if (!no_record)
		check_record(&c, &st, &rec, j);
	check_cmdline(&c, cmdline);
	check_unknown_purposes(&c, a->root);
	check_lsm(&c, &st, &lsm);
	if (c.json)
		printf("\n  ],\"notes\":[");
	if (no_record > 0)
		note(&c, "this kernel keeps no record of what helpers use (no %s); unused capabilities were not checked",
		     rec.missing);
	if (!st.per_purpose)
		note_global(&c, &st);
	else
		umh_key_handlers(a->root, check_key_handler,
				 &(struct key_handlers){ &c, &st, a->root });
	note_lsm(&c, &st, &lsm);
	if (c.json)
		printf("\n  ],\"count\":%d\n}\n", c.findings);
	else if (c.findings)
		printf("%d finding%s\n", c.findings, c.findings == 1 ? "" : "s");
	else
		printf("no findings\n");
	free(lsm.list);
	judge_free(j);
	return c.findings ? UMH_EXIT_FINDINGS : UMH_EXIT_OK;
}
