// SPDX-License-Identifier: GPL-2.0
/*
 * Files umhcap reads whole, and files it writes whole: a saved record
 * (save), the boot loader's configuration (boot).  A file is replaced as
 * one step: written under a temporary name in its own directory (a dot
 * file, which neither learn nor update-grub reads), synced, and renamed
 * over the old one, so that a reader, or a crash, sees the old file or
 * the new, never a part of either.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umhcap.h"

/*
 * Read @path whole, at most @max bytes, into *@buf (NUL-terminated; the
 * caller frees it) and *@len.  Returns 0, or a negative errno (-EFBIG
 * when longer than @max); prints nothing.
 */
int umh_read_all(const char *path, size_t max, char **buf, size_t *len)
{
	size_t size = 4096, n = 0;
	char *b = NULL, *nb;
	ssize_t r;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	for (;;) {
		nb = realloc(b, size + 1);
		if (!nb) {
			umh_oom();
			exit(UMH_EXIT_ERROR);
		}
		b = nb;
		r = read(fd, b + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (!r)
			break;
		n += r;
		if (n > max) {
			err = -EFBIG;
			break;
		}
		if (n == size)
			size *= 2;
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* At most this many symlinks in one path, as the kernel's MAXSYMLINKS. */
#define ROOT_MAX_LINKS	40

/*
 * @root + @path, with every symlink of @path resolved as @root's own
 * system resolves it booted: an absolute target from @root, and ".."
 * never above it.  A part that is not there is kept as it is, so that a
 * file to be made gets its name.  The caller frees the result.  NULL,
 * errno ELOOP, after too many links.
 */
char *umh_root_path(const char *root, const char *path)
{
	char *done = umh_xstrdup(""), *todo = umh_xstrdup(path), *full, *t;
	char target[PATH_MAX];
	const char *comp, *rest;
	int links = 0;
	size_t n;
	ssize_t len;
	struct stat st;

	for (rest = todo; ; ) {
		rest += strspn(rest, "/");
		if (!*rest)
			break;
		comp = rest;
		n = strcspn(comp, "/");
		rest = comp + n;
		if (n == 1 && comp[0] == '.')
			continue;
		if (n == 2 && comp[0] == '.' && comp[1] == '.') {
			t = strrchr(done, '/');
			if (t)
				*t = '\0';
			continue;
		}
		t = umh_xasprintf("%s/%.*s", done, (int)n, comp);
		full = umh_xasprintf("%s%s", root, t);
		if (lstat(full, &st) || !S_ISLNK(st.st_mode)) {
			free(full);
			free(done);
			done = t;
			continue;
		}
		len = readlink(full, target, sizeof(target) - 1);
		free(full);
		free(t);
		if (len < 0 || ++links > ROOT_MAX_LINKS) {
			free(done);
			free(todo);
			errno = len < 0 ? errno : ELOOP;
			return NULL;
		}
		target[len] = '\0';
		if (target[0] == '/')
			done[0] = '\0';
		t = umh_xasprintf("%s/%s", target, rest);
		free(todo);
		rest = todo = t;
	}
	full = umh_xasprintf("%s%s", root, *done ? done : "/");
	free(done);
	free(todo);
	return full;
}

/*
 * Where ROOT/@path is, for a read or a write under --root: its symlinks
 * resolved in the root (umh_root_path()), so that none leads out of it
 * to this machine's files; under / (@root ""), @path as it is, which the
 * kernel resolves as the root's own system does.  @follow false: the
 * last part of @path is not followed, for lstat(), unlink() and
 * O_NOFOLLOW, which do not follow it either.  The caller frees the
 * result.  NULL, errno ELOOP, after too many links.
 */
char *umh_in_root(const char *root, const char *path, bool follow)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir, *full;

	if (!*root)
		return umh_xstrdup(path);
	if (follow || !*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return umh_root_path(root, path);
	dir = umh_xasprintf("%.*s", (int)(base - path), path);
	full = umh_root_path(root, dir);
	free(dir);
	if (!full)
		return NULL;
	dir = full;
	full = umh_xasprintf("%s%s%s", dir,
			     dir[strlen(dir) - 1] == '/' ? "" : "/", base);
	free(dir);
	return full;
}

/* umh_read_all() of ROOT/@path, resolved in the root (umh_in_root()). */
int umh_read_in_root(const char *root, const char *path, size_t max,
		     char **buf, size_t *len)
{
	char *p = umh_in_root(root, path, true);
	int err;

	if (!p)
		return -errno;
	err = umh_read_all(p, max, buf, len);
	free(p);
	return err;
}

/*
 * Make ROOT/@dir and every directory above it, below @root, that is not
 * there, each mode 0755 whatever the umask; a symlink on the way is
 * followed in the root (umh_in_root()).  Returns 0, or -1 after an error
 * (printed).
 */
int umh_mkdirs(const char *root, const char *dir)
{
	char *path = umh_in_root(root, dir, true);
	char *s;
	struct stat st;
	int ret = 0;
	char c;

	if (!path) {
		umh_err("cannot make directory %s%s: %s", root, dir,
			strerror(errno));
		return -1;
	}
	s = path + strlen(root);
	for (;;) {
		s += strspn(s, "/");
		s += strcspn(s, "/");
		c = *s;
		*s = '\0';
		if (!mkdir(path, 0755)) {
			if (chmod(path, 0755)) {
				umh_err("cannot chmod %s: %s", path,
					strerror(errno));
				ret = -1;
				break;
			}
		} else if (errno != EEXIST) {
			umh_err("cannot make directory %s: %s", path,
				strerror(errno));
			ret = -1;
			break;
		} else if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
			umh_err("cannot make directory %s: %s", path,
				strerror(ENOTDIR));
			ret = -1;
			break;
		}
		*s = c;
		if (!c || !s[strspn(s, "/")])
			break;
	}
	free(path);
	return ret;
}

static int write_all(int fd, const char *data, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		data += n;
		len -= n;
	}
	return 0;
}

/* The directory's entry made durable: a failure is said, not fatal. */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fsync(fd))
		umh_warn("cannot sync directory %s: %s; the new file may not survive a crash",
			 dir, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * Replace @path with @len bytes of @data, mode @mode, owned by @uid and
 * @gid (-1: whoever runs umhcap): a temporary file in the same directory,
 * written, synced and renamed over @path.  Returns 0, or -1 after an
 * error (printed), with @path as it was and no temporary file left.
 */
int umh_replace(const char *path, const char *data, size_t len,
		unsigned int mode, long uid, long gid)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? umh_xasprintf("%.*s", (int)(slash - path), path) :
			    umh_xstrdup(".");
	char *tmp = umh_xasprintf("%s/.%s.XXXXXX", dir,
				  slash ? slash + 1 : path);
	const char *what = "write";
	int fd, err;

	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		umh_err("cannot write %s: cannot create a file in %s: %s",
			path, dir, strerror(errno));
		free(tmp);
		free(dir);
		return -1;
	}
	err = write_all(fd, data, len);
	if (!err && (uid >= 0 || gid >= 0) &&
	    fchown(fd, uid, gid) && (what = "chown"))
		err = -errno;
	if (!err && fchmod(fd, mode) && (what = "chmod"))
		err = -errno;
	if (!err && fsync(fd) && (what = "sync"))
		err = -errno;
	if (close(fd) && !err && (what = "close"))
		err = -errno;
	if (!err && rename(tmp, path) && (what = "rename"))
		err = -errno;
	if (err) {
		umh_err("cannot write %s: %s %s: %s; %s is as it was", path,
			what, tmp, strerror(-err), path);
		unlink(tmp);
	} else {
		umh_wrote(path);
		sync_dir(dir);
	}
	free(tmp);
	free(dir);
	return err ? -1 : 0;
}

/*
 * Remove @path, its directory's entry made durable.  Returns 1 if it was
 * removed, 0 if it was not there, or -1 after an error (printed).
 */
int umh_remove(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (unlink(path)) {
		if (errno == ENOENT)
			return 0;
		umh_err("cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	umh_wrote(path);
	dir = slash ? umh_xasprintf("%.*s", (int)(slash - path), path) :
		      umh_xstrdup(".");
	sync_dir(dir);
	free(dir);
	return 1;
}
