// SPDX-License-Identifier: GPL-2.0
/*
 * The options and arguments of every command, parsed in one place from
 * what the command takes (struct umh_cmd.takes), and every command's
 * --help, made from the same: a command takes what its help lists, and
 * nothing else.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "umhcap.h"

/* The keys of the options that have no letter. */
enum {
	OPT_APPLY = 0x100,
	OPT_LEARNED,
	OPT_INCLUDE_IDLE,
	OPT_SYSCTL,
	OPT_CMDLINE,
	OPT_JSON,
	OPT_STATE_DIR,
	OPT_THIS_BOOT,
	OPT_GRUB,
	OPT_KERNEL_INSTALL,
	OPT_REMOVE,
	OPT_ALLOW,
	OPT_SINCE,
	OPT_LAST,
	OPT_FORGET,
	OPT_FROM,
};

struct option_info {
	unsigned int takes;	/* UMH_TAKES_*; 0: every command takes it */
	int key;		/* its letter, or OPT_* */
	const char *name;	/* its long name, or NULL */
	const char *arg;	/* the name of its argument, or NULL */
	const char *help;
};

/* Every option of every command, in the order a command's help has them. */
static const struct option_info options[] = {
	{ UMH_TAKES_PURPOSE,	'p',		"purpose",	"PURPOSES",
	  "comma-separated bounds to change; all: the global bound" },
	{ UMH_TAKES_PURPOSE_LIST, 'p',		"purpose",	"PURPOSES",
	  "the purposes, comma-separated; all: every one" },
	{ UMH_TAKES_APPLY,	OPT_APPLY,	"apply",	NULL,
	  "narrow each purpose whose helpers ran to what they used" },
	{ UMH_TAKES_DRY_RUN,	'n',		"dry-run",	NULL,
	  "say what would be written, and write nothing" },
	{ UMH_TAKES_LEARNED,	OPT_LEARNED,	"learned",	NULL,
	  "the bounds learn --apply leads to, not those of now" },
	{ UMH_TAKES_IDLE,	OPT_INCLUDE_IDLE, "include-idle", NULL,
	  "narrow idle purposes too: those whose helpers never ran" },
	{ UMH_TAKES_FORMAT,	OPT_SYSCTL,	"sysctl",	NULL,
	  "as sysctl.conf lines, for /etc/sysctl.d" },
	{ UMH_TAKES_FORMAT,	OPT_CMDLINE,	"cmdline",	NULL,
	  "as kernel command line parameters" },
	{ UMH_TAKES_COUNT,	'c',		"count",	"N",
	  "stop after N events" },
	{ UMH_TAKES_HEX,	'x',		"hex",		NULL,
	  "also print hex masks" },
	{ UMH_TAKES_JSON,	OPT_JSON,	"json",		NULL,
	  "machine-readable output" },
	{ UMH_TAKES_LOADER,	OPT_GRUB,	"grub",		NULL,
	  "write /etc/default/grub.d/umhcap.cfg, for update-grub" },
	{ UMH_TAKES_LOADER,	OPT_KERNEL_INSTALL, "kernel-install", NULL,
	  "edit /etc/kernel/cmdline, for kernel-install" },
	{ UMH_TAKES_LOADER,	OPT_REMOVE,	"remove",	NULL,
	  "take the bounds off the next boot's command line" },
	{ UMH_TAKES_THIS_BOOT,	OPT_THIS_BOOT,	"this-boot",	NULL,
	  "this boot's record only: merge no saved boot" },
	{ UMH_TAKES_STATE_DIR,	OPT_STATE_DIR,	"state-dir",	"DIR",
	  "saved boots in DIR/boots, not " UMH_STATE_DIR "/boots" },
	{ UMH_TAKES_ALLOW,	OPT_ALLOW,	"allow",	"PURPOSE:CAP",
	  "add CAP to what PURPOSE learned (comma-separated list)" },
	{ UMH_TAKES_SINCE,	OPT_SINCE,	"since",	"DATE",
	  "only boots saved, or lines logged, then or later (UTC)" },
	{ UMH_TAKES_SINCE,	OPT_LAST,	"last",		"N",
	  "only the N boots saved (logged) last" },
	{ UMH_TAKES_FORGET,	OPT_FORGET,	"forget",	"BOOT_ID",
	  "remove the saved boot BOOT_ID" },
	{ UMH_TAKES_FROM,	OPT_FROM,	"from",		"DIR",
	  "a machine's saved boots, not this one's (again for more)" },
	{ UMH_TAKES_OUTPUT,	'o',		"output",	"FILE",
	  "write FILE whole, or leave it as it was (with --sysctl)" },
	{ 0,			'h',		"help",		NULL,
	  "this help" },
};

static bool takes(unsigned int cmd_takes, const struct option_info *o)
{
	return !o->takes || (o->takes & cmd_takes);
}

/*
 * getopt_long()'s view of the options in @cmd_takes.  @shorts starts
 * with ':', so that a missing argument is told from an unknown option.
 */
static void getopt_spec(unsigned int cmd_takes, char *shorts,
			struct option *longs)
{
	const struct option_info *o;

	*shorts++ = ':';
	for (o = options; o < options + ARRAY_SIZE(options); o++) {
		if (!takes(cmd_takes, o))
			continue;
		if (o->key < 0x100) {
			*shorts++ = o->key;
			if (o->arg)
				*shorts++ = ':';
		}
		if (o->name)
			*longs++ = (struct option){
				o->name, o->arg ? required_argument :
				no_argument, NULL, o->key,
			};
	}
	*shorts = '\0';
	*longs = (struct option){ NULL, 0, NULL, 0 };
}

/* "usage: umhcap NAME FORM", each form of the synopsis after @sep. */
static void put_usage(FILE *f, const struct umh_cmd *cmd, const char *sep)
{
	const char *s = cmd->synopsis;
	size_t n;

	fputs("usage: ", f);
	for (;;) {
		n = strcspn(s, "\n");
		fprintf(f, "umhcap %s%s%.*s", cmd->name, n ? " " : "", (int)n,
			s);
		if (!s[n])
			break;
		fputs(sep, f);
		s += n + 1;
	}
}

/*
 * One line: what is wrong, then how @cmd is used.  Returns
 * UMH_EXIT_ERROR, for a command to return.
 */
int umh_usage_error(const struct umh_cmd *cmd, const char *fmt, ...)
{
	size_t size;
	char *line;
	va_list ap;
	FILE *f;

	f = open_memstream(&line, &size);
	if (!f) {
		umh_oom();
		return UMH_EXIT_ERROR;
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputs("; ", f);
	put_usage(f, cmd, ", or ");
	fclose(f);
	umh_err("%s", line);
	free(line);
	return UMH_EXIT_ERROR;
}

/*
 * What getopt_long() refused, given @shorts: @c is ':' for a missing
 * argument, '?' otherwise, with optopt 0 for an unknown long option, an
 * unknown letter, or the key of a long option given an argument it does
 * not take (a letter of @shorts, or a key above the letters).  One line,
 * then how @cmd is used, or without @cmd (the global options) where the
 * help is.
 */
void umh_option_error(int c, char **argv, const char *shorts,
		      const struct umh_cmd *cmd)
{
	const char *arg = argv[optind - 1];
	bool is_long = !strncmp(arg, "--", 2);
	int len = strcspn(arg, "=");
	char why[160];

	if (c == ':' && is_long)
		snprintf(why, sizeof(why), "option %.*s needs an argument",
			 len, arg);
	else if (c == ':')
		snprintf(why, sizeof(why), "option -%c needs an argument",
			 optopt);
	else if (!optopt)
		snprintf(why, sizeof(why), "unknown option \"%.*s\"", len, arg);
	else if (optopt < 0x100 && (optopt == ':' || !strchr(shorts, optopt)))
		snprintf(why, sizeof(why), "unknown option \"-%c\"", optopt);
	else
		snprintf(why, sizeof(why), "option %.*s takes no argument",
			 len, arg);
	if (cmd)
		umh_usage_error(cmd, "%s", why);
	else
		umh_err("%s; see umhcap --help", why);
}

/* @words after @label, wrapped under the first word. */
void umh_print_words(const char *label, const char *words)
{
	size_t indent = strlen(label), col = indent, n;

	fputs(label, stdout);
	while (*words) {
		n = strcspn(words, " ");
		if (col > indent && col + 1 + n > 72) {
			printf("\n%*s", (int)indent, "");
			col = indent;
		}
		if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)n, words);
		col += n;
		words += n;
		words += strspn(words, " ");
	}
	putchar('\n');
}

/* "-n, --dry-run", "-p PURPOSE", "--include-idle" */
static void option_name(const struct option_info *o, char *buf, size_t len)
{
	int n = 0;

	if (o->key < 0x100)
		n = snprintf(buf, len, "-%c%s", o->key, o->name ? ", " : "");
	if (o->name)
		n += snprintf(buf + n, len - n, "--%s", o->name);
	if (o->arg)
		snprintf(buf + n, len - n, " %s", o->arg);
}

/* umhcap CMD --help */
static void cmd_help(const struct umh_cmd *cmd)
{
	const struct option_info *o;
	char name[32];

	put_usage(stdout, cmd, "\n       ");
	printf("\n\n%s\n\noptions:\n", cmd->about);
	for (o = options; o < options + ARRAY_SIZE(options); o++) {
		if (!takes(cmd->takes, o))
			continue;
		option_name(o, name, sizeof(name));
		printf("  %-22s  %s\n", name, o->help);
	}
	if (cmd->takes & (UMH_TAKES_PURPOSE | UMH_TAKES_PURPOSES |
			  UMH_TAKES_PURPOSE_LIST)) {
		putchar('\n');
		umh_print_words("purposes: ", umh_purpose_list());
	}
	if (cmd->takes & UMH_TAKES_CAPS)
		printf("\nCAP: a capability, by name (cap_sys_module or sys_module, in any\n"
		       "case) or by number; several, as arguments or comma-separated\n"
		       "(sys_module,net_admin); all: every capability; none: no capability,\n"
		       "alone\n");
	if (cmd->takes & UMH_TAKES_DRY_RUN)
		printf("\nUnder a root other than / (--root DIR, or UMHCAP_ROOT), each line\n"
		       "about a write, or one -n would make, ends \"under root DIR (--root)\"\n"
		       "or \"(UMHCAP_ROOT)\".\n");
	if (cmd->takes & UMH_TAKES_IDENT)
		printf("\nUSER, GROUP: a name passwd or group knows (this machine's, or under\n"
		       "--root the root's), or a number; GROUP defaults to USER's primary\n"
		       "group, and is needed for a uid passwd does not know; root or 0: back\n"
		       "to root\n");
}

/* A purpose (or all), for -p or as an argument; says what is valid. */
static int parse_purpose(const char *arg, int *purpose)
{
	*purpose = umh_purpose_lookup(arg);
	if (*purpose >= 0)
		return 0;
	umh_err("unknown purpose \"%s\"; valid: %s", arg, umh_purpose_list());
	return -1;
}

/*
 * -p PURPOSE[,PURPOSE...]: into a->sel.  all is the global bound where
 * the command takes it (UMH_TAKES_PURPOSE), else every purpose.
 */
static int parse_purpose_list(struct umh_args *a, const char *arg)
{
	bool global = a->cmd->takes & UMH_TAKES_PURPOSE;
	char *list = umh_xstrdup(arg), *rest = list, *name;
	int i, p, ret = 0;

	while (!ret && (name = strsep(&rest, ","))) {
		if (!*name) {
			umh_err("empty purpose name in \"%s\"; separate purposes with one comma, none before the first or after the last",
				arg);
			ret = -1;
			break;
		}
		ret = parse_purpose(name, &p);
		for (i = 0; !ret && i < UMH_NR; i++)
			a->sel[i] |= p == i ||
				     (p == UMH_ALL && !global && i != UMH_ALL);
	}
	free(list);
	a->named = true;
	return ret ? -1 : 0;
}

/* --count N, --last N (@opt): a positive number. */
static int parse_count(const char *opt, const char *arg, long *count)
{
	char *end;

	errno = 0;
	*count = strtol(arg, &end, 10);
	if (!errno && !*end && end != arg && *count > 0 &&
	    isdigit((unsigned char)*arg))
		return 0;
	umh_err("bad %s \"%s\"; give a positive number", opt, arg);
	return -1;
}

/* @n digits at @s, as a number; -1 if they are not all digits. */
static int digits(const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + s[i] - '0';
	}
	return v;
}

/*
 * --since DATE: YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS][Z] ('T' or one
 * space), in UTC, as umhcap prints times; a date that is none, such as
 * 2025-02-30, is an error.
 */
static int parse_since(const char *arg, long long *t)
{
	struct tm tm = { 0 }, back;
	size_t len = strlen(arg);
	const char *s;
	time_t tt;

	if (len < 10 || arg[4] != '-' || arg[7] != '-')
		goto bad;
	s = arg + 10;
	tm.tm_year = digits(arg, 4) - 1900;
	tm.tm_mon = digits(arg + 5, 2) - 1;
	tm.tm_mday = digits(arg + 8, 2);
	if (tm.tm_year < 70 || tm.tm_mon < 0 || tm.tm_mday < 0)
		goto bad;
	if (*s == 'T' || *s == ' ') {
		if (strlen(s) < 6 || s[3] != ':')
			goto bad;
		tm.tm_hour = digits(s + 1, 2);
		tm.tm_min = digits(s + 4, 2);
		if (tm.tm_hour < 0 || tm.tm_min < 0)
			goto bad;
		s += 6;
		if (*s == ':') {
			if (strlen(s) < 3)
				goto bad;
			tm.tm_sec = digits(s + 1, 2);
			if (tm.tm_sec < 0)
				goto bad;
			s += 3;
		}
		s += *s == 'Z';
	}
	if (*s)
		goto bad;
	back = tm;
	tt = timegm(&back);
	/* timegm() moves what is out of range on: it must not have. */
	if (tt == (time_t)-1 || back.tm_year != tm.tm_year ||
	    back.tm_mon != tm.tm_mon || back.tm_mday != tm.tm_mday ||
	    back.tm_hour != tm.tm_hour || back.tm_min != tm.tm_min ||
	    back.tm_sec != tm.tm_sec)
		goto bad;
	*t = tt;
	return 0;
bad:
	umh_err("bad --since \"%s\"; give a date, YYYY-MM-DD, or a time, YYYY-MM-DDTHH:MM:SS, in UTC",
		arg);
	return -1;
}

/*
 * --from DIR, once per machine: as given, not under --root (a copy
 * gathered from another machine), and not empty.
 */
static int parse_from(struct umh_args *a, const char *arg)
{
	const char **from;
	char *d;
	size_t len;

	if (!*arg) {
		umh_err("bad --from \"\": give a directory, each machine's copy of " UMH_STATE_DIR "/boots");
		return -1;
	}
	from = realloc(a->from, (a->nfrom + 1) * sizeof(*from));
	if (!from) {
		umh_oom();
		return -1;
	}
	d = umh_xstrdup(arg);
	len = strlen(d);
	while (len > 1 && d[len - 1] == '/')
		d[--len] = '\0';
	from[a->nfrom++] = d;
	a->from = from;
	return 0;
}

/* --forget BOOT_ID: a boot id, as umhcap boots lists them; once. */
static int parse_forget(struct umh_args *a, const char *arg)
{
	if (a->forget) {
		umh_usage_error(a->cmd, "give --forget once: one boot at a time");
		return -1;
	}
	if (!umh_is_boot_id(arg)) {
		umh_err("bad --forget \"%s\": a boot id is 8-4-4-4-12 lowercase hex digits, as umhcap boots lists them",
			arg);
		return -1;
	}
	a->forget = arg;
	return 0;
}

/*
 * One element of a CAP argument, into *@mask: a capability, or all.
 * Returns 0, 1 for none, or -1 after saying what is wrong.
 */
static int parse_cap(struct umh_args *a, const char *arg, const char *name,
		     uint64_t *mask)
{
	int cap;

	if (!*name) {
		umh_err("empty capability name in \"%s\"; separate names with one comma, none before the first or after the last",
			arg);
		return -1;
	}
	if (!strcasecmp(name, "none"))
		return 1;
	if (!strcasecmp(name, "all")) {
		a->caps_all = true;
		*mask = ~0ULL;
		return 0;
	}
	if (caps_parse(name, &cap)) {
		umh_err("unknown capability \"%s\"; use a name like cap_sys_module or sys_module, a number below %d, all or none",
			name, caps_nbits());
		return -1;
	}
	*mask |= 1ULL << cap;
	return 0;
}

/*
 * CAP...: each argument a capability or a comma-separated list of them;
 * all, every capability; none, the empty set, which goes alone.  Every
 * element is checked, and every one wrong said, at once.
 */
static int parse_caps(struct umh_args *a, int n, char **args, uint64_t *mask)
{
	bool bad = false, none = false, some = false;
	char *list, *rest, *name;
	int i, ret;

	if (!n) {
		umh_usage_error(a->cmd, "name one capability at least");
		return -1;
	}
	for (i = 0; i < n; i++) {
		list = rest = umh_xstrdup(args[i]);
		while ((name = strsep(&rest, ","))) {
			ret = parse_cap(a, args[i], name, mask);
			bad |= ret < 0;
			none |= ret > 0;
			some |= !ret;
		}
		free(list);
	}
	if (none && some) {
		umh_err("none is the empty set and goes alone: name capabilities, or none");
		bad = true;
	}
	return bad ? -1 : 0;
}

/* USER[:GROUP], after -p PURPOSE[,PURPOSE...]: both are needed. */
static int parse_ident(struct umh_args *a, int n, char **args)
{
	const char *colon = n ? strchr(args[0], ':') : NULL;

	if (!a->named)
		umh_usage_error(a->cmd, "name the purposes with -p");
	else if (!n)
		umh_usage_error(a->cmd, "name a user");
	else if (n > 1)
		umh_usage_error(a->cmd, "unexpected argument \"%s\"", args[1]);
	else if (!*args[0] || colon == args[0] || (colon && !colon[1]))
		umh_usage_error(a->cmd, "bad USER[:GROUP] \"%s\"", args[0]);
	else
		a->ident = args[0];
	return a->ident ? 0 : -1;
}

/*
 * --state-dir DIR, -o FILE (@opt): absolute, as every path umhcap takes
 * under --root.
 */
static int parse_path(const char *opt, const char *arg, const char **dir)
{
	char *d;
	size_t len;

	if (arg[0] != '/') {
		umh_err("bad %s \"%s\": give an absolute path (it is taken under --root)",
			opt, arg);
		return -1;
	}
	d = umh_xstrdup(arg);
	len = strlen(d);
	while (len > 1 && d[len - 1] == '/')
		d[--len] = '\0';
	*dir = d;
	return 0;
}

/*
 * --allow PURPOSE:CAP[,PURPOSE:CAP...]: capabilities to add to what each
 * purpose named learned, as the administrator names them, one by one.
 */
static int parse_allow(const char *arg, struct umh_args *a)
{
	char *list = umh_xstrdup(arg), *rest = list, *item, *colon;
	int p, cap, ret = 0;

	while (!ret && (item = strsep(&rest, ","))) {
		if (!*item) {
			umh_err("bad --allow \"%s\": an empty item; separate items with one comma, none before the first or after the last",
				arg);
			ret = -1;
			break;
		}
		colon = strchr(item, ':');
		if (colon)
			*colon = '\0';
		p = colon ? umh_purpose_lookup(item) : -1;
		if (p < 0 || p == UMH_ALL) {
			umh_err("bad --allow item \"%s%s%s\": give PURPOSE:CAP, with a purpose's name (not all)",
				item, colon ? ":" : "", colon ? colon + 1 : "");
			ret = -1;
		} else if (caps_parse(colon + 1, &cap)) {
			umh_err("bad --allow item \"%s:%s\": unknown capability \"%s\"",
				item, colon + 1, colon + 1);
			ret = -1;
		} else {
			a->allow[p] |= 1ULL << cap;
			a->allowed = true;
		}
	}
	if (!ret && !a->allowed) {
		umh_err("bad --allow \"%s\": give PURPOSE:CAP[,PURPOSE:CAP...]", arg);
		ret = -1;
	}
	free(list);
	return ret;
}

/* What follows the options: PURPOSE..., CAP..., USER[:GROUP] or nothing. */
static int parse_operands(struct umh_args *a, int n, char **args)
{
	int i, p;

	if (a->cmd->takes & UMH_TAKES_CAPS) {
		/* The global bound, the widest, only when named: -p all. */
		if (!a->named) {
			umh_usage_error(a->cmd, "give -p: -p PURPOSE[,PURPOSE...] for purposes, -p all for the global bound, which every helper is under");
			return -1;
		}
		return parse_caps(a, n, args, &a->caps);
	}
	if (a->cmd->takes & UMH_TAKES_IDENT)
		return parse_ident(a, n, args);
	if (!(a->cmd->takes & UMH_TAKES_PURPOSES)) {
		if (!n)
			return 0;
		umh_usage_error(a->cmd, "unexpected argument \"%s\"", args[0]);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (parse_purpose(args[i], &p))
			return -1;
		a->sel[p] = true;
	}
	a->named = n > 0;
	for (p = 0; p < UMH_NR && !a->named; p++)
		a->sel[p] = true;
	return 0;
}

/*
 * Parse @argv, whose argv[0] is the name of a->cmd, into @a, which holds
 * the global options already.  Returns 0 to run the command, 1 after
 * --help (printed), -1 after an error (printed).
 */
int umh_args_parse(struct umh_args *a, int argc, char **argv)
{
	char shorts[2 * ARRAY_SIZE(options) + 2];
	struct option longs[ARRAY_SIZE(options) + 1];
	int c;

	a->count = -1;
	a->since = UMH_NO_TIME;
	getopt_spec(a->cmd->takes, shorts, longs);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			cmd_help(a->cmd);
			return 1;
		case 'p':
			if (parse_purpose_list(a, optarg))
				return -1;
			break;
		case 'c':
			if (parse_count("--count", optarg, &a->count))
				return -1;
			break;
		case 'n':
			a->dry_run = true;
			break;
		case 'x':
			a->hex = true;
			break;
		case OPT_APPLY:
			a->apply = true;
			break;
		case OPT_LEARNED:
			a->learned = true;
			break;
		case OPT_INCLUDE_IDLE:
			a->include_idle = true;
			break;
		case OPT_SYSCTL:
			a->sysctl = true;
			break;
		case OPT_CMDLINE:
			a->cmdline = true;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_STATE_DIR:
			if (parse_path("--state-dir", optarg, &a->state_dir))
				return -1;
			break;
		case 'o':
			if (parse_path("-o", optarg, &a->output))
				return -1;
			break;
		case OPT_THIS_BOOT:
			a->this_boot = true;
			break;
		case OPT_GRUB:
			a->grub = true;
			break;
		case OPT_KERNEL_INSTALL:
			a->kernel_install = true;
			break;
		case OPT_REMOVE:
			a->remove = true;
			break;
		case OPT_ALLOW:
			if (parse_allow(optarg, a))
				return -1;
			break;
		case OPT_SINCE:
			if (parse_since(optarg, &a->since))
				return -1;
			break;
		case OPT_LAST:
			if (parse_count("--last", optarg, &a->last))
				return -1;
			break;
		case OPT_FORGET:
			if (parse_forget(a, optarg))
				return -1;
			break;
		case OPT_FROM:
			if (parse_from(a, optarg))
				return -1;
			break;
		default:
			umh_option_error(c, argv, shorts, a->cmd);
			return -1;
		}
	}
	return parse_operands(a, argc - optind, argv + optind);
}
