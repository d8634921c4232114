// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the man page, umhcap.8, as the build makes it from umhcap.8.in.
 */
#include "common.h"

/*
 * The man page: a real date, and SEE ALSO sorted by section, then name,
 * as man-pages(7) asks, with the pages umhcap sends a reader to.
 */
TEST(man_head_and_see_also)
{
	static const char *const need[] = {
		"capsh(1)", "trace-cmd(1)", "sysctl(8)", "capabilities(7)",
		"sysctl.d(5)", "bootparam(7)",
	};
	char *text, *s, prev[64] = "", cur[64], sec, prev_sec = '0';
	char list[1024] = "";
	size_t i;
	int y, m, d;

	text = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, text);
	s = strstr(text, "\n.TH UMHCAP 8 ");
	ASSERT_NE(NULL, s);
	ASSERT_EQ(3, sscanf(s, "\n.TH UMHCAP 8 %4d-%2d-%2d ", &y, &m, &d));
	ASSERT_EQ(0, strncmp(s, "\n.TH UMHCAP 8 2026-12-05 ", 25));
	s = strstr(text, "\n.SH SEE ALSO\n");
	ASSERT_NE(NULL, s);
	for (s = strchr(s + 1, '\n') + 1; !strncmp(s, ".BR ", 4);
	     s = strchr(s, '\n') + 1) {
		ASSERT_EQ(2, sscanf(s, ".BR %63s (%c)", cur, &sec)) TH_LOG("%.40s", s);
		cut_all(cur, "\\");
		/* By section, then by name. */
		EXPECT_TRUE(sec > prev_sec ||
			    (sec == prev_sec && strcmp(cur, prev) > 0))
			TH_LOG("%s(%c) after %s(%c)", cur, sec, prev, prev_sec);
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 " %s(%c)", cur, sec);
		strcpy(prev, cur);
		prev_sec = sec;
	}
	for (i = 0; i < ARRAY_SIZE(need); i++) {
		EXPECT_TRUE(strstr(list, need[i]) != NULL)
			TH_LOG("SEE ALSO lacks %s:%s", need[i], list);
	}
	free(text);
}

/*
 * The unit umhcap.8 quotes for save: the package's
 * umhcap-save.service to the byte where the tree holds it, and in any
 * case a oneshot that saves as it stops, only on a kernel with the
 * record, and before /var is unmounted.
 */
TEST_F(umh, man_quotes_the_save_unit)
{
	static const char *const lines[] = {
		"[Unit]\n", "\nConditionPathExists=/proc/sys/kernel/usermodehelper/used\n",
		"\nAfter=local-fs.target\n", "\n[Service]\nType=oneshot\n",
		"\nRemainAfterExit=yes\n", "\nExecStart=/bin/true\n",
		"\nExecStop=/usr/sbin/umhcap save\n", "\nStateDirectory=umhcap\n",
		"\nCapabilityBoundingSet=\n", "\nProtectSystem=strict\n",
		"\n[Install]\nWantedBy=multi-user.target\n",
	};
	char *man, *unit, *quoted, *s, *e;
	size_t i, n = 0;

	man = slurp_file(src_path("umhcap.8"));
	ASSERT_NE(NULL, man);
	s = strstr(man, "\n.IR /lib/systemd/system/umhcap\\-save.service :\n.RS\n.IP\n.EX\n");
	ASSERT_NE(NULL, s);
	s = strstr(s, ".EX\n") + 4;
	e = strstr(s, ".EE\n");
	ASSERT_NE(NULL, e);
	quoted = calloc(1, e - s + 1);
	ASSERT_NE(NULL, quoted);
	/* As printed: the escapes the quote uses. */
	while (s < e) {
		if (!strncmp(s, "\\-", 2)) {
			quoted[n++] = '-';
			s += 2;
		} else if (!strncmp(s, "\\e", 2)) {
			quoted[n++] = '\\';
			s += 2;
		} else if (!strncmp(s, "\\&", 2)) {
			s += 2;
		} else if (!strncmp(s, "\\(ti", 4)) {
			quoted[n++] = '~';
			s += 4;
		} else {
			ASSERT_NE('\\', *s) TH_LOG("an escape in the quoted unit: %.8s", s);
			quoted[n++] = *s++;
		}
	}
	for (i = 0; i < ARRAY_SIZE(lines); i++)
		ASSERT_HAS(quoted, lines[i]);
	unit = slurp_file(src_path("umhcap-save.service"));
	if (unit)
		ASSERT_STREQ(unit, quoted);
	free(unit);
	free(quoted);
	free(man);
}
