// SPDX-License-Identifier: GPL-2.0
/*
 * What several commands print alike: a capability set on a line of its
 * own, under a label, and as a member of a JSON object; and who a
 * purpose's helpers run as, with the names this machine's passwd and
 * group give their ids.
 */
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "umhcap.h"

/* "  label:       cap_a, cap_b", with @hex the mask before the names. */
void umh_print_line(bool hex, const char *label, uint64_t mask)
{
	char *names = caps_format(mask);

	if (hex)
		printf("  %-13s0x%016" PRIx64 "  %s\n", label, mask, names);
	else
		printf("  %-13s%s\n", label, names);
	free(names);
}

/* {"version":N: what every JSON object umhcap prints starts with. */
void umh_print_json_begin(void)
{
	printf("{\"version\":%d", UMH_JSON_VERSION);
}

/*
 * ,"key":"0x...","key_caps":["cap_a",...]: the mask, every bit of it,
 * and the names of the capabilities this kernel knows in it (caps_json()).
 */
void umh_print_json_mask(const char *key, uint64_t mask)
{
	printf(",\"%s\":\"0x%" PRIx64 "\",\"%s_caps\":", key, mask, key);
	caps_json(stdout, mask);
}

/*
 * The length of the UTF-8 sequence @s starts with (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF), or 0 if it is none.
 */
static int utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/*
 * @s as a JSON string (RFC 8259): " and \ escaped, control characters
 * as \uXXXX, and each byte that is not part of valid UTF-8 (a file's
 * text, say /proc/cmdline's) as U+FFFD, so that the output is valid
 * JSON whatever @s holds.
 */
void umh_print_json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	putchar('"');
	for (; *p; p += n ? n : 1) {
		n = utf8_len(p);
		if (!n)
			fputs("\\ufffd", stdout);
		else if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			printf("\\u%04x", *p);
		else
			fwrite(p, 1, n, stdout);
	}
	putchar('"');
}

/* ,"@key":"@s", or ,"@key":null for a NULL @s */
void umh_print_json_field(const char *key, const char *s)
{
	printf(",\"%s\":", key);
	if (s)
		umh_print_json_string(s);
	else
		fputs("null", stdout);
}

/*
 * The first @n bytes of @s, for a line of text: each byte outside
 * printable ASCII, and " and \, as a C escape (\x1b, \", \\), so that
 * text umhcap did not write (/proc/cmdline's) cannot move a terminal's
 * cursor, colour it, or pass for a line umhcap wrote.  The caller frees
 * the result.
 */
char *umh_escape(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(4 * n + 1), *o = out;
	size_t i;

	if (!out)
		umh_oom();
	for (i = 0; i < n && p[i]; i++) {
		if (p[i] == '"' || p[i] == '\\') {
			*o++ = '\\';
			*o++ = p[i];
		} else if (p[i] < 0x20 || p[i] > 0x7e) {
			o += sprintf(o, "\\x%02x", p[i]);
		} else {
			*o++ = p[i];
		}
	}
	*o = '\0';
	return out;
}

/*
 * "daemon(1)": the name of uid @id (of gid @id, with @gid), and the id;
 * the id alone where the machine has no name for it.  The caller frees
 * the result.
 */
char *umh_id_format(bool gid, uint32_t id)
{
	const struct group *gr = gid ? umh_getgrgid(id) : NULL;
	const struct passwd *pw = gid ? NULL : umh_getpwuid(id);
	const char *name = gr ? gr->gr_name : pw ? pw->pw_name : NULL;

	return name ? umh_xasprintf("%s(%u)", name, id) :
		      umh_xasprintf("%u", id);
}

/* "root", or "user(uid):group(gid)"; the caller frees the result. */
char *umh_ident_format(const struct umh_ident *id)
{
	char *user, *group, *s;

	if (umh_is_root(id))
		return umh_xstrdup("root");
	user = umh_id_format(false, id->uid);
	group = umh_id_format(true, id->gid);
	s = umh_xasprintf("%s:%s", user, group);
	free(user);
	free(group);
	return s;
}

/* "  label:       user(uid):group(gid)" */
void umh_print_ident(const char *label, const struct umh_ident *id)
{
	char *s = umh_ident_format(id);

	printf("  %-13s%s\n", label, s);
	free(s);
}

/* {"uid":N,"gid":N}: an identity, root's {"uid":0,"gid":0}. */
static void put_ident(const struct umh_ident *id)
{
	printf("{\"uid\":%u,\"gid\":%u}", id->uid, id->gid);
}

/* ,"@key":{"uid":N,"gid":N} */
void umh_print_json_ident(const char *key, const struct umh_ident *id)
{
	printf(",\"%s\":", key);
	put_ident(id);
}

/* ,"@key":T, seconds since the epoch; ,"@key":null for a negative @t */
void umh_print_json_time(const char *key, long long t)
{
	if (t < 0)
		printf(",\"%s\":null", key);
	else
		printf(",\"%s\":%lld", key, t);
}

/*
 * A refusal: {"purpose":..,"program":..,"cap":"cap_x","cap_number":N,
 * "boot_id":..,"count":N,"first_seen":T,"last_seen":T}, learn's and
 * refusals' alike; the times null where the source gives none.
 */
void umh_print_json_refusal(const struct umh_refusal *r)
{
	char *cap = caps_list(1ULL << r->cap);

	fputs("{\"purpose\":", stdout);
	umh_print_json_string(umh_purpose_name(r->purpose));
	fputs(",\"program\":", stdout);
	umh_print_json_string(r->exe);
	fputs(",\"cap\":", stdout);
	umh_print_json_string(cap);
	printf(",\"cap_number\":%d", r->cap);
	umh_print_json_field("boot_id", *r->boot ? r->boot : NULL);
	printf(",\"count\":%lu", r->count);
	umh_print_json_time("first_seen", r->first);
	umh_print_json_time("last_seen", r->last);
	putchar('}');
	free(cap);
}

/*
 * ,"learned_from":{"boot_id":..,"this_boot_only":..,"saved_boots":N,
 * "first_saved":T,"last_saved":T,"superseded":..,"files_refused":N,
 * "since":T,"last":N,"skipped":N,"boots_dir":..}: this boot's id,
 * whether --this-boot left the saved boots out, how many were merged and
 * over what time (seconds since the epoch; null with none), whether this
 * boot's saved file was left out for the live record, how many saved
 * files were refused (each with a warning), --since and --last (null
 * without) and how many saved boots they left out, with --from how many
 * machines (null without), and where they are, as the root's system
 * names it (null with --from: umh_print_json_fleet() names them).
 */
void umh_print_json_learned_from(const struct umh_merge *m)
{
	char *dir = umh_xasprintf("%s/boots",
				  m->state_dir ? m->state_dir : UMH_STATE_DIR);

	fputs(",\"learned_from\":{\"boot_id\":", stdout);
	if (m->boot_id[0])
		umh_print_json_string(m->boot_id);
	else
		fputs("null", stdout);
	printf(",\"this_boot_only\":%s,\"saved_boots\":%d",
	       m->this_boot ? "true" : "false", m->saved);
	if (m->saved)
		printf(",\"first_saved\":%lld,\"last_saved\":%lld", m->first,
		       m->last_saved);
	else
		fputs(",\"first_saved\":null,\"last_saved\":null", stdout);
	printf(",\"superseded\":%s,\"files_refused\":%d",
	       m->superseded ? "true" : "false", m->refused);
	umh_print_json_time("since", m->since == UMH_NO_TIME ? -1 : m->since);
	if (m->last > 0)
		printf(",\"last\":%ld", m->last);
	else
		fputs(",\"last\":null", stdout);
	printf(",\"skipped\":%d", m->skipped);
	if (m->nfrom)
		printf(",\"machines\":%zu", m->nfrom);
	else
		fputs(",\"machines\":null", stdout);
	umh_print_json_field("boots_dir", m->nfrom ? NULL : dir);
	putchar('}');
	free(dir);
}

/*
 * ,"started":N,"used":..,"used_caps":[..]: what the record says of @p's
 * helpers (UMH_ALL: every helper's), learn's and save's alike.
 */
void umh_print_json_record(const struct umh_record *rec, int p)
{
	printf(",\"started\":%llu", rec->started[p]);
	umh_print_json_mask("used", rec->used[p]);
}

/*
 * A saved boot: {"boot_id":..,"this_boot":..,"saved":T,"btime":T,
 * "kernel":..,"started":N,"used":..,"used_caps":[..],"purposes":[
 * {"purpose":..,"started":N,"used":..,"used_caps":[..]},..]}, every
 * purpose's record as save prints it (btime and kernel null where the
 * file has none); with @rs, "refused":[..] too, the refusals of the boot.
 */
void umh_print_json_boot(const struct umh_saved *s, bool this_boot,
			 const struct umh_refusals *rs)
{
	const struct umh_purpose_info *u;
	const char *sep = "";
	size_t i;

	fputs("{\"boot_id\":", stdout);
	umh_print_json_string(s->boot_id);
	printf(",\"this_boot\":%s", this_boot ? "true" : "false");
	umh_print_json_time("saved", s->saved);
	umh_print_json_time("btime", s->btime);
	umh_print_json_field("kernel", *s->kernel ? s->kernel : NULL);
	umh_print_json_record(&s->rec, UMH_ALL);
	fputs(",\"purposes\":[", stdout);
	umh_for_each_purpose(u) {
		printf("%s{\"purpose\":\"%s\"", sep, u->name);
		umh_print_json_record(&s->rec, u->id);
		putchar('}');
		sep = ",";
	}
	putchar(']');
	if (rs) {
		fputs(",\"refused\":[", stdout);
		for (i = 0, sep = ""; i < rs->n; i++) {
			if (strcmp(rs->r[i].boot, s->boot_id))
				continue;
			fputs(sep, stdout);
			umh_print_json_refusal(&rs->r[i]);
			sep = ",";
		}
		putchar(']');
	}
	putchar('}');
}

/*
 * ,"fleet":{"machines":[{"machine":..,"boots_dir":..,"saved_boots":N,
 * "skipped":N,"files_refused":N,"kernels":[..],"started":N,"used":..,
 * "used_caps":[..]}],"purposes":[{"purpose":..,"boots":N,"machines":N}],
 * "disagreements":[{"purpose":..,"machine":..,"lacks":..,
 * "lacks_caps":[..],"used_by":[..]}],"kernels":[{"kernel":..,
 * "machines":[..]}],"duplicates":N}: each machine of --from, how many
 * boots and machines each purpose of @sel started in, where a machine's
 * record lacks what another's helpers of the purpose used, and which
 * kernel each ran (null for boots that saved none).
 */
void umh_print_json_fleet(const struct umh_fleet *f, const bool sel[UMH_NR])
{
	const struct umh_purpose_info *u;
	const char *kernels[64], *sep = "", *sep2;
	size_t i, k, nk, b;
	uint64_t lacks;

	fputs(",\"fleet\":{\"machines\":[", stdout);
	for (i = 0; i < f->n; i++) {
		const struct umh_machine *mc = &f->m[i];

		printf("%s\n  {\"machine\":", i ? "," : "");
		umh_print_json_string(mc->name);
		umh_print_json_field("boots_dir", mc->dir);
		printf(",\"saved_boots\":%zu,\"skipped\":%d,\"files_refused\":%d,\"kernels\":[",
		       mc->set.n, mc->skipped, mc->set.refused);
		for (sep2 = "", b = 0; b < mc->set.n; b++) {
			for (k = 0; k < b && strcmp(mc->set.b[k].kernel,
						    mc->set.b[b].kernel); k++)
				;
			if (k < b)
				continue;
			fputs(sep2, stdout);
			if (*mc->set.b[b].kernel)
				umh_print_json_string(mc->set.b[b].kernel);
			else
				fputs("null", stdout);
			sep2 = ",";
		}
		putchar(']');
		umh_print_json_record(&mc->rec, UMH_ALL);
		putchar('}');
	}
	fputs("],\"purposes\":[", stdout);
	umh_for_each_purpose(u) {
		if (!sel[u->id])
			continue;
		printf("%s{\"purpose\":\"%s\",\"boots\":%d,\"machines\":%d}",
		       sep, u->name, f->boots[u->id], f->machines[u->id]);
		sep = ",";
	}
	fputs("],\"disagreements\":[", stdout);
	sep = "";
	umh_for_each_purpose(u) {
		for (i = 0; sel[u->id] && i < f->n; i++) {
			lacks = umh_fleet_lacks(f, i, u->id);
			if (!lacks)
				continue;
			printf("%s\n  {\"purpose\":\"%s\",\"machine\":", sep,
			       u->name);
			umh_print_json_string(f->m[i].name);
			umh_print_json_mask("lacks", lacks);
			fputs(",\"used_by\":[", stdout);
			for (sep2 = "", k = 0; k < f->n; k++) {
				if (!(f->m[k].rec.used[u->id] & lacks))
					continue;
				fputs(sep2, stdout);
				umh_print_json_string(f->m[k].name);
				sep2 = ",";
			}
			fputs("]}", stdout);
			sep = ",";
		}
	}
	fputs("],\"kernels\":[", stdout);
	nk = umh_fleet_kernels(f, kernels, ARRAY_SIZE(kernels));
	for (k = 0; k < nk; k++) {
		fputs(k ? ",{\"kernel\":" : "{\"kernel\":", stdout);
		if (*kernels[k])
			umh_print_json_string(kernels[k]);
		else
			fputs("null", stdout);
		fputs(",\"machines\":[", stdout);
		for (sep2 = "", i = 0; i < f->n; i++) {
			if (!umh_machine_ran(&f->m[i], kernels[k]))
				continue;
			fputs(sep2, stdout);
			umh_print_json_string(f->m[i].name);
			sep2 = ",";
		}
		fputs("]}", stdout);
	}
	printf("],\"duplicates\":%d}", f->duplicates);
}

/*
 * ,"identities":{"p":{"uid":N,"gid":N},...} for the purposes of @sel, or
 * null on a kernel without them.
 */
void umh_print_json_idents(const struct umh_state *st, const bool sel[UMH_NR])
{
	const struct umh_purpose_info *u;
	const char *sep = "";

	printf(",\"identities\":");
	if (!st->idents) {
		printf("null");
		return;
	}
	putchar('{');
	umh_for_each_purpose(u) {
		if (!sel[u->id])
			continue;
		printf("%s\n    \"%s\":", sep, u->name);
		put_ident(&st->id[u->id]);
		sep = ",";
	}
	printf("\n  }");
}
