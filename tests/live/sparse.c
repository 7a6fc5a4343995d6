/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sparse - big, mostly empty reservations with known sharing, for the test
 * of pagemap read mode's counted mappings (test_counted.py), then wait.
 *
 * Four processes: the parent and three children. Each region is a private
 * anonymous reservation of 1 GiB (MAP_NORESERVE), its pages written with
 * non-zero data (never read first: no zero page in them):
 *
 *   own      each process writes 32 pages of its own after fork: every
 *            page mapped once (smaps: all Private), so read mode counts it
 *   forked   the parent writes 32 pages before fork, the children only
 *            read them: shared by four, read mode reads its frames
 *   mixed    16 pages written before fork (shared) and 16 of its own
 *            written by each process after: read
 *   cowed    8 pages written before fork, then written again by every
 *            process: each has its own copy of each, all mapped once
 *   thp      MADV_HUGEPAGE, two 2 MiB ranges written by each process after
 *            fork (transparent huge pages where the kernel gives them)
 *   dropped  16 pages written before fork and read by the children; then
 *            the parent drops the last 8 (MADV_DONTNEED): the children
 *            share those at addresses where the parent has none
 *   zown     each process writes 8 pages of its own after fork and
 *            only reads 8 others (the zero page): counted, so read mode
 *            leaves its zero pages out of zero (README), the others not
 *   zfork    8 pages written and 8 others only read (the zero page)
 *            before fork, shared by all four (fork copies zero-page
 *            entries too): located but where read whole; those that
 *            locate it find its zero pages where the whole read did
 *   empty    never touched
 *   shared   MAP_SHARED anonymous, 5 pages: 3 written and 2 only read
 *            (shared memory has no zero page: clean pages) before fork,
 *            all 5 read by every child: shared by four, dirty and clean
 *            (smaps_rollup's Pss_Dirty from smaps' counts, see
 *            kpss_from_smaps). Not a candidate (shared memory), a small
 *            mapping read as always, but for the children's, whose words
 *            read mode takes from the frames the parent read (every page
 *            present in each, none mapped once: shared_derive_whole)
 *   shpart   MAP_SHARED anonymous, 8 pages written before fork; child i
 *            writes only the 4 pages k where k + i is even (a read fault
 *            would map the pages around too: fault-around): its smaps Rss
 *            falls short of the mapping, so its words are read, never
 *            taken from the parent's frames
 *
 * With -s (needs active swap) two more, paged out with MADV_PAGEOUT:
 *   swown    each process writes 8 pages after fork and pages them out:
 *            swap entries of one reference (SwapPss = Swap): counted
 *   swfork   8 pages written and paged out before fork: each swap entry
 *            shared by four: read
 *
 * Output, one fact per line, then "ready": "region NAME START END" (hex),
 * "pids P0 P1 P2 P3". All sleep until the parent gets SIGTERM/SIGINT/SIGHUP
 * or dies (the children get SIGKILL through PR_SET_PDEATHSIG). With -v
 * [vdso] and [vvar] are unmapped (link it statically): no page of its
 * processes is then mapped by a process outside them.
 *
 * Usage: sparse [-s] [-v] [DIR]   (DIR: taken as the sharer takes it, so
 * that exmlive.Sharer starts either; unused)
 */
#include <errno.h>
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
#include "unmap_vdso.h"
#include "zeropage.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define GIB ((size_t)1 << 30)
#define HUGE ((size_t)2 << 20)
#define NCHILD 3

static volatile sig_atomic_t stop;
static size_t ps;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "sparse: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A 1 GiB reservation aligned to 2 MiB. */
static unsigned char *reserve(int shared)
{
	unsigned char *p = reserve_aligned(GIB,
					   shared ? MAP_SHARED : MAP_PRIVATE);

	if (p == MAP_FAILED)
		die("mmap");
	if (!shared && madvise(p, GIB, MADV_NOHUGEPAGE))
		die("madvise");
	return p;
}

/* Write n pages spread over r from slot first on (of 64 slots), k+1. */
static void write_pages(unsigned char *r, size_t n, size_t first, int k)
{
	for (size_t i = 0; i < n; i++)
		r[(first + i) * (GIB / 64) + (size_t)k * ps] =
			(unsigned char)(k + 1);
}

/* Read the pages write_pages(r, n, first, 0) wrote. */
static unsigned long read_pages(const unsigned char *r, size_t n, size_t first)
{
	unsigned long sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += ((const volatile unsigned char *)
				r)[(first + i) * (GIB / 64)];
	return sum;
}

/* Read n pages never written, spread as write_pages(r, n, first, k) would
 * write them: read faults, which map the zero page (or UFFDIO_ZEROPAGE
 * where they do not: tests/live/zeropage.h). */
static unsigned long read_zero(unsigned char *r, size_t n, size_t first, int k)
{
	unsigned long sum = 1;

	if (zp_begin(r, GIB, ps))
		die("userfaultfd");
	for (size_t i = 0; i < n; i++) {
		unsigned char *p = r + (first + i) * (GIB / 64) +
				   (size_t)k * ps;

		if (zp_read(p, ps))
			die("UFFDIO_ZEROPAGE");
		sum += *(const volatile unsigned char *)p;
	}
	zp_end();
	return sum;
}

static void pageout(unsigned char *r, size_t n, size_t first, int k)
{
	for (size_t i = 0; i < n; i++)
		if (madvise(r + (first + i) * (GIB / 64) + (size_t)k * ps, ps,
			    MADV_PAGEOUT))
			die("MADV_PAGEOUT");
}

int main(int argc, char **argv)
{
	int swap = 0, novdso = 0, pipefd[2];
	unsigned char *own, *forked, *mixed, *cowed, *thp, *empty, *shared,
		*shpart;
	unsigned char *dropped, *zown, *zfork;
	unsigned char *swown = NULL, *swfork = NULL;
	pid_t pids[NCHILD + 1];
	struct sigaction sa;
	sigset_t block, old;
	unsigned long sum = 0;
	char c;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s"))
			swap = 1;
		else if (!strcmp(argv[i], "-v"))
			novdso = 1;
		else if (argv[i][0] == '-' || i + 1 < argc) {
			fprintf(stderr, "usage: sparse [-s] [-v] [DIR]\n");
			return 2;
		}
	}
	ps = (size_t)sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	own = reserve(0);
	forked = reserve(0);
	mixed = reserve(0);
	cowed = reserve(0);
	thp = reserve(0);
	empty = reserve(0);
	dropped = reserve(0);
	zown = reserve(0);
	zfork = reserve(0);
	shared = mmap(NULL, 5 * ps, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		die("mmap shared");
	memset(shared, 0x5a, 3 * ps);
	sum += shared[3 * ps] + shared[4 * ps];
	shpart = mmap(NULL, 8 * ps, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shpart == MAP_FAILED)
		die("mmap shpart");
	memset(shpart, 0xa5, 8 * ps);
	if (madvise(thp, GIB, MADV_HUGEPAGE))
		die("MADV_HUGEPAGE");
	write_pages(forked, 32, 0, 0);
	write_pages(mixed, 16, 0, 0);
	write_pages(cowed, 8, 0, 0);
	write_pages(dropped, 16, 0, 0);
	write_pages(zfork, 8, 0, 0);
	sum += read_zero(zfork, 8, 8, 0);
	if (swap) {
		swown = reserve(0);
		swfork = reserve(0);
		write_pages(swfork, 8, 0, 0);
		pageout(swfork, 8, 0, 0);
	}
	printf("page_size %zu\n", ps);
	{
		const struct {
			const char *name;
			const unsigned char *at;
		} regions[] = {
			{ "own", own },		{ "forked", forked },
			{ "mixed", mixed },	{ "cowed", cowed },
			{ "thp", thp },		{ "empty", empty },
			{ "dropped", dropped }, { "zown", zown },
			{ "zfork", zfork },	{ "swown", swown },
			{ "swfork", swfork },
		};

		for (size_t i = 0; i < sizeof(regions) / sizeof(*regions); i++)
			if (regions[i].at)
				printf("region %s %lx %lx\n", regions[i].name,
				       (unsigned long)regions[i].at,
				       (unsigned long)(regions[i].at + GIB));
	}
	fflush(stdout);
	if (pipe(pipefd))
		die("pipe");
	pids[0] = getpid();
	for (int i = 1; i <= NCHILD; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid)
			pids[i] = pid;
		if (pid)
			continue;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != pids[0])
			_exit(1);
		close(pipefd[0]);
		write_pages(own, 32, 0, i);
		sum += read_pages(forked, 32, 0);
		sum += read_pages(mixed, 16, 0);
		sum += read_pages(dropped, 16, 0);
		for (size_t k = 0; k < 5; k++)
			sum += ((const volatile unsigned char *)shared)[k * ps];
		for (size_t k = (size_t)i % 2; k < 8; k += 2)
			shpart[k * ps] = (unsigned char)i; /* a read maps */
		write_pages(mixed, 16, 32, i);
		write_pages(cowed, 8, 0, 0);
		write_pages(zown, 8, 0, i);
		sum += read_zero(zown, 8, 8, i);
		thp[0] = thp[HUGE * 8] = (unsigned char)(i + 1);
		if (swap) {
			write_pages(swown, 8, 0, i);
			pageout(swown, 8, 0, i);
		}
		if (novdso && unmap_vdso())
			die("unmap [vdso]");
		c = sum ? 'r' : 'R';
		if (write(pipefd[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	for (int i = 0; i < NCHILD; i++)
		if (read(pipefd[0], &c, 1) != 1)
			die("a child died");
	write_pages(own, 32, 0, 0);
	write_pages(mixed, 16, 32, 0);
	for (size_t i = 8; i < 16; i++)
		if (madvise(dropped + i * (GIB / 64), ps, MADV_DONTNEED))
			die("MADV_DONTNEED");
	write_pages(cowed, 8, 0, 0);
	write_pages(zown, 8, 0, 0);
	sum += read_zero(zown, 8, 8, 0);
	thp[0] = thp[HUGE * 8] = 1;
	if (swap) {
		write_pages(swown, 8, 0, 0);
		pageout(swown, 8, 0, 0);
	}
	if (novdso && unmap_vdso())
		die("unmap [vdso]");
	printf("pids %d %d %d %d\nready\n", (int)pids[0], (int)pids[1],
	       (int)pids[2], (int)pids[3]);
	fflush(stdout);
	while (!stop)
		sigsuspend(&old);
	for (int i = 1; i <= NCHILD; i++)
		kill(pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	(void)empty;
	return 0;
}
