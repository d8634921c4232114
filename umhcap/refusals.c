// SPDX-License-Identifier: GPL-2.0
/*
 * refusals: the capability checks the bounds refused helpers, from the
 * kernel's own lines (kernel/umh_refused.c):
 *
 *   umh: refused a capability its bounds withhold: purpose=P pid=N
 *   comm="C" exe="E" uid=U cap=K
 *
 * counted per boot, per purpose, program and capability.  They come from
 * the journal, every boot it keeps, through journalctl -o export; where
 * there is no journal, from /dev/kmsg, this boot only.
 *
 * Only the kernel's own lines count: facility 0 (LOG_KERN), which the
 * kernel never lets a process write to /dev/kmsg, so that a process that
 * can write there, a compromised root helper among them, cannot add a
 * refusal.  What the kernel refused a helper is still what the helper
 * asked for, and a compromised helper asks for what it likes: the counts
 * say what was refused, not what a helper needs.  The kernel rate-limits
 * its lines per purpose, so a count is at least that many.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Is there a journal under @root for journalctl to read? */
static bool has_journal(const char *root)
{
	static const char *const dirs[] = {
		"/var/log/journal", "/run/log/journal",
	};
	struct stat st;
	char *path;
	size_t i;
	bool there = false;

	for (i = 0; i < ARRAY_SIZE(dirs) && !there; i++) {
		path = umh_xasprintf("%s%s", root, dirs[i]);
		there = !stat(path, &st) && S_ISDIR(st.st_mode);
		free(path);
	}
	return there;
}

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

/*
 * One entry of journalctl's export format: "KEY=value" lines up to a
 * blank one, __REALTIME_TIMESTAMP (microseconds since the epoch) among
 * them, which the format always has, into *@t (-1 without).  A binary
 * field (KEY, then a 64-bit length, then the data) is skipped: the
 * kernel's refusal lines are text.
 */
static int read_entry(FILE *f, char *boot, char **msg, bool *kernel,
		      long long *t)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int got = 0;

	*msg = NULL;
	*kernel = false;
	*t = -1;
	boot[0] = '\0';
	while ((n = getline(&line, &cap, f)) > 0) {
		got = 1;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (!n)
			break;
		if (!strchr(line, '=')) {
			uint64_t len;

			if (fread(&len, sizeof(len), 1, f) != 1 ||
			    fseeko(f, len, SEEK_CUR) || fgetc(f) != '\n')
				break;
			continue;
		}
		if (!strncmp(line, "MESSAGE=", 8)) {
			free(*msg);
			*msg = umh_xstrdup(line + 8);
		} else if (!strncmp(line, "_BOOT_ID=", 9)) {
			boot_id(boot, line + 9);
		} else if (!strcmp(line, "SYSLOG_FACILITY=0")) {
			*kernel = true;
		} else if (!strncmp(line, "__REALTIME_TIMESTAMP=", 21)) {
			char *end;
			long long us;

			errno = 0;
			us = strtoll(line + 21, &end, 10);
			*t = errno || *end || us < 0 ? -1 : us / 1000000;
		}
	}
	free(line);
	return got;
}

/*
 * journalctl's kernel lines, every boot, those logged at @since or
 * later: 0, 1 where there is no journalctl to run, or -1 after an error.
 */
static int from_journal(const char *root, bool quiet, long long since,
			struct umh_refusals *rs)
{
	char boot[UMH_BOOT_ID_LEN + 1], *msg, *dir = NULL;
	int fds[2], status;
	long long t;
	bool kernel;
	pid_t pid;
	FILE *f;

	if (*root)
		dir = umh_xasprintf("--root=%s", root);
	if (pipe(fds)) {
		umh_err("refusals: pipe: %s", strerror(errno));
		free(dir);
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		umh_err("refusals: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		free(dir);
		return -1;
	}
	if (!pid) {
		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		close(fds[1]);
		execlp("journalctl", "journalctl", "--quiet", "--no-pager",
		       "--output=export", "--output-fields=MESSAGE,_BOOT_ID,SYSLOG_FACILITY",
		       "_TRANSPORT=kernel", dir, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	free(dir);
	f = fdopen(fds[0], "r");
	if (!f) {
		close(fds[0]);
		waitpid(pid, NULL, 0);
		umh_oom();
	}
	while (read_entry(f, boot, &msg, &kernel, &t)) {
		if (*boot)
			add_boot(rs, boot);
		if (msg && kernel)
			add_line(rs, boot, msg, t, since);
		free(msg);
	}
	fclose(f);
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !rs->n)
		return 1;	/* no journalctl: /dev/kmsg */
	if (status) {
		if (!quiet)
			umh_err("refusals: journalctl failed (%s %d); nothing is shown",
				WIFEXITED(status) ? "exit" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status) :
				WTERMSIG(status));
		return -1;
	}
	rs->source = "journal";
	return 0;
}

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
	char chunk[LINE_MAX_LEN], *text, *line, *next, *semi;
	long long btime = umh_btime(root), t;
	unsigned long long us;
	unsigned int prio;
	size_t size;
	ssize_t n;
	FILE *all;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (!quiet)
			umh_err("refusals: no journal, and cannot open %s: %s",
				path, strerror(errno));
		free(path);
		return -1;
	}
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
	ret = has_journal(root) ? from_journal(root, quiet, since, rs) : 1;
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
