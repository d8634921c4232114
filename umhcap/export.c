// SPDX-License-Identifier: GPL-2.0
/*
 * export: print the bounds, as they are or as learn --apply would leave
 * them (with the saved boots merged), and the identities of the purposes
 * that do not run as root, for /etc/sysctl.d or for the kernel command
 * line (cmdline.c).  A purpose's gid and uid come before its bounds, the
 * gid first, as user writes them.
 */
#include <inttypes.h>

#include "umhcap.h"

static void export_sysctl(const struct umh_state *st, int p)
{
	const char *sep = p == UMH_ALL ? "" : ".";
	const char *name = p == UMH_ALL ? "" : umh_purpose_name(p);

	if (!umh_is_root(&st->id[p])) {
		printf("kernel.usermodehelper.%s.gid = %u\n", name,
		       st->id[p].gid);
		printf("kernel.usermodehelper.%s.uid = %u\n", name,
		       st->id[p].uid);
	}
	printf("kernel.usermodehelper%s%s.bset = %u\t%u\n", sep, name,
	       (uint32_t)st->b[p].bset, (uint32_t)(st->b[p].bset >> 32));
	printf("kernel.usermodehelper%s%s.inheritable = %u\t%u\n", sep, name,
	       (uint32_t)st->b[p].inh, (uint32_t)(st->b[p].inh >> 32));
}

int cmd_export(const struct umh_args *a)
{
	const struct umh_purpose_info *u;
	struct umh_merge m = {
		.state_dir = a->state_dir, .this_boot = a->this_boot,
	};
	struct umh_state st, cur;
	struct umh_record rec;
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
		umh_for_each(u)
			if (u->id == UMH_ALL || st.per_purpose)
				export_sysctl(&st, u->id);
		return UMH_EXIT_OK;
	}
	umh_cmdline_print(stdout, &st);
	putchar('\n');
	return UMH_EXIT_OK;
}
