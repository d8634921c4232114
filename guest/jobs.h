/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of real helpers share: guest/real_test.c, in the busybox
 * guest, and guest/installed_test.c, in Debian 12 as installed.  A job is
 * a helper doing what its users need of it; it returns 0, or -1 with why
 * it was not done.
 */
#ifndef UMHCAP_GUEST_JOBS_H
#define UMHCAP_GUEST_JOBS_H

#include <grp.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <linux/keyctl.h>

static int fail(char *why, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * How long an asynchronous job (a core stored, a node made, a cgroup
 * removed) may take: UMH_REAL_WAIT seconds, 10 unless the kernel command
 * line says more (a debug kernel under TCG is slow).  A job that fails
 * waits this long, once per boot and helper.
 */
static long long deadline_ms(void)
{
	const char *s = getenv("UMH_REAL_WAIT");
	int sec = s ? atoi(s) : 0;

	return (sec > 0 ? sec : 10) * 1000LL;
}

/* Polls @done until it is true or the deadline has passed. */
static bool wait_for(bool (*done)(void))
{
	long long end = now_ms() + deadline_ms();

	while (!done()) {
		if (now_ms() > end)
			return false;
		usleep(20000);
	}
	return true;
}

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

/* Drops to @uid, in every id and with no supplementary group: 0 or -1. */
static int become(uid_t uid)
{
	return setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	       setresuid(uid, uid, uid) ? -1 : 0;
}

/*
 * Runs @argv as @uid, with no capability left, or as root with every
 * capability if @uid is 0: the admin's side, no helper.  Its exit status.
 */
static int run_as(uid_t uid, char *const argv[])
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd = open("/dev/null", O_RDWR);

		dup2(fd, 1);
		if (uid && become(uid))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run(char *const argv[])
{
	return run_as(0, argv);
}

/*
 * The request_key() job, as its user sees it: @uid, in a session keyring
 * of its own, asks for the key @type:@desc with @info; the key must come,
 * readable, with a payload that holds @want.
 */
static int user_request_key(uid_t uid, const char *type, const char *desc,
			    const char *info, const char *want,
			    char *why, size_t n)
{
	static const char *const step[] = {
		"", "", "setresuid", "new session keyring",
		"request_key() failed", "the key is unreadable",
		"the key holds another payload",
	};
	int status, s;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return fail(why, n, "fork: %s", strerror(errno));
	if (!pid) {
		char got[256] = "";
		long key;

		if (become(uid))
			_exit(2);
		if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
			_exit(3);
		key = syscall(SYS_request_key, type, desc, info,
			      KEY_SPEC_SESSION_KEYRING);
		if (key < 0)
			_exit(4);
		if (syscall(SYS_keyctl, KEYCTL_READ, key, got,
			    sizeof(got) - 1) < 0)
			_exit(5);
		_exit(strstr(got, want) ? 0 : 6);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail(why, n, "waitpid: %s", strerror(errno));
	s = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	if (!WIFEXITED(status) || s)
		return fail(why, n, "uid %d: %s", (int)uid,
			    s > 1 && s < 7 ? step[s] : "killed");
	return 0;
}

/* Runs @cmd and shows what it printed, as KTAP diagnostics. */
static void show_output(const char *cmd)
{
	char line[512];
	FILE *p = popen(cmd, "r");

	if (!p) {
		ksft_print_msg("%s: %s\n", cmd, strerror(errno));
		return;
	}
	ksft_print_msg("$ %s\n", cmd);
	while (fgets(line, sizeof(line), p))
		ksft_print_msg("  %s", line);
	if (pclose(p))
		ksft_print_msg("%s failed\n", cmd);
}

static void unload(const char *module)
{
	/* Removal may wait for the last user (a helper's mount) to go. */
	for (int i = 0; i < 500; i++) {
		if (!syscall(SYS_delete_module, module, O_NONBLOCK) ||
		    errno == ENOENT)
			return;
		usleep(20000);
	}
}

/* The n-th (from 1) lowest capability of @set, or -1. */
static int nth_cap(unsigned long long set, int n)
{
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
		if ((set >> cap & 1) && !--n)
			return cap;
	return -1;
}

#endif /* UMHCAP_GUEST_JOBS_H */
