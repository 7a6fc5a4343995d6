/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * forkset.h - what the statically linked fixtures that fork a set of
 * sleeping processes share (freedset.c, killset.c): die(), and spawn(),
 * a child that runs a function, says so on ready_fd and sleeps until its
 * parent dies. Include after <errno.h>, <signal.h>, <stdio.h>,
 * <stdlib.h>, <string.h>, <sys/prctl.h> and <unistd.h>.
 */
#ifndef EXM_TESTS_FORKSET_H
#define EXM_TESTS_FORKSET_H

/* one byte from each child once it is ready (the parent made the pipe) */
static int ready_fd[2];

static void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(errno));
	exit(1);
}

/* Fork a child that runs fn(arg), says it is ready and sleeps (SIGKILL
 * when parent dies). */
static pid_t spawn(void (*fn)(void *), void *arg, pid_t parent)
{
	pid_t pid = fork();
	char c = 'r';

	if (pid < 0)
		die("fork");
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	fn(arg);
	if (write(ready_fd[1], &c, 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

#endif
