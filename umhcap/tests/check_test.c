// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap check (check.c).
 */
#include "common.h"

/* What a finding of an item of the kernel command line ends with. */
#define CMDLINE_FIX "; correct it where the boot loader gets it (/etc/default/grub, /etc/kernel/cmdline), or, if umhcap wrote it: umhcap boot --remove"

/* The lowest capability outside @m: one bit too wide. */
static uint64_t one_more(uint64_t m)
{
	int i;

	for (i = 0; i < cap_max_bits(); i++)
		if (!(m & B(i)))
			return B(i);
	abort();
}

/* @m as keep takes it: "cap_a,cap_b", or "none". */
static const char *keep_list(uint64_t m)
{
	const char *s = names(m);
	char *b = slot_buf(), *d = b;

	for (; *s; s++)
		if (*s != ' ')
			*d++ = *s;
	*d = '\0';
	return b;
}

/*
 * check's finding for measured purpose @p with ceiling @ceiling, its
 * bset @bset.
 */
static const char *measured_finding_bset(const char *p, uint64_t ceiling,
					 uint64_t bset)
{
	const struct umh_measured *m = row(p);
	char *b = slot_buf();

	snprintf(b, 2048, "%s: ceiling exceeds what %s (%s %s) was measured to need on %s (%s) by: %s; bound it to that: umhcap keep -p %s %s\n",
		 p, m->program, m->package, m->version,
		 umh_measured_conf_name(m->conf), fmt(m->caps),
		 fmt(ceiling & ~m->caps), p, keep_list(m->caps & bset));
	return b;
}

/* The same, its bset the ceiling. */
static const char *measured_finding(const char *p, uint64_t ceiling)
{
	return measured_finding_bset(p, ceiling, ceiling);
}

/* ... for a purpose no helper of which was measured, with the record. */
static const char *unmeasured_finding(const char *p, uint64_t ceiling,
				      uint64_t used, unsigned long long n)
{
	char *b = slot_buf();

	snprintf(b, 2048, "%s: no helper of this purpose was measured; its ceiling exceeds what the kernel's record shows its helpers used (%s, %llu started) by: %s; bound it to that: umhcap learn --apply --include-idle %s\n",
		 p, fmt(used), n, fmt(ceiling & ~used), p);
	return b;
}

/* Either, for purpose @p when no helper started since boot. */
static const char *finding_for(const char *p, uint64_t ceiling)
{
	return row(p) ? measured_finding(p, ceiling) :
			unmeasured_finding(p, ceiling, 0, 0);
}

/* What check notes on a kernel without per-purpose bounds. */
static const char *unpatched_notes(const char *root, uint64_t gbset)
{
	char *b = slot_buf();

	snprintf(b, 2048,
		 "note: this kernel keeps no record of what helpers use (no %s/" UMH "/used); unused capabilities were not checked\n"
		 "note: per-purpose bounds are not available on this kernel; checked the global bound against what any measured helper needs; every helper gets it, so what one helper needs every helper gets: %s\n",
		 root, fmt(gbset & umh_measured_union()));
	return b;
}

/* Every purpose open, nothing started: every purpose is a finding. */
TEST_F(umh, check_open_patched)
{
	char want[1 << 15] = "";
	size_t i;

	ASSERT_EQ(1, RUN(self->root, "check"));
	for (i = 0; i < NR_PURPOSES; i++)
		strcat(want, finding_for(purposes[i], full()));
	snprintf(want + strlen(want), sizeof(want) - strlen(want),
		 "%zu findings\n", NR_PURPOSES);
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.out, "modprobe: ceiling exceeds what /sbin/modprobe (kmod ");
	ASSERT_HAS(res.out, "initrd: no helper of this purpose was measured;");
	ASSERT_STREQ("", res.err);
}

/*
 * An unpatched kernel, open: every helper gets every capability, so the
 * global bound beyond what any measured helper needs is a finding, and
 * what one needs (cap_sys_module, for modprobe) every helper gets.
 */
TEST_F(umh, check_open_unpatched)
{
	uint64_t excess = full() & ~umh_measured_union();
	const char *note;
	char want[8192], keep[1024], notes[2048];

	unpatch(self->root);
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(keep, sizeof(keep), "%s", keep_list(umh_measured_union()));
	snprintf(notes, sizeof(notes), "%s", unpatched_notes(self->root, full()));
	snprintf(want, sizeof(want),
		 "all: the global bound, which every helper gets, exceeds what any measured helper needs (%s) by: %s; bound it to that: umhcap keep -p all %s\n"
		 "%s1 finding\n", fmt(umh_measured_union()), fmt(excess),
		 keep, notes);
	ASSERT_STREQ(want, res.out);
	/* What every helper gets beyond: all but the few some need. */
	ASSERT_HAS(res.out, "by: all except cap_chown, ");
	/* What modprobe needs goes to every helper: said, not counted. */
	note = strstr(res.out, "every helper gets: ");
	ASSERT_NE(NULL, note);
	ASSERT_NE(0ULL, need("modprobe") & B(CAP_SYS_MODULE));
	ASSERT_TRUE(strstr(note, "cap_sys_module") < strchr(note, '\n'));
}

/* The global bound at what the measured helpers need: nothing to do. */
TEST_F(umh, check_unpatched_union)
{
	uint64_t u = umh_measured_union(), extra = one_more(u);
	char want[4096], keep[1024];

	unpatch(self->root);
	set_bound(self->root, NULL, u, u);
	ASSERT_EQ(0, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "%sno findings\n",
		 unpatched_notes(self->root, u));
	ASSERT_STREQ(want, res.out);
	/* One capability more is that finding. */
	set_bound(self->root, NULL, u | extra, u | extra);
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(keep, sizeof(keep), "%s", keep_list(u));
	snprintf(want, sizeof(want),
		 "all: the global bound, which every helper gets, exceeds what any measured helper needs (%s) by: %s; bound it to that: umhcap keep -p all %s\n"
		 "%s1 finding\n", fmt(u), names(extra), keep,
		 unpatched_notes(self->root, u));
	ASSERT_STREQ(want, res.out);
}

TEST_F(umh, check_narrowed_to_table)
{
	harden(self->root);
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
}

/* One bit too wide on any one purpose: exactly that finding. */
TEST_F(umh, check_one_bit_too_wide)
{
	char want[4096];
	uint64_t m;
	size_t i;

	for (i = 0; i < NR_PURPOSES; i++) {
		harden(self->root);
		m = need(purposes[i]) | one_more(need(purposes[i]));
		set_bound(self->root, purposes[i], m, m);
		ASSERT_EQ(1, RUN(self->root, "check"));
		snprintf(want, sizeof(want), "%s1 finding\n",
			 finding_for(purposes[i], m));
		ASSERT_STREQ(want, res.out);
	}
}

TEST_F(umh, check_global_bound_limits_ceiling)
{
	char want[1 << 15] = "";
	int n = 0;
	size_t i;

	/* All purposes open, but the global bound keeps only sys_module. */
	set_bound(self->root, NULL, B(CAP_SYS_MODULE), B(CAP_SYS_MODULE));
	for (i = 0; i < NR_PURPOSES; i++) {
		set_bound(self->root, purposes[i], full(), full());
		if (need(purposes[i]) & B(CAP_SYS_MODULE))
			continue;
		/* keep narrows the purpose's own bset, which is open. */
		strcat(want, row(purposes[i]) ?
		       measured_finding_bset(purposes[i], B(CAP_SYS_MODULE),
					     full()) :
		       unmeasured_finding(purposes[i], B(CAP_SYS_MODULE), 0, 0));
		n++;
	}
	sprintf(want + strlen(want), "%d findings\n", n);
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.out, "initrd: no helper of this purpose was measured; its ceiling exceeds what the kernel's record shows its helpers used (none, 0 started) by: cap_sys_module;");
	ASSERT_LACKS(res.out, "modprobe:");
}

/*
 * No helper of initrd was measured: its ceiling is held to what the
 * kernel's record shows it used, and reported once, not also as "never
 * used".
 */
TEST_F(umh, check_unmeasured_follows_record)
{
	uint64_t used = B(CAP_KILL) | B(CAP_CHOWN);
	char want[4096];

	harden(self->root);
	set_record(self->root, "initrd", used, 2);
	set_bound(self->root, "initrd", used, used);
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
	set_bound(self->root, "initrd", full(), full());
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "%s1 finding\n",
		 unmeasured_finding("initrd", full(), used, 2));
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.out, "(cap_chown, cap_kill, 2 started)");
	/* Narrower than what it used: the record's own finding remains. */
	set_bound(self->root, "initrd", B(CAP_KILL), B(CAP_KILL));
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_STREQ("initrd: its helpers used capabilities since boot that the bound no longer allows: cap_chown; they may fail now; give them back from the next boot: umhcap boot --allow initrd:cap_chown\n"
		     "1 finding\n", res.out);
}

TEST_F(umh, check_disagree)
{
	char want[256];

	harden(self->root);
	ASSERT_NE(0ULL, need("modprobe"));
	set_bound(self->root, "modprobe", need("modprobe"), 0);
	set_bound(self->root, NULL, full(), full() & ~B(CAP_SYSLOG));
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "modprobe: bset and inheritable disagree: only in bset: %s; make them agree: umhcap drop -p modprobe %s\n",
		 fmt(need("modprobe")), keep_list(need("modprobe")));
	ASSERT_HAS(res.out, want);
	ASSERT_HAS(res.out, "all: bset and inheritable disagree: only in bset: cap_syslog; make them agree: umhcap drop -p all cap_syslog\n");
	ASSERT_HAS(res.out, "2 findings\n");
}

TEST_F(umh, check_cmdline_malformed)
{
	harden(self->root);
	put(self->root, "proc/cmdline",
	    "quiet usermodehelper.bset=all:0x1ff,foo:0x1,modprobe:0xzz,"
	    "nocolon,,power:0x1 usermodehelper.inheritable= ro\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: unknown purpose \"foo\" in item \"foo:0x1\": every helper's bset is bounded to nothing" CMDLINE_FIX "\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: bad hex mask \"0xzz\" in item \"modprobe:0xzz\": modprobe's bset is bounded to nothing" CMDLINE_FIX "\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: missing colon in item \"nocolon\": every helper's bset is bounded to nothing" CMDLINE_FIX "\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: empty item: every helper's bset is bounded to nothing" CMDLINE_FIX "\n");
	ASSERT_HAS(res.out, "cmdline: usermodehelper.inheritable: empty item: every helper's inheritable is bounded to nothing" CMDLINE_FIX "\n");
	ASSERT_HAS(res.out, "5 findings\n");
}

/*
 * The command line is not umhcap's text: an item's bytes outside
 * printable ASCII, and its quotes, come out escaped, so that an escape
 * sequence in it cannot colour a terminal or forge a line of the report.
 */
TEST_F(umh, check_cmdline_escaped)
{
	const char *p;

	harden(self->root);
	put(self->root, "proc/cmdline",
	    "usermodehelper.bset=\x1b[2K\x1b[1Gno_findings\x1b[8m:0x1,"
	    "modprobe:0x\x7f,a\\b\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "cmdline: usermodehelper.bset: unknown purpose \"\\x1b[2K\\x1b[1Gno_findings\\x1b[8m\" in item \"\\x1b[2K\\x1b[1Gno_findings\\x1b[8m:0x1\": every helper's bset is bounded to nothing" CMDLINE_FIX "\n");
	ASSERT_HAS(res.out, "bad hex mask \"0x\\x7f\" in item \"modprobe:0x\\x7f\"");
	ASSERT_HAS(res.out, "missing colon in item \"a\\\\b\"");
	for (p = res.out; *p; p++)
		ASSERT_TRUE(*p == '\n' || (*p >= 0x20 && *p < 0x7f))
			TH_LOG("raw byte 0x%02x in the report", (unsigned char)*p);
}

/*
 * The kernel fails closed: a bad mask bounds the purpose it names to
 * nothing (all: every helper), in the set of its parameter.  A mask is
 * bad when empty after 0x or longer than 16 hex digits; 16 are fine.
 */
TEST_F(umh, check_cmdline_fails_closed)
{
	harden(self->root);
	put(self->root, "proc/cmdline",
	    "usermodehelper.bset=coredump:0x,uevent:1ffffffffffffffff,"
	    "request_key:0xffffffffffffffff,all:zz "
	    "usermodehelper.inheritable=power:0,,"
	    "initrd:0X12345678901234567,other:0123456789abcdef\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_STREQ("cmdline: usermodehelper.bset: bad hex mask \"0x\" in item \"coredump:0x\": coredump's bset is bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.bset: bad hex mask \"1ffffffffffffffff\" in item \"uevent:1ffffffffffffffff\": uevent's bset is bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.bset: bad hex mask \"zz\" in item \"all:zz\": every helper's bset is bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.inheritable: empty item: every helper's inheritable is bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.inheritable: bad hex mask \"0X12345678901234567\" in item \"initrd:0X12345678901234567\": initrd's inheritable is bounded to nothing" CMDLINE_FIX "\n"
		     "5 findings\n", res.out);
}

TEST_F(umh, check_cmdline_valid)
{
	harden(self->root);
	put(self->root, "proc/cmdline",
	    "usermodehelper.bset=all:1FFFFFFFFFF,coredump:0x0 "
	    "\"usermodehelper.inheritable=modprobe:0X10000\" "
	    "usermodehelper_x=foo:zz\n");
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
}

/*
 * usermodehelper.uid= and .gid= items, as the kernel reads them: a
 * decimal id of 32 bits but -1, at most 10 digits; a bad one bounds its
 * purpose's helpers to nothing, and one whose purpose cannot be read,
 * or all's, every helper.  No item after a last comma.
 */
TEST_F(umh, check_cmdline_ids)
{
	harden(self->root);
	put(self->root, "proc/cmdline",
	    "usermodehelper.uid=coredump:998,modprobe:4294967294,power:0,"
	    "request_key:0000000001, usermodehelper.gid=all:997\n");
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
	put(self->root, "proc/cmdline",
	    "usermodehelper.uid=coredump:,modprobe:4294967295,power:-1,"
	    "uevent:12345678901,initrd:0x10,all:x,foo:1,nocolon,,"
	    "release_agent:1.5 usermodehelper.gid=other:+5\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_STREQ("cmdline: usermodehelper.uid: bad id \"\" in item \"coredump:\": coredump's helpers are bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.uid: bad id \"4294967295\" in item \"modprobe:4294967295\": modprobe's helpers are bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.uid: bad id \"-1\" in item \"power:-1\": power's helpers are bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.uid: bad id \"12345678901\" in item \"uevent:12345678901\": uevent's helpers are bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.uid: bad id \"0x10\" in item \"initrd:0x10\": initrd's helpers are bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.uid: bad id \"x\" in item \"all:x\": every helper is bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.uid: malformed item \"foo:1\": every helper is bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.uid: malformed item \"nocolon\": every helper is bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.uid: malformed item \"\": every helper is bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.uid: bad id \"1.5\" in item \"release_agent:1.5\": release_agent's helpers are bounded to nothing" CMDLINE_FIX "\n"
		     "cmdline: usermodehelper.gid: bad id \"+5\" in item \"other:+5\": other's helpers are bounded to nothing" CMDLINE_FIX "\n"
		     "11 findings\n", res.out);
}

TEST_F(umh, check_unpatched_disagree)
{
	uint64_t u = umh_measured_union();

	unpatch(self->root);
	set_bound(self->root, NULL, u, 0);
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "per-purpose bounds are not available");
	ASSERT_TRUE(!strncmp(res.out, "all: bset and inheritable disagree: only in bset: ", 50));
	ASSERT_HAS(res.out, "\n1 finding\n");
}

TEST_F(umh, check_missing_cmdline)
{
	harden(self->root);
	rm_file(self->root, "proc/cmdline");
	ASSERT_EQ(2, RUN(self->root, "check"));
	ASSERT_HAS(res.err, "/proc/cmdline: No such file or directory");
}

TEST_F(umh, check_unused_capabilities)
{
	char want[512];

	harden(self->root);
	ASSERT_NE(0ULL, need("modprobe"));
	set_record(self->root, "modprobe", 0, 2);
	set_record(self->root, "coredump", need("coredump"), 1);
	/* Idle: its empty record says nothing. */
	set_record(self->root, "power", 0, 0);
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "modprobe: the bound allows capabilities its helpers never used since boot (2 started): %s; narrow it to what they used: umhcap learn --apply modprobe\n"
		 "1 finding\n", fmt(need("modprobe")));
	ASSERT_STREQ(want, res.out);
	set_record(self->root, "modprobe", need("modprobe"), 2);
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
}

TEST_F(umh, check_used_now_refused)
{
	uint64_t more = one_more(need("modprobe"));
	char want[1024], give[512] = "";
	int cap;

	more |= one_more(need("modprobe") | more);
	harden(self->root);
	set_record(self->root, "modprobe", need("modprobe") | more, 1);
	ASSERT_EQ(1, RUN(self->root, "check"));
	for (cap = 0; cap < 64; cap++)
		if (more & B(cap))
			snprintf(give + strlen(give), sizeof(give) - strlen(give),
				 "%smodprobe:%s", *give ? "," : "", names(B(cap)));
	snprintf(want, sizeof(want), "modprobe: its helpers used capabilities since boot that the bound no longer allows: %s; they may fail now; give them back from the next boot: umhcap boot --allow %s\n"
		 "1 finding\n", names(more), give);
	ASSERT_STREQ(want, res.out);
}

TEST_F(umh, check_without_record)
{
	char want[PATH_MAX + 128];
	uint64_t m;

	harden(self->root);
	rm_file(self->root, UMH "/used");
	ASSERT_EQ(0, RUN(self->root, "check"));
	snprintf(want, sizeof(want),
		 "note: this kernel keeps no record of what helpers use (no %s/" UMH "/used); unused capabilities were not checked\n"
		 "no findings\n", self->root);
	ASSERT_STREQ(want, res.out);
	m = need("release_agent") | one_more(need("release_agent"));
	set_bound(self->root, "release_agent", m, m);
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, measured_finding("release_agent", m));
	/* No record: what no helper was measured for is held to nothing. */
	set_bound(self->root, "release_agent", need("release_agent"),
		  need("release_agent"));
	set_bound(self->root, "other", B(CAP_KILL), B(CAP_KILL));
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "other: no helper of this purpose was measured, and this kernel keeps no record of what its helpers use; its ceiling allows: cap_kill; bound it to nothing: umhcap drop -p other all\n"
			    "note: this kernel keeps no record");
	ASSERT_HAS(res.out, "\n1 finding\n");
}

/* Is @s valid UTF-8 (RFC 3629)? */
static bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n, i;

	for (; *p; p += n) {
		n = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2 :
		    *p >= 0xe0 && *p <= 0xef ? 3 : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
		if (!n)
			return false;
		for (i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return false;
		if ((*p == 0xe0 && p[1] < 0xa0) || (*p == 0xed && p[1] > 0x9f) ||
		    (*p == 0xf0 && p[1] < 0x90) || (*p == 0xf4 && p[1] > 0x8f))
			return false;
	}
	return true;
}

/*
 * check and check --json on the same tree: the same exit status, and
 * each finding of the text a "text" of the JSON, in order, as many.
 */
static void same_findings(struct __test_metadata *_metadata,
			  const char *root, int code)
{
	char text[sizeof(res.out)], want[sizeof(res.out) + 32], *line, *end;
	const char *at;
	int n = 0;
	size_t i;

	ASSERT_EQ(code, RUN(root, "check"));
	memcpy(text, res.out, sizeof(text));
	ASSERT_EQ(code, RUN(root, "check", "--json"));
	ASSERT_JSON(res.out);
	ASSERT_TRUE(utf8_valid(res.out));
	ASSERT_EQ(0, strncmp(res.out, "{\"version\":2,\"per_purpose\":", 27));
	at = res.out;
	for (line = text; *line; line = end + 1) {
		end = strchr(line, '\n');
		*end = '\0';
		if (!strncmp(line, "note: ", 6)) {
			snprintf(want, sizeof(want), "\n    \"%s\"", line + 6);
			ASSERT_HAS(strstr(res.out, "\"notes\":["), want);
			continue;
		}
		if (!strcmp(line, "no findings") || strstr(line, " finding"))
			continue;
		n++;
		/* Escaped as JSON: bytes beyond " and \\, check_json's. */
		if (line[strspn(line, " !#$%&'()*+,-./0123456789:;<=>?@"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`"
				"abcdefghijklmnopqrstuvwxyz{|}~\"\\")])
			continue;
		for (i = 0, end = want + sprintf(want, ",\"text\":\""); line[i]; i++)
			end += sprintf(end, "%s%c", strchr("\"\\", line[i]) ? "\\" : "",
				       line[i]);
		strcpy(end, "\"}");
		end = line + strlen(line);
		at = strstr(at, want);
		ASSERT_NE(NULL, at) TH_LOG("missing, or out of order: %s", want);
	}
	snprintf(want, sizeof(want), "\n  ],\"count\":%d\n}\n", n);
	ASSERT_HAS(res.out, want);
	ASSERT_EQ(n, count_of(res.out, "{\"kind\":"));
	ASSERT_EQ(0, RUN(root, "--json", "check") == code ? 0 : 1);
	ASSERT_JSON(res.out);
}

TEST_F(umh, check_json)
{
	uint64_t m = B(CAP_SYS_MODULE);

	/* Open: every purpose a finding; hardened: none, exit 0. */
	same_findings(_metadata, self->root, 1);
	ASSERT_HAS(res.out, "{\"kind\":\"ceiling\",\"purpose\":\"modprobe\",\"mask\":\"0x");
	ASSERT_HAS(res.out, "\"per_purpose\":true,\"record\":true,");
	harden(self->root);
	same_findings(_metadata, self->root, 0);
	ASSERT_HAS(res.out, "\"findings\":[\n  ],\"notes\":[\n  ],\"count\":0\n}\n");

	/* One bit too wide; bset and inheritable that disagree. */
	set_bound(self->root, "modprobe", m | B(CAP_KILL), m);
	same_findings(_metadata, self->root, 1);
	ASSERT_HAS(res.out, "{\"kind\":\"ceiling\",\"purpose\":\"modprobe\",\"mask\":\"0x20\",\"mask_caps\":[\"cap_kill\"],\"text\":\"modprobe: ceiling exceeds what ");
	ASSERT_HAS(res.out, "{\"kind\":\"disagree\",\"purpose\":\"modprobe\",\"mask\":\"0x20\",\"mask_caps\":[\"cap_kill\"],\"text\":\"modprobe: bset and inheritable disagree: only in bset: cap_kill; make them agree: umhcap drop -p modprobe cap_kill\"}");

	/* The record: unused and refused. */
	harden(self->root);
	set_record(self->root, "modprobe", B(CAP_SYS_MODULE), 3);
	set_bound(self->root, "modprobe", 0, 0);
	same_findings(_metadata, self->root, 1);
	ASSERT_HAS(res.out, "{\"kind\":\"refused\",\"purpose\":\"modprobe\",\"mask\":\"0x10000\",\"mask_caps\":[\"cap_sys_module\"],");

	/* The command line; what it holds escaped, and valid UTF-8. */
	harden(self->root);
	put(self->root, "proc/cmdline",
	    "usermodehelper.bset=all:0x1ff,modprobe:0xzz,nocolon,,"
	    "coredump:z\001\\\377\303\251\n");
	same_findings(_metadata, self->root, 1);
	ASSERT_HAS(res.out, "{\"kind\":\"cmdline\",\"purpose\":\"modprobe\",\"mask\":\"0x0\",\"mask_caps\":[],\"text\":\"cmdline: usermodehelper.bset: bad hex mask \\\"0xzz\\\" in item \\\"modprobe:0xzz\\\": modprobe's bset is bounded to nothing" CMDLINE_FIX "\"}");
	ASSERT_HAS(res.out, "{\"kind\":\"cmdline\",\"purpose\":\"all\",\"mask\":\"0x0\",\"mask_caps\":[],\"text\":\"cmdline: usermodehelper.bset: empty item: ");
	ASSERT_HAS(res.out, "bad hex mask \\\"z\\\\x01\\\\\\\\\\\\xff\\\\xc3\\\\xa9\\\" in item");
	ASSERT_HAS(res.out, "\"count\":4\n}\n");

	/* Notes: no record; no per-purpose bounds. */
	put(self->root, "proc/cmdline", "quiet\n");
	rm_file(self->root, UMH "/used");
	same_findings(_metadata, self->root, 0);
	ASSERT_HAS(res.out, "\"record\":false,");
	ASSERT_HAS(res.out, "\"notes\":[\n    \"this kernel keeps no record of what helpers use (no ");
	unpatch(self->root);
	set_bound(self->root, NULL, umh_measured_union(), umh_measured_union());
	same_findings(_metadata, self->root, 0);
	ASSERT_HAS(res.out, "\"per_purpose\":false,");
	ASSERT_HAS(res.out, "\n    \"per-purpose bounds are not available on this kernel; ");

	/* An error: exit 2, and nothing on stdout. */
	rm_file(self->root, "proc/cmdline");
	ASSERT_EQ(2, RUN(self->root, "check", "--json"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "/proc/cmdline: No such file or directory");

	/* As its help says. */
	ASSERT_EQ(0, RUN(self->root, "check", "--help"));
	ASSERT_HAS(res.out, "usage: umhcap check [--json]\n");
	ASSERT_HAS(res.out, "With --json, the same findings and\nnotes as one JSON object, and the same exit status.");
	ASSERT_HAS(res.out, "\n  --json                  machine-readable output\n");
}

/*
 * A purpose the kernel has and umhcap does not know (a newer kernel's)
 * is a finding, in text and JSON, not silence; its name is escaped.
 */
TEST_F(umh, check_unknown_purpose)
{
	harden(self->root);
	ASSERT_EQ(0, RUN(self->root, "check"));
	set_bound(self->root, "newpurpose", full(), full());
	set_bound(self->root, "odd\x1b[1m", full(), full());
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "newpurpose: a purpose this kernel has and umhcap does not know: its helpers' bounds, record and program are not checked; a newer umhcap knows it\n");
	ASSERT_HAS(res.out, "odd\\x1b[1m: a purpose this kernel has");
	ASSERT_HAS(res.out, "2 findings\n");
	ASSERT_EQ(1, RUN(self->root, "--json", "check"));
	ASSERT_JSON(res.out);
	ASSERT_HAS(res.out, "{\"kind\":\"unknown\",\"purpose\":\"all\"");
	ASSERT_HAS(res.out, "\"count\":2\n}\n");
}

/* Debian 12's knobs, as installed: no uevent helper at all. */
static void debian_knobs(const char *root)
{
	put(root, MODPROBE_KNOB, "/sbin/modprobe\n");
	put(root, CORE_PATTERN,
	    "|/lib/systemd/systemd-coredump %%P %%u %%g %%s %%t 9223372036854775808 %%h\n");
	put(root, POWEROFF_CMD, "/sbin/poweroff\n");
	rm_file(root, UEVENT_HELPER);
}

/*
 * Each purpose judged by the program its knob names: on Debian 12 as
 * installed, uevent starts no helper, so any bound of it is a finding,
 * and busybox's mdev is not named.
 */
TEST_F(umh, check_reads_configured_programs)
{
	char want[4096];

	harden(self->root);
	debian_knobs(self->root);
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want),
		 "uevent: no helper of this purpose starts (/sys/kernel/uevent_helper: this kernel has no such file); its ceiling allows: %s; bound it to nothing: umhcap drop -p uevent all\n"
		 "1 finding\n", names(need("uevent")));
	ASSERT_STREQ(want, res.out);
	ASSERT_EQ(0, count_of(res.out, "mdev"));
	/* Bounded to nothing: nothing to say. */
	set_bound(self->root, "uevent", 0, 0);
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
	/* An empty knob says the same; so does a core_pattern of a file. */
	put(self->root, UEVENT_HELPER, "\n");
	put(self->root, CORE_PATTERN, "core\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want),
		 "coredump: no helper of this purpose starts (/proc/sys/kernel/core_pattern: not a pipe: the kernel writes core files itself); its ceiling allows: %s; bound it to nothing: umhcap drop -p coredump all\n"
		 "1 finding\n", names(need("coredump")));
	ASSERT_STREQ(want, res.out);
	/* One capability on an unused purpose is a finding. */
	set_bound(self->root, "uevent", B(CAP_MKNOD), B(CAP_MKNOD));
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "uevent: no helper of this purpose starts (/sys/kernel/uevent_helper: empty); its ceiling allows: cap_mknod; ");
}

/*
 * A program with no measured row is named, and held to the record, as a
 * purpose no helper of which was measured; its bytes escaped.
 */
TEST_F(umh, check_program_without_row)
{
	uint64_t used = B(CAP_SYS_PTRACE);
	char want[4096];

	harden(self->root);
	debian_knobs(self->root);
	set_bound(self->root, "uevent", 0, 0);
	put(self->root, CORE_PATTERN, "|/usr/share/apport/apport -p%%p -s%%s\n");
	set_record(self->root, "coredump", used, 3);
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want),
		 "coredump: no measured row for /usr/share/apport/apport (/proc/sys/kernel/core_pattern); its ceiling exceeds what the kernel's record shows its helpers used (%s, 3 started) by: %s; bound it to that: umhcap learn --apply --include-idle coredump\n"
		 "1 finding\n", fmt(used), names(need("coredump") & ~used));
	ASSERT_STREQ(want, res.out);
	/* Its bound at what it used: nothing to say of it. */
	set_bound(self->root, "coredump", used, used);
	ASSERT_EQ(0, RUN(self->root, "check"));
	/* A byte of the knob's is escaped, ESC included. */
	set_bound(self->root, "coredump", full(), full());
	put(self->root, CORE_PATTERN, "|/tmp/\033[31mred %%P\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "coredump: no measured row for /tmp/\\x1b[31mred (/proc/sys/kernel/core_pattern); ");
	ASSERT_EQ(0, count_of(res.out, "\033"));
}

/*
 * The row of the program the knob names, by its path or by the file it
 * is; of its own users where the purpose has one.
 */
TEST_F(umh, check_program_row_by_file_and_user)
{
	const struct umh_measured *m;
	char want[4096], path[PATH_MAX];

	harden(self->root);
	debian_knobs(self->root);
	set_bound(self->root, "uevent", 0, 0);
	/* Merged /usr: /sbin is usr/sbin. */
	put(self->root, "usr/sbin/modprobe", "");
	snprintf(path, sizeof(path), "%s/sbin", self->root);
	ASSERT_EQ(0, symlink("usr/sbin", path));
	put(self->root, MODPROBE_KNOB, "/usr/sbin/modprobe\n");
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
	/* Not the same file: no row. */
	put(self->root, "usr/bin/modprobe", "");
	put(self->root, MODPROBE_KNOB, "/usr/bin/modprobe\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "modprobe: no measured row for /usr/bin/modprobe (/proc/sys/kernel/modprobe); ");
	put(self->root, MODPROBE_KNOB, "/sbin/modprobe\n");
	/* coredump as its own user: held to that row, which needs less. */
	m = umh_measured_find(UMH_COREDUMP, UMH_CONF_INSTALLED_USER);
	ASSERT_NE(NULL, m);
	ASSERT_NE(m->caps, need("coredump"));
	set_ident(self->root, "coredump", 998, 997);
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want),
		 "coredump: ceiling exceeds what /lib/systemd/systemd-coredump (systemd-coredump %s) was measured to need on Debian 12, own users (%s) by: %s; bound it to that: umhcap keep -p coredump %s\n"
		 "1 finding\n", m->version, fmt(m->caps),
		 names(need("coredump") & ~m->caps), keep_list(m->caps));
	ASSERT_STREQ(want, res.out);
	set_bound(self->root, "coredump", m->caps, m->caps);
	ASSERT_EQ(0, RUN(self->root, "check"));
}

#define ID_RESOLVER_CONF	"etc/request-key.d/id_resolver.conf"
#define SPNEGO_CONF		"etc/request-key.d/cifs.spnego.conf"

/*
 * request-key's handlers with a row in the handler table: a note, not a
 * finding, for each that cannot do its job as request_key's helpers run
 * now: within their ceiling (cifs.upcall), or as their own user
 * (nfsidmap, which only runs as root).  Nothing for a handler with no
 * row, a comment, or a file request-key does not read.
 */
TEST_F(umh, check_notes_request_key_handlers)
{
	const struct umh_handler *cifs;
	char want[4096], allow[1024] = "";
	uint64_t caps;
	int cap;

	cifs = umh_handler_find("/usr/sbin/cifs.upcall", UMH_CONF_INSTALLED);
	ASSERT_NE(NULL, cifs);
	caps = cifs->caps;
	ASSERT_NE(0ULL, caps);
	for (cap = 0; cap < 64; cap++)
		if (caps >> cap & 1)
			snprintf(allow + strlen(allow), sizeof(allow) - strlen(allow),
				 "%srequest_key:%s", *allow ? "," : "",
				 names(1ULL << cap));
	harden(self->root);
	debian_knobs(self->root);
	set_bound(self->root, "uevent", 0, 0);
	put(self->root, ID_RESOLVER_CONF,
	    "create\tid_resolver\t*\t*\t/usr/sbin/nfsidmap -t 600 %%k %%d\n");
	put(self->root, SPNEGO_CONF,
	    "# cifs-utils\n\ncreate  cifs.spnego    * * /usr/sbin/cifs.upcall %%k\n");
	put(self->root, "etc/request-key.d/other.conf",
	    "create user foo:* * /usr/bin/unmeasured %%k\n");
	put(self->root, "etc/request-key.d/cifs.spnego.conf.dpkg-old",
	    "create user bar:* * /usr/sbin/cifs.upcall %%k\n");
	/* Bounded to the table's row of request-key, which needs nothing. */
	ASSERT_EQ(0, RUN(self->root, "check"));
	snprintf(want, sizeof(want),
		 "note: request_key: /usr/sbin/cifs.upcall, for cifs.spnego keys (/etc/request-key.d/cifs.spnego.conf), needs %s, which request_key's ceiling withholds, so its job fails; allow them only if that job is needed: umhcap boot --allow %s\n"
		 "no findings\n", names(caps), allow);
	ASSERT_STREQ(want, res.out);
	/* One capability short is short. */
	set_bound(self->root, "request_key", caps & (caps - 1), caps & (caps - 1));
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "note: request_key: /usr/sbin/cifs.upcall, for cifs.spnego keys (/etc/request-key.d/cifs.spnego.conf), needs ");
	/* Its set: nothing to say of it. */
	set_bound(self->root, "request_key", full(), full());
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_LACKS(res.out, "note: request_key");
	/* As its own user nfsidmap cannot run at all; cifs.upcall can. */
	set_ident(self->root, "request_key", 995, 995);
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "note: request_key: /usr/sbin/nfsidmap, for id_resolver keys (/etc/request-key.d/id_resolver.conf), cannot do its job as request_key's own user: nfsidmap exits unless its euid is 0");
	ASSERT_EQ(1, count_of(res.out, "note: "));
	/* A byte of the file's is escaped. */
	put(self->root, ID_RESOLVER_CONF,
	    "create\tid_\033[31m\t*\t*\t/usr/sbin/nfsidmap %%k\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "for id_\\x1b[31m keys");
	ASSERT_EQ(0, count_of(res.out, "\033"));
	/* --json: a string of "notes". */
	ASSERT_EQ(1, RUN(self->root, "--json", "check"));
	ASSERT_HAS(res.out, "\"request_key: /usr/sbin/nfsidmap, for id_\\\\x1b[31m keys");
}

/*
 * The root's users: coredump's of Debian's own, by name; 995, which
 * request_key runs as below, has none.
 */
static void lsm_users(const char *root)
{
	put(root, "etc/passwd",
	    "root:x:0:0:root:/root:/bin/sh\n"
	    "systemd-coredump:x:998:998:systemd Core Dumper:/:/usr/sbin/nologin\n");
	put(root, "etc/group", "root:x:0:\nsystemd-coredump:x:998:\n");
}

/* check's finding of purpose @p, run as @user, the kernel's LSMs @list. */
static const char *lsm_finding(const char *p, const char *user,
			       const char *list)
{
	char *b = slot_buf();

	snprintf(b, 2048, "%s: its helpers run as a user of their own, %s, but the umh LSM is not on (/sys/kernel/security/lsm: %s), so they, and every process they start, reach each other as that user; add umh to the lsm= kernel parameter where the boot loader gets it (/etc/default/grub, /etc/kernel/cmdline): lsm=%s,umh\n",
		 p, user, list, list);
	return b;
}

/*
 * A purpose that runs as a user of its own, on a kernel whose LSMs lack
 * umh: its helpers, and what they start, reach each other as that user.
 * A finding per such purpose, in the order of purposes, whose fix is the
 * kernel's list with umh added; none for a purpose that runs as root,
 * whatever its group.
 */
TEST_F(umh, check_lsm_without_umh)
{
	char want[8192];

	harden(self->root);
	lsm_users(self->root);
	set_ident(self->root, "coredump", 998, 998);
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
	put(self->root, LSM_FILE, "capability,landlock,lockdown,yama");
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "%s1 finding\n",
		 lsm_finding("coredump", "systemd-coredump(998)",
			     "capability,landlock,lockdown,yama"));
	ASSERT_STREQ(want, res.out);
	ASSERT_HAS(res.out, ": lsm=capability,landlock,lockdown,yama,umh\n");
	ASSERT_STREQ("", res.err);
	/* Two purposes, a user with no name; root with a group is root. */
	set_ident(self->root, "request_key", 995, 995);
	set_ident(self->root, "power", 0, 998);
	put(self->root, LSM_FILE, "capability,yama\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "%s", lsm_finding("coredump",
		 "systemd-coredump(998)", "capability,yama"));
	snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s2 findings\n",
		 lsm_finding("request_key", "995", "capability,yama"));
	ASSERT_STREQ(want, res.out);
	/* --json: of kind lsm, naming its purpose, and no capability. */
	same_findings(_metadata, self->root, 1);
	ASSERT_HAS(res.out, "{\"kind\":\"lsm\",\"purpose\":\"coredump\",\"mask\":\"0x0\",\"mask_caps\":[],\"text\":\"coredump: its helpers run as a user of their own, systemd-coredump(998), but the umh LSM is not on ");
	ASSERT_HAS(res.out, "{\"kind\":\"lsm\",\"purpose\":\"request_key\",");
	ASSERT_HAS(res.out, "\"count\":2\n}\n");
	/* The list is the file's, escaped; an empty one is umh's alone. */
	put(self->root, LSM_FILE, "capability,\033[31m");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "(/sys/kernel/security/lsm: capability,\\x1b[31m)");
	ASSERT_EQ(0, count_of(res.out, "\033"));
	put(self->root, LSM_FILE, "%s", "");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "(/sys/kernel/security/lsm: ), so they");
	ASSERT_HAS(res.out, "/etc/kernel/cmdline): lsm=umh\n");
	/* A file that is there and cannot be read is an error. */
	rm_file(self->root, LSM_FILE);
	put(self->root, LSM_FILE "/x", "");
	ASSERT_EQ(2, RUN(self->root, "check"));
	ASSERT_STREQ("", res.out);
	ASSERT_HAS(res.err, "/sys/kernel/security/lsm: Is a directory");
}

/* umh in the kernel's list, wherever it is: nothing to say. */
TEST_F(umh, check_lsm_with_umh)
{
	static const char *const lists[] = {
		"capability,landlock,lockdown,yama,umh",
		"capability,umh,landlock\n", "umh", "capability,yama,umh,ima,evm",
	};
	size_t i;

	harden(self->root);
	set_ident(self->root, "coredump", 998, 998);
	set_ident(self->root, "modprobe", 4294967294U, 4294967294U);
	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		put(self->root, LSM_FILE, "%s", lists[i]);
		EXPECT_EQ(0, RUN(self->root, "check")) TH_LOG("%s", lists[i]);
		EXPECT_STREQ("no findings\n", res.out);
	}
}

/*
 * No securityfs, or a kernel without CONFIG_SECURITY: no list, so
 * umhcap cannot tell whether umh is on; a note, not a finding.
 */
TEST_F(umh, check_lsm_unknown)
{
	const char *note = "note: cannot tell whether the umh LSM is on (no /sys/kernel/security/lsm: securityfs is not mounted, or the kernel has no CONFIG_SECURITY); without it, the helpers of a purpose that runs as a user of its own (coredump, request_key), and every process they start, reach each other as that user\n";
	char want[4096], dir[PATH_MAX];

	harden(self->root);
	set_ident(self->root, "coredump", 998, 998);
	set_ident(self->root, "request_key", 995, 995);
	rm_file(self->root, LSM_FILE);
	ASSERT_EQ(0, RUN(self->root, "check"));
	snprintf(want, sizeof(want), "%sno findings\n", note);
	ASSERT_STREQ(want, res.out);
	same_findings(_metadata, self->root, 0);
	ASSERT_HAS(res.out, "\"notes\":[\n    \"cannot tell whether the umh LSM is on (no /sys/kernel/security/lsm: ");
	ASSERT_LACKS(res.out, "\"kind\":\"lsm\"");
	/* Nor is there a directory for it. */
	snprintf(dir, sizeof(dir), "%s/sys/kernel/security", self->root);
	ASSERT_EQ(0, rmdir(dir));
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ(want, res.out);
}

/*
 * Every purpose as root: whether umh is on says nothing of them, with
 * the list, without umh in it, or without the file.
 */
TEST_F(umh, check_lsm_no_identity)
{
	harden(self->root);
	set_ident(self->root, "power", 0, 998);
	put(self->root, LSM_FILE, "capability,landlock,lockdown,yama");
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
	rm_file(self->root, LSM_FILE);
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
	/* A kernel without identities, nor per-purpose bounds, alike. */
	no_idents(self->root);
	put(self->root, LSM_FILE, "capability,yama");
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
}

/* Only the name umh, exactly, is umh: not one that holds it. */
TEST_F(umh, check_lsm_exact_name)
{
	static const char *const lists[] = {
		"capability,umhx,yama", "capability,xumh", "capability, umh",
		"capability,UMH", "capability,umh_lsm,landlock",
	};
	char want[4096];
	size_t i;

	harden(self->root);
	lsm_users(self->root);
	set_ident(self->root, "coredump", 998, 998);
	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		put(self->root, LSM_FILE, "%s", lists[i]);
		EXPECT_EQ(1, RUN(self->root, "check")) TH_LOG("%s", lists[i]);
		snprintf(want, sizeof(want), "%s1 finding\n",
			 lsm_finding("coredump", "systemd-coredump(998)",
				     lists[i]));
		EXPECT_STREQ(want, res.out);
	}
}

/*
 * Under --root, a symlink is the root's: an absolute one resolves in the
 * root, not on this machine, as the root's own system resolves it
 * booted.  /usr/sbin/modprobe -> /sbin/modprobe is the row's program.
 */
TEST_F(umh, check_root_symlinks_stay_in_the_root)
{
	char path[PATH_MAX];

	harden(self->root);
	debian_knobs(self->root);
	set_bound(self->root, "uevent", 0, 0);
	put(self->root, "sbin/modprobe", "");
	put(self->root, "usr/sbin/.keep", "");
	snprintf(path, sizeof(path), "%s/usr/sbin/modprobe", self->root);
	ASSERT_EQ(0, symlink("/sbin/modprobe", path));
	put(self->root, MODPROBE_KNOB, "/usr/sbin/modprobe\n");
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
	/* Through a directory's absolute link, and "..", too. */
	rm_file(self->root, "usr/sbin/modprobe");
	snprintf(path, sizeof(path), "%s/usr/lib", self->root);
	ASSERT_EQ(0, symlink("/sbin", path));
	put(self->root, MODPROBE_KNOB, "/usr/lib/../../../usr/lib/modprobe\n");
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_STREQ("no findings\n", res.out);
	/* request-key's configuration, a link to a file of the root's. */
	put(self->root, "srv/keys/cifs.conf",
	    "create cifs.spnego * * /usr/sbin/cifs.upcall %%k\n");
	put(self->root, "etc/request-key.d/.keep", "");
	snprintf(path, sizeof(path), "%s/etc/request-key.d/cifs.spnego.conf",
		 self->root);
	ASSERT_EQ(0, symlink("/srv/keys/cifs.conf", path));
	ASSERT_EQ(0, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "note: request_key: /usr/sbin/cifs.upcall, for cifs.spnego keys (/etc/request-key.d/cifs.spnego.conf), needs ");
}

/*
 * Every finding names its capabilities as show does, "all except ..."
 * where that is shorter, and ends with the command that fixes it, after
 * a colon: "...: umhcap ...".  The exceptions: a purpose umhcap does not
 * know, which a newer umhcap knows, and the umh LSM, which a kernel
 * parameter turns on: "...: lsm=...,umh".
 */
static void every_finding_fixed(struct __test_metadata *_metadata,
				const char *out)
{
	char buf[1 << 16], *line, *save;

	snprintf(buf, sizeof(buf), "%s", out);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "note: ", 6) || strstr(line, " finding") ||
		    strstr(line, "a newer umhcap knows it"))
			continue;
		if (strstr(line, "the umh LSM is not on")) {
			EXPECT_TRUE(strstr(line, ": lsm=") &&
				    !strcmp(line + strlen(line) - 4, ",umh"))
				TH_LOG("no lsm= fixes: %s", line);
			continue;
		}
		EXPECT_TRUE(strstr(line, ": umhcap ") != NULL)
			TH_LOG("no command fixes: %s", line);
		EXPECT_TRUE(count_of(line, "cap_") <= 32)
			TH_LOG("a list longer than \"all except\": %s", line);
	}
}

TEST_F(umh, check_findings_short_and_fixed)
{
	learn_scene(self->root);
	/* Every bound open: measured, unmeasured and unused findings. */
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "modprobe: ceiling exceeds what /sbin/modprobe (kmod ");
	ASSERT_HAS(res.out, ") by: all except cap_sys_module; bound it to that: umhcap keep -p modprobe cap_sys_module\n");
	every_finding_fixed(_metadata, res.out);
	/* Bounds that disagree, and one below what was used. */
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE) | B(CAP_KILL),
		  B(CAP_SYS_MODULE));
	set_bound(self->root, "coredump", B(CAP_CHOWN), B(CAP_CHOWN));
	put(self->root, "proc/cmdline", "usermodehelper.bset=nope:0x1 usermodehelper.uid=coredump:x\n");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, "modprobe: bset and inheritable disagree: only in bset: cap_kill; make them agree: umhcap drop -p modprobe cap_kill\n");
	ASSERT_HAS(res.out, "coredump: its helpers used capabilities since boot that the bound no longer allows: cap_dac_override; they may fail now; give them back from the next boot: umhcap boot --allow coredump:cap_dac_override\n");
	every_finding_fixed(_metadata, res.out);
	/* No record: bound to nothing. */
	rm_file(self->root, UMH "/initrd/used");
	rm_file(self->root, UMH "/used");
	RUN(self->root, "check");
	every_finding_fixed(_metadata, res.out);
	/* A purpose of its own user, on a kernel without umh. */
	set_ident(self->root, "coredump", 998, 998);
	put(self->root, LSM_FILE, "capability,yama");
	ASSERT_EQ(1, RUN(self->root, "check"));
	ASSERT_HAS(res.out, ": lsm=capability,yama,umh\n");
	every_finding_fixed(_metadata, res.out);
	/* The global bound, on a kernel without purposes. */
	unpatch(self->root);
	ASSERT_EQ(1, RUN(self->root, "check"));
	every_finding_fixed(_metadata, res.out);
}
