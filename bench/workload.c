/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * workload - the benchmark's processes (bench/snapshot.sh builds and runs it).
 *
 * The parent reserves RESERVE_GIB of address space (PROT_NONE, NORESERVE,
 * never touched), writes SHARED_ANON_MIB of private anonymous memory and
 * SHM_MIB of MAP_SHARED anonymous memory, then forks NPROCS-1 children. Each
 * child inherits the reservation and the fork-shared anonymous memory (CoW,
 * never written again) and maps in every page of the shared memory. When
 * all are ready the parent prints "pids P0 P1 ..." and "ready" and waits for
 * SIGTERM/SIGINT/SIGHUP; children die with it (PR_SET_PDEATHSIG).
 *
 * With SCATTER (the kernel module's benchmark, bench/kmod.sh) the
 * reservation is writable: the parent writes SCATTER pages spread over it
 * before fork (CoW-shared) and each child SCATTER pages of its own, and the
 * fork-shared anonymous memory asks for transparent huge pages. A negative
 * SCATTER writes none before fork: each process writes -SCATTER pages of
 * its own (a reservation holding only pages mapped once, which pagemap's
 * read mode counts rather than reads).
 *
 * Usage: workload [NPROCS [RESERVE_GIB [SHARED_ANON_MIB [SHM_MIB [SCATTER]]]]]
 *        defaults 100 64 32 128 0
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Map in every page of a shared range without writing it. */
static void populate(unsigned char *p, size_t len, size_t ps)
{
	volatile unsigned long sum = 0;

	if (madvise(p, len, MADV_POPULATE_READ) == 0)
		return;
	for (size_t off = 0; off < len; off += ps)
		sum += p[off];
}

/* Write n pages spread over a reservation, shifted per process k. */
static void scribble(unsigned char *r, size_t len, size_t n, size_t ps,
		     size_t k)
{
	size_t step = n ? len / n : 0;

	for (size_t i = 0; i < n; i++)
		r[i * step + (k * ps) % step] = (unsigned char)(k + 1);
}

int main(int argc, char **argv)
{
	long nprocs = argc > 1 ? atol(argv[1]) : 100;
	size_t reserve = (size_t)(argc > 2 ? atol(argv[2]) : 64) << 30;
	size_t anon = (size_t)(argc > 3 ? atol(argv[3]) : 32) << 20;
	size_t shm = (size_t)(argc > 4 ? atol(argv[4]) : 128) << 20;
	long scatter_arg = argc > 5 ? atol(argv[5]) : 0;
	size_t scatter = (size_t)(scatter_arg < 0 ? -scatter_arg : scatter_arg);
	int own_only = scatter_arg < 0;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *res, *a, *s;
	struct sigaction sa;
	sigset_t block, old;
	pid_t *pids;
	int pipefd[2];
	char c;

	if (nprocs < 1 || nprocs > 10000) {
		fprintf(stderr, "workload: bad process count\n");
		return 2;
	}
	pids = calloc((size_t)nprocs, sizeof(*pids));
	if (!pids)
		die("calloc");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	res = mmap(NULL, reserve, scatter ? PROT_READ | PROT_WRITE : PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		die("mmap reservation");
	if (scatter)
		madvise(res, reserve, MADV_NOHUGEPAGE);
	if (!own_only)
		scribble(res, reserve, scatter, ps, 0);
	a = mmap(NULL, anon, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		die("mmap anon");
	if (scatter) /* best effort: THP where the kernel can */
		madvise(a, anon, MADV_HUGEPAGE);
	for (size_t off = 0; off < anon; off += ps)
		memset(a + off, 0x5a, ps);
	s = mmap(NULL, shm, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	if (s == MAP_FAILED)
		die("mmap shm");
	for (size_t off = 0; off < shm; off += ps)
		memset(s + off, 0xa5, ps);

	if (pipe(pipefd))
		die("pipe");
	pids[0] = getpid();
	for (long i = 1; i < nprocs; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != pids[0])
				_exit(1);
			close(pipefd[0]);
			populate(s, shm, ps);
			scribble(res, reserve, scatter, ps, (size_t)i);
			c = 'r';
			if (write(pipefd[1], &c, 1) != 1)
				_exit(1);
			sigprocmask(SIG_SETMASK, &old, NULL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			for (;;)
				pause();
		}
		pids[i] = pid;
	}
	close(pipefd[1]);
	if (own_only)
		scribble(res, reserve, scatter, ps, (size_t)nprocs);
	for (long i = 1; i < nprocs; i++) {
		if (read(pipefd[0], &c, 1) != 1) {
			errno = ECHILD;
			die("child setup");
		}
	}
	printf("pids");
	for (long i = 0; i < nprocs; i++)
		printf(" %d", (int)pids[i]);
	printf("\nready\n");
	fflush(stdout);

	while (!stop)
		sigsuspend(&old);
	for (long i = 1; i < nprocs; i++)
		kill(pids[i], SIGKILL);
	for (long i = 1; i < nprocs; i++)
		waitpid(pids[i], NULL, 0);
	return 0;
}
