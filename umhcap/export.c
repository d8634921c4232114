// SPDX-License-Identifier: GPL-2.0
/*
 * export: print the bounds, as they are or as learn --apply would leave
 * them, and the identities of the purposes that do not run as root, for
 * /etc/sysctl.d or for the kernel command line.  A purpose's gid and uid
 * come before its bounds, the gid first, as user writes them.
 *
 * A purpose whose bounds are both open, every capability the kernel
 * knows, as at boot, is left out: there is nothing to narrow.  A bound
 * that is open beside one that is not is given as every bit of the 64,
 * which the kernel takes (two words of 4294967295; 16 hex digits on the
 * command line), so that it keeps a capability a newer kernel adds.
 */
#include <inttypes.h>

#include "umhcap.h"

/* Both bounds of @b hold every capability the kernel knows. */
static bool is_open(const struct umh_bound *b)
{
	uint64_t full = caps_full();

	return (b->bset & full) == full && (b->inh & full) == full;
}

/* What to give for @mask: every bit, where it holds every capability. */
static uint64_t bound_value(uint64_t mask)
{
	return (mask & caps_full()) == caps_full() ? ~0ULL : mask;
}

/* Does export give @p?  The global bound, and the purposes where there are. */
static bool exported(const struct umh_state *st, int p)
{
	return p == UMH_ALL || st->per_purpose;
}

/* Is every bound that export gives open? */
static bool all_open(const struct umh_state *st)
{
	const struct umh_purpose_info *u;

	umh_for_each(u)
		if (exported(st, u->id) && !is_open(&st->b[u->id]))
			return false;
	return true;
}

static void export_sysctl(const struct umh_state *st, int p)
{
	const char *sep = p == UMH_ALL ? "" : ".";
	const char *name = p == UMH_ALL ? "" : umh_purpose_name(p);
	uint64_t bset = bound_value(st->b[p].bset);
	uint64_t inh = bound_value(st->b[p].inh);

	if (!umh_is_root(&st->id[p])) {
		printf("kernel.usermodehelper.%s.gid = %u\n", name,
		       st->id[p].gid);
		printf("kernel.usermodehelper.%s.uid = %u\n", name,
		       st->id[p].uid);
	}
	if (is_open(&st->b[p]))
		return;
	printf("kernel.usermodehelper%s%s.bset = %u\t%u\n", sep, name,
	       (uint32_t)bset, (uint32_t)(bset >> 32));
	printf("kernel.usermodehelper%s%s.inheritable = %u\t%u\n", sep, name,
	       (uint32_t)inh, (uint32_t)(inh >> 32));
}

/*
 * Before an item of parameter @param: the parameter, after *@sep, if
 * this is its first item (*@first), else a comma.  *@sep becomes " "
 * once something is printed.
 */
static void cmdline_item(const char *param, bool *first, const char **sep)
{
	if (*first)
		printf("%s%s=", *sep, param);
	else
		putchar(',');
	*first = false;
	*sep = " ";
}

/* usermodehelper.gid= (uid=), unless every purpose is root. */
static void export_cmdline_ids(const struct umh_state *st, bool gid,
			       const char **sep)
{
	const struct umh_purpose_info *u;
	const struct umh_ident *id;
	bool first = true;

	umh_for_each_purpose(u) {
		id = &st->id[u->id];
		if (umh_is_root(id))
			continue;
		cmdline_item(gid ? "usermodehelper.gid" : "usermodehelper.uid",
			     &first, sep);
		printf("%s:%u", u->name, gid ? id->gid : id->uid);
	}
}

/* usermodehelper.bset= (inheritable=), unless every bound is open. */
static void export_cmdline(const struct umh_state *st, bool inh,
			   const char **sep)
{
	const struct umh_purpose_info *u;
	bool first = true;

	umh_for_each(u) {
		if (!exported(st, u->id) || is_open(&st->b[u->id]))
			continue;
		cmdline_item(inh ? "usermodehelper.inheritable" :
				   "usermodehelper.bset", &first, sep);
		printf("%s:0x%" PRIx64, u->name,
		       bound_value(inh ? st->b[u->id].inh :
					 st->b[u->id].bset));
	}
}

int cmd_export(const struct umh_args *a)
{
	const struct umh_purpose_info *u;
	struct umh_state st, cur;
	struct umh_record rec;
	const char *sep = "";
	int ret;

	if (a->sysctl == a->cmdline)
		return umh_usage_error(a->cmd, "give exactly one of --sysctl and --cmdline");
	if (a->include_idle && !a->learned)
		return umh_usage_error(a->cmd, "--include-idle goes with --learned");
	if (a->learned) {
		ret = umh_learned(a->root, a->include_idle, &cur, &st, &rec);
		if (ret)
			return ret;
	} else if (umh_load(a->root, &st)) {
		return UMH_EXIT_ERROR;
	}
	if (a->sysctl) {
		if (all_open(&st))
			printf("# every usermode helper bound is open (every capability the kernel\n"
			       "# knows), as at boot: no bound to narrow\n");
		umh_for_each(u)
			if (exported(&st, u->id))
				export_sysctl(&st, u->id);
		return UMH_EXIT_OK;
	}
	if (all_open(&st))
		umh_note("every usermode helper bound is open (every capability the kernel knows), as at boot: no usermodehelper.bset= or usermodehelper.inheritable= to give");
	export_cmdline_ids(&st, true, &sep);
	export_cmdline_ids(&st, false, &sep);
	export_cmdline(&st, false, &sep);
	export_cmdline(&st, true, &sep);
	if (*sep)
		putchar('\n');
	return UMH_EXIT_OK;
}
