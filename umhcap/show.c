// SPDX-License-Identifier: GPL-2.0
/*
 * show: print the current bounds, and who each purpose's helpers run as,
 * for humans or for programs (JSON).
 */
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

static void show_human(bool hex, const struct umh_state *st, int p)
{
	if (p == UMH_ALL)
		printf("%s (global, applies to every helper):\n",
		       umh_purpose_name(p));
	else
		printf("%s:\n", umh_purpose_name(p));
	umh_print_line(hex, "bset:", st->b[p].bset);
	umh_print_line(hex, "inheritable:", st->b[p].inh);
	umh_print_line(hex, "ceiling:", umh_ceiling(st, p));
	if (p != UMH_ALL && st->idents)
		umh_print_ident("runs as:", &st->id[p]);
}

static void show_json(const struct umh_state *st, int p, bool first)
{
	printf("%s\n    {\"purpose\":\"%s\"", first ? "" : ",",
	       umh_purpose_name(p));
	umh_print_json_mask("bset", st->b[p].bset);
	umh_print_json_mask("inheritable", st->b[p].inh);
	umh_print_json_mask("ceiling", umh_ceiling(st, p));
	putchar('}');
}

static void show_note(const char *root, const struct umh_state *st)
{
	char path[PATH_MAX];

	if (!st->per_purpose &&
	    !umh_path(path, sizeof(path), root, UMH_MODPROBE, NULL))
		printf("\nper-purpose bounds are not available on this kernel (no %s);\n"
		       "every helper is bounded by the global bounds above.\n",
		       path);
	if (!st->idents &&
	    !umh_path(path, sizeof(path), root, UMH_MODPROBE, "uid"))
		printf("\nno identities in this kernel (no %s):\n"
		       "every helper runs as root.\n", path);
	printf("\nceiling = all.bset & <purpose>.bset: the most a helper running as root\n"
	       "gets (permitted/effective). inheritable is intersected too, but with the\n"
	       "kernel thread's empty inheritable set, so it does not widen anything.\n");
	if (st->idents)
		printf("For a purpose that runs as a user (umhcap user), the ceiling is also\n"
		       "& all.inheritable & <purpose>.inheritable: its helpers get it as ambient\n"
		       "capabilities.\n");
}

int cmd_show(const struct umh_args *a)
{
	const struct umh_purpose_info *u;
	bool sel[UMH_NR], first = true;
	struct umh_state st;

	if (umh_load(a->root, &st))
		return UMH_EXIT_ERROR;
	memcpy(sel, a->sel, sizeof(sel));
	umh_for_each_purpose(u) {
		if (st.per_purpose)
			break;
		if (sel[u->id] && a->named) {
			umh_no_per_purpose(a->root);
			return UMH_EXIT_ERROR;
		}
		sel[u->id] = false;
	}

	if (a->json) {
		umh_print_json_begin();
		printf(",\"per_purpose\":%s,\"cap_bits\":%d,\"bounds\":[",
		       st.per_purpose ? "true" : "false", caps_nbits());
	}
	umh_for_each(u) {
		if (!sel[u->id])
			continue;
		if (a->json)
			show_json(&st, u->id, first);
		else
			show_human(a->hex, &st, u->id);
		first = false;
	}
	if (a->json) {
		printf("\n  ]");
		umh_print_json_idents(&st, sel);
		printf("\n}\n");
	} else {
		show_note(a->root, &st);
	}
	return UMH_EXIT_OK;
}
