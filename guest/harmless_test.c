// SPDX-License-Identifier: GPL-2.0
/*
 * The umh kselftests harm nothing on a machine that runs them
 *
 * Runs every umh kselftest in /tests/umh as a person would on a machine
 * in use (make -C tools/testing/selftests TARGETS=umh run_tests): as root,
 * without UMH_SELFTEST_NARROW.  Their own results are not counted here (on
 * an unpatched kernel many fail, as they should); their output is kept as
 * KTAP diagnostics.  Then checks, as KTAP, that they left the machine as
 * they found it:
 *
 *  - every capability bound file reads as before;
 *  - every knob that names a helper's program reads as before;
 *  - a /sbin/request-key of the system's is still there, unchanged;
 *  - the global trace buffer still holds what was in it, and the umh
 *    events are not enabled in it.
 *
 * For the test guest: run it before anything that narrows the bounds.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"

#define UMH_TESTS	"/tests/umh"
#define REQUEST_KEY	"/sbin/request-key"
#define SYSTEM_PROGRAM	"#!/bin/sh\n# keyutils' request-key stands here\nexit 1\n"
#define TRACEFS		"/sys/kernel/tracing"
#define MARKER		"umh-harmless-marker"

static const char * const knobs[] = {
	"/proc/sys/kernel/modprobe",
	"/proc/sys/kernel/core_pattern",
	"/proc/sys/kernel/core_pipe_limit",
	"/proc/sys/kernel/poweroff_cmd",
	"/proc/sys/kernel/hotplug",
	"/sys/kernel/uevent_helper",
};

static const char * const purposes[] = {
	"", "modprobe/", "coredump/", "uevent/", "request_key/",
	"release_agent/", "power/", "initrd/", "other/",
};

#define NR_BOUNDS	(2 * (int)(sizeof(purposes) / sizeof(purposes[0])))
#define NR_KNOBS	((int)(sizeof(knobs) / sizeof(knobs[0])))

/* The whole of a small file, or "(absent)". */
static void slurp(const char *path, char *buf, size_t size)
{
	ssize_t len = -1;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, buf, size - 1);
		close(fd);
	}
	if (len < 0)
		snprintf(buf, size, "(absent)");
	else
		buf[len] = '\0';
}

static void bound_path(char *path, size_t size, int i)
{
	snprintf(path, size, "/proc/sys/kernel/usermodehelper/%s%s",
		 purposes[i / 2], i % 2 ? "inheritable" : "bset");
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ssize_t len;

	if (fd < 0)
		return -1;
	len = write(fd, text, strlen(text));
	close(fd);
	return len == (ssize_t)strlen(text) ? 0 : -1;
}

/* Run @prog as a person would, its output as diagnostics. */
static void run_one(const char *prog)
{
	int fds[2], status;
	char line[1024];
	FILE *out;
	pid_t pid;

	if (pipe(fds))
		return;
	pid = fork();
	if (!pid) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		unsetenv("UMH_SELFTEST_NARROW");
		if (chdir(UMH_TESTS))
			_exit(127);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	out = fdopen(fds[0], "r");
	while (out && fgets(line, sizeof(line), out))
		ksft_print_msg("| %s", line);
	if (out)
		fclose(out);
	if (pid > 0)
		waitpid(pid, &status, 0);
}

int main(void)
{
	static char before[NR_BOUNDS + NR_KNOBS][PATH_MAX];
	char path[PATH_MAX], now[PATH_MAX], *trace;
	int i, ran = 0, same;
	struct dirent *d;
	DIR *dir;

	ksft_print_header();
	ksft_set_plan(NR_BOUNDS + NR_KNOBS + 3);

	for (i = 0; i < NR_BOUNDS; i++) {
		bound_path(path, sizeof(path), i);
		slurp(path, before[i], sizeof(before[i]));
	}
	for (i = 0; i < NR_KNOBS; i++)
		slurp(knobs[i], before[NR_BOUNDS + i], PATH_MAX);
	/* A system's own request-key, and something in the trace buffer. */
	if (write_file(REQUEST_KEY, SYSTEM_PROGRAM))
		ksft_exit_fail_msg("cannot write %s: %s\n", REQUEST_KEY,
				   strerror(errno));
	if (write_file(TRACEFS "/trace_marker", MARKER "\n"))
		ksft_exit_fail_msg("cannot write the trace marker: %s\n",
				   strerror(errno));

	dir = opendir(UMH_TESTS);
	if (!dir)
		ksft_exit_fail_msg("no %s: %s\n", UMH_TESTS, strerror(errno));
	while ((d = readdir(dir))) {
		size_t len = strlen(d->d_name);

		if (len < 6 || strcmp(d->d_name + len - 5, "_test"))
			continue;
		snprintf(path, sizeof(path), UMH_TESTS "/%s", d->d_name);
		ksft_print_msg("running %s without UMH_SELFTEST_NARROW\n",
			       path);
		run_one(path);
		ran++;
	}
	closedir(dir);
	if (ran < 5)
		ksft_exit_fail_msg("only %d tests in %s\n", ran, UMH_TESTS);

	for (i = 0; i < NR_BOUNDS; i++) {
		bound_path(path, sizeof(path), i);
		slurp(path, now, sizeof(now));
		ksft_test_result(!strcmp(now, before[i]),
				 "%s reads as before (%s)\n", path,
				 strtok(now, "\n") ?: "");
	}
	for (i = 0; i < NR_KNOBS; i++) {
		slurp(knobs[i], now, sizeof(now));
		ksft_test_result(!strcmp(now, before[NR_BOUNDS + i]),
				 "%s reads as before (%s)\n", knobs[i],
				 strtok(now, "\n") ?: "");
	}
	slurp(REQUEST_KEY, now, sizeof(now));
	ksft_test_result(!strcmp(now, SYSTEM_PROGRAM),
			 "%s of the system's untouched\n", REQUEST_KEY);
	unlink(REQUEST_KEY);

	trace = malloc(1 << 20);
	if (!trace)
		ksft_exit_fail_msg("out of memory\n");
	slurp(TRACEFS "/trace", trace, 1 << 20);
	ksft_test_result(strstr(trace, MARKER) != NULL,
			 "the global trace buffer was not cleared\n");
	free(trace);
	slurp(TRACEFS "/events/umh/enable", now, sizeof(now));
	same = !strcmp(now, "0\n") || !strcmp(now, "(absent)");
	ksft_test_result(same, "umh events not left enabled globally (%s)\n",
			 strtok(now, "\n") ?: "");
	ksft_finished();
}
