// SPDX-License-Identifier: GPL-2.0
/*
 * The one helper program of a CONFIG_STATIC_USERMODEHELPER kernel, built
 * with CONFIG_STATIC_USERMODEHELPER_PATH="/sbin/umh-dispatch" (the
 * static-umh line of config/matrix).
 *
 * Such a kernel runs this program for every helper, with the argument
 * vector it was asked to run: argv[0] is the program the kernel would
 * have run.  A distribution's dispatcher checks it against a list; this
 * one, for the tests, executes any absolute path.  The kernel bounded the
 * helper before running this program, and exec as root keeps the bounds:
 * the program executed starts with the bounds of its purpose.
 */
#include <unistd.h>

int main(int argc, char *argv[])
{
	if (argc < 1 || !argv[0] || argv[0][0] != '/')
		return 127;
	execv(argv[0], argv);
	return 127;
}
