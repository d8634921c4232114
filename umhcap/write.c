// SPDX-License-Identifier: GPL-2.0
/*
 * Writing a bound file, as drop, keep and learn --apply do: write, read
 * back to verify, and on EPERM say exactly what the caller lacks; or,
 * with -n, only say what would be written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>

#include "umhcap.h"

static bool cap_effective(cap_t caps, cap_value_t cap)
{
	cap_flag_value_t v = CAP_CLEAR;

	return !cap_get_flag(caps, cap, CAP_EFFECTIVE, &v) && v == CAP_SET;
}

/* EPERM: say exactly what the caller lacks. */
static void explain_eperm(const char *path)
{
	bool setpcap, sys_module;
	cap_t caps = cap_get_proc();

	if (!caps) {
		umh_err("cannot write %s: %s; needs CAP_SETPCAP and CAP_SYS_MODULE in the initial user namespace",
			path, strerror(EPERM));
		return;
	}
	setpcap = cap_effective(caps, CAP_SETPCAP);
	sys_module = cap_effective(caps, CAP_SYS_MODULE);
	cap_free(caps);
	if (!setpcap || !sys_module)
		umh_err("cannot write %s: %s; this process lacks %s%s%s in its effective set; run as root with full capabilities",
			path, strerror(EPERM),
			setpcap ? "" : "CAP_SETPCAP",
			!setpcap && !sys_module ? " and " : "",
			sys_module ? "" : "CAP_SYS_MODULE");
	else
		umh_err("cannot write %s: %s; CAP_SETPCAP and CAP_SYS_MODULE are effective but must be held in the initial user namespace: run outside any container or user namespace",
			path, strerror(EPERM));
}

/*
 * Write @mask to the bound file @path and read it back.  Returns 0, -1 if
 * nothing was written, -2 if the write went through but did not verify;
 * prints its own error.
 */
int umh_write_verify(const char *path, uint64_t mask)
{
	uint64_t now;
	int err;

	err = umh_bound_write(path, mask);
	if (err == -EPERM) {
		explain_eperm(path);
		return -1;
	}
	if (err) {
		umh_err("cannot write %s: %s%s", path, strerror(-err),
			err == -EINVAL ? "; the kernel rejected the value" : "");
		return -1;
	}
	if (umh_bound_read(path, &now))
		return -2;
	if (now != mask) {
		umh_err("verify %s: read back %u %u, expected %u %u; another writer may have narrowed it further",
			path, (uint32_t)now, (uint32_t)(now >> 32),
			(uint32_t)mask, (uint32_t)(mask >> 32));
		return -2;
	}
	return 0;
}

/*
 * umh_write_verify(), or with @dry_run a line that says what it would
 * write, and where.  Returns as umh_write_verify() does.
 */
int umh_narrow(const char *path, uint64_t mask, bool dry_run)
{
	char *names;

	if (!dry_run)
		return umh_write_verify(path, mask);
	names = caps_format(mask);
	printf("would write \"%u %u\" to %s (%s)\n", (uint32_t)mask,
	       (uint32_t)(mask >> 32), path, names);
	free(names);
	return 0;
}
