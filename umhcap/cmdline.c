// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel parameters of a state, as export --cmdline prints them and
 * boot hands them to the boot loader: usermodehelper.gid= and .uid= for
 * the purposes that do not run as root, the gid first, as user writes
 * them; then usermodehelper.bset= and .inheritable=, the global bound
 * and every purpose.  One line, without its newline.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "umhcap.h"

/* usermodehelper.gid= (uid=), and a space, unless every purpose is root. */
static void cmdline_ids(FILE *f, const struct umh_state *st, bool gid)
{
	const struct umh_purpose_info *u;
	const char *sep = gid ? "usermodehelper.gid=" : "usermodehelper.uid=";
	const struct umh_ident *id;

	umh_for_each_purpose(u) {
		id = &st->id[u->id];
		if (umh_is_root(id))
			continue;
		fprintf(f, "%s%s:%u", sep, u->name, gid ? id->gid : id->uid);
		sep = ",";
	}
	if (*sep == ',')
		fputc(' ', f);
}

static void cmdline_bounds(FILE *f, const struct umh_state *st, bool inh)
{
	const struct umh_purpose_info *u;
	const char *sep = "";

	fprintf(f, "usermodehelper.%s=", inh ? "inheritable" : "bset");
	umh_for_each(u) {
		if (u->id != UMH_ALL && !st->per_purpose)
			break;
		fprintf(f, "%s%s:0x%" PRIx64, sep, u->name,
			inh ? st->b[u->id].inh : st->b[u->id].bset);
		sep = ",";
	}
}

void umh_cmdline_print(FILE *f, const struct umh_state *st)
{
	cmdline_ids(f, st, true);
	cmdline_ids(f, st, false);
	cmdline_bounds(f, st, false);
	fputc(' ', f);
	cmdline_bounds(f, st, true);
}

/* The same, as a string; the caller frees it. */
char *umh_cmdline_format(const struct umh_state *st)
{
	size_t size;
	char *s;
	FILE *f;

	f = open_memstream(&s, &size);
	if (!f) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	umh_cmdline_print(f, st);
	if (fclose(f)) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	return s;
}
