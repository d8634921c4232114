// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap's one JSON schema: each concept (capability set,
 * identity, refusal, the saved boots learned from, a saved boot, helpers
 * started) has
 * one shape, whichever command prints it, as umhcap(8)'s JSON OUTPUT
 * says; and every member printed is one that section documents.
 */
#include "common.h"

/* The value at @path starts with @c: '{' an object, '[' an array, ... */
#define ASSERT_KIND(json, path, c) do {					\
	const char *_v = json_get(json, path);				\
	if (!_v || !strchr(c, _v[0]))					\
		TH_LOG("%s: want one of %s, got %s in:\n%s", path, c,	\
		       _v ?: "nothing", json);				\
	ASSERT_TRUE(_v && strchr(c, _v[0]));				\
} while (0)

#define NUMBER	"0123456789"

/* learned_from: the one object, at @path ("learned_from"). */
static void learned_from_shape(struct __test_metadata *_metadata,
			       const char *json)
{
	ASSERT_KIND(json, "learned_from", "{");
	ASSERT_KIND(json, "learned_from.boot_id", "\"n");
	ASSERT_KIND(json, "learned_from.this_boot_only", "tf");
	ASSERT_KIND(json, "learned_from.saved_boots", NUMBER);
	ASSERT_KIND(json, "learned_from.first_saved", NUMBER "n");
	ASSERT_KIND(json, "learned_from.last_saved", NUMBER "n");
	ASSERT_KIND(json, "learned_from.superseded", "tf");
	ASSERT_KIND(json, "learned_from.files_refused", NUMBER);
	/* As the root's system names it: no host path. */
	ASSERT_JSON_AT(json, "learned_from.boots_dir", "\"/var/lib/umhcap/boots\"");
}

/* A refusal: the one object, at @path. */
static void refusal_shape(struct __test_metadata *_metadata, const char *json,
			  const char *path)
{
	static const char *const keys[] = {
		"purpose", "program", "cap", "cap_number", "boot_id", "count",
	};
	char p[256];
	size_t i;

	ASSERT_KIND(json, path, "{");
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		snprintf(p, sizeof(p), "%s.%s", path, keys[i]);
		ASSERT_NE(NULL, json_get(json, p)) TH_LOG("no %s in %s", p, json);
	}
}

/* Every *_caps array holds names, never a number as a string. */
static void caps_are_names(struct __test_metadata *_metadata, const char *json)
{
	const char *s = json;

	while ((s = strstr(s, "_caps\":["))) {
		s += 8;
		while (*s == '"') {
			ASSERT_EQ(0, strncmp(s, "\"cap_", 5))
				TH_LOG("not a name: %.20s", s);
			s = strchr(s + 1, '"') + 1;
			s += *s == ',';
		}
	}
}

/* Every value of @key ("\"key\":") in @json starts with one of @c. */
static void each_is(struct __test_metadata *_metadata, const char *json,
		    const char *key, const char *c)
{
	const char *s = json;

	while ((s = strstr(s, key))) {
		s += strlen(key);
		EXPECT_TRUE(strchr(c, *s) != NULL)
			TH_LOG("%s%.40s: want one of %s", key, s, c);
	}
}

static void scene(const char *root)
{
	FILE *f;
	char path[PATH_MAX];

	learn_scene(root);
	two_saved_boots(root);
	set_ident(root, "coredump", 998, 998);
	set_bound(root, "modprobe", B(CAP_SYS_MODULE), B(CAP_SYS_MODULE));
	snprintf(path, sizeof(path), "%s/dev/kmsg", root);
	f = fopen(path, "w");
	if (!f)
		abort();
	fprintf(f, "4,1,1,-;umh: refused a capability its bounds withhold: purpose=coredump pid=7 comm=\"c\" exe=\"/usr/lib/systemd/systemd-coredump\" uid=998 cap=%d\n",
		CAP_SYS_ADMIN);
	fclose(f);
}

/* A command of each that takes --json, after it, on scene(). */
static const char *const runs[][6] = {
	{ "show" }, { "learn" }, { "learn", "--apply", "-n" },
	{ "boot", "-n" }, { "export", "--learned", "--json" },
	{ "export", "--json" }, { "policy" }, { "save", "-n" },
	{ "user", "-n", "-p", "modprobe,coredump", "root" },
	{ "refusals" }, { "check" },
	{ "drop", "-n", "-p", "coredump", "cap_kill" }, { "status" },
	{ "boots" }, { "boots", "-n", "--forget", BOOT_B },
};

/*
 * Each concept one shape across the commands that print it; and what
 * was a second shape is gone.
 */
TEST_F(umh, json_one_shape_per_concept)
{
	char out[ARRAY_SIZE(runs)][1 << 16];
	size_t i;

	scene(self->root);
	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		const char *argv[8] = { "--json" };

		memcpy(argv + 1, runs[i], sizeof(runs[i]));
		EXPECT_GE(1, run_argv(self->root, true, argv))
			TH_LOG("%s: %s", runs[i][0], res.err);
		ASSERT_JSON(res.out);
		snprintf(out[i], sizeof(out[i]), "%s", res.out);
		/* One schema, one version. */
		ASSERT_JSON_AT(out[i], "version", "2");
		caps_are_names(_metadata, out[i]);
		/* refused is an array of refusals, started a number. */
		each_is(_metadata, out[i], "\"refused\":", "[");
		each_is(_metadata, out[i], "\"started\":", NUMBER);
		each_is(_metadata, out[i], "\"learned_from\":", "{");
		ASSERT_LACKS(out[i], "\"identities\":[");
		ASSERT_LACKS(out[i], "_caps_caps");
		ASSERT_LACKS(out[i], "\"caps_caps\"");
		ASSERT_LACKS(out[i], "\"uid\":null");
		ASSERT_LACKS(out[i], "\"user\":null");
	}
	/* The saved boots learned from: one object, wherever. */
	learned_from_shape(_metadata, out[1]);
	learned_from_shape(_metadata, out[2]);
	learned_from_shape(_metadata, out[3]);
	learned_from_shape(_metadata, out[4]);
	ASSERT_JSON_AT(out[1], "learned_from.saved_boots", "2");
	/* A refusal, in learn and in refusals. */
	refusal_shape(_metadata, out[1], "purposes.1.refused.0");
	refusal_shape(_metadata, out[9], "boots.0.refusals.0");
	refusal_shape(_metadata, out[12], "refusals.0");
	ASSERT_JSON_AT(out[12], "purposes.1.identity", "{\"uid\":0,\"gid\":0}");
	/* A saved boot: one object, listed or forgotten; its record a record. */
	ASSERT_KIND(out[13], "boots.1.started", NUMBER);
	ASSERT_KIND(out[13], "boots.1.purposes.1.started", NUMBER);
	ASSERT_KIND(out[13], "boots.1.purposes.1.used_caps", "[");
	ASSERT_KIND(out[13], "boots.1.refused", "[");
	ASSERT_JSON_AT(out[13], "boots.1.boot_id", "\"" BOOT_B "\"");
	ASSERT_JSON_AT(out[14], "boot.boot_id", "\"" BOOT_B "\"");
	ASSERT_KIND(out[14], "boot.purposes.1.started", NUMBER);
	ASSERT_JSON_AT(out[14], "boot.saved", json_get(out[13], "boots.1.saved"));
	/* Helpers started: a number, per purpose and in all, learn and save. */
	ASSERT_KIND(out[1], "started", NUMBER);
	ASSERT_KIND(out[1], "purposes.0.started", NUMBER);
	ASSERT_KIND(out[7], "started", NUMBER);
	ASSERT_JSON_AT(out[7], "purposes.0.purpose", "\"modprobe\"");
	ASSERT_JSON_AT(out[7], "purposes.0.started", "4");
	/* An identity: root too, wherever. */
	ASSERT_JSON_AT(out[0], "identities.modprobe", "{\"uid\":0,\"gid\":0}");
	ASSERT_JSON_AT(out[0], "identities.coredump", "{\"uid\":998,\"gid\":998}");
	ASSERT_JSON_AT(out[1], "identities.coredump", "{\"uid\":998,\"gid\":998}");
	ASSERT_JSON_AT(out[5], "purposes.0.purpose", "\"modprobe\"");
	ASSERT_JSON_AT(out[5], "purposes.0.identity", "{\"uid\":0,\"gid\":0}");
	ASSERT_JSON_AT(out[4], "purposes.1.identity", "{\"uid\":998,\"gid\":998}");
	ASSERT_JSON_AT(out[8], "purposes.1.before", "{\"uid\":998,\"gid\":998}");
	ASSERT_JSON_AT(out[8], "purposes.1.after", "{\"uid\":0,\"gid\":0}");
	/* policy: what a row needs, and who it ran as. */
	ASSERT_KIND(out[6], "rows.0.needed_caps", "[");
	ASSERT_JSON_AT(out[6], "rows.0.user", "\"root\"");
}

/* Add the words of @n bytes of roff at @s to @f, each on a line. */
static void roff_words(FILE *f, const char *s, size_t n)
{
	const char *e = s + n;

	while (s < e) {
		if (*s == '\\') {
			/* \(xx, \fX, \-, \e, \& ...: no part of a word. */
			s += s + 1 < e && s[1] == '(' ? 4 : s + 1 < e && s[1] == 'f' ? 3 : 2;
			fputc('\n', f);
			continue;
		}
		fputc(isalnum((unsigned char)*s) || *s == '_' ? *s : '\n', f);
		s++;
	}
	fputc('\n', f);
}

/*
 * The words umhcap.8's JSON OUTPUT section documents as members: what it
 * sets in bold (.B, the bold arguments of .BR, .RB, .BI and .IB, and
 * \fB...), what it quotes as a key (\(dqKEY\(dq), and the keys of its
 * examples ("KEY":); "\n"-separated, with "\n" first.  NULL without the
 * section.
 */
static char *man_json_words(void)
{
	char *man = slurp_file(src_path("umhcap.8")), *sec, *end, *line, *nl;
	char *s, *q, *buf = NULL, args[16][256];
	size_t len = 0, n, i, nargs;
	bool ex = false;
	FILE *f;

	if (!man)
		return NULL;
	sec = strstr(man, "\n.SH JSON OUTPUT\n");
	if (!sec) {
		free(man);
		return NULL;
	}
	sec += strlen("\n.SH JSON OUTPUT\n");
	end = strstr(sec, "\n.SH ");
	if (end)
		end[1] = '\0';
	f = open_memstream(&buf, &len);
	if (!f)
		abort();
	fputc('\n', f);
	for (line = sec; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (!strcmp(line, ".EX") || !strcmp(line, ".EE")) {
			ex = line[2] == 'X';
			continue;
		}
		/* "KEY": of an example, \(dqKEY\(dq anywhere. */
		for (s = line; ex && (s = strchr(s, '"')); s = q) {
			q = s + 1 + strspn(s + 1, "abcdefghijklmnopqrstuvwxyz0123456789_");
			if (*q == '"' && q[1] == ':' && q > s + 1)
				fprintf(f, "%.*s\n", (int)(q - s - 1), s + 1);
			q += *q == '"';
		}
		for (s = line; (s = strstr(s, "\\(dq")); s = q) {
			s += 4;
			q = s + strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");
			if (q > s && !strncmp(q, "\\(dq", 4))
				fprintf(f, "%.*s\n", (int)(q - s), s);
		}
		/* \fB...\f? */
		for (s = line; (s = strstr(s, "\\fB")); s = q) {
			s += 3;
			q = strstr(s, "\\f") ?: s + strlen(s);
			roff_words(f, s, q - s);
		}
		if (ex || line[0] != '.')
			continue;
		/* A font macro's arguments, quoted ones whole. */
		n = strcspn(line, " ");
		for (s = line + n, nargs = 0; *s && nargs < ARRAY_SIZE(args); ) {
			s += strspn(s, " ");
			if (!*s)
				break;
			q = *s == '"' ? strchr(s + 1, '"') : s + strcspn(s, " ");
			if (!q)
				q = s + strlen(s);
			snprintf(args[nargs++], sizeof(args[0]), "%.*s",
				 (int)(q - s - (*s == '"')), s + (*s == '"'));
			s = q + (*q == '"');
		}
		for (i = 0; i < nargs; i++)
			if ((n == 2 && !strncmp(line, ".B", 2)) ||
			    (n == 3 && (!strncmp(line, ".BR", 3) ||
					!strncmp(line, ".BI", 3)) && i % 2 == 0) ||
			    (n == 3 && (!strncmp(line, ".RB", 3) ||
					!strncmp(line, ".IB", 3)) && i % 2 == 1))
				roff_words(f, args[i], strlen(args[i]));
	}
	fclose(f);
	free(man);
	return buf;
}

/* Is @key a word of @words (man_json_words())? */
static bool has_key(const char *words, const char *key)
{
	char want[128];

	snprintf(want, sizeof(want), "\n%s\n", key);
	return strstr(words, want) != NULL;
}

/*
 * Is @key documented in @words: itself, or, as KEY_caps, the names of a
 * set the section documents (KEY), and what it says of every *_caps.
 */
static bool documented(const char *words, const char *key)
{
	size_t n = strlen(key);
	char base[128];

	if (has_key(words, key))
		return true;
	if (n <= 5 || n >= sizeof(base) || strcmp(key + n - 5, "_caps"))
		return false;
	snprintf(base, sizeof(base), "%.*s", (int)(n - 5), key);
	return has_key(words, base) && has_key(words, "_caps");
}

/*
 * The keys of the objects of the JSON text @json, each once, "\n"-separated,
 * added to @keys (@size bytes, "\n" first): every string that a ':'
 * follows.  A purpose's name, the key of a map by purpose (identities),
 * is no member of the schema.
 */
static void json_keys(const char *json, char *keys, size_t size)
{
	const char *s = json, *e;
	char key[128], want[130];

	while ((s = strchr(s, '"'))) {
		for (e = s + 1; *e && *e != '"'; e++)
			e += *e == '\\';
		if (!*e)
			return;
		snprintf(key, sizeof(key), "%.*s", (int)(e - s - 1), s + 1);
		s = e + 1;
		while (*s == ' ' || *s == '\n' || *s == '\t')
			s++;
		if (*s != ':' || umh_purpose_lookup(key) >= 0)
			continue;
		snprintf(want, sizeof(want), "\n%s\n", key);
		if (!strstr(keys, want) && strlen(keys) + strlen(key) + 2 < size)
			strcat(strcat(keys, key), "\n");
	}
}

/*
 * Every member any command prints with --json, in the objects of the
 * commands of json_one_shape_per_concept and of those that print more
 * (a fleet, trace's lines, a drop-in of user's, boot --remove's files),
 * is documented in umhcap.8's JSON OUTPUT, as a bold or quoted word of
 * that section: a member added to the tool is added to the schema.
 */
TEST_F(umh, json_every_key_in_the_man_page)
{
	char fa[PATH_MAX], fb[PATH_MAX];
	const char *const more[][10] = {
		{ "--json", "learn", "--from", fa, "--from", fb },
		{ "--json", "export", "--learned", "--json", "--from", fa,
		  "--from", fb },
		{ "--json", "trace" },
		{ "--json", "user", "-n", "-p", "coredump", "umhjson" },
		{ "--json", "boot" },
		{ "--json", "boot", "--remove", "-n" },
		{ "--json", "keep", "-n", "-p", "coredump", "cap_chown" },
	};
	const struct boot_rec a = {
		.started = { 3, 2, 1 },
		.used = { B(CAP_SYS_MODULE) | CD_USED, B(CAP_SYS_MODULE), CD_USED },
	}, b = {
		.started = { 2, 2 },
		.used = { B(CAP_SYS_MODULE) | B(CAP_KILL),
			  B(CAP_SYS_MODULE) | B(CAP_KILL) },
	};
	static const char *const shown[] = {
		"bset_caps", "next_boot", "param", "var", "recovery_disabled_by",
		"disagreements", "used_by", "kernels", "trigger_pid",
		"unknown_purpose", "cap_number", "socket_now", "removed",
		"inheritable_after", "findings", "handlers",
	};
	static char keys[1 << 14] = "\n";
	char *words, *k, *nl;
	int missing = 0;
	size_t i;

	words = man_json_words();
	ASSERT_NE(NULL, words) TH_LOG("no JSON OUTPUT section in %s",
				     src_path("umhcap.8"));
	scene(self->root);
	/* Two machines, which disagree, and a boot under both. */
	snprintf(fa, sizeof(fa), "%s/fleet/a", self->root);
	snprintf(fb, sizeof(fb), "%s/fleet/b", self->root);
	put(self->root, "fleet/a/" BOOT_A, "%skernel 6.12.1\n",
	    saved_text(BOOT_A, SAVED_A, &a));
	put(self->root, "fleet/b/" BOOT_B, "%skernel 6.12.2\n",
	    saved_text(BOOT_B, SAVED_B, &b));
	put(self->root, "fleet/b/" BOOT_A, "%skernel 6.12.1\n",
	    saved_text(BOOT_A, SAVED_A, &a));
	/* A user of the root's, alone in its group; coredump's socket unit. */
	put(self->root, "etc/passwd", "root:x:0:0::/root:/bin/sh\n"
	    "umhjson:x:4343:4343::/:/bin/false\n");
	put(self->root, "etc/group", "root:x:0:\numhjson:x:4343:\n");
	put(self->root, "lib/systemd/system/systemd-coredump.socket", "[Socket]\n");
	/* Bounds and ids of the next boot, set elsewhere than boot sets them. */
	put(self->root, "etc/default/grub",
	    "GRUB_CMDLINE_LINUX=\"usermodehelper.bset=power:0x0\"\n"
	    "GRUB_DISABLE_RECOVERY=true\n");
	put(self->root, "etc/sysctl.d/50-umhcap.conf",
	    "kernel.usermodehelper.coredump.uid = 998\n");
	trace_scene(self->root);
	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		const char *argv[8] = { "--json" };

		memcpy(argv + 1, runs[i], sizeof(runs[i]));
		EXPECT_GE(1, run_argv(self->root, true, argv))
			TH_LOG("%s: %s", runs[i][0], res.err);
		json_keys(res.out, keys, sizeof(keys));
	}
	for (i = 0; i < ARRAY_SIZE(more); i++) {
		EXPECT_GE(1, run_argv(self->root, true, (const char **)more[i]))
			TH_LOG("%s: %s", more[i][1], res.err);
		ASSERT_NE('\0', res.out[0]) TH_LOG("%s printed nothing", more[i][1]);
		json_keys(res.out, keys, sizeof(keys));
	}
	/* Each run showed what it is here for. */
	for (i = 0; i < ARRAY_SIZE(shown); i++) {
		ASSERT_TRUE(has_key(keys, shown[i]))
			TH_LOG("no \"%s\" in what the commands printed", shown[i]);
	}
	for (k = keys + 1; (nl = strchr(k, '\n')); k = nl + 1) {
		*nl = '\0';
		if (!documented(words, k)) {
			TH_LOG("\"%s\": printed with --json, not in umhcap.8's JSON OUTPUT", k);
			missing++;
		}
		*nl = '\n';
	}
	EXPECT_EQ(0, missing);
	free(words);
}
