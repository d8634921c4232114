// SPDX-License-Identifier: GPL-2.0
/*
 * learn: what usermode helpers used since boot, from the kernel's record
 * (<purpose>/used and <purpose>/started) and the boots umhcap save kept,
 * next to what their bounds allow, and who they run as when it is not
 * root; with --apply, narrow each purpose that ran to what it used
 * (learnedbounds.c), an idle one only with --include-idle.
 */
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

/*
 * When the record is of: "since boot", or, with saved boots merged, "in
 * N boots".
 */
static const char *since(const struct umh_merge *m)
{
	static char buf[64];

	if (m->nfrom)
		snprintf(buf, sizeof(buf), "in %d boot%s", m->saved,
			 m->saved == 1 ? "" : "s");
	else if (!m->saved)
		return "since boot";
	else
		snprintf(buf, sizeof(buf), "in %d boots", m->saved + 1);
	return buf;
}

/* ---- the report ---- */

/* What the bounds refused @p's helpers: a line each, or JSON objects. */
static void text_refused(const struct umh_refusals *rs, const char *boot,
			 int p)
{
	const struct umh_refusal *r;
	char *cap;
	size_t i;

	for (i = 0; i < rs->n; i++) {
		r = &rs->r[i];
		if (r->purpose != p)
			continue;
		cap = caps_list(1ULL << r->cap);
		printf("  %-13s%s to %s (%lu, %s%s)\n", "refused:", cap,
		       *r->exe ? r->exe : "(none)", r->count,
		       strcmp(r->boot, boot) ? "boot " : "this boot",
		       strcmp(r->boot, boot) ? r->boot : "");
		free(cap);
	}
}

static void json_refused(const struct umh_refusals *rs, int p)
{
	const char *sep = "";
	size_t i;

	fputs(",\"refused\":[", stdout);
	for (i = 0; i < rs->n; i++) {
		if (rs->r[i].purpose != p)
			continue;
		fputs(sep, stdout);
		umh_print_json_refusal(&rs->r[i]);
		sep = ",";
	}
	putchar(']');
}

static void text_purpose(const struct umh_args *a, const struct umh_state *st,
			 const struct umh_record *rec,
			 const struct umh_merge *m,
			 const struct umh_refusals *rs, const char *boot, int p)
{
	unsigned long long n = rec->started[p];
	uint64_t allowed = umh_ceiling(st, p), used = rec->used[p];

	if (p == UMH_ALL)
		printf("%s (every helper): ", umh_purpose_name(p));
	else
		printf("%s: ", umh_purpose_name(p));
	if (n)
		printf("%llu helper%s started %s\n", n, n == 1 ? "" : "s",
		       since(m));
	else if (p == UMH_ALL)
		printf("no helper started %s\n", since(m));
	else if (a->include_idle)
		printf("no helper started %s (idle; --include-idle narrows it to what it used)\n",
		       since(m));
	else
		printf("no helper started %s (idle: --apply leaves it alone)\n",
		       since(m));
	if (!umh_is_root(&st->id[p]))
		umh_print_ident("runs as:", &st->id[p]);
	umh_print_line(a->hex, "used:", used);
	if (p == UMH_ALL)
		return;
	umh_print_line(a->hex, "allowed:", allowed);
	umh_print_line(a->hex, "never used:", allowed & ~used);
	if (used & ~allowed)
		umh_print_line(a->hex, "now refused:", used & ~allowed);
	text_refused(rs, boot, p);
}

static void json_purpose(const struct umh_state *st,
			 const struct umh_state *learned,
			 const struct umh_record *rec,
			 const struct umh_refusals *rs, int p, bool first)
{
	uint64_t allowed = umh_ceiling(st, p), used = rec->used[p];

	printf("%s\n    {\"purpose\":\"%s\"", first ? "" : ",",
	       umh_purpose_name(p));
	umh_print_json_record(rec, p);
	printf(",\"idle\":%s", umh_idle(rec, p) ? "true" : "false");
	umh_print_json_mask("allowed", allowed);
	umh_print_json_mask("never_used", allowed & ~used);
	umh_print_json_mask("now_refused", used & ~allowed);
	umh_print_json_mask("learned_bset", learned->b[p].bset);
	umh_print_json_mask("learned_inheritable", learned->b[p].inh);
	json_refused(rs, p);
	putchar('}');
}

/* The start of learn's JSON: the record, and each selected purpose. */
static void json_purposes(const struct umh_args *a, const struct umh_state *st,
			  const struct umh_state *learned,
			  const struct umh_record *rec,
			  const struct umh_refusals *rs)
{
	const struct umh_purpose_info *u;
	bool first = true;

	umh_print_json_begin();
	printf(",\"cap_bits\":%d", caps_nbits());
	umh_print_json_record(rec, UMH_ALL);
	printf(",\"purposes\":[");
	umh_for_each_purpose(u) {
		if (!a->sel[u->id])
			continue;
		json_purpose(st, learned, rec, rs, u->id, first);
		first = false;
	}
	printf("\n  ]");
}

/* ---- a fleet's report (--from) ---- */

/* "6.12.110, 6.12.118-umhcap": the kernels @mc ran; the caller frees it. */
static char *machine_kernels(const struct umh_machine *mc)
{
	const char *k[64];
	size_t i, n, size;
	char *s;
	FILE *f;
	struct umh_fleet one = { .m = (struct umh_machine *)mc, .n = 1 };

	n = umh_fleet_kernels(&one, k, ARRAY_SIZE(k));
	f = umh_xmemstream(&s, &size);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", *k[i] ? k[i] : "(not saved)");
	if (!n)
		fputs("-", f);
	umh_xmemclose(f);
	return s;
}

/* Where the machines' records disagree: a line each, or one that none does. */
static void fleet_disagree(const struct umh_args *a, const struct umh_fleet *f)
{
	const struct umh_purpose_info *u;
	const char *kernels[64], *sep;
	size_t i, k, nk;
	uint64_t lacks;
	char *names;
	bool any = false;

	umh_for_each_purpose(u) {
		for (i = 0; a->sel[u->id] && i < f->n; i++) {
			lacks = umh_fleet_lacks(f, i, u->id);
			if (!lacks)
				continue;
			if (!any)
				printf("\nmachines whose record disagrees:\n");
			any = true;
			names = caps_list(lacks);
			printf("  %s: %s never used %s, which ", u->name,
			       f->m[i].name, names);
			free(names);
			for (sep = "", k = 0; k < f->n; k++) {
				if (!(f->m[k].rec.used[u->id] & lacks))
					continue;
				printf("%s%s", sep, f->m[k].name);
				sep = ", ";
			}
			printf(" used\n");
		}
	}
	nk = umh_fleet_kernels(f, kernels, ARRAY_SIZE(kernels));
	if (nk > 1) {
		if (!any)
			printf("\nmachines whose record disagrees:\n");
		any = true;
		printf("  kernels differ:");
		for (k = 0; k < nk; k++) {
			printf("%s %s on", k ? ";" : "",
			       *kernels[k] ? kernels[k] : "(not saved)");
			for (sep = " ", i = 0; i < f->n; i++) {
				if (!umh_machine_ran(&f->m[i], kernels[k]))
					continue;
				printf("%s%s", sep, f->m[i].name);
				sep = ", ";
			}
		}
		putchar('\n');
	}
	if (!any)
		printf("\nno machine's record disagrees with another's: where a purpose ran, it\n"
		       "used the same on each, and every boot ran the same kernel\n");
}

static void fleet_report(const struct umh_args *a, const struct umh_state *st,
			 const struct umh_state *learned,
			 const struct umh_record *rec,
			 const struct umh_merge *m)
{
	const struct umh_fleet *f = m->fleet;
	const struct umh_purpose_info *u;
	struct umh_refusals none = { 0 };
	unsigned long long n;
	char *from, *k;
	size_t i, w = strlen("MACHINE");

	if (a->json) {
		json_purposes(a, st, learned, rec, &none);
		umh_print_json_learned_from(m);
		umh_print_json_fleet(f, a->sel);
		printf("\n}\n");
		return;
	}
	for (i = 0; i < f->n; i++)
		if (strlen(f->m[i].name) > w)
			w = strlen(f->m[i].name);
	from = umh_merge_describe(a->root, m);
	printf("learned from %s\n\n%-*s  %5s  %s\n", from, (int)w, "MACHINE",
	       "BOOTS", "KERNEL");
	free(from);
	for (i = 0; i < f->n; i++) {
		k = machine_kernels(&f->m[i]);
		printf("%-*s  %5zu  %s\n", (int)w, f->m[i].name, f->m[i].set.n,
		       k);
		free(k);
	}
	putchar('\n');
	umh_for_each(u) {
		if (!a->sel[u->id])
			continue;
		n = rec->started[u->id];
		printf("%s%s: ", u->name, u->id == UMH_ALL ? " (every helper)" : "");
		if (!n) {
			printf("no helper started in %d boot%s%s\n", m->saved,
			       m->saved == 1 ? "" : "s", u->id == UMH_ALL ? "" :
			       a->include_idle ? " (idle; --include-idle narrows it to nothing)" :
			       " (idle: left open)");
			continue;
		}
		printf("%llu helper%s started", n, n == 1 ? "" : "s");
		if (u->id == UMH_ALL)
			printf(" in %d boot%s\n", m->saved, m->saved == 1 ? "" : "s");
		else
			printf(", learned from %d of %d boot%s on %d of %zu machine%s\n",
			       f->boots[u->id], m->saved, m->saved == 1 ? "" : "s",
			       f->machines[u->id], f->n, f->n == 1 ? "" : "s");
		umh_print_line(a->hex, "used:", rec->used[u->id]);
		if (u->id != UMH_ALL)
			umh_print_line(a->hex, "learned:", learned->b[u->id].bset);
	}
	fleet_disagree(a, f);
	printf("\nused: what a purpose's helpers, and every process they started, were\n"
	       "granted on any machine; learned: the bound umhcap export --learned --from\n"
	       "gives the machines. Nothing of this machine is read.\n");
}

static void report(const struct umh_args *a, const struct umh_state *st,
		   const struct umh_state *learned,
		   const struct umh_record *rec, const struct umh_merge *m)
{
	const struct umh_purpose_info *u;
	struct umh_refusals rs;
	char *from;

	char boot[UMH_BOOT_ID_LEN + 1] = "";

	/* Without a journal or /dev/kmsg, none is shown: learn still is. */
	if (umh_boot_id(a->root, boot))
		boot[0] = '\0';
	if (umh_refusals_read(a->root, boot, true, a->since, &rs))
		umh_refusals_free(&rs);

	if (a->json) {
		json_purposes(a, st, learned, rec, &rs);
		umh_print_json_idents(st, a->sel);
		umh_print_json_learned_from(m);
		printf("\n}\n");
		umh_refusals_free(&rs);
		return;
	}
	from = umh_merge_describe(a->root, m);
	printf("learned from %s\n\n", from);
	free(from);
	umh_for_each(u)
		if (a->sel[u->id])
			text_purpose(a, st, rec, m, &rs, boot, u->id);
	printf("\nused: what the purpose's helpers, and every process they started, were\n"
	       "granted %s. allowed: all.bset & <purpose>.bset, the most a helper\n"
	       "gets. 'umhcap learn --apply' narrows the bset and inheritable bound of each\n"
	       "purpose whose helpers ran to what they used; idle purposes are left alone\n"
	       "unless --include-idle is given.\n", since(m));
	if (!m->this_boot)
		printf("'umhcap save' keeps this boot's record for the next ones to learn from.\n");
	if (st->idents)
		printf("runs as: the user and group a purpose's helpers run as now, when not\n"
		       "root ('umhcap user').\n");
	if (rs.n)
		printf("refused: what the bounds refused its helpers, and how often ('umhcap\n"
		       "refusals'). Never learned: a compromised helper asks for what it likes.\n"
		       "'umhcap boot --allow PURPOSE:CAP' adds one you name, for the next boot.\n");
	umh_refusals_free(&rs);
}

/* ---- --apply ---- */

enum apply_action { APPLY_NONE, APPLY_NARROWED, APPLY_UNCHANGED, APPLY_IDLE };

static const char *const apply_action_name[] = {
	[APPLY_NARROWED] = "narrowed",
	[APPLY_UNCHANGED] = "unchanged",
	[APPLY_IDLE] = "idle",
};

struct apply_state {
	int narrowed;		/* purposes narrowed (or to be, with -n) */
	int unchanged;		/* already no wider than what they used */
	int idle;		/* left alone */
	bool wrote[UMH_NR];	/* purposes something was written to */
	enum apply_action did[UMH_NR];
};

/* Returns 0, or -1 after an error (printed). */
static int apply_file(const struct umh_args *a, struct apply_state *as,
		      int p, const char *file, uint64_t mask)
{
	char path[PATH_MAX];
	int ret;

	if (umh_path(path, sizeof(path), a->root, p, file))
		return -1;
	/* -n says only what it would write: JSON says that at the end. */
	if (a->json && a->dry_run)
		return 0;
	ret = umh_narrow(path, mask, a->dry_run);
	if (ret != -1 && !a->dry_run)
		as->wrote[p] = true;
	return ret ? -1 : 0;
}

static int apply_purpose(const struct umh_args *a, struct apply_state *as,
			 const struct umh_bound *cur,
			 const struct umh_bound *nb,
			 const struct umh_record *rec,
			 const struct umh_merge *m, int p)
{
	const char *name = umh_purpose_name(p);
	char *names, *under;

	if (umh_idle(rec, p) && !a->include_idle) {
		if (!a->json)
			printf("%s: no helper started %s; left alone (--include-idle narrows it too)\n",
			       name, since(m));
		as->idle++;
		as->did[p] = APPLY_IDLE;
		return 0;
	}
	if (nb->bset == cur->bset && nb->inh == cur->inh) {
		if (!a->json) {
			names = caps_format(rec->used[p]);
			printf("%s: no wider than what its helpers used (%s); unchanged\n",
			       name, names);
			free(names);
		}
		as->unchanged++;
		as->did[p] = APPLY_UNCHANGED;
		return 0;
	}
	if ((nb->bset != cur->bset &&
	     apply_file(a, as, p, "bset", nb->bset)) ||
	    (nb->inh != cur->inh &&
	     apply_file(a, as, p, "inheritable", nb->inh)))
		return -1;
	as->narrowed++;
	as->did[p] = APPLY_NARROWED;
	if (a->dry_run || a->json)
		return 0;
	names = caps_format(nb->bset);
	printf("%s: narrowed to what its helpers used: bset %s", name, names);
	free(names);
	names = caps_format(nb->inh);
	under = umh_under_root();
	printf(", inheritable %s%s\n", names, under);
	free(names);
	free(under);
	return 0;
}

/*
 * --json: {"version":1,"command":"learn --apply","dry_run":..,
 * "learned_from":..,"purposes":[{"purpose":..,"action":..,"used":..,
 * "bset_before":..,"inheritable_before":..,"bset_after":..,
 * "inheritable_after":..}],"narrowed":N,"unchanged":N,"idle":N}, once
 * every bound is written (or, with -n, would be).
 */
static void apply_json(const struct umh_args *a, const struct apply_state *as,
		       const struct umh_state *st,
		       const struct umh_state *learned,
		       const struct umh_record *rec,
		       const struct umh_merge *m)
{
	const struct umh_purpose_info *u;
	const char *sep = "";

	umh_print_json_begin();
	printf(",\"command\":\"learn --apply\",\"dry_run\":%s",
	       a->dry_run ? "true" : "false");
	umh_print_json_learned_from(m);
	printf(",\"purposes\":[");
	umh_for_each_purpose(u) {
		/* What was learned: an idle or unchanged purpose's bounds. */
		const struct umh_bound *after = &learned->b[u->id];

		if (!as->did[u->id])
			continue;
		printf("%s\n  {\"purpose\":\"%s\",\"action\":\"%s\"", sep,
		       u->name, apply_action_name[as->did[u->id]]);
		umh_print_json_mask("used", rec->used[u->id]);
		umh_print_json_mask("bset_before", st->b[u->id].bset);
		umh_print_json_mask("inheritable_before", st->b[u->id].inh);
		umh_print_json_mask("bset_after", after->bset);
		umh_print_json_mask("inheritable_after", after->inh);
		putchar('}');
		sep = ",";
	}
	printf("\n],\"narrowed\":%d,\"unchanged\":%d,\"idle\":%d}\n",
	       as->narrowed, as->unchanged, as->idle);
}

static int apply(const struct umh_args *a, const struct umh_state *st,
		 const struct umh_state *learned,
		 const struct umh_record *rec, const struct umh_merge *m)
{
	const struct umh_purpose_info *u;
	struct apply_state as = { 0 };
	char *from, *under;

	/* Said when it is not this boot alone, as without saved boots. */
	if (!a->json && (m->saved || m->refused || m->superseded)) {
		from = umh_merge_describe(a->root, m);
		printf("learned from %s\n", from);
		free(from);
	}
	umh_for_each_purpose(u)
		if (a->sel[u->id] &&
		    apply_purpose(a, &as, &st->b[u->id], &learned->b[u->id],
				  rec, m, u->id))
			return umh_write_failed("learn --apply", "narrowed",
						as.wrote, u);
	if (a->json) {
		apply_json(a, &as, st, learned, rec, m);
		return UMH_EXIT_OK;
	}
	under = umh_under_root();
	printf("%s%d purpose%s narrowed, %d unchanged, %d idle left alone%s\n",
	       a->dry_run ? "-n, nothing written: " : "", as.narrowed,
	       as.narrowed == 1 ? "" : "s", as.unchanged, as.idle, under);
	free(under);
	return UMH_EXIT_OK;
}

/* ---- the command ---- */

/*
 * An --allow item for a purpose PURPOSE... leaves out: it would add
 * nothing, so it is an error rather than dropped.  Returns 0, or -1
 * after saying which, with nothing written.
 */
static int allow_unnamed(const struct umh_args *a)
{
	const struct umh_purpose_info *u;
	char *caps;

	umh_for_each_purpose(u) {
		if (!a->allow[u->id] || a->sel[u->id])
			continue;
		caps = caps_list(a->allow[u->id]);
		umh_err("--allow %s:%s: %s is not among the purposes named, so it would not get it; name it too: umhcap learn --apply ... %s",
			u->name, caps, u->name, u->name);
		free(caps);
		umh_nothing_written("learn --apply");
		return -1;
	}
	return 0;
}

int cmd_learn(const struct umh_args *a)
{
	struct umh_merge m = {
		.state_dir = a->state_dir, .this_boot = a->this_boot,
		.since = a->since, .last = a->last,
		.from = a->from, .nfrom = a->nfrom,
	};
	struct umh_state st, learned;
	struct umh_record rec;
	int ret;

	if (a->nfrom && (a->apply || a->this_boot || a->state_dir))
		return umh_usage_error(a->cmd, "--from learns a fleet's bounds from their saved boots, not this machine's: it takes no --apply, --this-boot or --state-dir; umhcap export --learned --from DIR gives them");
	if (a->dry_run && !a->apply) {
		umh_err("-n/--dry-run goes with --apply: umhcap learn --apply -n");
		return UMH_EXIT_ERROR;
	}
	if (a->hex && a->apply) {
		umh_err("-x goes with learn's report, not --apply, whose lines name capabilities: umhcap learn -x");
		return UMH_EXIT_ERROR;
	}
	if (a->allowed && !a->apply) {
		umh_err("--allow goes with --apply: umhcap learn --apply --allow PURPOSE:CAP");
		return UMH_EXIT_ERROR;
	}
	if (a->allowed && allow_unnamed(a))
		return UMH_EXIT_ERROR;
	ret = umh_learned(a->root, a->include_idle, &m,
			  a->allowed ? a->allow : NULL, false, &st, &learned,
			  &rec);
	if (ret) {
		if (a->apply)
			umh_nothing_written("learn --apply");
		umh_fleet_free(m.fleet);
		return ret;
	}
	if (m.fleet) {
		fleet_report(a, &st, &learned, &rec, &m);
		umh_fleet_free(m.fleet);
		return UMH_EXIT_OK;
	}
	if (!a->apply) {
		report(a, &st, &learned, &rec, &m);
		return UMH_EXIT_OK;
	}
	return apply(a, &st, &learned, &rec, &m);
}
