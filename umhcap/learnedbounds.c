// SPDX-License-Identifier: GPL-2.0
/*
 * The bounds the kernel's record leads to, which learn --apply writes,
 * export --learned prints and boot hands to the boot loader: each
 * purpose whose helpers ran narrowed to what they used, in this boot and
 * in the boots umhcap save kept (savedboots.c).
 *
 * A purpose whose helpers never ran has an empty record, which says
 * nothing about what they need: it is left alone unless include_idle.
 */
#include "umhcap.h"

bool umh_idle(const struct umh_record *rec, int purpose)
{
	return rec->started[purpose] == 0;
}

/* @cur, each purpose that ran (or every one) narrowed to what it used. */
static void learned_bounds(const struct umh_state *cur,
			   const struct umh_record *rec, bool include_idle,
			   struct umh_state *out)
{
	const struct umh_purpose_info *u;

	*out = *cur;
	umh_for_each_purpose(u) {
		if (umh_idle(rec, u->id) && !include_idle)
			continue;
		out->b[u->id].bset &= rec->used[u->id];
		out->b[u->id].inh &= rec->used[u->id];
	}
}

/*
 * Load the bounds into @cur and the record into @rec, merge into it the
 * saved boots @m names (none if @m is NULL), and compute the learned
 * bounds into @learned; the global bound stays as it is.  Returns 0 or
 * an exit code; prints its own errors, and says so when the kernel keeps
 * no record.
 */
int umh_learned(const char *root, bool include_idle, struct umh_merge *m,
		struct umh_state *cur, struct umh_state *learned,
		struct umh_record *rec)
{
	int ret;

	if (umh_load(root, cur))
		return UMH_EXIT_ERROR;
	ret = umh_record_load(root, rec);
	if (ret > 0)
		umh_no_record(rec);
	if (ret || (m && umh_saved_merge(root, m, rec)))
		return UMH_EXIT_ERROR;
	learned_bounds(cur, rec, include_idle, learned);
	return 0;
}
