// SPDX-License-Identifier: GPL-2.0
/*
 * show and export: print the current bounds for humans, for programs
 * (JSON), for /etc/sysctl.d and for the kernel command line.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

void umh_show_line(const struct umh_opts *o, const char *label,
		   uint64_t mask)
{
	char *names = caps_format(mask);

	if (o->hex)
		printf("  %-13s0x%016" PRIx64 "  %s\n", label, mask, names);
	else
		printf("  %-13s%s\n", label, names);
	free(names);
}

static void show_human(const struct umh_opts *o, const struct umh_state *st,
		       int p)
{
	if (p == UMH_ALL)
		printf("all (global, applies to every helper):\n");
	else
		printf("%s:\n", umh_purpose_names[p]);
	umh_show_line(o, "bset:", st->b[p].bset);
	umh_show_line(o, "inheritable:", st->b[p].inh);
	umh_show_line(o, "ceiling:", umh_ceiling(st, p));
}

void umh_show_json_mask(const char *key, uint64_t mask)
{
	printf(",\"%s\":\"0x%" PRIx64 "\",\"%s_caps\":", key, mask, key);
	caps_json(stdout, mask);
}

static void show_json(const struct umh_state *st, int p, bool first)
{
	printf("%s\n    {\"purpose\":\"%s\"", first ? "" : ",",
	       umh_purpose_names[p]);
	umh_show_json_mask("bset", st->b[p].bset);
	umh_show_json_mask("inheritable", st->b[p].inh);
	umh_show_json_mask("ceiling", umh_ceiling(st, p));
	putchar('}');
}

static void show_note(const struct umh_opts *o, const struct umh_state *st)
{
	char path[PATH_MAX];

	if (!st->per_purpose &&
	    !umh_path(path, sizeof(path), o->root, UMH_MODPROBE, NULL))
		printf("\nper-purpose bounds are not available on this kernel (no %s);\n"
		       "every helper is bounded by the global bounds above.\n",
		       path);
	printf("\nceiling = all.bset & <purpose>.bset: the most a helper running as root\n"
	       "gets (permitted/effective). inheritable is intersected too, but with the\n"
	       "kernel thread's empty inheritable set, so it does not widen anything.\n");
}

static int parse_show_args(int argc, char **argv, struct umh_opts *o,
			   bool sel[UMH_NR])
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	int c, i, p, n = 0;

	while ((c = getopt_long(argc, argv, "x", longopts, NULL)) != -1) {
		if (c == 'x') {
			o->hex = true;
		} else if (c == 'j') {
			o->json = true;
		} else {
			fputs("umhcap: usage: umhcap show [-x] [--json] [PURPOSE...]\n",
			      stderr);
			return -1;
		}
	}
	for (i = optind; i < argc; i++, n++) {
		p = umh_purpose_lookup(argv[i]);
		if (p < 0) {
			umh_err("unknown purpose \"%s\"; valid: all modprobe coredump uevent request_key release_agent power initrd other",
				argv[i]);
			return -1;
		}
		sel[p] = true;
	}
	if (!n)
		for (p = 0; p < UMH_NR; p++)
			sel[p] = true;
	return 0;
}

int cmd_show(const struct umh_opts *opts, int argc, char **argv)
{
	bool sel[UMH_NR] = { false };
	struct umh_opts o = *opts;
	struct umh_state st;
	bool first = true;
	int p;

	if (parse_show_args(argc, argv, &o, sel))
		return UMH_EXIT_ERROR;
	if (umh_load(o.root, &st))
		return UMH_EXIT_ERROR;
	for (p = UMH_ALL + 1; p < UMH_NR && !st.per_purpose; p++) {
		if (sel[p] && argc > optind) {
			umh_no_per_purpose(o.root);
			return UMH_EXIT_ERROR;
		}
		sel[p] = false;
	}

	if (o.json)
		printf("{\"version\":1,\"per_purpose\":%s,\"cap_bits\":%d,\"bounds\":[",
		       st.per_purpose ? "true" : "false", caps_nbits());
	for (p = 0; p < UMH_NR; p++) {
		if (!sel[p])
			continue;
		if (o.json)
			show_json(&st, p, first);
		else
			show_human(&o, &st, p);
		first = false;
	}
	if (o.json)
		printf("\n  ]\n}\n");
	else
		show_note(&o, &st);
	return UMH_EXIT_OK;
}

static void export_sysctl(const struct umh_state *st, int p)
{
	const char *sep = p == UMH_ALL ? "" : ".";
	const char *name = p == UMH_ALL ? "" : umh_purpose_names[p];

	printf("kernel.usermodehelper%s%s.bset = %u\t%u\n", sep, name,
	       (uint32_t)st->b[p].bset, (uint32_t)(st->b[p].bset >> 32));
	printf("kernel.usermodehelper%s%s.inheritable = %u\t%u\n", sep, name,
	       (uint32_t)st->b[p].inh, (uint32_t)(st->b[p].inh >> 32));
}

static void export_cmdline(const struct umh_state *st, bool inh)
{
	int p, n = st->per_purpose ? UMH_NR : 1;

	printf("usermodehelper.%s=", inh ? "inheritable" : "bset");
	for (p = 0; p < n; p++)
		printf("%s%s:0x%" PRIx64, p ? "," : "", umh_purpose_names[p],
		       inh ? st->b[p].inh : st->b[p].bset);
}

int cmd_export(const struct umh_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sysctl",		no_argument, NULL, 's' },
		{ "cmdline",		no_argument, NULL, 'c' },
		{ "learned",		no_argument, NULL, 'l' },
		{ "include-idle",	no_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 }
	};
	bool learned = false, include_idle = false;
	struct umh_state st, cur;
	struct umh_record rec;
	int c, p, ret, mode = 0;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'l')
			learned = true;
		else if (c == 'i')
			include_idle = true;
		else if (c != 's' && c != 'c')
			mode = -1;
		else if (mode >= 0)
			mode = mode ? -1 : c;
	}
	if (mode <= 0 || optind != argc || (include_idle && !learned)) {
		umh_err("usage: umhcap export [--learned [--include-idle]] --sysctl|--cmdline; give exactly one of --sysctl and --cmdline");
		return UMH_EXIT_ERROR;
	}
	if (learned) {
		ret = umh_learned(o->root, include_idle, &cur, &st, &rec);
		if (ret)
			return ret;
	} else if (umh_load(o->root, &st)) {
		return UMH_EXIT_ERROR;
	}
	if (mode == 's') {
		for (p = 0; p < UMH_NR; p++)
			if (p == UMH_ALL || st.per_purpose)
				export_sysctl(&st, p);
		return UMH_EXIT_OK;
	}
	export_cmdline(&st, false);
	putchar(' ');
	export_cmdline(&st, true);
	putchar('\n');
	return UMH_EXIT_OK;
}
