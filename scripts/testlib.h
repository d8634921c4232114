/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the harness's own C tests (accel_test.c, harness_test.c) share:
 * a clock, KTAP diagnostics, and the reading of a child's output.
 */
#ifndef UMHCAP_TESTLIB_H
#define UMHCAP_TESTLIB_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Each line of @s as a KTAP diagnostic, "# @what: line". */
static inline void diag_lines(const char *what, const char *s)
{
	while (*s) {
		int len = strcspn(s, "\n");

		printf("# %s: %.*s\n", what, len, s);
		s += len;
		if (*s)
			s++;
	}
}

/*
 * Reads what @fd has into @buf (of @size, kept terminated; what does not
 * fit is read and dropped); returns false at its end.
 */
static inline bool drain(int fd, char *buf, size_t size, size_t *len)
{
	char scratch[512];
	ssize_t n;

	if (*len < size - 1)
		n = read(fd, buf + *len, size - 1 - *len);
	else
		n = read(fd, scratch, sizeof(scratch));	/* too much: drop */
	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0)
		return false;
	if (*len < size - 1) {
		*len += n;
		buf[*len] = '\0';
	}
	return true;
}

#endif /* UMHCAP_TESTLIB_H */
