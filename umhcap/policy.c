// SPDX-License-Identifier: GPL-2.0
/*
 * policy: print the table check holds the ceilings to (measured.c), one
 * row per measured helper program, then the notes, then the purposes no
 * helper of which was measured.
 */
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

#define POLICY_PKG_HEAD		"Debian 12 package"

struct policy_widths {
	int purpose;
	int program;
	int package;	/* "package version" */
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
	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		w->purpose = max_int(w->purpose,
				     strlen(umh_purpose_name(m->purpose)));
		w->program = max_int(w->program, strlen(m->program));
		w->package = max_int(w->package, strlen(m->package) + 1 +
				     strlen(m->version));
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
	printf("%*s  %s\n", w->package - n, "", caps);
	free(caps);
}

/* Why a set keeps what its job is done without. */
static void policy_notes(void)
{
	const struct umh_measured *m;
	bool first = true;
	char *kept;
	size_t i;

	for (i = 0; i < umh_measured_nr; i++) {
		m = &umh_measured[i];
		if (!m->note)
			continue;
		if (first)
			printf("\nnotes:\n");
		first = false;
		kept = caps_format(m->kept);
		printf("  %s: kept: %s: %s\n", umh_purpose_name(m->purpose),
		       kept, m->note);
		free(kept);
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

int cmd_policy(const struct umh_args *a)
{
	struct policy_widths w;
	size_t i;

	(void)a;
	policy_widths(&w);
	printf("%-*s  %-*s  %-*s  %s\n", w.purpose, "purpose", w.program,
	       "program", w.package, POLICY_PKG_HEAD, "capabilities");
	for (i = 0; i < umh_measured_nr; i++)
		policy_row(&w, &umh_measured[i]);
	policy_notes();
	policy_unmeasured();
	printf("\nEach set is what the program needed to do its job, measured with the\n"
	       "kernel's record of what helpers use (<purpose>/used), on Debian 12's\n"
	       "program in a QEMU guest, by the umhcap project's 'make check'.\n"
	       "'umhcap check' holds each purpose's ceiling to its set.\n");
	return UMH_EXIT_OK;
}
