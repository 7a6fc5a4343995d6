/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * killset - processes to be killed by tests/live/test_kill.py, which
 * compares what exmtop says a set of them frees (--freed) with what the
 * kernel's memory cgroup gives back when the set is killed. Linked
 * statically, so that the processes share no anonymous page and no
 * private copy with anything outside the cgroup they start in.
 *
 * With MiB = 1 << 20, seven processes:
 *   P      the server: 32 MiB MAP_PRIVATE anon (no THP), written before
 *          its workers are forked.
 *   M      forked before the 32 MiB exists: a memfd of MEMFD_PAGES pages
 *          it alone maps (the descriptor closed), written, and
 *          OWN_PAGES pages written, 1 MiB apart, in a private anonymous
 *          reservation of 512 MiB (pagemap's paths for big mappings:
 *          PAGEMAP_SCAN in auto mode, read whole in read mode).
 *   T      forked before the 32 MiB exists: writes TINY_PAGES pages of
 *          its own; so small that its exit alone may not make the
 *          kernel flush the cgroup's statistics on read (test_kill.py).
 *   W1-W4  P's workers: worker i writes one byte a page of the i-th
 *          4 MiB of the 32 MiB (its own copies).
 *
 * Output: "pids P M T W1 W2 W3 W4", "ready"; then all sleep until killed
 * (the children get SIGKILL when P dies, PR_SET_PDEATHSIG).
 *
 * Usage: killset          the processes above
 *        killset ballast  write BALLAST bytes of anon and exit (the test
 *                         runs it in its cgroup to make the kernel
 *                         flush the cgroup's statistics, see there)
 *        killset swapped  write SWAPPED bytes of anon, say "ready" and
 *                         sleep until killed (the test pushes part of
 *                         them to swap with its cgroup's limit)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "forkset.h"

#define MIB (1UL << 20)
#define BIG (32 * MIB)
#define SLICE (4 * MIB)
#define NWORKERS 4
#define MEMFD_PAGES 16
#define OWN_PAGES 16
#define RESERVE (512 * MIB)
#define TINY_PAGES 4
#define BALLAST (4 * MIB)
#define SWAPPED (16 * MIB)

static size_t ps;

static char *anon(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || madvise(p, len, MADV_NOHUGEPAGE))
		die("mmap anon");
	memset(p, 1, len);
	return p;
}

static void memfd_holder(void *unused)
{
	int fd = memfd_create("killset-own", 0);
	char *p;

	(void)unused;
	if (fd < 0 || ftruncate(fd, (off_t)(MEMFD_PAGES * ps)))
		die("memfd");
	p = mmap(NULL, MEMFD_PAGES * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	if (p == MAP_FAILED)
		die("mmap memfd");
	close(fd);
	memset(p, 0x5a, MEMFD_PAGES * ps);
	p = mmap(NULL, RESERVE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED || madvise(p, RESERVE, MADV_NOHUGEPAGE))
		die("mmap reservation");
	for (size_t i = 0; i < OWN_PAGES; i++)
		p[i * MIB] = 1;
}

static void tiny(void *unused)
{
	(void)unused;
	anon(TINY_PAGES * ps);
}

struct work {
	char *big;
	int idx;
};

static void worker(void *arg)
{
	struct work *w = arg;

	for (size_t o = 0; o < SLICE; o += ps)
		w->big[(size_t)w->idx * SLICE + o] = (char)(w->idx + 2);
}

int main(int argc, char **argv)
{
	pid_t pids[2 + NWORKERS], self = getpid();
	struct work work[NWORKERS];
	char *big, c;

	ps = (size_t)sysconf(_SC_PAGESIZE);
	if (argc == 2 && !strcmp(argv[1], "ballast")) {
		anon(BALLAST);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "swapped")) {
		anon(SWAPPED);
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (argc != 1)
		return 2;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (pipe(ready_fd))
		die("pipe");
	pids[0] = spawn(memfd_holder, NULL, self);
	pids[1] = spawn(tiny, NULL, self);
	big = anon(BIG);
	for (int i = 0; i < NWORKERS; i++) {
		work[i] = (struct work){ .big = big, .idx = i };
		pids[2 + i] = spawn(worker, &work[i], self);
	}
	for (int i = 0; i < 2 + NWORKERS; i++)
		if (read(ready_fd[0], &c, 1) != 1)
			die("child setup");
	printf("pids %d", (int)self);
	for (int i = 0; i < 2 + NWORKERS; i++)
		printf(" %d", (int)pids[i]);
	printf("\nready\n");
	fflush(stdout);
	for (;;)
		pause();
}
