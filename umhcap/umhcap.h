/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umhcap - inspect and narrow the capability bounds of usermode helpers.
 *
 * The files, each using only those above it in this list:
 *
 *   msg.c            errors, warnings and notes, and the root that
 *                    messages about a write name
 *   file.c           reading a file whole, and replacing one whole: a
 *                    temporary file beside it, synced and renamed over it;
 *                    a path's symlinks resolved in the root
 *   purpose.c        the table of purposes
 *   measured.c       what real helpers were measured to need (stands
 *                    alone: mkman, the host tests and the guest's
 *                    real_test and installed_test link it)
 *   caps.c           capability names and masks, from libcap
 *   bounds.c         the bound, identity and record files: paths,
 *                    reading, writing; which bounds are open, and what
 *                    export and boot give for them
 *   write.c          narrowing a bound, or setting an id: written and
 *                    read back, EPERM explained; or, with -n, only said
 *   savedboots.c     the records of past boots umhcap save keeps: their
 *                    format, and merging them into this boot's record
 *   fleet.c          the saved boots of many machines (--from), merged,
 *                    and where their records disagree
 *   learnedbounds.c  the bounds the record (this boot's, and the saved
 *                    boots') leads to: what learn --apply, export
 *                    --learned and boot narrow to
 *   print.c          the lines and JSON members several commands print,
 *                    and the names of users and groups
 *   cmdline.c        the usermodehelper.* kernel parameters of a state
 *   nextboot.c       where the next boot's bounds and ids are set: the
 *                    boot loader's command line, sysctl.d
 *   opts.c           every command's options and arguments, and its
 *                    --help
 *   show.c, status.c, dropkeep.c (drop and keep), user.c, learn.c,
 *   check.c, policy.c, export.c, trace.c, save.c, boot.c, boots.c
 *                    the commands, each in the file of its name, which
 *                    use none of each other
 *   main.c           the global options, and the table of commands
 *
 * mkman.c is no part of umhcap: the build runs it to write umhcap.8.
 */
#ifndef UMHCAP_H
#define UMHCAP_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UMHCAP_VERSION	"0.1"

/* Exit codes. */
#define UMH_EXIT_OK		0
#define UMH_EXIT_FINDINGS	1
#define UMH_EXIT_ERROR		2	/* a command that writes: nothing written */
#define UMH_EXIT_PARTIAL	3	/* it wrote some, then failed */

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

/*
 * The purposes: the one list of them, as the kernel's UMH_PURPOSES
 * (include/linux/umh.h) has them, in its order and numbering, "other",
 * its 0, first.  X(ID, name) each; the enum, the table of purpose.c, and
 * from it --help, the man page's lists and the host tests take them from
 * here.  A purpose is added by its line here, and its rows, if any, in
 * measured.c and program.c.
 */
#define UMH_PURPOSE_LIST(X)		\
	X(OTHER,	other)		\
	X(MODPROBE,	modprobe)	\
	X(COREDUMP,	coredump)	\
	X(UEVENT,	uevent)		\
	X(REQUEST_KEY,	request_key)	\
	X(RELEASE_AGENT, release_agent)	\
	X(POWER,	power)		\
	X(INITRD,	initrd)

/*
 * The purposes, numbered as the kernel's enum umh_purpose numbers them;
 * then UMH_ALL, the global bound, which every helper gets and which is no
 * purpose of the kernel's.  An array of UMH_NR has a place for each
 * purpose and for the global bound.
 */
#define UMH_PURPOSE_ENUM(id, name)	UMH_##id,
enum umh_purpose {
	UMH_PURPOSE_LIST(UMH_PURPOSE_ENUM)
	UMH_NR_PURPOSES,
	UMH_ALL = UMH_NR_PURPOSES,
	UMH_NR,
};
#undef UMH_PURPOSE_ENUM

struct umh_bound {
	uint64_t bset;
	uint64_t inh;
};

/* Who the helpers of a purpose run as: uid 0 is root, as always. */
struct umh_ident {
	uint32_t uid;
	uint32_t gid;
};

struct umh_state {
	bool per_purpose;		/* kernel has <purpose>/ directories */
	bool idents;			/* and <purpose>/{uid,gid} in them */
	struct umh_bound b[UMH_NR];	/* b[UMH_ALL] is the global bound */
	struct umh_ident id[UMH_NR];	/* id[UMH_ALL] is root: no file */
};

/* What helpers used and how many started since boot; [UMH_ALL] = all. */
struct umh_record {
	uint64_t used[UMH_NR];
	unsigned long long started[UMH_NR];
	char missing[PATH_MAX];		/* the file that is not there */
};

static inline bool umh_is_root(const struct umh_ident *id)
{
	return !id->uid && !id->gid;
}

/*
 * The most a helper of @p gets: what both bsets leave; as a user, only
 * what the inheritable bounds leave of that, as ambient capabilities.
 */
static inline uint64_t umh_ceiling(const struct umh_state *st, int p)
{
	uint64_t c = st->b[UMH_ALL].bset & st->b[p].bset;

	if (st->id[p].uid)
		c &= st->b[UMH_ALL].inh & st->b[p].inh;
	return c;
}

/*
 * msg.c: "umhcap: ..." on stderr, after what stdout holds; the root that
 * messages about a write name.
 */
void umh_err(const char *fmt, ...) __printf(1, 2);
void umh_warn(const char *fmt, ...) __printf(1, 2);
void umh_note(const char *fmt, ...) __printf(1, 2);
void umh_oom(void);
void umh_msg_root(const char *root, const char *from);
char *umh_under_root(void);
void umh_wrote(const char *path);
int umh_exit_status(int ret);
void umh_nothing_written(const char *cmd);
char *umh_xstrdup(const char *s);
char *umh_xasprintf(const char *fmt, ...) __printf(1, 2);
char *umh_xvasprintf(const char *fmt, va_list ap) __printf(1, 0);
FILE *umh_xmemstream(char **buf, size_t *size);
void umh_xmemclose(FILE *f);

/* file.c */
int umh_read_all(const char *path, size_t max, char **buf, size_t *len);
int umh_mkdirs(const char *root, const char *dir);
char *umh_root_path(const char *root, const char *path);
char *umh_in_root(const char *root, const char *path, bool follow);
int umh_read_in_root(const char *root, const char *path, size_t max,
		     char **buf, size_t *len);
int umh_replace(const char *path, const char *data, size_t len,
		unsigned int mode, long uid, long gid);
int umh_remove(const char *path);

/*
 * purpose.c: the global bound, "all", first, then the purposes, in the
 * order umhcap shows them.
 */
struct umh_purpose_info {
	enum umh_purpose id;
	const char *name;
};

extern const struct umh_purpose_info umh_purposes[UMH_NR];

#define umh_for_each(u) \
	for ((u) = umh_purposes; (u) < umh_purposes + UMH_NR; (u)++)
/* The same, without "all". */
#define umh_for_each_purpose(u) \
	for ((u) = umh_purposes + 1; (u) < umh_purposes + UMH_NR; (u)++)

const char *umh_purpose_name(int purpose);
int umh_purpose_lookup(const char *name);
const char *umh_purpose_list(void);

/*
 * measured.c: one helper program, measured: what it needed to do its
 * job.  @kept: the capabilities of @caps the job is done without, kept
 * anyway; @note says why (NULL when @kept is empty).  @conf: the system
 * it was measured on; @runs: the helpers of its purpose whose record the
 * set is.  guest/real_test (busybox rows) and guest/installed_test
 * (Debian as installed) check both.  @not_on_debian: on a busybox row,
 * why Debian 12 as installed starts no helper of its purpose at all;
 * NULL when it does.
 */
enum umh_measured_conf {
	UMH_CONF_INSTALLED,	/* Debian 12 as installed: systemd as PID 1 */
	UMH_CONF_INSTALLED_USER,	/* the same, each helper as its own user */
	UMH_CONF_BUSYBOX,	/* busybox systems: the busybox test guest */
	UMH_NR_CONFS,
};

struct umh_measured {
	enum umh_purpose purpose;
	enum umh_measured_conf conf;
	const char *program;	/* as configured, e.g. kernel.modprobe */
	const char *package;	/* the Debian 12 package that ships it */
	const char *version;	/* its Debian version */
	unsigned int runs;
	uint64_t caps;
	uint64_t kept;
	const char *note;
	const char *not_on_debian;
	const char *user;	/* the user it ran as; NULL: root */
	/*
	 * What a compromised helper of this row, as its user and with its
	 * set, reaches beyond the object that started it, on a kernel that
	 * scopes helpers (kernel/umh_scope.c, umh_module.c); NULL: not
	 * said, for a row that is not the one to run.
	 */
	const char *reaches;
};

extern const struct umh_measured umh_measured[];
extern const size_t umh_measured_nr;

/*
 * measured.c, second table: a program a helper runs for one kind of job,
 * measured on its own, as the capabilities the trace shows that program
 * used (umh:umh_capable, by its comm) while the helper had open bounds.
 * Its helper's row (umh_measured) holds the helper's own job; these rows
 * say what an administrator who needs that job must give the purpose.
 * Today: the handlers request-key runs from Debian's /etc/request-key.d.
 * guest/installed_test ("UMH_INSTALLED=handlers") checks each.
 */
struct umh_handler {
	enum umh_purpose purpose;	/* of the helper that runs it */
	enum umh_measured_conf conf;
	const char *program;	/* as its package installs it */
	const char *package;	/* the Debian 12 package that ships it */
	const char *version;	/* its Debian version */
	const char *trigger;	/* what starts it */
	uint64_t caps;		/* what it used to do its job, or to fail */
	const char *user;	/* the user it ran as; NULL: root */
	const char *fails;	/* NULL: the job is done; else why it is not */
	const char *note;	/* what a trace of it does not show, or NULL */
	const char *reaches;	/* as umh_measured */
};

extern const struct umh_handler umh_handlers[];
extern const size_t umh_handlers_nr;
const struct umh_handler *umh_handler_find(const char *program,
					   enum umh_measured_conf conf);
const struct umh_measured *umh_measured_for(int purpose);
const struct umh_measured *umh_measured_find(int purpose,
					     enum umh_measured_conf conf);
const char *umh_measured_conf_name(enum umh_measured_conf conf);
uint64_t umh_measured_union(void);

/* program.c */
enum umh_program_state {
	UMH_PROGRAM_UNKNOWN,	/* no knob for the purpose, or not there */
	UMH_PROGRAM_NONE,	/* the knob says no helper starts */
	UMH_PROGRAM_SET,	/* the knob names a program */
};

struct umh_program {
	enum umh_program_state state;
	const char *knob;	/* the file read, e.g. /proc/sys/kernel/modprobe */
	char *path;		/* UMH_PROGRAM_SET: its first word */
	const char *why;	/* UMH_PROGRAM_NONE: why none starts */
};

int umh_program_read(const char *root, int purpose, struct umh_program *prog);
void umh_program_free(struct umh_program *prog);
const struct umh_measured *umh_program_row(const char *root, int purpose,
					   const struct umh_program *prog,
					   bool own_user);
const struct umh_handler *umh_handler_row(const char *root,
					  const char *program,
					  enum umh_measured_conf conf);
typedef void (*umh_key_handler_fn)(void *arg, const char *type,
				   const char *program, const char *file);
void umh_key_handlers(const char *root, umh_key_handler_fn fn, void *arg);

/* caps.c */
int caps_nbits(void);
uint64_t caps_full(void);
int caps_parse(const char *arg, int *cap);
char *caps_list(uint64_t mask);
char *caps_format(uint64_t mask);
void caps_json(FILE *f, uint64_t mask);

/* bounds.c */
int umh_path(char *buf, size_t len, const char *root, int purpose,
	     const char *file);
bool umh_has_per_purpose(const char *root);
int umh_bound_read(const char *path, uint64_t *mask);
int umh_bound_write(const char *path, uint64_t mask);
int umh_id_read(const char *path, uint32_t *id);
int umh_id_write(const char *path, uint32_t id);
int umh_load(const char *root, struct umh_state *st);
void umh_no_per_purpose(const char *root);
void umh_no_idents(const char *root);
int umh_record_load(const char *root, struct umh_record *rec);
void umh_no_record(const struct umh_record *rec);
bool umh_bound_open(const struct umh_bound *b);
uint64_t umh_bound_given(uint64_t mask);
bool umh_exported(const struct umh_state *st, int p);
bool umh_all_open(const struct umh_state *st);

/* write.c */
int umh_write_verify(const char *path, uint64_t mask);
int umh_narrow(const char *path, uint64_t mask, bool dry_run);
int umh_id_set(const char *path, bool gid, uint32_t from, uint32_t to,
	       bool dry_run);
int umh_write_failed(const char *cmd, const char *undone,
		     const bool wrote[UMH_NR],
		     const struct umh_purpose_info *stop);

/*
 * savedboots.c: the record of each past boot, as umhcap save keeps it in
 * ROOT + state dir + "/boots/" + its boot id; and which of them were
 * merged into this boot's record.
 */
#define UMH_STATE_DIR		"/var/lib/umhcap"
#define UMH_BOOT_ID_LEN		36	/* 8-4-4-4-12 hex digits */
#define UMH_SAVED_MAGIC		"umhcap-record 1"

#define UMH_KERNEL_LEN		64	/* a kernel release, as saved */
#define UMH_NO_TIME		LLONG_MIN	/* no --since */

struct umh_fleet;

struct umh_merge {
	/* Given: */
	const char *state_dir;	/* --state-dir, or NULL: UMH_STATE_DIR */
	bool this_boot;		/* --this-boot: merge no saved boot */
	long long since;	/* --since: saved then or later; UMH_NO_TIME */
	long last;		/* --last N: the N saved last; 0: all */
	const char *const *from;	/* --from DIR...: a fleet's, not this boot */
	size_t nfrom;
	struct umh_fleet *fleet;	/* with @from: filled, the caller frees it */
	/* Found: */
	char boot_id[UMH_BOOT_ID_LEN + 1];	/* "" if not read */
	int saved;		/* saved boots merged */
	int refused;		/* saved files refused, each with a warning */
	int skipped;		/* saved boots --since or --last left out */
	bool superseded;	/* this boot's saved file, left out */
	long long first, last_saved;	/* earliest and latest save time merged */
};

/* One saved boot, as umhcap save kept it. */
struct umh_saved {
	char boot_id[UMH_BOOT_ID_LEN + 1];
	long long saved;	/* when it was saved, seconds since the epoch */
	long long btime;	/* when it began; -1: not saved */
	char kernel[UMH_KERNEL_LEN + 1];	/* its release; "": not saved */
	struct umh_record rec;
};

/* The saved boots of one directory, oldest first. */
struct umh_saved_set {
	struct umh_saved *b;
	size_t n;
	int refused;		/* files refused, each with a warning */
	bool superseded;	/* this boot's file, left out */
	char boot_id[UMH_BOOT_ID_LEN + 1];	/* this boot's; "" if not read */
};

char *umh_boots_dir(const char *root, const char *state_dir);
int umh_boot_id(const char *root, char id[UMH_BOOT_ID_LEN + 1]);
bool umh_is_boot_id(const char *s);
void umh_kernel_release(const char *root, char rel[UMH_KERNEL_LEN + 1]);
int umh_saved_read(const char *root, const char *dir, bool skip_this,
		   struct umh_saved_set *set);
void umh_saved_set_free(struct umh_saved_set *set);
int umh_saved_choose(struct umh_saved_set *set, long long since, long last);
void umh_merge_add(struct umh_merge *m, struct umh_record *rec,
		   const struct umh_saved *s);

/*
 * fleet.c: each machine of --from, its saved boots (a copy of its
 * STATE_DIR/boots, however gathered) merged into a record of its own.
 */
struct umh_machine {
	const char *name;	/* DIR, as given */
	char *dir;		/* the directory its boots were read from */
	struct umh_saved_set set;	/* those merged, oldest first */
	int skipped;		/* left out by --since or --last */
	struct umh_record rec;	/* its boots' records merged */
	int boots[UMH_NR];	/* its boots in which the purpose started */
};

struct umh_fleet {
	struct umh_machine *m;
	size_t n;
	int boots[UMH_NR];	/* boots in which the purpose started */
	int machines[UMH_NR];	/* machines on which it started */
	int duplicates;		/* boots found on two machines, merged once */
};

int umh_fleet_merge(struct umh_merge *m, struct umh_record *rec);
void umh_fleet_free(struct umh_fleet *f);
uint64_t umh_fleet_lacks(const struct umh_fleet *f, size_t i, int p);
uint64_t umh_fleet_used(const struct umh_fleet *f, int p);
size_t umh_fleet_kernels(const struct umh_fleet *f, const char **out,
			 size_t max);
bool umh_machine_ran(const struct umh_machine *mc, const char *kernel);

/* refusals.c */
struct umh_refusal {
	char boot[UMH_BOOT_ID_LEN + 1];	/* "" where the source has none */
	int purpose;
	char *exe;			/* as the kernel escaped it */
	int cap;
	unsigned long count;
	long long first, last;		/* logged first and last; -1: not known */
};

struct umh_refusals {
	struct umh_refusal *r;
	size_t n, size;
	const char *source;		/* "journal" or "kmsg" */
	char (*boots)[UMH_BOOT_ID_LEN + 1];	/* every boot read, in order */
	size_t nboots;
};

int umh_refusals_read(const char *root, const char *boot, bool quiet,
		      long long since, struct umh_refusals *rs);
void umh_refusals_last(struct umh_refusals *rs, long last);
void umh_refusals_free(struct umh_refusals *rs);
long long umh_btime(const char *root);
char *umh_time_iso(long long t);
char *umh_saved_format(const char *boot_id, long long saved, long long btime,
		       const char *kernel, const struct umh_record *rec);
int umh_saved_merge(const char *root, struct umh_merge *m,
		    struct umh_record *rec);
char *umh_merge_describe(const char *root, const struct umh_merge *m);

/* learnedbounds.c */
bool umh_idle(const struct umh_record *rec, int purpose);
int umh_learned(const char *root, bool include_idle, struct umh_merge *m,
		const uint64_t *allow, bool widen,
		struct umh_state *cur, struct umh_state *learned,
		struct umh_record *rec);

/*
 * print.c: every JSON member of a concept several commands print comes
 * from one emitter here, in one shape (umhcap(8), JSON OUTPUT): a
 * capability set, an identity, a refusal, the saved boots learned from,
 * a purpose's record, a saved boot, a fleet; and the schema's version,
 * which every object opens with.
 */
#define UMH_JSON_VERSION	2
void umh_print_json_begin(void);
void umh_print_json_ident(const char *key, const struct umh_ident *id);
void umh_print_json_refusal(const struct umh_refusal *r);
void umh_print_json_learned_from(const struct umh_merge *m);
void umh_print_json_record(const struct umh_record *rec, int p);
void umh_print_json_time(const char *key, long long t);
void umh_print_json_boot(const struct umh_saved *s, bool this_boot,
			 const struct umh_refusals *rs);
void umh_print_json_fleet(const struct umh_fleet *f, const bool sel[UMH_NR]);
void umh_print_line(bool hex, const char *label, uint64_t mask);
void umh_print_json_mask(const char *key, uint64_t mask);
void umh_print_json_string(const char *s);
void umh_print_json_field(const char *key, const char *s);
char *umh_escape(const char *s, size_t n);
char *umh_id_format(bool gid, uint32_t id);
char *umh_ident_format(const struct umh_ident *id);
void umh_print_ident(const char *label, const struct umh_ident *id);
void umh_print_json_idents(const struct umh_state *st, const bool sel[UMH_NR]);

/* names.c: users and groups, this machine's or, under --root, the root's */
struct passwd;
struct group;
void umh_names_root(const char *root);
void umh_unknown_name(const char *what, const char *name);
const struct passwd *umh_getpwnam(const char *name);
const struct passwd *umh_getpwuid(uint32_t uid);
const struct group *umh_getgrnam(const char *name);
const struct group *umh_getgrgid(uint32_t gid);
const struct passwd *umh_pw_next(void);

/* cmdline.c */
bool umh_cmdline_print(FILE *f, const struct umh_state *st);
char *umh_cmdline_format(const struct umh_state *st);
const char *umh_cmdline_no_bounds(const struct umh_state *st);

/* nextboot.c: one bound or id the next boot is given, and where. */
struct umh_setting {
	char *file;		/* as the root's system names it */
	char *var;		/* the sh variable its line assigns, or NULL */
	int purpose;
	const char *param;	/* bset, inheritable, uid or gid */
	char *value;		/* as the file gives it, escaped */
};

struct umh_settings {
	struct umh_setting *s;	/* in the order the boot applies them */
	size_t n;
	int files;		/* files that set one at least */
};

void umh_settings_scan(const char *root, struct umh_settings *ss);
void umh_settings_free(struct umh_settings *ss);
char *umh_grub_no_recovery(const char *root, const char *skip);

/*
 * opts.c: what a command takes, besides -h and --help, which every
 * command takes.
 */
enum {
	UMH_TAKES_PURPOSE	= 1 << 0,	/* -p PURPOSE[,...], all: global */
	UMH_TAKES_DRY_RUN	= 1 << 1,	/* -n, --dry-run */
	UMH_TAKES_APPLY		= 1 << 2,	/* --apply */
	UMH_TAKES_IDLE		= 1 << 3,	/* --include-idle */
	UMH_TAKES_LEARNED	= 1 << 4,	/* --learned */
	UMH_TAKES_FORMAT	= 1 << 5,	/* --sysctl, --cmdline */
	UMH_TAKES_COUNT		= 1 << 6,	/* -c, --count N */
	UMH_TAKES_HEX		= 1 << 7,	/* -x */
	UMH_TAKES_JSON		= 1 << 8,	/* --json */
	UMH_TAKES_PURPOSES	= 1 << 9,	/* PURPOSE... */
	UMH_TAKES_CAPS		= 1 << 10,	/* CAP..., one at least */
	UMH_TAKES_PURPOSE_LIST	= 1 << 11,	/* -p PURPOSE[,...], all: each */
	UMH_TAKES_IDENT		= 1 << 12,	/* USER[:GROUP] */
	UMH_TAKES_STATE_DIR	= 1 << 13,	/* --state-dir DIR */
	UMH_TAKES_THIS_BOOT	= 1 << 14,	/* --this-boot */
	UMH_TAKES_LOADER	= 1 << 15,	/* --grub, --kernel-install */
	UMH_TAKES_OUTPUT	= 1 << 16,	/* -o, --output FILE */
	UMH_TAKES_ALLOW		= 1 << 17,	/* --allow PURPOSE:CAP,... */
	UMH_TAKES_SINCE		= 1 << 18,	/* --since DATE, --last N */
	UMH_TAKES_FORGET	= 1 << 19,	/* --forget BOOT_ID */
	UMH_TAKES_FROM		= 1 << 20,	/* --from DIR, again and again */
};

struct umh_args;

/* A command, as main.c's table lists it. */
struct umh_cmd {
	const char *name;
	int (*run)(const struct umh_args *a);
	unsigned int takes;	/* UMH_TAKES_* */
	const char *synopsis;	/* after "umhcap NAME"; '\n' between forms */
	const char *summary;	/* one line, for umhcap --help */
	const char *about;	/* a paragraph, for umhcap NAME --help */
};

/* A command's global options, options and arguments. */
struct umh_args {
	const struct umh_cmd *cmd;
	const char *root;	/* prefix without trailing '/', "" = / */
	bool hex;		/* -x */
	bool json;		/* --json */
	bool dry_run;		/* -n, --dry-run */
	bool apply;		/* --apply */
	bool include_idle;	/* --include-idle */
	bool learned;		/* --learned */
	bool sysctl;		/* --sysctl */
	bool cmdline;		/* --cmdline */
	long count;		/* --count N; -1 without it */
	bool named;		/* PURPOSE... or -p PURPOSE,... named some */
	bool sel[UMH_NR];	/* the purposes named, or all of them */
	uint64_t caps;		/* CAP...; all: ~0 */
	bool caps_all;		/* CAP... named all */
	const char *ident;	/* USER[:GROUP] */
	const char *state_dir;	/* --state-dir DIR; NULL without it */
	bool this_boot;		/* --this-boot */
	bool grub;		/* --grub */
	bool kernel_install;	/* --kernel-install */
	bool remove;		/* --remove */
	uint64_t allow[UMH_NR];	/* --allow: added to what was learned */
	bool allowed;		/* --allow was given */
	const char *output;	/* -o, --output FILE; NULL without it */
	long long since;	/* --since DATE; UMH_NO_TIME without it */
	long last;		/* --last N; 0 without it */
	const char *forget;	/* --forget BOOT_ID; NULL without it */
	const char **from;	/* --from DIR...; NULL without it */
	size_t nfrom;
};

int umh_args_parse(struct umh_args *a, int argc, char **argv);
int umh_usage_error(const struct umh_cmd *cmd, const char *fmt, ...)
	__printf(2, 3);
void umh_option_error(int c, char **argv, const char *shorts,
		      const struct umh_cmd *cmd);
void umh_print_words(const char *label, const char *words);

/* The commands main.c dispatches to. */
int cmd_show(const struct umh_args *a);
int cmd_status(const struct umh_args *a);
int cmd_drop(const struct umh_args *a);	/* dropkeep.c */
int cmd_keep(const struct umh_args *a);	/* dropkeep.c */
int cmd_user(const struct umh_args *a);
int cmd_learn(const struct umh_args *a);
int cmd_check(const struct umh_args *a);
int cmd_policy(const struct umh_args *a);
int cmd_export(const struct umh_args *a);
int cmd_trace(const struct umh_args *a);
int cmd_save(const struct umh_args *a);
int cmd_boot(const struct umh_args *a);
int cmd_refusals(const struct umh_args *a);
int cmd_boots(const struct umh_args *a);

#endif /* UMHCAP_H */
