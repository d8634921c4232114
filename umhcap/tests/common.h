/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host tests share: the fake root (the fixture umh, which
 * builds one in a temporary directory for each test, and the helpers
 * that fill and read it), running umhcap on it (RUN, res), the fake
 * tracefs, the formats umhcap prints, a JSON checker, and saved boots.
 * common.c holds them; each *_test.c file holds the tests of one of
 * umhcap's commands or files.  Nothing touches the host's /proc/sys,
 * /sys or tracefs.
 */
#ifndef UMHCAP_TESTS_COMMON_H
#define UMHCAP_TESTS_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
/*
 * The measured table (measured.c) and the table of purposes (purpose.c),
 * linked in, and their declarations.
 */
#include "../umhcap.h"
#include "harness.h"

#define B(cap)		(1ULL << (cap))
#define UMH		"proc/sys/kernel/usermodehelper"
#define TFS		"sys/kernel/tracing"
/*
 * A fake tracefs has no instances of its own: tests/fake_tracefs.so,
 * preloaded into umhcap, moves FRESH into the instance umhcap makes, and
 * the instance, when umhcap removes it, to REMOVED/NAME.
 */
#define INSTANCES	TFS "/instances"
#define FRESH		TFS "/fresh-instance"
#define REMOVED		TFS "/removed-instances"
/* This boot, as the kernel names it, and where umhcap save keeps boots. */
#define BOOT_ID_FILE	"proc/sys/kernel/random/boot_id"
#define UEVENT_HELPER	"sys/kernel/uevent_helper"
/* The LSMs the kernel runs, in securityfs: comma-separated, no newline. */
#define LSM_FILE	"sys/kernel/security/lsm"
#define MODPROBE_KNOB	"proc/sys/kernel/modprobe"
#define CORE_PATTERN	"proc/sys/kernel/core_pattern"
#define POWEROFF_CMD	"proc/sys/kernel/poweroff_cmd"
#define THIS_BOOT	"0b6a1f0e-3c1d-4f55-9a43-2b8e1f0c9d77"
#define BOOTS		"var/lib/umhcap/boots"

/*
 * The purposes, in the order umhcap shows them, after "all": common.c
 * makes them of umhcap.h's UMH_PURPOSE_LIST, which purpose_test.c holds
 * purpose.c's table to.
 */
#define NR_PURPOSES	((size_t)UMH_NR_PURPOSES)
extern const char *const purposes[];

/*
 * The kernel's enum umh_purpose, by number, and the names its trace
 * events carry.
 */
extern const char *const kernel_purposes[];

/* The commands, in the order umhcap --help lists them. */
#define NR_COMMANDS	((size_t)14)
extern const char *const commands[];

struct result {
	int code;
	char out[1 << 16];
	char err[1 << 14];
};

extern struct result res;
/* Capabilities taken from the bounding set of the next umhcap run. */
extern uint64_t drop_caps;
/* The argv[0] of the next umhcap run; NULL: the binary's path. */
extern const char *argv0;
/* The next RUN's stdout: this file, such as /dev/full, not one it reads */
extern const char *out_to;
/*
 * Messages about a write name a root other than /: " under root ROOT
 * (--root)".  The tests of other things take it out of what umhcap
 * printed with --root ROOT; those of the root itself set see_root.
 */
extern bool see_root;

/* common.c says what each of these does. */
uint64_t full(void);
const struct umh_measured *row(const char *p);
uint64_t need(const char *p);
char *slot_buf(void);
const char *names(uint64_t m);
const char *fmt(uint64_t m);
void mkdir_p(const char *path);
void put(const char *root, const char *rel, const char *fmt, ...);
const char *get(const char *root, const char *rel);
bool exists(const char *root, const char *rel);
void rm_file(const char *root, const char *rel);
void set_bound(const char *root, const char *purpose, uint64_t bset,
	       uint64_t inh);
void set_record(const char *root, const char *purpose, uint64_t used,
		unsigned long long started);
void set_ident(const char *root, const char *purpose, uint32_t uid,
	       uint32_t gid);
void no_idents(const char *root);
const char *written(uint64_t mask);
const char *kernel_fmt(uint64_t mask);
int rm_one(const char *path, const struct stat *st, int flag,
	   struct FTW *ftw);
void unpatch(const char *root);
void harden(const char *root);
void slurp(int fd, char *buf, size_t len);
void cut_all(char *buf, const char *cut);
int run_argv(const char *root, bool with_root, const char *args[]);

#define RUN(root, ...) run_argv(root, true, (const char *[]){ __VA_ARGS__, NULL })
#define RUN0(root) run_argv(root, true, (const char *[]){ NULL })

#define ASSERT_HAS(hay, needle) do {					\
	if (!strstr(hay, needle))					\
		TH_LOG("missing \"%s\" in:\n%s", needle, hay);		\
	ASSERT_TRUE(strstr(hay, needle) != NULL);				\
} while (0)

#define ASSERT_LACKS(hay, needle) do {					\
	if (strstr(hay, needle))					\
		TH_LOG("unexpected \"%s\" in:\n%s", needle, hay);	\
	ASSERT_TRUE(strstr(hay, needle) == NULL);				\
} while (0)

#define ASSERT_STARTS(hay, prefix) do {					\
	if (strncmp(hay, prefix, strlen(prefix)))			\
		TH_LOG("want \"%s\" at the start of:\n%s", prefix, hay);	\
	ASSERT_EQ(0, strncmp(hay, prefix, strlen(prefix)));		\
} while (0)

FIXTURE(umh) {
	char root[64];
};

void refused(struct __test_metadata *_metadata, const char *root,
	     const char *const *argv, const char *err, bool at_start);
bool json_valid(const char *s);
const char *json_get(const char *s, const char *path);
const char *json_quote(const char *s);

/* The value at @path of the JSON @json is the text @want. */
#define ASSERT_JSON_AT(json, path, want) do {				\
	const char *_v = json_get(json, path);				\
	if (!_v || strcmp(_v, want))					\
		TH_LOG("%s: want %s, got %s in:\n%s", path, want,	\
		       _v ?: "nothing", json);				\
	ASSERT_STREQ(want, _v ?: "(none)");				\
} while (0)
bool root_with_caps(void);

/*
 * A test that makes files of other owners, or that takes capabilities
 * away from root: root with the capabilities it uses, or SKIP (a
 * package build need not run as root).
 */
#define NEEDS_ROOT() do {						\
	if (!root_with_caps())						\
		SKIP(return, "needs root with cap_chown, cap_dac_override, cap_setgid, cap_setuid, cap_setpcap and cap_sys_module");\
} while (0)

#define ASSERT_JSON(out) do {						\
	size_t _n = strlen(out);					\
	if (!json_valid(out))						\
		TH_LOG("not valid JSON:\n%s", out);			\
	ASSERT_TRUE(json_valid(out));					\
	ASSERT_TRUE(_n > 0);						\
	ASSERT_EQ('\n', (out)[_n - 1]);					\
} while (0)

void learn_scene(const char *root);

#define CD_USED		(B(CAP_CHOWN) | B(CAP_DAC_OVERRIDE))

void read_only(const char *root, const char *rel);
const char *outside(const char *root);
void link_to(const char *root, const char *rel, const char *dir,
	     const char *name);

/*
 * A user of this machine's passwd, not root, whose primary group the
 * group file names: umhcap resolves names with the C library, so the
 * tests take theirs from it too.  @other: a group of neither root nor
 * the user.  @stranger: a uid passwd does not know.
 */
struct who {
	char user[64], group[64], other[64];
	uint32_t uid, gid, other_gid, stranger;
};

#define WHO(w)	do {							\
	ASSERT_TRUE(find_who(&(w)))					\
		TH_LOG("no user but root, or no group, in this machine's passwd"); \
} while (0)

bool find_who(struct who *w);
const char *who_str(const struct who *w);
const char *ident_of(const char *root, const char *purpose);
const char *ident(uint32_t uid, uint32_t gid);

/*
 * A fake tracefs as the kernel shows it: the ring-buffer page layout,
 * the umh_exec format with the offsets x86_64 gives its fields, and
 * per-CPU trace_pipe_raw files holding pages built here, record by record.
 */
#define UMH_EXEC_ID	1742
#define OTHER_ID	317
#define PAGE_SIZE	4096
#define PAGE_HDR	16		/* u64 timestamp, long commit */

/*
 * Whether the fake kernel's umh_exec records who the helper ran as, uid
 * and gid after inheritable, as it does since helpers have identities of
 * their own.  old_umh_exec() makes it a kernel from before; each test runs
 * in a child of its own, so that lasts for the one test.
 */
extern bool exec_ident;

#define HEADER_PAGE \
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n" \
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n" \
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n" \
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n"

#define HEADER_EVENT \
	"# compressed entry header\n" \
	"\ttype_len    :    5 bits\n" \
	"\ttime_delta  :   27 bits\n" \
	"\tarray       :   32 bits\n" \
	"\n" \
	"\tpadding     : type == 29\n" \
	"\ttime_extend : type == 30\n" \
	"\ttime_stamp : type == 31\n" \
	"\tdata max type_len  == 28\n"

/*
 * The purpose as the kernel records it, __string(purpose, name): its
 * name, after the fixed part of the record.  Every char[] field is
 * signed:0: the kernel is built with -funsigned-char.
 */
#define FMT_PURPOSE \
	"\tfield:__data_loc char[] purpose;\toffset:8;\tsize:4;\tsigned:0;\n"
#define ARG_PURPOSE	"__get_str(purpose)"
/* As the series recorded it before: the kernel's number, shown by name. */
#define FMT_PURPOSE_NUM \
	"\tfield:unsigned int purpose;\toffset:8;\tsize:4;\tsigned:0;\n"
#define ARG_PURPOSE_NUM	arg_purpose_num()
const char *arg_purpose_num(void);

#define FMT_PROGRAM \
	"\tfield:__data_loc char[] program;\toffset:16;\tsize:4;\tsigned:0;\n"

/* Who the helper ran as, after inheritable; ret follows them, at 64. */
#define FMT_UID		"\tfield:uid_t uid;\toffset:56;\tsize:4;\tsigned:0;\n"
#define FMT_GID		"\tfield:gid_t gid;\toffset:60;\tsize:4;\tsigned:0;\n"
#define FMT_IDENT	FMT_UID FMT_GID

const char *exec_format_ident(const char *purpose_line,
			      const char *purpose_arg,
			      const char *program_line,
			      const char *ident_lines);
const char *exec_format(const char *purpose_line,
			const char *purpose_arg,
			const char *program_line);
const char *umh_exec_format(const char *program_line);

#define UMH_CAPABLE_ID	1743
#define CAP_DATA	36		/* offsetof(..., __data) */

#define FMT_CAP_FIELD	"\tfield:int cap;\toffset:24;\tsize:4;\tsigned:1;\n"

const char *capable_format(const char *purpose_line,
			   const char *purpose_arg,
			   const char *cap_line);
const char *umh_capable_format(const char *cap_line);

/* The files of a new instance, as the kernel makes it. */
#define NR_FRESH	((size_t)8)
extern const char *const fresh[][2];

void fake_tracefs(const char *root, const char *dir);
/* trace_test.c: events of each kind trace prints, for it to read. */
void trace_scene(const char *root);
int count_of(const char *hay, const char *needle);
const char *at(const char *inst, const char *file);
char *slurp_file(const char *path);
const char *src_path(const char *rel);
char *tree(const char *root);

/*
 * A real journal under the fake root, written by systemd-journal-remote
 * (common.c): the machine whose directory holds it, and a test that
 * skips where systemd-journal-remote is not installed.
 */
#define JOURNAL_MACHINE	"5b1c0e7a9d2f4e8b8a6c3d1e0f9a7b65"
const char *journal_remote(void);
int put_journal(const char *root, const char *name, const char *export,
		size_t len);
#define JOURNAL(root, name, export) do {				\
	if (!journal_remote())						\
		SKIP(return, "no systemd-journal-remote here (package systemd-journal-remote)"); \
	ASSERT_EQ(0, put_journal(root, name, export, sizeof(export) - 1)); \
} while (0)

#define BOOT_A		"11111111-2222-4333-8444-555555555555"
#define BOOT_B		"aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
#define SAVED_A		1700000000LL	/* 2023-11-14T22:13:20Z */
#define SAVED_B		1700086400LL	/* a day later */
#define GRUB_CFG	"etc/default/grub.d/umhcap.cfg"
#define KI_CMDLINE	"etc/kernel/cmdline"

/* A boot's record: helpers started and capabilities used, by purpose. */
struct boot_rec {
	unsigned long long started[NR_PURPOSES + 1];	/* [0]: all */
	uint64_t used[NR_PURPOSES + 1];
};

const char *rec_name(size_t i);
const char *applied(int narrowed, int unchanged);
const char *saved_text(const char *id, long long saved,
		       const struct boot_rec *r);
void put_saved(const char *root, const char *id, const char *text);
void two_saved_boots(const char *root);
int mode_of(const char *root, const char *rel);
void chmod_rel(const char *root, const char *rel, mode_t mode);
const char *entries(const char *root, const char *rel);
const char *learned_params(const char *root,
			   struct __test_metadata *_metadata);

#endif
