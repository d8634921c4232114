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
 *
 * With -o FILE, the sysctl.conf lines go to FILE, under --root, after a
 * comment that says what wrote them, when and from what, as boot's
 * files: a shell's "> FILE" empties FILE before export has read a bound,
 * and leaves it empty or cut short if export then fails.
 */
#include <stdlib.h>
#include <time.h>

#include "umhcap.h"

static void export_sysctl(FILE *f, const struct umh_state *st, int p)
{
	const char *sep = p == UMH_ALL ? "" : ".";
	const char *name = p == UMH_ALL ? "" : umh_purpose_name(p);
	uint64_t bset = umh_bound_given(st->b[p].bset);
	uint64_t inh = umh_bound_given(st->b[p].inh);

	if (!umh_is_root(&st->id[p])) {
		fprintf(f, "kernel.usermodehelper.%s.gid = %u\n", name,
			st->id[p].gid);
		fprintf(f, "kernel.usermodehelper.%s.uid = %u\n", name,
			st->id[p].uid);
	}
	if (umh_bound_open(&st->b[p]))
		return;
	fprintf(f, "kernel.usermodehelper%s%s.bset = %u\t%u\n", sep, name,
		(uint32_t)bset, (uint32_t)(bset >> 32));
	fprintf(f, "kernel.usermodehelper%s%s.inheritable = %u\t%u\n", sep,
		name, (uint32_t)inh, (uint32_t)(inh >> 32));
}

static void export_sysctl_all(FILE *f, const struct umh_state *st)
{
	const struct umh_purpose_info *u;

	if (umh_all_open(st))
		fprintf(f, "# every usermode helper bound is open (every capability the kernel\n"
			"# knows), as at boot: no bound to narrow\n");
	umh_for_each(u)
		if (umh_exported(st, u->id))
			export_sysctl(f, st, u->id);
}

/*
 * -o FILE: the sysctl.conf lines after a comment that says what wrote
 * them, when and from what, written whole or not at all (umh_replace()).
 */
static int export_to_file(const struct umh_args *a, const struct umh_state *st,
			  const char *from)
{
	char *path = umh_xasprintf("%s%s", a->root, a->output);
	char *now = umh_time_iso(time(NULL)), *text = NULL, *under;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret = UMH_EXIT_OK;

	if (!f)
		umh_oom();
	fprintf(f, "# Written by umhcap export at %s; umhcap rewrites this file\n"
		"# whole: change the bounds with umhcap, not here.  The capability\n"
		"# bounds of usermode helpers %s:\n", now, from);
	export_sysctl_all(f, st);
	if (fclose(f))
		umh_oom();
	under = umh_under_root();
	if (a->dry_run)
		printf("%s-n, nothing written: would write the above to %s%s\n",
		       text, a->output, under);
	else if (umh_replace(path, text, len, 0644, -1, -1))
		ret = UMH_EXIT_ERROR;
	else
		printf("wrote %s%s: the bounds %s\n", a->output, under, from);
	free(under);
	free(text);
	free(now);
	free(path);
	return ret;
}

int cmd_export(const struct umh_args *a)
{
	struct umh_merge m = {
		.state_dir = a->state_dir, .this_boot = a->this_boot,
	};
	struct umh_state st, cur;
	struct umh_record rec;
	char *from;
	const char *why;
	int ret;

	if (a->sysctl == a->cmdline)
		return umh_usage_error(a->cmd, "give exactly one of --sysctl and --cmdline");
	if (a->include_idle && !a->learned)
		return umh_usage_error(a->cmd, "--include-idle goes with --learned");
	if ((a->state_dir || a->this_boot || a->allowed) && !a->learned)
		return umh_usage_error(a->cmd, "--state-dir, --this-boot and --allow go with --learned");
	if (a->output && !a->sysctl)
		return umh_usage_error(a->cmd, "-o goes with --sysctl: for the command line, umhcap boot writes where the boot loader reads");
	if (a->dry_run && !a->output)
		return umh_usage_error(a->cmd, "-n goes with -o: without it, export writes nothing");
	if (a->learned) {
		ret = umh_learned(a->root, a->include_idle, &m,
				  a->allowed ? a->allow : NULL, true, &cur,
				  &st, &rec);
		if (ret)
			return ret;
	} else if (umh_load(a->root, &st)) {
		return UMH_EXIT_ERROR;
	}
	if (a->output) {
		if (a->learned) {
			char *d = umh_merge_describe(a->root, &m);

			from = umh_xasprintf("learned from %s", d);
			free(d);
		} else {
			char *now = umh_time_iso(time(NULL));

			from = umh_xasprintf("as they were at %s", now);
			free(now);
		}
		ret = export_to_file(a, &st, from);
		free(from);
		return ret;
	}
	if (a->sysctl) {
		export_sysctl_all(stdout, &st);
		return UMH_EXIT_OK;
	}
	why = umh_cmdline_no_bounds(&st);
	if (why)
		umh_note("%s", why);
	if (umh_cmdline_print(stdout, &st))
		putchar('\n');
	return UMH_EXIT_OK;
}
