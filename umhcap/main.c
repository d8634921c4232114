// SPDX-License-Identifier: GPL-2.0
/*
 * umhcap - inspect and narrow the capability bounds of usermode helpers.
 *
 * The global options, and the table of commands: what each is called,
 * takes and does, from which umhcap --help, every umhcap COMMAND --help
 * (opts.c) and the dispatch are made.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

/* drop and keep take the same. */
#define SET_TAKES	(UMH_TAKES_PURPOSE | UMH_TAKES_DRY_RUN | \
			 UMH_TAKES_CAPS | UMH_TAKES_JSON)
#define SET_SYNOPSIS	"-p PURPOSE[,PURPOSE...] [-n] [--json] CAP..."

/* In the order umhcap --help lists them; the first is the default. */
static const struct umh_cmd cmds[] = {
	{
		.name		= "show",
		.run		= cmd_show,
		.takes		= UMH_TAKES_HEX | UMH_TAKES_JSON |
				  UMH_TAKES_PURPOSES,
		.synopsis	= "[-x] [--json] [PURPOSE...]",
		.summary	= "show bounds, ceilings, identities (the default)",
		.about		=
"For the global bound and each purpose, or the ones named, print the\n"
"bounding set (bset), the inheritable bound and the ceiling: all.bset &\n"
"<purpose>.bset, the most a helper of the purpose gets; and who the\n"
"purpose's helpers run as.",
	},
	{
		.name		= "status",
		.run		= cmd_status,
		.takes		= UMH_TAKES_JSON | UMH_TAKES_STATE_DIR,
		.synopsis	= "[--json] [--state-dir DIR]",
		.summary	= "one screen: record, bounds, next boot, saved boots",
		.about		=
"Show on one screen whether the kernel keeps its record of what helpers\n"
"use and how many started; for the global bound and each purpose, the\n"
"ceiling, who its helpers run as and how many started; where each bound\n"
"and id of the next boot is set, file by file: the kernel command line\n"
"(/etc/default/grub, /etc/default/grub.d, /etc/kernel/cmdline), then\n"
"/etc/sysctl.conf and the sysctl.d directories (/etc, /run, /usr/lib);\n"
"how many boots umhcap save kept; and how many refusals this boot\n"
"logged.  It writes nothing.  With --json, the same as one object.",
	},
	{
		.name		= "drop",
		.run		= cmd_drop,
		.takes		= SET_TAKES,
		.synopsis	= SET_SYNOPSIS,
		.summary	= "clear capabilities from a bound",
		.about		=
"Clear the capabilities named from the bset and the inheritable bound of\n"
"each purpose named with -p, or of the global bound with -p all, then\n"
"read both back to verify.  drop all narrows them to nothing.  Every\n"
"argument is checked, and every bound read, before anything is written.\n"
"With --json, one object: each bound's masks before and after.",
	},
	{
		.name		= "keep",
		.run		= cmd_keep,
		.takes		= SET_TAKES,
		.synopsis	= SET_SYNOPSIS,
		.summary	= "narrow a bound to exactly CAP...",
		.about		=
"Narrow the bset and the inheritable bound of each purpose named with\n"
"-p, or of the global bound with -p all, to exactly the capabilities\n"
"named, then read both back to verify.  Each must still be in the bset: a bound is only ever\n"
"narrowed; keep all leaves a bound as it is, keep none narrows it to\n"
"nothing.  Every argument is checked, and every bound read, before\n"
"anything is written.  With --json, one object: each bound's masks\n"
"before and after.",
	},
	{
		.name		= "user",
		.run		= cmd_user,
		.takes		= UMH_TAKES_PURPOSE_LIST | UMH_TAKES_DRY_RUN |
				  UMH_TAKES_IDENT | UMH_TAKES_JSON,
		.synopsis	= "-p PURPOSE[,PURPOSE...] [-n] [--json] USER[:GROUP]",
		.summary	= "run the helpers of purposes as a user",
		.about		=
"Run the helpers of each purpose named as USER and GROUP, with no\n"
"supplementary group and, as ambient capabilities, what both bounds of\n"
"the purpose leave; root runs them as root again, which needs every\n"
"capability.  The gid is written first, then the uid; back to root, the\n"
"uid first.  Each is read back to verify.  With --json, one object: each\n"
"purpose's ids before and after, and what was done to the core dump\n"
"socket.",
	},
	{
		.name		= "learn",
		.run		= cmd_learn,
		.takes		= UMH_TAKES_APPLY | UMH_TAKES_DRY_RUN |
				  UMH_TAKES_IDLE | UMH_TAKES_HEX |
				  UMH_TAKES_JSON | UMH_TAKES_PURPOSES |
				  UMH_TAKES_STATE_DIR | UMH_TAKES_THIS_BOOT |
				  UMH_TAKES_ALLOW | UMH_TAKES_SINCE |
				  UMH_TAKES_FROM,
		.synopsis	= "[-x] [--json] [--include-idle] [--this-boot] [--state-dir DIR] [--since DATE] [--last N] [PURPOSE...]\n"
				  "--from DIR [--from DIR...] [-x] [--json] [--include-idle] [--since DATE] [--last N] [PURPOSE...]\n"
				  "--apply [-n] [--json] [--include-idle] [--this-boot] [--state-dir DIR] [--since DATE] [--last N] [--allow PURPOSE:CAP,...] [PURPOSE...]",
		.summary	= "what helpers used; --apply narrows to it",
		.about		=
"What the helpers of each purpose, and every process they started, used\n"
"since boot, from the kernel's record, and in the boots umhcap save kept\n"
"(unless --this-boot; --since and --last choose among them), next to\n"
"what their bounds allow, and what the bounds refused them (umhcap\n"
"refusals).  With --from, from the saved boots of other machines\n"
"instead, a directory each: how many machines and boots each purpose\n"
"was learned from, and where their records disagree.  With --apply,\n"
"narrow each\n"
"purpose whose helpers ran to what they used; an idle purpose, whose\n"
"helpers never ran, is left alone unless --include-idle.  A refusal is\n"
"never added: a compromised helper asks for what it likes.  --allow adds\n"
"the capabilities named, within the bounds of now.",
	},
	{
		.name		= "check",
		.run		= cmd_check,
		.takes		= UMH_TAKES_JSON,
		.synopsis	= "[--json]",
		.summary	= "hardening report (exit 1 on findings)",
		.about		=
"Report each ceiling beyond what the purpose's helper program was\n"
"measured to need (see umhcap policy) or, where none was measured,\n"
"beyond what its helpers used since boot; bounds whose bset and\n"
"inheritable disagree; purposes the kernel has and umhcap does not know;\n"
"malformed usermodehelper.* items on the kernel command line;\n"
"capabilities a purpose's helpers never used, or used and are refused\n"
"now; and purposes that run as users of their own on a kernel without\n"
"the umh LSM.  Exit 1 on findings.  With --json, the same findings and\n"
"notes as one JSON object, and the same exit status.",
	},
	{
		.name		= "policy",
		.run		= cmd_policy,
		.takes		= UMH_TAKES_JSON,
		.synopsis	= "[--json]",
		.summary	= "what each helper was measured to need",
		.about		=
"Print the table check holds the ceilings to: what each helper program\n"
"was measured to need, in which configuration (Debian 12 as installed,\n"
"busybox systems) and over how many runs, then the handlers request-key\n"
"runs, measured on their own.  With --json, the same as one object.  It\n"
"reads nothing from the machine.",
	},
	{
		.name		= "export",
		.run		= cmd_export,
		.takes		= UMH_TAKES_LEARNED | UMH_TAKES_IDLE |
				  UMH_TAKES_FORMAT | UMH_TAKES_STATE_DIR |
				  UMH_TAKES_THIS_BOOT | UMH_TAKES_OUTPUT |
				  UMH_TAKES_DRY_RUN | UMH_TAKES_ALLOW |
				  UMH_TAKES_JSON | UMH_TAKES_SINCE |
				  UMH_TAKES_FROM,
		.synopsis	= "[--learned [--include-idle] [--this-boot] [--state-dir DIR] [--since DATE] [--last N] [--allow PURPOSE:CAP,...]] --sysctl|--cmdline|--json\n"
				  "[--learned [--include-idle] [--this-boot] [--state-dir DIR] [--since DATE] [--last N] [--allow PURPOSE:CAP,...]] --sysctl -o FILE [-n]\n"
				  "--learned --from DIR [--from DIR...] [--include-idle] [--since DATE] [--last N] [--allow PURPOSE:CAP,...] --sysctl|--cmdline|--json",
		.summary	= "print the current (or learned) state as config",
		.about		=
"Print the bounds, or with --learned those learn --apply leads to, so\n"
"that applying them at boot gives them again: as sysctl.conf lines or as\n"
"kernel command line parameters.  A purpose whose bounds are both open\n"
"(every capability the kernel knows, as at boot) is left out; an open\n"
"bound beside a narrowed one is given as all 64 bits, so that it keeps a\n"
"capability a newer kernel adds.  With every bound open, --sysctl prints\n"
"a comment that says so, and --cmdline no parameter, with a note on\n"
"stderr.  With -o, the sysctl.conf lines go to FILE instead, after a\n"
"comment that says what wrote them, when and from what: written whole to\n"
"a new file, then renamed over FILE, so that on any error FILE is left\n"
"as it was.  With --learned --from, the bounds learned from other\n"
"machines' saved boots (see learn), for them.  With --json, one object:\n"
"each purpose given, its bounds and ids, and the text of both formats.",
	},
	{
		.name		= "trace",
		.run		= cmd_trace,
		.takes		= UMH_TAKES_COUNT | UMH_TAKES_HEX |
				  UMH_TAKES_JSON,
		.synopsis	= "[-x] [--json] [--count N]",
		.summary	= "print helper starts and refused checks",
		.about		=
"Print one line per usermode helper start, and one per capability check\n"
"a helper, or a process it started, is refused, from the trace events of\n"
"a tracefs instance of its own, named at random, made afresh and checked\n"
"before each print; until N events, SIGINT, SIGTERM or SIGHUP.  With\n"
"--json, one JSON object per line and event (JSON Lines).",
	},
	{
		.name		= "refusals",
		.run		= cmd_refusals,
		.takes		= UMH_TAKES_JSON | UMH_TAKES_SINCE,
		.synopsis	= "[--json] [--since DATE] [--last N]",
		.summary	= "what the bounds refused helpers, per boot",
		.about		=
"Count the kernel's lines for the capability checks the bounds refused a\n"
"helper, per boot, purpose, capability and program: from the journal,\n"
"every boot it keeps, or without one from /dev/kmsg, this boot.  Only\n"
"the kernel's own lines count (facility kern, which no process can\n"
"write), each with when it was last logged; --since only those logged\n"
"then or later, --last only those of the last N boots.  A refusal is\n"
"what a helper asked for, and a compromised one asks for what it likes:\n"
"grant none wholesale.  The kernel rate-limits its lines, so a count is\n"
"at least that many.",
	},
	{
		.name		= "save",
		.run		= cmd_save,
		.takes		= UMH_TAKES_DRY_RUN | UMH_TAKES_STATE_DIR |
				  UMH_TAKES_JSON,
		.synopsis	= "[-n] [--json] [--state-dir DIR]",
		.summary	= "keep this boot's record for later boots",
		.about		=
"Save the kernel's record of this boot, which is lost at reboot: per\n"
"purpose, how many helpers started and what they used, to\n"
"DIR/boots/BOOT_ID (DIR: " UMH_STATE_DIR "), in place of what an earlier\n"
"save of the same boot wrote, for later boots to learn from.  Meant for\n"
"a unit to run at shutdown.  With --json, one object: the file, the boot,\n"
"the helpers started and the text.",
	},
	{
		.name		= "boots",
		.run		= cmd_boots,
		.takes		= UMH_TAKES_JSON | UMH_TAKES_STATE_DIR |
				  UMH_TAKES_FORGET | UMH_TAKES_DRY_RUN,
		.synopsis	= "[--json] [--state-dir DIR]\n"
				  "--forget BOOT_ID [-n] [--json] [--state-dir DIR]",
		.summary	= "list the saved boots, or forget one",
		.about		=
"List the boots umhcap save kept in DIR/boots (DIR: " UMH_STATE_DIR "),\n"
"oldest first: each one's id, when it was saved and began, its kernel,\n"
"how many helpers of each purpose started and what they used, and how\n"
"many refusals the journal logged in it.  A file learn would refuse is\n"
"warned of and not listed.  With --forget, remove the file of BOOT_ID,\n"
"so that learn, export --learned and boot no longer merge it; an id with\n"
"no saved file is an error, and nothing is removed.  With --json, one\n"
"object: the boots, or the file removed and what it held.",
	},
	{
		.name		= "boot",
		.run		= cmd_boot,
		.takes		= UMH_TAKES_DRY_RUN | UMH_TAKES_LOADER |
				  UMH_TAKES_IDLE | UMH_TAKES_STATE_DIR |
				  UMH_TAKES_THIS_BOOT | UMH_TAKES_ALLOW |
				  UMH_TAKES_JSON | UMH_TAKES_SINCE,
		.synopsis	= "[-n] [--json] [--grub|--kernel-install] [--include-idle] "
				  "[--this-boot] [--state-dir DIR] [--since DATE] [--last N] [--allow PURPOSE:CAP,...]\n"
				  "--remove [-n] [--json] [--grub|--kernel-install]",
		.summary	= "put the learned bounds on the next boot's command line",
		.about		=
"Write what export --learned --cmdline prints, learned from this boot and\n"
"the saved ones, where the boot loader reads it: with --grub (the default\n"
"without /etc/kernel/cmdline), as /etc/default/grub.d/umhcap.cfg, which\n"
"update-grub puts on every entry but recovery mode's; with\n"
"--kernel-install (the default with it), in /etc/kernel/cmdline, its\n"
"usermodehelper.* items replaced.  Open bounds are left out, as export\n"
"leaves them.  Nothing is written if no helper started, or if every bound\n"
"learned is open: nothing to narrow.  --allow adds the capabilities\n"
"named to what a purpose learned, for the next boot: the way back for a\n"
"bound too narrow, one capability at a time; a refusal is never added\n"
"by itself.  --remove undoes it: umhcap.cfg removed, and the\n"
"usermodehelper.* items taken out of /etc/kernel/cmdline.  Both name\n"
"every other file that sets the next boot's bounds or ids (GRUB's\n"
"/etc/default/grub and grub.d, /etc/kernel/cmdline, sysctl.conf and\n"
"sysctl.d), which stay in force; --grub warns where GRUB makes no\n"
"recovery entry (GRUB_DISABLE_RECOVERY=true).  With --json, one object:\n"
"the file written or removed, what it holds, and what is set elsewhere.",
	},
};

#define NR_CMDS	ARRAY_SIZE(cmds)

/*
 * The names of the commands that take @what, "a, b and c" with @last
 * " and "; "every command" when each does.
 */
static const char *names_taking(unsigned int what, const char *last,
				char *buf, size_t len)
{
	size_t i, n = 0, k = 0, count = 0;

	for (i = 0; i < NR_CMDS; i++)
		count += !!(cmds[i].takes & what);
	if (count == NR_CMDS)
		return "every command";
	buf[0] = '\0';
	for (i = 0; i < NR_CMDS && n < len; i++) {
		if (!(cmds[i].takes & what))
			continue;
		n += snprintf(buf + n, len - n, "%s%s",
			      !k ? "" : k + 1 == count ? last : ", ",
			      cmds[i].name);
		k++;
	}
	return buf;
}

/* Each form of each command, its summary in the column after them. */
static void put_commands(void)
{
	const struct umh_cmd *cmd;
	const char *s;
	int n, col;

	for (cmd = cmds; cmd < cmds + NR_CMDS; cmd++) {
		for (s = cmd->synopsis; ; s += n + 1) {
			n = strcspn(s, "\n");
			col = printf("  %s%s%.*s", cmd->name, n ? " " : "", n,
				     s);
			if (!s[n])
				break;
			putchar('\n');
		}
		if (col >= 32) {
			putchar('\n');
			col = 0;
		}
		printf("%*s%s\n", 32 - col, "", cmd->summary);
	}
}

static void usage(void)
{
	char hex[64], json[64];

	printf("usage: umhcap [--root DIR] [-x] [--json] [COMMAND [ARGS]]\n"
	       "       umhcap -h|--help|-V|--version\n"
	       "\n"
	       "Inspect and narrow the capability bounds of usermode helpers.\n"
	       "\n"
	       "commands:\n");
	put_commands();
	printf("\n"
	       "options:\n"
	       "  --root DIR      prefix for every path umhcap uses (env UMHCAP_ROOT); each\n"
	       "                  line about a write names it; empty is an error\n"
	       "  -x, --hex       also print hex masks (%s)\n"
	       "  --json          machine-readable output (%s)\n"
	       "  -h, --help      this help\n"
	       "  -V, --version   print the version\n"
	       "\n",
	       names_taking(UMH_TAKES_HEX, ", ", hex, sizeof(hex)),
	       names_taking(UMH_TAKES_JSON, ", ", json, sizeof(json)));
	umh_print_words("purposes: ", umh_purpose_list());
	printf("exit status: 0 ok, 1 findings (check), 2 error (drop, keep, learn\n"
	       "--apply, user, save, boot, boots --forget: nothing was written or\n"
	       "removed; learn, export --learned, save, boot: also no record of\n"
	       "what helpers use on this kernel; or the output could not be\n"
	       "written), 3 drop, keep, learn\n"
	       "--apply or user wrote to some purposes, then failed, or a command\n"
	       "wrote, then could not write its output\n"
	       "\n"
	       "umhcap COMMAND --help: how COMMAND is used, and its options.\n");
}

static const struct umh_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NR_CMDS; i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

/* Strip trailing slashes so that paths are ROOT + "/proc/...". */
static const char *normalize_root(const char *root)
{
	size_t len;
	char *r;

	if (!root || !*root)
		return "";
	r = umh_xstrdup(root);
	len = strlen(r);
	while (len > 0 && r[len - 1] == '/')
		r[--len] = '\0';
	return r;
}

static int run(int argc, char **argv, struct umh_args *a);

/* Every path out goes through umh_exit_status(): stdout must be out. */
int main(int argc, char **argv)
{
	struct umh_args a = { 0 };
	int ret = run(argc, argv, &a);

	return umh_exit_status(ret);
}

static int run(int argc, char **argv, struct umh_args *a)
{
	/* The keys of the options that have no letter. */
	enum { OPT_ROOT = 0x100, OPT_JSON };
	static const struct option longopts[] = {
		{ "root",	required_argument,	NULL, OPT_ROOT },
		{ "json",	no_argument,		NULL, OPT_JSON },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "hex",	no_argument,		NULL, 'x' },
		{ NULL, 0, NULL, 0 }
	};
	/* Up to the command: its options are its own. */
	static const char shorts[] = "+:xhV";
	char *dflt[] = { (char *)cmds[0].name, NULL };
	const char *root = getenv("UMHCAP_ROOT"), *root_from = "UMHCAP_ROOT";
	char json[64];
	int c, ret;

	/* getopt says nothing itself: every error is umhcap's (msg.c). */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ROOT:
			root = optarg;
			root_from = "--root";
			break;
		case 'x':
			a->hex = true;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case 'h':
			usage();
			return UMH_EXIT_OK;
		case 'V':
			printf("umhcap %s\n", UMHCAP_VERSION);
			return UMH_EXIT_OK;
		default:
			umh_option_error(c, argv, shorts, NULL);
			return UMH_EXIT_ERROR;
		}
	}
	argc -= optind;
	argv += optind;
	if (!argc) {
		argc = 1;
		argv = dflt;
	}
	/*
	 * An empty root is a mistake, not /: a script's unset $IMG would
	 * otherwise narrow the running kernel.  --root / says / outright.
	 */
	if (root && !*root) {
		umh_err("empty %s: give the root directory, or / for this machine",
			root_from);
		return UMH_EXIT_ERROR;
	}
	a->cmd = find_cmd(argv[0]);
	if (!a->cmd) {
		umh_err("unknown command \"%s\"; see umhcap --help", argv[0]);
		return UMH_EXIT_ERROR;
	}
	a->root = normalize_root(root);
	umh_msg_root(a->root, root_from);
	umh_names_root(a->root);
	ret = umh_args_parse(a, argc, argv);
	if (ret)
		return ret > 0 ? UMH_EXIT_OK : UMH_EXIT_ERROR;
	if (a->hex && !(a->cmd->takes & UMH_TAKES_HEX)) {
		umh_err("-x is not supported by %s; only %s print hex masks",
			a->cmd->name, names_taking(UMH_TAKES_HEX, " and ",
						  json, sizeof(json)));
		return UMH_EXIT_ERROR;
	}
	if (a->json && !(a->cmd->takes & UMH_TAKES_JSON)) {
		umh_err("--json is not supported by %s; only %s print JSON",
			a->cmd->name, names_taking(UMH_TAKES_JSON, " and ",
						  json, sizeof(json)));
		return UMH_EXIT_ERROR;
	}
	return a->cmd->run(a);
}
