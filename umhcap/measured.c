// SPDX-License-Identifier: GPL-2.0
/*
 * What real helpers need: one row per helper program, measured on the
 * program Debian 12 ships, under the patched kernel, with its record of
 * what helpers use (<purpose>/used).  check holds each purpose's ceiling
 * to its row; policy prints the rows.
 *
 * The same table is in the POLICY section of umhcap.8 and in the
 * kernel's Documentation/admin-guide/usermode-helper-caps.rst ("Measured
 * needs"); the host test drift_measured_man_guide fails if the three
 * disagree.  A purpose with no row (initrd, other) had no helper
 * measured: check holds it to what the kernel's record shows it used.
 *
 * This file has no dependency on the rest of umhcap, so that the host
 * tests can link it and compare the table with the documents.
 */
#include <sys/capability.h>

#include "umhcap.h"

#define C(cap)		(1ULL << (cap))

/*
 * BEGIN MEASURED TABLE.  Filled from the real-helper boot of the
 * project's 'make check': each set is what that program used, as the
 * kernel recorded it, to do its job in the QEMU guest.  A capability of
 * .caps kept although the job is done without it goes in .kept too, and
 * .note says why.
 */
const struct umh_measured umh_measured[] = {
	{
		.purpose	= UMH_MODPROBE,
		.program	= "/sbin/modprobe",
		.package	= "kmod",
		.version	= "30+20221128-1",
		.caps		= C(CAP_SYS_MODULE),
		.kept		= 0,
		.note		= NULL,
	},
	{
		.purpose	= UMH_COREDUMP,
		.program	= "/lib/systemd/systemd-coredump",
		.package	= "systemd-coredump",
		.version	= "252.38-1~deb12u1",
		.caps		= 0,
		.kept		= 0,
		.note		= NULL,
	},
	{
		.purpose	= UMH_UEVENT,
		.program	= "/sbin/mdev",
		.package	= "busybox-static",
		.version	= "1:1.35.0-4+deb12u1+b1",
		.caps		= C(CAP_CHOWN) | C(CAP_MKNOD),
		.kept		= 0,
		.note		= NULL,
	},
	{
		.purpose	= UMH_REQUEST_KEY,
		.program	= "/sbin/request-key",
		.package	= "keyutils",
		.version	= "1.6.3-2",
		.caps		= 0,
		.kept		= 0,
		.note		= NULL,
	},
	{
		/* A release agent script, run by busybox sh. */
		.purpose	= UMH_RELEASE_AGENT,
		.program	= "/sbin/umh-release-agent",
		.package	= "busybox-static",
		.version	= "1:1.35.0-4+deb12u1+b1",
		.caps		= C(CAP_DAC_OVERRIDE),
		.kept		= 0,
		.note		= NULL,
	},
	{
		/* busybox poweroff: asks init to power off, by a signal. */
		.purpose	= UMH_POWER,
		.program	= "/sbin/poweroff",
		.package	= "busybox-static",
		.version	= "1:1.35.0-4+deb12u1+b1",
		.caps		= 0,
		.kept		= 0,
		.note		= NULL,
	},
};

/* END MEASURED TABLE */

const size_t umh_measured_nr = ARRAY_SIZE(umh_measured);

/* The row measured for @purpose, or NULL if none was. */
const struct umh_measured *umh_measured_for(int purpose)
{
	size_t i;

	for (i = 0; i < umh_measured_nr; i++)
		if ((int)umh_measured[i].purpose == purpose)
			return &umh_measured[i];
	return NULL;
}

/* What at least one measured helper needs. */
uint64_t umh_measured_union(void)
{
	uint64_t all = 0;
	size_t i;

	for (i = 0; i < umh_measured_nr; i++)
		all |= umh_measured[i].caps;
	return all;
}
