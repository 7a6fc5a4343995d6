/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sharer - set up memory sharing whose exact cost is known, then wait.
 *
 * Four processes: the parent (index 0) and three children (1, 2, 3). Every
 * region is a whole number of pages, a distinct count per region so each can
 * be told apart. With P the page size:
 *
 *   private  5 pages  MAP_PRIVATE anon, untouched before fork, written by
 *                     every process after fork: own copies, sole, writable.
 *   cow      7 pages  MAP_PRIVATE anon, written before fork, only read after
 *                     (CoW shared); child 1 then writes page 0, which gets
 *                     its own copy, and the old page 0 stays shared by 3.
 *   ro       3 pages  MAP_PRIVATE anon, written after fork by each process,
 *                     then mprotect(PROT_READ): sole but not writable.
 *   shanon   9 pages  MAP_SHARED anon, written by the parent before fork and
 *                     read by children 1 and 2; child 3 unmaps it.
 *   memfd   11 pages  memfd, mapped MAP_SHARED twice by the parent (memfd and
 *                     memfd2) and once by each child, all pages read.
 *   file    13 pages  MAP_PRIVATE mapping of a temporary file on disk; each
 *                     process writes its first 4 pages after fork (own anon
 *                     copies) and reads the other 9 (shared page cache,
 *                     written back before it is mapped: clean).
 *   thp      2 MiB    MAP_PRIVATE anon, 2 MiB aligned, MADV_HUGEPAGE, written
 *                     before fork (one transparent huge page when the kernel
 *                     can, CoW shared by all four); child 2 then writes page
 *                     THP_WRITTEN, which splits its mapping and copies that
 *                     one page. The sizes are the same with or without THP.
 *
 * With -s (needs active swap) two more regions, paged out with MADV_PAGEOUT:
 *   swcow    6 pages  MAP_PRIVATE anon, written and paged out before fork:
 *                     four processes share each swap entry; child 1 then
 *                     reads pages 0 and 1 back in (present, its own PFN,
 *                     while the other three keep the swap entries).
 *   swsole   8 pages  MAP_PRIVATE anon, written and paged out by each
 *                     process after fork: swap entries of its own.
 * The sharer checks in its own pagemap that those pages really are swapped
 * (or present, for child 1's two) and fails otherwise.
 *
 * The other anonymous regions are MADV_NOHUGEPAGE; everything is written
 * with non-zero data before it is read, so the zero page never appears in a
 * region.
 *
 * Output on stdout, one fact per line, then "ready":
 *   page_size P
 *   region NAME START END [PATH]       (hex addresses, END exclusive; PATH
 *                                       as /proc/PID/maps shows it)
 *   pids PID0 PID1 PID2 PID3
 *   ready
 * Then all four sleep until the parent gets SIGTERM/SIGINT/SIGHUP (it kills
 * the children and removes the temporary file) or dies (the children get
 * SIGKILL through PR_SET_PDEATHSIG).
 *
 * With -v the [vdso] and [vvar] mappings are unmapped once the regions
 * are set up (nothing after uses them; the caller links the sharer
 * statically), so that no page of
 * its processes is mapped by a process outside them, and their Pss holds
 * still while they are stopped).
 *
 * Usage: sharer [-s] [-v] [DIR]   (DIR holds the temporary file; default
 * /var/tmp)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unmap_vdso.h"

#define NPROC 4

#define PRIVATE_PAGES 5
#define COW_PAGES 7
#define RO_PAGES 3
#define SHANON_PAGES 9
#define MEMFD_PAGES 11
#define FILE_PAGES 13
#define FILE_WRITTEN 4
#define THP_SIZE (2u << 20)
#define THP_WRITTEN 5
#define SWCOW_PAGES 6
#define SWCOW_READ 2
#define SWSOLE_PAGES 8

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

struct region {
	const char *name;
	unsigned char *addr;
	size_t pages;
};

enum {
	R_PRIVATE,
	R_COW,
	R_RO,
	R_SHANON,
	R_MEMFD,
	R_MEMFD2,
	R_FILE,
	R_THP,
	R_SWCOW,
	R_SWSOLE,
	R__COUNT
};

static struct region regions[R__COUNT] = {
	[R_PRIVATE] = { "private", NULL, PRIVATE_PAGES },
	[R_COW] = { "cow", NULL, COW_PAGES },
	[R_RO] = { "ro", NULL, RO_PAGES },
	[R_SHANON] = { "shanon", NULL, SHANON_PAGES },
	[R_MEMFD] = { "memfd", NULL, MEMFD_PAGES },
	[R_MEMFD2] = { "memfd2", NULL, MEMFD_PAGES },
	[R_FILE] = { "file", NULL, FILE_PAGES },
	[R_THP] = { "thp", NULL, 0 }, /* THP_SIZE / page size */
	[R_SWCOW] = { "swcow", NULL, SWCOW_PAGES },
	[R_SWSOLE] = { "swsole", NULL, SWSOLE_PAGES },
};

static size_t page_size;
static char file_path[4096];
static pid_t children[NPROC];
static volatile sig_atomic_t stop;
static int with_swap;
/* A big, mostly empty reservation (not one of the designed regions; its
 * pages count in the totals): exmtop asks PAGEMAP_SCAN about mappings this
 * big in auto mode and reads smaller ones at once, so both paths meet in
 * one process. */
#define BIG_PAGES ((size_t)(512u << 20) / page_size)
static unsigned char *big;

static void die(const char *what)
{
	fprintf(stderr, "sharer: %s: %s\n", what, strerror(errno));
	if (file_path[0])
		unlink(file_path);
	exit(1);
}

static unsigned char *map(size_t pages, int prot, int flags, int fd)
{
	void *p = mmap(NULL, pages * page_size, prot, flags, fd, 0);

	if (p == MAP_FAILED)
		die("mmap");
	/* No transparent huge pages: one PFN per page, as counted. */
	if (!(flags & MAP_SHARED) && fd < 0 &&
	    madvise(p, pages * page_size, MADV_NOHUGEPAGE) != 0)
		die("madvise");
	return p;
}

/* Write a pattern that is never zero into every page of a range. */
static void fill(unsigned char *p, size_t pages, unsigned char seed)
{
	for (size_t i = 0; i < pages; i++)
		memset(p + i * page_size, (int)(0x40 + ((seed + i) & 0x3f)),
		       page_size);
}

/* Read one byte of every page so each gets mapped. */
static unsigned long touch(const unsigned char *p, size_t pages)
{
	unsigned long sum = 0;

	for (size_t i = 0; i < pages; i++)
		sum += ((const volatile unsigned char *)p)[i * page_size];
	return sum;
}

/* Whether pages [first, first + n) of a range are all swapped (want_swapped)
 * or all present, from our own pagemap. */
static int pages_are(const unsigned char *p, size_t first, size_t n,
		     int want_swapped)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	int ok = 1;

	if (fd < 0)
		die("open pagemap");
	for (size_t i = first; i < first + n; i++) {
		uint64_t w;
		off_t off = (off_t)(((uintptr_t)p / page_size + i) * 8);

		if (pread(fd, &w, 8, off) != 8)
			die("pread pagemap");
		if (want_swapped ? !(w >> 62 & 1) || (w >> 63 & 1)
				 : !(w >> 63 & 1))
			ok = 0;
	}
	close(fd);
	return ok;
}

/* Page a range out to swap; fail unless every page went. */
static void page_out(unsigned char *p, size_t pages)
{
	for (int tries = 0; tries < 50; tries++) {
		if (madvise(p, pages * page_size, MADV_PAGEOUT))
			die("madvise(MADV_PAGEOUT)");
		if (pages_are(p, 0, pages, 1))
			return;
		usleep(20000);
	}
	errno = EAGAIN;
	die("pages not swapped out (is swap on?)");
}

/* What each process does after fork; idx 0 is the parent. */
static void after_fork(int idx)
{
	unsigned long sum = 0;

	fill(regions[R_PRIVATE].addr, PRIVATE_PAGES, (unsigned char)(idx * 8));

	big[(BIG_PAGES / 2 + (size_t)idx) * page_size] = (unsigned char)idx;

	sum += touch(regions[R_COW].addr, COW_PAGES);
	if (idx == 1)
		regions[R_COW].addr[0] = 0x7f;

	fill(regions[R_RO].addr, RO_PAGES, (unsigned char)(idx * 8 + 3));
	if (mprotect(regions[R_RO].addr, RO_PAGES * page_size, PROT_READ))
		die("mprotect");

	if (idx == 3) {
		if (munmap(regions[R_SHANON].addr, SHANON_PAGES * page_size))
			die("munmap");
	} else {
		sum += touch(regions[R_SHANON].addr, SHANON_PAGES);
	}

	if (idx != 0) {
		if (munmap(regions[R_MEMFD2].addr, MEMFD_PAGES * page_size))
			die("munmap");
	} else {
		sum += touch(regions[R_MEMFD2].addr, MEMFD_PAGES);
	}
	sum += touch(regions[R_MEMFD].addr, MEMFD_PAGES);

	fill(regions[R_FILE].addr, FILE_WRITTEN, (unsigned char)(idx * 8 + 5));
	sum += touch(regions[R_FILE].addr + FILE_WRITTEN * page_size,
		     FILE_PAGES - FILE_WRITTEN);

	sum += touch(regions[R_THP].addr, regions[R_THP].pages);
	if (idx == 2)
		regions[R_THP].addr[THP_WRITTEN * page_size] = 0x7e;

	if (with_swap) {
		fill(regions[R_SWSOLE].addr, SWSOLE_PAGES,
		     (unsigned char)(idx * 8 + 6));
		page_out(regions[R_SWSOLE].addr, SWSOLE_PAGES);
		if (idx == 1) {
			sum += touch(regions[R_SWCOW].addr, SWCOW_READ);
			if (!pages_are(regions[R_SWCOW].addr, 0, SWCOW_READ,
				       0)) {
				errno = EAGAIN;
				die("swap-in");
			}
		}
		if (!pages_are(regions[R_SWCOW].addr, idx == 1 ? SWCOW_READ : 0,
			       idx == 1 ? SWCOW_PAGES - SWCOW_READ
					: SWCOW_PAGES,
			       1)) {
			errno = EAGAIN;
			die("swcow pages not swapped");
		}
	}

	if (sum == 0) /* every byte read is non-zero */
		fprintf(stderr, "sharer: unexpected zero data\n");
}

/* Print a path the way /proc/PID/maps does: newline as "\012". */
static void print_maps_name(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\\012", stdout);
		else
			putchar(*s);
	}
}

static int is_region(uintptr_t start)
{
	for (int r = 0; r < R__COUNT; r++)
		if ((uintptr_t)regions[r].addr == start)
			return 1;
	return 0;
}

/* Grow the stack now, so that what runs after "ready" finds it mapped. */
static void __attribute__((noinline)) touch_stack(void)
{
	volatile unsigned char pad[64 * 1024];

	for (size_t i = 0; i < sizeof(pad); i += 512)
		pad[i] = 1;
}

/*
 * Make the process hold still: after "ready" the test compares two readings
 * of its page tables, so nothing may fault in later. A read fault on a file
 * maps up to 16 pages around it (fault-around), so code run after "ready"
 * (pause(), sigsuspend()) would add pages: map every page of every readable
 * file mapping now (programs, libraries; our regions are done already),
 * and grow the stack.
 */
static void settle(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4608];

	if (!f)
		die("open maps");
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, inode;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s %*s %*s %lu", &start, &end, perms,
			   &inode) != 4)
			continue;
		if (!inode || perms[0] != 'r' || is_region(start))
			continue;
		/* Best effort: kernels before 5.14 lack it. */
		madvise((void *)start, end - start, MADV_POPULATE_READ);
	}
	fclose(f);
	touch_stack();
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* A THP_SIZE aligned private anonymous region that may use a huge page. */
static unsigned char *map_thp(void)
{
	unsigned char *p = mmap(NULL, 2 * THP_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;
	size_t head;

	if (p == MAP_FAILED)
		die("mmap");
	a = ((uintptr_t)p + THP_SIZE - 1) & ~(uintptr_t)(THP_SIZE - 1);
	head = a - (uintptr_t)p;
	if (head && munmap(p, head))
		die("munmap");
	if (munmap((unsigned char *)a + THP_SIZE, THP_SIZE - head))
		die("munmap");
	/* Best effort: without THP support the sizes are the same. */
	madvise((void *)a, THP_SIZE, MADV_HUGEPAGE);
	return (unsigned char *)a;
}

static void setup(const char *dir)
{
	unsigned char *buf;
	int fd;

	regions[R_PRIVATE].addr = map(PRIVATE_PAGES, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1);

	regions[R_COW].addr = map(COW_PAGES, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1);
	fill(regions[R_COW].addr, COW_PAGES, 1);

	regions[R_RO].addr = map(RO_PAGES, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1);

	regions[R_SHANON].addr = map(SHANON_PAGES, PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1);
	fill(regions[R_SHANON].addr, SHANON_PAGES, 2);

	fd = memfd_create("exm_sharer", MFD_CLOEXEC);
	if (fd < 0)
		die("memfd_create");
	if (ftruncate(fd, (off_t)(MEMFD_PAGES * page_size)))
		die("ftruncate");
	regions[R_MEMFD].addr = map(MEMFD_PAGES, PROT_READ | PROT_WRITE,
				    MAP_SHARED, fd);
	regions[R_MEMFD2].addr = map(MEMFD_PAGES, PROT_READ, MAP_SHARED, fd);
	close(fd);
	fill(regions[R_MEMFD].addr, MEMFD_PAGES, 3);

	/* A space and a newline: names must come through exactly as maps
	 * shows them ("\012" for the newline). */
	snprintf(file_path, sizeof(file_path), "%s/exm sharer\n-XXXXXX", dir);
	fd = mkstemp(file_path);
	if (fd < 0) {
		file_path[0] = '\0';
		die("mkstemp");
	}
	buf = malloc(page_size);
	if (!buf)
		die("malloc");
	for (size_t i = 0; i < FILE_PAGES; i++) {
		memset(buf, (int)(0x60 + i), page_size);
		if (write(fd, buf, page_size) != (ssize_t)page_size)
			die("write");
	}
	free(buf);
	/* Written back before it is mapped: dirty page cache would be in the
	 * kernel's Pss_Dirty until the kernel writes it back, at a moment of
	 * its own (after 30 s, or at once when anything syncs), and a test
	 * comparing pss_dirty with smaps_rollup read a moment after exmtop
	 * would see those pages go. */
	if (fsync(fd) != 0)
		die("fsync");
	regions[R_FILE].addr = map(FILE_PAGES, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, fd);
	close(fd);

	big = map(BIG_PAGES, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1);
	for (size_t i = 0; i < BIG_PAGES; i += BIG_PAGES / 8)
		big[i * page_size] = 0x5a; /* shared after fork */
	/* and an empty one, which plain reads skip once smaps says so */
	map(2 * BIG_PAGES, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1);

	regions[R_THP].pages = THP_SIZE / page_size;
	regions[R_THP].addr = map_thp();
	fill(regions[R_THP].addr, regions[R_THP].pages, 4);

	if (with_swap) {
		regions[R_SWCOW].addr = map(SWCOW_PAGES, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1);
		fill(regions[R_SWCOW].addr, SWCOW_PAGES, 7);
		page_out(regions[R_SWCOW].addr, SWCOW_PAGES);
		regions[R_SWSOLE].addr = map(SWSOLE_PAGES,
					     PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1);
	}
}

static int no_vdso;

int main(int argc, char **argv)
{
	const char *dir = "/var/tmp";
	struct sigaction sa;
	sigset_t block, old;
	int pipefd[2];
	char c;

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	/* If the test that started us dies, clean up as if told to. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s"))
			with_swap = 1;
		else if (!strcmp(argv[i], "-v"))
			no_vdso = 1;
		else
			dir = argv[i];
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	/* Signals wait until we are ready to clean up. */
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	setup(dir);
	if (no_vdso) /* after setup: mkstemp asks the vdso for the time */
		if (unmap_vdso())
			die("unmap vdso");
	if (pipe(pipefd))
		die("pipe");

	children[0] = getpid();
	for (int idx = 1; idx < NPROC; idx++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			file_path[0] = '\0'; /* the parent removes it */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != children[0])
				_exit(1);
			close(pipefd[0]);
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			sigprocmask(SIG_SETMASK, &old, NULL);
			after_fork(idx);
			settle();
			c = 'r';
			if (write(pipefd[1], &c, 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		children[idx] = pid;
	}
	close(pipefd[1]);
	after_fork(0);
	settle();
	for (int i = 1; i < NPROC; i++) {
		if (read(pipefd[0], &c, 1) != 1) {
			errno = ECHILD;
			die("child setup");
		}
	}
	close(pipefd[0]);

	printf("page_size %zu\n", page_size);
	for (int r = 0; r < R__COUNT; r++) {
		uintptr_t start = (uintptr_t)regions[r].addr;

		if (!regions[r].addr)
			continue;
		printf("region %s %#lx %#lx", regions[r].name,
		       (unsigned long)start,
		       (unsigned long)(start + regions[r].pages * page_size));
		if (r == R_FILE) {
			putchar(' ');
			print_maps_name(file_path);
		}
		putchar('\n');
	}
	printf("pids");
	for (int i = 0; i < NPROC; i++)
		printf(" %d", (int)children[i]);
	printf("\nready\n");
	fflush(stdout);

	while (!stop)
		sigsuspend(&old);

	for (int i = 1; i < NPROC; i++)
		kill(children[i], SIGKILL);
	for (int i = 1; i < NPROC; i++)
		waitpid(children[i], NULL, 0);
	unlink(file_path);
	return 0;
}
