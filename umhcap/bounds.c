// SPDX-License-Identifier: GPL-2.0
/*
 * Reading and writing the usermodehelper bound files:
 *   ROOT/proc/sys/kernel/usermodehelper/{bset,inheritable}
 *   ROOT/proc/sys/kernel/usermodehelper/<purpose>/{bset,inheritable}
 * Format: two unsigned 32-bit decimal words, low word first.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umhcap.h"

#define UMH_DIR	"/proc/sys/kernel/usermodehelper"

/* Path of a bound file, or of the directory when @file is NULL. */
int umh_path(char *buf, size_t len, const char *root, int purpose,
	     const char *file)
{
	int n;

	n = snprintf(buf, len, "%s" UMH_DIR "%s%s%s%s", root,
		     purpose == UMH_ALL ? "" : "/",
		     purpose == UMH_ALL ? "" : umh_purpose_name(purpose),
		     file ? "/" : "", file ? file : "");
	if (n < 0 || (size_t)n >= len) {
		umh_err("path too long under root %s; use a shorter --root",
			root);
		return -1;
	}
	return 0;
}

bool umh_has_per_purpose(const char *root)
{
	char path[PATH_MAX];
	struct stat st;

	if (umh_path(path, sizeof(path), root, UMH_MODPROBE, NULL))
		return false;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

void umh_no_per_purpose(const char *root)
{
	char path[PATH_MAX];

	if (umh_path(path, sizeof(path), root, UMH_MODPROBE, NULL))
		return;
	umh_err("per-purpose bounds are not available on this kernel (no %s); use the global bound (-p all) or boot a kernel with per-purpose usermodehelper bounds",
		path);
}

static int parse_word(const char **s, uint32_t *word)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	v = strtoull(*s, &end, 10);
	if (errno || v > UINT32_MAX)
		return -1;
	*word = v;
	*s = end;
	return 0;
}

static int parse_bound(const char *s, uint64_t *mask)
{
	uint32_t lo, hi;

	if (parse_word(&s, &lo))
		return -1;
	if (*s != '\t' && *s != ' ')
		return -1;
	while (*s == '\t' || *s == ' ')
		s++;
	if (parse_word(&s, &hi))
		return -1;
	while (*s == '\n' || *s == ' ' || *s == '\t')
		s++;
	if (*s)
		return -1;
	*mask = (uint64_t)hi << 32 | lo;
	return 0;
}

/*
 * Read a small file whole into @buf, NUL-terminated.  Returns 0, or
 * -errno with *@opened telling whether open() succeeded; prints nothing.
 */
static int read_small(const char *path, char *buf, size_t size,
		      bool *opened)
{
	ssize_t n;
	int fd, err = 0;

	*opened = false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*opened = true;
	n = read(fd, buf, size - 1);
	if (n < 0)
		err = -errno;
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return err;
}

/* Prints its own error; returns 0 or -1. */
int umh_bound_read(const char *path, uint64_t *mask)
{
	char buf[128];
	bool opened;
	int err;

	err = read_small(path, buf, sizeof(buf), &opened);
	if (err && !opened) {
		umh_err("cannot open %s: %s; check --root/UMHCAP_ROOT and that /proc is mounted",
			path, strerror(-err));
		return -1;
	}
	if (err) {
		umh_err("cannot read %s: %s", path, strerror(-err));
		return -1;
	}
	if (parse_bound(buf, mask)) {
		buf[strcspn(buf, "\n")] = '\0';
		umh_err("cannot parse %s: unexpected content \"%.40s\"; expected two decimal 32-bit words",
			path, buf);
		return -1;
	}
	return 0;
}

/* Returns 0 or a negative errno; the caller explains the error. */
int umh_bound_write(const char *path, uint64_t mask)
{
	char buf[32];
	ssize_t n;
	int fd, len, err = 0;

	len = snprintf(buf, sizeof(buf), "%u %u\n", (uint32_t)mask,
		       (uint32_t)(mask >> 32));
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = -errno;
	else if (n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int umh_load(const char *root, struct umh_state *st)
{
	const struct umh_purpose_info *u;
	char path[PATH_MAX];
	int p;

	memset(st, 0, sizeof(*st));
	st->per_purpose = umh_has_per_purpose(root);
	umh_for_each(u) {
		p = u->id;
		if (p != UMH_ALL && !st->per_purpose)
			break;
		if (umh_path(path, sizeof(path), root, p, "bset") ||
		    umh_bound_read(path, &st->b[p].bset))
			return -1;
		if (umh_path(path, sizeof(path), root, p, "inheritable") ||
		    umh_bound_read(path, &st->b[p].inh))
			return -1;
	}
	return 0;
}

/* A decimal count and a newline, as the kernel prints started. */
static int parse_count(const char *s, unsigned long long *count)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*count = strtoull(s, &end, 10);
	if (errno)
		return -1;
	while (*end == '\n' || *end == ' ' || *end == '\t')
		end++;
	return *end ? -1 : 0;
}

/*
 * One file of the record: @file ("used" or "started") of @purpose.
 * Returns 0, 1 if it does not exist (nothing printed), -1 on any other
 * error (printed).
 */
static int record_read(const char *root, int purpose, const char *file,
		       uint64_t *used, unsigned long long *started)
{
	char path[PATH_MAX], buf[128];
	bool opened;
	int err;

	if (umh_path(path, sizeof(path), root, purpose, file))
		return -1;
	err = read_small(path, buf, sizeof(buf), &opened);
	if (err == -ENOENT && !opened)
		return 1;
	if (err) {
		umh_err("cannot %s %s: %s%s", opened ? "read" : "open", path,
			strerror(-err),
			err == -EACCES || err == -EPERM ?
			"; the record is readable by root only: run as root" : "");
		return -1;
	}
	if (used ? !parse_bound(buf, used) : !parse_count(buf, started))
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	umh_err("cannot parse %s: unexpected content \"%.40s\"; expected %s",
		path, buf, used ? "two decimal 32-bit words" :
		"a decimal count");
	return -1;
}

/*
 * The kernel's record of what helpers used and how many it started since
 * boot.  Returns 0, 1 if this kernel keeps no record (rec->missing names
 * the file that is not there; nothing printed), -1 on error (printed).
 */
int umh_record_load(const char *root, struct umh_record *rec)
{
	static const char *const files[] = { "used", "started" };
	bool per_purpose = umh_has_per_purpose(root);
	const struct umh_purpose_info *u;
	int p, f, ret;

	memset(rec, 0, sizeof(*rec));
	umh_for_each(u) {
		p = u->id;
		if (p != UMH_ALL && !per_purpose) {
			/* An unpatched kernel with a record: there is none. */
			umh_path(rec->missing, sizeof(rec->missing), root,
				 UMH_MODPROBE, NULL);
			return 1;
		}
		for (f = 0; f < 2; f++) {
			ret = record_read(root, p, files[f],
					  f ? NULL : &rec->used[p],
					  &rec->started[p]);
			if (ret <= 0) {
				if (ret < 0)
					return -1;
				continue;
			}
			if (umh_path(rec->missing, sizeof(rec->missing), root,
				     p, files[f]))
				return -1;
			if (p == UMH_ALL)
				return 1;
			/* The global record is there, a purpose's is not. */
			umh_err("cannot open %s: %s; the kernel's record of what helpers use is incomplete",
				rec->missing, strerror(ENOENT));
			return -1;
		}
	}
	return 0;
}

void umh_no_record(const struct umh_record *rec)
{
	umh_err("this kernel keeps no record of what usermode helpers use (no %s); boot a kernel with the usermodehelper record (used and started files) to learn their bounds",
		rec->missing);
}
