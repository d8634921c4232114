// SPDX-License-Identifier: GPL-2.0
/*
 * boot: hand the learned bounds to the boot loader, so that they hold
 * from the first helper of the next boot.  The parameters are what
 * export --learned --cmdline prints (cmdline.c), with the saved boots
 * merged; they go
 *
 *  --grub: into /etc/default/grub.d/umhcap.cfg, umhcap's own file,
 *	rewritten whole each time, which update-grub sources as POSIX sh
 *	after /etc/default/grub: it appends them to
 *	GRUB_CMDLINE_LINUX_DEFAULT, which Debian's /etc/grub.d/10_linux
 *	puts on the normal entries and leaves off the recovery ones, so
 *	that recovery mode starts its helpers with open bounds: the way
 *	back when a bound turns out too narrow;
 *  --kernel-install: into /etc/kernel/cmdline, the command line
 *	kernel-install gives the kernels it installs: every usermodehelper.*
 *	item in it is replaced by them, and all else kept byte for byte.
 *	Without the file, it is made from what kernel-install would use:
 *	/usr/lib/kernel/cmdline, or /proc/cmdline but for its BOOT_IMAGE=
 *	and initrd= items.
 *
 * Without either option, --kernel-install where /etc/kernel/cmdline is,
 * --grub elsewhere.  Either file is replaced in one step (file.c), with
 * its mode and owner; nothing is written when nothing was learned, nor
 * when every bound learned is open: then there is nothing to narrow, and
 * the parameters would hold no bound (cmdline.c leaves open ones out).
 *
 * --remove undoes it: umhcap.cfg removed, and every usermodehelper.* item
 * taken out of /etc/kernel/cmdline, all else kept byte for byte; with
 * --grub or --kernel-install, only that one.
 *
 * With --json, one object once the file is written or removed (or, with
 * -n, would be): which file, and what it holds; none after an error.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "umhcap.h"

#define GRUB_DIR	"/etc/default/grub.d"
#define GRUB_CFG	GRUB_DIR "/umhcap.cfg"
#define KI_CMDLINE	"/etc/kernel/cmdline"
#define KI_USR_CMDLINE	"/usr/lib/kernel/cmdline"
#define CMDLINE_MAX	(1 << 16)

/* What to do next, after writing or removing either file. */
#define GRUB_NEXT	"run update-grub, then reboot"
#define KI_NEXT		"run kernel-install add $(uname -r) /boot/vmlinuz-$(uname -r), or reinstall the kernel package, then reboot"
#define NEXT_BOUNDS	": the bounds hold from the first helper of that boot"
#define NEXT_OPEN	": helpers start with open bounds from that boot"
#define NEXT_LEFT	": what is still set elsewhere (above) holds from that boot; helpers start with open bounds only once it is gone too"

/* ---- what else sets the next boot's bounds ---- */

/*
 * Every bound and id of the next boot set elsewhere than in @skip and
 * @skip2 (files as the root's system names them; NULL: none), which
 * boot wrote or removed, or would: in force beside boot's, or after
 * boot --remove.
 */
static void elsewhere(const char *root, const char *skip, const char *skip2,
		      struct umh_settings *ss)
{
	size_t i, n = 0;

	umh_settings_scan(root, ss);
	for (i = 0; i < ss->n; i++) {
		struct umh_setting *x = &ss->s[i];

		if ((skip && !strcmp(x->file, skip)) ||
		    (skip2 && !strcmp(x->file, skip2))) {
			free(x->file);
			free(x->var);
			free(x->value);
			continue;
		}
		ss->s[n++] = *x;
	}
	ss->n = n;
}

/* GRUB_CMDLINE_LINUX: the recovery entries are given it too. */
static bool on_recovery(const struct umh_setting *x)
{
	return x->var && !strcmp(x->var, "GRUB_CMDLINE_LINUX");
}

/*
 * @title, then a line per file (and sh variable) of @ss: what it sets,
 * "modprobe bset 0x10000, all uid 990".  Nothing without any.
 */
static void text_elsewhere(const struct umh_settings *ss, const char *title)
{
	const struct umh_setting *x, *prev = NULL;
	size_t i;

	if (!ss->n)
		return;
	printf("%s\n", title);
	for (i = 0; i < ss->n; i++) {
		x = &ss->s[i];
		if (prev && !strcmp(prev->file, x->file) &&
		    !strcmp(prev->var ?: "", x->var ?: "")) {
			printf(", ");
		} else {
			if (prev)
				putchar('\n');
			printf("  %s", x->file);
			if (x->var)
				printf(" (%s%s)", x->var, on_recovery(x) ?
				       ", the recovery entries too" : "");
			printf(": ");
		}
		printf("%s %s %s", umh_purpose_name(x->purpose), x->param,
		       x->value);
		prev = x;
	}
	putchar('\n');
}

/* ,"elsewhere":[{"file":..,"var":..,"purpose":..,"param":..,"value":..}] */
static void json_elsewhere(const struct umh_settings *ss)
{
	size_t i;

	fputs(",\"elsewhere\":[", stdout);
	for (i = 0; i < ss->n; i++) {
		fputs(i ? ",{\"file\":" : "{\"file\":", stdout);
		umh_print_json_string(ss->s[i].file);
		umh_print_json_field("var", ss->s[i].var);
		umh_print_json_field("purpose",
				     umh_purpose_name(ss->s[i].purpose));
		umh_print_json_field("param", ss->s[i].param);
		umh_print_json_field("value", ss->s[i].value);
		putchar('}');
	}
	putchar(']');
}

/*
 * GRUB_DISABLE_RECOVERY=true: update-grub makes no recovery entry, the
 * way back that umhcap.cfg promises.  Warned of; the file, or NULL.
 */
static char *warn_no_recovery(const char *root)
{
	char *file = umh_grub_no_recovery(root, "/etc/default/grub.d/umhcap.cfg");

	if (file)
		umh_warn("%s%s sets GRUB_DISABLE_RECOVERY=true: update-grub makes no recovery entry, so no entry of the boot menu starts helpers with open bounds; a bound too narrow is undone only by umhcap boot --remove and update-grub, or by editing the command line at GRUB's menu (e): set GRUB_DISABLE_RECOVERY=false",
			 root, file);
	return file;
}

/* A file boot wrote or removed (or would have), for --json. */
struct boot_done {
	const char *loader;	/* "grub" or "kernel-install" */
	const char *file;
	const char *contents;	/* what it holds now; NULL: removed */
	int replaced;		/* usermodehelper.* items taken out; -1: none */
	const char *made_from;	/* the file it was made from, or NULL */
	const char *next;
};

/* "loader":..,"file":..,.. of @d, the members of an object */
static void done_json(const struct boot_done *d)
{
	fputs("\"loader\":", stdout);
	umh_print_json_string(d->loader);
	umh_print_json_field("file", d->file);
	umh_print_json_field("contents", d->contents);
	if (d->replaced >= 0)
		printf(",\"items_replaced\":%d", d->replaced);
	else
		printf(",\"items_replaced\":null");
	umh_print_json_field("made_from", d->made_from);
	umh_print_json_field("next", d->next);
}

/*
 * --json, after writing: {"version":1,"dry_run":..,"action":"write",
 * "parameters":..,"learned_from":..,"loader":..,"file":..,..,
 * "elsewhere":[..],"recovery_disabled_by":..}: what else sets the next
 * boot's bounds, and the file that turns GRUB's recovery entries off,
 * or null.
 */
static void write_json(const struct umh_args *a, const char *params,
		       const struct umh_merge *m, const struct boot_done *d,
		       const struct umh_settings *ss, const char *no_recovery)
{
	umh_print_json_begin();
	printf(",\"dry_run\":%s,\"action\":\"write\"",
	       a->dry_run ? "true" : "false");
	umh_print_json_field("parameters", params);
	umh_print_json_learned_from(m);
	putchar(',');
	done_json(d);
	json_elsewhere(ss);
	umh_print_json_field("recovery_disabled_by", no_recovery);
	printf("}\n");
}

/*
 * Every character the parameters are made of: none has a meaning to sh
 * in a double-quoted string, or to the kernel's parser in an item.
 */
#define PARAM_CHARS	"abcdefghijklmnopqrstuvwxyz0123456789_.,:= "

/* Something learned: a purpose whose helpers ran. */
static bool learned_any(const struct umh_record *rec)
{
	const struct umh_purpose_info *u;

	umh_for_each_purpose(u)
		if (!umh_idle(rec, u->id))
			return true;
	return false;
}

/* ---- --grub ---- */

/*
 * The text of umhcap.cfg: what wrote it, when, and from which boots; then
 * one assignment.  The caller frees it.
 */
static char *grub_cfg(const char *params, const struct umh_merge *m)
{
	char *now = umh_time_iso(time(NULL)), *first = umh_time_iso(m->first);
	char *last = umh_time_iso(m->last_saved), *from, *text;

	if (m->saved > 1)
		from = umh_xasprintf("%d saved boots, saved %s to\n# %s, and this boot",
				     m->saved, first, last);
	else if (m->saved)
		from = umh_xasprintf("1 saved boot, saved %s, and this\n# boot",
				     first);
	else
		from = umh_xstrdup("this boot only");
	text = umh_xasprintf(
		"# Written by umhcap boot at %s; umhcap rewrites this file\n"
		"# whole: change the bounds with umhcap, not here, and take them off\n"
		"# with umhcap boot --remove.  update-grub sources it after\n"
		"# /etc/default/grub; the recovery entries leave out\n"
		"# GRUB_CMDLINE_LINUX_DEFAULT, and start helpers with open bounds.\n"
		"# The capability bounds of usermode helpers,\n"
		"# learned from %s:\n"
		"GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT %s\"\n",
		now, from, params);
	free(from);
	free(last);
	free(first);
	free(now);
	return text;
}

/* ---- --kernel-install ---- */

/* Runs of space, as the kernel and kernel-install split a command line. */
static size_t space(const char *s, size_t i)
{
	while (s[i] && isspace((unsigned char)s[i]))
		i++;
	return i;
}

/* The end of the item at @i: a double quote hides the spaces after it. */
static size_t item_end(const char *s, size_t i)
{
	bool quoted = false;

	for (; s[i] && (quoted || !isspace((unsigned char)s[i])); i++)
		if (s[i] == '"')
			quoted = !quoted;
	return i;
}

/* Does the item @t, @n bytes, quotes left out, start with @prefix? */
static bool item_is(const char *t, size_t n, const char *prefix)
{
	size_t i, k = 0;

	for (i = 0; i < n && prefix[k]; i++) {
		if (t[i] == '"')
			continue;
		if (t[i] != prefix[k])
			return false;
		k++;
	}
	return !prefix[k];
}

/*
 * @line without its usermodehelper.* items, counted in *@replaced (and,
 * with @from_proc, without BOOT_IMAGE= and initrd=), @params, if any,
 * after the last item kept; the space between the items, before the
 * first and after the last as it was.  The caller frees it.
 */
static char *edit_cmdline(const char *line, bool from_proc,
			  const char *params, int *replaced)
{
	size_t i = space(line, 0), start, end = 0;
	bool kept = false;
	size_t size;
	char *out;
	FILE *f;

	*replaced = 0;
	if (!line[i])
		return umh_xasprintf("%s\n", params);
	f = umh_xmemstream(&out, &size);
	fwrite(line, 1, i, f);
	/*
	 * An item kept after another keeps the space before it, which
	 * follows the item before it in @line, kept or not.
	 */
	while (line[i]) {
		start = i;
		i = item_end(line, start);
		if (item_is(line + start, i - start, "usermodehelper.")) {
			++*replaced;
		} else if (!from_proc ||
			   (!item_is(line + start, i - start, "BOOT_IMAGE=") &&
			    !item_is(line + start, i - start, "initrd="))) {
			if (kept)
				fwrite(line + end, 1, start - end, f);
			fwrite(line + start, 1, i - start, f);
			kept = true;
		}
		end = i;
		i = space(line, i);
	}
	fprintf(f, "%s%s%s", kept && *params ? " " : "", params, line + end);
	umh_xmemclose(f);
	return out;
}

/*
 * The command line kernel-install starts from: *@from names the file;
 * *@st its mode and owner, when it is /etc/kernel/cmdline.  Each is read
 * in the root (umh_in_root()).  Returns the text, or NULL after an error
 * (printed).
 */
static char *ki_source(const char *root, char **from, bool *from_proc,
		       struct stat *st, bool *exists)
{
	static const char *const files[] = {
		KI_CMDLINE, KI_USR_CMDLINE, "/proc/cmdline",
	};
	char *path, *real, *text;
	size_t i, len;
	int err = 0;

	/* The last file's path is kept, for the error if none is there. */
	for (i = 0;; i++) {
		path = umh_xasprintf("%s%s", root, files[i]);
		err = umh_read_in_root(root, files[i], CMDLINE_MAX, &text,
				       &len);
		if (!err && strlen(text) != len) {
			free(text);
			err = -EINVAL;
		}
		if (err != -ENOENT || i + 1 == ARRAY_SIZE(files))
			break;
		free(path);
	}
	if (err == -ENOENT) {
		umh_err("no command line to make %s%s from: neither it, nor %s%s, nor %s is there",
			root, KI_CMDLINE, root, KI_USR_CMDLINE, path);
		free(path);
		return NULL;
	}
	if (err) {
		umh_err("cannot read %s: %s", path,
			err == -EINVAL ? "a NUL byte in it" : strerror(-err));
		free(path);
		return NULL;
	}
	*exists = i == 0;
	*from_proc = i == 2;
	real = *exists ? umh_in_root(root, files[i], true) : NULL;
	if (*exists && (!real || stat(real, st))) {
		umh_err("cannot stat %s: %s", path, strerror(errno));
		free(real);
		free(text);
		free(path);
		return NULL;
	}
	free(real);
	*from = path;
	return text;
}

/* ---- the command ---- */

/*
 * @text to @path, as the root's system names it, or with -n only said:
 * written to @real, where @path is in the root (umh_in_root()).
 */
static int write_or_show(const struct umh_args *a, const char *path,
			 const char *real, const char *text,
			 const struct stat *st)
{
	char *under;

	if (a->dry_run) {
		if (a->json)
			return 0;
		under = umh_under_root();
		printf("%s-n, nothing written: would write the above to %s%s\n",
		       text, path, under);
		free(under);
		return 0;
	}
	return umh_replace(real, text, strlen(text),
			   st ? st->st_mode & 07777 : 0644,
			   st ? (long)st->st_uid : -1,
			   st ? (long)st->st_gid : -1);
}

static int boot_grub(const struct umh_args *a, const char *params,
		     const struct umh_merge *m, const char *from)
{
	char *path = umh_xasprintf("%s" GRUB_CFG, a->root);
	char *text = grub_cfg(params, m), *under, *no_recovery = NULL;
	char *real = umh_in_root(a->root, GRUB_CFG, true);
	struct umh_settings ss = { 0 };
	struct stat st;
	bool exists = real && !stat(real, &st);
	int ret = UMH_EXIT_OK;

	if (!real) {
		umh_err("cannot write %s: %s", path, strerror(errno));
		ret = UMH_EXIT_ERROR;
	} else if (!a->dry_run && umh_mkdirs(a->root, GRUB_DIR)) {
		ret = UMH_EXIT_ERROR;
	} else if (write_or_show(a, path, real, text, exists ? &st : NULL)) {
		ret = UMH_EXIT_ERROR;
	} else {
		elsewhere(a->root, GRUB_CFG, NULL, &ss);
		no_recovery = warn_no_recovery(a->root);
	}
	if (ret) {
		/* Said. */
	} else if (a->json) {
		write_json(a, params, m, &(struct boot_done){
			.loader = "grub", .file = path, .contents = text,
			.replaced = -1, .next = GRUB_NEXT NEXT_BOUNDS }, &ss,
			no_recovery);
	} else {
		under = umh_under_root();
		if (!a->dry_run)
			printf("wrote %s%s, with the bounds learned from %s:\n  %s\n",
			       path, under, from, params);
		text_elsewhere(&ss, "also set elsewhere, and in force beside these (each narrows):");
		if (!a->dry_run)
			printf("next: " GRUB_NEXT NEXT_BOUNDS "\n");
		free(under);
	}
	umh_settings_free(&ss);
	free(no_recovery);
	free(text);
	free(real);
	free(path);
	return ret;
}

static int boot_kernel_install(const struct umh_args *a, const char *params,
			       const struct umh_merge *m, const char *from)
{
	char *path = umh_xasprintf("%s" KI_CMDLINE, a->root), *real;
	char *source = NULL, *line, *text, *made = NULL, *under;
	struct umh_settings ss = { 0 };
	bool from_proc, exists;
	struct stat st;
	int replaced, ret = UMH_EXIT_OK;

	line = ki_source(a->root, &source, &from_proc, &st, &exists);
	real = line ? umh_in_root(a->root, KI_CMDLINE, true) : NULL;
	if (line && !real)
		umh_err("cannot write %s: %s", path, strerror(errno));
	if (!real) {
		free(line);
		free(source);
		free(path);
		return UMH_EXIT_ERROR;
	}
	text = edit_cmdline(line, from_proc, params, &replaced);
	if (!exists)
		made = umh_xasprintf("made from %s%s; ", source, from_proc ?
				     " without BOOT_IMAGE= and initrd=" : "");
	if (!a->dry_run && !exists && umh_mkdirs(a->root, "/etc/kernel"))
		ret = UMH_EXIT_ERROR;
	else if (write_or_show(a, path, real, text, exists ? &st : NULL))
		ret = UMH_EXIT_ERROR;
	else
		elsewhere(a->root, KI_CMDLINE, NULL, &ss);
	if (ret) {
		/* Said. */
	} else if (a->json) {
		write_json(a, params, m, &(struct boot_done){
			.loader = "kernel-install", .file = path,
			.contents = text, .replaced = replaced,
			.made_from = exists ? NULL : source,
			.next = KI_NEXT NEXT_BOUNDS }, &ss, NULL);
	} else {
		under = umh_under_root();
		if (!a->dry_run)
			printf("wrote %s%s (%s%d usermodehelper.* item%s replaced), with the bounds learned from %s:\n  %s\n",
			       path, under, made ? made : "", replaced,
			       replaced == 1 ? "" : "s", from, params);
		text_elsewhere(&ss, "also set elsewhere, and in force beside these (each narrows):");
		if (!a->dry_run)
			printf("next: " KI_NEXT NEXT_BOUNDS "\n");
		free(under);
	}
	umh_settings_free(&ss);
	free(made);
	free(text);
	free(line);
	free(source);
	free(real);
	free(path);
	return ret;
}

/* --kernel-install where /etc/kernel/cmdline is, --grub elsewhere. */
static bool use_kernel_install(const struct umh_args *a)
{
	char *path;
	struct stat st;
	bool there;

	if (a->grub || a->kernel_install)
		return a->kernel_install;
	path = umh_in_root(a->root, KI_CMDLINE, true);
	there = path && !stat(path, &st);
	free(path);
	return there;
}

/* ---- --remove ---- */

/*
 * umhcap.cfg removed (a link itself, as rm removes it, in the root's
 * directory): 1, 0 if it was not there, or -1 after an error.
 */
static int remove_grub(const struct umh_args *a)
{
	char *path = umh_in_root(a->root, GRUB_CFG, false);
	struct stat st;
	int ret;

	if (!path) {
		umh_err("cannot remove %s" GRUB_CFG ": %s", a->root,
			strerror(errno));
		ret = -1;
	} else if (a->dry_run) {
		ret = !lstat(path, &st);
	} else {
		ret = umh_remove(path);
	}
	free(path);
	return ret;
}

/*
 * /etc/kernel/cmdline without its usermodehelper.* items: 1, 0 if it has
 * none or is not there, or -1 after an error.  *@text: what it holds
 * then, for --json; the caller frees it.
 */
static int remove_kernel_install(const struct umh_args *a, int *replaced,
				 char **text)
{
	char *path = umh_xasprintf("%s" KI_CMDLINE, a->root);
	char *real = umh_in_root(a->root, KI_CMDLINE, true);
	char *line;
	struct stat st;
	size_t len;
	int ret = 0, err;

	err = real ? umh_read_all(real, CMDLINE_MAX, &line, &len) : -errno;
	if (err == -ENOENT) {
		free(real);
		free(path);
		return 0;
	}
	if (!err && strlen(line) != len) {
		free(line);
		err = -EINVAL;
	}
	if (!err && stat(real, &st)) {
		free(line);
		err = -errno;
	}
	if (err) {
		umh_err("cannot read %s: %s", path,
			err == -EINVAL ? "a NUL byte in it" : strerror(-err));
		free(real);
		free(path);
		return -1;
	}
	*text = edit_cmdline(line, false, "", replaced);
	if (*replaced && write_or_show(a, path, real, *text, &st))
		ret = -1;
	if (*replaced && !ret)
		ret = 1;
	free(line);
	free(real);
	free(path);
	return ret;
}

/*
 * --json, after removing: {"version":1,"dry_run":..,"action":"remove",
 * "removed":[{"loader":..,"file":..,..}],"elsewhere":[..]}, each file
 * changed, and what else still sets the next boot's bounds.
 */
static void remove_json(const struct umh_args *a, bool grub, int replaced,
			const char *ki_text, const struct umh_settings *ss)
{
	char *grub_path = umh_xasprintf("%s" GRUB_CFG, a->root);
	char *ki_path = umh_xasprintf("%s" KI_CMDLINE, a->root);

	umh_print_json_begin();
	printf(",\"dry_run\":%s,\"action\":\"remove\",\"removed\":[",
	       a->dry_run ? "true" : "false");
	if (grub) {
		fputs("\n  {", stdout);
		done_json(&(struct boot_done){
			.loader = "grub", .file = grub_path, .replaced = -1,
			.next = ss->n ? GRUB_NEXT NEXT_LEFT :
				GRUB_NEXT NEXT_OPEN });
		putchar('}');
	}
	if (replaced) {
		printf("%s\n  {", grub ? "," : "");
		done_json(&(struct boot_done){
			.loader = "kernel-install", .file = ki_path,
			.contents = ki_text, .replaced = replaced,
			.next = ss->n ? KI_NEXT NEXT_LEFT : KI_NEXT NEXT_OPEN });
		putchar('}');
	}
	printf("%s]", grub || replaced ? "\n" : "");
	json_elsewhere(ss);
	printf("}\n");
	free(ki_path);
	free(grub_path);
}

/*
 * boot --remove: each file boot writes, or the one named, undone; then
 * every other place that still sets the next boot's bounds or ids,
 * named, so that the way back is not promised while one holds.
 */
static int boot_remove(const struct umh_args *a)
{
	char *under = umh_under_root(), *ki_text = NULL;
	const char *left = NEXT_OPEN;
	int grub = 0, ki = 0, replaced = 0;
	struct umh_settings ss;

	if (!a->kernel_install)
		grub = remove_grub(a);
	if (!a->grub && grub >= 0)
		ki = remove_kernel_install(a, &replaced, &ki_text);
	if (grub < 0 || ki < 0) {
		free(ki_text);
		free(under);
		return UMH_EXIT_ERROR;
	}
	/* What was removed, or would be, is no longer in force. */
	elsewhere(a->root, grub > 0 ? GRUB_CFG : NULL,
		  ki > 0 ? KI_CMDLINE : NULL, &ss);
	if (ss.n)
		left = NEXT_LEFT;
	if (a->json) {
		remove_json(a, grub > 0, ki > 0 ? replaced : 0, ki_text, &ss);
		goto out;
	}
	if (grub > 0)
		printf("%s %s" GRUB_CFG "%s\n", a->dry_run ?
		       "-n, nothing removed: would remove" : "removed",
		       a->root, under);
	if (ki > 0 && !a->dry_run)
		printf("took %d usermodehelper.* item%s out of %s" KI_CMDLINE "%s\n",
		       replaced, replaced == 1 ? "" : "s", a->root, under);
	if (!grub && !ki)
		printf("nothing to remove%s: %s\n", under,
		       a->grub ? "no " GRUB_CFG :
		       a->kernel_install ? "no usermodehelper.* item in " KI_CMDLINE :
		       "no " GRUB_CFG ", and no usermodehelper.* item in " KI_CMDLINE);
	text_elsewhere(&ss, grub || ki ?
		       "still set elsewhere, and in force from the next boot:" :
		       "set elsewhere, and in force from the next boot:");
	if (grub > 0 && !a->dry_run)
		printf("next: " GRUB_NEXT "%s\n", left);
	if (ki > 0 && !a->dry_run)
		printf("next: " KI_NEXT "%s\n", left);
out:
	umh_settings_free(&ss);
	free(ki_text);
	free(under);
	return UMH_EXIT_OK;
}

int cmd_boot(const struct umh_args *a)
{
	struct umh_merge m = {
		.state_dir = a->state_dir, .this_boot = a->this_boot,
		.since = a->since, .last = a->last,
	};
	struct umh_state cur, learned;
	struct umh_record rec;
	char *params, *from, *under;
	int ret;

	if (a->grub && a->kernel_install)
		return umh_usage_error(a->cmd, "give one of --grub and --kernel-install");
	if (a->remove && (a->include_idle || a->this_boot || a->state_dir ||
			  a->allowed || a->since != UMH_NO_TIME || a->last))
		return umh_usage_error(a->cmd, "--remove takes no --include-idle, --this-boot, --state-dir, --since, --last or --allow");
	if (a->remove)
		return boot_remove(a);
	ret = umh_learned(a->root, a->include_idle, &m,
			  a->allowed ? a->allow : NULL, true, &cur, &learned,
			  &rec);
	if (ret) {
		umh_nothing_written("boot");
		return ret;
	}
	from = umh_merge_describe(a->root, &m);
	under = umh_under_root();
	params = umh_cmdline_format(&learned);
	ret = UMH_EXIT_ERROR;
	if (!learned_any(&rec))
		umh_err("boot: nothing learned from %s: no helper started; let the machine run with open bounds, save its boots, and try again; nothing was written%s",
			from, under);
	else if (umh_cmdline_no_bounds(&learned))
		umh_err("boot: nothing to narrow: every bound learned from %s is open (every capability the kernel knows), so the command line would hold no usermodehelper.bset= or usermodehelper.inheritable=; nothing was written%s",
			from, under);
	else if (params[strspn(params, PARAM_CHARS)])
		umh_err("boot: unexpected character in the parameters \"%s\"; nothing was written%s",
			params, under);
	else {
		/* Either says why it failed; the file is as it was. */
		ret = use_kernel_install(a) ?
		      boot_kernel_install(a, params, &m, from) :
		      boot_grub(a, params, &m, from);
		if (ret)
			umh_nothing_written("boot");
	}
	free(params);
	free(under);
	free(from);
	return ret;
}
