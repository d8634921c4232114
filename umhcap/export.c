// SPDX-License-Identifier: GPL-2.0
/*
 * export: print the bounds, as they are or as learn --apply would leave
 * them (with the saved boots merged), and the identities of the purposes
 * that do not run as root, for /etc/sysctl.d or for the kernel command
 * line (cmdline.c).  A purpose's gid and uid come before its bounds, the
 * gid first, as user writes them.
 *
 * A purpose whose bounds are both open, every capability the kernel
 * knows, as at boot, is left out: there is nothing to narrow.  A bound
 * that is open beside one that is not is given as every bit of the 64,
 * which the kernel takes (two words of 4294967295; 16 hex digits on the
 * command line), so that it keeps a capability a newer kernel adds.
 * bounds.c says which bounds are open and what is given for them, for
 * both formats and for boot.
 */
#include "umhcap.h"

static void export_sysctl(const struct umh_state *st, int p)
{
	const char *sep = p == UMH_ALL ? "" : ".";
	const char *name = p == UMH_ALL ? "" : umh_purpose_name(p);
	uint64_t bset = umh_bound_given(st->b[p].bset);
	uint64_t inh = umh_bound_given(st->b[p].inh);

	if (!umh_is_root(&st->id[p])) {
		printf("kernel.usermodehelper.%s.gid = %u\n", name,
		       st->id[p].gid);
		printf("kernel.usermodehelper.%s.uid = %u\n", name,
		       st->id[p].uid);
	}
	if (umh_bound_open(&st->b[p]))
		return;
	printf("kernel.usermodehelper%s%s.bset = %u\t%u\n", sep, name,
	       (uint32_t)bset, (uint32_t)(bset >> 32));
	printf("kernel.usermodehelper%s%s.inheritable = %u\t%u\n", sep, name,
	       (uint32_t)inh, (uint32_t)(inh >> 32));
}

int cmd_export(const struct umh_args *a)
{
	const struct umh_purpose_info *u;
	struct umh_merge m = {
		.state_dir = a->state_dir, .this_boot = a->this_boot,
	};
	struct umh_state st, cur;
	struct umh_record rec;
	const char *why;
	int ret;

	if (a->sysctl == a->cmdline)
		return umh_usage_error(a->cmd, "give exactly one of --sysctl and --cmdline");
	if (a->include_idle && !a->learned)
		return umh_usage_error(a->cmd, "--include-idle goes with --learned");
	if ((a->state_dir || a->this_boot) && !a->learned)
		return umh_usage_error(a->cmd, "--state-dir and --this-boot go with --learned");
	if (a->learned) {
		ret = umh_learned(a->root, a->include_idle, &m, &cur, &st,
				  &rec);
		if (ret)
			return ret;
	} else if (umh_load(a->root, &st)) {
		return UMH_EXIT_ERROR;
	}
	if (a->sysctl) {
		if (umh_all_open(&st))
			printf("# every usermode helper bound is open (every capability the kernel\n"
			       "# knows), as at boot: no bound to narrow\n");
		umh_for_each(u)
			if (umh_exported(&st, u->id))
				export_sysctl(&st, u->id);
		return UMH_EXIT_OK;
	}
	why = umh_cmdline_no_bounds(&st);
	if (why)
		umh_note("%s", why);
	if (umh_cmdline_print(stdout, &st))
		putchar('\n');
	return UMH_EXIT_OK;
}
