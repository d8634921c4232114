// SPDX-License-Identifier: GPL-2.0
/*
 * Where the next boot's bounds and ids are set: the usermodehelper.*
 * items of the kernel command line the boot loader is given (GRUB's
 * /etc/default/grub and /etc/default/grub.d/ *.cfg, which update-grub
 * sources; kernel-install's /etc/kernel/cmdline), then the
 * kernel.usermodehelper.* lines of sysctl.conf and the sysctl.d
 * directories, which systemd-sysctl applies later in the boot.  status
 * shows them; boot and boot --remove name those they leave in force.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "umhcap.h"

#define CONF_MAX	(1 << 20)

enum source_kind { SRC_CMDLINE, SRC_SYSCTL };

/*
 * In the order the boot applies them.  A file of a sysctl.d directory
 * is read only where no directory before it has a file of its name,
 * which replaces it (sysctl.d(5)).
 */
static const struct {
	const char *path;	/* a file, or a directory of files */
	const char *glob;	/* NULL: @path is the file */
	enum source_kind kind;
} sources[] = {
	{ "/etc/default/grub",		NULL,		SRC_CMDLINE },
	{ "/etc/default/grub.d",	"*.cfg",	SRC_CMDLINE },
	{ "/etc/kernel/cmdline",	NULL,		SRC_CMDLINE },
	{ "/etc/sysctl.conf",		NULL,		SRC_SYSCTL },
	{ "/etc/sysctl.d",		"*.conf",	SRC_SYSCTL },
	{ "/run/sysctl.d",		"*.conf",	SRC_SYSCTL },
	{ "/usr/lib/sysctl.d",		"*.conf",	SRC_SYSCTL },
};

static const char *const params[] = { "bset", "inheritable", "uid", "gid" };

static const char *param_of(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(params); i++)
		if (strlen(params[i]) == n && !strncmp(params[i], s, n))
			return params[i];
	return NULL;
}

static void add(struct umh_settings *ss, int p, const char *file,
		const char *var, size_t var_len, const char *param,
		const char *value, size_t len)
{
	struct umh_setting *s = realloc(ss->s, (ss->n + 1) * sizeof(*s));

	if (!s) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	ss->s = s;
	s[ss->n++] = (struct umh_setting){
		.file = umh_xstrdup(file), .purpose = p, .param = param,
		.var = var_len ? umh_xasprintf("%.*s", (int)var_len, var) :
			NULL,
		.value = umh_escape(value, len),
	};
}

/*
 * The variable a line of sh assigns, NAME=..., as /etc/default/grub's
 * GRUB_CMDLINE_LINUX=: its length at *@var, 0 if the line assigns none.
 */
static size_t assigned(const char *line, const char **var)
{
	size_t n;

	line += strspn(line, " \t");
	if (!strncmp(line, "export ", 7))
		line += 7 + strspn(line + 7, " \t");
	n = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
	*var = line;
	return n && line[n] == '=' ? n : 0;
}

/*
 * The usermodehelper.PARAM=PURPOSE:VALUE,... words of @text, a file of
 * the command line's (a comment line left out), with the variable each
 * line assigns in a file of sh, GRUB's.  Returns how many items.
 */
static int scan_cmdline(struct umh_settings *ss, const char *file, char *text)
{
	bool sh = !strncmp(file, "/etc/default/grub", 17);
	char *line, *s, *w, *list, *items, *item, *colon;
	const char *param, *var = NULL;
	size_t n, var_len;
	int p, found = 0;

	for (s = text; (line = strsep(&s, "\n")); ) {
		if (line[strspn(line, " \t")] == '#')
			continue;
		var_len = sh ? assigned(line, &var) : 0;
		for (w = line; (w = strstr(w, "usermodehelper.")); w += n) {
			w += strlen("usermodehelper.");
			n = strcspn(w, "=");
			param = w[n] == '=' ? param_of(w, n) : NULL;
			if (!param)
				continue;
			w += n + 1;
			n = strcspn(w, " \t\"'");
			/* PURPOSE:VALUE,...: a malformed item is check's. */
			items = list = umh_xasprintf("%.*s", (int)n, w);
			while ((item = strsep(&items, ","))) {
				colon = strchr(item, ':');
				if (!colon)
					continue;
				*colon = '\0';
				p = umh_purpose_lookup(item);
				if (p < 0)
					continue;
				add(ss, p, file, var, var_len, param, colon + 1,
				    strlen(colon + 1));
				found++;
			}
			free(list);
		}
	}
	return found;
}

/* The kernel.usermodehelper.[PURPOSE.]PARAM = VALUE lines of @text. */
static int scan_sysctl(struct umh_settings *ss, const char *file, char *text)
{
	char *line, *s, *key, *dot;
	const char *param;
	int p, found = 0;
	size_t n;

	for (s = text; (line = strsep(&s, "\n")); ) {
		line += strspn(line, " \t");
		line += *line == '-';
		if (strncmp(line, "kernel.usermodehelper.", 22))
			continue;
		key = line + 22;
		n = strcspn(key, " \t=");
		dot = memchr(key, '.', n);
		if (dot) {
			*dot = '\0';
			p = umh_purpose_lookup(key);
			param = param_of(dot + 1, n - (dot + 1 - key));
		} else {
			p = UMH_ALL;
			param = param_of(key, n);
		}
		if (p < 0 || !param)
			continue;
		key += n;
		key += strspn(key, " \t=");
		/* Two words, as the kernel prints a mask: one space. */
		for (dot = key; (dot = strchr(dot, '\t')); )
			*dot = ' ';
		add(ss, p, file, NULL, 0, param, key, strcspn(key, "\n#"));
		found++;
	}
	return found;
}

/* The glob scandir() takes the files of a directory of @sources by. */
static const char *scan_glob;

static int scan_filter(const struct dirent *d)
{
	return d->d_name[0] != '.' && !fnmatch(scan_glob, d->d_name, 0);
}

/* @file, read in the root (umh_in_root()), as the root's system names it. */
static void scan_file(const char *root, struct umh_settings *ss,
		      const char *file, enum source_kind kind)
{
	char *text;
	size_t len;

	if (umh_read_in_root(root, file, CONF_MAX, &text, &len))
		return;
	if ((kind == SRC_CMDLINE ? scan_cmdline : scan_sysctl)(ss, file, text))
		ss->files++;
	free(text);
}

/* Does a sysctl.d directory before source @i have a file @name? */
static bool replaced(const char *root, size_t i, const char *name)
{
	struct stat st;
	bool there = false;
	char *path, *file;
	size_t k;

	for (k = 0; k < i && !there; k++) {
		if (sources[k].kind != SRC_SYSCTL || !sources[k].glob)
			continue;
		file = umh_xasprintf("%s/%s", sources[k].path, name);
		path = umh_in_root(root, file, true);
		there = path && !stat(path, &st);
		free(path);
		free(file);
	}
	return there;
}

/**
 * umh_settings_scan - every bound and id the next boot is given, and where
 * @root: the root, as --root gives it
 * @ss: filled, in the order the boot applies them; umh_settings_free()
 *	frees it
 *
 * A file that cannot be read sets nothing.
 */
void umh_settings_scan(const char *root, struct umh_settings *ss)
{
	struct dirent **names;
	char *dir, *file;
	size_t i;
	int n, k;

	*ss = (struct umh_settings){ 0 };
	for (i = 0; i < ARRAY_SIZE(sources); i++) {
		if (!sources[i].glob) {
			scan_file(root, ss, sources[i].path, sources[i].kind);
			continue;
		}
		dir = umh_in_root(root, sources[i].path, true);
		scan_glob = sources[i].glob;
		n = dir ? scandir(dir, &names, scan_filter, alphasort) : -1;
		free(dir);
		for (k = 0; k < n; k++) {
			file = umh_xasprintf("%s/%s", sources[i].path,
					     names[k]->d_name);
			if (sources[i].kind != SRC_SYSCTL ||
			    !replaced(root, i, names[k]->d_name))
				scan_file(root, ss, file, sources[i].kind);
			free(file);
			free(names[k]);
		}
		if (n >= 0)
			free(names);
	}
}

void umh_settings_free(struct umh_settings *ss)
{
	size_t i;

	for (i = 0; i < ss->n; i++) {
		free(ss->s[i].file);
		free(ss->s[i].var);
		free(ss->s[i].value);
	}
	free(ss->s);
	*ss = (struct umh_settings){ 0 };
}

/*
 * Is GRUB told to make no recovery entry: GRUB_DISABLE_RECOVERY=true, in
 * /etc/default/grub or a file of grub.d but @skip, as update-grub
 * sources them?  The file that says so, as the root's system names it,
 * or NULL; the caller frees it.
 */
char *umh_grub_no_recovery(const char *root, const char *skip)
{
	static const char key[] = "GRUB_DISABLE_RECOVERY=";
	char *found = NULL, *path, *text, *line, *s, *v;
	struct dirent **names;
	char *files[64];
	size_t len, nfiles = 0, i;
	int n, k;

	files[nfiles++] = umh_xstrdup("/etc/default/grub");
	path = umh_in_root(root, "/etc/default/grub.d", true);
	scan_glob = "*.cfg";
	n = path ? scandir(path, &names, scan_filter, alphasort) : -1;
	free(path);
	for (k = 0; k < n; k++) {
		if (nfiles < ARRAY_SIZE(files))
			files[nfiles++] = umh_xasprintf("/etc/default/grub.d/%s",
							names[k]->d_name);
		free(names[k]);
	}
	if (n >= 0)
		free(names);
	/* The last assignment wins, as in sh. */
	for (i = 0; i < nfiles; i++) {
		if ((skip && !strcmp(files[i], skip)) ||
		    umh_read_in_root(root, files[i], CONF_MAX, &text, &len))
			continue;
		for (s = text; (line = strsep(&s, "\n")); ) {
			line += strspn(line, " \t");
			if (!strncmp(line, "export ", 7))
				line += 7 + strspn(line + 7, " \t");
			if (strncmp(line, key, strlen(key)))
				continue;
			v = line + strlen(key);
			v += *v == '"' || *v == '\'';
			free(found);
			found = !strncmp(v, "true", 4) &&
				strchr("\"' \t#;", v[4]) ?
				umh_xstrdup(files[i]) : NULL;
		}
		free(text);
	}
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	return found;
}
