// SPDX-License-Identifier: GPL-2.0
/*
 * trace: follow umh/umh_exec events in a private tracefs instance and
 * print one readable line per usermode helper start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "umhcap.h"

#define INSTANCE	"instances/umhcap"
#define EVENT		"events/umh/umh_exec"

enum {
	F_PURPOSE, F_PATH, F_ARGV, F_PID, F_COMM, F_UID, F_BSET, F_INH, F_RET,
	F_NR,
};

static const char *const keys[F_NR] = {
	"purpose=", " path=", " argv=", " trigger_pid=", " trigger_comm=",
	" trigger_uid=", " bset=", " inheritable=", " ret=",
};

struct trace {
	const struct umh_opts *o;
	char tracefs[PATH_MAX];
	char instance[PATH_MAX];
	bool created;		/* we made the instance, so we remove it */
	bool enabled;		/* we turned the event on */
	long count;		/* events left to print; < 0 = unlimited */
	int fd;
};

static volatile sig_atomic_t stop;

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

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int find_tracefs(struct trace *t)
{
	static const char *const mnt[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mnt); i++) {
		if (xpath(t->tracefs, sizeof(t->tracefs), "%s%s", t->o->root,
			  mnt[i]) ||
		    xpath(path, sizeof(path), "%s/instances", t->tracefs))
			return -1;
		if (is_dir(path))
			return 0;
	}
	umh_err("tracefs not found at %s/sys/kernel/tracing or %s/sys/kernel/debug/tracing; mount it: mount -t tracefs nodev /sys/kernel/tracing",
		t->o->root, t->o->root);
	return -1;
}

static int check_event(struct trace *t)
{
	char path[PATH_MAX];

	if (xpath(path, sizeof(path), "%s/" EVENT, t->tracefs))
		return -1;
	if (is_dir(path))
		return 0;
	umh_err("trace event umh/umh_exec not found (no %s); boot a kernel with the usermodehelper trace events",
		path);
	return -1;
}

static int write_enable(struct trace *t, const char *val)
{
	char path[PATH_MAX];
	int fd, err = 0;

	if (xpath(path, sizeof(path), "%s/" EVENT "/enable", t->instance))
		return -1;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		err = errno;
	else if (write(fd, val, 1) != 1)
		err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (!err)
		return 0;
	umh_err("cannot write %s to %s: %s%s", val, path, strerror(err),
		err == EACCES || err == EPERM ? "; run as root" : "");
	return -1;
}

static int trace_open(struct trace *t)
{
	char path[PATH_MAX];
	int err;

	if (xpath(t->instance, sizeof(t->instance), "%s/" INSTANCE,
		  t->tracefs))
		return -1;
	if (!mkdir(t->instance, 0755)) {
		t->created = true;
	} else if (errno != EEXIST) {
		err = errno;
		umh_err("cannot create tracefs instance %s: %s%s", t->instance,
			strerror(err), err == EACCES || err == EPERM ?
			"; run as root" : "");
		return -1;
	}
	if (write_enable(t, "1"))
		return -1;
	t->enabled = true;
	if (xpath(path, sizeof(path), "%s/trace_pipe", t->instance))
		return -1;
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0) {
		umh_err("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void trace_close(struct trace *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->enabled)
		write_enable(t, "0");
	if (rmdir(t->instance) && t->created)
		umh_warn("cannot remove tracefs instance %s: %s; remove it with rmdir",
			 t->instance, strerror(errno));
}

/* Split the event body into NUL-terminated fields, in place. */
static int split_fields(char *body, char *val[F_NR])
{
	char pat[32], *hit;
	int i;

	if (strncmp(body, keys[F_PURPOSE], strlen(keys[F_PURPOSE])))
		return -1;
	val[F_PURPOSE] = body + strlen(keys[F_PURPOSE]);
	for (i = 1; i < F_NR; i++) {
		if (*val[i - 1] == '"') {
			snprintf(pat, sizeof(pat), "\"%s", keys[i]);
			hit = strstr(val[i - 1] + 1, pat);
			if (hit)
				hit++;
		} else {
			hit = strstr(val[i - 1], keys[i]);
		}
		if (!hit)
			return -1;
		*hit = '\0';
		val[i] = hit + strlen(keys[i]);
	}
	val[F_RET][strcspn(val[F_RET], " \t\r\n")] = '\0';
	return 0;
}

static char *unquote(char *s)
{
	size_t n = strlen(s);

	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s[n - 1] = '\0';
		return s + 1;
	}
	return s;
}

static int parse_hex(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 16);
	return errno || end == s || *end ? -1 : 0;
}

static const char *errno_name(long err)
{
	return err < INT_MAX ? strerrorname_np(err) : NULL;
}

static void print_result(const char *s)
{
	const char *name;
	char *end;
	long ret;

	errno = 0;
	ret = strtol(s, &end, 10);
	if (errno || end == s || *end) {
		printf("result: %s", s);
		return;
	}
	name = ret < 0 ? errno_name(-ret) : NULL;
	if (ret == 0)
		printf("result: ok");
	else if (name)
		printf("result: %s", name);
	else
		printf("result: %ld", ret);
}

static void print_caps(const struct trace *t, const char *label,
		       uint64_t mask)
{
	char *names = caps_format(mask);

	if (t->o->hex)
		printf("%s: %s [0x%" PRIx64 "]; ", label, names, mask);
	else
		printf("%s: %s; ", label, names);
	free(names);
}

/* Returns 1 if an event was printed, 0 if the line was skipped. */
static int print_event(const struct trace *t, char *line)
{
	char *mark, *ts, *val[F_NR], *args;
	uint64_t bset, inh;

	mark = strstr(line, ": umh_exec: ");
	if (!mark)
		return 0;
	*mark = '\0';
	ts = strrchr(line, ' ');
	ts = ts ? ts + 1 : line;
	if (split_fields(mark + strlen(": umh_exec: "), val) ||
	    parse_hex(val[F_BSET], &bset) || parse_hex(val[F_INH], &inh)) {
		umh_warn("cannot parse umh_exec event at %s; skipped", ts);
		return 0;
	}
	args = unquote(val[F_ARGV]);
	printf("%s %s: %s%s%s (trigger pid=%s comm=%s uid=%s) ", ts,
	       val[F_PURPOSE], val[F_PATH], *args ? " " : "", args,
	       val[F_PID], val[F_COMM], val[F_UID]);
	print_caps(t, "caps", bset);
	if (inh)
		print_caps(t, "inheritable", inh);
	print_result(val[F_RET]);
	putchar('\n');
	return 1;
}

/* Returns true when tracing should stop. */
static bool handle_line(struct trace *t, char *line)
{
	if (!print_event(t, line))
		return false;
	if (fflush(stdout) == EOF)
		return true;	/* EPIPE: the reader went away */
	return t->count > 0 && --t->count == 0;
}

static int wait_readable(int fd, const sigset_t *orig)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (ppoll(&pfd, 1, NULL, orig) < 0 && errno != EINTR) {
		umh_err("cannot poll trace_pipe: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int trace_loop(struct trace *t, const sigset_t *orig)
{
	char buf[8192], *nl, *line;
	size_t len = 0;
	ssize_t n;

	while (!stop) {
		if (wait_readable(t->fd, orig))
			return -1;
		if (stop)
			break;
		n = read(t->fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			umh_err("cannot read trace_pipe: %s", strerror(errno));
			return -1;
		}
		if (n == 0) {
			buf[len] = '\0';
			if (len)
				handle_line(t, buf);
			break;
		}
		len += n;
		buf[len] = '\0';
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = '\0';
			if (handle_line(t, line))
				return 0;
		}
		len -= line - buf;
		memmove(buf, line, len);
		if (len == sizeof(buf) - 1) {
			umh_warn("overlong trace line skipped");
			len = 0;
		}
	}
	return 0;
}

static int parse_trace_args(const struct umh_opts *o, int argc, char **argv,
			    long *count)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		if (c != 'c')
			goto usage;
		errno = 0;
		*count = strtol(optarg, &end, 10);
		if (errno || *end || end == optarg || *count <= 0) {
			umh_err("bad --count \"%s\"; give a positive number",
				optarg);
			return -1;
		}
	}
	if (optind != argc)
		goto usage;
	if (o->json) {
		umh_err("--json is not supported by trace");
		return -1;
	}
	return 0;
usage:
	umh_err("usage: umhcap trace [--count N]");
	return -1;
}

int cmd_trace(const struct umh_opts *o, int argc, char **argv)
{
	struct trace t = { .o = o, .count = -1, .fd = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, orig;
	int ret = UMH_EXIT_ERROR;

	if (parse_trace_args(o, argc, argv, &t.count) ||
	    find_tracefs(&t) || check_event(&t))
		return UMH_EXIT_ERROR;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (!trace_open(&t) && !trace_loop(&t, &orig))
		ret = UMH_EXIT_OK;
	if (t.instance[0])
		trace_close(&t);
	return ret;
}
