// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sharedmm.c - two pairs of processes, each pair on one mm (test_sharedmm.py).
 *
 * sharedmm MIB: the process itself writes a private anonymous mapping of
 * MIB MiB and starts a clone(CLONE_VM) child (no CLONE_THREAD: a process of
 * its own on the same mm), then prints "clone PARENT CHILD". A fork of it,
 * before that mapping exists, writes a mapping of its own of MIB MiB and
 * vforks: the vfork child (the parent waits in vfork while it lives)
 * prints "vfork PARENT CHILD". Every page is mapped once (mapcount 1) yet
 * in both processes of its pair. All four wait for SIGKILL.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char stack[64 * 1024];

static int idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

static char *written(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	memset(p, 0x5a, len);
	return p;
}

static void say(const char *what, pid_t a, pid_t b)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%s %d %d\n", what, (int)a,
			 (int)b);

	if (write(STDOUT_FILENO, line, (size_t)n) != n)
		_exit(1);
}

int main(int argc, char **argv)
{
	size_t len = (size_t)(argc > 1 ? atol(argv[1]) : 288) << 20;
	pid_t f, c;

	f = fork();
	if (f < 0) {
		perror("fork");
		return 1;
	}
	if (!f) {
		pid_t parent = getpid();

		written(len);
		/* the child only writes its line and waits (vfork's rules) */
		if (!vfork()) {
			say("vfork", parent, getpid());
			idle(NULL);
		}
		idle(NULL);
	}
	written(len);
	c = clone(idle, stack + sizeof(stack), CLONE_VM | SIGCHLD, NULL);
	if (c < 0) {
		perror("clone");
		return 1;
	}
	say("clone", getpid(), c);
	idle(NULL);
	return 0;
}
