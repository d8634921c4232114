// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap trace (trace.c), on a fake tracefs.
 */
#include "common.h"

/* offsetof(..., __data), sizeof(struct trace_event_raw_umh_exec), ret's */
#define EV_DATA		(exec_ident ? 68 : 60)
#define EV_SIZE		(exec_ident ? 72 : 64)
#define EV_RET		(exec_ident ? 64 : 56)

struct ev {
	unsigned long long ts;		/* ns */
	const char *purpose;		/* NULL: @number, as FMT_PURPOSE_NUM */
	unsigned int number;
	const char *path, *program, *args;
	int argc, pid;
	const char *comm;
	unsigned int uid;
	uint64_t bset, inh;
	int ret;
	unsigned int as_uid, as_gid;	/* who the helper ran as */
};

/* A sub-buffer being filled, as the kernel's ring buffer lays it out. */
struct page {
	unsigned char b[PAGE_SIZE];
	size_t len;			/* bytes of data after the header */
	unsigned long long ts;		/* of the last event */
	unsigned long long flags;	/* ORed into commit */
};

static void page_init(struct page *pg, unsigned long long ts)
{
	memset(pg, 0, sizeof(*pg));
	pg->ts = ts;
	memcpy(pg->b, &ts, 8);
}

static void page_u32(struct page *pg, uint32_t v)
{
	memcpy(pg->b + PAGE_HDR + pg->len, &v, 4);
	pg->len += 4;
}

/* One record of @len bytes, with a time extend first if the delta needs it. */
static void page_add(struct page *pg, unsigned long long ts, const void *data,
		     size_t len)
{
	unsigned long long delta = ts - pg->ts;
	size_t alen = (len + 3) & ~3UL;

	/* A time extend, a long header and the record must fit. */
	if (PAGE_HDR + pg->len + 16 + alen > PAGE_SIZE)
		abort();
	if (delta >= 1ULL << 27) {
		page_u32(pg, 30 | (uint32_t)(delta & ((1U << 27) - 1)) << 5);
		page_u32(pg, delta >> 27);
		delta = 0;
	}
	pg->ts = ts;
	if (alen <= 28 * 4) {
		page_u32(pg, alen / 4 | (uint32_t)delta << 5);
	} else {
		page_u32(pg, (uint32_t)delta << 5);
		page_u32(pg, alen + 4);
	}
	memcpy(pg->b + PAGE_HDR + pg->len, data, len);
	pg->len += alen;
}

/* __string(): the bytes go after the fixed part, the field says where. */
static void ev_str(unsigned char *rec, size_t *end, int off, const char *s)
{
	uint32_t loc, len = strlen(s) + 1;

	loc = len << 16 | *end;
	memcpy(rec + off, &loc, 4);
	memcpy(rec + *end, s, len);
	*end += len;
}

/* The purpose, at offset 8 of both events: by name, or by @number. */
static void ev_purpose(unsigned char *rec, size_t *end, const char *purpose,
		       unsigned int number)
{
	if (purpose)
		ev_str(rec, end, 8, purpose);
	else
		memcpy(rec + 8, &number, 4);
}

static size_t ev_record(unsigned char *rec, const struct ev *e)
{
	uint16_t type = UMH_EXEC_ID;
	int32_t common_pid = 57;
	size_t end = EV_DATA;

	memset(rec, 0, 1024);
	memcpy(rec, &type, 2);
	memcpy(rec + 4, &common_pid, 4);
	ev_purpose(rec, &end, e->purpose, e->number);
	ev_str(rec, &end, 12, e->path);
	ev_str(rec, &end, 16, e->program ?: e->path);
	ev_str(rec, &end, 20, e->args);
	memcpy(rec + 24, &e->argc, 4);
	memcpy(rec + 28, &e->pid, 4);
	ev_str(rec, &end, 32, e->comm);
	memcpy(rec + 36, &e->uid, 4);
	memcpy(rec + 40, &e->bset, 8);
	memcpy(rec + 48, &e->inh, 8);
	if (exec_ident) {
		memcpy(rec + 56, &e->as_uid, 4);
		memcpy(rec + 60, &e->as_gid, 4);
	}
	memcpy(rec + EV_RET, &e->ret, 4);
	return end < (size_t)EV_SIZE ? (size_t)EV_SIZE : end;
}

static void page_ev(struct page *pg, const struct ev *e)
{
	unsigned char rec[1024];

	page_add(pg, e->ts, rec, ev_record(rec, e));
}

/*
 * Append @e's record with the data_loc at byte @off of it pointing out
 * of the record.
 */
static void page_ev_bad_loc(struct page *pg, const struct ev *e, size_t off)
{
	uint32_t loc = 200 << 16 | (uint32_t)EV_DATA;
	unsigned char rec[1024];
	size_t len = ev_record(rec, e);

	memcpy(rec + off, &loc, 4);
	page_add(pg, e->ts, rec, len);
}

/* Append the page to CPU @cpu's trace_pipe_raw, as read() returns it. */
static void page_write(const char *root, int cpu, struct page *pg)
{
	char path[PATH_MAX];
	uint64_t commit = pg->len | pg->flags;
	int fd;

	memcpy(pg->b + 8, &commit, 8);
	snprintf(path, sizeof(path), "%s/" FRESH "/per_cpu/cpu%d", root, cpu);
	mkdir_p(path);
	strcat(path, "/trace_pipe_raw");
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0 || write(fd, pg->b, PAGE_SIZE) != PAGE_SIZE)
		abort();
	close(fd);
}

/* Events on CPU 0, one page. */
static void trace_events(const char *root, const struct ev *e, int n)
{
	struct page pg;
	int i;

	page_init(&pg, e[0].ts);
	for (i = 0; i < n; i++)
		page_ev(&pg, &e[i]);
	page_write(root, 0, &pg);
}

/* As umhcap names its instances: "umhcap-" and 16 hex digits. */
static bool instance_name_ok(const char *name)
{
	size_t i;

	if (strlen(name) != 23 || strncmp(name, "umhcap-", 7))
		return false;
	for (i = 7; i < 23; i++)
		if (!isdigit(name[i]) && (name[i] < 'a' || name[i] > 'f'))
			return false;
	return true;
}

/* "@dir/NAME", NAME the one entry of ROOT/@dir; "" for none, "*" for more. */
static const char *only_entry(const char *root, const char *dir)
{
	char path[PATH_MAX], *b = slot_buf();
	struct dirent *d;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/%s", root, dir);
	b[0] = '\0';
	dp = opendir(path);
	while (dp && (d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (b[0]) {
			strcpy(b, "*");
			break;
		}
		snprintf(b, 2048, "%s/%s", dir, d->d_name);
	}
	if (dp)
		closedir(dp);
	return b;
}

/*
 * The instance umhcap made in ROOT and removed, as a path under ROOT; NULL
 * unless it is the only one, it is named as umhcap names them, and no
 * instance is left.
 */
static const char *removed(struct __test_metadata *_metadata,
			   const char *root)
{
	const char *inst = only_entry(root, REMOVED);
	const char *left = only_entry(root, INSTANCES);

	if (strncmp(inst, REMOVED "/", strlen(REMOVED "/")) ||
	    !instance_name_ok(inst + strlen(REMOVED "/")) || left[0]) {
		TH_LOG("removed: \"%s\", left: \"%s\"", inst, left);
		return NULL;
	}
	return inst;
}

/* No instance made: none removed, none left, FRESH unused. */
static bool made_none(const char *root)
{
	return !exists(root, REMOVED) && !only_entry(root, INSTANCES)[0] &&
	       exists(root, FRESH "/tracing_on");
}

/* The removed instance as FRESH again, for another run; 0 or -1. */
static int fresh_again(const char *root)
{
	const char *inst = only_entry(root, REMOVED);
	char from[PATH_MAX], to[PATH_MAX];

	if (!inst[0] || !strcmp(inst, "*"))
		return -1;
	snprintf(from, sizeof(from), "%s/%s", root, inst);
	snprintf(to, sizeof(to), "%s/" FRESH, root);
	if (rename(from, to))
		return -1;
	snprintf(from, sizeof(from), "%s/" REMOVED, root);
	return rmdir(from);
}

#define EV_MODPROBE { .ts = 12345678000ULL, .purpose = "modprobe",	\
	.path = "/sbin/modprobe", .args = "-q -- fs-nosuchfs",		\
	.argc = 3, .pid = 123, .comm = "mount", .uid = 0,		\
	.bset = full(), .inh = 0, .ret = 0 }
#define LINE_MODPROBE "12.345678 modprobe: /sbin/modprobe -q -- fs-nosuchfs " \
	"(trigger pid=123 comm=mount uid=0) caps: all; result: ok\n"

/* Under CONFIG_STATIC_USERMODEHELPER, with arguments left out. */
#define EV_COREDUMP { .ts = 13000001000ULL, .purpose = "coredump",	\
	.path = "/sbin/static-helper", .program = "/usr/lib/core\\x20handler", \
	.args = "77 a\\\"b", .argc = 5, .pid = 77, .comm = "my\\x20prog", \
	.uid = 1000, .bset = B(CAP_SYS_MODULE), .inh = B(CAP_CHOWN),	\
	.ret = -2 }
#define LINE_COREDUMP "13.000001 coredump: /sbin/static-helper 77 a\\\"b " \
	"...(+3) [requested /usr/lib/core\\x20handler] (trigger pid=77 " \
	"comm=my\\x20prog uid=1000) caps: cap_sys_module; " \
	"inheritable: cap_chown; result: ENOENT\n"

#define EV_OTHER { .ts = 14000001000ULL, .purpose = "other",		\
	.path = "/bin/x", .args = "", .argc = 0, .pid = 1, .comm = "init", \
	.bset = 0, .ret = -8 }
#define LINE_OTHER "14.000001 other: /bin/x (trigger pid=1 comm=init uid=0) " \
	"caps: none; result: ENOEXEC\n"

TEST_F(umh, trace_basic)
{
	struct ev e[] = { EV_MODPROBE };
	const char *inst;

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	ASSERT_STREQ("", res.err);
	/* In an instance of its own, enabled there, and removed at the end. */
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_STREQ("1", get(self->root, at(inst, "events/umh/umh_exec/enable")));
	ASSERT_STREQ("0\n", get(self->root, TFS "/events/umh/umh_exec/enable"));
}

/* Named at random: a helper cannot make it first, or know it in advance. */
TEST_F(umh, trace_instance_name)
{
	struct ev e[] = { EV_MODPROBE };
	char first[PATH_MAX];
	const char *inst;

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	snprintf(first, sizeof(first), "%s", inst);
	ASSERT_EQ(0, fresh_again(self->root));
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_STRNE(first, inst);
}

/*
 * An instance of the name umhcap picked exists already: refused, not
 * used, and not removed either: it is not umhcap's.
 */
TEST_F(umh, trace_refuses_existing_instance)
{
	struct ev e[] = { EV_MODPROBE };

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, setenv("UMHCAP_FAKE_EEXIST", "1", 1));
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "umhcap: tracefs instance ");
	ASSERT_HAS(res.err, " exists already: umhcap uses only an instance it made itself; run it again\n");
	ASSERT_TRUE(made_none(self->root));
}

/*
 * Whoever turned its instance's tracing off may hold the file it wrote
 * open still, and tracefs keeps an instance with an open file: umhcap
 * waits for it, and removes the instance once it is let go.
 */
TEST_F(umh, trace_waits_for_a_busy_instance)
{
	struct ev e[] = { EV_MODPROBE };

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, setenv("UMHCAP_FAKE_EBUSY", "5", 1));
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	ASSERT_STREQ("", res.err);
	ASSERT_NE(NULL, removed(_metadata, self->root));
}

/*
 * A holder that never lets go, a helper say, costs umhcap two seconds:
 * then it leaves the instance, says so, and says why.
 */
TEST_F(umh, trace_leaves_an_instance_held_open)
{
	struct ev e[] = { EV_MODPROBE };
	struct timespec t0, t1;
	const char *left;

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, setenv("UMHCAP_FAKE_EBUSY", "1000000", 1));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	left = only_entry(self->root, INSTANCES);
	ASSERT_TRUE(!strncmp(left, INSTANCES "/", strlen(INSTANCES "/")) &&
		    instance_name_ok(left + strlen(INSTANCES "/"))) {
		TH_LOG("left: \"%s\"", left);
	}
	ASSERT_FALSE(exists(self->root, REMOVED));
	ASSERT_HAS(res.err, "umhcap: warning: cannot remove tracefs instance ");
	ASSERT_HAS(res.err, ": Device or resource busy (a process holds one of its files open); remove it with rmdir\n");
	ASSERT_LE(2000, (t1.tv_sec - t0.tv_sec) * 1000 +
			(t1.tv_nsec - t0.tv_nsec) / 1000000);
}

/* One umh_capable record: a check of @cap by pid 731, "core dump". */
struct cap_ev {
	unsigned long long ts;
	const char *purpose;		/* NULL: @number, as FMT_PURPOSE_NUM */
	int cap;
	unsigned char noaudit;
	int ret;
	unsigned int number;
};

#define CAP_EV(t, p, c, n, r) \
	{ .ts = (t), .purpose = (p), .cap = (c), .noaudit = (n), .ret = (r) }

static void page_cap(struct page *pg, const struct cap_ev *e)
{
	uint16_t type = UMH_CAPABLE_ID;
	unsigned char rec[512] = { 0 };
	int32_t pid = 731;
	uint32_t uid = 0;
	size_t end = CAP_DATA;

	memcpy(rec, &type, 2);
	ev_purpose(rec, &end, e->purpose, e->number);
	memcpy(rec + 12, &pid, 4);
	ev_str(rec, &end, 16, "core\\x20dump");
	memcpy(rec + 20, &uid, 4);
	memcpy(rec + 24, &e->cap, 4);
	rec[28] = e->noaudit;
	memcpy(rec + 32, &e->ret, 4);
	page_add(pg, e->ts, rec, end);
}

#define LINE_REFUSED "12.500000 coredump: refused cap_dac_override to " \
	"pid=731 comm=core\\x20dump uid=0\n"

/* A page: a modprobe helper starts, then a core dump handler's checks. */
static void trace_checks(const char *root)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct cap_ev refused = CAP_EV(12500000000ULL, "coredump",
				       CAP_DAC_OVERRIDE, 0, -1);
	struct cap_ev granted = CAP_EV(12600000000ULL, "coredump", CAP_CHOWN,
				       0, 0);
	struct cap_ev probe = CAP_EV(12700000000ULL, "coredump", CAP_SYS_ADMIN,
				     1, -1);
	struct page pg;

	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	page_cap(&pg, &refused);
	page_cap(&pg, &granted);
	page_cap(&pg, &probe);
	page_ev(&pg, &c);
	page_write(root, 0, &pg);
}

/* Refused checks show, granted ones and probes do not. */
TEST_F(umh, trace_refused_checks)
{
	const char *inst;

	trace_checks(self->root);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_REFUSED LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
	/* Filtered and turned on in its instance. */
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_STREQ("1", get(self->root, at(inst, "events/umh/umh_capable/enable")));
	ASSERT_STREQ("ret != 0 && noaudit == 0",
		     get(self->root, at(inst, "events/umh/umh_capable/filter")));
	ASSERT_EQ(0, fresh_again(self->root));
	ASSERT_EQ(0, RUN(self->root, "trace", "--count", "2"));
	ASSERT_STREQ(LINE_MODPROBE LINE_REFUSED, res.out);
}

/*
 * What a helper could have set up before umhcap ran: an instance named
 * "umhcap", tracing off, umh_exec filtered to hide modprobe helpers.
 * umhcap uses its own, and leaves that one as it was.
 */
TEST_F(umh, trace_ignores_a_prepared_instance)
{
	static const char *const hostile[][2] = {
		{ "tracing_on",			"0\n" },
		{ "events/umh/umh_exec/enable",	"1\n" },
		{ "events/umh/umh_exec/filter",	"purpose != \"modprobe\"\n" },
		{ "per_cpu/cpu0/trace_pipe_raw", "" },
	};
	const char *inst;
	char rel[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hostile); i++) {
		snprintf(rel, sizeof(rel), INSTANCES "/umhcap/%s",
			 hostile[i][0]);
		put(self->root, rel, "%s", hostile[i][1]);
	}
	trace_checks(self->root);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_REFUSED LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
	for (i = 0; i < ARRAY_SIZE(hostile); i++) {
		snprintf(rel, sizeof(rel), INSTANCES "/umhcap/%s",
			 hostile[i][0]);
		ASSERT_STREQ(hostile[i][1], get(self->root, rel));
	}
	ASSERT_STREQ(INSTANCES "/umhcap", only_entry(self->root, INSTANCES));
	inst = only_entry(self->root, REMOVED);
	ASSERT_EQ(0, strncmp(inst, REMOVED "/", strlen(REMOVED "/")));
	ASSERT_TRUE(instance_name_ok(inst + strlen(REMOVED "/")));
}

/* A kernel without umh_capable: helper starts only, and no complaint. */
TEST_F(umh, trace_without_capable_event)
{
	char path[PATH_MAX];
	const char *inst;

	snprintf(path, sizeof(path), "%s/" TFS "/events/umh/umh_capable",
		 self->root);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	trace_checks(self->root);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_STREQ("0\n", get(self->root, at(inst, "events/umh/umh_capable/enable")));
}

/*
 * A filter the kernel refuses: umh_capable is left off, not turned on
 * without it, and helper starts are still shown.
 */
TEST_F(umh, trace_capable_filter_refused)
{
	char path[PATH_MAX];
	const char *inst;

	snprintf(path, sizeof(path), "%s/" FRESH "/events/umh/umh_capable/filter",
		 self->root);
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, mkdir(path, 0755));
	trace_checks(self->root);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_HAS(res.out, LINE_MODPROBE);
	ASSERT_HAS(res.err, "umhcap: warning: cannot enable umh/umh_capable in ");
	ASSERT_HAS(res.err, "; refused capability checks are not shown\n");
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_STREQ("0\n", get(self->root, at(inst, "events/umh/umh_capable/enable")));
}

/* A umh_capable umhcap cannot read: warn once, helper starts still shown. */
TEST_F(umh, trace_capable_unknown_field)
{
	const char *w;

	put(self->root, TFS "/events/umh/umh_capable/format", "%s",
	    umh_capable_format("\tfield:u64 cap;\toffset:24;\tsize:8;\tsigned:0;\n"));
	trace_checks(self->root);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_OTHER, res.out);
	w = "umhcap: warning: the umh_capable field \"cap\" is missing or not of the type umhcap knows";
	ASSERT_HAS(res.err, w);
	ASSERT_EQ(1, count_of(res.err, w));
}

TEST_F(umh, trace_requested_cut_errno_inheritable)
{
	struct ev e[] = { EV_COREDUMP, EV_OTHER };

	trace_events(self->root, e, 2);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_COREDUMP LINE_OTHER, res.out);
}

/*
 * Strings as a kernel without escaping, or a bug, would record them: a
 * comm and arguments that spell out fields, a newline, a terminal escape.
 * The line keeps the real trigger and stays one line.
 */
TEST_F(umh, trace_is_not_forged)
{
	struct ev e[] = { {
		.ts = 15000000000ULL, .purpose = "coredump", .path = "/bin/core",
		.args = "x trigger_pid=1 bset=0xffffffffff\n1.0 modprobe: evil",
		.argc = 5, .pid = 4242,
		.comm = "x trigger_pid=1 bset=0xffffffffff\x1b[2J\n",
		.uid = 1000, .bset = B(CAP_CHOWN), .ret = 0,
	} };

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("15.000000 coredump: /bin/core x trigger_pid=1 "
		     "bset=0xffffffffff\\x0a1.0 modprobe: evil (trigger "
		     "pid=4242 comm=x\\x20trigger_pid=1\\x20bset=0xffffffffff"
		     "\\x1b[2J\\x0a uid=1000) caps: cap_chown; result: ok\n",
		     res.out);
	ASSERT_EQ(NULL, strchr(res.out, '\x1b'));
	ASSERT_EQ(strchr(res.out, '\n'), strrchr(res.out, '\n'));
}

TEST_F(umh, trace_unusual_values)
{
	struct ev e[] = { {
		.ts = 16000000000ULL, .purpose = "firmware", .path = "/bin/y",
		.args = "", .argc = -1, .pid = -5, .comm = "",
		.uid = 4294967295U, .bset = 0, .ret = -9999,
	} };

	trace_events(self->root, e, 1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("16.000000 purpose?firmware: /bin/y (trigger pid=-5 comm= "
		     "uid=4294967295) caps: none; result: -9999\n", res.out);
}

/* Every purpose of the kernel's, by its name, on both events. */
TEST_F(umh, trace_every_purpose)
{
	char want[4096] = "";
	struct page pg;
	size_t i, n = 0;

	page_init(&pg, 20000000000ULL);
	for (i = 0; i < NR_PURPOSES; i++) {
		struct ev e = {
			.ts = (20 + i) * 1000000000ULL,
			.purpose = kernel_purposes[i], .path = "/bin/h",
			.args = "", .pid = 1, .comm = "init",
		};
		struct cap_ev c = CAP_EV(e.ts + 500000000ULL,
					 kernel_purposes[i], CAP_DAC_OVERRIDE,
					 0, -1);

		page_ev(&pg, &e);
		page_cap(&pg, &c);
		n += snprintf(want + n, sizeof(want) - n,
			      "%zu.000000 %s: /bin/h (trigger pid=1 comm=init uid=0) caps: none; result: ok\n"
			      "%zu.500000 %s: refused cap_dac_override to pid=731 comm=core\\x20dump uid=0\n",
			      20 + i, kernel_purposes[i], 20 + i,
			      kernel_purposes[i]);
	}
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
}

/*
 * A purpose name umhcap does not know: a newer kernel's, the "invalid"
 * the kernel records for a number out of its table, or anything a fake
 * or hostile tracefs holds.  It is shown as such, on either event, never
 * raw and never as a purpose umhcap knows.
 */
TEST_F(umh, trace_unknown_purpose_names)
{
	static const struct {
		const char *name, *shown;
	} names[] = {
		{ "firmware",		"purpose?firmware" },
		{ "invalid",		"purpose?invalid" },
		/* umhcap's global bound, which is no purpose of the kernel's */
		{ "all",		"purpose?all" },
		{ "",			"purpose?" },
		{ "Modprobe",		"purpose?\\x4dodprobe" },
		{ "modprobe ",		"purpose?modprobe\\x20" },
		{ "coredump:",		"purpose?coredump\\x3a" },
		/* as if escaped: its '\' cannot pass for an escape of umhcap's */
		{ "request\\x5fkey",	"purpose?request\\x5cx5fkey" },
		{ "power\x1b[2J",	"purpose?power\\x1b\\x5b2\\x4a" },
		{ "modprobe: /sbin/evil (trigger pid=1 comm=init uid=0) caps: all; result: ok\n9.000000 coredump",
		  "purpose?modprobe\\x3a\\x20\\x2fsbin\\x2fevil\\x20\\x28trigger\\x20pid\\x3d1\\x20comm\\x3dinit\\x20uid\\x3d0\\x29\\x20caps\\x3a\\x20all\\x3b\\x20result\\x3a\\x20ok\\x0a9\\x2e000000\\x20coredump" },
		/* too long for a name: not looked up, and shown whole */
		{ "modprobe_modprobe_modprobe_modprobe",
		  "purpose?modprobe_modprobe_modprobe_modprobe" },
		{ "\xff\x80",		"purpose?\\xff\\x80" },
	};
	char want[8192] = "", known[32];
	struct page pg;
	size_t i, n = 0;

	page_init(&pg, 30000000000ULL);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct ev e = {
			.ts = (30 + i) * 1000000000ULL,
			.purpose = names[i].name, .path = "/bin/h",
			.args = "", .pid = 1, .comm = "init",
		};
		struct cap_ev c = CAP_EV(e.ts + 500000000ULL, names[i].name,
					 CAP_DAC_OVERRIDE, 0, -1);

		page_ev(&pg, &e);
		page_cap(&pg, &c);
		n += snprintf(want + n, sizeof(want) - n,
			      "%zu.000000 %s: /bin/h (trigger pid=1 comm=init uid=0) caps: none; result: ok\n"
			      "%zu.500000 %s: refused cap_dac_override to pid=731 comm=core\\x20dump uid=0\n",
			      30 + i, names[i].shown, 30 + i, names[i].shown);
	}
	ASSERT_LT(n, sizeof(want));
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
	/* One line per event, nothing raw, no purpose umhcap knows. */
	ASSERT_EQ(2 * (int)ARRAY_SIZE(names), count_of(res.out, "\n"));
	ASSERT_EQ(NULL, strchr(res.out, '\x1b'));
	for (i = 0; i < NR_PURPOSES; i++) {
		snprintf(known, sizeof(known), " %s:", kernel_purposes[i]);
		ASSERT_EQ(0, count_of(res.out, known)) TH_LOG("%s", known);
	}
}

/* Oldest first across CPUs; time extends carry the big gaps. */
TEST_F(umh, trace_orders_cpus)
{
	struct ev a = EV_MODPROBE, b = EV_COREDUMP, c = EV_OTHER;
	struct page p0, p1;

	page_init(&p0, a.ts);
	page_ev(&p0, &a);
	page_ev(&p0, &c);
	page_write(self->root, 0, &p0);
	page_init(&p1, b.ts - 5);
	page_ev(&p1, &b);
	page_write(self->root, 1, &p1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_COREDUMP LINE_OTHER, res.out);
}

TEST_F(umh, trace_skips_other_events)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	unsigned char other[12] = { OTHER_ID & 0xff, OTHER_ID >> 8 };
	struct page pg;

	page_init(&pg, a.ts - 1000);
	page_add(&pg, a.ts - 1000, other, sizeof(other));
	page_ev(&pg, &a);
	page_add(&pg, c.ts - 1000, other, sizeof(other));
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
}

TEST_F(umh, trace_count)
{
	struct ev e[] = { EV_MODPROBE, EV_COREDUMP, EV_OTHER };

	trace_events(self->root, e, 3);
	ASSERT_EQ(0, RUN(self->root, "trace", "--count", "2"));
	ASSERT_STREQ(LINE_MODPROBE LINE_COREDUMP, res.out);
	ASSERT_EQ(2, RUN(self->root, "trace", "--count", "0"));
	ASSERT_HAS(res.err, "give a positive number");
}

TEST_F(umh, trace_hex)
{
	struct ev e[] = { EV_MODPROBE, EV_COREDUMP };

	trace_events(self->root, e, 2);
	ASSERT_EQ(0, RUN(self->root, "-x", "trace"));
	ASSERT_HAS(res.out, "caps: all [0x1ffffffffff]; result: ok\n");
	ASSERT_HAS(res.out, "caps: cap_sys_module [0x10000]; "
			    "inheritable: cap_chown [0x1]; result: ENOENT\n");
	/* -x after the command, as show and learn take it. */
	ASSERT_EQ(0, fresh_again(self->root));
	ASSERT_EQ(0, RUN(self->root, "trace", "-x"));
	ASSERT_HAS(res.out, "caps: all [0x1ffffffffff]; result: ok\n");
}

/* A field of another type than umhcap knows: warn once, print nothing. */
TEST_F(umh, trace_unknown_field_type)
{
	struct ev e[] = { EV_MODPROBE, EV_OTHER };
	const char *w;

	put(self->root, TFS "/events/umh/umh_exec/format", "%s",
	    umh_exec_format("\tfield:u64 program;\toffset:16;\tsize:8;\tsigned:0;\n"));
	trace_events(self->root, e, 2);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("", res.out);
	w = "umhcap: warning: the umh_exec field \"program\" is missing or not of the type umhcap knows";
	ASSERT_HAS(res.err, w);
	ASSERT_EQ(1, count_of(res.err, w));
}

TEST_F(umh, trace_missing_field)
{
	struct ev e[] = { EV_MODPROBE };

	put(self->root, TFS "/events/umh/umh_exec/format", "%s",
	    umh_exec_format(""));
	trace_events(self->root, e, 1);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "field \"program\" is missing");
}

/* A kernel from before helpers had users: umh_exec records neither id. */
static void old_umh_exec(const char *root)
{
	exec_ident = false;
	put(root, TFS "/events/umh/umh_exec/format", "%s",
	    umh_exec_format(FMT_PROGRAM));
}

/* "name(id)" with this machine's name for uid (gid, with @gid) @id, or "id". */
static const char *id_str(bool gid, uint32_t id)
{
	const struct group *gr = gid ? getgrgid(id) : NULL;
	const struct passwd *pw = gid ? NULL : getpwuid(id);
	const char *name = gr ? gr->gr_name : pw ? pw->pw_name : NULL;
	char *b = slot_buf();

	if (name)
		snprintf(b, 2048, "%s(%u)", name, id);
	else
		snprintf(b, 2048, "%u", id);
	return b;
}

/* A uid this machine has no user of. */
static uint32_t no_user(void)
{
	uint32_t uid;

	for (uid = 4242; getpwuid(uid); uid++)
		;
	return uid;
}

/* A core dump handler, started by pid 4242 of uid 1000, as @u:@g. */
#define EV_AS(t, u, g, b, i) { .ts = (t), .purpose = "coredump",	\
	.path = "/lib/systemd/systemd-coredump", .args = "4242 11",	\
	.argc = 2, .pid = 4242, .comm = "crash", .uid = 1000,		\
	.bset = (b), .inh = (i), .ret = 0, .as_uid = (u), .as_gid = (g) }
#define LINE_AS "%s coredump: /lib/systemd/systemd-coredump 4242 11 "	\
	"(trigger pid=4242 comm=crash uid=1000) "

/*
 * A kernel that records who helpers ran as: a helper of root's, uid and
 * gid 0, is shown as before, with its whole bset and no identity.
 */
TEST_F(umh, trace_identity_root)
{
	struct ev e[] = { EV_MODPROBE, EV_COREDUMP, EV_OTHER };

	ASSERT_HAS(get(self->root, TFS "/events/umh/umh_exec/format"),
		   FMT_IDENT);
	trace_events(self->root, e, 3);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_COREDUMP LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
}

/*
 * A helper that ran as a user of its own: who, by this machine's names,
 * and as its capabilities only what both bounds leave, bset &
 * inheritable (the kernel records that as the inheritable set, which it
 * raised as ambient).  uid 0 with a group of its own is root still: its
 * whole bset, and both ids shown.
 */
TEST_F(umh, trace_identity_user)
{
	const uint64_t pt = B(CAP_DAC_READ_SEARCH) | B(CAP_SYS_PTRACE);
	const uint32_t stranger = no_user();
	struct ev e[] = {
		EV_AS(40000000000ULL, 996, 996, full(), pt),
		/* the intersection: neither set alone */
		EV_AS(41000000000ULL, 996, 996,
		      B(CAP_SYS_PTRACE) | B(CAP_CHOWN), pt),
		EV_AS(42000000000ULL, stranger, stranger, full(), 0),
		EV_AS(43000000000ULL, 0, 996, B(CAP_CHOWN), pt),
		EV_MODPROBE,
	};
	char want[4096];
	size_t n = 0;

	e[4].ts = 44000000000ULL;
	trace_events(self->root, e, 5);
	n += snprintf(want + n, sizeof(want) - n, LINE_AS "as: %s:%s; "
		      "caps: cap_dac_read_search, cap_sys_ptrace; "
		      "inheritable: cap_dac_read_search, cap_sys_ptrace; "
		      "result: ok\n", "40.000000", id_str(false, 996),
		      id_str(true, 996));
	n += snprintf(want + n, sizeof(want) - n, LINE_AS "as: %s:%s; "
		      "caps: cap_sys_ptrace; "
		      "inheritable: cap_dac_read_search, cap_sys_ptrace; "
		      "result: ok\n", "41.000000", id_str(false, 996),
		      id_str(true, 996));
	n += snprintf(want + n, sizeof(want) - n, LINE_AS "as: %u:%s; "
		      "caps: none; result: ok\n", "42.000000", stranger,
		      id_str(true, stranger));
	n += snprintf(want + n, sizeof(want) - n, LINE_AS "as: %s:%s; "
		      "caps: cap_chown; "
		      "inheritable: cap_dac_read_search, cap_sys_ptrace; "
		      "result: ok\n", "43.000000", id_str(false, 0),
		      id_str(true, 996));
	/* root's, uid and gid 0, among them: as before */
	n += snprintf(want + n, sizeof(want) - n, "44.000000%s",
		      LINE_MODPROBE + strlen("12.345678"));
	ASSERT_LT(n, sizeof(want));
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(want, res.out);
	ASSERT_STREQ("", res.err);
	/* With -x, the mask of what it got. */
	ASSERT_EQ(0, fresh_again(self->root));
	ASSERT_EQ(0, RUN(self->root, "-x", "trace", "--count", "2"));
	ASSERT_HAS(res.out, "; caps: cap_dac_read_search, cap_sys_ptrace [0x80004]; "
			    "inheritable: cap_dac_read_search, cap_sys_ptrace [0x80004]; result: ok\n");
	ASSERT_HAS(res.out, "; caps: cap_sys_ptrace [0x80000]; ");
}

/*
 * A kernel from before helpers had users: no uid or gid in umh_exec.
 * Every helper ran as root, and is shown as before, without a warning.
 */
TEST_F(umh, trace_identity_older_kernel)
{
	struct ev e[] = { EV_MODPROBE, EV_COREDUMP, EV_OTHER };
	const char *format;

	old_umh_exec(self->root);
	format = get(self->root, TFS "/events/umh/umh_exec/format");
	ASSERT_LACKS(format, "\tfield:uid_t uid;");
	ASSERT_LACKS(format, "\tfield:gid_t gid;");
	ASSERT_HAS(format, "\tfield:int ret;\toffset:56;");
	trace_events(self->root, e, 3);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_COREDUMP LINE_OTHER, res.out);
	ASSERT_STREQ("", res.err);
}

/*
 * A uid or gid of a type umhcap does not know, or one without the
 * other, is not guessed at: warned once, every event skipped, as for a
 * field umhcap needs.
 */
TEST_F(umh, trace_identity_unknown_field)
{
	static const struct {
		const char *lines, *field;
	} bad[] = {
		{ "\tfield:u64 uid;\toffset:56;\tsize:8;\tsigned:0;\n" FMT_GID,
		  "uid" },
		{ FMT_UID "\tfield:__data_loc char[] gid;\toffset:60;\tsize:4;\tsigned:0;\n",
		  "gid" },
		{ FMT_UID, "gid" },
		{ FMT_GID, "uid" },
	};
	struct ev e[] = { EV_AS(40000000000ULL, 996, 996, full(), 0),
			  EV_MODPROBE };
	char want[512];
	size_t i;

	e[1].ts = 44000000000ULL;
	trace_events(self->root, e, 2);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (i)
			ASSERT_EQ(0, fresh_again(self->root));
		put(self->root, TFS "/events/umh/umh_exec/format", "%s",
		    exec_format_ident(FMT_PURPOSE, ARG_PURPOSE, FMT_PROGRAM,
				      bad[i].lines));
		ASSERT_EQ(0, RUN(self->root, "trace"));
		EXPECT_STREQ("", res.out);
		snprintf(want, sizeof(want), "umhcap: warning: the umh_exec field \"%s\" is missing or not of the type umhcap knows; every event is skipped (is umhcap older or newer than the kernel?)\n",
			 bad[i].field);
		EXPECT_STREQ(want, res.err) TH_LOG("case %zu", i);
	}
}

/* A string whose data_loc points out of its record is not read. */
TEST_F(umh, trace_malformed_record)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct page pg;

	page_init(&pg, a.ts);
	page_ev_bad_loc(&pg, &a, 32);
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_OTHER, res.out);
	ASSERT_HAS(res.err, "warning: malformed umh_exec record at 12.345678 skipped");
}

/*
 * A kernel of the series from before the purpose was recorded by name:
 * a number where umhcap reads a string is a field of an unexpected type,
 * said once for each event, and nothing is misread.
 */
TEST_F(umh, trace_numeric_purpose)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct cap_ev refused = CAP_EV(12500000000ULL, NULL, CAP_DAC_OVERRIDE,
				       0, -1);
	struct cap_ev probe = CAP_EV(12700000000ULL, NULL, CAP_SYS_ADMIN, 1,
				     -1);
	struct page pg;
	const char *w;

	a.purpose = NULL;
	a.number = 1;
	c.purpose = NULL;
	c.number = 0;
	refused.number = probe.number = 2;
	put(self->root, TFS "/events/umh/umh_exec/format", "%s",
	    exec_format(FMT_PURPOSE_NUM, ARG_PURPOSE_NUM, FMT_PROGRAM));
	put(self->root, TFS "/events/umh/umh_capable/format", "%s",
	    capable_format(FMT_PURPOSE_NUM, ARG_PURPOSE_NUM, FMT_CAP_FIELD));
	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	page_cap(&pg, &refused);
	page_cap(&pg, &probe);
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ("", res.out);
	w = "umhcap: warning: the umh_exec field \"purpose\" is missing or not of the type umhcap knows; every event is skipped (is umhcap older or newer than the kernel?)\n";
	ASSERT_EQ(1, count_of(res.err, w)) TH_LOG("%s", res.err);
	w = "umhcap: warning: the umh_capable field \"purpose\" is missing or not of the type umhcap knows; refused capability checks are skipped (is umhcap older or newer than the kernel?)\n";
	ASSERT_EQ(1, count_of(res.err, w)) TH_LOG("%s", res.err);
	ASSERT_EQ(2, count_of(res.err, "\n"));
}

/* A umh_capable with the number only: helper starts are still shown. */
TEST_F(umh, trace_capable_numeric_purpose)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct cap_ev refused = CAP_EV(12500000000ULL, NULL, CAP_DAC_OVERRIDE,
				       0, -1);
	struct cap_ev granted = CAP_EV(12600000000ULL, NULL, CAP_CHOWN, 0, 0);
	struct cap_ev again = CAP_EV(12700000000ULL, NULL, CAP_SYS_ADMIN, 0,
				     -1);
	struct page pg;
	const char *w;

	refused.number = granted.number = again.number = 2;
	put(self->root, TFS "/events/umh/umh_capable/format", "%s",
	    capable_format(FMT_PURPOSE_NUM, ARG_PURPOSE_NUM, FMT_CAP_FIELD));
	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	page_cap(&pg, &refused);
	page_cap(&pg, &granted);
	page_cap(&pg, &again);
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE LINE_OTHER, res.out);
	w = "umhcap: warning: the umh_capable field \"purpose\" is missing or not of the type umhcap knows; refused capability checks are skipped (is umhcap older or newer than the kernel?)\n";
	ASSERT_STREQ(w, res.err);
}

/* A purpose whose data_loc points out of its record is not read. */
TEST_F(umh, trace_malformed_purpose)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct cap_ev refused = CAP_EV(12500000000ULL, "coredump",
				       CAP_DAC_OVERRIDE, 0, -1);
	struct page pg;

	page_init(&pg, a.ts);
	page_ev_bad_loc(&pg, &a, 8);
	page_cap(&pg, &refused);
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_REFUSED LINE_OTHER, res.out);
	ASSERT_STREQ("umhcap: warning: malformed umh_exec record at 12.345678 skipped\n",
		     res.err);
}

/* A page that claims more data than it holds is skipped whole. */
TEST_F(umh, trace_malformed_page)
{
	struct ev a = EV_MODPROBE, c = EV_OTHER;
	struct page pg;

	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	pg.len = PAGE_SIZE;
	page_write(self->root, 0, &pg);
	page_init(&pg, c.ts);
	page_ev(&pg, &c);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_OTHER, res.out);
	ASSERT_HAS(res.err, "warning: malformed ring-buffer page from CPU 0 skipped");
}

TEST_F(umh, trace_lost_events)
{
	struct ev a = EV_MODPROBE;
	struct page pg;

	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	pg.flags = 1ULL << 31;		/* RB_MISSED_EVENTS, count not stored */
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	ASSERT_HAS(res.err, "warning: events lost on CPU 0: the buffer was full");
}

TEST_F(umh, trace_bad_count)
{
	ASSERT_EQ(2, RUN(self->root, "trace", "--count", "x"));
	ASSERT_HAS(res.err, "bad --count");
	ASSERT_TRUE(made_none(self->root));
}

TEST_F(umh, trace_missing_tracefs)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys", self->root);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "umhcap: tracefs not found at ");
	ASSERT_HAS(res.err, "mount -t tracefs");
	ASSERT_STREQ("", res.out);
}

TEST_F(umh, trace_missing_event)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" TFS "/events/umh", self->root);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "trace event umh/umh_exec not found");
	ASSERT_TRUE(made_none(self->root));
}

TEST_F(umh, trace_bad_format)
{
	put(self->root, TFS "/events/umh/umh_exec/format", "garbage\n");
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "umhcap: cannot parse ");
	ASSERT_HAS(res.err, "/events/umh/umh_exec/format");
	ASSERT_TRUE(made_none(self->root));
}

TEST_F(umh, trace_missing_header_page)
{
	rm_file(self->root, TFS "/events/header_page");
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "/events/header_page");
	ASSERT_TRUE(made_none(self->root));
}

TEST_F(umh, trace_debugfs_fallback)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct ev e[] = { EV_MODPROBE };
	const char *inst;

	trace_events(self->root, e, 1);
	snprintf(from, sizeof(from), "%s/" TFS, self->root);
	snprintf(to, sizeof(to), "%s/sys/kernel/debug", self->root);
	mkdir_p(to);
	strcat(to, "/tracing");
	ASSERT_EQ(0, rename(from, to));
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	inst = only_entry(self->root, "sys/kernel/debug/tracing/removed-instances");
	ASSERT_STREQ("1", get(self->root, at(inst, "events/umh/umh_exec/enable")));
}

/* A plain directory has no enable file: fail, and remove it. */
TEST_F(umh, trace_removes_instance_on_error)
{
	char path[PATH_MAX];
	const char *inst;

	snprintf(path, sizeof(path), "%s/" FRESH, self->root);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "umhcap: cannot enable umh/umh_exec in ");
	ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
	ASSERT_FALSE(exists(self->root, at(inst, "events")));
}

TEST_F(umh, trace_no_cpu_buffers)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" FRESH "/per_cpu", self->root);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ASSERT_EQ(2, RUN(self->root, "trace"));
	ASSERT_HAS(res.err, "per_cpu");
	ASSERT_NE(NULL, removed(_metadata, self->root));
}

static bool wait_for_output(int fd, int ms)
{
	struct stat st;

	for (; ms > 0; ms -= 10) {
		if (!fstat(fd, &st) && st.st_size > 0)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * umhcap trace on a live buffer, stdout and stderr to files: a FIFO with
 * a writer stands for trace_pipe_raw, which never ends and is empty once
 * read, as it is between helpers.  The FIFO moves with the instance, and
 * so serves every run of a test.
 */
struct live {
	pid_t pid;
	int w;			/* the FIFO's writer, or -1 */
	int out, err;
};

/* Start it, and wait until it printed the event on the FIFO: 0 or -1. */
static int live_start(const char *root, struct live *l)
{
	const char *bin = getenv("UMHCAP_BIN") ?: "./umhcap";
	struct ev e = EV_MODPROBE;
	char fifo[PATH_MAX];
	struct page pg;

	if (l->w < 0) {
		snprintf(fifo, sizeof(fifo),
			 "%s/" FRESH "/per_cpu/cpu0/trace_pipe_raw", root);
		unlink(fifo);
		if (mkfifo(fifo, 0600))
			return -1;
		l->w = open(fifo, O_RDWR);
		if (l->w < 0)
			return -1;
	}
	l->out = fileno(tmpfile());
	l->err = fileno(tmpfile());
	fflush(NULL);
	l->pid = fork();
	if (l->pid < 0)
		return -1;
	if (l->pid == 0) {
		dup2(l->out, 1);
		dup2(l->err, 2);
		execl(bin, bin, "--root", root, "trace", (char *)NULL);
		_exit(127);
	}
	page_init(&pg, e.ts);
	page_ev(&pg, &e);
	memcpy(pg.b + 8, &pg.len, 8);
	if (write(l->w, pg.b, PAGE_SIZE) == PAGE_SIZE &&
	    wait_for_output(l->out, 5000))
		return 0;
	kill(l->pid, SIGKILL);
	waitpid(l->pid, NULL, 0);
	return -1;
}

/* Wait up to @ms for it to exit; its exit code, or -1 (killed then). */
static int live_wait(struct live *l, int ms)
{
	int status = -1;

	for (; ms > 0; ms -= 10) {
		if (waitpid(l->pid, &status, WNOHANG) == l->pid)
			goto out;
		usleep(10000);
	}
	kill(l->pid, SIGKILL);
	waitpid(l->pid, &status, 0);
out:
	slurp(l->out, res.out, sizeof(res.out));
	slurp(l->err, res.err, sizeof(res.err));
	return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Stopped by @sig once it has printed what the buffer held and gone on
 * waiting: the instance goes with it.
 */
static void trace_signal(struct __test_metadata *_metadata, const char *root,
			 int sig)
{
	struct live l = { .w = -1 };
	const char *inst;

	ASSERT_EQ(0, live_start(root, &l));
	inst = only_entry(root, INSTANCES);
	ASSERT_STREQ("1", get(root, at(inst, "events/umh/umh_exec/enable")));
	usleep(300000);		/* a few empty rounds */
	ASSERT_EQ(0, waitpid(l.pid, NULL, WNOHANG));
	ASSERT_EQ(0, kill(l.pid, sig));
	ASSERT_EQ(0, live_wait(&l, 5000));
	close(l.w);
	ASSERT_STREQ(LINE_MODPROBE, res.out);
	ASSERT_STREQ("", res.err);
	ASSERT_NE(NULL, removed(_metadata, root));
}

TEST_F(umh, trace_sigterm_cleans_up)
{
	trace_signal(_metadata, self->root, SIGTERM);
}

TEST_F(umh, trace_sigint_cleans_up)
{
	trace_signal(_metadata, self->root, SIGINT);
}

/* The terminal closed. */
TEST_F(umh, trace_sighup_cleans_up)
{
	trace_signal(_metadata, self->root, SIGHUP);
}

/* FRESH/@file as a new instance holds it. */
static void fresh_file(const char *root, const char *file)
{
	char rel[256];
	size_t i;

	for (i = 0; i < NR_FRESH; i++)
		if (!strcmp(fresh[i][0], file))
			break;
	if (i == NR_FRESH)
		abort();
	snprintf(rel, sizeof(rel), FRESH "/%s", file);
	put(root, rel, "%s", fresh[i][1]);
}

/* The error for @file of @inst holding @shown: "... holds ..., not ...". */
static const char *tampered(const char *root, const char *inst,
			    const char *file, const char *shown,
			    const char *want)
{
	char *b = slot_buf();

	snprintf(b, 2048, "umhcap: %s/" INSTANCES "/%s/%s holds \"%s\", not \"%s\": umhcap's tracefs instance was changed, so helpers may be missing from the trace; umhcap learn shows what they used, from the kernel's record\n",
		 root, strrchr(inst, '/') + 1, file, shown, want);
	return b;
}

/*
 * What could hide helpers in umhcap's instance, set before umhcap enabled
 * anything: refused before it reports anything, with the file and what it
 * held (escaped), and the instance removed.  A helper cannot know the
 * name in time; this is what it would find if it could.
 */
TEST_F(umh, trace_checks_instance_first)
{
	static const char *const bad[][4] = {
		/* file, content, as shown, what it must hold */
		{ "tracing_on", "0\n", "0", "1" },
		{ "events/umh/umh_exec/filter", "purpose != \"modprobe\"\n",
		  "purpose != \\x22modprobe\\x22", "none" },
		{ "set_event_pid", "1\n2\n", "1\\x0a2", "" },
		{ "set_event_notrace_pid", "1\n", "1", "" },
	};
	struct ev e[] = { EV_MODPROBE };
	char rel[256];
	const char *inst;
	size_t i;

	trace_events(self->root, e, 1);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(rel, sizeof(rel), FRESH "/%s", bad[i][0]);
		put(self->root, rel, "%s", bad[i][1]);
		ASSERT_EQ(2, RUN(self->root, "trace"));
		ASSERT_STREQ("", res.out);
		ASSERT_NE(NULL, (inst = removed(_metadata, self->root)));
		ASSERT_STREQ(tampered(self->root, inst, bad[i][0], bad[i][2],
				      bad[i][3]), res.err);
		ASSERT_EQ(0, fresh_again(self->root));
		fresh_file(self->root, bad[i][0]);
	}
	/* And with each put back, the event is shown. */
	ASSERT_EQ(0, RUN(self->root, "trace"));
	ASSERT_STREQ(LINE_MODPROBE, res.out);
}

/*
 * The same, and what umhcap itself set, changed while it traces: it stops
 * within a round or two with the error, not silently.
 */
TEST_F(umh, trace_checks_instance_while_tracing)
{
	static const char *const bad[][4] = {
		{ "tracing_on", "0\n", "0", "1" },
		{ "events/umh/umh_exec/enable", "0\n", "0", "1" },
		{ "events/umh/umh_exec/filter", "ret != 0\n", "ret != 0",
		  "none" },
		{ "events/umh/umh_capable/enable", "0\n", "0", "1" },
		{ "events/umh/umh_capable/filter", "none\n", "none",
		  "ret != 0 && noaudit == 0" },
		{ "set_event_pid", "4242\n", "4242", "" },
		{ "set_event_notrace_pid", "1\n", "1", "" },
	};
	struct live l = { .w = -1 };
	const char *inst;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, live_start(self->root, &l));
		inst = only_entry(self->root, INSTANCES);
		put(self->root, at(inst, bad[i][0]), "%s", bad[i][1]);
		ASSERT_EQ(2, live_wait(&l, 5000));
		ASSERT_STREQ(LINE_MODPROBE, res.out);
		ASSERT_STREQ(tampered(self->root, inst, bad[i][0], bad[i][2],
				      bad[i][3]), res.err);
		ASSERT_NE(NULL, removed(_metadata, self->root));
		ASSERT_EQ(0, fresh_again(self->root));
		fresh_file(self->root, bad[i][0]);
	}
	close(l.w);
}

TEST_F(umh, trace_epipe_cleans_up)
{
	const char *bin = getenv("UMHCAP_BIN") ?: "./umhcap";
	struct ev e[] = { EV_MODPROBE, EV_OTHER };
	int p[2], status;
	pid_t pid;

	trace_events(self->root, e, 2);
	ASSERT_EQ(0, pipe(p));
	close(p[0]);
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		dup2(p[1], 1);
		signal(SIGPIPE, SIG_DFL);
		execl(bin, bin, "--root", self->root, "trace", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_NE(NULL, removed(_metadata, self->root));
}

/*
 * The @n-th line of @out (from 0), with its newline, in a slot_buf(),
 * which json_get() reuses: copy it; "" if there is none.
 */
static const char *line_of(const char *out, int n)
{
	char *b = slot_buf();
	size_t len;

	for (; n > 0 && out; n--) {
		out = strchr(out, '\n');
		out = out ? out + 1 : NULL;
	}
	len = out ? strcspn(out, "\n") : 0;
	if (out && out[len] == '\n')
		len++;
	snprintf(b, 2048, "%.*s", (int)len, out ? out : "");
	return b;
}

/*
 * For json_test.c: a page of each line trace prints, a helper's start,
 * a refused check and a purpose umhcap does not know.
 */
void trace_scene(const char *root)
{
	struct ev a = EV_MODPROBE, u = EV_OTHER;
	struct cap_ev refused = CAP_EV(12500000000ULL, "coredump",
				       CAP_DAC_OVERRIDE, 0, -1);
	struct page pg;

	u.purpose = "firmware";
	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	page_cap(&pg, &refused);
	page_ev(&pg, &u);
	page_write(root, 0, &pg);
}

/*
 * --json: one object a line and event, in order (JSON Lines), with the
 * fields of the text lines; a comm and arguments a helper's trigger
 * chose, with quotes, backslashes, control bytes and bytes that are not
 * UTF-8, escaped, never raw, and never more than one line.
 */
TEST_F(umh, trace_json)
{
	struct ev a = EV_MODPROBE, c = EV_COREDUMP, f = {
		.ts = 15000000000ULL, .purpose = "coredump", .path = "/bin/core",
		.args = "a\"}\n{\"b", .argc = 2, .pid = 4242,
		.comm = "x\",\"trigger_pid\":1,\\\x1b[2J\n\x01\xff",
		.uid = 1000, .bset = B(CAP_CHOWN), .ret = 0,
	};
	struct cap_ev refused = CAP_EV(12500000000ULL, "coredump",
				       CAP_DAC_OVERRIDE, 0, -1);
	struct ev u = EV_OTHER;
	char l[2048];
	struct page pg;
	int i;

	u.purpose = "firmware";
	page_init(&pg, a.ts);
	page_ev(&pg, &a);
	page_cap(&pg, &refused);
	page_ev(&pg, &c);
	page_ev(&pg, &f);
	page_ev(&pg, &u);
	page_write(self->root, 0, &pg);
	ASSERT_EQ(0, RUN(self->root, "--json", "trace"));
	ASSERT_STREQ("", res.err);
	ASSERT_EQ(5, count_of(res.out, "\n"));
	ASSERT_EQ(NULL, strchr(res.out, '\x1b'));
	for (i = 0; i < 5; i++)
		ASSERT_JSON(line_of(res.out, i));
	snprintf(l, sizeof(l), "%s", line_of(res.out, 0));
	ASSERT_JSON_AT(l, "time", "12.345678");
	ASSERT_JSON_AT(l, "event", "\"exec\"");
	ASSERT_JSON_AT(l, "purpose", "\"modprobe\"");
	ASSERT_JSON_AT(l, "path", "\"/sbin/modprobe\"");
	ASSERT_JSON_AT(l, "args", "\"-q -- fs-nosuchfs\"");
	ASSERT_JSON_AT(l, "argc", "3");
	ASSERT_JSON_AT(l, "program", "\"/sbin/modprobe\"");
	ASSERT_JSON_AT(l, "trigger_pid", "123");
	ASSERT_JSON_AT(l, "trigger_comm", "\"mount\"");
	ASSERT_JSON_AT(l, "trigger_uid", "0");
	ASSERT_JSON_AT(l, "uid", "0");
	ASSERT_JSON_AT(l, "gid", "0");
	ASSERT_JSON_AT(l, "inheritable", "\"0x0\"");
	ASSERT_JSON_AT(l, "result", "\"ok\"");
	ASSERT_JSON_AT(l, "ret", "0");
	snprintf(l, sizeof(l), "%s", line_of(res.out, 1));
	ASSERT_JSON_AT(l, "time", "12.500000");
	ASSERT_JSON_AT(l, "event", "\"refused\"");
	ASSERT_JSON_AT(l, "purpose", "\"coredump\"");
	ASSERT_JSON_AT(l, "cap", "\"cap_dac_override\"");
	ASSERT_JSON_AT(l, "cap_number", "1");
	ASSERT_JSON_AT(l, "pid", "731");
	ASSERT_JSON_AT(l, "comm", "\"core\\\\x20dump\"");
	ASSERT_JSON_AT(l, "uid", "0");
	snprintf(l, sizeof(l), "%s", line_of(res.out, 2));
	ASSERT_JSON_AT(l, "program", "\"/usr/lib/core\\\\x20handler\"");
	ASSERT_JSON_AT(l, "args", "\"77 a\\\\\\\"b\"");
	ASSERT_JSON_AT(l, "argc", "5");
	ASSERT_JSON_AT(l, "caps", "\"0x10000\"");
	ASSERT_JSON_AT(l, "caps_caps", "[\"cap_sys_module\"]");
	ASSERT_JSON_AT(l, "inheritable_caps", "[\"cap_chown\"]");
	ASSERT_JSON_AT(l, "result", "\"ENOENT\"");
	ASSERT_JSON_AT(l, "ret", "-2");
	/* The forged strings: escaped, the real fields kept. */
	snprintf(l, sizeof(l), "%s", line_of(res.out, 3));
	ASSERT_JSON_AT(l, "trigger_comm",
		       "\"x\\\",\\\"trigger_pid\\\":1,\\\\\\u001b[2J\\u000a\\u0001\\ufffd\"");
	ASSERT_JSON_AT(l, "trigger_pid", "4242");
	ASSERT_JSON_AT(l, "args", "\"a\\\"}\\u000a{\\\"b\"");
	/* A purpose umhcap does not know: null, and its bytes apart. */
	snprintf(l, sizeof(l), "%s", line_of(res.out, 4));
	ASSERT_JSON_AT(l, "purpose", "null");
	ASSERT_JSON_AT(l, "unknown_purpose", "\"firmware\"");
	ASSERT_JSON_AT(l, "result", "\"ENOEXEC\"");
}
