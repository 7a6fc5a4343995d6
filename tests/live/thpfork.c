// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * thpfork.c - fixture of test_thpfork.py: transparent huge pages a fork
 * child partly wrote, and huge pages of each process's own.
 *
 * Two 1 GiB reservations (MAP_NORESERVE, 2 MiB aligned, MADV_HUGEPAGE):
 *   split  8 huge pages written before fork (each page its own bytes).
 *          The child then writes the first huge page and a half: the
 *          first one becomes 512 pages of its own, the second one's
 *          first half too, and the child maps that huge page's second
 *          half by PTEs while the parent still maps it whole by its PMD.
 *          pagemap marks every page of a PMD-mapped huge page mapped
 *          once when its first page is: the parent's words of that second
 *          half say so, though the child maps the same frames.
 *   own    after fork, each process writes 8 huge pages of its own there
 *          and reads 2 MiB it never wrote (the huge zero page, where the
 *          kernel uses it; else 4 KiB zero pages).
 * Prints "pids PARENT CHILD", "region NAME START END" for each, "ready",
 * then both wait until the parent gets SIGTERM (it kills the child).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reserve.h"

#define HUGE ((size_t)2 << 20)
#define GIB ((size_t)1 << 30)

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static unsigned char *reserve(void)
{
	unsigned char *p = reserve_aligned(GIB, MAP_PRIVATE);

	if (p == MAP_FAILED)
		die("mmap");
	if (madvise(p, GIB, MADV_HUGEPAGE))
		die("MADV_HUGEPAGE");
	return p;
}

/* Write n bytes from p, each 4 KiB page different (no KSM twin). */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t o = 0; o < n; o += 4096) {
		memset(p + o, (int)(seed + o / 4096), 4096);
		memcpy(p + o, &o, sizeof(o));
		memcpy(p + o + sizeof(o), &seed, sizeof(seed));
	}
}

static volatile sig_atomic_t done;

static void on_term(int sig)
{
	(void)sig;
	done = 1;
}

int main(void)
{
	unsigned char *split = reserve(), *own = reserve();
	volatile unsigned sum = 0;
	struct sigaction sa = { .sa_handler = on_term };
	sigset_t block, old;
	pid_t child;
	int pfd[2];
	char c;

	/* SIGTERM blocked but in sigsuspend: one that came between a test
	 * of done and pause() would be lost, and the parent wait forever */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	fill(split, 8 * HUGE, 1);
	if (pipe(pfd))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fill(split, HUGE + HUGE / 2, 7);
	}
	fill(own, 8 * HUGE, child ? 3 : 5);
	for (size_t o = 0; o < HUGE; o += 4096)
		sum += own[9 * HUGE + o];
	if (!child) {
		if (write(pfd[1], "x", 1) != 1)
			die("write");
		for (;;)
			pause(); /* until the parent kills it */
	}
	if (read(pfd[0], &c, 1) != 1)
		die("read");
	printf("pids %d %d\n", (int)getpid(), (int)child);
	printf("region split %lx %lx\n", (unsigned long)split,
	       (unsigned long)(split + GIB));
	printf("region own %lx %lx\n", (unsigned long)own,
	       (unsigned long)(own + GIB));
	printf("ready\n");
	fflush(stdout);
	while (!done)
		sigsuspend(&old);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return (int)(sum & 0);
}
