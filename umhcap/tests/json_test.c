// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap's one JSON schema: each concept (capability set,
 * identity, refusal, the saved boots learned from, a saved boot, helpers
 * started) has
 * one shape, whichever command prints it, as umhcap(8)'s JSON OUTPUT
 * says.
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

/*
 * Each concept one shape across the commands that print it; and what
 * was a second shape is gone.
 */
TEST_F(umh, json_one_shape_per_concept)
{
	static const char *const runs[][6] = {
		{ "show" }, { "learn" }, { "learn", "--apply", "-n" },
		{ "boot", "-n" }, { "export", "--learned", "--json" },
		{ "export", "--json" }, { "policy" }, { "save", "-n" },
		{ "user", "-n", "-p", "modprobe,coredump", "root" },
		{ "refusals" }, { "check" },
		{ "drop", "-n", "-p", "coredump", "cap_kill" }, { "status" },
		{ "boots" }, { "boots", "-n", "--forget", BOOT_B },
	};
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
