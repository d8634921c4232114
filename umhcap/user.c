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
 *
 * Core dumps: systemd-coredump's helper hands each core to a socket that
 * Debian's unit opens to root alone (SocketMode=0600).  A helper of its
 * own user would need CAP_DAC_OVERRIDE to reach it, and that capability
 * writes every file on the machine.  So user opens the socket to the
 * helpers' group instead, with a drop-in of the unit for the boots to
 * come and a chown of the socket for this one: before the helpers change
 * user, and closed again after they are root once more.  It does so only
 * for a group no other user is in: any process of the group can hand the
 * journal a core and its record.
 *
 * With --json, one object once all is written (or, with -n, would be):
 * each purpose's ids before and after, and what was done to the socket;
 * none after an error.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		*pw = umh_getpwuid(*uid);
		return 0;
	}
	*pw = umh_getpwnam(user);
	if (!*pw) {
		umh_unknown_name("user", user);
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
	gr = umh_getgrnam(group);
	if (!gr) {
		umh_unknown_name("group", group);
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

/*
 * USER[:GROUP], GROUP USER's primary group without it; *@name is the
 * user's name in passwd, or NULL.
 */
static int resolve(const char *ident, struct umh_ident *to, char **name)
{
	char *user = umh_xstrdup(ident), *group = strchr(user, ':');
	const struct passwd *pw;
	int ret = -1;

	if (group)
		*group++ = '\0';
	if (!resolve_user(user, &to->uid, &pw))
		ret = group ? resolve_group(group, &to->gid) :
			      primary_group(pw, user, to);
	*name = pw && !ret ? umh_xstrdup(pw->pw_name) : NULL;
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
	/* -n says only what it would write: JSON says that at the end. */
	if (a->json && a->dry_run)
		return 0;
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
	if (!ret && !a->json)
		printf("%s: %s %s%s%s\n", umh_purpose_name(p),
		       a->dry_run ? "would run as" : "runs as", who,
		       memcmp(old, new, sizeof(old)) ? "" :
		       " already; unchanged", under);
	free(who);
	free(under);
	return ret;
}

#define CD_UNIT		"systemd-coredump.socket"
#define CD_DROPIN_DIR	"/etc/systemd/system/" CD_UNIT ".d"
#define CD_DROPIN	CD_DROPIN_DIR "/umhcap-user.conf"
#define CD_SOCKET	"/run/systemd/coredump"

/* What user did to the socket, or with -n would do, for --json. */
struct cd_done {
	const char *action;	/* "open", "close"; NULL: left as it was */
	char *dropin;		/* the drop-in written or removed */
	uint32_t gid;		/* "open": the helpers' group */
	bool already;		/* "open": the drop-in said so already */
	bool live;		/* the live socket changed too */
};

/* Whether the system under @root has systemd-coredump's socket unit. */
static bool has_cd_unit(const char *root)
{
	static const char *const units[] = {
		"/usr/lib/systemd/system/" CD_UNIT,
		"/lib/systemd/system/" CD_UNIT,
	};
	char *path;
	size_t i;
	bool there = false;

	for (i = 0; i < ARRAY_SIZE(units) && !there; i++) {
		path = umh_in_root(root, units[i], true);
		there = path && !access(path, F_OK);
		free(path);
	}
	return there;
}

/* Whether no user but @user is in group @gid, as a member or by passwd. */
static bool group_of_its_own(uint32_t gid, const char *user)
{
	const struct group *gr = umh_getgrgid(gid);
	const struct passwd *pw;
	bool own = gr && gid;
	char **m;

	for (m = gr ? gr->gr_mem : NULL; own && m && *m; m++)
		own = user && !strcmp(*m, user);
	while ((pw = umh_pw_next()))
		own = own && (pw->pw_gid != gid ||
			      (user && !strcmp(pw->pw_name, user)));
	return own;
}

/* Whether there is a live socket: -n says that it would change it. */
static bool live_socket(const char *root)
{
	char *path = umh_in_root(root, CD_SOCKET, false);
	struct stat st;
	bool live = path && !lstat(path, &st) && S_ISSOCK(st.st_mode);

	free(path);
	return live;
}

/*
 * The live socket's group and mode, if there is one: a change of the
 * unit takes effect only when the socket is made again.
 */
static int chmod_socket(const char *root, uint32_t gid, mode_t mode,
			bool *live)
{
	char *path = umh_in_root(root, CD_SOCKET, false);
	int ret = 0;

	*live = live_socket(root);
	if (*live && (lchown(path, -1, gid) || chmod(path, mode))) {
		umh_err("cannot give %s group %u, mode %04o: %s", path, gid,
			(unsigned int)mode, strerror(errno));
		ret = -1;
	}
	free(path);
	return ret;
}

/*
 * Open the socket to @to's group, as *@cd says; 0, or -1 after an error
 * (printed).
 */
static int open_cd_socket(const struct umh_args *a,
			  const struct umh_ident *to, const char *user,
			  struct cd_done *cd)
{
	char *path = umh_xasprintf("%s" CD_DROPIN, a->root), *real;
	char *text = umh_xasprintf("# Written by \"umhcap user -p coredump\": the core dump helpers run as\n"
				   "# uid %u, gid %u, and reach this socket by their group, with no\n"
				   "# capability.  \"umhcap user -p coredump root\" removes this file.\n"
				   "[Socket]\nSocketGroup=%u\nSocketMode=0660\n",
				   to->uid, to->gid, to->gid);
	char *under = umh_under_root(), *old = NULL;
	size_t len;
	bool live = false, same, own = group_of_its_own(to->gid, user);
	int ret = 0;

	real = umh_in_root(a->root, CD_DROPIN, true);
	same = real && !umh_read_all(real, 4096, &old, &len) &&
	       !strcmp(old, text);
	if (!real) {
		umh_err("cannot write %s: %s", path, strerror(errno));
		ret = -1;
	} else if (!own) {
		umh_warn("coredump: " CD_UNIT " is left to root: other users are in group %u, and it would let them hand the journal a core; give the helpers a group of their own, or cap_dac_override to reach it",
			 to->gid);
	} else if (a->dry_run) {
		live = live_socket(a->root);
		if (!a->json)
			printf("coredump: would open " CD_UNIT " to group %u%s: %s%s\n",
			       to->gid, same ? " (already so)" : "", path,
			       under);
	} else if (chmod_socket(a->root, to->gid, 0660, &live)) {
		ret = -1;
	} else if (!same && (umh_mkdirs(a->root, CD_DROPIN_DIR) ||
			     umh_replace(real, text, strlen(text), 0644, -1,
					 -1))) {
		/* The socket as the unit still makes it. */
		chmod_socket(a->root, 0, 0600, &live);
		ret = -1;
	} else if (!a->json) {
		printf("coredump: " CD_UNIT " is open to group %u%s: %s%s%s\n",
		       to->gid, same ? " already" : "", path, under,
		       live ? ", and " CD_SOCKET " now" : "");
	}
	if (!ret && own)
		*cd = (struct cd_done){ .action = "open",
					.dropin = umh_xstrdup(path),
					.gid = to->gid, .already = same,
					.live = live };
	free(old);
	free(under);
	free(text);
	free(real);
	free(path);
	return ret;
}

/*
 * Back to root's alone, if user opened it, as *@cd says; 0, or -1 after
 * an error.
 */
static int close_cd_socket(const struct umh_args *a, struct cd_done *cd)
{
	char *path = umh_xasprintf("%s" CD_DROPIN, a->root);
	/* Read through a link of its own, which is removed, not followed. */
	char *real = umh_in_root(a->root, CD_DROPIN, true);
	char *link = umh_in_root(a->root, CD_DROPIN, false);
	char *under = umh_under_root();
	bool live = false, there = real && link && !access(real, F_OK);
	int ret = 0;

	if (!there) {
		/* Not user's doing: nothing to undo. */
	} else if (a->dry_run) {
		live = live_socket(a->root);
		if (!a->json)
			printf("coredump: would close " CD_UNIT " to all but root: remove %s%s\n",
			       path, under);
	} else if (unlink(link)) {
		umh_err("cannot remove %s: %s", path, strerror(errno));
		ret = -1;
	} else if (chmod_socket(a->root, 0, 0600, &live)) {
		ret = -1;
	} else if (!a->json) {
		printf("coredump: " CD_UNIT " is root's alone again: removed %s%s%s\n",
		       path, under, live ? ", and " CD_SOCKET " now" : "");
	}
	if (!ret && there)
		*cd = (struct cd_done){ .action = "close",
					.dropin = umh_xstrdup(path),
					.live = live };
	free(under);
	free(link);
	free(real);
	free(path);
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

/*
 * --json: {"version":2,"dry_run":..,"purposes":[{"purpose":..,
 * "before":{"uid":..,"gid":..},"after":{..},"changed":..}],
 * "coredump_socket":{..} or null}.
 */
static void user_json(const struct umh_args *a, const struct umh_state *st,
		      const struct umh_ident *to, const struct cd_done *cd)
{
	const struct umh_purpose_info *u;
	const struct umh_ident *from;
	const char *sep = "";

	umh_print_json_begin();
	printf(",\"dry_run\":%s,\"purposes\":[",
	       a->dry_run ? "true" : "false");
	umh_for_each_purpose(u) {
		if (!a->sel[u->id])
			continue;
		from = &st->id[u->id];
		printf("%s\n  {\"purpose\":\"%s\"", sep, u->name);
		umh_print_json_ident("before", from);
		umh_print_json_ident("after", to);
		printf(",\"changed\":%s}",
		       from->uid != to->uid || from->gid != to->gid ?
		       "true" : "false");
		sep = ",";
	}
	printf("\n],\"coredump_socket\":");
	if (!cd->action) {
		printf("null}\n");
		return;
	}
	printf("{\"action\":\"%s\"", cd->action);
	umh_print_json_field("dropin", cd->dropin);
	if (!strcmp(cd->action, "open"))
		printf(",\"gid\":%u,\"already\":%s", cd->gid,
		       cd->already ? "true" : "false");
	printf(",\"socket_now\":%s}}\n", cd->live ? "true" : "false");
}

int cmd_user(const struct umh_args *a)
{
	const struct umh_purpose_info *u;
	bool wrote[UMH_NR] = { false };
	bool cd = a->sel[UMH_COREDUMP] && has_cd_unit(a->root);
	struct cd_done done = { NULL };
	struct umh_ident to;
	struct umh_state st;
	char *name = NULL;
	int ret = UMH_EXIT_OK;

	if (resolve(a->ident, &to, &name) || load(a->root, &st) ||
	    (cd && to.uid && open_cd_socket(a, &to, name, &done))) {
		umh_nothing_written("user");
		free(name);
		return UMH_EXIT_ERROR;
	}
	free(name);
	umh_for_each_purpose(u)
		if (a->sel[u->id] &&
		    set_purpose(a, u->id, &st.id[u->id], &to, &wrote[u->id])) {
			free(done.dropin);
			return umh_write_failed("user", "changed", wrote, u);
		}
	if (cd && !to.uid && close_cd_socket(a, &done))
		ret = UMH_EXIT_PARTIAL;
	else if (a->json)
		user_json(a, &st, &to, &done);
	free(done.dropin);
	return ret;
}
