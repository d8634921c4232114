// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of umhcap show (show.c).
 */
#include "common.h"

TEST_F(umh, show_default_is_all)
{
	ASSERT_EQ(0, RUN0(self->root));
	ASSERT_HAS(res.out, "all (global, applies to every helper):\n"
			    "  bset:        all\n"
			    "  inheritable: all\n"
			    "  ceiling:     all\n");
	ASSERT_HAS(res.out, "other:\n  bset:        all\n");
	ASSERT_HAS(res.out, "does not widen anything");
	ASSERT_EQ(0, strcmp(res.err, ""));
}

TEST_F(umh, show_none)
{
	set_bound(self->root, "release_agent", 0, 0);
	ASSERT_EQ(0, RUN(self->root, "show"));
	ASSERT_HAS(res.out, "release_agent:\n"
			    "  bset:        none\n"
			    "  inheritable: none\n"
			    "  ceiling:     none\n");
}

TEST_F(umh, show_list)
{
	uint64_t m = B(CAP_SYS_MODULE) | B(CAP_CHOWN);

	set_bound(self->root, "modprobe", m, m);
	ASSERT_EQ(0, RUN(self->root, "show"));
	ASSERT_HAS(res.out, "modprobe:\n  bset:        cap_chown, cap_sys_module\n");
}

TEST_F(umh, show_all_except)
{
	uint64_t m = full() & ~(B(CAP_SYS_ADMIN) | B(CAP_NET_RAW));

	set_bound(self->root, "coredump", m, m);
	ASSERT_EQ(0, RUN(self->root, "show"));
	ASSERT_HAS(res.out, "coredump:\n"
			    "  bset:        all except cap_net_raw, cap_sys_admin\n");
}

TEST_F(umh, show_ceiling_is_intersection)
{
	uint64_t g = full() & ~B(CAP_SYS_MODULE);
	uint64_t m = B(CAP_SYS_MODULE) | B(CAP_CHOWN);

	set_bound(self->root, NULL, g, g);
	set_bound(self->root, "modprobe", m, m);
	ASSERT_EQ(0, RUN(self->root, "show", "modprobe"));
	ASSERT_HAS(res.out, "  ceiling:     cap_chown\n");
}

TEST_F(umh, show_hex)
{
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	ASSERT_EQ(0, RUN(self->root, "-x", "show", "modprobe"));
	ASSERT_HAS(res.out, "  bset:        0x0000000000010000  cap_sys_module\n"
			    "  inheritable: 0x0000000000000000  none\n");
}

TEST_F(umh, show_json)
{
	set_bound(self->root, "modprobe", B(CAP_SYS_MODULE), 0);
	ASSERT_EQ(0, RUN(self->root, "--json", "show", "all", "modprobe"));
	ASSERT_HAS(res.out, "\"version\":2,\"per_purpose\":true,");
	ASSERT_HAS(res.out, "{\"purpose\":\"modprobe\",\"bset\":\"0x10000\","
			    "\"bset_caps\":[\"cap_sys_module\"],"
			    "\"inheritable\":\"0x0\",\"inheritable_caps\":[],"
			    "\"ceiling\":\"0x10000\","
			    "\"ceiling_caps\":[\"cap_sys_module\"]}");
	ASSERT_HAS(res.out, "{\"purpose\":\"all\",");
	ASSERT_LACKS(res.out, "coredump");
	ASSERT_LACKS(res.out, "ceiling =");
}

TEST_F(umh, show_selected_purpose_only)
{
	ASSERT_EQ(0, RUN(self->root, "show", "coredump"));
	ASSERT_HAS(res.out, "coredump:\n");
	ASSERT_LACKS(res.out, "modprobe:");
	ASSERT_LACKS(res.out, "all (global");
}

TEST_F(umh, show_unknown_purpose)
{
	ASSERT_EQ(2, RUN(self->root, "show", "bogus"));
	ASSERT_HAS(res.err, "umhcap: unknown purpose \"bogus\"");
	ASSERT_EQ(0, strcmp(res.out, ""));
}

TEST_F(umh, show_unpatched_kernel)
{
	unpatch(self->root);
	ASSERT_EQ(0, RUN(self->root, "show"));
	ASSERT_HAS(res.out, "all (global");
	ASSERT_HAS(res.out, "per-purpose bounds are not available on this kernel");
	ASSERT_LACKS(res.out, "modprobe:");
}

TEST_F(umh, show_unpatched_purpose_fails)
{
	unpatch(self->root);
	ASSERT_EQ(2, RUN(self->root, "show", "modprobe"));
	ASSERT_HAS(res.err, "per-purpose bounds are not available");
}

TEST_F(umh, malformed_bound_file)
{
	put(self->root, UMH "/uevent/bset", "12 x\n");
	ASSERT_EQ(2, RUN(self->root, "show"));
	ASSERT_HAS(res.err, "cannot parse");
	ASSERT_HAS(res.err, "uevent/bset");
}

TEST_F(umh, show_json_is_valid)
{
	ASSERT_EQ(0, RUN(self->root, "--json", "show"));
	ASSERT_JSON(res.out);
	ASSERT_EQ(0, RUN(self->root, "show", "--json", "modprobe"));
	ASSERT_JSON(res.out);
}

/* show: who each purpose's helpers run as, below its bounds. */
TEST_F(umh, show_identity)
{
	char want[512];
	struct who w;

	WHO(w);
	set_ident(self->root, "coredump", w.uid, w.gid);
	set_ident(self->root, "initrd", w.stranger, w.gid);
	ASSERT_EQ(0, RUN(self->root, "show"));
	snprintf(want, sizeof(want), "coredump:\n"
		 "  bset:        all\n"
		 "  inheritable: all\n"
		 "  ceiling:     all\n"
		 "  runs as:     %s\n"
		 "uevent:\n", who_str(&w));
	ASSERT_HAS(res.out, want);
	ASSERT_HAS(res.out, "modprobe:\n  bset:        all\n  inheritable: all\n"
			    "  ceiling:     all\n  runs as:     root\ncoredump:\n");
	snprintf(want, sizeof(want), "  runs as:     %u:%s(%u)\n", w.stranger,
		 w.group, w.gid);
	ASSERT_HAS(res.out, want);
	/* The global bound has no identity: every helper gets it. */
	ASSERT_HAS(res.out, "  ceiling:     all\nmodprobe:\n");
	ASSERT_EQ((int)NR_PURPOSES, count_of(res.out, "  runs as:"));
	ASSERT_HAS(res.out, "\nFor a purpose that runs as a user (umhcap user), the ceiling is also\n");
	ASSERT_LACKS(res.out, "no identities");
	/* uid 0 with a group: still root, shown with both. */
	set_ident(self->root, "power", 0, w.gid);
	ASSERT_EQ(0, RUN(self->root, "show", "power"));
	snprintf(want, sizeof(want), "  runs as:     root(0):%s(%u)\n", w.group,
		 w.gid);
	ASSERT_HAS(res.out, want);
}

/* As a user, a helper gets only what the inheritable bounds leave too. */
TEST_F(umh, show_ceiling_as_user)
{
	struct who w;

	WHO(w);
	set_bound(self->root, NULL, full(), full() & ~B(CAP_KILL));
	set_bound(self->root, "coredump", full(), B(CAP_CHOWN) | B(CAP_KILL));
	ASSERT_EQ(0, RUN(self->root, "show", "coredump"));
	ASSERT_HAS(res.out, "  ceiling:     all\n");
	set_ident(self->root, "coredump", w.uid, w.gid);
	ASSERT_EQ(0, RUN(self->root, "show", "coredump"));
	ASSERT_HAS(res.out, "  ceiling:     cap_chown\n");
	/* A group alone leaves the helper root. */
	set_ident(self->root, "coredump", 0, w.gid);
	ASSERT_EQ(0, RUN(self->root, "show", "coredump"));
	ASSERT_HAS(res.out, "  ceiling:     all\n");
}

TEST_F(umh, show_json_identities)
{
	struct who w;
	char want[256];

	WHO(w);
	set_ident(self->root, "coredump", w.uid, w.gid);
	ASSERT_EQ(0, RUN(self->root, "--json", "show", "all", "coredump",
			 "power"));
	ASSERT_JSON(res.out);
	snprintf(want, sizeof(want), "\n  ],\"identities\":{\n"
		 "    \"coredump\":{\"uid\":%u,\"gid\":%u},\n"
		 "    \"power\":{\"uid\":0,\"gid\":0}\n  }\n}\n",
		 w.uid, w.gid);
	ASSERT_HAS(res.out, want);
	ASSERT_LACKS(res.out, "\"all\":{");
	ASSERT_EQ(0, RUN(self->root, "--json", "show", "all"));
	ASSERT_JSON(res.out);
	ASSERT_HAS(res.out, "],\"identities\":{\n  }\n}\n");
}
