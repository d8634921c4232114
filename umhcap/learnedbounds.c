// SPDX-License-Identifier: GPL-2.0
/*
 * The bounds the kernel's record leads to, which learn --apply writes,
 * export --learned prints and boot hands to the boot loader: each
 * purpose whose helpers ran narrowed to what they used, in this boot and
 * in the boots umhcap save kept (savedboots.c).
 *
 * A purpose whose helpers never ran has an empty record, which says
 * nothing about what they need: it is left alone unless include_idle.
 *
 * What the kernel refused a helper is never added: a compromised helper
 * chooses what it asks for, and so what it is refused.  Only what the
 * administrator names with --allow is.
 */
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

bool umh_idle(const struct umh_record *rec, int purpose)
{
	return rec->started[purpose] == 0;
}

/*
 * @cur, each purpose that ran (or every one) narrowed to what it used,
 * then with what @allow names for it, if not NULL: beyond @cur with
 * @widen, for a next boot; within it without, for this one, whose
 * bounds only narrow.
 */
static void learned_bounds(const struct umh_state *cur,
			   const struct umh_record *rec, bool include_idle,
			   const uint64_t *allow, bool widen,
			   struct umh_state *out)
{
	const struct umh_purpose_info *u;
	const struct umh_bound *b;
	int p;

	*out = *cur;
	umh_for_each_purpose(u) {
		p = u->id;
		b = &cur->b[p];
		if (!umh_idle(rec, p) || include_idle) {
			out->b[p].bset &= rec->used[p];
			out->b[p].inh &= rec->used[p];
		}
		if (allow) {
			out->b[p].bset |= allow[p] & (widen ? ~0ULL : b->bset);
			out->b[p].inh |= allow[p] & (widen ? ~0ULL : b->inh);
		}
	}
}

/*
 * An --allow item for a purpose left alone, idle without @include_idle:
 * it would add nothing, so it is an error rather than dropped.  Returns
 * 0, or -1 after saying which.
 */
static int allow_idle(const struct umh_record *rec, bool include_idle,
		      const struct umh_merge *m, const uint64_t *allow)
{
	const struct umh_purpose_info *u;
	char *caps, since[64] = "since boot";

	if (include_idle)
		return 0;
	if (m && m->saved)
		snprintf(since, sizeof(since), "in %d boots", m->saved + !m->nfrom);
	umh_for_each_purpose(u) {
		if (!allow[u->id] || !umh_idle(rec, u->id))
			continue;
		caps = caps_list(allow[u->id]);
		umh_err("--allow %s:%s: no helper of %s started %s, so %s is left alone and would not get it; add --include-idle to narrow %s to what it used, and give it this too",
			u->name, caps, u->name, since, u->name, u->name);
		free(caps);
		return -1;
	}
	return 0;
}

/*
 * A fleet's (--from): nothing of this machine is read.  The bounds are
 * those of a boot with none set, every one open and every helper root;
 * the record is the fleet's saved boots, merged (fleet.c).
 */
static int fleet(bool include_idle, struct umh_merge *m, const uint64_t *allow,
		 bool widen, struct umh_state *cur, struct umh_state *learned,
		 struct umh_record *rec)
{
	const struct umh_purpose_info *u;

	memset(cur, 0, sizeof(*cur));
	memset(rec, 0, sizeof(*rec));
	cur->per_purpose = true;
	umh_for_each(u)
		cur->b[u->id] = (struct umh_bound){ ~0ULL, ~0ULL };
	if (umh_fleet_merge(m, rec))
		return UMH_EXIT_ERROR;
	if (allow && allow_idle(rec, include_idle, m, allow))
		return UMH_EXIT_ERROR;
	learned_bounds(cur, rec, include_idle, allow, widen, learned);
	return 0;
}

/*
 * Load the bounds into @cur and the record into @rec, merge into it the
 * saved boots @m names (none if @m is NULL), and compute the learned
 * bounds into @learned, with the capabilities @allow names per purpose
 * (NULL: none), beyond the current bounds with @widen; the global bound
 * stays as it is.  Returns 0 or
 * an exit code; prints its own errors, and says so when the kernel keeps
 * no record.
 */
int umh_learned(const char *root, bool include_idle, struct umh_merge *m,
		const uint64_t *allow, bool widen,
		struct umh_state *cur, struct umh_state *learned,
		struct umh_record *rec)
{
	int ret;

	if (m && m->this_boot && (m->since != UMH_NO_TIME || m->last)) {
		umh_err("--since and --last choose among the saved boots, which --this-boot leaves out: give one or the other");
		return UMH_EXIT_ERROR;
	}
	if (m && m->nfrom)
		return fleet(include_idle, m, allow, widen, cur, learned, rec);
	if (umh_load(root, cur))
		return UMH_EXIT_ERROR;
	ret = umh_record_load(root, rec);
	if (ret > 0)
		umh_no_record(rec);
	if (ret || (m && umh_saved_merge(root, m, rec)))
		return UMH_EXIT_ERROR;
	if (allow && allow_idle(rec, include_idle, m, allow))
		return UMH_EXIT_ERROR;
	learned_bounds(cur, rec, include_idle, allow, widen, learned);
	return 0;
}
