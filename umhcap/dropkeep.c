// SPDX-License-Identifier: GPL-2.0
/*
 * drop and keep: narrow the bset and inheritable bound of each purpose
 * named (or of the global bound), then read both back to verify.  With
 * --json, one object once every bound is written: each purpose's bounds
 * before and after; none after an error.
 */
#include <stdlib.h>

#include "umhcap.h"

/*
 * keep: every named cap must still be in the bset of purpose @p; bounds
 * only narrow.  all keeps what the bound has.
 */
static int check_keep(const struct umh_args *a, int p,
		      const struct umh_bound *b)
{
	const char *name = umh_purpose_name(p);
	uint64_t missing = a->caps & ~b->bset;
	char *miss, *cur;

	if (a->caps_all)
		return 0;
	if (missing) {
		miss = caps_list(missing);
		cur = caps_format(b->bset);
		umh_err("cannot keep %s: not in the %s bset (currently %s); bounds can only be narrowed, nothing written",
			miss, name, cur);
		free(miss);
		free(cur);
		return -1;
	}
	missing = a->caps & ~b->inh;
	if (missing) {
		miss = caps_list(missing);
		umh_warn("%s is not in the %s inheritable bound and stays cleared there",
			 miss, name);
		free(miss);
	}
	return 0;
}

/* Returns 0, or -1 after an error (printed); *@wrote once written. */
static int set_file(const struct umh_args *a, int p, const char *file,
		    uint64_t mask, bool *wrote)
{
	char path[PATH_MAX];
	char *names, *under;
	int ret;

	if (umh_path(path, sizeof(path), a->root, p, file))
		return -1;
	/* -n says only what it would write: JSON says that at the end. */
	if (a->json && a->dry_run)
		return 0;
	ret = umh_narrow(path, mask, a->dry_run);
	if (ret != -1 && !a->dry_run)
		*wrote = true;
	if (ret)
		return -1;
	if (a->dry_run || a->json)
		return 0;
	names = caps_format(mask);
	under = umh_under_root();
	printf("%s %s: %s%s\n", umh_purpose_name(p), file, names, under);
	free(names);
	free(under);
	return 0;
}

/*
 * --json: {"version":1,"command":..,"dry_run":..,"bounds":[{"purpose":..,
 * "bset_before":..,"inheritable_before":..,"bset_after":..,
 * "inheritable_after":..}]}, each mask as show --json gives it.
 */
static void set_json(const struct umh_args *a, const struct umh_state *st,
		     const struct umh_bound nb[UMH_NR])
{
	const struct umh_purpose_info *u;
	const char *sep = "";

	umh_print_json_begin();
	printf(",\"command\":\"%s\",\"dry_run\":%s,\"bounds\":[",
	       a->cmd->name, a->dry_run ? "true" : "false");
	umh_for_each(u) {
		if (!a->sel[u->id])
			continue;
		printf("%s\n  {\"purpose\":\"%s\"", sep, u->name);
		umh_print_json_mask("bset_before", st->b[u->id].bset);
		umh_print_json_mask("inheritable_before", st->b[u->id].inh);
		umh_print_json_mask("bset_after", nb[u->id].bset);
		umh_print_json_mask("inheritable_after", nb[u->id].inh);
		putchar('}');
		sep = ",";
	}
	printf("\n]}\n");
}

/*
 * Every purpose named is checked, and what is wrong with each said,
 * before anything is written; then each is written, in the order of
 * the purposes, the global bound first.
 */
static int set(const struct umh_args *a, bool keep)
{
	const struct umh_purpose_info *u;
	bool wrote[UMH_NR] = { false }, bad = false;
	struct umh_bound nb[UMH_NR], *cur;
	struct umh_state st;

	if (umh_load(a->root, &st))
		return UMH_EXIT_ERROR;
	umh_for_each(u) {
		if (!a->sel[u->id])
			continue;
		if (u->id != UMH_ALL && !st.per_purpose) {
			umh_no_per_purpose(a->root);
			return UMH_EXIT_ERROR;
		}
		cur = &st.b[u->id];
		if (keep) {
			bad |= check_keep(a, u->id, cur) != 0;
			nb[u->id].bset = cur->bset & a->caps;
			nb[u->id].inh = cur->inh & a->caps;
		} else {
			nb[u->id].bset = cur->bset & ~a->caps;
			nb[u->id].inh = cur->inh & ~a->caps;
		}
	}
	if (bad)
		return UMH_EXIT_ERROR;
	umh_for_each(u)
		if (a->sel[u->id] &&
		    (set_file(a, u->id, "bset", nb[u->id].bset,
			      &wrote[u->id]) ||
		     set_file(a, u->id, "inheritable", nb[u->id].inh,
			      &wrote[u->id])))
			return umh_write_failed(a->cmd->name, "narrowed",
						wrote, u);
	if (a->json)
		set_json(a, &st, nb);
	return UMH_EXIT_OK;
}

int cmd_drop(const struct umh_args *a)
{
	return set(a, false);
}

int cmd_keep(const struct umh_args *a)
{
	return set(a, true);
}
