// SPDX-License-Identifier: GPL-2.0
/*
 * status: the administrator's view, on one screen: whether the kernel
 * keeps its record of what helpers use, and how many started; each
 * purpose's ceiling, who its helpers run as and how many started; where
 * each bound and id of the next boot is set (the kernel command line the
 * boot loader is given, and /etc/sysctl.d); how many boots umhcap save
 * kept; and the refusals of this boot.  It reads, and writes nothing.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

#define CONF_MAX	(1 << 20)

/*
 * The files that set the next boot's bounds: the command line, as GRUB
 * (update-grub sources /etc/default/grub, then grub.d's *.cfg) or
 * kernel-install reads it, then sysctl.d, applied later in the boot.
 */
enum source_kind { SRC_CMDLINE, SRC_SYSCTL };

static const struct {
	const char *path;	/* a file, or a directory of files */
	const char *glob;	/* NULL: @path is the file */
	enum source_kind kind;
} sources[] = {
	{ "/etc/default/grub",		NULL,		SRC_CMDLINE },
	{ "/etc/default/grub.d",	"*.cfg",	SRC_CMDLINE },
	{ "/etc/kernel/cmdline",	NULL,		SRC_CMDLINE },
	{ "/etc/sysctl.conf",		NULL,		SRC_SYSCTL },
	{ "/etc/sysctl.d",		"*.conf",	SRC_SYSCTL },
};

/* One bound or id the next boot is given, and where. */
struct setting {
	char *file;		/* as the root's system names it */
	const char *param;	/* bset, inheritable, uid or gid */
	char *value;		/* as the file gives it */
};

struct settings {
	struct setting *s[UMH_NR];
	size_t n[UMH_NR];
	int files;		/* files that set one at least */
};

static const char *const params[] = { "bset", "inheritable", "uid", "gid" };

static const char *param_of(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(params); i++)
		if (strlen(params[i]) == n && !strncmp(params[i], s, n))
			return params[i];
	return NULL;
}

static void add(struct settings *ss, int p, const char *file,
		const char *param, const char *value, size_t len)
{
	struct setting *s = realloc(ss->s[p], (ss->n[p] + 1) * sizeof(*s));

	if (!s) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	ss->s[p] = s;
	s[ss->n[p]++] = (struct setting){
		.file = umh_xstrdup(file), .param = param,
		.value = umh_escape(value, len),
	};
}

/*
 * The usermodehelper.PARAM=PURPOSE:VALUE,... words of @text, a file of
 * the command line's (a comment line left out).  Returns how many items.
 */
static int scan_cmdline(struct settings *ss, const char *file, char *text)
{
	char *line, *s, *w, *list, *items, *item, *colon;
	const char *param;
	int p, found = 0;
	size_t n;

	for (s = text; (line = strsep(&s, "\n")); ) {
		if (line[strspn(line, " \t")] == '#')
			continue;
		for (w = line; (w = strstr(w, "usermodehelper.")); w += n) {
			w += strlen("usermodehelper.");
			n = strcspn(w, "=");
			param = w[n] == '=' ? param_of(w, n) : NULL;
			if (!param)
				continue;
			w += n + 1;
			n = strcspn(w, " \t\"'");
			/* PURPOSE:VALUE,...: a malformed item is check's. */
			items = list = umh_xasprintf("%.*s", (int)n, w);
			while ((item = strsep(&items, ","))) {
				colon = strchr(item, ':');
				if (!colon)
					continue;
				*colon = '\0';
				p = umh_purpose_lookup(item);
				if (p < 0)
					continue;
				add(ss, p, file, param, colon + 1,
				    strlen(colon + 1));
				found++;
			}
			free(list);
		}
	}
	return found;
}

/* The kernel.usermodehelper.[PURPOSE.]PARAM = VALUE lines of @text. */
static int scan_sysctl(struct settings *ss, const char *file, char *text)
{
	char *line, *s, *key, *dot;
	const char *param;
	int p, found = 0;
	size_t n;

	for (s = text; (line = strsep(&s, "\n")); ) {
		line += strspn(line, " \t");
		line += *line == '-';
		if (strncmp(line, "kernel.usermodehelper.", 22))
			continue;
		key = line + 22;
		n = strcspn(key, " \t=");
		dot = memchr(key, '.', n);
		if (dot) {
			*dot = '\0';
			p = umh_purpose_lookup(key);
			param = param_of(dot + 1, n - (dot + 1 - key));
		} else {
			p = UMH_ALL;
			param = param_of(key, n);
		}
		if (p < 0 || !param)
			continue;
		key += n;
		key += strspn(key, " \t=");
		/* Two words, as the kernel prints a mask: one space. */
		for (dot = key; (dot = strchr(dot, '\t')); )
			*dot = ' ';
		add(ss, p, file, param, key, strcspn(key, "\n#"));
		found++;
	}
	return found;
}

/* The glob scandir() takes the files of a directory of @sources by. */
static const char *scan_glob;

static int scan_filter(const struct dirent *d)
{
	return d->d_name[0] != '.' && !fnmatch(scan_glob, d->d_name, 0);
}

static void scan_file(const char *root, struct settings *ss, const char *file,
		      enum source_kind kind)
{
	char *path = umh_xasprintf("%s%s", root, file), *text;
	size_t len;

	if (umh_read_all(path, CONF_MAX, &text, &len)) {
		free(path);
		return;
	}
	free(path);
	if ((kind == SRC_CMDLINE ? scan_cmdline : scan_sysctl)(ss, file, text))
		ss->files++;
	free(text);
}

/* Every setting of the next boot, in the order the boot applies them. */
static void scan(const char *root, struct settings *ss)
{
	struct dirent **names;
	char *dir, *file;
	size_t i;
	int n, k;

	for (i = 0; i < ARRAY_SIZE(sources); i++) {
		if (!sources[i].glob) {
			scan_file(root, ss, sources[i].path, sources[i].kind);
			continue;
		}
		dir = umh_xasprintf("%s%s", root, sources[i].path);
		scan_glob = sources[i].glob;
		n = scandir(dir, &names, scan_filter, alphasort);
		free(dir);
		for (k = 0; k < n; k++) {
			file = umh_xasprintf("%s/%s", sources[i].path,
					     names[k]->d_name);
			scan_file(root, ss, file, sources[i].kind);
			free(file);
			free(names[k]);
		}
		if (n >= 0)
			free(names);
	}
}

static void settings_free(struct settings *ss)
{
	size_t p, i;

	for (p = 0; p < UMH_NR; p++) {
		for (i = 0; i < ss->n[p]; i++) {
			free(ss->s[p][i].file);
			free(ss->s[p][i].value);
		}
		free(ss->s[p]);
	}
}

/* The saved boots umhcap save kept: files named as a boot id. */
static int saved_boots(const char *root, const char *state_dir)
{
	char *dir = umh_boots_dir(root, state_dir);
	struct dirent **names;
	int n, k, count = 0;

	n = scandir(dir, &names, NULL, alphasort);
	free(dir);
	for (k = 0; k < n; k++) {
		count += strlen(names[k]->d_name) == UMH_BOOT_ID_LEN &&
			 names[k]->d_name[8] == '-';
		free(names[k]);
	}
	if (n >= 0)
		free(names);
	return count;
}

/* "bset 0x10000 (/etc/...); uid 990 (/etc/...)", or "open: set nowhere" */
static void text_next(const struct settings *ss, int p)
{
	size_t i;

	if (!ss->n[p]) {
		printf("set nowhere: open%s\n", p == UMH_ALL ? "" : ", as root");
		return;
	}
	for (i = 0; i < ss->n[p]; i++)
		printf("%s%s %s (%s)", i ? "; " : "", ss->s[p][i].param,
		       ss->s[p][i].value, ss->s[p][i].file);
	putchar('\n');
}

static void json_next(const struct settings *ss, int p)
{
	size_t i;

	fputs(",\"next_boot\":[", stdout);
	for (i = 0; i < ss->n[p]; i++) {
		printf("%s{\"param\":\"%s\"", i ? "," : "", ss->s[p][i].param);
		umh_print_json_field("value", ss->s[p][i].value);
		umh_print_json_field("file", ss->s[p][i].file);
		putchar('}');
	}
	putchar(']');
}

struct view {
	struct umh_state st;
	struct umh_record rec;
	bool record;			/* the kernel keeps one */
	struct settings ss;
	int saved;
	char *boots_dir;		/* as the root's system names it */
	struct umh_refusals rs;
	bool refusals;			/* read from a source */
	size_t refused;			/* of this boot */
	char boot[UMH_BOOT_ID_LEN + 1];
};

static void status_text(const struct view *v)
{
	const struct umh_purpose_info *u;
	char *ceiling, *who;

	if (v->record)
		printf("record: on, %llu helper%s started since boot\n",
		       v->rec.started[UMH_ALL],
		       v->rec.started[UMH_ALL] == 1 ? "" : "s");
	else
		printf("record: off: this kernel keeps no record of what helpers use (no %s)\n",
		       v->rec.missing);
	printf("saved boots: %d in %s (umhcap learn merges them)\n", v->saved,
	       v->boots_dir);
	if (v->refusals)
		printf("refusals this boot: %zu (umhcap refusals; from %s)\n",
		       v->refused, strcmp(v->rs.source, "kmsg") ?
		       "the journal" : "/dev/kmsg");
	else
		printf("refusals this boot: not read (no journal, no /dev/kmsg)\n");
	printf("\n%-14s %-8s %-20s %s\n", "PURPOSE", "STARTED", "RUNS AS",
	       "CEILING");
	umh_for_each(u) {
		if (u->id != UMH_ALL && !v->st.per_purpose)
			continue;
		ceiling = caps_format(umh_ceiling(&v->st, u->id));
		who = u->id == UMH_ALL || !v->st.idents ? umh_xstrdup("-") :
		      umh_ident_format(&v->st.id[u->id]);
		if (v->record)
			printf("%-14s %-8llu %-20s %s\n", u->name,
			       v->rec.started[u->id], who, ceiling);
		else
			printf("%-14s %-8s %-20s %s\n", u->name, "-", who,
			       ceiling);
		free(who);
		free(ceiling);
	}
	printf("\nnext boot, where each bound and id is set:\n");
	umh_for_each(u) {
		printf("  %-14s ", u->name);
		text_next(&v->ss, u->id);
	}
	if (!v->ss.files)
		printf("no file sets one: the next boot's helpers start with open bounds, as root\n");
	printf("\nceiling: the most a helper gets now (umhcap show); started: helpers\n"
	       "since boot (umhcap learn); next boot: the command line GRUB and\n"
	       "kernel-install are given (umhcap boot), then /etc/sysctl.d.\n");
}

static void status_json(const struct view *v)
{
	const struct umh_purpose_info *u;
	const char *sep = "";
	size_t i;

	umh_print_json_begin();
	printf(",\"per_purpose\":%s,\"record\":%s",
	       v->st.per_purpose ? "true" : "false",
	       v->record ? "true" : "false");
	if (v->record)
		umh_print_json_record(&v->rec, UMH_ALL);
	fputs(",\"purposes\":[", stdout);
	umh_for_each(u) {
		if (u->id != UMH_ALL && !v->st.per_purpose)
			continue;
		printf("%s\n  {\"purpose\":\"%s\"", sep, u->name);
		umh_print_json_mask("ceiling", umh_ceiling(&v->st, u->id));
		if (u->id != UMH_ALL && v->st.idents)
			umh_print_json_ident("identity", &v->st.id[u->id]);
		else
			fputs(",\"identity\":null", stdout);
		if (v->record)
			umh_print_json_record(&v->rec, u->id);
		json_next(&v->ss, u->id);
		putchar('}');
		sep = ",";
	}
	printf("\n],\"saved_boots\":%d", v->saved);
	umh_print_json_field("boots_dir", v->boots_dir);
	fputs(",\"refusals\":", stdout);
	if (!v->refusals) {
		fputs("null", stdout);
	} else {
		putchar('[');
		for (i = 0, sep = ""; i < v->rs.n; i++) {
			if (strcmp(v->rs.r[i].boot, v->boot))
				continue;
			fputs(sep, stdout);
			umh_print_json_refusal(&v->rs.r[i]);
			sep = ",";
		}
		putchar(']');
	}
	printf("}\n");
}

int cmd_status(const struct umh_args *a)
{
	struct view v = { 0 };
	size_t i;
	int ret;

	if (umh_load(a->root, &v.st))
		return UMH_EXIT_ERROR;
	ret = umh_record_load(a->root, &v.rec);
	if (ret < 0)
		return UMH_EXIT_ERROR;
	v.record = !ret;
	scan(a->root, &v.ss);
	v.saved = saved_boots(a->root, a->state_dir);
	v.boots_dir = umh_xasprintf("%s/boots", a->state_dir ? a->state_dir :
				    UMH_STATE_DIR);
	if (umh_boot_id(a->root, v.boot))
		v.boot[0] = '\0';
	v.refusals = !umh_refusals_read(a->root, v.boot, true, UMH_NO_TIME, &v.rs);
	for (i = 0; v.refusals && i < v.rs.n; i++)
		v.refused += !strcmp(v.rs.r[i].boot, v.boot);
	if (a->json)
		status_json(&v);
	else
		status_text(&v);
	umh_refusals_free(&v.rs);
	settings_free(&v.ss);
	free(v.boots_dir);
	return UMH_EXIT_OK;
}
