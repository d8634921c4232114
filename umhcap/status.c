// SPDX-License-Identifier: GPL-2.0
/*
 * status: the administrator's view, on one screen: whether the kernel
 * keeps its record of what helpers use, and how many started; each
 * purpose's ceiling, who its helpers run as and how many started; where
 * each bound and id of the next boot is set (the kernel command line the
 * boot loader is given, and sysctl.d: nextboot.c); how many boots umhcap save
 * kept; and the refusals of this boot.  It reads, and writes nothing.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

/* The saved boots umhcap save kept: files named as a boot id. */
static int saved_boots(const char *root, const char *state_dir)
{
	char *dir = umh_boots_dir(root, state_dir);
	char *real = umh_in_root(root, dir + strlen(root), true);
	struct dirent **names;
	int n, k, count = 0;

	n = real ? scandir(real, &names, NULL, alphasort) : -1;
	free(real);
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
static void text_next(const struct umh_settings *ss, int p)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < ss->n; i++) {
		if (ss->s[i].purpose != p)
			continue;
		printf("%s%s %s (%s)", sep, ss->s[i].param, ss->s[i].value,
		       ss->s[i].file);
		sep = "; ";
	}
	if (!*sep)
		printf("set nowhere: open%s", p == UMH_ALL ? "" : ", as root");
	putchar('\n');
}

static void json_next(const struct umh_settings *ss, int p)
{
	const char *sep = "";
	size_t i;

	fputs(",\"next_boot\":[", stdout);
	for (i = 0; i < ss->n; i++) {
		if (ss->s[i].purpose != p)
			continue;
		printf("%s{\"param\":\"%s\"", sep, ss->s[i].param);
		umh_print_json_field("value", ss->s[i].value);
		umh_print_json_field("file", ss->s[i].file);
		putchar('}');
		sep = ",";
	}
	putchar(']');
}

struct view {
	struct umh_state st;
	struct umh_record rec;
	bool record;			/* the kernel keeps one */
	struct umh_settings ss;
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
		printf("refusals this boot: not read (umhcap refusals says why)\n");
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
	       "kernel-install are given (umhcap boot), then sysctl.d.\n");
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
	umh_settings_scan(a->root, &v.ss);
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
	umh_settings_free(&v.ss);
	free(v.boots_dir);
	return UMH_EXIT_OK;
}
