/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umhcap - inspect and narrow the capability bounds of usermode helpers.
 */
#ifndef UMHCAP_H
#define UMHCAP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UMHCAP_VERSION	"0.1"

/* Exit codes. */
#define UMH_EXIT_OK		0
#define UMH_EXIT_FINDINGS	1
#define UMH_EXIT_ERROR		2	/* learn --apply: nothing written */
#define UMH_EXIT_PARTIAL	3	/* learn --apply wrote some, then failed */

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

/* UMH_ALL is the global bound; the others are purposes, in kernel order. */
enum umh_purpose {
	UMH_ALL,
	UMH_MODPROBE,
	UMH_COREDUMP,
	UMH_UEVENT,
	UMH_REQUEST_KEY,
	UMH_RELEASE_AGENT,
	UMH_POWER,
	UMH_INITRD,
	UMH_OTHER,
	UMH_NR,
};

extern const char *const umh_purpose_names[UMH_NR];

struct umh_bound {
	uint64_t bset;
	uint64_t inh;
};

struct umh_state {
	bool per_purpose;		/* kernel has <purpose>/ directories */
	struct umh_bound b[UMH_NR];	/* b[UMH_ALL] is the global bound */
};

/* What helpers used and how many started since boot; [UMH_ALL] = all. */
struct umh_record {
	uint64_t used[UMH_NR];
	unsigned long long started[UMH_NR];
	char missing[PATH_MAX];		/* the file that is not there */
};

struct umh_opts {
	const char *root;		/* prefix without trailing '/', "" = / */
	bool hex;
	bool json;
};

/*
 * One helper program, measured: what it needed to do its job (measured.c).
 * @kept: the capabilities of @caps the job is done without, kept anyway;
 * @note says why (NULL when @kept is empty).  guest/real_test checks both.
 */
struct umh_measured {
	enum umh_purpose purpose;
	const char *program;	/* as configured, e.g. kernel.modprobe */
	const char *package;	/* the Debian 12 package that ships it */
	const char *version;	/* its Debian version */
	uint64_t caps;
	uint64_t kept;
	const char *note;
};

/* measured.c */
extern const struct umh_measured umh_measured[];
extern const size_t umh_measured_nr;
const struct umh_measured *umh_measured_for(int purpose);
uint64_t umh_measured_union(void);

/* main.c */
void umh_err(const char *fmt, ...) __printf(1, 2);
void umh_warn(const char *fmt, ...) __printf(1, 2);

/* caps.c */
int caps_nbits(void);
uint64_t caps_full(void);
int caps_parse(const char *arg, int *cap);
char *caps_list(uint64_t mask);
char *caps_format(uint64_t mask);
void caps_json(FILE *f, uint64_t mask);

/* bounds.c */
int umh_purpose_lookup(const char *name);
int umh_path(char *buf, size_t len, const char *root, int purpose,
	     const char *file);
bool umh_has_per_purpose(const char *root);
int umh_bound_read(const char *path, uint64_t *mask);
int umh_bound_write(const char *path, uint64_t mask);
int umh_load(const char *root, struct umh_state *st);
void umh_no_per_purpose(const char *root);
int umh_record_load(const char *root, struct umh_record *rec);
void umh_no_record(const struct umh_record *rec);

/* show.c */
void umh_show_line(const struct umh_opts *o, const char *label,
		   uint64_t mask);
void umh_show_json_mask(const char *key, uint64_t mask);

/* set.c */
int umh_write_verify(const char *path, uint64_t mask);

/* learn.c */
int umh_learned(const char *root, bool include_idle, struct umh_state *cur,
		struct umh_state *learned, struct umh_record *rec);

static inline uint64_t umh_ceiling(const struct umh_state *st, int p)
{
	return st->b[UMH_ALL].bset & st->b[p].bset;
}

/* Commands; argv[0] is the command name. */
int cmd_show(const struct umh_opts *o, int argc, char **argv);
int cmd_export(const struct umh_opts *o, int argc, char **argv);
int cmd_set(const struct umh_opts *o, int argc, char **argv, bool keep);
int cmd_check(const struct umh_opts *o, int argc, char **argv);
int cmd_trace(const struct umh_opts *o, int argc, char **argv);
int cmd_learn(const struct umh_opts *o, int argc, char **argv);
int cmd_policy(const struct umh_opts *o, int argc, char **argv);

#endif /* UMHCAP_H */
