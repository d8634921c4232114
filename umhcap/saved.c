// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's record is lost at reboot.  umhcap save keeps each boot's
 * in STATE_DIR/boots/BOOT_ID (STATE_DIR /var/lib/umhcap, under the
 * root), one text file per boot, which a later save of the same boot
 * replaces:
 *
 *   umhcap-record 1
 *   # saved by umhcap 0.1 at 2025-01-02T03:04:05Z
 *   boot_id 0b6a1f0e-3c1d-4f55-9a43-2b8e1f0c9d77
 *   saved 1735787045
 *   btime 1735786000
 *   all started 6 used 65539 0
 *   modprobe started 4 used 65536 0
 *   ...
 *   other started 0 used 0 0
 *
 * The first line, exactly; then, in any order, each once, the boot id
 * (the file's name), the save time and, if /proc/stat gave it, the boot
 * time, both in seconds since the epoch; and one line per purpose, and
 * one for all, with the number of helpers started and the capabilities
 * used, in the kernel's two decimal 32-bit words, low word first.  A
 * line starting with '#' is a comment.  Fields are separated by one
 * space; every line ends with a newline.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "umhcap.h"

/* ROOT/STATE_DIR/boots; the caller frees it. */
char *umh_boots_dir(const char *root, const char *state_dir)
{
	return umh_xasprintf("%s%s/boots", root,
			     state_dir ? state_dir : UMH_STATE_DIR);
}

/* 8-4-4-4-12 lowercase hex digits, as the kernel prints a boot id. */
static bool is_boot_id(const char *s, size_t n)
{
	size_t i;

	if (n != UMH_BOOT_ID_LEN)
		return false;
	for (i = 0; i < n; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isdigit((unsigned char)s[i]) &&
			   !(s[i] >= 'a' && s[i] <= 'f')) {
			return false;
		}
	}
	return true;
}

/*
 * This boot's id, from ROOT/proc/sys/kernel/random/boot_id.  Returns 0,
 * or -1 after an error (printed).
 */
int umh_boot_id(const char *root, char id[UMH_BOOT_ID_LEN + 1])
{
	char *path = umh_xasprintf("%s/proc/sys/kernel/random/boot_id", root);
	size_t len;
	char *buf;
	int err;

	err = umh_read_all(path, 64, &buf, &len);
	if (err) {
		umh_err("cannot read %s: %s; it tells this boot's record from the others: check --root/UMHCAP_ROOT and that /proc is mounted",
			path, strerror(-err));
		free(path);
		return -1;
	}
	if (len != UMH_BOOT_ID_LEN + 1 || buf[UMH_BOOT_ID_LEN] != '\n' ||
	    !is_boot_id(buf, UMH_BOOT_ID_LEN)) {
		buf[strcspn(buf, "\n")] = '\0';
		umh_err("cannot parse %s: unexpected content \"%.40s\"; expected a boot id, 8-4-4-4-12 hex digits",
			path, buf);
		free(buf);
		free(path);
		return -1;
	}
	memcpy(id, buf, UMH_BOOT_ID_LEN);
	id[UMH_BOOT_ID_LEN] = '\0';
	free(buf);
	free(path);
	return 0;
}

/* Decimal digits only, to a value no more than @max. */
static int parse_ull(const char *s, unsigned long long max,
		     unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v > max ? -1 : 0;
}

/* The boot time, from ROOT/proc/stat's btime line; -1 without it. */
long long umh_btime(const char *root)
{
	char *path = umh_xasprintf("%s/proc/stat", root), *buf, *line, *nl;
	unsigned long long v;
	long long t = -1;
	size_t len;

	if (umh_read_all(path, 1 << 22, &buf, &len)) {
		free(path);
		return -1;
	}
	for (line = buf; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(line, "btime ", 6) &&
		    !parse_ull(line + 6, LLONG_MAX, &v)) {
			t = v;
			break;
		}
	}
	free(buf);
	free(path);
	return t;
}

/* "2025-01-02T03:04:05Z"; the caller frees it. */
char *umh_time_iso(long long t)
{
	time_t tt = t;
	struct tm tm;
	char buf[64];

	if (!gmtime_r(&tt, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return umh_xasprintf("@%lld", t);
	return umh_xstrdup(buf);
}

/*
 * The text of a saved record: boot @boot_id's @rec, saved at @saved,
 * the boot at @btime (-1: not known).  The caller frees it.
 */
char *umh_saved_format(const char *boot_id, long long saved, long long btime,
		       const struct umh_record *rec)
{
	const struct umh_purpose_info *u;
	char *iso = umh_time_iso(saved);
	size_t size;
	char *text;
	FILE *f;

	f = open_memstream(&text, &size);
	if (!f) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	fprintf(f, UMH_SAVED_MAGIC "\n# saved by umhcap %s at %s\n"
		"boot_id %s\nsaved %lld\n", UMHCAP_VERSION, iso, boot_id,
		saved);
	if (btime >= 0)
		fprintf(f, "btime %lld\n", btime);
	umh_for_each(u)
		fprintf(f, "%s started %llu used %u %u\n", u->name,
			rec->started[u->id], (uint32_t)rec->used[u->id],
			(uint32_t)(rec->used[u->id] >> 32));
	if (fclose(f)) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	free(iso);
	return text;
}
