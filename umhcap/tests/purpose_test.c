// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the table of purposes (purpose.c), against the one list
 * of them, UMH_PURPOSE_LIST of umhcap.h, as common.c reads it.
 */
#include "common.h"

/* umhcap numbers purposes as the kernel does, and names them the same. */
TEST(purpose_table_is_the_kernels)
{
	char list[NR_PURPOSES * 32] = "all";
	size_t i, j, n = strlen(list);

	ASSERT_EQ(NR_PURPOSES, (size_t)UMH_NR_PURPOSES);
	/* The kernel's 0 takes in every helper not listed; 1 is modprobe. */
	ASSERT_EQ(0, UMH_OTHER);
	ASSERT_STREQ("other", kernel_purposes[0]);
	ASSERT_EQ(1, UMH_MODPROBE);
	for (i = 0; i < NR_PURPOSES; i++) {
		ASSERT_STREQ(kernel_purposes[i], umh_purpose_name(i));
		ASSERT_EQ((int)i, umh_purpose_lookup(kernel_purposes[i]));
		/* A name as a sysctl directory and a boot item take it. */
		ASSERT_EQ(strlen(kernel_purposes[i]),
			  strspn(kernel_purposes[i], "abcdefghijklmnopqrstuvwxyz_"))
			TH_LOG("%s", kernel_purposes[i]);
		for (j = 0; j < i; j++)
			ASSERT_STRNE(kernel_purposes[j], kernel_purposes[i]);
	}
	/* The global bound is no purpose of the kernel's. */
	ASSERT_LE(UMH_NR_PURPOSES, UMH_ALL);
	ASSERT_STREQ("all", umh_purpose_name(UMH_ALL));
	ASSERT_EQ((int)UMH_ALL, umh_purpose_lookup("all"));
	ASSERT_EQ(NULL, umh_purpose_name(UMH_NR));
	ASSERT_EQ(-1, umh_purpose_lookup("bogus"));
	ASSERT_EQ(-1, umh_purpose_lookup("All"));
	/*
	 * Shown "all" first, then in the order umhcap has always shown: the
	 * kernel's, but for "other", its 0, which comes last.
	 */
	ASSERT_EQ((int)UMH_ALL, (int)umh_purposes[0].id);
	for (i = 0; i < NR_PURPOSES; i++) {
		ASSERT_EQ(i + 1 < NR_PURPOSES ? i + 1 : 0,
			  (size_t)umh_purposes[i + 1].id);
		ASSERT_STREQ(purposes[i], umh_purposes[i + 1].name);
		ASSERT_STREQ(purposes[i], umh_purpose_name(umh_purposes[i + 1].id));
		n += snprintf(list + n, sizeof(list) - n, " %s", purposes[i]);
	}
	ASSERT_STREQ("other", purposes[NR_PURPOSES - 1]);
	ASSERT_STREQ(list, umh_purpose_list());
}
