// SPDX-License-Identifier: GPL-2.0
/*
 * The table of purposes: every name umhcap knows a purpose by, and the
 * order it shows them in.  Error messages, help texts, file paths, JSON
 * and the kernel command line all take the names from here.
 *
 * This file uses nothing else of umhcap, so that the host tests can link
 * it and hold it to the kernel's numbering.
 */
#include <stdio.h>
#include <string.h>

#include "umhcap.h"

/*
 * The global bound first, as umh_for_each_purpose() counts on, then the
 * purposes of UMH_PURPOSE_LIST in the kernel's order, but for "other", the
 * kernel's 0, which takes in every helper not listed and comes last: the
 * order of show, learn, check, export and of every list of purposes
 * umhcap prints.  A purpose's place is its number, "other"'s the last.
 */
#define ROW(id, name) \
	[UMH_##id ? UMH_##id : UMH_NR - 1] = { UMH_##id, #name },
const struct umh_purpose_info umh_purposes[UMH_NR] = {
	[0] = { UMH_ALL, "all" },
	UMH_PURPOSE_LIST(ROW)
};
#undef ROW

/* The name of @purpose (or of UMH_ALL), or NULL for a number it is not. */
const char *umh_purpose_name(int purpose)
{
	const struct umh_purpose_info *u;

	umh_for_each(u)
		if ((int)u->id == purpose)
			return u->name;
	return NULL;
}

/* The purpose (or UMH_ALL) named @name, or -1. */
int umh_purpose_lookup(const char *name)
{
	const struct umh_purpose_info *u;

	umh_for_each(u)
		if (!strcmp(name, u->name))
			return u->id;
	return -1;
}

/* Every name, in order, separated by spaces: "all modprobe ... other". */
const char *umh_purpose_list(void)
{
	static char list[UMH_NR * 16];
	const struct umh_purpose_info *u;
	size_t len = 0;

	umh_for_each(u)
		if (len < sizeof(list))
			len += snprintf(list + len, sizeof(list) - len, "%s%s",
					len ? " " : "", u->name);
	return list;
}
