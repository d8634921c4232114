// SPDX-License-Identifier: GPL-2.0
/*
 * ktap - count the results of guest boots
 *
 *   ktap [--allow-skip] BOOTDIR...
 *
 * Each BOOTDIR holds what one boot of the test guest left: console.log,
 * the kernel's serial console (KUnit prints its KTAP there), and
 * tests.log, the KTAP of the test programs run by the guest's init.
 *
 * Every leaf test result of every KTAP document counts once; a result
 * that has subtests is only their summary and is not counted again.  A
 * plan whose tests did not all report counts its missing tests as
 * failed.  Each boot also adds two results of its own: the guest ran to
 * its end (no hang, no panic), and the kernel log holds no kernel report.
 *
 * A BOOTDIR may also hold expected-skips: the names of tests, one per
 * line, that must skip in that boot (a kernel built without the trigger
 * they need).  Each must skip, or it counts as failed; its skip is still
 * counted as skipped, never as passed, but does not fail the run.
 *
 * The last line is "N passed, N failed" (", N skipped" if any, and
 * " (N expected)").  The exit status is 0 only if nothing failed and,
 * unless --allow-skip, nothing was skipped that was not expected.
 */

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH	64
#define MAX_EXPECTED	64
#define DONE_MARKER	"# umhcap-guest: done"

struct counts {
	unsigned int passed, failed, skipped, expected;
};

/* The expected-skips of the boot being scanned. */
static struct {
	char name[256];
	bool skipped;
} expected[MAX_EXPECTED];
static unsigned int nexpected;

/* Per indentation depth: the open plan and what ran under it. */
struct level {
	long planned;		/* -1: no plan open */
	long ran;
	bool has_children;
	bool child_failed;
};

static struct counts total;

/* Whether the test @desc names ("NAME # SKIP why") must skip in this boot. */
static bool skip_expected(const char *desc)
{
	size_t len = strcspn(desc, "#");
	unsigned int i;

	while (len && desc[len - 1] == ' ')
		len--;
	for (i = 0; i < nexpected; i++) {
		if (strlen(expected[i].name) == len &&
		    !strncmp(expected[i].name, desc, len)) {
			expected[i].skipped = true;
			return true;
		}
	}
	return false;
}

static void result(const char *boot, const char *file, const char *desc,
		   int ok, bool skip)
{
	if (skip) {
		total.skipped++;
		if (skip_expected(desc)) {
			total.expected++;
			printf("SKIP (expected) %s/%s: %s\n", boot, file, desc);
		} else {
			printf("SKIP %s/%s: %s\n", boot, file, desc);
		}
	} else if (ok) {
		total.passed++;
	} else {
		total.failed++;
		printf("FAIL %s/%s: %s\n", boot, file, desc);
	}
}

static void close_plans(struct level *lv, int from, const char *boot,
			const char *file)
{
	char desc[128];
	int d;

	for (d = from; d < MAX_DEPTH; d++) {
		for (; lv[d].planned > lv[d].ran; lv[d].ran++) {
			snprintf(desc, sizeof(desc),
				 "test %ld of a plan of %ld never reported",
				 lv[d].ran + 1, lv[d].planned);
			result(boot, file, desc, 0, false);
		}
		lv[d].planned = -1;
		lv[d].ran = 0;
		lv[d].has_children = false;
		lv[d].child_failed = false;
	}
}

/* Parse "ok N desc # directive" or "not ok N ..." at @s. */
static bool parse_result(const char *s, int *ok, const char **desc,
			 bool *skip)
{
	const char *hash;

	if (!strncmp(s, "ok ", 3)) {
		*ok = 1;
		s += 3;
	} else if (!strncmp(s, "not ok ", 7)) {
		*ok = 0;
		s += 7;
	} else {
		return false;
	}
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	while (*s == ' ' || *s == '-')
		s++;
	*desc = s;
	hash = strstr(s, " # ");
	*skip = hash && !strncasecmp(hash + 3, "SKIP", 4);
	return true;
}

/* Returns the number of test plans seen. */
static unsigned int scan_ktap(const char *boot, const char *file, FILE *f)
{
	struct level lv[MAX_DEPTH];
	unsigned int plans = 0;
	char line[4096];
	int d;

	for (d = 0; d < MAX_DEPTH; d++)
		lv[d] = (struct level){ .planned = -1 };

	while (fgets(line, sizeof(line), f)) {
		const char *s = line, *desc;
		bool skip;
		long n;
		int ok;

		line[strcspn(line, "\r\n")] = '\0';
		while (*s == ' ')
			s++;
		d = s - line;
		if (d >= MAX_DEPTH)
			continue;

		if (!strncmp(s, "KTAP version ", 13) ||
		    !strncmp(s, "TAP version ", 12)) {
			close_plans(lv, d, boot, file);
		} else if (sscanf(s, "1..%ld", &n) == 1) {
			close_plans(lv, d, boot, file);
			lv[d].planned = n;
			plans++;
		} else if (parse_result(s, &ok, &desc, &skip)) {
			bool leaf = !lv[d].has_children;
			bool counted = lv[d].child_failed;

			close_plans(lv, d + 1, boot, file);
			lv[d].has_children = false;
			lv[d].child_failed = false;
			lv[d].ran++;
			for (int up = 0; up < d; up++) {
				lv[up].has_children = true;
				lv[up].child_failed |= !ok || counted;
			}
			/*
			 * A parent only sums up its subtests, unless it
			 * failed where none of them did.
			 */
			if (leaf)
				result(boot, file, desc, ok, skip);
			else if (!ok && !counted)
				result(boot, file, desc, ok, false);
		}
	}
	close_plans(lv, 0, boot, file);
	return plans;
}

/* Lines of the kernel log that only a kernel report prints. */
static const char * const reports[] = {
	"BUG:", "WARNING:", "Oops", "Kernel panic", "kernel BUG at",
	"KASAN:", "UBSAN:", "KFENCE:", "Call Trace:",
	"general protection fault", "possible circular locking",
	"possible recursive locking", "inconsistent lock state",
	"suspicious RCU usage", "blocked for more than",
	"list_add corruption", "list_del corruption", "refcount_t:",
	"INFO: task", "INFO: lockdep",
};

static void tail(const char *path, int lines)
{
	char cmd[4200];

	printf("---- last %d lines of %s ----\n", lines, path);
	fflush(stdout);
	snprintf(cmd, sizeof(cmd), "tail -n %d '%s'", lines, path);
	if (system(cmd))
		printf("(cannot read %s)\n", path);
	printf("----\n");
}

static void read_expected(const char *dir)
{
	char path[4096], line[256];
	FILE *f;

	nexpected = 0;
	snprintf(path, sizeof(path), "%s/expected-skips", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!*line)
			continue;
		if (nexpected == MAX_EXPECTED) {
			fprintf(stderr, "ktap: %s: more than %d names\n", path,
				MAX_EXPECTED);
			exit(2);
		}
		snprintf(expected[nexpected].name,
			 sizeof(expected[nexpected].name), "%s", line);
		expected[nexpected++].skipped = false;
	}
	fclose(f);
}

/* An expected skip that did not happen is a failure of its own. */
static void check_expected(const char *boot)
{
	char desc[320];
	unsigned int i;

	for (i = 0; i < nexpected; i++) {
		if (expected[i].skipped)
			continue;
		snprintf(desc, sizeof(desc), "%.255s was to skip here and did not",
			 expected[i].name);
		result(boot, "expected-skips", desc, 0, false);
	}
	nexpected = 0;
}

static void scan_results(const char *dir, const char *boot)
{
	char path[4096], line[4096], first[256] = "";
	unsigned int nreports = 0, i;
	bool done = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests.log", dir);
	f = fopen(path, "r");
	if (!f) {
		result(boot, "tests.log", "the step left results", 0, false);
		return;
	}
	if (!scan_ktap(boot, "tests.log", f))
		result(boot, "tests.log", "holds a KTAP plan", 0, false);
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, DONE_MARKER, strlen(DONE_MARKER)))
			done = true;
	fclose(f);

	/* Without a console log this is a host-side step, not a boot. */
	snprintf(path, sizeof(path), "%s/console.log", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < sizeof(reports) / sizeof(*reports); i++)
			if (strstr(line, reports[i]) && !nreports++)
				snprintf(first, sizeof(first), "%.*s",
					 (int)strcspn(line, "\n"), line);
	rewind(f);
	scan_ktap(boot, "console.log", f);
	fclose(f);
	snprintf(line, sizeof(line), "kernel log has no kernel report%s%s",
		 nreports ? "; first: " : "", first);
	result(boot, "console.log", line, !nreports, false);

	result(boot, "tests.log", "guest ran to its end (no hang, no panic)",
	       done, false);
	if (!done || nreports) {
		snprintf(path, sizeof(path), "%s/console.log", dir);
		tail(path, 40);
	}
}

static void scan_boot(const char *dir)
{
	char name[256];
	const char *boot = name;
	size_t len = strlen(dir);

	/* The name of a boot is its directory's, without trailing slashes. */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	snprintf(name, sizeof(name), "%.*s", (int)len, dir);
	if (strrchr(name, '/'))
		boot = strrchr(name, '/') + 1;
	read_expected(dir);
	scan_results(dir, boot);
	check_expected(boot);
}

int main(int argc, char **argv)
{
	bool allow_skip = false;
	int i = 1;

	if (argc > 1 && !strcmp(argv[1], "--allow-skip")) {
		allow_skip = true;
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: ktap [--allow-skip] BOOTDIR...\n");
		return 2;
	}
	for (; i < argc; i++)
		scan_boot(argv[i]);

	printf("%u passed, %u failed", total.passed, total.failed);
	if (total.skipped)
		printf(", %u skipped", total.skipped);
	if (total.expected)
		printf(" (%u expected)", total.expected);
	printf("\n");
	return total.failed ||
	       (total.skipped > total.expected && !allow_skip);
}
