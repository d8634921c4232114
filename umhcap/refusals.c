// SPDX-License-Identifier: GPL-2.0
/*
 * refusals: the capability checks the bounds refused helpers, from the
 * kernel's own lines (kernel/umh_refused.c):
 *
 *   umh: refused a capability its bounds withhold: purpose=P pid=N
 *   comm="C" exe="E" uid=U cap=K
 *
 * counted per boot, per purpose, program and capability.  They come from
 * the journal, every boot it keeps, read with libsystemd's sd-journal
 * (built with UMHCAP_SD_JOURNAL, where pkg-config finds libsystemd);
 * where there is no journal, or umhcap was built without libsystemd (the
 * static umhcap.static of the guest), from /dev/kmsg, this boot only.
 *
 * Only the kernel's own lines count: facility 0 (LOG_KERN), which the
 * kernel never lets a process write to /dev/kmsg, so that a process that
 * can write there, a compromised root helper among them, cannot add a
 * refusal.  What the kernel refused a helper is still what the helper
 * asked for, and a compromised helper asks for what it likes: the counts
 * say what was refused, not what a helper needs.  The kernel rate-limits
 * its lines per purpose, so a count is at least that many.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef UMHCAP_SD_JOURNAL
#include <systemd/sd-journal.h>
#endif

#include "umhcap.h"

#define PREFIX		"umh: refused a capability its bounds withhold: "
#define LINE_MAX_LEN	4096


/* @s holds only what the kernel's escaping leaves: printable ASCII. */
static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

/* The value of KEY="..." in @msg, the kernel's escaping kept; or NULL. */
static char *quoted_field(const char *msg, const char *key)
{
	const char *s = strstr(msg, key), *end;

	if (!s)
		return NULL;
	s += strlen(key);
	/* The kernel escapes every quote: the next one ends the value. */
	end = strchr(s, '"');
	if (!end)
		return NULL;
	return umh_xasprintf("%.*s", (int)(end - s), s);
}

/* The boot @boot read, in the order of the log, each once. */
static void add_boot(struct umh_refusals *rs, const char *boot)
{
	if (rs->nboots && !strcmp(rs->boots[rs->nboots - 1], boot))
		return;
	rs->boots = realloc(rs->boots, (rs->nboots + 1) * sizeof(*rs->boots));
	if (!rs->boots) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	snprintf(rs->boots[rs->nboots++], sizeof(*rs->boots), "%s", boot);
}

/*
 * Count the refusal in @msg, of boot @boot, logged at @t (-1: not
 * known), if it is one, and if it was logged at @since or later.
 */
static void add_line(struct umh_refusals *rs, const char *boot, const char *msg,
		     long long t, long long since)
{
	char purpose[32], *exe, *p;
	struct umh_refusal *r;
	int cap, id;
	size_t i;

	if (strncmp(msg, PREFIX, strlen(PREFIX)) || !printable(msg))
		return;
	/* Under --since, a line of no known time is not known to count. */
	if (since != UMH_NO_TIME && (t < 0 || t < since))
		return;
	msg += strlen(PREFIX);
	p = strstr(msg, " cap=");
	if (sscanf(msg, "purpose=%31s ", purpose) != 1 || !p ||
	    sscanf(p, " cap=%d", &cap) != 1 || cap < 0 || cap > 63)
		return;
	id = umh_purpose_lookup(purpose);
	exe = quoted_field(msg, " exe=\"");
	if (id < 0 || !exe) {
		free(exe);
		return;
	}
	for (i = 0; i < rs->n; i++) {
		r = &rs->r[i];
		if (!strcmp(r->boot, boot) && r->purpose == id &&
		    r->cap == cap && !strcmp(r->exe, exe)) {
			r->count++;
			if (t >= 0 && (r->first < 0 || t < r->first))
				r->first = t;
			if (t > r->last)
				r->last = t;
			free(exe);
			return;
		}
	}
	if (rs->n == rs->size) {
		rs->size = rs->size ? 2 * rs->size : 16;
		rs->r = realloc(rs->r, rs->size * sizeof(*rs->r));
		if (!rs->r)
			umh_oom();
	}
	r = &rs->r[rs->n++];
	*r = (struct umh_refusal){ .purpose = id, .exe = exe, .cap = cap,
			       .count = 1, .first = t, .last = t };
	snprintf(r->boot, sizeof(r->boot), "%s", boot);
}

/* ---- the journal ---- */

#ifdef UMHCAP_SD_JOURNAL
/* What /dev/kmsg's error says of the journal, when it is read instead. */
#define NO_JOURNAL	"no journal"

/*
 * The journal's boot id, 32 hex digits, as the kernel's boot_id gives
 * it, 8-4-4-4-12; any other text as it is.
 */
static void boot_id(char *out, const char *id)
{
	if (strlen(id) == 32 && strspn(id, "0123456789abcdef") == 32)
		snprintf(out, UMH_BOOT_ID_LEN + 1, "%.8s-%.4s-%.4s-%.4s-%.12s",
			 id, id + 8, id + 12, id + 16, id + 20);
	else
		snprintf(out, UMH_BOOT_ID_LEN + 1, "%s", id);
}

/* A journal file's name: NAME.journal, or NAME.journal~ (set aside). */
static bool journal_file(const char *name)
{
	size_t n = strlen(name);

	return (n > 8 && !strcmp(name + n - 8, ".journal")) ||
	       (n > 9 && !strcmp(name + n - 9, ".journal~"));
}

/* A machine's directory of journal files: its machine id, 32 hex digits. */
static bool machine_dir(const char *name)
{
	return strlen(name) == 32 && strspn(name, "0123456789abcdef") == 32;
}

/*
 * Add to @files (@n of them) the journal files of @dir, the root's path
 * of it, and of each machine's directory in it, as journalctl --root
 * finds them, each read in the root (umh_in_root()); a directory that is
 * not there holds none.  0, or -errno of the directory that cannot be
 * read, which *@bad names.
 */
static int journal_files(const char *root, const char *dir, char ***files,
			 size_t *n, char **bad, int depth)
{
	char *real = umh_in_root(root, dir, true), *rel, *path;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0;

	d = real ? opendir(real) : NULL;
	if (!d) {
		ret = errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
		if (ret)
			*bad = umh_xasprintf("%s%s", root, dir);
		free(real);
		return ret;
	}
	free(real);
	while (!ret && (errno = 0, de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		rel = umh_xasprintf("%s/%s", dir, de->d_name);
		path = umh_in_root(root, rel, true);
		if (!path || stat(path, &st)) {
			free(path);
			free(rel);
			continue;
		}
		if (S_ISREG(st.st_mode) && journal_file(de->d_name)) {
			*files = realloc(*files, (*n + 2) * sizeof(**files));
			if (!*files) {
				umh_oom();
				exit(UMH_EXIT_ERROR);
			}
			(*files)[(*n)++] = path;
			(*files)[*n] = NULL;
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth == 0 && machine_dir(de->d_name))
			ret = journal_files(root, rel, files, n, bad, 1);
		free(path);
		free(rel);
	}
	if (!ret && errno) {
		ret = -errno;
		*bad = umh_xasprintf("%s%s", root, dir);
	}
	closedir(d);
	return ret;
}

/*
 * The value of the field @name of the entry @j is at, as a string, into
 * *@out: NULL where the entry has none, or one of bytes no text holds (a
 * NUL).  0, or -errno.
 */
static int field(sd_journal *j, const char *name, char **out)
{
	size_t len, flen = strlen(name);
	const void *data;
	int r;

	*out = NULL;
	r = sd_journal_get_data(j, name, &data, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (len <= flen || memchr(data, '\0', len))
		return 0;
	*out = umh_xasprintf("%.*s", (int)(len - flen - 1),
			     (const char *)data + flen + 1);
	return 0;
}

/*
 * The kernel's lines of the journal under @root, every boot it keeps,
 * those logged at @since or later, through libsystemd's sd-journal: 0,
 * 1 where there is no journal file to read, or -1 after an error.
 * Every journal file must open: one that does not, corrupt or
 * unreadable, is named, and nothing is shown, as a count without it
 * would say fewer refusals than the kernel logged.
 */
static int from_journal(const char *root, bool quiet, long long since,
			struct umh_refusals *rs)
{
	static const char *const dirs[] = {
		"/var/log/journal", "/run/log/journal",
	};
	char boot[UMH_BOOT_ID_LEN + 1], **files = NULL, *bad = NULL;
	char hex[SD_ID128_STRING_MAX], *msg, *fac;
	sd_journal *j = NULL;
	sd_id128_t id;
	uint64_t usec;
	long long t;
	size_t i, n = 0;
	int r = 0;

	for (i = 0; i < ARRAY_SIZE(dirs) && !r; i++)
		r = journal_files(root, dirs[i], &files, &n, &bad, 0);
	if (r) {
		if (!quiet)
			umh_err("refusals: cannot read the journal's directory %s: %s; nothing is shown",
				bad, strerror(-r));
		goto out;
	}
	if (!n) {
		r = 1;		/* no journal: /dev/kmsg */
		goto out;
	}
	r = sd_journal_open_files(&j, (const char **)files, 0);
	if (r < 0) {
		/* Which file: each alone, the first that does not open. */
		for (i = 0; i < n && !bad; i++) {
			int e = sd_journal_open_files(&j, (const char *[]){ files[i], NULL }, 0);

			if (e < 0) {
				bad = umh_xstrdup(files[i]);
				r = e;
			} else {
				sd_journal_close(j);
			}
			j = NULL;
		}
		if (!quiet)
			umh_err("refusals: cannot read the journal file %s: %s; nothing is shown",
				bad ? bad : files[0], strerror(-r));
		goto out;
	}
	r = sd_journal_add_match(j, "_TRANSPORT=kernel", 0);
	if (r < 0) {
		if (!quiet)
			umh_err("refusals: cannot read the journal: %s",
				strerror(-r));
		goto out;
	}
	while ((r = sd_journal_next(j)) > 0) {
		boot[0] = '\0';
		msg = fac = NULL;
		r = field(j, "SYSLOG_FACILITY", &fac);
		if (!r)
			r = field(j, "MESSAGE", &msg);
		if (!r) {
			t = sd_journal_get_realtime_usec(j, &usec) < 0 ? -1 :
			    (long long)(usec / 1000000);
			/* The entry's boot, as journalctl gives its _BOOT_ID. */
			if (sd_journal_get_monotonic_usec(j, &usec, &id) >= 0) {
				sd_id128_to_string(id, hex);
				boot_id(boot, hex);
			}
			if (*boot)
				add_boot(rs, boot);
			/* Facility 0, LOG_KERN: the kernel's own lines only. */
			if (msg && fac && !strcmp(fac, "0"))
				add_line(rs, boot, msg, t, since);
		}
		free(msg);
		free(fac);
		if (r)
			break;
	}
	if (r < 0) {
		if (!quiet)
			umh_err("refusals: cannot read the journal: %s; nothing is shown",
				strerror(-r));
		goto out;
	}
	r = 0;
	rs->source = "journal";
out:
	if (j)
		sd_journal_close(j);
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	free(bad);
	return r > 0 ? 1 : r ? -1 : 0;
}
#else
#define NO_JOURNAL	"no journal read (umhcap was built without libsystemd)"

/* Built without libsystemd: no journal is read, and /dev/kmsg is. */
static int from_journal(const char *root, bool quiet, long long since,
			struct umh_refusals *rs)
{
	(void)root;
	(void)quiet;
	(void)since;
	(void)rs;
	return 1;
}
#endif

/* ---- /dev/kmsg ---- */

/*
 * /dev/kmsg's records, this boot: "PRIO,SEQ,USEC,FLAGS;MESSAGE", then
 * continuation lines that start with a space.  PRIO holds the facility
 * times 8: 0 is the kernel's; USEC, the microseconds since boot, gives
 * the time with the boot's (/proc/stat's btime).  The device gives one
 * record a read, in O_NONBLOCK until EAGAIN (EPIPE: records overwritten
 * meanwhile); a plain file, under --root, reads to its end.
 */
static int from_kmsg(const char *root, const char *boot, bool quiet,
		     long long since, struct umh_refusals *rs)
{
	char *path = umh_xasprintf("%s/dev/kmsg", root);
	char *real = umh_in_root(root, "/dev/kmsg", true);
	char chunk[LINE_MAX_LEN], *text, *line, *next, *semi;
	long long btime = umh_btime(root), t;
	unsigned long long us;
	unsigned int prio;
	size_t size;
	ssize_t n;
	FILE *all;
	int fd;

	fd = real ? open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd < 0) {
		if (!quiet)
			umh_err("refusals: " NO_JOURNAL ", and cannot open %s: %s",
				path, strerror(errno));
		free(real);
		free(path);
		return -1;
	}
	free(real);
	all = umh_xmemstream(&text, &size);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EPIPE)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			if (!quiet)
				umh_err("refusals: cannot read %s: %s", path,
					strerror(errno));
			umh_xmemclose(all);
			free(text);
			close(fd);
			free(path);
			return -1;
		}
		fwrite(chunk, 1, n, all);
	}
	umh_xmemclose(all);
	close(fd);
	free(path);
	for (line = text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		semi = strchr(line, ';');
		if (*line == ' ' || !semi || sscanf(line, "%u,", &prio) != 1 ||
		    prio >= 8)
			continue;
		t = btime >= 0 && sscanf(line, "%*u,%*u,%llu,", &us) == 1 ?
		    btime + (long long)(us / 1000000) : -1;
		add_line(rs, boot, semi + 1, t, since);
	}
	free(text);
	add_boot(rs, boot);
	rs->source = "kmsg";
	return 0;
}

/* ---- the command ---- */

/* " since T", " in its last N boots", both, or "", for a note. */
static char *scope(const struct umh_args *a)
{
	char *since = a->since != UMH_NO_TIME ? umh_time_iso(a->since) : NULL;
	char *s;

	if (since && a->last)
		s = umh_xasprintf(" since %s, in its last %ld boot%s", since,
				  a->last, a->last == 1 ? "" : "s");
	else if (since)
		s = umh_xasprintf(" since %s", since);
	else if (a->last)
		s = umh_xasprintf(" in its last %ld boot%s", a->last,
				  a->last == 1 ? "" : "s");
	else
		s = umh_xstrdup("");
	free(since);
	return s;
}

static void print_text(const struct umh_args *a, const struct umh_refusals *rs,
		       const char *this_boot)
{
	const char *boot = NULL;
	char *cap, *when, *in = scope(a);
	size_t i;

	if (!rs->n) {
		printf("no refusals in the %s%s\n", !strcmp(rs->source, "kmsg") ?
		       "kernel log of this boot (/dev/kmsg)" : "journal", in);
		free(in);
		return;
	}
	if (*in)
		printf("refusals logged%s:\n\n", in);
	free(in);
	for (i = 0; i < rs->n; i++) {
		const struct umh_refusal *r = &rs->r[i];

		if (!boot || strcmp(boot, r->boot)) {
			boot = r->boot;
			printf("%sboot %s%s:\n", i ? "\n" : "",
			       *boot ? boot : "(unknown)",
			       !strcmp(boot, this_boot) ? " (this boot)" : "");
			printf("  %-14s %-22s %6s  %-20s  %s\n", "PURPOSE",
			       "CAPABILITY", "COUNT", "LAST SEEN", "PROGRAM");
		}
		cap = caps_list(1ULL << r->cap);
		when = r->last >= 0 ? umh_time_iso(r->last) : umh_xstrdup("-");
		printf("  %-14s %-22s %6lu  %-20s  %s\n",
		       umh_purpose_name(r->purpose), cap, r->count, when,
		       *r->exe ? r->exe : "(none)");
		free(when);
		free(cap);
	}
}

static void print_json(const struct umh_args *a, const struct umh_refusals *rs,
		       const char *this_boot)
{
	const char *boot = NULL;
	size_t i;

	umh_print_json_begin();
	printf(",\"source\":\"%s\"", rs->source);
	umh_print_json_time("since", a->since == UMH_NO_TIME ? -1 : a->since);
	if (a->last)
		printf(",\"last\":%ld", a->last);
	else
		fputs(",\"last\":null", stdout);
	fputs(",\"boots\":[", stdout);
	for (i = 0; i < rs->n; i++) {
		const struct umh_refusal *r = &rs->r[i];

		if (!boot || strcmp(boot, r->boot)) {
			if (boot)
				fputs("]},", stdout);
			boot = r->boot;
			fputs("\n  {\"boot_id\":", stdout);
			umh_print_json_string(boot);
			printf(",\"this_boot\":%s,\"refusals\":[",
			       !strcmp(boot, this_boot) ? "true" : "false");
		} else {
			putchar(',');
		}
		fputs("\n    ", stdout);
		umh_print_json_refusal(r);
	}
	printf("%s\n]}\n", boot ? "]}" : "");
}

/**
 * umh_refusals_read - the refusals the kernel logged, counted
 * @root: the root, as --root gives it
 * @boot: this boot's id, or ""
 * @quiet: say nothing of a source that fails
 * @since: count only those logged then or later; UMH_NO_TIME: all
 * @rs: filled; umh_refusals_free() frees it, whatever this returns
 *
 * Return: 0, or -1 after an error (said unless @quiet).
 */
int umh_refusals_read(const char *root, const char *boot, bool quiet,
		      long long since, struct umh_refusals *rs)
{
	int ret;

	*rs = (struct umh_refusals){ 0 };
	ret = from_journal(root, quiet, since, rs);
	if (ret > 0) {
		umh_refusals_free(rs);
		ret = from_kmsg(root, boot, quiet, since, rs);
	}
	return ret;
}

/* Only the refusals of the @last boots read last (0: all of them). */
void umh_refusals_last(struct umh_refusals *rs, long last)
{
	size_t i, k, from, n = 0;
	bool keep;

	if (last <= 0 || (size_t)last >= rs->nboots)
		return;
	from = rs->nboots - last;
	for (i = 0; i < rs->n; i++) {
		for (keep = false, k = from; k < rs->nboots && !keep; k++)
			keep = !strcmp(rs->r[i].boot, rs->boots[k]);
		if (keep)
			rs->r[n++] = rs->r[i];
		else
			free(rs->r[i].exe);
	}
	rs->n = n;
}

void umh_refusals_free(struct umh_refusals *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		free(rs->r[i].exe);
	free(rs->r);
	free(rs->boots);
	*rs = (struct umh_refusals){ 0 };
}

int cmd_refusals(const struct umh_args *a)
{
	struct umh_refusals rs;
	char this_boot[UMH_BOOT_ID_LEN + 1] = "";
	int ret;

	if (umh_boot_id(a->root, this_boot))
		this_boot[0] = '\0';
	ret = umh_refusals_read(a->root, this_boot, false, a->since, &rs);
	umh_refusals_last(&rs, a->last);
	/*
	 * The journal is in time order, and so each boot's refusals come
	 * together, in the order they were first logged.
	 */
	if (!ret) {
		if (a->json)
			print_json(a, &rs, this_boot);
		else
			print_text(a, &rs, this_boot);
	}
	umh_refusals_free(&rs);
	return ret ? UMH_EXIT_ERROR : UMH_EXIT_OK;
}
