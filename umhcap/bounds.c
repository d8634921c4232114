// SPDX-License-Identifier: GPL-2.0
/*
 * Reading and writing the usermodehelper bound and identity files:
 *   ROOT/proc/sys/kernel/usermodehelper/{bset,inheritable}
 *   ROOT/proc/sys/kernel/usermodehelper/<purpose>/{bset,inheritable}
 *   ROOT/proc/sys/kernel/usermodehelper/<purpose>/{uid,gid}
 * Format: a bound is two unsigned 32-bit decimal words, low word first;
 * an id one decimal word, which is not (u32)-1.  And which bounds are
 * open, and what export and boot give for them.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umhcap.h"

#define UMH_DIR	"/proc/sys/kernel/usermodehelper"

/*
 * Path of a bound file, or of the directory when @file is NULL, its
 * symlinks resolved in the root (umh_in_root()).
 */
int umh_path(char *buf, size_t len, const char *root, int purpose,
	     const char *file)
{
	char *rel, *path;
	int n;

	rel = umh_xasprintf(UMH_DIR "%s%s%s%s",
			    purpose == UMH_ALL ? "" : "/",
			    purpose == UMH_ALL ? "" : umh_purpose_name(purpose),
			    file ? "/" : "", file ? file : "");
	path = umh_in_root(root, rel, true);
	if (!path) {
		umh_err("cannot follow %s%s: %s", root, rel, strerror(errno));
		free(rel);
		return -1;
	}
	free(rel);
	n = snprintf(buf, len, "%s", path);
	free(path);
	if (n < 0 || (size_t)n >= len) {
		umh_err("path too long under root %s; use a shorter --root",
			root);
		return -1;
	}
	return 0;
}

/* Is modprobe's @file (NULL: its directory) there, of type @type? */
static bool modprobe_has(const char *root, const char *file, mode_t type)
{
	char path[PATH_MAX];
	struct stat st;

	if (umh_path(path, sizeof(path), root, UMH_MODPROBE, file))
		return false;
	return !stat(path, &st) && (st.st_mode & S_IFMT) == type;
}

bool umh_has_per_purpose(const char *root)
{
	return modprobe_has(root, NULL, S_IFDIR);
}

/* Identities: <purpose>/uid and gid, beside the bounds. */
static bool umh_has_idents(const char *root)
{
	return modprobe_has(root, "uid", S_IFREG);
}

void umh_no_per_purpose(const char *root)
{
	char path[PATH_MAX];

	if (umh_path(path, sizeof(path), root, UMH_MODPROBE, NULL))
		return;
	umh_err("per-purpose bounds are not available on this kernel (no %s); use the global bound (-p all) or boot a kernel with per-purpose usermodehelper bounds",
		path);
}

void umh_no_idents(const char *root)
{
	char path[PATH_MAX];

	if (umh_path(path, sizeof(path), root, UMH_MODPROBE, "uid"))
		return;
	umh_err("no identities in this kernel (no %s): its helpers run as root, and cannot run as another user; boot a kernel with usermodehelper identities (<purpose>/uid and gid)",
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

/* A decimal id and a newline, as the kernel prints uid and gid. */
static int parse_id(const char *s, uint64_t *id)
{
	unsigned long long v;

	if (parse_count(s, &v) || v >= UINT32_MAX)
		return -1;
	*id = v;
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

/*
 * Read @path, which holds what @parse takes, @expected says what that is.
 * Prints its own error; returns 0 or -1.
 */
static int read_value(const char *path,
		      int (*parse)(const char *s, uint64_t *v),
		      const char *expected, uint64_t *v)
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
	if (parse(buf, v)) {
		buf[strcspn(buf, "\n")] = '\0';
		umh_err("cannot parse %s: unexpected content \"%.40s\"; expected %s",
			path, buf, expected);
		return -1;
	}
	return 0;
}

/* Prints its own error; returns 0 or -1. */
int umh_bound_read(const char *path, uint64_t *mask)
{
	return read_value(path, parse_bound, "two decimal 32-bit words",
			  mask);
}

/* Prints its own error; returns 0 or -1. */
int umh_id_read(const char *path, uint32_t *id)
{
	uint64_t v;

	if (read_value(path, parse_id, "a decimal id", &v))
		return -1;
	*id = v;
	return 0;
}

/*
 * @fmt, formatted, to @path in one write(2).  Returns 0 or a negative
 * errno; the caller explains the error.
 */
static int write_value(const char *path, const char *fmt, ...)
	__printf(2, 3);

static int write_value(const char *path, const char *fmt, ...)
{
	char buf[32];
	va_list ap;
	ssize_t n;
	int fd, len, err = 0;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
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
	/* Even a write that failed may have changed it. */
	umh_wrote(path);
	return err;
}

int umh_bound_write(const char *path, uint64_t mask)
{
	return write_value(path, "%u %u\n", (uint32_t)mask,
			   (uint32_t)(mask >> 32));
}

int umh_id_write(const char *path, uint32_t id)
{
	return write_value(path, "%u\n", id);
}

/* The bound of @p, and its identity where the kernel has them. */
static int load_purpose(const char *root, struct umh_state *st, int p)
{
	char path[PATH_MAX];

	if (umh_path(path, sizeof(path), root, p, "bset") ||
	    umh_bound_read(path, &st->b[p].bset))
		return -1;
	if (umh_path(path, sizeof(path), root, p, "inheritable") ||
	    umh_bound_read(path, &st->b[p].inh))
		return -1;
	if (p == UMH_ALL || !st->idents)
		return 0;
	if (umh_path(path, sizeof(path), root, p, "uid") ||
	    umh_id_read(path, &st->id[p].uid))
		return -1;
	if (umh_path(path, sizeof(path), root, p, "gid") ||
	    umh_id_read(path, &st->id[p].gid))
		return -1;
	return 0;
}

int umh_load(const char *root, struct umh_state *st)
{
	const struct umh_purpose_info *u;

	memset(st, 0, sizeof(*st));
	st->per_purpose = umh_has_per_purpose(root);
	st->idents = st->per_purpose && umh_has_idents(root);
	umh_for_each(u) {
		if (u->id != UMH_ALL && !st->per_purpose)
			break;
		if (load_purpose(root, st, u->id))
			return -1;
	}
	return 0;
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

/*
 * What export and boot give of a state.  A purpose whose bounds are both
 * open is left out: there is nothing to narrow.  A bound that is open
 * beside one that is not is given as every bit of the 64, which the
 * kernel takes, so that it keeps a capability a newer kernel adds.
 */

/* Both bounds of @b hold every capability the kernel knows. */
bool umh_bound_open(const struct umh_bound *b)
{
	uint64_t full = caps_full();

	return (b->bset & full) == full && (b->inh & full) == full;
}

/* What to give for @mask: every bit, where it holds every capability. */
uint64_t umh_bound_given(uint64_t mask)
{
	return (mask & caps_full()) == caps_full() ? ~0ULL : mask;
}

/* Is @p given?  The global bound, and the purposes where there are. */
bool umh_exported(const struct umh_state *st, int p)
{
	return p == UMH_ALL || st->per_purpose;
}

/* Is every bound that is given open? */
bool umh_all_open(const struct umh_state *st)
{
	const struct umh_purpose_info *u;

	umh_for_each(u)
		if (umh_exported(st, u->id) && !umh_bound_open(&st->b[u->id]))
			return false;
	return true;
}
