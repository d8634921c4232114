// SPDX-License-Identifier: GPL-2.0
/*
 * user: run the helpers of purposes as a user and group of their own, or
 * as root again.  USER and GROUP, names or numbers, are resolved, and the
 * identity of every purpose read, before anything is written.
 *
 * Of each purpose the gid is written first, then the uid, so that its
 * helpers never run as the user with root's group in between; back to
 * root, the uid first, for the same reason.  What is already so is not
 * written.
 */
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

enum { UID, GID };

static const char *const id_files[] = { [UID] = "uid", [GID] = "gid" };

static bool is_number(const char *s)
{
	return *s && !s[strspn(s, "0123456789")];
}

/* A user or group given by number: an id the kernel takes. */
static int parse_id(const char *what, const char *s, uint32_t *id)
{
	unsigned long long v = strtoull(s, NULL, 10);

	if (strlen(s) <= 10 && v < UINT32_MAX) {
		*id = v;
		return 0;
	}
	umh_err("bad %s \"%s\": an id is a number below %u", what, s,
		UINT32_MAX);
	return -1;
}

/* @user's uid, and, where passwd knows it, its primary group; or NULL. */
static int resolve_user(const char *user, uint32_t *uid,
			const struct passwd **pw)
{
	if (is_number(user)) {
		if (parse_id("user", user, uid))
			return -1;
		*pw = getpwuid(*uid);
		return 0;
	}
	*pw = getpwnam(user);
	if (!*pw) {
		umh_err("unknown user \"%s\": this machine's passwd has no such user; give a user it knows (getent passwd), or a uid",
			user);
		return -1;
	}
	*uid = (*pw)->pw_uid;
	return 0;
}

static int resolve_group(const char *group, uint32_t *gid)
{
	const struct group *gr;

	if (is_number(group))
		return parse_id("group", group, gid);
	gr = getgrnam(group);
	if (!gr) {
		umh_err("unknown group \"%s\": this machine's group file has no such group; give a group it knows (getent group), or a gid",
			group);
		return -1;
	}
	*gid = gr->gr_gid;
	return 0;
}

/* *@pw's primary group, for a user given without a group. */
static int primary_group(const struct passwd *pw, const char *user,
			 struct umh_ident *to)
{
	if (pw) {
		to->gid = pw->pw_gid;
		return 0;
	}
	umh_err("uid %u is in no passwd entry, so it has no primary group: name one, %s:GROUP",
		to->uid, user);
	return -1;
}

/* USER[:GROUP], GROUP USER's primary group without it. */
static int resolve(const char *ident, struct umh_ident *to)
{
	char *user = umh_xstrdup(ident), *group = strchr(user, ':');
	const struct passwd *pw;
	int ret = -1;

	if (group)
		*group++ = '\0';
	if (!resolve_user(user, &to->uid, &pw))
		ret = group ? resolve_group(group, &to->gid) :
			      primary_group(pw, user, to);
	free(user);
	return ret;
}

/* Write id @i of purpose @p, from @from to @to, if they differ. */
static int set_id(const struct umh_args *a, int p, int i, uint32_t from,
		  uint32_t to, bool *wrote)
{
	char path[PATH_MAX];
	int ret;

	if (from == to)
		return 0;
	if (umh_path(path, sizeof(path), a->root, p, id_files[i]))
		return -1;
	ret = umh_id_set(path, i == GID, from, to, a->dry_run);
	if (ret != -1 && !a->dry_run)
		*wrote = true;
	return ret ? -1 : 0;
}

/*
 * Move the helpers of @p from @from to @to.  Returns 0, or -1 after an
 * error (printed); *@wrote once something was written.
 */
static int set_purpose(const struct umh_args *a, int p,
		       const struct umh_ident *from,
		       const struct umh_ident *to, bool *wrote)
{
	const uint32_t old[] = { [UID] = from->uid, [GID] = from->gid };
	const uint32_t new[] = { [UID] = to->uid, [GID] = to->gid };
	int first = to->uid ? GID : UID;
	char *who = umh_ident_format(to), *under = umh_under_root();
	int ret;

	ret = set_id(a, p, first, old[first], new[first], wrote) ||
	      set_id(a, p, !first, old[!first], new[!first], wrote) ? -1 : 0;
	if (!ret)
		printf("%s: %s %s%s%s\n", umh_purpose_name(p),
		       a->dry_run ? "would run as" : "runs as", who,
		       memcmp(old, new, sizeof(old)) ? "" :
		       " already; unchanged", under);
	free(who);
	free(under);
	return ret;
}

/* The bounds and identities; the kernel must have identities. */
static int load(const char *root, struct umh_state *st)
{
	if (umh_load(root, st))
		return -1;
	if (st->idents)
		return 0;
	umh_no_idents(root);
	return -1;
}

int cmd_user(const struct umh_args *a)
{
	const struct umh_purpose_info *u;
	bool wrote[UMH_NR] = { false };
	struct umh_ident to;
	struct umh_state st;

	if (resolve(a->ident, &to) || load(a->root, &st)) {
		umh_nothing_written("user");
		return UMH_EXIT_ERROR;
	}
	umh_for_each_purpose(u)
		if (a->sel[u->id] &&
		    set_purpose(a, u->id, &st.id[u->id], &to, &wrote[u->id]))
			return umh_write_failed("user", "changed", wrote, u);
	return UMH_EXIT_OK;
}
