// SPDX-License-Identifier: GPL-2.0
/*
 * trace: follow umh/umh_exec events in a private tracefs instance and
 * print one readable line per usermode helper start; and, where the kernel
 * has umh/umh_capable, one line per capability check a helper (or a
 * process it started) was refused.
 *
 * tracefs lets uid 0 write its files without a capability: a helper may
 * change any instance whose name it knows, and could have made one named
 * as umhcap's, with a filter that hides it, before umhcap ran.  The
 * instance is named at random and made afresh, never reused, and what
 * could hide a helper in it is read back before anything is printed.
 *
 * The events are read in binary from the per-CPU trace_pipe_raw files and
 * decoded field by field with libtraceevent, never from the text of
 * trace_pipe: the strings of the event are chosen by users (a task names
 * itself, a crashing program's name becomes a core dump helper's
 * argument), and text can be made to look like more fields than it holds.
 *
 * With --json, one JSON object a line per event (JSON Lines), with the
 * fields of the text line, each string escaped as JSON.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>
#include <sys/capability.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "umhcap.h"

/* And 16 hex digits from getrandom(2). */
#define INSTANCE	"umhcap-"
#define SYSTEM		"umh"
#define EVENT		"umh_exec"
#define CAP_EVENT	"umh_capable"
/* Only refused checks that are not probes reach the buffer. */
#define CAP_FILTER	"ret != 0 && noaudit == 0"

/* How long to sleep when every buffer is empty; see trace_sleep(). */
#define POLL_MS		100
/* How long a busy instance is given to be let go of; see remove_instance(). */
#define RMDIR_WAIT_MS	2000
#define RMDIR_STEP_MS	10

/* The low bits of a sub-buffer's commit word: bytes of data on it. */
#define COMMIT_MASK	((1U << 27) - 1)
/* kbuffer may read up to one event header past the committed data. */
#define PAGE_SLACK	16

/*
 * A field of an event, as umhcap reads it: size 0 is a string.  An
 * optional one may be missing, as on a kernel from before it, and reads
 * as 0 then; if present, it must be of the type umhcap knows.
 */
struct field_spec {
	const char *name;
	int size;
	bool optional;
};

/*
 * The fields of umh_exec.  F_AS_UID and F_AS_GID, who the helper ran as,
 * came with the helpers' identities: a kernel without those lacks them,
 * and its helpers all ran as root.
 */
enum {
	F_PURPOSE, F_PATH, F_PROGRAM, F_ARGS, F_ARGC, F_PID, F_COMM, F_UID,
	F_BSET, F_INH, F_AS_UID, F_AS_GID, F_RET,
	F_NR,
};

static const struct field_spec exec_fields[F_NR] = {
	[F_PURPOSE]	= { "purpose",		0 },
	[F_PATH]	= { "path",		0 },
	[F_PROGRAM]	= { "program",		0 },
	[F_ARGS]	= { "args",		0 },
	[F_ARGC]	= { "argc",		4 },
	[F_PID]		= { "trigger_pid",	4 },
	[F_COMM]	= { "trigger_comm",	0 },
	[F_UID]		= { "trigger_uid",	4 },
	[F_BSET]	= { "bset",		8 },
	[F_INH]		= { "inheritable",	8 },
	[F_AS_UID]	= { "uid",		4, true },
	[F_AS_GID]	= { "gid",		4, true },
	[F_RET]		= { "ret",		4 },
};

/* The fields of umh_capable. */
enum {
	C_PURPOSE, C_PID, C_COMM, C_UID, C_CAP, C_NOAUDIT, C_RET,
	C_NR,
};

static const struct field_spec cap_fields[C_NR] = {
	[C_PURPOSE]	= { "purpose",	0 },
	[C_PID]		= { "pid",	4 },
	[C_COMM]	= { "comm",	0 },
	[C_UID]		= { "uid",	4 },
	[C_CAP]		= { "cap",	4 },
	[C_NOAUDIT]	= { "noaudit",	1 },
	[C_RET]		= { "ret",	4 },
};

/* Warnings given once per run. */
enum {
	W_FIELD		= 1 << 0,
	W_RECORD	= 1 << 1,
	W_PAGE		= 1 << 2,
	W_CAP_FIELD	= 1 << 3,
	W_CAP_RECORD	= 1 << 4,
};

struct cpu_buf {
	int cpu;
	int fd;
	bool can_end;		/* not on tracefs, so a read of 0 is the end */
	bool eof;		/* the file ended: only a fake tracefs does */
	bool loaded;		/* kbuf holds a page with records left */
	char *page;
	struct kbuffer *kbuf;
	bool has_rec;
	struct tep_record rec;	/* the next record of this CPU */
};

struct trace {
	const struct umh_args *a;
	char tracefs[PATH_MAX];
	char name[sizeof(INSTANCE) + 16];
	char dir[PATH_MAX];	/* of the instance */
	struct tracefs_instance *inst;
	bool created;		/* we made the instance, so we remove it */
	long count;		/* events left to print; < 0 = unlimited */
	struct tep_handle *tep;
	struct tep_event *event;
	struct tep_format_field *type;	/* common_type: which event */
	struct tep_format_field *f[F_NR];
	const char *bad_field;	/* first field of an unexpected type */
	struct tep_event *cap_event;	/* umh_capable, if the kernel has it */
	struct tep_format_field *cf[C_NR];
	const char *cap_bad_field;
	bool cap_enabled;	/* umh_capable is on, and filtered */
	int page_size;		/* of a ring-buffer sub-buffer */
	int hdr_size;		/* its header: timestamp and commit */
	int commit_size;
	struct cpu_buf *cpus;
	int ncpus;
	unsigned int warned;
};

/* A string field of one record: not terminated, not to be trusted. */
struct str {
	const char *s;
	size_t len;
};

struct umh_event {
	unsigned long long ts;
	unsigned long long num[F_NR];
	struct str str[F_NR];
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void warn_once(struct trace *t, unsigned int what, const char *fmt,
		      ...) __printf(3, 4);

static void warn_once(struct trace *t, unsigned int what, const char *fmt,
		      ...)
{
	char msg[512];
	va_list ap;

	if (t->warned & what)
		return;
	t->warned |= what;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	umh_warn("%s", msg);
}

/* snprintf for paths; fails loudly instead of truncating. */
static int xpath(char *buf, size_t len, const char *fmt, ...)
	__printf(3, 4);

static int xpath(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		umh_err("path too long: %s...; use a shorter --root", buf);
		return -1;
	}
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static const char *perm_hint(int err)
{
	return err == EACCES || err == EPERM ? "; run as root" : "";
}

/*
 * Look for tracefs ourselves, under --root, and hand libtracefs the
 * directory: left to itself, libtracefs would mount tracefs when it finds
 * none, and would never look under a fake root.
 */
static int find_tracefs(struct trace *t)
{
	static const char *const mnt[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[PATH_MAX], *real;
	struct stat st;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(mnt); i++) {
		/* In the root (umh_in_root()), as a mount of its own would be. */
		real = umh_in_root(t->a->root, mnt[i], true);
		if (!real) {
			umh_err("cannot look for tracefs at %s%s: %s",
				t->a->root, mnt[i], strerror(errno));
			return -1;
		}
		err = xpath(t->tracefs, sizeof(t->tracefs), "%s", real) ||
		      xpath(path, sizeof(path), "%s/instances", t->tracefs);
		free(real);
		if (err)
			return -1;
		if (stat(path, &st) && errno == EACCES) {
			/* tracefs is root's: not finding it would mislead */
			umh_err("cannot access %s: %s; run as root", path,
				strerror(errno));
			return -1;
		}
		if (!is_dir(path))
			continue;
		if (!tracefs_set_tracing_dir(t->tracefs))
			return 0;
		umh_oom();
		return -1;
	}
	umh_err("tracefs not found at %s/sys/kernel/tracing or %s/sys/kernel/debug/tracing; mount it: mount -t tracefs nodev /sys/kernel/tracing",
		t->a->root, t->a->root);
	return -1;
}

/* The layout of a ring-buffer sub-buffer, from events/header_page. */
static int load_header_page(struct trace *t)
{
	char *buf;
	int len = 0;

	errno = 0;
	buf = tracefs_instance_file_read(NULL, "events/header_page", &len);
	if (!buf || len <= 0) {
		int err = errno;

		free(buf);
		umh_err("cannot read %s/events/header_page: %s%s", t->tracefs,
			err ? strerror(err) : "empty file", perm_hint(err));
		return -1;
	}
	tep_parse_header_page(t->tep, buf, len, sizeof(long));
	free(buf);
	t->commit_size = tep_get_header_page_size(t->tep);
	t->page_size = tep_get_sub_buffer_size(t->tep);
	/* As kbuffer reads it: a u64 timestamp, a long commit, the data. */
	t->hdr_size = 8 + t->commit_size;
	if ((t->commit_size != 4 && t->commit_size != 8) ||
	    t->page_size <= t->hdr_size || t->page_size > (int)COMMIT_MASK) {
		umh_err("cannot parse %s/events/header_page", t->tracefs);
		return -1;
	}
	tep_set_long_size(t->tep, t->commit_size);
	return 0;
}

/*
 * Only the one event is parsed: its format file is all that is read, so a
 * format umhcap cannot parse is an error of its own, not a silent gap.
 */
static int load_event(struct trace *t)
{
	char path[PATH_MAX];
	char *buf;
	int len = 0;

	if (xpath(path, sizeof(path), "%s/events/" SYSTEM "/" EVENT,
		  t->tracefs))
		return -1;
	if (!is_dir(path)) {
		umh_err("trace event " SYSTEM "/" EVENT " not found (no %s); boot a kernel with the usermodehelper trace events",
			path);
		return -1;
	}
	buf = tracefs_event_file_read(NULL, SYSTEM, EVENT, "format", &len);
	if (buf && len > 0)
		tep_parse_event(t->tep, buf, len, SYSTEM);
	free(buf);
	t->event = tep_find_event_by_name(t->tep, SYSTEM, EVENT);
	if (!t->event) {
		umh_err("cannot parse %s/format", path);
		return -1;
	}
	return 0;
}

static bool field_ok(const struct tep_format_field *f, int size)
{
	const unsigned long not_num = TEP_FIELD_IS_ARRAY |
		TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING |
		TEP_FIELD_IS_POINTER;

	if (!f)
		return false;
	if (size)
		return !(f->flags & not_num) && f->size == size;
	/* __string(): a u32 of length << 16 | offset, then the bytes */
	return (f->flags & TEP_FIELD_IS_STRING) &&
	       (f->flags & TEP_FIELD_IS_DYNAMIC) && f->size == 4;
}

/*
 * Look the @n fields of @spec up in @event, once, into @f.  One that is
 * missing or of another type is not an error yet: *@bad names the first,
 * and every event is skipped, with one warning, when it comes.  An
 * optional field that is missing is left NULL, and is no fault.
 */
static void resolve_fields(struct tep_event *event,
			   const struct field_spec *spec, int n,
			   struct tep_format_field **f, const char **bad)
{
	int i;

	for (i = 0; i < n; i++) {
		f[i] = tep_find_field(event, spec[i].name);
		if (!f[i] && spec[i].optional)
			continue;
		if (!*bad && !field_ok(f[i], spec[i].size))
			*bad = spec[i].name;
	}
}

static int resolve_exec_fields(struct trace *t)
{
	t->type = tep_find_common_field(t->event, "common_type");
	if (!field_ok(t->type, 2)) {
		umh_err("cannot parse %s/events/" SYSTEM "/" EVENT "/format: no common_type",
			t->tracefs);
		return -1;
	}
	resolve_fields(t->event, exec_fields, F_NR, t->f, &t->bad_field);
	/* The identity comes whole: a uid without its gid is not read. */
	if (!t->bad_field && !t->f[F_AS_UID] != !t->f[F_AS_GID])
		t->bad_field = exec_fields[t->f[F_AS_UID] ? F_AS_GID :
					   F_AS_UID].name;
	return 0;
}

/*
 * umh_capable is optional: a kernel without it (or one whose format cannot
 * be parsed) still has its helper starts traced, and the latter says so.
 */
static void load_cap_event(struct trace *t)
{
	char path[PATH_MAX];
	char *buf;
	int len = 0;

	if (xpath(path, sizeof(path), "%s/events/" SYSTEM "/" CAP_EVENT,
		  t->tracefs) || !is_dir(path))
		return;
	buf = tracefs_event_file_read(NULL, SYSTEM, CAP_EVENT, "format", &len);
	if (buf && len > 0)
		tep_parse_event(t->tep, buf, len, SYSTEM);
	free(buf);
	t->cap_event = tep_find_event_by_name(t->tep, SYSTEM, CAP_EVENT);
	if (!t->cap_event) {
		umh_warn("cannot parse %s/format; refused capability checks are not shown",
			 path);
		return;
	}
	resolve_fields(t->cap_event, cap_fields, C_NR, t->cf,
		       &t->cap_bad_field);
}

static int trace_load(struct trace *t)
{
	t->tep = tep_alloc();
	if (!t->tep) {
		umh_oom();
		return -1;
	}
	/* The buffers of the running kernel are in the host's byte order. */
	tep_set_file_bigendian(t->tep, tep_is_bigendian() ? TEP_BIG_ENDIAN :
			       TEP_LITTLE_ENDIAN);
	if (load_header_page(t) || load_event(t) || resolve_exec_fields(t))
		return -1;
	load_cap_event(t);
	return 0;
}

static int enable_event(struct trace *t)
{
	errno = 0;
	if (tracefs_event_enable(t->inst, SYSTEM, EVENT)) {
		int err = errno;

		umh_err("cannot enable " SYSTEM "/" EVENT " in %s: %s%s",
			t->dir, err ? strerror(err) : "no such event",
			perm_hint(err));
		return -1;
	}
	return 0;
}

/*
 * Best effort: without umh_capable, helper starts are still traced.  The
 * filter keeps granted checks, which every helper makes by the dozen, out
 * of the buffer; the event is not turned on without it.
 */
static void enable_cap_event(struct trace *t)
{
	if (!t->cap_event)
		return;
	if (tracefs_event_file_write(t->inst, SYSTEM, CAP_EVENT, "filter",
				     CAP_FILTER) < 0 ||
	    tracefs_event_enable(t->inst, SYSTEM, CAP_EVENT)) {
		umh_warn("cannot enable " SYSTEM "/" CAP_EVENT " in %s; refused capability checks are not shown",
			 t->dir);
		return;
	}
	t->cap_enabled = true;
}

static struct cpu_buf *add_cpu(struct trace *t, int cpu)
{
	struct cpu_buf *c;

	c = realloc(t->cpus, (t->ncpus + 1) * sizeof(*c));
	if (!c)
		return NULL;
	t->cpus = c;
	c += t->ncpus++;
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->fd = -1;
	c->page = calloc(1, t->page_size + PAGE_SLACK);
	c->kbuf = kbuffer_alloc(t->commit_size == 8 ? KBUFFER_LSIZE_8 :
				KBUFFER_LSIZE_4, tep_is_bigendian() ?
				KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	return c->page && c->kbuf ? c : NULL;
}

static int open_cpu(struct trace *t, struct cpu_buf *c)
{
	struct statfs sfs;
	char file[64];

	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c->cpu);
	/* Non-blocking: an empty buffer must not hold up the others. */
	c->fd = tracefs_instance_file_open(t->inst, file,
					   O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0)
		goto err;
	/*
	 * trace_pipe_raw never ends.  It reads 0, not -EAGAIN, when the
	 * buffer holds data but no record to hand over yet (a discarded
	 * event's time stamp, say), and records come after that.  Only a
	 * file outside tracefs, a fake one, ends.
	 */
	if (fstatfs(c->fd, &sfs))
		goto err;
	c->can_end = sfs.f_type != TRACEFS_MAGIC;
	return 0;
err:
	umh_err("cannot open %s/%s: %s", t->dir, file, strerror(errno));
	return -1;
}

/* One reader per CPU that has a buffer, whichever CPUs those are. */
static int open_cpus(struct trace *t)
{
	struct dirent *d;
	struct cpu_buf *c;
	char *dir;
	DIR *dp;
	int cpu, ret = 0;
	char end;

	dir = tracefs_instance_get_file(t->inst, "per_cpu");
	dp = dir ? opendir(dir) : NULL;
	if (!dp) {
		umh_err("cannot open %s: %s", dir ? dir : "per_cpu",
			strerror(errno));
		tracefs_put_tracing_file(dir);
		return -1;
	}
	while (!ret && (d = readdir(dp))) {
		if (sscanf(d->d_name, "cpu%d%c", &cpu, &end) != 1 || cpu < 0)
			continue;
		c = add_cpu(t, cpu);
		if (!c) {
			umh_oom();
			ret = -1;
		} else {
			ret = open_cpu(t, c);
		}
	}
	closedir(dp);
	if (!ret && !t->ncpus) {
		umh_err("no per_cpu/cpuN buffers in %s", dir);
		ret = -1;
	}
	tracefs_put_tracing_file(dir);
	return ret;
}

/* INSTANCE and 16 hex digits no one can guess, in t->name. */
static int name_instance(struct trace *t)
{
	uint64_t r;
	ssize_t n;

	do
		n = getrandom(&r, sizeof(r), 0);
	while (n < 0 && errno == EINTR);
	if (n != sizeof(r)) {
		umh_err("cannot name a tracefs instance: getrandom: %s",
			n < 0 ? strerror(errno) : "short read");
		return -1;
	}
	snprintf(t->name, sizeof(t->name), INSTANCE "%016" PRIx64, r);
	return xpath(t->dir, sizeof(t->dir), "%s/instances/%s", t->tracefs,
		     t->name);
}

/*
 * Made here, or not at all: an instance that exists already was set up by
 * someone else, as they chose, and is never used.
 */
static int create_instance(struct trace *t)
{
	int err;

	if (name_instance(t))
		return -1;
	if (mkdir(t->dir, 0700)) {
		err = errno;
		if (err == EEXIST)
			umh_err("tracefs instance %s exists already: umhcap uses only an instance it made itself; run it again",
				t->dir);
		else
			umh_err("cannot create tracefs instance %s: %s%s",
				t->dir, strerror(err), perm_hint(err));
		return -1;
	}
	t->created = true;
	t->inst = tracefs_instance_alloc(t->tracefs, t->name);
	if (!t->inst) {
		umh_err("cannot use tracefs instance %s: %s", t->dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int trace_open(struct trace *t)
{
	if (create_instance(t))
		return -1;
	/* First: once umh_exec is on, a helper's refusals are seen too. */
	enable_cap_event(t);
	if (enable_event(t))
		return -1;
	return open_cpus(t);
}

/*
 * What umhcap's instance must hold while it traces: anything else may
 * hide helpers.  Its name cannot be guessed, but it can be found in
 * instances/, and uid 0 can write its files without a capability.
 */
static const struct {
	const char *file;
	const char *holds;
	bool cap;		/* only while umh_capable is on */
} inst_state[] = {
	{ "tracing_on",				"1",		false },
	{ "set_event_pid",			"",		false },
	{ "set_event_notrace_pid",		"",		false },
	{ "events/" SYSTEM "/" EVENT "/enable",	"1",		false },
	{ "events/" SYSTEM "/" EVENT "/filter",	"none",		false },
	{ "events/" SYSTEM "/" CAP_EVENT "/enable", "1",	true },
	{ "events/" SYSTEM "/" CAP_EVENT "/filter", CAP_FILTER,	true },
};

/*
 * The @n bytes at @s, as much as fits: each that is not printable ASCII,
 * and '"' and '\', as \xNN.
 */
static void escape(char *buf, size_t size, const char *s, size_t n)
{
	size_t len = 0;

	for (; n-- && len + 5 < size; s++) {
		unsigned char c = *s;

		if (c >= ' ' && c < 0x7f && c != '"' && c != '\\')
			buf[len++] = c;
		else
			len += snprintf(buf + len, size - len, "\\x%02x", c);
	}
	buf[len] = '\0';
}

/* Whether the instance's @file holds @want, and an error if not. */
static int check_file(const struct trace *t, const char *file,
		      const char *want)
{
	char path[PATH_MAX], buf[128], shown[4 * sizeof(buf)];
	ssize_t n = -1;
	bool cut;
	int fd, err;

	if (xpath(path, sizeof(path), "%s/%s", t->dir, file))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		n = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		umh_err("cannot read %s: %s", path, strerror(err));
		return -1;
	}
	cut = (size_t)n == sizeof(buf) - 1;
	if (n && buf[n - 1] == '\n')
		n--;
	if ((size_t)n == strlen(want) && !memcmp(buf, want, n))
		return 0;
	escape(shown, sizeof(shown), buf, n);
	umh_err("%s holds \"%s%s\", not \"%s\": umhcap's tracefs instance was changed, so helpers may be missing from the trace; umhcap learn shows what they used, from the kernel's record",
		path, shown, cut ? "..." : "", want);
	return -1;
}

static int check_instance(const struct trace *t)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(inst_state); i++)
		if ((!inst_state[i].cap || t->cap_enabled) &&
		    check_file(t, inst_state[i].file, inst_state[i].holds))
			return -1;
	return 0;
}

/*
 * tracefs refuses to remove an instance while any file of it is open
 * (EBUSY), and whoever changed the instance, which ends the trace, may
 * not have closed the file it wrote yet: give it a moment.  A holder
 * that keeps it open longer leaves the instance, and a warning.
 */
static int remove_instance(const struct trace *t)
{
	struct timespec step = { 0, RMDIR_STEP_MS * 1000000L };
	int waited = 0;

	while (rmdir(t->dir)) {
		if (errno != EBUSY || waited >= RMDIR_WAIT_MS)
			return -1;
		nanosleep(&step, NULL);
		waited += RMDIR_STEP_MS;
	}
	return 0;
}

static void trace_close(struct trace *t)
{
	int i;

	for (i = 0; i < t->ncpus; i++) {
		if (t->cpus[i].fd >= 0)
			close(t->cpus[i].fd);
		kbuffer_free(t->cpus[i].kbuf);
		free(t->cpus[i].page);
	}
	free(t->cpus);
	/* Its events and filters go with it. */
	if (t->created && remove_instance(t)) {
		int err = errno;

		umh_warn("cannot remove tracefs instance %s: %s%s; remove it with rmdir",
			 t->dir, strerror(err), err == EBUSY ?
			 " (a process holds one of its files open)" : "");
	}
	tracefs_instance_free(t->inst);
	if (t->tep)
		tep_free(t->tep);
}

/* ---- decoding ---- */

static bool in_record(const struct tep_record *rec,
		      const struct tep_format_field *f)
{
	return f->offset >= 0 && f->size >= 0 &&
	       f->offset + f->size <= rec->size;
}

static int get_num(struct tep_record *rec, struct tep_format_field *f,
		   unsigned long long *val)
{
	if (!in_record(rec, f))
		return -1;
	return tep_read_number_field(f, rec->data, val);
}

/* A string field, held to the record it is in, up to its first NUL. */
static int get_str(struct tep_event *event, struct tep_record *rec,
		   const struct tep_format_field *f, struct str *s)
{
	const char *base = rec->data, *p;
	int len = 0;

	if (!in_record(rec, f))
		return -1;
	p = tep_get_field_raw(NULL, event, f->name, rec, &len, 0);
	if (!p || len < 0 || p < base || p - base > rec->size ||
	    len > rec->size - (p - base))
		return -1;
	s->s = p;
	s->len = strnlen(p, len);
	return 0;
}

/*
 * The @n fields of @spec, at @f, from @rec: 0, or -1 if one is not in it.
 * An optional field the event lacks reads as 0, or as "".
 */
static int read_fields(struct tep_event *event, struct tep_record *rec,
		       const struct field_spec *spec, int n,
		       struct tep_format_field **f, unsigned long long *num,
		       struct str *str)
{
	int i;

	for (i = 0; i < n; i++) {
		num[i] = 0;
		str[i] = (struct str){ "", 0 };
		if (!f[i] && spec[i].optional)
			continue;
		if (spec[i].size ? get_num(rec, f[i], &num[i]) :
		    get_str(event, rec, f[i], &str[i]))
			return -1;
	}
	return 0;
}

/* ---- printing ---- */

/*
 * The kernel escapes these strings already.  Escape again whatever could
 * still reach the terminal raw, so that neither a kernel bug nor an older
 * kernel lets a string end the line or pass as a field of its own: any
 * byte that is not printable ASCII, and a space unless @spaces (the
 * arguments are joined by spaces).  '\' is left alone: it starts the
 * kernel's own escapes, and the kernel writes a real one as "\\".
 */
static void put_str(const struct str *s, bool spaces)
{
	size_t i;

	for (i = 0; i < s->len; i++) {
		unsigned char c = s->s[i];

		if ((c > ' ' && c < 0x7f) || (c == ' ' && spaces))
			putchar(c);
		else
			printf("\\x%02x", c);
	}
}

/* Arguments shown: the kernel joins whole ones by single spaces. */
static long args_shown(const struct str *args)
{
	long n = 1;
	size_t i;

	if (!args->len)
		return 0;
	for (i = 0; i < args->len; i++)
		n += args->s[i] == ' ';
	return n;
}

static bool str_eq(const struct str *a, const struct str *b)
{
	return a->len == b->len && !memcmp(a->s, b->s, a->len);
}

/*
 * The events carry the purpose's name, from the kernel's table.  Only a
 * name of umhcap's own table is printed, and from that table; anything
 * else (a purpose newer than umhcap, the kernel's "invalid", "all", a
 * fake or hostile tracefs) is shown as "purpose?" and its bytes, each
 * that is not a lowercase letter, a digit or '_' as \xNN: it can pass
 * neither for a purpose umhcap knows nor for another field.
 */
static int purpose_of(const struct str *s)
{
	char name[32];
	int p = -1;

	/* get_str() stopped at the first NUL: s->len is the whole name. */
	if (s->len < sizeof(name)) {
		memcpy(name, s->s, s->len);
		name[s->len] = '\0';
		p = umh_purpose_lookup(name);
	}
	return p >= 0 && p < UMH_NR_PURPOSES ? p : -1;
}

static void put_purpose(const struct str *s)
{
	int p = purpose_of(s);
	size_t i;

	if (p >= 0) {
		fputs(umh_purpose_name(p), stdout);
		return;
	}
	fputs("purpose?", stdout);
	for (i = 0; i < s->len; i++) {
		unsigned char c = s->s[i];

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '_')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
}

static void put_caps(const struct trace *t, const char *label,
		     uint64_t mask)
{
	char *names = caps_format(mask);

	if (t->a->hex)
		printf("%s: %s [0x%" PRIx64 "]; ", label, names, mask);
	else
		printf("%s: %s; ", label, names);
	free(names);
}

/* "ok", the errno's name, or the number; in @buf if it must be. */
static const char *result_text(int ret, char *buf, size_t len)
{
	const char *name = NULL;

	if (ret < 0 && ret > INT_MIN)
		name = strerrorname_np(-ret);
	if (ret == 0)
		return "ok";
	if (name)
		return name;
	snprintf(buf, len, "%d", ret);
	return buf;
}

static void put_result(int ret)
{
	char buf[16];

	printf("result: %s", result_text(ret, buf, sizeof(buf)));
}

/*
 * "as: user(uid):group(gid); ", who a helper ran as, unless root: with the
 * names this machine gives the ids, held to one field as strings are.
 */
static void put_ident(const struct umh_ident *id)
{
	struct str s;
	char *text;

	if (umh_is_root(id))
		return;
	text = umh_ident_format(id);
	s.s = text;
	s.len = strlen(text);
	fputs("as: ", stdout);
	put_str(&s, false);
	fputs("; ", stdout);
	free(text);
}

/* ,"@key":"..." of a string of an event, escaped as JSON. */
static void json_str(const char *key, const struct str *s)
{
	char *text = umh_xasprintf("%.*s", (int)s->len, s->s);

	umh_print_json_field(key, text);
	free(text);
}

/*
 * {"time":N.N,"event":"@event","purpose":..: the purpose's name, or null
 * and "unknown_purpose", the bytes the event holds.
 */
static void json_start(unsigned long long ts, const char *event,
		       const struct str *purpose)
{
	int p = purpose_of(purpose);

	printf("{\"time\":%llu.%06llu,\"event\":\"%s\"", ts / 1000000000,
	       ts % 1000000000 / 1000, event);
	umh_print_json_field("purpose", p >= 0 ? umh_purpose_name(p) : NULL);
	if (p < 0)
		json_str("unknown_purpose", purpose);
}

/* --json: a helper start, as one line of JSON. */
static void print_event_json(const struct trace *t, const struct umh_event *e)
{
	uint64_t caps = e->num[F_BSET];
	char buf[16];

	json_start(e->ts, "exec", &e->str[F_PURPOSE]);
	json_str("path", &e->str[F_PATH]);
	json_str("args", &e->str[F_ARGS]);
	printf(",\"argc\":%d", (int32_t)e->num[F_ARGC]);
	json_str("program", &e->str[F_PROGRAM]);
	printf(",\"trigger_pid\":%d", (int32_t)e->num[F_PID]);
	json_str("trigger_comm", &e->str[F_COMM]);
	printf(",\"trigger_uid\":%u", (uint32_t)e->num[F_UID]);
	/* A kernel from before the helpers' identities runs them as root. */
	if (t->f[F_AS_UID])
		printf(",\"uid\":%u,\"gid\":%u", (uint32_t)e->num[F_AS_UID],
		       (uint32_t)e->num[F_AS_GID]);
	else
		printf(",\"uid\":null,\"gid\":null");
	/* As print_event(): a user's helper gets only what both leave. */
	if ((uint32_t)e->num[F_AS_UID])
		caps &= e->num[F_INH];
	umh_print_json_mask("caps", caps);
	umh_print_json_mask("inheritable", e->num[F_INH]);
	umh_print_json_field("result", result_text((int32_t)e->num[F_RET],
						   buf, sizeof(buf)));
	printf(",\"ret\":%d}\n", (int32_t)e->num[F_RET]);
}

static void print_event(const struct trace *t, const struct umh_event *e)
{
	const struct str *args = &e->str[F_ARGS];
	long argc = (int32_t)e->num[F_ARGC], shown = args_shown(args);
	const struct umh_ident id = {
		.uid = (uint32_t)e->num[F_AS_UID],
		.gid = (uint32_t)e->num[F_AS_GID],
	};
	uint64_t caps = e->num[F_BSET];

	printf("%llu.%06llu ", e->ts / 1000000000, e->ts % 1000000000 / 1000);
	put_purpose(&e->str[F_PURPOSE]);
	fputs(": ", stdout);
	put_str(&e->str[F_PATH], false);
	if (args->len) {
		putchar(' ');
		put_str(args, true);
	}
	if (argc > shown)
		printf(" ...(+%ld)", argc - shown);
	if (!str_eq(&e->str[F_PROGRAM], &e->str[F_PATH])) {
		fputs(" [requested ", stdout);
		put_str(&e->str[F_PROGRAM], false);
		putchar(']');
	}
	printf(" (trigger pid=%d comm=", (int32_t)e->num[F_PID]);
	put_str(&e->str[F_COMM], false);
	printf(" uid=%u) ", (uint32_t)e->num[F_UID]);
	put_ident(&id);
	/*
	 * As a user, a helper gets only what both bounds leave, raised as
	 * ambient: the event's inheritable set is that already.
	 */
	if (id.uid)
		caps &= e->num[F_INH];
	put_caps(t, "caps", caps);
	if (e->num[F_INH])
		put_caps(t, "inheritable", e->num[F_INH]);
	put_result((int32_t)e->num[F_RET]);
	putchar('\n');
}

static void ts_text(char *buf, size_t len, unsigned long long ts)
{
	snprintf(buf, len, "%llu.%06llu", ts / 1000000000,
		 ts % 1000000000 / 1000);
}

static void put_cap(int cap)
{
	char *name = cap >= 0 ? cap_to_name(cap) : NULL;

	if (name) {
		fputs(name, stdout);
		cap_free(name);
	} else {
		printf("%d", cap);
	}
}

/* --json: a refused check, as one line of JSON. */
static void print_cap_json(unsigned long long ts,
			   const unsigned long long num[C_NR],
			   const struct str str[C_NR])
{
	int cap = (int32_t)num[C_CAP];
	char *name = cap >= 0 ? cap_to_name(cap) : NULL;

	json_start(ts, "refused", &str[C_PURPOSE]);
	umh_print_json_field("cap", name);
	printf(",\"cap_number\":%d,\"pid\":%d", cap, (int32_t)num[C_PID]);
	json_str("comm", &str[C_COMM]);
	printf(",\"uid\":%u}\n", (uint32_t)num[C_UID]);
	if (name)
		cap_free(name);
}

/*
 * A refused capability check of a helper, or of a process it started:
 * printed unless it was granted or a probe (the filter on the kernel side
 * keeps those out already; this does not rely on it).
 * Returns 1 if printed.
 */
static int handle_cap(struct trace *t, struct tep_record *rec)
{
	unsigned long long num[C_NR];
	struct str str[C_NR];
	char ts[32];

	if (t->cap_bad_field) {
		warn_once(t, W_CAP_FIELD, "the umh_capable field \"%s\" is missing or not of the type umhcap knows; refused capability checks are skipped (is umhcap older or newer than the kernel?)",
			  t->cap_bad_field);
		return 0;
	}
	if (read_fields(t->cap_event, rec, cap_fields, C_NR, t->cf, num,
			str)) {
		ts_text(ts, sizeof(ts), rec->ts);
		warn_once(t, W_CAP_RECORD, "malformed umh_capable record at %s skipped",
			  ts);
		return 0;
	}
	if (!(int32_t)num[C_RET] || (uint8_t)num[C_NOAUDIT])
		return 0;
	if (t->a->json) {
		print_cap_json(rec->ts, num, str);
		return 1;
	}
	printf("%llu.%06llu ", rec->ts / 1000000000,
	       rec->ts % 1000000000 / 1000);
	put_purpose(&str[C_PURPOSE]);
	printf(": refused ");
	put_cap((int32_t)num[C_CAP]);
	printf(" to pid=%d comm=", (int32_t)num[C_PID]);
	put_str(&str[C_COMM], false);
	printf(" uid=%u\n", (uint32_t)num[C_UID]);
	return 1;
}

/* Returns 1 if an event was printed, 0 if the record was skipped. */
static int handle_record(struct trace *t, struct tep_record *rec)
{
	unsigned long long id;
	struct umh_event e;
	char ts[32];

	if (get_num(rec, t->type, &id))
		return 0;
	if (t->cap_event && id == (unsigned long long)t->cap_event->id)
		return handle_cap(t, rec);
	if (id != (unsigned long long)t->event->id)
		return 0;	/* an event umhcap did not enable */
	if (t->bad_field) {
		warn_once(t, W_FIELD, "the umh_exec field \"%s\" is missing or not of the type umhcap knows; every event is skipped (is umhcap older or newer than the kernel?)",
			  t->bad_field);
		return 0;
	}
	e.ts = rec->ts;
	if (read_fields(t->event, rec, exec_fields, F_NR, t->f, e.num,
			e.str)) {
		ts_text(ts, sizeof(ts), rec->ts);
		warn_once(t, W_RECORD, "malformed umh_exec record at %s skipped",
			  ts);
		return 0;
	}
	if (t->a->json)
		print_event_json(t, &e);
	else
		print_event(t, &e);
	return 1;
}

/* ---- reading the per-CPU buffers ---- */

static unsigned long long read_commit(const struct trace *t,
				      const char *page)
{
	uint64_t c8;
	uint32_t c4;

	if (t->commit_size == 8) {
		memcpy(&c8, page + 8, 8);
		return c8;
	}
	memcpy(&c4, page + 8, 4);
	return c4;
}

/*
 * kbuffer trusts the commit word of a page, and so would read past it:
 * check it against what was read first.
 */
static int load_page(struct trace *t, struct cpu_buf *c, int len)
{
	unsigned long long commit;

	if (len < t->hdr_size)
		goto bad;
	commit = read_commit(t, c->page) & COMMIT_MASK;
	if (commit > (unsigned long long)(len - t->hdr_size))
		goto bad;
	memset(c->page + len, 0, t->page_size + PAGE_SLACK - len);
	if (kbuffer_load_subbuffer(c->kbuf, c->page))
		goto bad;
	c->loaded = true;
	return 0;
bad:
	warn_once(t, W_PAGE, "malformed ring-buffer page from CPU %d skipped",
		  c->cpu);
	return -1;
}

/* Returns 0 with c->page loaded, 1 if there is nothing now, -1 on error. */
static int read_page(struct trace *t, struct cpu_buf *c)
{
	ssize_t n;

	for (;;) {
		if (c->eof)
			return 1;
		n = read(c->fd, c->page, t->page_size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		if (n < 0) {
			umh_err("cannot read the buffer of CPU %d: %s",
				c->cpu, strerror(errno));
			return -1;
		}
		if (n == 0) {
			c->eof = c->can_end;
			return 1;
		}
		if (!load_page(t, c, n))
			return 0;
	}
}

static void lost_events(struct cpu_buf *c, long long missed)
{
	if (missed > 0)
		umh_warn("%lld events lost on CPU %d: the buffer was full",
			 missed, c->cpu);
	else
		umh_warn("events lost on CPU %d: the buffer was full", c->cpu);
}

/* Fill c->rec with the CPU's next record, if it has one now. */
static int next_record(struct trace *t, struct cpu_buf *c)
{
	unsigned long long ts;
	long long missed;
	char *data;
	int ret;

	while (!c->has_rec) {
		data = c->loaded ? kbuffer_read_event(c->kbuf, &ts) : NULL;
		if (!data) {
			c->loaded = false;
			ret = read_page(t, c);
			if (ret)
				return ret < 0 ? -1 : 0;
			continue;
		}
		memset(&c->rec, 0, sizeof(c->rec));
		c->rec.ts = ts;
		c->rec.data = data;
		c->rec.size = kbuffer_event_size(c->kbuf);
		c->rec.cpu = c->cpu;
		missed = kbuffer_missed_events(c->kbuf);
		kbuffer_next_event(c->kbuf, NULL);
		if (missed)
			lost_events(c, missed);
		/* A record must lie within the data the page committed. */
		if (c->rec.size < 0 ||
		    data + c->rec.size > c->page + t->hdr_size +
					 kbuffer_subbuffer_size(c->kbuf)) {
			warn_once(t, W_PAGE, "malformed ring-buffer page from CPU %d skipped",
				  c->cpu);
			c->loaded = false;
			continue;
		}
		c->has_rec = true;
	}
	return 0;
}

/* The CPU whose next record is the oldest, or NULL if none has one. */
static struct cpu_buf *oldest(struct trace *t)
{
	struct cpu_buf *best = NULL;
	int i;

	for (i = 0; i < t->ncpus; i++) {
		struct cpu_buf *c = &t->cpus[i];

		if (c->has_rec && (!best || c->rec.ts < best->rec.ts))
			best = c;
	}
	return best;
}

/* Returns true when tracing should stop. */
static bool emit(struct trace *t, struct tep_record *rec)
{
	if (!handle_record(t, rec))
		return false;
	if (fflush(stdout) == EOF) {
		/* EPIPE: the reader went away, the end it chose; not ENOSPC */
		if (errno == EPIPE)
			clearerr(stdout);
		return true;
	}
	return t->count > 0 && --t->count == 0;
}

/*
 * Print what the buffers hold now, oldest first across CPUs.  Returns 1
 * when tracing should stop, 0 when the buffers are empty, -1 on error.
 */
static int drain(struct trace *t)
{
	struct cpu_buf *c;
	int i;

	for (;;) {
		for (i = 0; i < t->ncpus; i++)
			if (next_record(t, &t->cpus[i]))
				return -1;
		c = oldest(t);
		if (!c)
			return 0;
		c->has_rec = false;
		if (emit(t, &c->rec))
			return 1;
	}
}

static bool all_eof(const struct trace *t)
{
	int i;

	for (i = 0; i < t->ncpus; i++)
		if (!t->cpus[i].eof)
			return false;
	return true;
}

/*
 * Sleep with SIGINT, SIGTERM and SIGHUP let through.  trace_pipe_raw
 * wakes a poller only once the buffer is buffer_percent full, too late for
 * a helper or two, so the buffers are looked at on a timer instead.
 */
static void trace_sleep(const sigset_t *orig)
{
	struct timespec ts = { 0, POLL_MS * 1000000L };

	ppoll(NULL, 0, &ts, orig);
}

/*
 * The instance is checked before each round of printing, the last one
 * after a signal included: a change that would hide helpers and lasts
 * until the next round ends the trace with an error.
 */
static int trace_loop(struct trace *t, const sigset_t *orig)
{
	int ret;

	for (;;) {
		if (check_instance(t))
			return -1;
		/* After a signal, print what came before it, then stop. */
		ret = drain(t);
		if (ret)
			return ret < 0 ? -1 : 0;
		if (stop || all_eof(t))
			return 0;
		trace_sleep(orig);
	}
}

int cmd_trace(const struct umh_args *a)
{
	struct trace t = { .a = a, .count = a->count };
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, orig;
	int ret = UMH_EXIT_ERROR;

	if (find_tracefs(&t) || trace_load(&t)) {
		if (t.tep)
			tep_free(t.tep);
		return UMH_EXIT_ERROR;
	}

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (!trace_open(&t) && !trace_loop(&t, &orig))
		ret = UMH_EXIT_OK;
	trace_close(&t);
	return ret;
}
