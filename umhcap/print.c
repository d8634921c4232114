// SPDX-License-Identifier: GPL-2.0
/*
 * What several commands print alike: a capability set on a line of its
 * own, under a label, and as a member of a JSON object.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "umhcap.h"

/* "  label:       cap_a, cap_b", with @hex the mask before the names. */
void umh_print_line(bool hex, const char *label, uint64_t mask)
{
	char *names = caps_format(mask);

	if (hex)
		printf("  %-13s0x%016" PRIx64 "  %s\n", label, mask, names);
	else
		printf("  %-13s%s\n", label, names);
	free(names);
}

/* ,"key":"0x...","key_caps":["cap_a",...] */
void umh_print_json_mask(const char *key, uint64_t mask)
{
	printf(",\"%s\":\"0x%" PRIx64 "\",\"%s_caps\":", key, mask, key);
	caps_json(stdout, mask);
}
