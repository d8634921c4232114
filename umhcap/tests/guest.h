/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umhcap guest tests: shared helpers.  These run as root inside the test
 * guest, against a real kernel, never on the host.
 */
#ifndef UMHCAP_GUEST_H
#define UMHCAP_GUEST_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
/* The table of purposes, purpose.c, which the guest tests link. */
#include "../umhcap.h"

#define UMHCAP		"/tests/bin/umhcap"
#define UMH_DIR		"/proc/sys/kernel/usermodehelper"

struct out {
	int status;		/* exit code, or -1 if it did not exit */
	char std[65536];
	char err[4096];
};

static inline void drain(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
}

/*
 * Run umhcap with the NULL-terminated arguments; @drop_cap >= 0 is taken
 * from the bounding set first, so that root execs umhcap without it.
 */
static inline int umhcap_run(struct out *o, int drop_cap, ...)
{
	const char *argv[32] = { UMHCAP };
	int outp[2], errp[2], argc = 1, status;
	va_list ap;
	pid_t pid;

	va_start(ap, drop_cap);
	while (argc < 31 && (argv[argc] = va_arg(ap, const char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;

	if (pipe(outp) || pipe(errp))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		dup2(outp[1], 1);
		dup2(errp[1], 2);
		if (drop_cap >= 0 && prctl(PR_CAPBSET_DROP, drop_cap, 0, 0, 0))
			_exit(126);
		execv(UMHCAP, (char **)argv);
		_exit(127);
	}
	close(outp[1]);
	close(errp[1]);
	drain(outp[0], o->std, sizeof(o->std));
	drain(errp[0], o->err, sizeof(o->err));
	close(outp[0]);
	close(errp[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	o->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return 0;
}

static inline int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len < 0)
		return -errno;
	buf[len] = '\0';
	return 0;
}

static inline int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0644);
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = write(fd, text, strlen(text));
	close(fd);
	return len == (ssize_t)strlen(text) ? 0 : -EIO;
}

static inline unsigned long long read_mask(const char *purpose,
					   const char *set)
{
	char path[PATH_MAX], text[64];
	unsigned int lo, hi;

	if (purpose)
		snprintf(path, sizeof(path), UMH_DIR "/%s/%s", purpose, set);
	else
		snprintf(path, sizeof(path), UMH_DIR "/%s", set);
	if (read_file(path, text, sizeof(text)) ||
	    sscanf(text, "%u\t%u", &lo, &hi) != 2)
		return ~0ULL;
	return (unsigned long long)hi << 32 | lo;
}

/* Every bound file's content, to check that a refused command wrote nothing. */
static inline void snapshot(char *buf, size_t size)
{
	const struct umh_purpose_info *u;
	char path[PATH_MAX], text[64];
	size_t len = 0;
	int s;

	buf[0] = '\0';
	/* The global bound's files, then each purpose's, in umhcap's order. */
	umh_for_each(u)
		for (s = 0; s < 2; s++) {
			snprintf(path, sizeof(path), UMH_DIR "/%s%s%s",
				 u->id == UMH_ALL ? "" : u->name,
				 u->id == UMH_ALL ? "" : "/",
				 s ? "inheritable" : "bset");
			if (read_file(path, text, sizeof(text)))
				strcpy(text, "-\n");
			len += snprintf(buf + len, size - len, "%s:%s", path,
					text);
		}
}

#endif /* UMHCAP_GUEST_H */
