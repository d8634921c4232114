// SPDX-License-Identifier: GPL-2.0
/*
 * drop and keep: narrow the bset and inheritable bound of one purpose
 * (or the global bound), then read both back to verify.
 */
#include <stdlib.h>

#include "umhcap.h"

/*
 * keep: every named cap must still be in the bset; bounds only narrow.
 * all keeps what the bound has.
 */
static int check_keep(const struct umh_args *a, const struct umh_bound *b)
{
	const char *name = umh_purpose_name(a->purpose);
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

static int set_file(const struct umh_args *a, const char *file,
		    uint64_t mask)
{
	char path[PATH_MAX];
	char *names;

	if (umh_path(path, sizeof(path), a->root, a->purpose, file) ||
	    umh_narrow(path, mask, a->dry_run))
		return -1;
	if (a->dry_run)
		return 0;
	names = caps_format(mask);
	printf("%s %s: %s\n", umh_purpose_name(a->purpose), file, names);
	free(names);
	return 0;
}

static int set(const struct umh_args *a, bool keep)
{
	struct umh_bound nb, *cur;
	struct umh_state st;

	if (umh_load(a->root, &st))
		return UMH_EXIT_ERROR;
	if (a->purpose != UMH_ALL && !st.per_purpose) {
		umh_no_per_purpose(a->root);
		return UMH_EXIT_ERROR;
	}
	cur = &st.b[a->purpose];
	if (keep) {
		if (check_keep(a, cur))
			return UMH_EXIT_ERROR;
		nb.bset = cur->bset & a->caps;
		nb.inh = cur->inh & a->caps;
	} else {
		nb.bset = cur->bset & ~a->caps;
		nb.inh = cur->inh & ~a->caps;
	}
	if (set_file(a, "bset", nb.bset) ||
	    set_file(a, "inheritable", nb.inh))
		return UMH_EXIT_ERROR;
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
