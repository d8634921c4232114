// SPDX-License-Identifier: GPL-2.0
/*
 * Preloaded into umhcap by the host tests: what tracefs does when an
 * instance is made or removed, and a directory of a fake root cannot.
 *
 * mkdir of T/instances/NAME, T the fake tracefs, makes the directory and
 * moves T/fresh-instance, the files the test gave a new instance, into
 * it; without T/fresh-instance it stays empty.  rmdir of it moves it, with
 * all it holds, to T/removed-instances/NAME, where the test finds what
 * umhcap left.  With UMHCAP_FAKE_EEXIST set, mkdir fails with EEXIST, as
 * if someone had made an instance of that name first.  With
 * UMHCAP_FAKE_EBUSY=N, the first N rmdirs of an instance fail with
 * EBUSY, as while another process holds one of its files open.
 *
 * And what a sysctl does that a file of a fake root cannot: with
 * UMHCAP_FAKE_EPERM set, an open for writing of a path that ends in its
 * value fails with EPERM, as the kernel refuses whoever opens a bound or
 * an identity short of what writing it needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define INSTANCES	"/instances/"

/* T of T/instances/NAME, in @t; false for any other path. */
static bool tracefs_of(const char *path, char *t, size_t size)
{
	const char *s = strstr(path, INSTANCES);
	const char *name = s ? s + strlen(INSTANCES) : NULL;

	if (!s || !*name || strchr(name, '/') ||
	    (size_t)(s - path) >= size)
		return false;
	memcpy(t, path, s - path);
	t[s - path] = '\0';
	return true;
}

int mkdir(const char *path, mode_t mode)
{
	char t[PATH_MAX], fresh[PATH_MAX + 32];
	struct stat st;

	if (!tracefs_of(path, t, sizeof(t)))
		return syscall(SYS_mkdirat, AT_FDCWD, path, mode);
	if (getenv("UMHCAP_FAKE_EEXIST")) {
		errno = EEXIST;
		return -1;
	}
	if (syscall(SYS_mkdirat, AT_FDCWD, path, mode))
		return -1;
	snprintf(fresh, sizeof(fresh), "%s/fresh-instance", t);
	if (stat(fresh, &st))
		return 0;
	return rename(fresh, path);
}

int rmdir(const char *path)
{
	const char *ebusy = getenv("UMHCAP_FAKE_EBUSY");
	char t[PATH_MAX], gone[PATH_MAX + 32];
	static long busy;

	if (!tracefs_of(path, t, sizeof(t)))
		return syscall(SYS_unlinkat, AT_FDCWD, path, AT_REMOVEDIR);
	if (ebusy && busy++ < atol(ebusy)) {
		errno = EBUSY;
		return -1;
	}
	snprintf(gone, sizeof(gone), "%s/removed-instances", t);
	if (syscall(SYS_mkdirat, AT_FDCWD, gone, 0755) && errno != EEXIST)
		return -1;
	snprintf(gone, sizeof(gone), "%s/removed-instances/%s", t,
		 strrchr(path, '/') + 1);
	return rename(path, gone);
}

int open(const char *path, int flags, ...)
{
	const char *eperm = getenv("UMHCAP_FAKE_EPERM");
	size_t n = strlen(path), m = eperm ? strlen(eperm) : 0;
	mode_t mode = 0;
	va_list ap;

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (eperm && (flags & O_ACCMODE) != O_RDONLY && n >= m &&
	    !strcmp(path + n - m, eperm)) {
		errno = EPERM;
		return -1;
	}
	return syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}
