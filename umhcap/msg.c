// SPDX-License-Identifier: GPL-2.0
/*
 * Errors and warnings, one line each on stderr: "umhcap: what failed:
 * why; how to fix".  Whatever stdout holds goes out first, so that the
 * two stay in order on a terminal.  And the root that messages about a
 * write name, when it is not /.
 */
#define _GNU_SOURCE
#include <errno.h>
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

/* Not wrong, but worth saying where stdout is meant for a program. */
void umh_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("note: ", fmt, ap);
	va_end(ap);
}

/* The root writes go under, and where it came from; "" is /. */
static const char *msg_root = "", *msg_root_from;

/* Every file written, in order, each once: for the message of exit 3. */
static char **written;
static size_t nr_written;

/*
 * @path (under the root) was written, or removed: every write of
 * umhcap's says so here (bounds.c, file.c).
 */
void umh_wrote(const char *path)
{
	size_t n = strlen(msg_root), i;
	char **w;

	if (*msg_root && !strncmp(path, msg_root, n) && path[n] == '/')
		path += n;
	for (i = 0; i < nr_written; i++)
		if (!strcmp(written[i], path))
			return;
	w = realloc(written, (nr_written + 1) * sizeof(*w));
	if (!w) {
		umh_oom();
		return;
	}
	written = w;
	written[nr_written++] = umh_xstrdup(path);
}

/*
 * The exit status of a command that returned @ret, once what stdout holds
 * is out.  A write to stdout that failed, to a full disk or a file that
 * cannot grow, fails the command, as it fails sysctl, so that
 * "umhcap show > FILE" never exits 0 with FILE cut short.  A command that
 * wrote before says what (umh_wrote()), and the status says so (3).
 */
int umh_exit_status(int ret)
{
	const char *why;
	char *under;
	size_t i;

	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return ret;
	why = errno ? strerror(errno) : "a write to it failed";
	if (!nr_written) {
		umh_err("cannot write the output: %s", why);
		return ret != UMH_EXIT_OK && ret != UMH_EXIT_FINDINGS ?
		       ret : UMH_EXIT_ERROR;
	}
	under = umh_under_root();
	fflush(stdout);
	fprintf(stderr, "umhcap: cannot write the output: %s; written before it:",
		why);
	for (i = 0; i < nr_written; i++)
		fprintf(stderr, "%s %s", i ? "," : "", written[i]);
	fprintf(stderr, "%s\n", under);
	free(under);
	return ret != UMH_EXIT_OK && ret != UMH_EXIT_FINDINGS ?
	       ret : UMH_EXIT_PARTIAL;
}

void umh_msg_root(const char *root, const char *from)
{
	msg_root = root;
	msg_root_from = from;
}

/*
 * " under root DIR (UMHCAP_ROOT)", or (--root), for the end of every
 * message about a write; "" under /.  The caller frees the result.
 */
char *umh_under_root(void)
{
	if (!*msg_root)
		return umh_xstrdup("");
	return umh_xasprintf(" under root %s (%s)", msg_root, msg_root_from);
}

/* After an error: that @cmd wrote nothing, and under which root. */
void umh_nothing_written(const char *cmd)
{
	char *under = umh_under_root();

	umh_err("%s: nothing was written%s", cmd, under);
	free(under);
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

/* vasprintf(), or exit, as umh_xstrdup(). */
char *umh_xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	return s;
}

/*
 * open_memstream(), or exit, as umh_xstrdup(): text built in *@buf,
 * which umh_xmemclose() ends.
 */
FILE *umh_xmemstream(char **buf, size_t *size)
{
	FILE *f = open_memstream(buf, size);

	if (!f) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	return f;
}

/* fclose() of a umh_xmemstream() stream, whose text is then whole. */
void umh_xmemclose(FILE *f)
{
	if (fclose(f)) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
}

/* asprintf(), or exit, as umh_xstrdup(). */
char *umh_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = umh_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
