/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * freedset - processes whose exclusive memory (DESIGN.md s. 3) is known by
 * construction, for tests/live/test_freed.py. Linked statically, and the
 * [vdso] and [vvar] unmapped before any fork, so that no page of these
 * processes is mapped by any other process.
 *
 * With P the page size and MiB = 1 << 20, eight processes:
 *   P      the server: 64 MiB MAP_PRIVATE anon (no THP), written before
 *          its workers are forked; a memfd "both" of 8 pages, written;
 *          a memfd "group" of 4 pages, written.
 *   O      the outsider (forked before the 64 MiB exists): reads "both".
 *   A, B   each maps a 16-page file (on DIR's file system, unlinked) shared
 *          and reads every page; nothing else.
 *   C1-C4  P's workers: worker i writes one byte a page of the i-th 8 MiB
 *          of the 64 MiB (its own copies); C1 reads "group".
 * Expected: each worker frees its 8 MiB; P frees none of the 64 MiB (every
 * page of it is still mapped by P and three workers); P and its workers
 * together free 64 + 32 MiB; "both" is exclusive to neither side, "group"
 * is P and its workers' shared memory; the file's pages are CACHED of A
 * and B together only.
 *
 * Output: "page_size P", "pids P O A B C1 C2 C3 C4", "ready"; then all
 * sleep until killed (the test kills the process group; the others get
 * SIGKILL when P dies, PR_SET_PDEATHSIG).
 *
 * Usage: freedset DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "forkset.h"
#include "unmap_vdso.h"

#define MIB (1UL << 20)
#define BIG (64 * MIB)
#define SLICE (8 * MIB)
#define NWORKERS 4
#define FILE_PAGES 16
#define BOTH_PAGES 8
#define GROUP_PAGES 4

static size_t ps;

static void touch_read(const volatile char *p, size_t len)
{
	char sum = 0;

	for (size_t o = 0; o < len; o += ps)
		sum += p[o];
	(void)sum;
}

static char *shared_memfd(const char *name, size_t pages)
{
	int fd = memfd_create(name, 0);
	char *p;

	if (fd < 0 || ftruncate(fd, (off_t)(pages * ps)))
		die("memfd");
	p = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap memfd");
	close(fd);
	memset(p, 0x5a, pages * ps);
	return p;
}

static void outsider(void *both)
{
	touch_read(both, BOTH_PAGES * ps);
}

static void file_reader(void *fdp)
{
	int fd = *(int *)fdp;
	char *p = mmap(NULL, FILE_PAGES * ps, PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		_exit(1);
	touch_read(p, FILE_PAGES * ps);
}

struct work {
	char *big, *group;
	int idx;
};

static void worker(void *arg)
{
	struct work *w = arg;

	for (size_t o = 0; o < SLICE; o += ps)
		w->big[(size_t)w->idx * SLICE + o] = (char)(w->idx + 2);
	if (w->idx == 0)
		touch_read(w->group, GROUP_PAGES * ps);
}

int main(int argc, char **argv)
{
	char path[4096], *both, *group, *big, c;
	pid_t pids[3 + NWORKERS], self = getpid();
	struct work work[NWORKERS];
	int fd;

	if (argc != 2)
		return 2;
	ps = (size_t)sysconf(_SC_PAGESIZE);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	snprintf(path, sizeof(path), "%s/freedset.XXXXXX", argv[1]);
	fd = mkstemp(path);
	if (fd < 0)
		die("mkstemp");
	unlink(path);
	for (int i = 0; i < FILE_PAGES; i++) {
		char page[65536];

		memset(page, 'a' + i, ps);
		if (write(fd, page, ps) != (ssize_t)ps)
			die("write file");
	}
	both = shared_memfd("freedset-both", BOTH_PAGES);
	group = shared_memfd("freedset-group", GROUP_PAGES);
	if (unmap_vdso())
		die("unmap vdso");
	if (pipe(ready_fd))
		die("pipe");
	pids[0] = spawn(outsider, both, self);
	pids[1] = spawn(file_reader, &fd, self);
	pids[2] = spawn(file_reader, &fd, self);
	big = mmap(NULL, BIG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (big == MAP_FAILED || madvise(big, BIG, MADV_NOHUGEPAGE))
		die("mmap big");
	memset(big, 1, BIG);
	for (int i = 0; i < NWORKERS; i++) {
		work[i] = (struct work){ .big = big, .group = group, .idx = i };
		pids[3 + i] = spawn(worker, &work[i], self);
	}
	for (int i = 0; i < 3 + NWORKERS; i++)
		if (read(ready_fd[0], &c, 1) != 1)
			die("child setup");
	printf("page_size %zu\npids %d", ps, (int)self);
	for (int i = 0; i < 3 + NWORKERS; i++)
		printf(" %d", (int)pids[i]);
	printf("\nready\n");
	fflush(stdout);
	for (;;)
		pause();
}
