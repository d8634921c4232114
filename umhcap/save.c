// SPDX-License-Identifier: GPL-2.0
/*
 * save: keep this boot's record, which the kernel loses at reboot, in
 * STATE_DIR/boots/BOOT_ID (savedboots.c has the format), for learn,
 * export --learned and boot to merge in the boots after.  A unit runs it
 * at shutdown, while /var is mounted; run again in the same boot, it
 * replaces the file with the record, which has only grown.  The file is
 * written whole or not at all: nothing is written before the record, the
 * boot id and the directory are there.  With --json, one object once it
 * is written (or, with -n, would be): the file, the boot, how many
 * helpers of each purpose started, and the text; none after an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "umhcap.h"

/* "6 helpers started: modprobe 4, coredump 2"; the caller frees it. */
static char *started(const struct umh_record *rec)
{
	unsigned long long n = rec->started[UMH_ALL];
	const struct umh_purpose_info *u;
	const char *sep = ": ";
	size_t size;
	char *s;
	FILE *f;

	f = umh_xmemstream(&s, &size);
	fprintf(f, "%llu helper%s started", n, n == 1 ? "" : "s");
	umh_for_each_purpose(u) {
		if (!rec->started[u->id])
			continue;
		fprintf(f, "%s%s %llu", sep, u->name, rec->started[u->id]);
		sep = ", ";
	}
	umh_xmemclose(f);
	return s;
}

/*
 * --json: {"version":2,"dry_run":..,"boot_id":..,"file":..,
 * "started":N,"used":..,"purposes":[{"purpose":..,"started":N,
 * "used":..},..],"contents":..}: the record as learn shows it.
 */
static void save_json(const struct umh_args *a, const char *id,
		      const char *path, const struct umh_record *rec,
		      const char *text)
{
	const struct umh_purpose_info *u;

	umh_print_json_begin();
	printf(",\"dry_run\":%s", a->dry_run ? "true" : "false");
	umh_print_json_field("boot_id", id);
	umh_print_json_field("file", path);
	umh_print_json_record(rec, UMH_ALL);
	fputs(",\"purposes\":[", stdout);
	umh_for_each_purpose(u) {
		printf("%s{\"purpose\":\"%s\"", u == umh_purposes + 1 ? "" : ",",
		       u->name);
		umh_print_json_record(rec, u->id);
		putchar('}');
	}
	putchar(']');
	umh_print_json_field("contents", text);
	printf("}\n");
}

/*
 * Where the root's @rel/@id is, in the root (umh_in_root()); NULL after
 * an error (printed).
 */
static char *in_root(const char *root, const char *rel, const char *id)
{
	char *file = umh_xasprintf("%s/%s", rel, id);
	char *real = umh_in_root(root, file, true);

	if (!real)
		umh_err("cannot write %s%s: %s", root, file, strerror(errno));
	free(file);
	return real;
}

int cmd_save(const struct umh_args *a)
{
	char id[UMH_BOOT_ID_LEN + 1], *dir, *path, *text, *rel, *what, *under;
	char *real = NULL;
	char kernel[UMH_KERNEL_LEN + 1];
	long long now = time(NULL);
	struct umh_record rec;
	int ret;

	ret = umh_record_load(a->root, &rec);
	if (ret > 0)
		umh_no_record(&rec);
	if (ret || umh_boot_id(a->root, id)) {
		umh_nothing_written("save");
		return UMH_EXIT_ERROR;
	}
	dir = umh_boots_dir(a->root, a->state_dir);
	rel = umh_boots_dir("", a->state_dir);
	path = umh_xasprintf("%s/%s", dir, id);
	umh_kernel_release(a->root, kernel);
	text = umh_saved_format(id, now, umh_btime(a->root), kernel, &rec);
	what = started(&rec);
	under = umh_under_root();
	ret = UMH_EXIT_OK;
	if (a->dry_run && a->json) {
		save_json(a, id, path, &rec, text);
	} else if (a->dry_run) {
		printf("%s-n, nothing written: would save boot %s's record (%s) to %s%s\n",
		       text, id, what, path, under);
	} else if (umh_mkdirs(a->root, rel) ||
		   !(real = in_root(a->root, rel, id)) ||
		   umh_replace(real, text, strlen(text), 0644, -1, -1)) {
		umh_nothing_written("save");
		ret = UMH_EXIT_ERROR;
	} else if (a->json) {
		save_json(a, id, path, &rec, text);
	} else {
		printf("saved boot %s's record (%s) to %s%s\n", id, what,
		       path, under);
	}
	free(under);
	free(what);
	free(text);
	free(real);
	free(path);
	free(rel);
	free(dir);
	return ret;
}
