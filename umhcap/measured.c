// SPDX-License-Identifier: GPL-2.0
/*
 * What real helpers need: one row per helper program and configuration,
 * measured on the program Debian 12 ships, under the patched kernel, with
 * its record of what helpers use (<purpose>/used).  The configurations:
 * Debian 12 as installed, systemd as PID 1 and the helpers as Debian's
 * packages set them up (guest/installed_test), and busybox systems, the
 * project's busybox test guest (guest/real_test).  check holds each
 * purpose's ceiling to its Debian 12 as installed row, or, for a purpose
 * with none, to its busybox systems row; policy prints the rows.
 *
 * This is the only copy of the table: the build writes it into the
 * POLICY section of umhcap.8 (mkman, from umhcap.8.in), and the host test
 * man_page_holds_the_measured_table holds the page to it.  A purpose with
 * no row (initrd, other) had no helper measured: check holds it to what
 * the kernel's record shows it used.
 *
 * This file has no dependency on the rest of umhcap, so that mkman, the
 * host tests and the guest's real_test and installed_test can link it.
 */
#include <string.h>
#include <sys/capability.h>

#include "umhcap.h"

#define C(cap)		(1ULL << (cap))

/*
 * BEGIN MEASURED TABLE.  The rows of Debian 12 as installed first, then
 * those of busybox systems, each in the order umhcap shows purposes.
 * Filled from the learning boots of the project's 'make check'
 * (installed_test's, real_test's): each set is what that program used, as
 * the kernel recorded it, to do its job in the QEMU guest, and .runs is
 * how many helpers of its purpose that boot started.  A capability of
 * .caps kept although the job is done without it goes in .kept too, and
 * .note says why.
 */
const struct umh_measured umh_measured[] = {
	{
		/*
		 * nvram for its job; at boot, fs-binfmt_misc (systemd-binfmt,
		 * for python3's binfmt.d) and fs-rpc_pipefs (nfs-common).
		 */
		.purpose	= UMH_MODPROBE,
		.conf		= UMH_CONF_INSTALLED,
		.program	= "/sbin/modprobe",
		.package	= "kmod",
		.version	= "30+20221128-1",
		.runs		= 3,
		.caps		= C(CAP_SYS_MODULE),
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= NULL,
	},
	{
		/* Debian's 50-coredump.conf pipes cores to it. */
		.purpose	= UMH_COREDUMP,
		.conf		= UMH_CONF_INSTALLED,
		.program	= "/lib/systemd/systemd-coredump",
		.package	= "systemd-coredump",
		.version	= "252.39-1~deb12u2",
		.runs		= 2,
		.caps		= C(CAP_DAC_READ_SEARCH) | C(CAP_SYS_PTRACE),
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= NULL,
	},
	{
		/* Running key.dns_resolver, Debian's handler of DNS keys. */
		.purpose	= UMH_REQUEST_KEY,
		.conf		= UMH_CONF_INSTALLED,
		.program	= "/sbin/request-key",
		.package	= "keyutils",
		.version	= "1.6.3-2",
		.runs		= 1,
		.caps		= 0,
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= NULL,
	},
	{
		/* systemctl, which asks PID 1 to power off. */
		.purpose	= UMH_POWER,
		.conf		= UMH_CONF_INSTALLED,
		.program	= "/sbin/poweroff",
		.package	= "systemd-sysv",
		.version	= "252.39-1~deb12u2",
		.runs		= 1,
		.caps		= 0,
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= NULL,
		.reaches	= "what uid 0 reaches with no capability: root's files; it stays root, as logind powers off only for uid 0 or through polkit, not for a capability",
	},
	{
		.purpose	= UMH_MODPROBE,
		.conf		= UMH_CONF_INSTALLED_USER,
		.program	= "/sbin/modprobe",
		.package	= "kmod",
		.version	= "30+20221128-1",
		.runs		= 3,
		.caps		= C(CAP_SYS_MODULE),
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= NULL,
		.user		= "umh-modprobe",
		.reaches	= "modules the kernel's keys signed, which any user's autoload reaches too; it unloads none",
	},
	{
		.purpose	= UMH_COREDUMP,
		.conf		= UMH_CONF_INSTALLED_USER,
		.program	= "/lib/systemd/systemd-coredump",
		.package	= "systemd-coredump",
		.version	= "252.39-1~deb12u2",
		.runs		= 2,
		.caps		= 0,
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= NULL,
		.user		= "systemd-coredump",
		.reaches	= "nothing: it reads its dump's task, attaches to none, and takes no id but its own and that task's",
	},
	{
		.purpose	= UMH_REQUEST_KEY,
		.conf		= UMH_CONF_INSTALLED_USER,
		.program	= "/sbin/request-key",
		.package	= "keyutils",
		.version	= "1.6.3-2",
		.runs		= 1,
		.caps		= 0,
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= NULL,
		.user		= "umh-request-key",
		.reaches	= "nothing: it reads its requester's /proc files, and takes no id but its own and the requester's",
	},
	{
		.purpose	= UMH_MODPROBE,
		.conf		= UMH_CONF_BUSYBOX,
		.program	= "/sbin/modprobe",
		.package	= "kmod",
		.version	= "30+20221128-1",
		.runs		= 1,
		.caps		= C(CAP_SYS_MODULE),
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= NULL,
	},
	{
		.purpose	= UMH_COREDUMP,
		.conf		= UMH_CONF_BUSYBOX,
		.program	= "/lib/systemd/systemd-coredump",
		.package	= "systemd-coredump",
		.version	= "252.38-1~deb12u1",
		.runs		= 1,
		.caps		= 0,
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= NULL,
	},
	{
		.purpose	= UMH_UEVENT,
		.conf		= UMH_CONF_BUSYBOX,
		.program	= "/sbin/mdev",
		.package	= "busybox-static",
		.version	= "1:1.35.0-4+deb12u1+b1",
		.runs		= 633,
		.caps		= C(CAP_CHOWN) | C(CAP_MKNOD),
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= "its kernel has CONFIG_UEVENT_HELPER unset, and udev listens on netlink",
	},
	{
		.purpose	= UMH_REQUEST_KEY,
		.conf		= UMH_CONF_BUSYBOX,
		.program	= "/sbin/request-key",
		.package	= "keyutils",
		.version	= "1.6.3-2",
		.runs		= 1,
		.caps		= 0,
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= NULL,
	},
	{
		/* A release agent script, run by busybox sh. */
		.purpose	= UMH_RELEASE_AGENT,
		.conf		= UMH_CONF_BUSYBOX,
		.program	= "/sbin/umh-release-agent",
		.package	= "busybox-static",
		.version	= "1:1.35.0-4+deb12u1+b1",
		.runs		= 1,
		.caps		= C(CAP_DAC_OVERRIDE),
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= "it boots with cgroup v2 only, which has no release agent",
	},
	{
		/* busybox poweroff: asks init to power off, by a signal. */
		.purpose	= UMH_POWER,
		.conf		= UMH_CONF_BUSYBOX,
		.program	= "/sbin/poweroff",
		.package	= "busybox-static",
		.version	= "1:1.35.0-4+deb12u1+b1",
		.runs		= 1,
		.caps		= 0,
		.kept		= 0,
		.note		= NULL,
		.not_on_debian	= NULL,
	},
};

/* END MEASURED TABLE */

const size_t umh_measured_nr = ARRAY_SIZE(umh_measured);

/*
 * BEGIN HANDLER TABLE.  request-key's handlers of Debian 12 as installed,
 * request-key run as root, then as its own user.  Each set is the least
 * that keeps the job done, as installed_test's handlers boot proves: the
 * job is done with the set alone, and fails without any one of it.  That
 * boot also shows what the trace saw each use with open bounds.  nfsidmap
 * is started by a user's id_resolver key, as the NFSv4 client asks for
 * one.  cifs.upcall's key type cannot be made from user space (the kernel
 * vets its descriptions), so a user's "user" key of the same description,
 * through a line of the test's own in request-key.d, starts it; its job is
 * judged up to the Kerberos ticket, as no KDC answers in the guest.  All
 * rows of a program have the same .note.
 */
/*
 * cifs.upcall 7.0 raises these with capset() (libcap-ng's capng_apply())
 * before its setgid(), and gives up if one is missing, whether or not a
 * check then asks for it.
 */
#define CIFS_UPCALL_CAPS	(C(CAP_DAC_READ_SEARCH) | C(CAP_SETGID) | \
				 C(CAP_SETUID) | C(CAP_SYS_CHROOT) | \
				 C(CAP_SYS_PTRACE) | C(CAP_SYS_ADMIN))
#define CIFS_UPCALL_NOTE	"it raises cap_dac_read_search and cap_sys_ptrace with capset() and stops if it cannot, though no capability check may ask for them, so a learned set lacks them"

const struct umh_handler umh_handlers[] = {
	{
		.purpose	= UMH_REQUEST_KEY,
		.conf		= UMH_CONF_INSTALLED,
		.program	= "/usr/sbin/nfsidmap",
		.package	= "nfs-common",
		.version	= "1:2.6.2-4+deb12u1",
		.trigger	= "an id_resolver key: NFSv4 names and ids",
		.caps		= 0,
		.user		= NULL,
		.fails		= NULL,
		.note		= NULL,
		.reaches	= NULL,
	},
	{
		.purpose	= UMH_REQUEST_KEY,
		.conf		= UMH_CONF_INSTALLED_USER,
		.program	= "/usr/sbin/nfsidmap",
		.package	= "nfs-common",
		.version	= "1:2.6.2-4+deb12u1",
		.trigger	= "an id_resolver key: NFSv4 names and ids",
		.caps		= 0,
		.user		= "umh-request-key",
		.fails		= "nfsidmap exits unless its euid is 0 (\"Must be run as root\"), whatever its capabilities: the key is negated, and the NFSv4 client maps the name to nobody or asks rpc.idmapd",
		.note		= NULL,
		.reaches	= "nothing: it does not run",
	},
	{
		.purpose	= UMH_REQUEST_KEY,
		.conf		= UMH_CONF_INSTALLED,
		.program	= "/usr/sbin/cifs.upcall",
		.package	= "cifs-utils",
		.version	= "2:7.0-2+deb12u1",
		.trigger	= "a cifs.spnego key: a Kerberos SMB mount",
		.caps		= CIFS_UPCALL_CAPS,
		.user		= NULL,
		.fails		= NULL,
		.note		= CIFS_UPCALL_NOTE,
		.reaches	= NULL,
	},
	{
		.purpose	= UMH_REQUEST_KEY,
		.conf		= UMH_CONF_INSTALLED_USER,
		.program	= "/usr/sbin/cifs.upcall",
		.package	= "cifs-utils",
		.version	= "2:7.0-2+deb12u1",
		.trigger	= "a cifs.spnego key: a Kerberos SMB mount",
		.caps		= CIFS_UPCALL_CAPS,
		.user		= "umh-request-key",
		.fails		= NULL,
		.note		= CIFS_UPCALL_NOTE,
		.reaches	= "root: setns() into its requester's namespaces asks CAP_SYS_ADMIN, even of namespaces it is in already",
	},
};

/* END HANDLER TABLE */

const size_t umh_handlers_nr = ARRAY_SIZE(umh_handlers);

/* The handler row of @program on @conf, or NULL. */
const struct umh_handler *umh_handler_find(const char *program,
					   enum umh_measured_conf conf)
{
	size_t i;

	for (i = 0; i < umh_handlers_nr; i++)
		if (!strcmp(umh_handlers[i].program, program) &&
		    umh_handlers[i].conf == conf)
			return &umh_handlers[i];
	return NULL;
}

/* The row measured for @purpose on @conf, or NULL if none was. */
const struct umh_measured *umh_measured_find(int purpose,
					     enum umh_measured_conf conf)
{
	size_t i;

	for (i = 0; i < umh_measured_nr; i++)
		if ((int)umh_measured[i].purpose == purpose &&
		    umh_measured[i].conf == conf)
			return &umh_measured[i];
	return NULL;
}

/*
 * The row check holds @purpose to: Debian as installed, or, for a helper
 * Debian never runs, the busybox systems' row.  NULL if none was measured.
 */
const struct umh_measured *umh_measured_for(int purpose)
{
	const struct umh_measured *m;

	m = umh_measured_find(purpose, UMH_CONF_INSTALLED);
	return m ? m : umh_measured_find(purpose, UMH_CONF_BUSYBOX);
}

/* How the documents and umhcap's output name @conf. */
const char *umh_measured_conf_name(enum umh_measured_conf conf)
{
	static const char *const names[UMH_NR_CONFS] = {
		[UMH_CONF_INSTALLED]	= "Debian 12 as installed",
		[UMH_CONF_INSTALLED_USER]	= "Debian 12, own users",
		[UMH_CONF_BUSYBOX]	= "busybox systems",
	};

	return (unsigned int)conf < UMH_NR_CONFS ? names[conf] : NULL;
}

/*
 * What at least one purpose needs, by the row check holds it to: what
 * every helper gets when the global bound is all there is.
 */
uint64_t umh_measured_union(void)
{
	const struct umh_measured *m;
	uint64_t all = 0;
	int p;

	for (p = 0; p < UMH_NR_PURPOSES; p++) {
		m = umh_measured_for(p);
		if (m)
			all |= m->caps;
	}
	return all;
}
