// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's record is lost at reboot.  umhcap save keeps each boot's
 * in STATE_DIR/boots/BOOT_ID (STATE_DIR /var/lib/umhcap, under the
 * root), one text file per boot, which a later save of the same boot
 * replaces:
 *
 *   umhcap-record 1
 *   # saved by umhcap 0.1 at 2025-01-02T03:04:05Z
 *   boot_id 0b6a1f0e-3c1d-4f55-9a43-2b8e1f0c9d77
 *   saved 1735787045
 *   btime 1735786000
 *   kernel 6.12.118
 *   all started 6 used 65539 0
 *   modprobe started 4 used 65536 0
 *   ...
 *   other started 0 used 0 0
 *
 * The first line, exactly; then, in any order, each once, the boot id
 * (the file's name), the save time and, if /proc/stat gave it, the boot
 * time, both in seconds since the epoch; if the kernel gave it, its
 * release (printable ASCII, no space); and one line per purpose, and
 * one for all, with the number of helpers started and the capabilities
 * used, in the kernel's two decimal 32-bit words, low word first.  A
 * line starting with '#' is a comment.  Fields are separated by one
 * space; every line ends with a newline.
 *
 * The commands that learn (learn, export --learned) merge the saved
 * boots into this boot's record: used is the union, started the sum.
 * A file that is not exactly that, that is not a regular file, or that
 * someone other than root (or the user umhcap runs as) owns or may
 * write, is refused with a warning and merged not at all: merging only
 * widens what helpers used, but a forged record of a purpose that
 * "started" and used nothing would narrow it to nothing.  This boot's
 * saved file is left out: the live record holds all it holds, and more.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "umhcap.h"

/* A saved file is far smaller: 9 lines of at most 60 bytes, and comments. */
#define SAVED_MAX	8192

/* ROOT/STATE_DIR/boots; the caller frees it. */
char *umh_boots_dir(const char *root, const char *state_dir)
{
	return umh_xasprintf("%s%s/boots", root,
			     state_dir ? state_dir : UMH_STATE_DIR);
}

/* 8-4-4-4-12 lowercase hex digits, as the kernel prints a boot id. */
static bool is_boot_id(const char *s, size_t n)
{
	size_t i;

	if (n != UMH_BOOT_ID_LEN)
		return false;
	for (i = 0; i < n; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isdigit((unsigned char)s[i]) &&
			   !(s[i] >= 'a' && s[i] <= 'f')) {
			return false;
		}
	}
	return true;
}

bool umh_is_boot_id(const char *s)
{
	return is_boot_id(s, strlen(s));
}

/* A kernel release as a saved file holds it: printable, no space. */
static bool is_release(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > UMH_KERNEL_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return false;
	return true;
}

/*
 * This boot's kernel release, from ROOT/proc/sys/kernel/osrelease, into
 * @rel; "" where it cannot be read, or is not one.
 */
void umh_kernel_release(const char *root, char rel[UMH_KERNEL_LEN + 1])
{
	size_t len;
	char *buf;

	rel[0] = '\0';
	if (!umh_read_in_root(root, "/proc/sys/kernel/osrelease", 256, &buf,
			      &len)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (is_release(buf))
			strcpy(rel, buf);
		free(buf);
	}
}

/*
 * This boot's id, from ROOT/proc/sys/kernel/random/boot_id.  Returns 0,
 * or -1 after an error (printed).
 */
int umh_boot_id(const char *root, char id[UMH_BOOT_ID_LEN + 1])
{
	char *path = umh_xasprintf("%s/proc/sys/kernel/random/boot_id", root);
	size_t len;
	char *buf;
	int err;

	err = umh_read_in_root(root, "/proc/sys/kernel/random/boot_id", 64,
			       &buf, &len);
	if (err) {
		umh_err("cannot read %s: %s; it tells this boot's record from the others: check --root/UMHCAP_ROOT and that /proc is mounted",
			path, strerror(-err));
		free(path);
		return -1;
	}
	if (len != UMH_BOOT_ID_LEN + 1 || buf[UMH_BOOT_ID_LEN] != '\n' ||
	    !is_boot_id(buf, UMH_BOOT_ID_LEN)) {
		buf[strcspn(buf, "\n")] = '\0';
		umh_err("cannot parse %s: unexpected content \"%.40s\"; expected a boot id, 8-4-4-4-12 hex digits",
			path, buf);
		free(buf);
		free(path);
		return -1;
	}
	memcpy(id, buf, UMH_BOOT_ID_LEN);
	id[UMH_BOOT_ID_LEN] = '\0';
	free(buf);
	free(path);
	return 0;
}

/* Decimal digits only, to a value no more than @max. */
static int parse_ull(const char *s, unsigned long long max,
		     unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v > max ? -1 : 0;
}

/* The boot time, from ROOT/proc/stat's btime line; -1 without it. */
long long umh_btime(const char *root)
{
	char *buf, *line, *nl;
	unsigned long long v;
	long long t = -1;
	size_t len;

	if (umh_read_in_root(root, "/proc/stat", 1 << 22, &buf, &len))
		return -1;
	for (line = buf; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(line, "btime ", 6) &&
		    !parse_ull(line + 6, LLONG_MAX, &v)) {
			t = v;
			break;
		}
	}
	free(buf);
	return t;
}

/* "2025-01-02T03:04:05Z"; the caller frees it. */
char *umh_time_iso(long long t)
{
	time_t tt = t;
	struct tm tm;
	char buf[64];

	if (!gmtime_r(&tt, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return umh_xasprintf("@%lld", t);
	return umh_xstrdup(buf);
}

/*
 * The text of a saved record: boot @boot_id's @rec, saved at @saved,
 * the boot at @btime (-1: not known), of kernel @kernel ("": not known).
 * The caller frees it.
 */
char *umh_saved_format(const char *boot_id, long long saved, long long btime,
		       const char *kernel, const struct umh_record *rec)
{
	const struct umh_purpose_info *u;
	char *iso = umh_time_iso(saved);
	size_t size;
	char *text;
	FILE *f;

	f = umh_xmemstream(&text, &size);
	fprintf(f, UMH_SAVED_MAGIC "\n# saved by umhcap %s at %s\n"
		"boot_id %s\nsaved %lld\n", UMHCAP_VERSION, iso, boot_id,
		saved);
	if (btime >= 0)
		fprintf(f, "btime %lld\n", btime);
	if (*kernel)
		fprintf(f, "kernel %s\n", kernel);
	umh_for_each(u)
		fprintf(f, "%s started %llu used %u %u\n", u->name,
			rec->started[u->id], (uint32_t)rec->used[u->id],
			(uint32_t)(rec->used[u->id] >> 32));
	umh_xmemclose(f);
	free(iso);
	return text;
}

/* Split @line at single spaces into at most @max fields; -1 if more. */
static int split(char *line, char **field, int max)
{
	int n = 0;

	for (;;) {
		if (n == max)
			return -1;
		field[n++] = line;
		line = strchr(line, ' ');
		if (!line)
			return n;
		*line++ = '\0';
	}
}

/* Is it the first time? */
static bool first_time(bool *seen)
{
	bool first = !*seen;

	*seen = true;
	return first;
}

/* One line of a saved file.  Returns NULL, or what is wrong with it. */
static const char *parse_line(char *line, struct umh_saved *s, bool seen[])
{
	enum { SEEN_ID = UMH_NR, SEEN_SAVED, SEEN_BTIME, SEEN_KERNEL };
	unsigned long long v, lo, hi;
	char *f[8];
	int n, p;

	n = split(line, f, 8);
	if (n == 2 && !strcmp(f[0], "boot_id")) {
		if (!first_time(&seen[SEEN_ID]))
			return "a second boot_id line";
		if (!is_boot_id(f[1], strlen(f[1])))
			return "a boot id is 8-4-4-4-12 lowercase hex digits";
		strcpy(s->boot_id, f[1]);
		return NULL;
	}
	if (n == 2 && (!strcmp(f[0], "saved") || !strcmp(f[0], "btime"))) {
		p = f[0][0] == 's' ? SEEN_SAVED : SEEN_BTIME;
		if (!first_time(&seen[p]))
			return "a second saved or btime line";
		if (parse_ull(f[1], LLONG_MAX, &v))
			return "a time is a decimal number of seconds";
		if (p == SEEN_SAVED)
			s->saved = v;
		else
			s->btime = v;
		return NULL;
	}
	if (n == 2 && !strcmp(f[0], "kernel")) {
		if (!first_time(&seen[SEEN_KERNEL]))
			return "a second kernel line";
		if (!is_release(f[1]))
			return "a kernel release is 1 to 64 printable characters, no space";
		strcpy(s->kernel, f[1]);
		return NULL;
	}
	p = umh_purpose_lookup(f[0]);
	if (p < 0)
		return "expected boot_id, saved, btime, kernel, or a purpose's name";
	if (n != 6 || strcmp(f[1], "started") || strcmp(f[3], "used"))
		return "expected \"PURPOSE started N used LOW HIGH\"";
	if (!first_time(&seen[p]))
		return "a second line of the purpose";
	if (parse_ull(f[2], ULLONG_MAX, &s->rec.started[p]) ||
	    parse_ull(f[4], UINT32_MAX, &lo) ||
	    parse_ull(f[5], UINT32_MAX, &hi))
		return "expected decimal numbers: started N, used two 32-bit words";
	s->rec.used[p] = hi << 32 | lo;
	return NULL;
}

/*
 * Parse @text, the file @name.  Returns NULL, or what is wrong with it,
 * with *@line the line (0: the file as a whole).
 */
static const char *parse_saved(char *text, size_t len, const char *name,
			       struct umh_saved *s, int *line)
{
	bool seen[UMH_NR + 4] = { false };
	const struct umh_purpose_info *u;
	const char *why = NULL;
	char *l, *nl;

	memset(s, 0, sizeof(*s));
	s->btime = -1;
	*line = 0;
	if (strlen(text) != len)
		return "a NUL byte in it";
	if (!len || text[len - 1] != '\n')
		return "not ended by a newline (cut short?)";
	for (l = text; !why && *l; l = nl + 1) {
		nl = strchr(l, '\n');
		*nl = '\0';
		++*line;
		if (*line == 1)
			why = strcmp(l, UMH_SAVED_MAGIC) ?
			      "not \"" UMH_SAVED_MAGIC "\": not a record umhcap saved, or of a later version" :
			      NULL;
		else if (*l != '#')
			why = parse_line(l, s, seen);
	}
	if (why)
		return why;
	*line = 0;
	if (!seen[UMH_NR] || !seen[UMH_NR + 1])
		return "no boot_id or no saved line";
	umh_for_each(u)
		if (!seen[u->id])
			return "a purpose has no line";
	if (strcmp(s->boot_id, name))
		return "its boot_id is not its name";
	return NULL;
}

/*
 * @st, of @path: a regular file or (@dir) directory that only root, or
 * the user umhcap runs as, owns and may write.  Returns NULL, or why not,
 * in @why.
 */
static const char *untrusted(const struct stat *st, bool dir, char *why,
			     size_t len)
{
	if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		snprintf(why, len, "not a %s", dir ? "directory" :
			 "regular file");
	else if (st->st_uid && st->st_uid != geteuid())
		snprintf(why, len, "owned by uid %u, not root; only root may write what learn merges: chown root",
			 (unsigned int)st->st_uid);
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, len, "%s-writable (mode %04o); only root may write what learn merges: chmod go-w",
			 st->st_mode & S_IWOTH ? "world" : "group",
			 (unsigned int)(st->st_mode & 07777));
	else
		return NULL;
	return why;
}

/*
 * Read and parse @name in @dir (fd @dfd).  Returns 0, or -1 after a
 * warning that names the file and says why it is refused.
 */
static int read_saved(int dfd, const char *dir, const char *name,
		      struct umh_saved *s)
{
	char *text = NULL, why[160];
	const char *bad = NULL;
	size_t len = 0;
	struct stat st;
	int fd, line = 0, err = 0;
	ssize_t n;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		err = errno;
	else if (fstat(fd, &st))
		err = errno;
	else
		bad = untrusted(&st, false, why, sizeof(why));
	if (!err && !bad) {
		text = malloc(SAVED_MAX + 1);
		if (!text) {
			umh_oom();
			exit(UMH_EXIT_ERROR);
		}
		n = read(fd, text, SAVED_MAX + 1);
		if (n < 0)
			err = errno;
		else if (n > SAVED_MAX)
			bad = "larger than any record umhcap saves";
		else
			len = n;
	}
	if (fd >= 0)
		close(fd);
	if (!err && !bad) {
		text[len] = '\0';
		bad = parse_saved(text, len, name, s, &line);
	}
	free(text);
	if (err)
		umh_warn("ignoring saved record %s/%s: %s", dir, name,
			 err == ELOOP ? "a symbolic link" : strerror(err));
	else if (bad && line)
		umh_warn("ignoring saved record %s/%s: line %d: %s", dir,
			 name, line, bad);
	else if (bad)
		umh_warn("ignoring saved record %s/%s: %s", dir, name, bad);
	return err || bad ? -1 : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names in @dir (fd @dfd), but for dot files (a save's temporary
 * file), sorted, so that warnings come in one order; *@n of them.
 * Returns NULL on error (printed), *@n = 0.
 */
static char **list_dir(int dfd, const char *dir, size_t *n)
{
	char **names = NULL, **nn;
	struct dirent *de;
	size_t size = 0;
	DIR *d;

	*n = 0;
	d = fdopendir(dup(dfd));
	if (!d) {
		umh_warn("cannot read %s: %s; merged no saved boot", dir,
			 strerror(errno));
		return NULL;
	}
	while ((errno = 0, de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (*n == size) {
			size = size ? 2 * size : 16;
			nn = realloc(names, size * sizeof(*names));
			if (!nn) {
				umh_oom();
				exit(UMH_EXIT_ERROR);
			}
			names = nn;
		}
		names[(*n)++] = umh_xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, *n, sizeof(*names), by_name);
	return names;
}

static unsigned long long add_sat(unsigned long long a, unsigned long long b)
{
	return a + b < a ? ULLONG_MAX : a + b;
}

/* Oldest first: by save time, then by boot id. */
static int by_saved(const void *a, const void *b)
{
	const struct umh_saved *x = a, *y = b;

	if (x->saved != y->saved)
		return x->saved < y->saved ? -1 : 1;
	return strcmp(x->boot_id, y->boot_id);
}

/*
 * Every saved boot in @dir, open as @dfd, into @set, but this one with
 * @skip_this.  Returns 0, or -1 after an error (printed): there are saved
 * boots, and this boot's id, which tells its own saved file, cannot be
 * read.
 */
static int read_dir(const char *root, int dfd, const char *dir,
		    bool skip_this, struct umh_saved_set *set)
{
	size_t i, n;
	char **names = list_dir(dfd, dir, &n);
	struct umh_saved s;
	int ret = 0;

	if (n && skip_this && umh_boot_id(root, set->boot_id))
		ret = -1;
	set->b = n ? calloc(n, sizeof(*set->b)) : NULL;
	if (n && !set->b) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	for (i = 0; i < n; i++) {
		if (ret) {
			/* Nothing read. */
		} else if (!is_boot_id(names[i], strlen(names[i]))) {
			umh_warn("ignoring %s/%s: not a saved record's name, a boot id",
				 dir, names[i]);
			set->refused++;
		} else if (skip_this && !strcmp(names[i], set->boot_id)) {
			set->superseded = true;
		} else if (read_saved(dfd, dir, names[i], &s)) {
			set->refused++;
		} else {
			set->b[set->n++] = s;
		}
		free(names[i]);
	}
	free(names);
	qsort(set->b, set->n, sizeof(*set->b), by_saved);
	return ret;
}

/**
 * umh_saved_read - the saved boots of a directory
 * @root: the root, as --root gives it, for this boot's id
 * @dir: the directory, @root and the root's path of it: read in the root
 *	(umh_in_root()), not through a link of its own
 * @skip_this: leave this boot's own file out, set->superseded
 * @set: filled, oldest first; umh_saved_set_free() frees it, whatever
 *	this returns
 *
 * A file, or the directory, that cannot be trusted or read is warned of
 * and left out, counted in set->refused; no directory, no boot.
 *
 * Return: 0, or -1 after an error (printed): there are saved boots, and
 * with @skip_this this boot's id cannot be read.
 */
int umh_saved_read(const char *root, const char *dir, bool skip_this,
		   struct umh_saved_set *set)
{
	char why[160], *real;
	const char *bad;
	struct stat st;
	int dfd, ret = 0;

	*set = (struct umh_saved_set){ 0 };
	real = umh_in_root(root, dir + strlen(root), false);
	dfd = real ? open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			  O_CLOEXEC) : -1;
	if (dfd < 0) {
		if (errno != ENOENT)
			umh_warn("cannot open %s: %s; merged no saved boot",
				 dir, errno == ELOOP || errno == ENOTDIR ?
				 "not a directory" : strerror(errno));
		free(real);
		return 0;
	}
	free(real);
	bad = fstat(dfd, &st) ? strerror(errno) :
	      untrusted(&st, true, why, sizeof(why));
	if (bad)
		umh_warn("ignoring the saved boots in %s: %s", dir, bad);
	else
		ret = read_dir(root, dfd, dir, skip_this, set);
	close(dfd);
	return ret;
}

void umh_saved_set_free(struct umh_saved_set *set)
{
	free(set->b);
	*set = (struct umh_saved_set){ 0 };
}

/*
 * Keep of @set, oldest first, only the boots saved at @since or later,
 * and of them the @last saved last (0: all).  Returns how many it left
 * out.
 */
int umh_saved_choose(struct umh_saved_set *set, long long since, long last)
{
	size_t i, n = 0, from;

	from = last > 0 && (size_t)last < set->n ? set->n - last : 0;
	for (i = 0; i < set->n; i++)
		if (i >= from && set->b[i].saved >= since)
			set->b[n++] = set->b[i];
	i = set->n - n;
	set->n = n;
	return i;
}

/* Saved boot @s merged into @rec, and counted in @m. */
void umh_merge_add(struct umh_merge *m, struct umh_record *rec,
		   const struct umh_saved *s)
{
	const struct umh_purpose_info *u;

	umh_for_each(u) {
		rec->used[u->id] |= s->rec.used[u->id];
		rec->started[u->id] = add_sat(rec->started[u->id],
					      s->rec.started[u->id]);
	}
	if (!m->saved || s->saved < m->first)
		m->first = s->saved;
	if (!m->saved || s->saved > m->last_saved)
		m->last_saved = s->saved;
	m->saved++;
}

/*
 * Merge into @rec, this boot's record, the saved boots of m->state_dir,
 * unless m->this_boot: those saved at m->since or later, and of them
 * the m->last saved last (all with 0); fill in the rest of @m.  A saved
 * file, or the directory, that cannot be trusted or read is warned of
 * and left out.  Returns 0, or -1 after an error (printed), as
 * umh_saved_read().
 */
int umh_saved_merge(const char *root, struct umh_merge *m,
		    struct umh_record *rec)
{
	char *dir = umh_boots_dir(root, m->state_dir);
	struct umh_saved_set set;
	size_t i;
	int ret = 0;

	m->boot_id[0] = '\0';
	m->saved = m->refused = m->skipped = 0;
	m->superseded = false;
	m->first = m->last_saved = 0;
	if (m->this_boot) {
		free(dir);
		return 0;
	}
	ret = umh_saved_read(root, dir, true, &set);
	free(dir);
	strcpy(m->boot_id, set.boot_id);
	m->refused = set.refused;
	m->superseded = set.superseded;
	if (!ret)
		m->skipped = umh_saved_choose(&set, m->since, m->last);
	for (i = 0; !ret && i < set.n; i++)
		umh_merge_add(m, rec, &set.b[i]);
	umh_saved_set_free(&set);
	return ret;
}

/*
 * What @m merged, after "learned from": "2 saved boots (saved A to B)
 * and this boot", and what it left out.  The caller frees it.
 */
char *umh_merge_describe(const char *root, const struct umh_merge *m)
{
	char *first = umh_time_iso(m->first), *last = umh_time_iso(m->last_saved);
	char *dir = umh_boots_dir(root, m->state_dir);
	char *s, *span, *refused, *skipped, *since = NULL;

	if (m->nfrom)
		span = umh_xasprintf("%zu machine%s: %d saved boot%s%s%s%s%s%s",
				     m->nfrom, m->nfrom == 1 ? "" : "s",
				     m->saved, m->saved == 1 ? "" : "s",
				     m->saved ? " (saved " : "",
				     m->saved ? first : "",
				     m->saved > 1 ? " to " : "",
				     m->saved > 1 ? last : "",
				     m->saved ? ")" : "");
	else if (m->saved > 1)
		span = umh_xasprintf("%d saved boots (saved %s to %s) and this boot",
				     m->saved, first, last);
	else if (m->saved)
		span = umh_xasprintf("1 saved boot (saved %s) and this boot",
				     first);
	else if (m->this_boot)
		span = umh_xstrdup("this boot only (--this-boot)");
	else if (m->skipped)
		span = umh_xstrdup("this boot only");
	else
		span = umh_xasprintf("this boot only: no other boot saved in %s",
				     dir);
	refused = m->refused ?
		  umh_xasprintf("; %d saved file%s refused (see the warnings)",
				m->refused, m->refused == 1 ? "" : "s") :
		  umh_xstrdup("");
	if (m->since != UMH_NO_TIME)
		since = umh_time_iso(m->since);
	if (!m->skipped)
		skipped = umh_xstrdup("");
	else if (since && m->last > 0)
		skipped = umh_xasprintf("; %d older saved boot%s left out (--since %s, --last %ld)",
					m->skipped, m->skipped == 1 ? "" : "s",
					since, m->last);
	else if (since)
		skipped = umh_xasprintf("; %d saved boot%s before %s left out (--since)",
					m->skipped, m->skipped == 1 ? "" : "s",
					since);
	else
		skipped = umh_xasprintf("; %d older saved boot%s left out (--last %ld)",
					m->skipped, m->skipped == 1 ? "" : "s",
					m->last);
	s = umh_xasprintf("%s%s%s%s", span, skipped, m->superseded ?
			  "; this boot's saved record left out, the live one holds it" :
			  "", refused);
	free(since);
	free(skipped);
	free(refused);
	free(span);
	free(dir);
	free(first);
	free(last);
	return s;
}
