// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the table of purposes (purpose.c).
 */
#include "common.h"

/* umhcap numbers purposes as the kernel does, and names them the same. */
TEST(purpose_table_is_the_kernels)
{
	size_t i;

	ASSERT_EQ(NR_PURPOSES, (size_t)UMH_NR_PURPOSES);
	ASSERT_EQ(0, UMH_OTHER);
	ASSERT_EQ(1, UMH_MODPROBE);
	ASSERT_EQ(7, UMH_INITRD);
	for (i = 0; i < NR_PURPOSES; i++) {
		ASSERT_STREQ(kernel_purposes[i], umh_purpose_name(i));
		ASSERT_EQ((int)i, umh_purpose_lookup(kernel_purposes[i]));
	}
	/* The global bound is no purpose of the kernel's. */
	ASSERT_LE(UMH_NR_PURPOSES, UMH_ALL);
	ASSERT_STREQ("all", umh_purpose_name(UMH_ALL));
	ASSERT_EQ((int)UMH_ALL, umh_purpose_lookup("all"));
	ASSERT_EQ(NULL, umh_purpose_name(UMH_NR));
	ASSERT_EQ(-1, umh_purpose_lookup("bogus"));
	ASSERT_EQ(-1, umh_purpose_lookup("All"));
	/* Shown "all" first, then in the order umhcap has always shown. */
	ASSERT_EQ((int)UMH_ALL, (int)umh_purposes[0].id);
	for (i = 0; i < NR_PURPOSES; i++) {
		ASSERT_STREQ(purposes[i], umh_purposes[i + 1].name);
		ASSERT_STREQ(purposes[i], umh_purpose_name(umh_purposes[i + 1].id));
	}
	ASSERT_STREQ("all modprobe coredump uevent request_key release_agent "
		     "power initrd other", umh_purpose_list());
}
