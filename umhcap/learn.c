// SPDX-License-Identifier: GPL-2.0
/*
 * learn: what usermode helpers used since boot, from the kernel's record
 * (<purpose>/used and <purpose>/started), next to what their bounds
 * allow; with --apply, narrow each purpose that ran to what it used.
 *
 * A purpose whose helpers never ran has an empty record, which says
 * nothing about what they need: it is left alone unless --include-idle.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

struct learn_req {
	bool apply;
	bool dry_run;
	bool include_idle;
	bool sel[UMH_NR];	/* the purposes named, or all of them */
};

static bool is_idle(const struct umh_record *rec, int p)
{
	return rec->started[p] == 0;
}

/*
 * The bounds learn --apply leads to: each purpose that ran (or every one,
 * with @include_idle) narrowed to what it used; the global bound as it is.
 */
static void learned_bounds(const struct umh_state *cur,
			   const struct umh_record *rec, bool include_idle,
			   struct umh_state *out)
{
	int p;

	*out = *cur;
	for (p = UMH_ALL + 1; p < UMH_NR; p++) {
		if (is_idle(rec, p) && !include_idle)
			continue;
		out->b[p].bset &= rec->used[p];
		out->b[p].inh &= rec->used[p];
	}
}

/*
 * Load the bounds into @cur and the record into @rec, and compute the
 * learned bounds into @learned.  Returns 0 or an exit code; prints its
 * own errors, and says so when the kernel keeps no record.
 */
int umh_learned(const char *root, bool include_idle, struct umh_state *cur,
		struct umh_state *learned, struct umh_record *rec)
{
	int ret;

	if (umh_load(root, cur))
		return UMH_EXIT_ERROR;
	ret = umh_record_load(root, rec);
	if (ret > 0)
		umh_no_record(rec);
	if (ret)
		return UMH_EXIT_ERROR;
	learned_bounds(cur, rec, include_idle, learned);
	return 0;
}

/* ---- the report ---- */

static void text_purpose(const struct umh_opts *o, const struct learn_req *r,
			 const struct umh_state *st,
			 const struct umh_record *rec, int p)
{
	unsigned long long n = rec->started[p];
	uint64_t allowed = umh_ceiling(st, p), used = rec->used[p];

	if (p == UMH_ALL)
		printf("all (every helper): ");
	else
		printf("%s: ", umh_purpose_names[p]);
	if (n)
		printf("%llu helper%s started since boot\n", n,
		       n == 1 ? "" : "s");
	else if (p == UMH_ALL)
		printf("no helper started since boot\n");
	else if (r->include_idle)
		printf("no helper started since boot (idle; --include-idle narrows it to what it used)\n");
	else
		printf("no helper started since boot (idle: --apply leaves it alone)\n");
	umh_show_line(o, "used:", used);
	if (p == UMH_ALL)
		return;
	umh_show_line(o, "allowed:", allowed);
	umh_show_line(o, "never used:", allowed & ~used);
	if (used & ~allowed)
		umh_show_line(o, "now refused:", used & ~allowed);
}

static void json_purpose(const struct umh_state *st,
			 const struct umh_state *learned,
			 const struct umh_record *rec, int p, bool first)
{
	uint64_t allowed = umh_ceiling(st, p), used = rec->used[p];

	printf("%s\n    {\"purpose\":\"%s\",\"started\":%llu,\"idle\":%s",
	       first ? "" : ",", umh_purpose_names[p],
	       rec->started[p], is_idle(rec, p) ? "true" : "false");
	umh_show_json_mask("used", used);
	umh_show_json_mask("allowed", allowed);
	umh_show_json_mask("never_used", allowed & ~used);
	umh_show_json_mask("now_refused", used & ~allowed);
	umh_show_json_mask("learned_bset", learned->b[p].bset);
	umh_show_json_mask("learned_inheritable", learned->b[p].inh);
	putchar('}');
}

static void report(const struct umh_opts *o, const struct learn_req *r,
		   const struct umh_state *st, const struct umh_state *learned,
		   const struct umh_record *rec)
{
	bool first = true;
	int p;

	if (o->json) {
		printf("{\"version\":1,\"cap_bits\":%d,\"started\":%llu",
		       caps_nbits(), rec->started[UMH_ALL]);
		umh_show_json_mask("used", rec->used[UMH_ALL]);
		printf(",\"purposes\":[");
		for (p = UMH_ALL + 1; p < UMH_NR; p++) {
			if (!r->sel[p])
				continue;
			json_purpose(st, learned, rec, p, first);
			first = false;
		}
		printf("\n  ]\n}\n");
		return;
	}
	for (p = 0; p < UMH_NR; p++)
		if (r->sel[p])
			text_purpose(o, r, st, rec, p);
	printf("\nused: what the purpose's helpers, and every process they started, were\n"
	       "granted since boot. allowed: all.bset & <purpose>.bset, the most a helper\n"
	       "gets. 'umhcap learn --apply' narrows the bset and inheritable bound of each\n"
	       "purpose whose helpers ran to what they used; idle purposes are left alone\n"
	       "unless --include-idle is given.\n");
}

/* ---- --apply ---- */

struct apply_state {
	int narrowed;		/* purposes narrowed (or to be, with -n) */
	int unchanged;		/* already no wider than what they used */
	int idle;		/* left alone */
	bool wrote[UMH_NR];	/* purposes something was written to */
};

/* Returns 0, or -1 after an error (printed). */
static int apply_file(const struct umh_opts *o, const struct learn_req *r,
		      struct apply_state *a, int p, const char *file,
		      uint64_t mask)
{
	char path[PATH_MAX];
	int ret;

	if (umh_path(path, sizeof(path), o->root, p, file))
		return -1;
	if (r->dry_run) {
		char *names = caps_format(mask);

		printf("would write \"%u %u\" to %s (%s)\n", (uint32_t)mask,
		       (uint32_t)(mask >> 32), path, names);
		free(names);
		return 0;
	}
	ret = umh_write_verify(path, mask);
	if (ret != -1)
		a->wrote[p] = true;
	return ret ? -1 : 0;
}

static int apply_purpose(const struct umh_opts *o, const struct learn_req *r,
			 struct apply_state *a, const struct umh_bound *cur,
			 const struct umh_bound *nb,
			 const struct umh_record *rec, int p)
{
	const char *name = umh_purpose_names[p];
	char *names;

	if (is_idle(rec, p) && !r->include_idle) {
		printf("%s: no helper started since boot; left alone (--include-idle narrows it too)\n",
		       name);
		a->idle++;
		return 0;
	}
	if (nb->bset == cur->bset && nb->inh == cur->inh) {
		names = caps_format(rec->used[p]);
		printf("%s: no wider than what its helpers used (%s); unchanged\n",
		       name, names);
		free(names);
		a->unchanged++;
		return 0;
	}
	if ((nb->bset != cur->bset &&
	     apply_file(o, r, a, p, "bset", nb->bset)) ||
	    (nb->inh != cur->inh &&
	     apply_file(o, r, a, p, "inheritable", nb->inh)))
		return -1;
	a->narrowed++;
	if (r->dry_run)
		return 0;
	names = caps_format(nb->bset);
	printf("%s: narrowed to what its helpers used: bset %s", name, names);
	free(names);
	names = caps_format(nb->inh);
	printf(", inheritable %s\n", names);
	free(names);
	return 0;
}

static int apply(const struct umh_opts *o, const struct learn_req *r,
		 const struct umh_state *st, const struct umh_state *learned,
		 const struct umh_record *rec)
{
	struct apply_state a = { 0 };
	bool wrote = false;
	int p, q;

	for (p = UMH_ALL + 1; p < UMH_NR; p++)
		if (r->sel[p] &&
		    apply_purpose(o, r, &a, &st->b[p], &learned->b[p], rec, p))
			break;
	if (p == UMH_NR) {
		printf("%s%d purpose%s narrowed, %d unchanged, %d idle left alone\n",
		       r->dry_run ? "-n, nothing written: " : "", a.narrowed,
		       a.narrowed == 1 ? "" : "s", a.unchanged, a.idle);
		return UMH_EXIT_OK;
	}
	for (q = 0; q < UMH_NR; q++)
		wrote |= a.wrote[q];
	if (!wrote) {
		umh_err("learn --apply: nothing was written");
		return UMH_EXIT_ERROR;
	}
	fflush(stdout);
	fprintf(stderr, "umhcap: learn --apply stopped at %s, after writing to:",
		umh_purpose_names[p]);
	for (q = UMH_ALL + 1; q <= p; q++)
		if (a.wrote[q])
			fprintf(stderr, " %s%s", umh_purpose_names[q],
				q == p ? " (in part)" : "");
	fprintf(stderr, "; the purposes after %s were not narrowed\n",
		umh_purpose_names[p]);
	return UMH_EXIT_PARTIAL;
}

/* ---- the command ---- */

static int parse_learn_args(struct umh_opts *o, int argc, char **argv,
			    struct learn_req *r)
{
	static const struct option longopts[] = {
		{ "apply",		no_argument, NULL, 'a' },
		{ "dry-run",		no_argument, NULL, 'n' },
		{ "include-idle",	no_argument, NULL, 'i' },
		{ "json",		no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	int c, i, p;

	while ((c = getopt_long(argc, argv, "nx", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			r->apply = true;
			break;
		case 'n':
			r->dry_run = true;
			break;
		case 'i':
			r->include_idle = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'x':
			o->hex = true;
			break;
		default:
			goto usage;
		}
	}
	for (i = optind; i < argc; i++) {
		p = umh_purpose_lookup(argv[i]);
		if (p < 0) {
			umh_err("unknown purpose \"%s\"; valid: all modprobe coredump uevent request_key release_agent power initrd other",
				argv[i]);
			return -1;
		}
		r->sel[p] = true;
	}
	if (optind == argc)
		for (p = 0; p < UMH_NR; p++)
			r->sel[p] = true;
	if (r->dry_run && !r->apply) {
		umh_err("-n/--dry-run goes with --apply: umhcap learn --apply -n");
		return -1;
	}
	if (o->json && r->apply) {
		umh_err("--json is not supported by learn --apply; use umhcap learn --json");
		return -1;
	}
	return 0;
usage:
	umh_err("usage: umhcap learn [-x] [--json] [--include-idle] [PURPOSE...], or umhcap learn --apply [-n] [--include-idle] [PURPOSE...]");
	return -1;
}

int cmd_learn(const struct umh_opts *opts, int argc, char **argv)
{
	struct learn_req r = { 0 };
	struct umh_state st, learned;
	struct umh_opts o = *opts;
	struct umh_record rec;
	int ret;

	if (parse_learn_args(&o, argc, argv, &r))
		return UMH_EXIT_ERROR;
	ret = umh_learned(o.root, r.include_idle, &st, &learned, &rec);
	if (ret) {
		if (r.apply)
			umh_err("learn --apply: nothing was written");
		return ret;
	}
	if (!r.apply) {
		report(&o, &r, &st, &learned, &rec);
		return UMH_EXIT_OK;
	}
	return apply(&o, &r, &st, &learned, &rec);
}
