// SPDX-License-Identifier: GPL-2.0
/*
 * policy: print the table check holds the ceilings to (measured.c), one
 * row per measured helper program and configuration, in the table's
 * order (Debian 12 as installed first); then the notes, then the handler
 * table, then the purposes no helper of which was measured.
 */
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

#define POLICY_PKG_HEAD		"Debian 12 package"

struct policy_widths {
	int purpose;
	int program;
	int package;	/* "package version" */
	int conf;
	int runs;
};

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* Columns as wide as their widest cell, so that any table lines up. */
static void policy_widths(struct policy_widths *w)
{
	const struct umh_measured *m;
	size_t i;

	w->purpose = strlen("purpose");
	w->program = strlen("program");
	w->package = strlen(POLICY_PKG_HEAD);
	w->conf = strlen("configuration");
	w->runs = strlen("runs");
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		w->purpose = max_int(w->purpose,
				     strlen(umh_purpose_name(m->purpose)));
		w->program = max_int(w->program, strlen(m->program));
		w->package = max_int(w->package, strlen(m->package) + 1 +
				     strlen(m->version));
		w->conf = max_int(w->conf,
				  strlen(umh_measured_conf_name(m->conf)));
		w->runs = max_int(w->runs, snprintf(NULL, 0, "%u", m->runs));
	}
}

static void policy_row(const struct policy_widths *w,
		       const struct umh_measured *m)
{
	char *caps = caps_format(m->caps);
	int n;

	printf("%-*s  %-*s  ", w->purpose, umh_purpose_name(m->purpose),
	       w->program, m->program);
	n = printf("%s %s", m->package, m->version);
	printf("%*s  %-*s  %-*u  %s\n", w->package - n, "", w->conf,
	       umh_measured_conf_name(m->conf), w->runs, m->runs, caps);
	free(caps);
}

/* A note's row: its purpose and configuration. */
static void policy_note_of(const struct umh_measured *m)
{
	printf("  %s (%s): ", umh_purpose_name(m->purpose),
	       umh_measured_conf_name(m->conf));
}

/*
 * The user a program was measured as, when not root; why a set keeps
 * what its job is done without; and why Debian 12 as installed runs no
 * helper of a purpose measured on busybox systems.
 */
static void policy_notes(void)
{
	const struct umh_measured *m;
	bool first = true;
	char *kept;
	size_t i;

	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		if (!m->user && !m->note && !m->not_on_debian)
			continue;
		if (first)
			printf("\nnotes:\n");
		first = false;
		if (m->user) {
			policy_note_of(m);
			printf("ran as %s\n", m->user);
		}
		if (m->note) {
			kept = caps_format(m->kept);
			policy_note_of(m);
			printf("kept: %s: %s\n", kept, m->note);
			free(kept);
		}
		if (m->not_on_debian) {
			policy_note_of(m);
			printf("not run on Debian 12: %s\n", m->not_on_debian);
		}
	}
}

/*
 * The handler table: each program, what starts it and its package, then
 * a line per row, as umhcap.8 gives them.
 */
static void policy_handlers(void)
{
	const struct umh_handler *h;
	const char *program = NULL;
	char *caps;
	size_t i;

	printf("\nhandlers, measured on their own (give a purpose a handler's set only if\nits job is needed):\n");
	for (i = 0; i < umh_handlers_nr; i++) {
		h = &umh_handlers[i];
		if (!program || strcmp(program, h->program)) {
			program = h->program;
			printf("  %s %s (%s %s), for %s\n",
			       umh_purpose_name(h->purpose), h->program,
			       h->package, h->version, h->trigger);
			if (h->note)
				printf("    note: %s\n", h->note);
		}
		printf("    %s, as %s: ", umh_measured_conf_name(h->conf),
		       h->user ? h->user : "root");
		if (h->fails) {
			printf("its job fails: %s", h->fails);
		} else {
			caps = caps_format(h->caps);
			printf("%s", caps);
			free(caps);
		}
		if (h->reaches)
			printf("; beyond its trigger it reaches %s", h->reaches);
		printf("\n");
	}
}

/* The purposes check holds to the kernel's record instead. */
static void policy_unmeasured(void)
{
	const struct umh_purpose_info *u;
	const char *sep = "";

	printf("\nnot measured: ");
	umh_for_each_purpose(u) {
		if (umh_measured_for(u->id))
			continue;
		printf("%s%s", sep, u->name);
		sep = ", ";
	}
	if (!*sep)
		printf("none");
	printf("; check holds such a purpose to what the kernel's record shows its helpers used\n");
}

/*
 * --json: the same table, its notes, the handler table and the purposes
 * not measured, as one object.
 */
static void policy_json(void)
{
	const struct umh_purpose_info *u;
	const struct umh_measured *m;
	const struct umh_handler *h;
	const char *sep = "";
	size_t i;

	umh_print_json_begin();
	printf(",\"rows\":[");
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		printf("%s\n  {\"purpose\":", i ? "," : "");
		umh_print_json_string(umh_purpose_name(m->purpose));
		umh_print_json_field("configuration",
				     umh_measured_conf_name(m->conf));
		umh_print_json_field("program", m->program);
		umh_print_json_field("package", m->package);
		umh_print_json_field("version", m->version);
		printf(",\"runs\":%u", m->runs);
		umh_print_json_field("user", m->user ? m->user : "root");
		umh_print_json_mask("needed", m->caps);
		umh_print_json_mask("kept", m->kept);
		umh_print_json_field("note", m->note);
		umh_print_json_field("not_on_debian", m->not_on_debian);
		umh_print_json_field("reaches", m->reaches);
		putchar('}');
	}
	printf("\n],\"handlers\":[");
	for (i = 0; i < umh_handlers_nr; i++) {
		h = &umh_handlers[i];
		printf("%s\n  {\"purpose\":", i ? "," : "");
		umh_print_json_string(umh_purpose_name(h->purpose));
		umh_print_json_field("configuration",
				     umh_measured_conf_name(h->conf));
		umh_print_json_field("program", h->program);
		umh_print_json_field("package", h->package);
		umh_print_json_field("version", h->version);
		umh_print_json_field("trigger", h->trigger);
		umh_print_json_field("user", h->user ? h->user : "root");
		umh_print_json_mask("needed", h->caps);
		umh_print_json_field("fails", h->fails);
		umh_print_json_field("note", h->note);
		umh_print_json_field("reaches", h->reaches);
		putchar('}');
	}
	printf("\n],\"unmeasured\":[");
	umh_for_each_purpose(u) {
		if (umh_measured_for(u->id))
			continue;
		fputs(sep, stdout);
		umh_print_json_string(u->name);
		sep = ",";
	}
	printf("]}\n");
}

int cmd_policy(const struct umh_args *a)
{
	const char *installed = umh_measured_conf_name(UMH_CONF_INSTALLED);
	const char *busybox = umh_measured_conf_name(UMH_CONF_BUSYBOX);
	struct policy_widths w;
	size_t i;

	if (a->json) {
		policy_json();
		return UMH_EXIT_OK;
	}
	policy_widths(&w);
	printf("%-*s  %-*s  %-*s  %-*s  %-*s  %s\n", w.purpose, "purpose",
	       w.program, "program", w.package, POLICY_PKG_HEAD, w.conf,
	       "configuration", w.runs, "runs", "capabilities");
	for (i = 0; i < umh_measured_nr; i++)
		policy_row(&w, &umh_measured[i]);
	policy_notes();
	policy_handlers();
	policy_unmeasured();
	printf("\nEach set is what the program needed to do its job, measured with the\n"
	       "kernel's record of what helpers use (<purpose>/used), on Debian 12's\n"
	       "program in a QEMU guest, by the umhcap project's 'make check'; runs\n"
	       "is how many helpers of the purpose the measuring boot started.\n"
	       "%s: systemd as PID 1, the helpers as Debian's packages\n"
	       "set them up; %s: the project's busybox test guest.\n"
	       "'umhcap check' holds each purpose's ceiling to its %s\n"
	       "set or, for a purpose without one, to its %s set.\n",
	       installed, busybox, installed, busybox);
	return UMH_EXIT_OK;
}
