// SPDX-License-Identifier: GPL-2.0
/*
 * boots: the boots umhcap save kept (savedboots.c), oldest first: each
 * one's id, when it was saved and began, its kernel, how many helpers of
 * each purpose started and what they used, and how many refusals the
 * journal logged in it; with --forget BOOT_ID, that boot's file removed,
 * so that learn, export --learned and boot no longer merge it.
 *
 * The files are read as learn reads them: one that cannot be trusted or
 * parsed is warned of and not listed, and can still be forgotten.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "umhcap.h"

/* "modprobe 4 (cap_sys_module), coredump 2 (...)": its lines, in text. */
static void text_boot(const struct umh_saved *s, bool this_boot,
		      const struct umh_refusals *rs, bool refusals)
{
	const struct umh_purpose_info *u;
	unsigned long long n = s->rec.started[UMH_ALL];
	unsigned long count = 0;
	char *when, *names;
	size_t i;

	printf("boot %s%s\n", s->boot_id, this_boot ? " (this boot)" : "");
	when = umh_time_iso(s->saved);
	printf("  %-13s%s", "saved:", when);
	free(when);
	if (s->btime >= 0) {
		when = umh_time_iso(s->btime);
		printf(", began %s", when);
		free(when);
	}
	printf("\n  %-13s%s\n", "kernel:", *s->kernel ? s->kernel :
	       "(not saved)");
	printf("  %-13s%llu helper%s\n", "started:", n, n == 1 ? "" : "s");
	umh_for_each_purpose(u) {
		if (!s->rec.started[u->id])
			continue;
		names = caps_format(s->rec.used[u->id]);
		printf("    %-15s%llu, used %s\n", u->name,
		       s->rec.started[u->id], names);
		free(names);
	}
	if (!refusals) {
		printf("  %-13snot known (umhcap refusals says why)\n",
		       "refused:");
		return;
	}
	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->r[i].boot, s->boot_id))
			count += rs->r[i].count;
	printf("  %-13s%lu%s\n", "refused:", count,
	       count ? " (umhcap refusals)" :
	       !strcmp(rs->source, "kmsg") && !this_boot ?
	       " (/dev/kmsg holds this boot's only)" : "");
}

static int list(const struct umh_args *a)
{
	char *dir = umh_boots_dir(a->root, a->state_dir);
	char *shown = umh_boots_dir("", a->state_dir);
	char this_boot[UMH_BOOT_ID_LEN + 1] = "";
	struct umh_saved_set set;
	struct umh_refusals rs;
	bool refusals;
	size_t i;

	umh_saved_read(a->root, dir, false, &set);
	if (set.n && umh_boot_id(a->root, this_boot))
		this_boot[0] = '\0';
	/* Without a journal or /dev/kmsg, no count: the list still is. */
	refusals = !umh_refusals_read(a->root, this_boot, true, UMH_NO_TIME,
				      &rs);
	if (a->json) {
		umh_print_json_begin();
		umh_print_json_field("boots_dir", shown);
		umh_print_json_field("refusals_source",
				     refusals ? rs.source : NULL);
		printf(",\"files_refused\":%d,\"boots\":[", set.refused);
		for (i = 0; i < set.n; i++) {
			fputs(i ? ",\n  " : "\n  ", stdout);
			umh_print_json_boot(&set.b[i],
					    !strcmp(set.b[i].boot_id, this_boot),
					    refusals ? &rs : NULL);
		}
		printf("\n]}\n");
	} else if (!set.n) {
		printf("no saved boots in %s%s\n", shown, set.refused ?
		       " but the files refused (see the warnings)" : "");
	} else {
		printf("%zu saved boot%s in %s, oldest first%s:\n", set.n,
		       set.n == 1 ? "" : "s", shown, set.refused ?
		       "; files refused are not listed (see the warnings)" :
		       "");
		for (i = 0; i < set.n; i++) {
			putchar('\n');
			text_boot(&set.b[i],
				  !strcmp(set.b[i].boot_id, this_boot), &rs,
				  refusals);
		}
		printf("\nlearn, export --learned and boot merge them (--since DATE, --last N\n"
		       "choose among them); umhcap boots --forget BOOT_ID removes one.\n");
	}
	umh_refusals_free(&rs);
	umh_saved_set_free(&set);
	free(shown);
	free(dir);
	return UMH_EXIT_OK;
}

/*
 * --forget BOOT_ID: its file removed, or, with -n, named.  An id with no
 * file, or a file that is not a regular one, is an error, and nothing is
 * removed.
 */
static int forget(const struct umh_args *a)
{
	char *dir = umh_boots_dir(a->root, a->state_dir);
	char *path = umh_xasprintf("%s/%s", dir, a->forget);
	/* The file, in the root; a link of its own is refused, not followed. */
	char *real = umh_in_root(a->root, path + strlen(a->root), false);
	char this_boot[UMH_BOOT_ID_LEN + 1] = "", *under = umh_under_root();
	const struct umh_saved *s = NULL;
	struct umh_saved_set set = { 0 };
	struct stat st;
	size_t i;
	int ret = UMH_EXIT_ERROR;

	if (!real || lstat(real, &st)) {
		umh_err("boots --forget %s: %s: no saved boot %s in %s (umhcap boots lists them); nothing was removed%s",
			a->forget, errno == ENOENT ? "not there" :
			strerror(errno), a->forget, dir, under);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		umh_err("boots --forget %s: %s is not a regular file, which save never writes; nothing was removed%s",
			a->forget, path, under);
		goto out;
	}
	/* What it holds, for --json: null where it is refused. */
	umh_saved_read(a->root, dir, false, &set);
	for (i = 0; i < set.n && !s; i++)
		if (!strcmp(set.b[i].boot_id, a->forget))
			s = &set.b[i];
	if (!a->dry_run && umh_remove(real) < 0) {
		umh_err("boots --forget %s: nothing was removed%s", a->forget,
			under);
		goto out;
	}
	if (umh_boot_id(a->root, this_boot))
		this_boot[0] = '\0';
	ret = UMH_EXIT_OK;
	if (a->json) {
		umh_print_json_begin();
		printf(",\"dry_run\":%s,\"action\":\"forget\"",
		       a->dry_run ? "true" : "false");
		umh_print_json_field("file", path);
		fputs(",\"boot\":", stdout);
		if (s)
			umh_print_json_boot(s, !strcmp(s->boot_id, this_boot),
					    NULL);
		else
			fputs("null", stdout);
		printf("}\n");
	} else if (a->dry_run) {
		printf("-n, nothing removed: would remove %s%s\n", path, under);
	} else {
		printf("forgot boot %s: removed %s%s\n", a->forget, path,
		       under);
	}
	if (!a->json && !strcmp(a->forget, this_boot))
		umh_note("%s is this boot: umhcap save keeps its record again at shutdown",
			 a->forget);
out:
	umh_saved_set_free(&set);
	free(under);
	free(real);
	free(path);
	free(dir);
	return ret;
}

int cmd_boots(const struct umh_args *a)
{
	if (a->dry_run && !a->forget)
		return umh_usage_error(a->cmd, "-n goes with --forget: without it, boots removes nothing");
	return a->forget ? forget(a) : list(a);
}
