// SPDX-License-Identifier: GPL-2.0
/*
 * The host tests' shared helpers and fixture: see common.h.
 */
#include "common.h"

/*
 * The purposes, in the order umhcap shows them, after "all": the kernel's
 * order, but for "other", its 0, which comes last.
 */
#define SHOWN(id, name)	[UMH_##id ? UMH_##id - 1 : UMH_NR_PURPOSES - 1] = #name,
const char *const purposes[] = { UMH_PURPOSE_LIST(SHOWN) };
#undef SHOWN
_Static_assert(ARRAY_SIZE(purposes) == NR_PURPOSES, "NR_PURPOSES");

/*
 * The kernel's enum umh_purpose, by number, and the names its trace
 * events carry.
 */
#define KERNEL(id, name)	[UMH_##id] = #name,
const char *const kernel_purposes[] = { UMH_PURPOSE_LIST(KERNEL) };
#undef KERNEL
_Static_assert(ARRAY_SIZE(kernel_purposes) == NR_PURPOSES, "NR_PURPOSES");

/*
 * The purpose as the series recorded it before, the kernel's number,
 * shown by name: __print_symbolic(REC->purpose, { 0, "other" }, ...).
 */
const char *arg_purpose_num(void)
{
	static char arg[64 + NR_PURPOSES * 32];
	size_t i;
	int n;

	n = snprintf(arg, sizeof(arg), "__print_symbolic(REC->purpose");
	for (i = 0; i < NR_PURPOSES; i++)
		n += snprintf(arg + n, sizeof(arg) - n, ", { %zu, \"%s\" }",
			      i, kernel_purposes[i]);
	snprintf(arg + n, sizeof(arg) - n, ")");
	return arg;
}

/* The commands, in the order umhcap --help lists them. */
const char *const commands[] = {
	"show", "status", "drop", "keep", "user", "learn", "check", "policy",
	"export",
	"trace", "refusals", "save", "boots", "boot",
};
_Static_assert(ARRAY_SIZE(commands) == NR_COMMANDS, "NR_COMMANDS");

struct result res;
/* Capabilities taken from the bounding set of the next umhcap run. */
uint64_t drop_caps;
/* The argv[0] of the next umhcap run; NULL: the binary's path. */
const char *argv0;
const char *out_to;
/*
 * Messages about a write name a root other than /: " under root ROOT
 * (--root)".  The tests of other things take it out of what umhcap
 * printed with --root ROOT; those of the root itself set see_root.
 */
bool see_root;

uint64_t full(void)
{
	int n = cap_max_bits();

	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

/*
 * The row of measured.c that check holds purpose @p to, or NULL.  The
 * tests take the sets from the table itself, so that measured values
 * replace the placeholders without a test to edit.
 */
const struct umh_measured *row(const char *p)
{
	return umh_measured_for(umh_purpose_lookup(p));
}

/* What check allows purpose @p: its measured set, or nothing. */
uint64_t need(const char *p)
{
	const struct umh_measured *m = row(p);

	return m ? m->caps : 0;
}

/* A rotating static buffer, for the formatters below. */
char *slot_buf(void)
{
	static char buf[8][2048];
	static int slot;

	return buf[slot++ % 8];
}

/* "cap_a, cap_b" or "none", as umhcap lists sets. */
const char *names(uint64_t m)
{
	char *b = slot_buf(), *name;
	size_t n = 0;
	int i;

	strcpy(b, "none");
	for (i = 0; i < 64; i++) {
		if (!(m & B(i)))
			continue;
		name = cap_to_name(i);
		n += snprintf(b + n, 2048 - n, "%s%s", n ? ", " : "", name);
		cap_free(name);
	}
	return b;
}

/* The shortest of "all", "all except ..." and the list, as show prints. */
const char *fmt(uint64_t m)
{
	char *b = slot_buf();
	const char *pos;

	if (m == full())
		return "all";
	pos = names(m);
	snprintf(b, 2048, "all except %s", names(full() & ~m));
	return m && strlen(b) < strlen(pos) ? b : pos;
}

void mkdir_p(const char *path)
{
	char buf[PATH_MAX], *s;

	snprintf(buf, sizeof(buf), "%s", path);
	for (s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(buf, 0755);
		*s = '/';
	}
	mkdir(buf, 0755);
}

void put(const char *root, const char *rel, const char *fmt, ...)
{
	char path[PATH_MAX], *slash;
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdir_p(path);
	*slash = '/';
	f = fopen(path, "w");
	if (!f)
		abort();
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* Contents of ROOT/rel, or "<missing>". Returns a static buffer. */
const char *get(const char *root, const char *rel)
{
	static char buf[4][4096];
	static int slot;
	char path[PATH_MAX], *b = buf[slot++ % 4];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return "<missing>";
	n = read(fd, b, 4095);
	close(fd);
	b[n < 0 ? 0 : n] = '\0';
	return b;
}

bool exists(const char *root, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return !stat(path, &st);
}

void rm_file(const char *root, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
}

/* Set a bound in the kernel's own format (tab separated). */
void set_bound(const char *root, const char *purpose, uint64_t bset,
	       uint64_t inh)
{
	char dir[256];

	snprintf(dir, sizeof(dir), UMH "%s%s/bset", purpose ? "/" : "",
		 purpose ? purpose : "");
	put(root, dir, "%u\t%u\n", (uint32_t)bset, (uint32_t)(bset >> 32));
	snprintf(dir, sizeof(dir), UMH "%s%s/inheritable", purpose ? "/" : "",
		 purpose ? purpose : "");
	put(root, dir, "%u\t%u\n", (uint32_t)inh, (uint32_t)(inh >> 32));
}

/* The kernel's record of one purpose (NULL: the global one). */
void set_record(const char *root, const char *purpose, uint64_t used,
		unsigned long long started)
{
	char path[256];

	snprintf(path, sizeof(path), UMH "%s%s/used", purpose ? "/" : "",
		 purpose ? purpose : "");
	put(root, path, "%u\t%u\n", (uint32_t)used, (uint32_t)(used >> 32));
	snprintf(path, sizeof(path), UMH "%s%s/started", purpose ? "/" : "",
		 purpose ? purpose : "");
	put(root, path, "%llu\n", started);
}

/* Who the helpers of @purpose run as, in the kernel's format. */
void set_ident(const char *root, const char *purpose, uint32_t uid,
	       uint32_t gid)
{
	char path[256];

	snprintf(path, sizeof(path), UMH "/%s/uid", purpose);
	put(root, path, "%u\n", uid);
	snprintf(path, sizeof(path), UMH "/%s/gid", purpose);
	put(root, path, "%u\n", gid);
}

/* A kernel with per-purpose bounds, but no identities. */
void no_idents(const char *root)
{
	char path[256];
	size_t i;

	for (i = 0; i < NR_PURPOSES; i++) {
		snprintf(path, sizeof(path), UMH "/%s/uid", purposes[i]);
		rm_file(root, path);
		snprintf(path, sizeof(path), UMH "/%s/gid", purposes[i]);
		rm_file(root, path);
	}
}

/* What umhcap writes: "LOW HIGH\n". */
const char *written(uint64_t mask)
{
	static char buf[4][32];
	static int slot;
	char *b = buf[slot++ % 4];

	snprintf(b, 32, "%u %u\n", (uint32_t)mask, (uint32_t)(mask >> 32));
	return b;
}

const char *kernel_fmt(uint64_t mask)
{
	static char buf[4][32];
	static int slot;
	char *b = buf[slot++ % 4];

	snprintf(b, 32, "%u\t%u\n", (uint32_t)mask, (uint32_t)(mask >> 32));
	return b;
}

int rm_one(const char *path, const struct stat *st, int flag,
	   struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

static void rm_rf(const char *root)
{
	if (!strncmp(root, "/tmp/umhcap-test.", 17))
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void unpatch(const char *root)
{
	char path[PATH_MAX];
	size_t i;

	rm_file(root, UMH "/used");
	rm_file(root, UMH "/started");

	for (i = 0; i < NR_PURPOSES; i++) {
		snprintf(path, sizeof(path), "%s/" UMH "/%s", root,
			 purposes[i]);
		if (strncmp(path, "/tmp/umhcap-test.", 17))
			abort();
		nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	}
}

/*
 * Every purpose bounded to its measured set, the others (initrd, other)
 * to what they used, nothing: check must be clean.
 */
void harden(const char *root)
{
	size_t i;

	set_bound(root, NULL, full(), full());
	for (i = 0; i < NR_PURPOSES; i++)
		set_bound(root, purposes[i], need(purposes[i]),
			  need(purposes[i]));
}

void slurp(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n < 0 ? 0 : n] = '\0';
	close(fd);
}

/* Take every @cut out of @buf. */
void cut_all(char *buf, const char *cut)
{
	size_t n = strlen(cut);
	char *s;

	while ((s = strstr(buf, cut)))
		memmove(s, s + n, strlen(s + n) + 1);
}

/* Run umhcap with args; with_root adds "--root ROOT" in front. */
int run_argv(const char *root, bool with_root, const char *args[])
{
	const char *bin = getenv("UMHCAP_BIN") ?: "./umhcap";
	const char *argv[64] = { argv0 ?: bin };
	int out = fileno(tmpfile()), err = fileno(tmpfile());
	int i, n = 1, status;
	pid_t pid;

	if (with_root) {
		argv[n++] = "--root";
		argv[n++] = root;
	}
	for (i = 0; args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (out_to)
			out = open(out_to, O_WRONLY | O_CLOEXEC);
		dup2(out, 1);
		dup2(err, 2);
		if (with_root)
			unsetenv("UMHCAP_ROOT");
		/* Not root: the files' modes stop umhcap already. */
		for (i = 0; i < 64 && !geteuid(); i++)
			if ((drop_caps & B(i)) && prctl(PR_CAPBSET_DROP, i, 0, 0, 0))
				_exit(126);
		execv(bin, (char **)argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	drop_caps = 0;
	argv0 = NULL;
	out_to = NULL;
	slurp(out, res.out, sizeof(res.out));
	slurp(err, res.err, sizeof(res.err));
	if (with_root && !see_root) {
		char under[PATH_MAX + 32];

		snprintf(under, sizeof(under), " under root %s (--root)", root);
		cut_all(res.out, under);
		cut_all(res.err, under);
	}
	res.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	return res.code;
}

FIXTURE_SETUP(umh)
{
	const char *so = getenv("UMHCAP_FAKE_TRACEFS") ?:
			 "./tests/fake_tracefs.so";
	size_t i;

	/* The instances of the fake tracefs, in every umhcap run. */
	ASSERT_EQ(0, access(so, R_OK))
		TH_LOG("%s: %s; make check builds it and sets UMHCAP_FAKE_TRACEFS",
		       so, strerror(errno));
	ASSERT_EQ(0, setenv("LD_PRELOAD", so, 1));
	strcpy(self->root, "/tmp/umhcap-test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	set_bound(self->root, NULL, full(), full());
	set_record(self->root, NULL, 0, 0);
	for (i = 0; i < NR_PURPOSES; i++) {
		set_bound(self->root, purposes[i], full(), full());
		set_ident(self->root, purposes[i], 0, 0);
		set_record(self->root, purposes[i], 0, 0);
	}
	put(self->root, "proc/cmdline",
	    "BOOT_IMAGE=/vmlinuz root=/dev/vda console=ttyS0\n");
	/* Under --root, names are the root's: this machine's, copied. */
	put(self->root, "etc/passwd", "%s", slurp_file("/etc/passwd") ?: "");
	put(self->root, "etc/group", "%s", slurp_file("/etc/group") ?: "");
	put(self->root, BOOT_ID_FILE, "%s\n", THIS_BOOT);
	fake_tracefs(self->root, TFS);
	/*
	 * The fake tracefs makes sys/kernel, where a kernel without a uevent
	 * helper has no uevent_helper: the busybox systems' own, as the
	 * measured table's row of uevent is theirs.  The other knobs are
	 * not there, and check judges their purposes by their rows.
	 */
	put(self->root, UEVENT_HELPER, "/sbin/mdev\n");
	/*
	 * The series' kernel runs the umh LSM, as its default CONFIG_LSM
	 * lists do, so that a purpose of its own user is no finding.
	 */
	put(self->root, LSM_FILE, "capability,landlock,lockdown,yama,umh");
	/* The kernel's log, with no line of a refusal in it. */
	put(self->root, "dev/kmsg", "6,1,10,-;Linux version 6.12\n");
}

FIXTURE_TEARDOWN(umh)
{
	char out[PATH_MAX];

	rm_rf(self->root);
	snprintf(out, sizeof(out), "%s.out", self->root);
	rm_rf(out);
}

/*
 * ROOT.out, a directory beside the fake root and outside it, made empty:
 * what a link of the root's may lead to on this machine, which umhcap
 * must neither read nor write.  The fixture's teardown removes it.
 */
const char *outside(const char *root)
{
	static char out[PATH_MAX];

	snprintf(out, sizeof(out), "%s.out", root);
	if (mkdir(out, 0755) && errno != EEXIST)
		abort();
	return out;
}

/* ROOT/@rel, a symlink to @dir/@name, with the directories above it. */
void link_to(const char *root, const char *rel, const char *dir,
	     const char *name)
{
	char path[PATH_MAX], target[PATH_MAX], *slash;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(target, sizeof(target), "%s/%s", dir, name);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdir_p(path);
	*slash = '/';
	unlink(path);
	if (symlink(target, path))
		abort();
}

/*
 * umhcap --root ROOT ARGV... refused: exit 2, nothing on stdout, and @err
 * on stderr, at its start where @at_start.
 */
void refused(struct __test_metadata *_metadata, const char *root,
	     const char *const *argv, const char *err, bool at_start)
{
	const char *at;

	EXPECT_EQ(2, run_argv(root, true, (const char **)argv))
		TH_LOG("%s %s %s", argv[0], argv[1], argv[2]);
	at = strstr(res.err, err);
	EXPECT_TRUE(at_start ? at == res.err : at != NULL)
		TH_LOG("%s %s %s: want \"%s\"%s in: %s", argv[0], argv[1],
		       argv[2], err, at_start ? " at the start" : "", res.err);
	EXPECT_STREQ("", res.out);
}

/*
 * A JSON checker, enough to tell valid JSON (RFC 8259) from not: one
 * value, then only whitespace.  Returns the end of the value, or NULL.
 */
static const char *json_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

static const char *json_value(const char *s, int depth);

static const char *json_string(const char *s)
{
	if (*s++ != '"')
		return NULL;
	for (; *s != '"'; s++) {
		if ((unsigned char)*s < 0x20)
			return NULL;
		if (*s != '\\')
			continue;
		s++;
		if (*s == 'u') {
			if (strspn(s + 1, "0123456789abcdefABCDEF") < 4)
				return NULL;
			s += 4;
		} else if (!*s || !strchr("\"\\/bfnrt", *s)) {
			return NULL;
		}
	}
	return s + 1;
}

static const char *json_number(const char *s)
{
	const char *d;

	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		s += strspn(s, "0123456789");
	else
		return NULL;
	if (*s == '.') {
		d = ++s;
		s += strspn(s, "0123456789");
		if (s == d)
			return NULL;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		d = s;
		s += strspn(s, "0123456789");
		if (s == d)
			return NULL;
	}
	return s;
}

/* Members of an object (@obj) or elements of an array, up to @close. */
static const char *json_list(const char *s, char close, bool obj, int depth)
{
	s = json_ws(s + 1);
	if (*s == close)
		return s + 1;
	for (;;) {
		if (obj) {
			s = json_string(json_ws(s));
			if (!s)
				return NULL;
			s = json_ws(s);
			if (*s++ != ':')
				return NULL;
		}
		s = json_value(s, depth + 1);
		if (!s)
			return NULL;
		s = json_ws(s);
		if (*s == close)
			return s + 1;
		if (*s++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *s, int depth)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i;

	if (depth > 64)
		return NULL;
	s = json_ws(s);
	if (*s == '{')
		return json_list(s, '}', true, depth);
	if (*s == '[')
		return json_list(s, ']', false, depth);
	if (*s == '"')
		return json_string(s);
	for (i = 0; i < 3; i++)
		if (!strncmp(s, words[i], strlen(words[i])))
			return s + strlen(words[i]);
	return json_number(s);
}

bool json_valid(const char *s)
{
	s = json_value(s, 0);
	return s && !*json_ws(s);
}

/*
 * @s as a JSON string, as umhcap writes one of ASCII text: '"' and '\'
 * escaped, control characters as \u00XX.  In a slot_buf(): cut short.
 */
const char *json_quote(const char *s)
{
	char *b = slot_buf();
	size_t n = 0;

	b[n++] = '"';
	for (; *s && n < 2048 - 8; s++) {
		if (*s == '"' || *s == '\\')
			n += snprintf(b + n, 2048 - n, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			n += snprintf(b + n, 2048 - n, "\\u%04x", *s);
		else
			b[n++] = *s;
	}
	snprintf(b + n, 2048 - n, "\"");
	return b;
}

/*
 * The value at @path in the JSON text @s, as its text ("\"0x0\"", "12",
 * "null", "[...]"): @path names a member of an object by its key (keys
 * with no escape in them) and an element of an array by its index,
 * joined by '.', e.g. "bounds.0.bset_after".  NULL where there is none,
 * or @s is not valid JSON there.  In a slot_buf(): cut at 2047 bytes.
 */
const char *json_get(const char *s, const char *path)
{
	char key[256], *b;
	const char *end;
	size_t n, klen;
	long idx;
	bool found;

	s = json_ws(s);
	while (*path) {
		n = strcspn(path, ".");
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		path += n + !!path[n];
		if (*s != '{' && *s != '[')
			return NULL;
		idx = *s == '[' ? strtol(key, NULL, 10) : -1;
		found = false;
		s = json_ws(s + 1);
		if (*s == '}' || *s == ']')
			return NULL;
		for (;;) {
			if (idx < 0) {
				end = json_string(s);
				if (!end)
					return NULL;
				klen = end - s - 2;
				found = klen == n && !memcmp(s + 1, key, n);
				s = json_ws(end);
				if (*s++ != ':')
					return NULL;
				s = json_ws(s);
			} else {
				found = idx-- == 0;
			}
			if (found)
				break;
			s = json_value(s, 0);
			if (!s)
				return NULL;
			s = json_ws(s);
			if (*s++ != ',')
				return NULL;
			s = json_ws(s);
		}
	}
	end = json_value(s, 0);
	if (!end)
		return NULL;
	b = slot_buf();
	snprintf(b, 2048, "%.*s", (int)(end - s), s);
	return b;
}

/*
 * Six helpers since boot: four modprobe (cap_sys_module), two core dump
 * handlers (cap_chown, cap_dac_override); every other purpose idle.
 */
void learn_scene(const char *root)
{
	set_record(root, NULL, B(CAP_SYS_MODULE) | B(CAP_CHOWN) |
		   B(CAP_DAC_OVERRIDE), 6);
	set_record(root, "modprobe", B(CAP_SYS_MODULE), 4);
	set_record(root, "coredump", B(CAP_CHOWN) | B(CAP_DAC_OVERRIDE), 2);
}

/*
 * A write that fails after others went through: exit 3, and what was
 * written is named.  The file is made read-only and umhcap runs without
 * CAP_DAC_OVERRIDE.
 */
void read_only(const char *root, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (chmod(path, 0444))
		abort();
	drop_caps = B(CAP_DAC_OVERRIDE);
}

static bool is_number(const char *s)
{
	return *s && !s[strspn(s, "0123456789")];
}

bool find_who(struct who *w)
{
	const struct passwd *pw;
	const struct group *gr;
	bool found = false;

	setpwent();
	while (!found && (pw = getpwent())) {
		gr = getgrgid(pw->pw_gid);
		if (!pw->pw_uid || !pw->pw_gid || !gr ||
		    is_number(pw->pw_name) || is_number(gr->gr_name) ||
		    strlen(pw->pw_name) >= sizeof(w->user) ||
		    strlen(gr->gr_name) >= sizeof(w->group))
			continue;
		snprintf(w->user, sizeof(w->user), "%s", pw->pw_name);
		snprintf(w->group, sizeof(w->group), "%s", gr->gr_name);
		w->uid = pw->pw_uid;
		w->gid = pw->pw_gid;
		found = true;
	}
	endpwent();
	setgrent();
	while (found && (gr = getgrent()))
		if (gr->gr_gid && gr->gr_gid != w->gid &&
		    !is_number(gr->gr_name) &&
		    strlen(gr->gr_name) < sizeof(w->other))
			break;
	endgrent();
	if (!found || !gr)
		return false;
	snprintf(w->other, sizeof(w->other), "%s", gr->gr_name);
	w->other_gid = gr->gr_gid;
	for (w->stranger = 4242; getpwuid(w->stranger); w->stranger++)
		;
	return true;
}

/* "user(uid):group(gid)", as show and user print it. */
const char *who_str(const struct who *w)
{
	char *b = slot_buf();

	snprintf(b, 2048, "%s(%u):%s(%u)", w->user, w->uid, w->group, w->gid);
	return b;
}

/* The uid and gid files of @purpose: "uid gid". */
const char *ident_of(const char *root, const char *purpose)
{
	char rel[2][256], *b = slot_buf();

	snprintf(rel[0], sizeof(rel[0]), UMH "/%s/uid", purpose);
	snprintf(rel[1], sizeof(rel[1]), UMH "/%s/gid", purpose);
	snprintf(b, 2048, "%.32s %.32s", get(root, rel[0]), get(root, rel[1]));
	return b;
}

/* "uid\n gid\n", as ident_of() reads what umhcap, or the kernel, wrote. */
const char *ident(uint32_t uid, uint32_t gid)
{
	char *b = slot_buf();

	snprintf(b, 2048, "%u\n %u\n", uid, gid);
	return b;
}

/*
 * Whether the fake kernel's umh_exec records who the helper ran as, uid
 * and gid after inheritable, as it does since helpers have identities of
 * their own.  old_umh_exec() makes it a kernel from before; each test runs
 * in a child of its own, so that lasts for the one test.
 */
bool exec_ident = true;

/*
 * The umh_exec format as x86_64 has it, with @purpose_line and
 * @purpose_arg (its argument in the print fmt) for "purpose",
 * @program_line for "program", and @ident_lines for the helper's uid and
 * gid: "" for a kernel without them, whose ret comes right after
 * inheritable.
 */
const char *exec_format_ident(const char *purpose_line,
			      const char *purpose_arg,
			      const char *program_line,
			      const char *ident_lines)
{
	bool ident = *ident_lines;
	static char buf[4096];

	snprintf(buf, sizeof(buf),
		 "name: umh_exec\n"
		 "ID: %d\n"
		 "format:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "%s"
		 "\tfield:__data_loc char[] path;\toffset:12;\tsize:4;\tsigned:0;\n"
		 "%s"
		 "\tfield:__data_loc char[] args;\toffset:20;\tsize:4;\tsigned:0;\n"
		 "\tfield:int argc;\toffset:24;\tsize:4;\tsigned:1;\n"
		 "\tfield:pid_t trigger_pid;\toffset:28;\tsize:4;\tsigned:1;\n"
		 "\tfield:__data_loc char[] trigger_comm;\toffset:32;\tsize:4;\tsigned:0;\n"
		 "\tfield:uid_t trigger_uid;\toffset:36;\tsize:4;\tsigned:0;\n"
		 "\tfield:u64 bset;\toffset:40;\tsize:8;\tsigned:0;\n"
		 "\tfield:u64 inheritable;\toffset:48;\tsize:8;\tsigned:0;\n"
		 "%s"
		 "\tfield:int ret;\toffset:%d;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "print fmt: \"purpose=%%s path=\\\"%%s\\\" program=\\\"%%s\\\" argc=%%d args=\\\"%%s\\\" trigger_pid=%%d trigger_comm=\\\"%%s\\\" trigger_uid=%%u bset=0x%%016llx inheritable=0x%%016llx%s ret=%%d\", "
		 "%s, "
		 "__get_str(path), __get_str(program), REC->argc, __get_str(args), REC->trigger_pid, __get_str(trigger_comm), REC->trigger_uid, REC->bset, REC->inheritable%s, REC->ret\n",
		 UMH_EXEC_ID, purpose_line, program_line, ident_lines,
		 ident ? 64 : 56, ident ? " uid=%u gid=%u" : "", purpose_arg,
		 ident ? ", REC->uid, REC->gid" : "");
	return buf;
}

/* The same, with the identity as the kernel of exec_ident has it. */
const char *exec_format(const char *purpose_line,
			const char *purpose_arg,
			const char *program_line)
{
	return exec_format_ident(purpose_line, purpose_arg, program_line,
				 exec_ident ? FMT_IDENT : "");
}

/* The umh_exec format, with @program_line for "program". */
const char *umh_exec_format(const char *program_line)
{
	return exec_format(FMT_PURPOSE, ARG_PURPOSE, program_line);
}

/*
 * The umh_capable format as x86_64 has it, with @purpose_line and
 * @purpose_arg for "purpose", and @cap_line for "cap".
 */
const char *capable_format(const char *purpose_line,
			   const char *purpose_arg,
			   const char *cap_line)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf),
		 "name: umh_capable\n"
		 "ID: %d\n"
		 "format:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "%s"
		 "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
		 "\tfield:__data_loc char[] comm;\toffset:16;\tsize:4;\tsigned:0;\n"
		 "\tfield:uid_t uid;\toffset:20;\tsize:4;\tsigned:0;\n"
		 "%s"
		 "\tfield:bool noaudit;\toffset:28;\tsize:1;\tsigned:0;\n"
		 "\tfield:int ret;\toffset:32;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "print fmt: \"purpose=%%s pid=%%d comm=\\\"%%s\\\" uid=%%u cap=%%d noaudit=%%d ret=%%d\", "
		 "%s, "
		 "REC->pid, __get_str(comm), REC->uid, REC->cap, REC->noaudit, REC->ret\n",
		 UMH_CAPABLE_ID, purpose_line, cap_line, purpose_arg);
	return buf;
}

/* The umh_capable format, with @cap_line for "cap". */
const char *umh_capable_format(const char *cap_line)
{
	return capable_format(FMT_PURPOSE, ARG_PURPOSE, cap_line);
}

/* The files of a new instance, as the kernel makes it. */
const char *const fresh[][2] = {
	{ "tracing_on",				"1\n" },
	{ "set_event_pid",			"" },
	{ "set_event_notrace_pid",		"" },
	{ "events/umh/umh_exec/enable",		"0\n" },
	{ "events/umh/umh_exec/filter",		"none\n" },
	{ "events/umh/umh_capable/enable",	"0\n" },
	{ "events/umh/umh_capable/filter",	"none\n" },
	{ "per_cpu/cpu0/trace_pipe_raw",	"" },
};
_Static_assert(ARRAY_SIZE(fresh) == NR_FRESH, "NR_FRESH");

/*
 * The tracefs files umhcap reads, under ROOT/DIR, and those a new
 * instance holds, under DIR/fresh-instance.
 */
void fake_tracefs(const char *root, const char *dir)
{
	char rel[256], path[PATH_MAX];
	size_t i;

	snprintf(rel, sizeof(rel), "%s/events/header_page", dir);
	put(root, rel, HEADER_PAGE);
	snprintf(rel, sizeof(rel), "%s/events/header_event", dir);
	put(root, rel, HEADER_EVENT);
	snprintf(rel, sizeof(rel), "%s/events/umh/enable", dir);
	put(root, rel, "0\n");
	snprintf(rel, sizeof(rel), "%s/events/umh/umh_exec/enable", dir);
	put(root, rel, "0\n");
	snprintf(rel, sizeof(rel), "%s/events/umh/umh_exec/format", dir);
	put(root, rel, "%s", umh_exec_format(FMT_PROGRAM));
	snprintf(rel, sizeof(rel), "%s/events/umh/umh_capable/enable", dir);
	put(root, rel, "0\n");
	snprintf(rel, sizeof(rel), "%s/events/umh/umh_capable/format", dir);
	put(root, rel, "%s", umh_capable_format(FMT_CAP_FIELD));
	snprintf(path, sizeof(path), "%s/%s/instances", root, dir);
	mkdir_p(path);
	for (i = 0; i < ARRAY_SIZE(fresh); i++) {
		snprintf(rel, sizeof(rel), "%s/fresh-instance/%s", dir,
			 fresh[i][0]);
		put(root, rel, "%s", fresh[i][1]);
	}
}

int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* The file @file of the instance at @inst. */
const char *at(const char *inst, const char *file)
{
	char *b = slot_buf();

	snprintf(b, 2048, "%s/%s", inst, file);
	return b;
}

/* A whole file, NUL-terminated, or NULL (errno set). */
char *slurp_file(const char *path)
{
	char *buf = NULL;
	size_t len;
	FILE *f, *m;
	int c;

	f = fopen(path, "r");
	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	if (!m)
		abort();
	while ((c = getc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

/* A file of the umhcap source tree (make check sets UMHCAP_SRC). */
const char *src_path(const char *rel)
{
	char *b = slot_buf();

	snprintf(b, 2048, "%s/%s", getenv("UMHCAP_SRC") ?: ".", rel);
	return b;
}

/* Every file under a fake root: its path, size, time and content. */
static FILE *tree_out;

static int tree_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	uint64_t h = 14695981039346656037ULL;
	unsigned char buf[4096];
	ssize_t n, i;
	int fd;

	(void)flag; (void)ftw;
	fprintf(tree_out, "%s %o %lld %lld.%09ld", path, st->st_mode,
		(long long)st->st_size, (long long)st->st_mtim.tv_sec,
		st->st_mtim.tv_nsec);
	if (S_ISREG(st->st_mode) && (fd = open(path, O_RDONLY)) >= 0) {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			for (i = 0; i < n; i++)
				h = (h ^ buf[i]) * 1099511628211ULL;
		close(fd);
		fprintf(tree_out, " %016" PRIx64, h);
	}
	fputc('\n', tree_out);
	return 0;
}

/* The whole fake root, to prove that nothing was written or made. */
char *tree(const char *root)
{
	char *buf = NULL;
	size_t len;

	tree_out = open_memstream(&buf, &len);
	if (!tree_out || nftw(root, tree_one, 16, FTW_PHYS))
		abort();
	fclose(tree_out);
	return buf;
}

/* The name of entry @i of a struct boot_rec. */
const char *rec_name(size_t i)
{
	return i ? purposes[i - 1] : "all";
}

/*
 * learn --apply's count, of every purpose: @narrowed narrowed,
 * @unchanged unchanged, the others idle.  Static.
 */
const char *applied(int narrowed, int unchanged)
{
	static char buf[128];

	snprintf(buf, sizeof(buf),
		 "%d purpose%s narrowed, %d unchanged, %d idle left alone",
		 narrowed, narrowed == 1 ? "" : "s", unchanged,
		 (int)NR_PURPOSES - narrowed - unchanged);
	return buf;
}

/*
 * The text of a saved record, in the format umhcap.8 gives; without its
 * comment, which the format lets a file leave out.  Static.
 */
const char *saved_text(const char *id, long long saved,
		       const struct boot_rec *r)
{
	static char buf[4096];
	size_t i;
	int n;

	n = snprintf(buf, sizeof(buf), "umhcap-record 1\nboot_id %s\n"
		     "saved %lld\nbtime %lld\n", id, saved, saved - 3600);
	for (i = 0; i <= NR_PURPOSES; i++)
		n += snprintf(buf + n, sizeof(buf) - n,
			      "%s started %llu used %u %u\n", rec_name(i),
			      r->started[i], (uint32_t)r->used[i],
			      (uint32_t)(r->used[i] >> 32));
	return buf;
}

void put_saved(const char *root, const char *id, const char *text)
{
	char rel[128];

	snprintf(rel, sizeof(rel), BOOTS "/%s", id);
	put(root, rel, "%s", text);
}

/*
 * Two saved boots: A, a day before B, ran modprobe once, with cap_kill
 * besides, and power once; B ran coredump three times, with
 * cap_fowner, and request_key once, which used nothing.
 */
void two_saved_boots(const char *root)
{
	static const struct boot_rec a = {
		.started = { 2, 1, 0, 0, 0, 0, 1 },
		.used = { B(CAP_SYS_MODULE) | B(CAP_KILL) | B(CAP_SYS_BOOT),
			  B(CAP_SYS_MODULE) | B(CAP_KILL), 0, 0, 0, 0,
			  B(CAP_SYS_BOOT) },
	};
	static const struct boot_rec b = {
		.started = { 4, 0, 3, 0, 1 },
		.used = { CD_USED | B(CAP_FOWNER), 0, CD_USED | B(CAP_FOWNER) },
	};

	put_saved(root, BOOT_A, saved_text(BOOT_A, SAVED_A, &a));
	put_saved(root, BOOT_B, saved_text(BOOT_B, SAVED_B, &b));
}

/* The mode of ROOT/rel, or -1. */
int mode_of(const char *root, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return stat(path, &st) ? -1 : (int)(st.st_mode & 07777);
}

void chmod_rel(const char *root, const char *rel, mode_t mode)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (chmod(path, mode))
		abort();
}

/* The names in ROOT/rel, dot files too, sorted, ' ' before each. */
const char *entries(const char *root, const char *rel)
{
	static char buf[4096];
	struct dirent **list;
	char path[PATH_MAX];
	int i, n, len = 0;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	buf[0] = '\0';
	n = scandir(path, &list, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, ".."))
			len += snprintf(buf + len, sizeof(buf) - len, " %s",
					list[i]->d_name);
		free(list[i]);
	}
	if (n >= 0)
		free(list);
	return buf;
}

/* What export --learned --cmdline prints, without its newline; static. */
const char *learned_params(const char *root,
			   struct __test_metadata *_metadata)
{
	static char buf[4096];

	ASSERT_EQ(0, RUN(root, "export", "--learned", "--cmdline"));
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(res.out, "\n"),
		 res.out);
	return buf;
}

/* Root, with the capabilities NEEDS_ROOT() names in its effective set. */
bool root_with_caps(void)
{
	static const cap_value_t need[] = {
		CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_SETGID, CAP_SETUID,
		CAP_SETPCAP, CAP_SYS_MODULE,
	};
	cap_flag_value_t v;
	cap_t caps;
	bool ok;
	size_t i;

	if (geteuid())
		return false;
	caps = cap_get_proc();
	if (!caps)
		return false;
	ok = true;
	for (i = 0; i < ARRAY_SIZE(need); i++)
		ok &= !cap_get_flag(caps, need[i], CAP_EFFECTIVE, &v) &&
		      v == CAP_SET;
	cap_free(caps);
	return ok;
}

/*
 * systemd-journal-remote, which writes a journal file of journalctl's
 * export format; NULL where it is not installed (Debian's package
 * systemd-journal-remote).
 */
const char *journal_remote(void)
{
	static const char *const paths[] = {
		"/lib/systemd/systemd-journal-remote",
		"/usr/lib/systemd/systemd-journal-remote",
	};
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(*paths); i++)
		if (!access(paths[i], X_OK))
			return paths[i];
	return NULL;
}

/*
 * A real journal file, ROOT/var/log/journal/JOURNAL_MACHINE/@name, of the
 * @len bytes of export format @export (each entry with its
 * __REALTIME_TIMESTAMP), written by systemd-journal-remote as journald
 * would write it: 0, or -1 where it failed (said on stderr).
 */
int put_journal(const char *root, const char *name, const char *export,
		size_t len)
{
	char dir[PATH_MAX], out[PATH_MAX * 2];
	const char *jr = journal_remote();
	int fds[2], status;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s/var/log/journal/" JOURNAL_MACHINE, root);
	mkdir_p(dir);
	snprintf(out, sizeof(out), "--output=%s/%s", dir, name);
	if (!jr || pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		/* It says how many entries it wrote, not the test's KTAP. */
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execl(jr, jr, out, "-", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	if (write(fds[1], export, len) != (ssize_t)len)
		len = 0;
	close(fds[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || !len) {
		fprintf(stderr, "# %s %s - failed (status %d)\n", jr, out, status);
		return -1;
	}
	return 0;
}
