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
 * With --json, both formats' text, and each purpose's bounds and ids.
 *
 * With -o FILE, the sysctl.conf lines go to FILE, under --root, after a
 * comment that says what wrote them, when and from what, as boot's
 * files: a shell's "> FILE" empties FILE before export has read a bound,
 * and leaves it empty or cut short if export then fails.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
	char *path = umh_root_path(a->root, a->output), *link = NULL;
	char *now, *text = NULL, *under;
	unsigned int mode = 0644;
	long uid = -1, gid = -1;
	size_t len = 0;
	struct stat fst;
	FILE *f;
	int ret = UMH_EXIT_OK;

	if (!path) {
		umh_err("cannot write %s: %s", a->output, strerror(errno));
		return UMH_EXIT_ERROR;
	}
	/*
	 * FILE's text is replaced, nothing else: a link stays one, and the
	 * file it names keeps its mode, owner and group.
	 */
	if (strcmp(path + strlen(a->root), a->output))
		link = umh_xasprintf(" (a link to %s)", path + strlen(a->root));
	if (!stat(path, &fst) && S_ISREG(fst.st_mode)) {
		mode = fst.st_mode & 07777;
		if (fst.st_uid != geteuid())
			uid = fst.st_uid;
		if (fst.st_gid != getegid())
			gid = fst.st_gid;
	}
	now = umh_time_iso(time(NULL));
	f = open_memstream(&text, &len);
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
		printf("%s-n, nothing written: would write the above to %s%s%s\n",
		       text, a->output, under, link ?: "");
	else if (umh_replace(path, text, len, mode, uid, gid))
		ret = UMH_EXIT_ERROR;
	else
		printf("wrote %s%s%s: the bounds %s\n", a->output, under,
		       link ?: "", from);
	free(link);
	free(under);
	free(text);
	free(now);
	free(path);
	return ret;
}

/* The text @print writes for @st, as one string; the caller frees it. */
static char *export_text(const struct umh_state *st,
			 void (*print)(FILE *f, const struct umh_state *st))
{
	char *text;
	size_t len;
	FILE *f = umh_xmemstream(&text, &len);

	print(f, st);
	umh_xmemclose(f);
	return text;
}

static void export_cmdline(FILE *f, const struct umh_state *st)
{
	if (umh_cmdline_print(f, st))
		putc('\n', f);
}

/*
 * --json: each purpose the formats give, as they leave out one whose
 * bounds are open and whose helpers run as root: its bounds as given and
 * its identity (null on a kernel without them), then the text of both
 * formats, the note the command line format would print, or null, and
 * with --learned the saved boots learned from.
 */
static void export_json(const struct umh_state *st,
			const struct umh_merge *learned, const bool sel[UMH_NR])
{
	const struct umh_purpose_info *u;
	const char *why = umh_cmdline_no_bounds(st), *sep = "";
	char *text;

	umh_print_json_begin();
	printf(",\"learned\":%s,\"purposes\":[",
	       learned ? "true" : "false");
	umh_for_each(u) {
		if (!umh_exported(st, u->id) ||
		    (umh_bound_open(&st->b[u->id]) && umh_is_root(&st->id[u->id])))
			continue;
		printf("%s\n  {\"purpose\":", sep);
		umh_print_json_string(u->name);
		printf(",\"open\":%s", umh_bound_open(&st->b[u->id]) ?
		       "true" : "false");
		umh_print_json_mask("bset", umh_bound_given(st->b[u->id].bset));
		umh_print_json_mask("inheritable",
				    umh_bound_given(st->b[u->id].inh));
		if (st->idents)
			umh_print_json_ident("identity", &st->id[u->id]);
		else
			fputs(",\"identity\":null", stdout);
		putchar('}');
		sep = ",";
	}
	fputs("\n],\"sysctl\":", stdout);
	text = export_text(st, export_sysctl_all);
	umh_print_json_string(text);
	free(text);
	fputs(",\"cmdline\":", stdout);
	text = export_text(st, export_cmdline);
	umh_print_json_string(text);
	free(text);
	umh_print_json_field("note", why);
	if (learned)
		umh_print_json_learned_from(learned);
	if (learned && learned->fleet)
		umh_print_json_fleet(learned->fleet, sel);
	printf("}\n");
}

/*
 * With --from, on stderr: the fleet learned from, and how many of its
 * records disagree, which learn --from names.
 */
static void fleet_note(const struct umh_args *a, const struct umh_merge *m)
{
	const struct umh_purpose_info *u;
	const char *k[64];
	char *from = umh_merge_describe(a->root, m);
	size_t i;
	int n = 0;

	umh_for_each_purpose(u)
		for (i = 0; i < m->fleet->n; i++)
			n += !!umh_fleet_lacks(m->fleet, i, u->id);
	n += umh_fleet_kernels(m->fleet, k, ARRAY_SIZE(k)) > 1;
	umh_note("learned from %s; %d disagreement%s among their records%s",
		 from, n, n == 1 ? "" : "s",
		 n ? " (umhcap learn --from names them)" : "");
	free(from);
}

static int export(const struct umh_args *a, struct umh_merge *m)
{
	/* export gives every purpose. */
	static const bool every[UMH_NR] = { [0 ... UMH_NR - 1] = true };
	struct umh_state st, cur;
	struct umh_record rec;
	char *from;
	const char *why;
	int ret;

	if (a->json && (a->sysctl || a->cmdline || a->output))
		return umh_usage_error(a->cmd, "--json prints both formats: give it without --sysctl, --cmdline and -o");
	if (!a->json && a->sysctl == a->cmdline)
		return umh_usage_error(a->cmd, "give exactly one of --sysctl and --cmdline");
	if (a->include_idle && !a->learned)
		return umh_usage_error(a->cmd, "--include-idle goes with --learned");
	if ((a->state_dir || a->this_boot || a->allowed || a->nfrom ||
	     a->since != UMH_NO_TIME || a->last) && !a->learned)
		return umh_usage_error(a->cmd, "--state-dir, --this-boot, --since, --last, --from and --allow go with --learned");
	if (a->nfrom && (a->state_dir || a->this_boot))
		return umh_usage_error(a->cmd, "--from learns from the machines' saved boots, not this machine's: it takes no --state-dir or --this-boot");
	if (a->output && !a->sysctl)
		return umh_usage_error(a->cmd, "-o goes with --sysctl: for the command line, umhcap boot writes where the boot loader reads");
	if (a->dry_run && !a->output)
		return umh_usage_error(a->cmd, "-n goes with -o: without it, export writes nothing");
	if (a->learned) {
		ret = umh_learned(a->root, a->include_idle, m,
				  a->allowed ? a->allow : NULL, true, &cur,
				  &st, &rec);
		if (ret)
			return ret;
	} else if (umh_load(a->root, &st)) {
		return UMH_EXIT_ERROR;
	}
	if (m->fleet && !a->json)
		fleet_note(a, m);
	if (a->output) {
		if (a->learned) {
			char *d = umh_merge_describe(a->root, m);

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
	if (a->json) {
		export_json(&st, a->learned ? m : NULL, every);
		return UMH_EXIT_OK;
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

int cmd_export(const struct umh_args *a)
{
	struct umh_merge m = {
		.state_dir = a->state_dir, .this_boot = a->this_boot,
		.since = a->since, .last = a->last,
		.from = a->from, .nfrom = a->nfrom,
	};
	int ret = export(a, &m);

	umh_fleet_free(m.fleet);
	return ret;
}
