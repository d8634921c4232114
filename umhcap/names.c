// SPDX-License-Identifier: GPL-2.0
/*
 * Users and groups, by name and by id.  For / they are this machine's,
 * through NSS, as getent shows them.  Under --root they are the root's
 * own etc/passwd and etc/group: a name must mean what it means to the
 * system whose helpers will run as it, not to the one umhcap runs on.
 */
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

static const char *names_root = "";
/* umh_pw_next()'s place: NSS's own, or the root's etc/passwd */
static bool pw_started;
static FILE *pw_file;

void umh_names_root(const char *root)
{
	names_root = root;
}

/*
 * No user or group @name (@what: "user" or "group", whose file is
 * "passwd" or "group"): say where umhcap looked, and what to give.
 */
/*
 * "; it is the user ...": where @name is a user the measured table runs
 * a purpose's helpers as, which package makes it and how to make it;
 * "" for any other.  The caller frees it.
 */
static char *table_user(const char *name)
{
	size_t i;

	for (i = 0; i < umh_measured_nr; i++) {
		const struct umh_measured *m = &umh_measured[i];

		if (!m->user || strcmp(m->user, name))
			continue;
		/* A package of Debian's own user, as systemd-coredump's. */
		if (!strcmp(m->package, name))
			return umh_xasprintf("; it is the user umhcap's table runs %s's helpers as (umhcap policy), which %s's package makes: apt-get install %s",
					     umh_purpose_name(m->purpose),
					     name, m->package);
		return umh_xasprintf("; it is the user umhcap's table runs %s's helpers as (umhcap policy), which umhcap's package makes: make it with: systemd-sysusers%s%s umhcap.conf",
				     umh_purpose_name(m->purpose),
				     *names_root ? " --root " : "", names_root);
	}
	return umh_xstrdup("");
}

void umh_unknown_name(const char *what, const char *name)
{
	bool user = !strcmp(what, "user");
	const char *file = user ? "passwd" : "group";
	char *table = user ? table_user(name) : umh_xstrdup("");

	if (!*names_root)
		umh_err("unknown %s \"%s\": this machine's %s has no such %s; give a %s it knows (getent %s), or a%s%s",
			what, name, user ? "passwd" : "group file", what, what,
			file, user ? " uid" : " gid", table);
	else
		umh_err("unknown %s \"%s\": %s/etc/%s has no such %s (under --root, names are the root's); give a %s it knows, or a%s%s",
			what, name, names_root, file, what, what,
			user ? " uid" : " gid", table);
	free(table);
}

/* The root's etc/@file, read in the root (umh_in_root()); or NULL. */
static FILE *open_db(const char *file)
{
	char *rel = umh_xasprintf("/etc/%s", file);
	char *path = umh_in_root(names_root, rel, true);
	FILE *f = path ? fopen(path, "re") : NULL;

	free(path);
	free(rel);
	return f;
}

/* The passwd entry of @name, or of @uid if @name is NULL; or NULL. */
static const struct passwd *pw_find(const char *name, uint32_t uid)
{
	const struct passwd *pw = NULL;
	FILE *f;

	if (!*names_root)
		return name ? getpwnam(name) : getpwuid(uid);
	f = open_db("passwd");
	while (f && (pw = fgetpwent(f)))
		if (name ? !strcmp(pw->pw_name, name) : pw->pw_uid == uid)
			break;
	if (f)
		fclose(f);
	return pw;
}

/* The group entry of @name, or of @gid if @name is NULL; or NULL. */
static const struct group *gr_find(const char *name, uint32_t gid)
{
	const struct group *gr = NULL;
	FILE *f;

	if (!*names_root)
		return name ? getgrnam(name) : getgrgid(gid);
	f = open_db("group");
	while (f && (gr = fgetgrent(f)))
		if (name ? !strcmp(gr->gr_name, name) : gr->gr_gid == gid)
			break;
	if (f)
		fclose(f);
	return gr;
}

const struct passwd *umh_getpwnam(const char *name)
{
	return pw_find(name, 0);
}

const struct passwd *umh_getpwuid(uint32_t uid)
{
	return pw_find(NULL, uid);
}

const struct group *umh_getgrnam(const char *name)
{
	return gr_find(name, 0);
}

const struct group *umh_getgrgid(uint32_t gid)
{
	return gr_find(NULL, gid);
}

/* Each passwd entry in turn, then NULL, after which it starts again. */
const struct passwd *umh_pw_next(void)
{
	const struct passwd *pw;

	if (!pw_started) {
		pw_started = true;
		if (*names_root)
			pw_file = open_db("passwd");
		else
			setpwent();
	}
	if (*names_root)
		pw = pw_file ? fgetpwent(pw_file) : NULL;
	else
		pw = getpwent();
	if (!pw) {
		if (pw_file)
			fclose(pw_file);
		else if (!*names_root)
			endpwent();
		pw_file = NULL;
		pw_started = false;
	}
	return pw;
}
