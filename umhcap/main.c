// SPDX-License-Identifier: GPL-2.0
/*
 * umhcap - inspect and narrow the capability bounds of usermode helpers.
 *
 * Global options, command dispatch and error reporting.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "umhcap: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void umh_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void umh_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

static void usage(FILE *f)
{
	fputs("usage: umhcap [--root DIR] [-x] [--json] [COMMAND [ARGS]]\n"
	      "\n"
	      "Inspect and narrow the capability bounds of usermode helpers.\n"
	      "\n"
	      "commands:\n"
	      "  show [PURPOSE...]             show bounds and ceilings (default)\n"
	      "  drop [-p PURPOSE] [-n] CAP... clear capabilities from a bound\n"
	      "  keep [-p PURPOSE] [-n] CAP... narrow a bound to exactly CAP...\n"
	      "  learn [--include-idle] [PURPOSE...]\n"
	      "                                what helpers used since boot, per purpose,\n"
	      "                                next to what their bounds allow\n"
	      "  learn --apply [-n] [--include-idle] [PURPOSE...]\n"
	      "                                narrow each purpose whose helpers ran to\n"
	      "                                what they used (-n: only say what)\n"
	      "  check                         hardening report (exit 1 on findings)\n"
	      "  policy                        what each helper was measured to need,\n"
	      "                                which check holds the ceilings to\n"
	      "  export [--learned [--include-idle]] --sysctl|--cmdline\n"
	      "                                print the current (or learned) state as config\n"
	      "  trace [--count N]             print usermode helper starts, and the\n"
	      "                                capability checks helpers are refused\n"
	      "\n"
	      "options:\n"
	      "  --root DIR      prefix for /proc and tracefs (env UMHCAP_ROOT)\n"
	      "  -x              also print hex masks\n"
	      "  --json          machine-readable output (show, learn)\n"
	      "  --include-idle  learn: narrow purposes whose helpers never ran too\n"
	      "  -h, --help      this help\n"
	      "  --version       print the version\n"
	      "\n"
	      "purposes: all modprobe coredump uevent request_key release_agent\n"
	      "          power initrd other\n"
	      "exit status: 0 ok, 1 findings (check), 2 error (learn --apply: nothing was\n"
	      "written; learn, export --learned: also no record of what helpers use on\n"
	      "this kernel), 3 learn --apply wrote some bounds, then failed\n", f);
}

/* Strip trailing slashes so that paths are ROOT + "/proc/...". */
static const char *normalize_root(const char *root)
{
	size_t len;
	char *r;

	if (!root || !*root)
		return "";
	r = strdup(root);
	if (!r) {
		umh_err("out of memory");
		exit(UMH_EXIT_ERROR);
	}
	len = strlen(r);
	while (len > 0 && r[len - 1] == '/')
		r[--len] = '\0';
	return r;
}

static int dispatch(const struct umh_opts *o, int argc, char **argv)
{
	static char *show_argv[] = { "show", NULL };
	static const char *const cmds[] = {
		"show", "drop", "keep", "check", "export", "trace", "learn",
		"policy",
	};
	const char *cmd;
	size_t i;

	/* Subcommands parse their options from scratch. */
	optind = 0;
	if (argc == 0)
		return cmd_show(o, 1, show_argv);
	cmd = argv[0];
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmd, cmds[i]))
			break;
	if (i == ARRAY_SIZE(cmds)) {
		umh_err("unknown command \"%s\"; see umhcap --help", cmd);
		return UMH_EXIT_ERROR;
	}
	if (o->json && strcmp(cmd, "show") && strcmp(cmd, "learn")) {
		umh_err("--json is not supported by %s; only show and learn print JSON",
			cmd);
		return UMH_EXIT_ERROR;
	}
	if (!strcmp(cmd, "show"))
		return cmd_show(o, argc, argv);
	if (!strcmp(cmd, "drop"))
		return cmd_set(o, argc, argv, false);
	if (!strcmp(cmd, "keep"))
		return cmd_set(o, argc, argv, true);
	if (!strcmp(cmd, "check"))
		return cmd_check(o, argc, argv);
	if (!strcmp(cmd, "export"))
		return cmd_export(o, argc, argv);
	if (!strcmp(cmd, "trace"))
		return cmd_trace(o, argc, argv);
	if (!strcmp(cmd, "policy"))
		return cmd_policy(o, argc, argv);
	return cmd_learn(o, argc, argv);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root",	required_argument,	NULL, 'r' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct umh_opts o = { 0 };
	const char *root = getenv("UMHCAP_ROOT");
	int c;

	while ((c = getopt_long(argc, argv, "+xh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root = optarg;
			break;
		case 'x':
			o.hex = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'h':
			usage(stdout);
			return UMH_EXIT_OK;
		case 'V':
			printf("umhcap %s\n", UMHCAP_VERSION);
			return UMH_EXIT_OK;
		default:
			fputs("umhcap: see umhcap --help\n", stderr);
			return UMH_EXIT_ERROR;
		}
	}
	o.root = normalize_root(root);
	return dispatch(&o, argc - optind, argv + optind);
}
