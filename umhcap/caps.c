// SPDX-License-Identifier: GPL-2.0
/*
 * Capability names and masks. Every name and number comes from libcap;
 * there is deliberately no capability table in this program.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>

#include "umhcap.h"

/* Number of capabilities the running kernel knows (CAP_LAST_CAP + 1). */
int caps_nbits(void)
{
	int n = cap_max_bits();

	if (n <= 0 || n > 64)
		n = 64;
	return n;
}

uint64_t caps_full(void)
{
	int n = caps_nbits();

	return n == 64 ? ~0ULL : (1ULL << n) - 1;
}

static int caps_parse_number(const char *arg, int *cap)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || *end || n >= (unsigned long)caps_nbits())
		return -1;
	*cap = n;
	return 0;
}

/*
 * Accept "cap_sys_module", "CAP_SYS_MODULE", "sys_module" or "16".
 * The name must round-trip through libcap so that nothing sloppy
 * (lists, trailing garbage) slips through cap_from_name().
 */
int caps_parse(const char *arg, int *cap)
{
	char name[64];
	cap_value_t v;
	const char *s;
	char *canon;
	int ok;

	if (!*arg)
		return -1;
	if (isdigit((unsigned char)arg[0]))
		return caps_parse_number(arg, cap);
	for (s = arg; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return -1;
	if (strncasecmp(arg, "cap_", 4))
		ok = snprintf(name, sizeof(name), "cap_%s", arg);
	else
		ok = snprintf(name, sizeof(name), "%s", arg);
	if (ok < 0 || (size_t)ok >= sizeof(name))
		return -1;
	if (cap_from_name(name, &v) || v < 0 || v >= caps_nbits())
		return -1;
	canon = cap_to_name(v);
	if (!canon)
		return -1;
	ok = !strcasecmp(canon, name);
	cap_free(canon);
	if (!ok)
		return -1;
	*cap = v;
	return 0;
}

static void caps_put_name(FILE *f, int cap)
{
	char *name = cap_to_name(cap);

	if (name) {
		fputs(name, f);
		cap_free(name);
	} else {
		fprintf(f, "%d", cap);
	}
}

/* "cap_a, cap_b" or "none"; the caller frees the result. */
char *caps_list(uint64_t mask)
{
	const char *sep = "";
	size_t len;
	char *buf;
	FILE *f;
	int i;

	if (!mask)
		return umh_xstrdup("none");
	f = umh_xmemstream(&buf, &len);
	for (i = 0; i < 64; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		fputs(sep, f);
		caps_put_name(f, i);
		sep = ", ";
	}
	umh_xmemclose(f);
	return buf;
}

/*
 * The shortest of "all", "none", "all except cap_x, ..." and
 * "cap_a, ...". Ties go to the plain list. The caller frees the result.
 */
char *caps_format(uint64_t mask)
{
	uint64_t full = caps_full();
	char *pos, *neg, *except;
	size_t len;

	if (mask == full)
		return umh_xstrdup("all");
	pos = caps_list(mask);
	if (!mask || (mask & ~full))
		return pos;
	except = caps_list(full & ~mask);
	len = strlen("all except ") + strlen(except) + 1;
	neg = malloc(len);
	if (!neg) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	snprintf(neg, len, "all except %s", except);
	free(except);
	if (strlen(neg) < strlen(pos)) {
		free(pos);
		return neg;
	}
	free(neg);
	return pos;
}

/*
 * A JSON array of the names of the capabilities of @mask this kernel
 * knows: a bit above them (an open bound's, given as all 64) is in the
 * mask, and names nothing.  Names from libcap need no escaping.
 */
void caps_json(FILE *f, uint64_t mask)
{
	const char *sep = "";
	int i, n = caps_nbits();

	fputc('[', f);
	for (i = 0; i < n; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		fprintf(f, "%s\"", sep);
		caps_put_name(f, i);
		fputc('"', f);
		sep = ",";
	}
	fputc(']', f);
}
