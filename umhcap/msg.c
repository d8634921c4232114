// SPDX-License-Identifier: GPL-2.0
/*
 * Errors and warnings, one line each on stderr: "umhcap: what failed:
 * why; how to fix".  Whatever stdout holds goes out first, so that the
 * two stay in order on a terminal.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "umhcap: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void umh_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void umh_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void umh_oom(void)
{
	umh_err("out of memory");
}

/* strdup(), or exit: nothing is written before the strings are made. */
char *umh_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	return p;
}

/* asprintf(), or exit, as umh_xstrdup(). */
char *umh_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	return s;
}
