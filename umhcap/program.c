// SPDX-License-Identifier: GPL-2.0
/*
 * The program the kernel is configured to start for a purpose, as its
 * knob says, and the measured row of that program:
 *
 *  modprobe	/proc/sys/kernel/modprobe
 *  coredump	/proc/sys/kernel/core_pattern, a program only after '|'
 *  uevent	/sys/kernel/uevent_helper; a kernel without the file (as
 *		Debian's, built without CONFIG_UEVENT_HELPER) starts none
 *  power	/proc/sys/kernel/poweroff_cmd
 *
 * The first word is the program: the rest are its arguments.  A purpose
 * with no knob here (request_key's program is fixed, release agents are
 * per hierarchy, /linuxrc is the initrd's), or whose knob is not there
 * under the root, is UMH_PROGRAM_UNKNOWN, and check judges it by its
 * purpose's row, as before it read any knob.
 *
 * request_key's program, request-key, runs a handler for each key type,
 * as /etc/request-key.conf and /etc/request-key.d/\*.conf say: those
 * have rows of their own (umh_handlers).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "umhcap.h"

#define KNOB_MAX	4096

static const struct {
	int purpose;
	const char *knob;
	const char *dir;	/* without the knob, but with this: none */
	bool pipe;		/* a program only after '|' */
} knobs[] = {
	{ UMH_MODPROBE,	"/proc/sys/kernel/modprobe",	NULL,		false },
	{ UMH_COREDUMP,	"/proc/sys/kernel/core_pattern", NULL,		true },
	{ UMH_UEVENT,	"/sys/kernel/uevent_helper",	"/sys/kernel",	false },
	{ UMH_POWER,	"/proc/sys/kernel/poweroff_cmd", NULL,		false },
};

static bool is_dir(const char *root, const char *dir)
{
	char *path = umh_in_root(root, dir, true);
	struct stat st;
	bool ret = path && !stat(path, &st) && S_ISDIR(st.st_mode);

	free(path);
	return ret;
}

/*
 * @prog for @purpose under @root.  Returns 0, or -1 after an error
 * (printed) reading a knob that is there.
 */
int umh_program_read(const char *root, int purpose, struct umh_program *prog)
{
	char *path, *text, *s;
	size_t i, len, n;
	int err;

	*prog = (struct umh_program){ .state = UMH_PROGRAM_UNKNOWN };
	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		if (knobs[i].purpose == purpose)
			break;
	if (i == ARRAY_SIZE(knobs))
		return 0;
	prog->knob = knobs[i].knob;
	path = umh_xasprintf("%s%s", root, knobs[i].knob);
	err = umh_read_in_root(root, knobs[i].knob, KNOB_MAX, &text, &len);
	if (err == -ENOENT) {
		free(path);
		if (knobs[i].dir && is_dir(root, knobs[i].dir)) {
			prog->state = UMH_PROGRAM_NONE;
			prog->why = "this kernel has no such file";
		}
		return 0;
	}
	if (err) {
		umh_err("cannot read %s: %s", path, strerror(-err));
		free(path);
		return -1;
	}
	free(path);
	s = text;
	if (knobs[i].pipe) {
		if (*s != '|') {
			prog->state = UMH_PROGRAM_NONE;
			prog->why = "not a pipe: the kernel writes core files itself";
			free(text);
			return 0;
		}
		s++;
	}
	s += strspn(s, " \t");
	n = strcspn(s, " \t\n");
	if (!n) {
		prog->state = UMH_PROGRAM_NONE;
		prog->why = "empty";
	} else {
		prog->state = UMH_PROGRAM_SET;
		prog->path = umh_xasprintf("%.*s", (int)n, s);
	}
	free(text);
	return 0;
}

void umh_program_free(struct umh_program *prog)
{
	free(prog->path);
	prog->path = NULL;
}

/* Is @a the file @b is, under @root: the same name, or the same inode? */
static bool same_program(const char *root, const char *a, const char *b)
{
	struct stat sa, sb;
	char *pa, *pb;
	bool same;

	if (!strcmp(a, b))
		return true;
	/* Its symlinks are the root's: resolved in it, not on this machine. */
	pa = umh_root_path(root, a);
	pb = umh_root_path(root, b);
	same = pa && pb && !stat(pa, &sa) && !stat(pb, &sb) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	free(pb);
	free(pa);
	return same;
}

/*
 * The measured row of @prog's program for @purpose: of its helpers as
 * their own users first when @own_user, then of Debian 12 as installed,
 * then of busybox systems.  NULL if that program was never measured.
 */
const struct umh_measured *umh_program_row(const char *root, int purpose,
					   const struct umh_program *prog,
					   bool own_user)
{
	static const enum umh_measured_conf order[] = {
		UMH_CONF_INSTALLED_USER, UMH_CONF_INSTALLED, UMH_CONF_BUSYBOX,
	};
	const struct umh_measured *m;
	size_t i;

	for (i = own_user ? 0 : 1; i < ARRAY_SIZE(order); i++) {
		m = umh_measured_find(purpose, order[i]);
		if (m && same_program(root, m->program, prog->path))
			return m;
	}
	return NULL;
}

/* The handler row of @program on @conf, by its path or the file it is. */
const struct umh_handler *umh_handler_row(const char *root,
					  const char *program,
					  enum umh_measured_conf conf)
{
	size_t i;

	for (i = 0; i < umh_handlers_nr; i++)
		if (umh_handlers[i].conf == conf &&
		    same_program(root, umh_handlers[i].program, program))
			return &umh_handlers[i];
	return NULL;
}

#define KEY_CONF	"/etc/request-key.conf"
#define KEY_CONF_DIR	"/etc/request-key.d"

/* Each line of @file (under @root) that names a program, for @fn. */
static void key_conf(const char *root, const char *file,
		     umh_key_handler_fn fn, void *arg)
{
	char *path = umh_in_root(root, file, true);
	char *text, *line, *s, *f[5];
	size_t len, i;

	if (!path || umh_read_all(path, KNOB_MAX * 16, &text, &len)) {
		free(path);
		return;
	}
	free(path);
	for (s = text; (line = strsep(&s, "\n")); ) {
		/* OP TYPE DESCRIPTION CALLOUT-INFO PROGRAM ARG... */
		for (i = 0; i < ARRAY_SIZE(f); i++) {
			line += strspn(line, " \t");
			f[i] = line;
			line += strcspn(line, " \t");
			if (*line)
				*line++ = '\0';
		}
		if (*f[0] && *f[0] != '#' && *f[4])
			fn(arg, f[1], f[4], file);
	}
	free(text);
}

static int conf_file(const struct dirent *d)
{
	return d->d_name[0] != '.' && !fnmatch("*.conf", d->d_name, 0);
}

/*
 * The handlers request-key's configuration under @root names: @fn gets
 * each line's key type, program and file, from /etc/request-key.d's
 * files in name order, then /etc/request-key.conf, as request-key reads
 * them.  A file that cannot be read names none.
 */
void umh_key_handlers(const char *root, umh_key_handler_fn fn, void *arg)
{
	struct dirent **names;
	char *dir, *file;
	int n, i;

	dir = umh_in_root(root, KEY_CONF_DIR, true);
	n = dir ? scandir(dir, &names, conf_file, alphasort) : -1;
	free(dir);
	for (i = 0; i < n; i++) {
		file = umh_xasprintf(KEY_CONF_DIR "/%s", names[i]->d_name);
		key_conf(root, file, fn, arg);
		free(file);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	key_conf(root, KEY_CONF, fn, arg);
}
