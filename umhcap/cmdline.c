// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel parameters of a state, as export --cmdline prints them and
 * boot hands them to the boot loader: usermodehelper.gid= and .uid= for
 * the purposes that do not run as root, the gid first, as user writes
 * them; then usermodehelper.bset= and .inheritable=, the global bound
 * and the purposes, each left out where its bounds are both open and an
 * open bound beside a narrowed one given as all 64 bits (bounds.c).  One
 * line, without its newline; nothing at all when every purpose is root
 * and every bound open.
 */
#include <inttypes.h>

#include "umhcap.h"

/*
 * Before an item of parameter @param: the parameter, after *@sep, if
 * this is its first item (*@first), else a comma.  *@sep becomes " "
 * once something is printed.
 */
static void cmdline_item(FILE *f, const char *param, bool *first,
			 const char **sep)
{
	if (*first)
		fprintf(f, "%s%s=", *sep, param);
	else
		fputc(',', f);
	*first = false;
	*sep = " ";
}

/* usermodehelper.gid= (uid=), unless every purpose is root. */
static void cmdline_ids(FILE *f, const struct umh_state *st, bool gid,
			const char **sep)
{
	const struct umh_purpose_info *u;
	const struct umh_ident *id;
	bool first = true;

	umh_for_each_purpose(u) {
		id = &st->id[u->id];
		if (umh_is_root(id))
			continue;
		cmdline_item(f, gid ? "usermodehelper.gid" :
				      "usermodehelper.uid", &first, sep);
		fprintf(f, "%s:%u", u->name, gid ? id->gid : id->uid);
	}
}

/* usermodehelper.bset= (inheritable=), unless every bound is open. */
static void cmdline_bounds(FILE *f, const struct umh_state *st, bool inh,
			   const char **sep)
{
	const struct umh_purpose_info *u;
	bool first = true;

	umh_for_each(u) {
		if (!umh_exported(st, u->id) || umh_bound_open(&st->b[u->id]))
			continue;
		cmdline_item(f, inh ? "usermodehelper.inheritable" :
				      "usermodehelper.bset", &first, sep);
		fprintf(f, "%s:0x%" PRIx64, u->name,
			umh_bound_given(inh ? st->b[u->id].inh :
					      st->b[u->id].bset));
	}
}

/* Prints the parameters of @st to @f; returns whether there were any. */
bool umh_cmdline_print(FILE *f, const struct umh_state *st)
{
	const char *sep = "";

	cmdline_ids(f, st, true, &sep);
	cmdline_ids(f, st, false, &sep);
	cmdline_bounds(f, st, false, &sep);
	cmdline_bounds(f, st, true, &sep);
	return *sep;
}

/* The same, as a string, "" without any; the caller frees it. */
char *umh_cmdline_format(const struct umh_state *st)
{
	size_t size;
	char *s;
	FILE *f;

	f = umh_xmemstream(&s, &size);
	umh_cmdline_print(f, st);
	umh_xmemclose(f);
	return s;
}

/*
 * Why the parameters of @st hold no usermodehelper.bset= and no
 * .inheritable=: every bound is open.  NULL when some bound is narrowed.
 */
const char *umh_cmdline_no_bounds(const struct umh_state *st)
{
	if (!umh_all_open(st))
		return NULL;
	return "every usermode helper bound is open (every capability the kernel knows), as at boot: no usermodehelper.bset= or usermodehelper.inheritable= to give";
}
