// SPDX-License-Identifier: GPL-2.0
/*
 * A fleet: the saved boots of many machines, as an administrator gathers
 * them (rsync, Ansible's fetch), one directory per machine given with
 * --from.  A directory is a copy of the machine's /var/lib/umhcap/boots,
 * or holds one as DIR/var/lib/umhcap/boots (fetch's layout) or as
 * DIR/boots; its files are read and trusted as learn reads its own
 * (savedboots.c).  Each machine's boots are merged into a record of its
 * own, after --since and --last, which choose among each machine's
 * boots; then every machine's into one, which learn and export --learned
 * learn from, in place of this boot's.
 *
 * The machines disagree where one's helpers of a purpose used a
 * capability that another's, which ran that purpose too, never did (a
 * machine whose helpers of it never ran says nothing of it), and where
 * they ran different kernels.  Nothing of the machine umhcap runs on is
 * read.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "umhcap.h"

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Where @dir keeps its boots: DIR/var/lib/umhcap/boots, DIR/boots, DIR. */
static char *boots_of(const char *dir)
{
	static const char *const under[] = { UMH_STATE_DIR "/boots", "/boots" };
	char *path;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(under); i++) {
		path = umh_xasprintf("%s%s", dir, under[i]);
		if (is_dir(path))
			return path;
		free(path);
	}
	return umh_xstrdup(dir);
}

/* Is boot @id among the machines before @i? */
static const char *seen(const struct umh_fleet *f, size_t i, const char *id)
{
	size_t k, b;

	for (k = 0; k < i; k++)
		for (b = 0; b < f->m[k].set.n; b++)
			if (!strcmp(f->m[k].set.b[b].boot_id, id))
				return f->m[k].name;
	return NULL;
}

/*
 * Read machine @i of @m->from into @f, its boots chosen and merged.
 * Returns 0, or -1 after an error (printed): DIR is no directory.
 */
static int read_machine(struct umh_merge *m, struct umh_fleet *f, size_t i)
{
	struct umh_machine *mc = &f->m[i];
	const struct umh_purpose_info *u;
	struct umh_merge one = { .since = m->since };
	const char *other;
	size_t b, n = 0;

	mc->name = m->from[i];
	if (!is_dir(mc->name)) {
		umh_err("--from %s: not a directory; give each machine's copy of " UMH_STATE_DIR "/boots",
			mc->name);
		return -1;
	}
	mc->dir = boots_of(mc->name);
	umh_saved_read("", mc->dir, false, &mc->set);
	m->refused += mc->set.refused;
	mc->skipped = umh_saved_choose(&mc->set, m->since, m->last);
	m->skipped += mc->skipped;
	for (b = 0; b < mc->set.n; b++) {
		const struct umh_saved *s = &mc->set.b[b];

		other = seen(f, i, s->boot_id);
		if (other) {
			umh_warn("boot %s is both %s's and %s's: merged once, as %s's",
				 s->boot_id, other, mc->name, other);
			f->duplicates++;
			continue;
		}
		mc->set.b[n++] = *s;
		umh_merge_add(&one, &mc->rec, s);
		umh_for_each(u)
			mc->boots[u->id] += !!s->rec.started[u->id];
	}
	mc->set.n = n;
	if (!n)
		umh_warn("--from %s: no saved boot merged from %s", mc->name,
			 mc->dir);
	return 0;
}

/*
 * Merge into @rec, which holds nothing, the saved boots of every machine
 * of m->from, into m->fleet (allocated here; umh_fleet_free() frees it,
 * whatever this returns), and count them in @m.  Returns 0, or -1 after
 * an error (printed).
 */
int umh_fleet_merge(struct umh_merge *m, struct umh_record *rec)
{
	const struct umh_purpose_info *u;
	struct umh_fleet *f;
	size_t i, b;

	f = calloc(1, sizeof(*f));
	if (f)
		f->m = calloc(m->nfrom, sizeof(*f->m));
	if (!f || !f->m) {
		umh_oom();
		exit(UMH_EXIT_ERROR);
	}
	m->fleet = f;
	m->boot_id[0] = '\0';
	m->saved = m->refused = m->skipped = 0;
	m->superseded = false;
	m->first = m->last_saved = 0;
	for (i = 0; i < m->nfrom; i++) {
		f->n = i + 1;
		if (read_machine(m, f, i))
			return -1;
	}
	for (i = 0; i < f->n; i++) {
		for (b = 0; b < f->m[i].set.n; b++)
			umh_merge_add(m, rec, &f->m[i].set.b[b]);
		umh_for_each(u) {
			f->boots[u->id] += f->m[i].boots[u->id];
			f->machines[u->id] += !!f->m[i].rec.started[u->id];
		}
	}
	return 0;
}

void umh_fleet_free(struct umh_fleet *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++) {
		free(f->m[i].dir);
		umh_saved_set_free(&f->m[i].set);
	}
	free(f->m);
	free(f);
}

/* What the helpers of @p used on any machine. */
uint64_t umh_fleet_used(const struct umh_fleet *f, int p)
{
	uint64_t used = 0;
	size_t i;

	for (i = 0; i < f->n; i++)
		used |= f->m[i].rec.used[p];
	return used;
}

/*
 * What machine @i's helpers of @p never used, and another machine's did:
 * its record disagrees.  Nothing where they never ran on it.
 */
uint64_t umh_fleet_lacks(const struct umh_fleet *f, size_t i, int p)
{
	if (!f->m[i].rec.started[p])
		return 0;
	return umh_fleet_used(f, p) & ~f->m[i].rec.used[p];
}

/* Did @mc run kernel @kernel in a boot merged? */
bool umh_machine_ran(const struct umh_machine *mc, const char *kernel)
{
	size_t b;

	for (b = 0; b < mc->set.n; b++)
		if (!strcmp(mc->set.b[b].kernel, kernel))
			return true;
	return false;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The kernel releases the fleet's boots ran, each once, sorted, into
 * @out (at most @max); "" for boots that saved none.  Returns how many.
 */
size_t umh_fleet_kernels(const struct umh_fleet *f, const char **out,
			 size_t max)
{
	size_t i, b, k, n = 0;

	for (i = 0; i < f->n; i++) {
		for (b = 0; b < f->m[i].set.n; b++) {
			const char *kernel = f->m[i].set.b[b].kernel;

			for (k = 0; k < n && strcmp(out[k], kernel); k++)
				;
			if (k == n && n < max)
				out[n++] = kernel;
		}
	}
	qsort(out, n, sizeof(*out), by_string);
	return n;
}
