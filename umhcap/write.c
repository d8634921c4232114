// SPDX-License-Identifier: GPL-2.0
/*
 * Writing a bound file, as drop, keep and learn --apply do, or an id
 * file, as user does: write, read back to verify, and on EPERM say
 * exactly what the caller lacks; or, with -n, only say what would be
 * written.  And, when a command that writes to several purposes stops,
 * what it wrote.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>

#include "umhcap.h"

#define CAP(c)		(1ULL << (c))
/* What narrowing a bound needs, in the initial user namespace. */
#define NARROW_CAPS	(CAP(CAP_SETPCAP) | CAP(CAP_SYS_MODULE))

static bool cap_effective(cap_t caps, cap_value_t cap)
{
	cap_flag_value_t v = CAP_CLEAR;

	return !cap_get_flag(caps, cap, CAP_EFFECTIVE, &v) && v == CAP_SET;
}

/* @need, as the kernel asks for it: a list, or "every capability". */
static char *caps_needed(uint64_t need)
{
	return need == caps_full() ? umh_xstrdup("every capability") :
				     caps_list(need);
}

/* EPERM: what writing @path needs, @need, and what the caller lacks. */
static void explain_eperm(const char *path, uint64_t need)
{
	char *needed = caps_needed(need), *lacked;
	cap_t caps = cap_get_proc();
	uint64_t lack = 0;
	int i;

	for (i = 0; caps && i < caps_nbits(); i++)
		if ((need & CAP(i)) && !cap_effective(caps, i))
			lack |= CAP(i);
	if (!caps) {
		umh_err("cannot write %s: %s; needs %s in the initial user namespace",
			path, strerror(EPERM), needed);
	} else if (lack) {
		lacked = caps_list(lack);
		umh_err("cannot write %s: %s; needs %s, and this process lacks %s in its effective set; run as root with full capabilities",
			path, strerror(EPERM), needed, lacked);
		free(lacked);
	} else {
		umh_err("cannot write %s: %s; needs %s, which this process holds in its effective set, but not in the initial user namespace: run outside any container or user namespace",
			path, strerror(EPERM), needed);
	}
	if (caps)
		cap_free(caps);
	free(needed);
}

/*
 * What umh_bound_write() or umh_id_write() returned for @path, which
 * needs @need: 0, or -1 after saying why nothing was written.
 */
static int write_result(const char *path, int err, uint64_t need)
{
	if (err == -EPERM) {
		explain_eperm(path, need);
		return -1;
	}
	if (err) {
		umh_err("cannot write %s: %s%s", path, strerror(-err),
			err == -EINVAL ? "; the kernel rejected the value" : "");
		return -1;
	}
	return 0;
}

/*
 * Write @mask to the bound file @path and read it back.  Returns 0, -1 if
 * nothing was written, -2 if the write went through but did not verify;
 * prints its own error.
 */
int umh_write_verify(const char *path, uint64_t mask)
{
	uint64_t now;

	if (write_result(path, umh_bound_write(path, mask), NARROW_CAPS))
		return -1;
	if (umh_bound_read(path, &now))
		return -2;
	if (now != mask) {
		umh_err("verify %s: read back %u %u, expected %u %u; another writer may have narrowed it further",
			path, (uint32_t)now, (uint32_t)(now >> 32),
			(uint32_t)mask, (uint32_t)(mask >> 32));
		return -2;
	}
	return 0;
}

/*
 * umh_write_verify(), or with @dry_run a line that says what it would
 * write, and where.  Returns as umh_write_verify() does.
 */
int umh_narrow(const char *path, uint64_t mask, bool dry_run)
{
	char *names, *under;

	if (!dry_run)
		return umh_write_verify(path, mask);
	names = caps_format(mask);
	under = umh_under_root();
	printf("would write \"%u %u\" to %s (%s)%s\n", (uint32_t)mask,
	       (uint32_t)(mask >> 32), path, names, under);
	free(names);
	free(under);
	return 0;
}

/*
 * What the kernel asks of whoever writes id @to over @from: moving a
 * purpose away from root, or writing the id it has, needs what narrowing
 * a bound needs and cap_setuid (cap_setgid for a gid); any other change
 * gives its helpers files they did not own, and needs every capability.
 */
static uint64_t id_needs(bool gid, uint32_t from, uint32_t to)
{
	if (from && from != to)
		return caps_full();
	return NARROW_CAPS | CAP(gid ? CAP_SETGID : CAP_SETUID);
}

/*
 * Write id @to, over @from, to the uid (or, with @gid, the gid) file
 * @path, and read it back; or, with @dry_run, say what it would write.
 * Returns as umh_write_verify() does.
 */
int umh_id_set(const char *path, bool gid, uint32_t from, uint32_t to,
	       bool dry_run)
{
	char *under;
	uint32_t now;

	if (dry_run) {
		under = umh_under_root();
		printf("would write \"%u\" to %s%s\n", to, path, under);
		free(under);
		return 0;
	}
	if (write_result(path, umh_id_write(path, to),
			 id_needs(gid, from, to)))
		return -1;
	if (umh_id_read(path, &now))
		return -2;
	if (now != to) {
		umh_err("verify %s: read back %u, expected %u; another writer may have changed it",
			path, now, to);
		return -2;
	}
	return 0;
}

/*
 * After @cmd failed to write at purpose @stop: that nothing was written,
 * or to which purposes, @wrote, and that those after @stop were not
 * @undone.  Returns the exit code.
 */
int umh_write_failed(const char *cmd, const char *undone,
		     const bool wrote[UMH_NR],
		     const struct umh_purpose_info *stop)
{
	const struct umh_purpose_info *u;
	char *line, *under;
	bool any = false;
	size_t size;
	FILE *f;

	umh_for_each(u)
		any |= wrote[u->id];
	if (!any) {
		umh_nothing_written(cmd);
		return UMH_EXIT_ERROR;
	}
	f = open_memstream(&line, &size);
	if (!f) {
		umh_oom();
		return UMH_EXIT_PARTIAL;
	}
	fprintf(f, "%s stopped at %s, after writing to:", cmd, stop->name);
	umh_for_each(u) {
		if (u > stop)
			break;
		if (wrote[u->id])
			fprintf(f, " %s%s", u->name,
				u == stop ? " (in part)" : "");
	}
	under = umh_under_root();
	fprintf(f, "; the purposes after %s were not %s%s", stop->name,
		undone, under);
	free(under);
	fclose(f);
	umh_err("%s", line);
	free(line);
	return UMH_EXIT_PARTIAL;
}
