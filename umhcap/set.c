// SPDX-License-Identifier: GPL-2.0
/*
 * drop and keep: narrow the bset and inheritable bound of one purpose
 * (or the global bound), then read both back to verify.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>

#include "umhcap.h"

struct set_req {
	int purpose;
	bool dry_run;
	uint64_t mask;		/* the caps named on the command line */
};

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

static int parse_set_args(int argc, char **argv, struct set_req *req)
{
	bool bad = false;
	int c, i, cap;

	while ((c = getopt(argc, argv, "p:n")) != -1) {
		switch (c) {
		case 'p':
			req->purpose = umh_purpose_lookup(optarg);
			if (req->purpose < 0) {
				umh_err("unknown purpose \"%s\"; valid: all modprobe coredump uevent request_key release_agent power initrd other",
					optarg);
				return -1;
			}
			break;
		case 'n':
			req->dry_run = true;
			break;
		default:
			goto usage;
		}
	}
	if (optind == argc)
		goto usage;
	for (i = optind; i < argc; i++) {
		if (caps_parse(argv[i], &cap)) {
			umh_err("unknown capability \"%s\"; use a name like cap_sys_module or sys_module, or a number below %d",
				argv[i], caps_nbits());
			bad = true;
			continue;
		}
		req->mask |= 1ULL << cap;
	}
	return bad ? -1 : 0;
usage:
	umh_err("usage: umhcap %s [-p PURPOSE] [-n] CAP...", argv[0]);
	return -1;
}

/* keep: every named cap must still be in the bset; bounds only narrow. */
static int check_keep(const struct set_req *req, const struct umh_bound *b)
{
	const char *name = umh_purpose_names[req->purpose];
	uint64_t missing = req->mask & ~b->bset;
	char *miss, *cur;

	if (missing) {
		miss = caps_list(missing);
		cur = caps_format(b->bset);
		umh_err("cannot keep %s: not in the %s bset (currently %s); bounds can only be narrowed, nothing written",
			miss, name, cur);
		free(miss);
		free(cur);
		return -1;
	}
	missing = req->mask & ~b->inh;
	if (missing) {
		miss = caps_list(missing);
		umh_warn("%s is not in the %s inheritable bound and stays cleared there",
			 miss, name);
		free(miss);
	}
	return 0;
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

static int apply(const struct umh_opts *o, const struct set_req *req,
		 const char *file, uint64_t mask)
{
	const char *name = umh_purpose_names[req->purpose];
	char path[PATH_MAX];
	char *names;
	int err = 0;

	if (umh_path(path, sizeof(path), o->root, req->purpose, file))
		return -1;
	names = caps_format(mask);
	if (req->dry_run)
		printf("would write \"%u %u\" to %s (%s)\n", (uint32_t)mask,
		       (uint32_t)(mask >> 32), path, names);
	else if (!umh_write_verify(path, mask))
		printf("%s %s: %s\n", name, file, names);
	else
		err = -1;
	free(names);
	return err;
}

int cmd_set(const struct umh_opts *o, int argc, char **argv, bool keep)
{
	struct set_req req = { .purpose = UMH_ALL };
	struct umh_bound nb, *cur;
	struct umh_state st;

	if (parse_set_args(argc, argv, &req))
		return UMH_EXIT_ERROR;
	if (umh_load(o->root, &st))
		return UMH_EXIT_ERROR;
	if (req.purpose != UMH_ALL && !st.per_purpose) {
		umh_no_per_purpose(o->root);
		return UMH_EXIT_ERROR;
	}
	cur = &st.b[req.purpose];
	if (keep) {
		if (check_keep(&req, cur))
			return UMH_EXIT_ERROR;
		nb.bset = cur->bset & req.mask;
		nb.inh = cur->inh & req.mask;
	} else {
		nb.bset = cur->bset & ~req.mask;
		nb.inh = cur->inh & ~req.mask;
	}
	if (apply(o, &req, "bset", nb.bset) ||
	    apply(o, &req, "inheritable", nb.inh))
		return UMH_EXIT_ERROR;
	return UMH_EXIT_OK;
}
