/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kinds - map memory of one kind whose size is known, then wait: the
 * fixture of tests/live/test_kinds.py.
 *
 *   kinds sparse SIZE N     a private anonymous reservation of SIZE bytes
 *                           (MAP_NORESERVE, no huge pages), N of its pages
 *                           written, scattered over all of it (page i*step
 *                           for step = pages / N, plus i % 7)
 *   kinds zsparse SIZE N    the same reservation with the same N pages
 *                           read, none written: N zero pages, smaps
 *                           calls it empty (no huge pages); and 16 pages
 *                           of /dev/zero mapped private, read: 16 zero
 *                           pages more (region devzero); and 16 of a
 *                           private anonymous mapping read, then made
 *                           PROT_NONE (region protnone): 16 more
 *   kinds runs SIZE N       a private anonymous reservation of SIZE bytes
 *                           (MAP_NORESERVE, no huge pages) with N single
 *                           pages written (page 16*i), then runs of 511,
 *                           512, 513, 1023, 1024, 1025 and 4097 pages
 *                           written whole, run j from page
 *                           16*N + 8192*(j+1) + 37*j (see RUNS)
 *   kinds zero SIZE thp|nothp
 *                           a private anonymous mapping of SIZE bytes,
 *                           2 MiB aligned, every page read and none
 *                           written (the zero page; with thp, MADV_HUGEPAGE
 *                           first: the huge zero page where the kernel
 *                           uses it)
 *   kinds huge N DIR        N huge pages (default size) in each of: a
 *                           MAP_HUGETLB private mapping, an MFD_HUGETLB
 *                           memfd and a file in the hugetlbfs DIR, the last
 *                           two MAP_SHARED; written, then the process forks
 *                           and the child reads all three (the private
 *                           one's pages shared until written)
 *   kinds hugecow N DIR     N huge pages (default size, N even) in each of:
 *                           a MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB mapping
 *                           (region cpriv), written; a MAP_SHARED one
 *                           (cshared), written; a file in the hugetlbfs
 *                           DIR, written through a shared mapping since
 *                           unmapped, then mapped MAP_PRIVATE (cfile),
 *                           every page read and the first N/2 written
 *                           (private copies). Then the process forks; the
 *                           child writes the first N/2 pages of cpriv
 *                           (copies of its own: the last N/2 stay shared)
 *                           and reads the rest of all three
 *   kinds gig NPRIV         1 GiB huge pages (MAP_HUGE_1GB): one in a
 *                           MAP_SHARED|MAP_ANONYMOUS|MAP_HUGETLB mapping
 *                           (region gshared), written, then the process
 *                           forks and the child reads it; then, with
 *                           NPRIV 1, one more in a private MAP_HUGETLB
 *                           mapping the parent alone makes and writes
 *                           (region gpriv)
 *   kinds twice N           a memfd of N pages, written, mapped twice
 *                           (regions twice1, twice2: each page mapped
 *                           twice by this one process), another memfd of
 *                           N pages mapped once (once) and N private
 *                           anonymous pages written (anon)
 *   kinds mosaic            64 pages of mappings side by side (region
 *                           mosaic, from its first page): private
 *                           anonymous pages 0-29 and 50-63, written but
 *                           pages 20-23, pages 4-7 then made read-only (a
 *                           mapping of their own); holes at page 10 (one
 *                           page) and 30-49 (twenty); a 4-page memfd
 *                           mapped shared over pages 12-15, written
 *
 * "Read" above maps the zero page: a read fault does, but a kernel booted
 * with pvm_no_zero_page gives each read fault a page of its own; there the
 * pages are mapped to the zero page with UFFDIO_ZEROPAGE instead (see
 * tests/live/zeropage.h), and the process is the same as elsewhere.
 *
 * Prints "region NAME START END" lines (hex), "pids PID...", then "ready",
 * and sleeps until SIGTERM (the parent kills its child, removes the file).
 * Any failure is one line on stderr and exit status 1.
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
#include <sys/wait.h>
#include <unistd.h>

#include "zeropage.h"

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif
#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB (30 << 26) /* log2(1 GiB) << MAP_HUGE_SHIFT */
#endif

static volatile sig_atomic_t stop;
static char hfile[4096];

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "kinds: %s: %s\n", what, strerror(errno));
	if (hfile[0])
		unlink(hfile);
	exit(1);
}

static void region(const char *name, const void *p, size_t len)
{
	printf("region %s %lx %lx\n", name, (unsigned long)(uintptr_t)p,
	       (unsigned long)((uintptr_t)p + len));
}

/* The zero page mapped at the pages read (tests/live/zeropage.h). */
static void zero_begin(char *p, size_t len, size_t ps)
{
	if (zp_begin(p, len, ps))
		die("userfaultfd");
}

static void zero_read(char *p, size_t ps)
{
	if (zp_read(p, ps))
		die("UFFDIO_ZEROPAGE");
}

static int read_maps_zero(size_t ps)
{
	int r = zp_read_maps_zero(ps);

	if (r < 0)
		die("pagemap probe");
	return r;
}

/* size bytes, aligned to align, of a private anonymous reservation. */
static char *aligned_anon(size_t size, size_t align, int extra)
{
	char *p = mmap(NULL, size + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		die("mmap");
	a = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	munmap((char *)a + size, (uintptr_t)p + align - a);
	return (char *)a;
}

static void sparse(size_t size, size_t n, size_t ps, int write)
{
	size_t pages = size / ps, step = n ? pages / n : 1;
	char *p = aligned_anon(size, 2 << 20, MAP_NORESERVE);

	if (!n || n > pages || step < 8) {
		errno = EINVAL;
		die("sparse: N");
	}
	madvise(p, size, MADV_NOHUGEPAGE);
	if (!write)
		zero_begin(p, size, ps);
	for (size_t i = 0; i < n; i++)
		if (write)
			p[(i * step + i % 7) * ps] = (char)(i | 1);
		else
			zero_read(p + (i * step + i % 7) * ps, ps);
	zp_end();
	region(write ? "sparse" : "zsparse", p, size);
	if (!write && read_maps_zero(ps)) {
		/* anonymous memory too, though it names an inode (without
		 * the zero page on read faults, not made: UFFDIO_ZEROPAGE
		 * refuses a mapping beyond its file's size, and /dev/zero's
		 * is 0) */
		int fd = open("/dev/zero", O_RDONLY);
		char *z = fd < 0 ? MAP_FAILED
				 : mmap(NULL, 16 * ps, PROT_READ, MAP_PRIVATE,
					fd, 0);

		if (z == MAP_FAILED)
			die("/dev/zero");
		close(fd);
		for (size_t i = 0; i < 16; i++)
			(void)((volatile char *)z)[i * ps];
		region("devzero", z, 16 * ps);
	}
	if (!write) {
		char *z;

		/* mprotect keeps the zero pages read before */
		z = mmap(NULL, 16 * ps, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (z == MAP_FAILED)
			die("mmap");
		zero_begin(z, 16 * ps, ps);
		for (size_t i = 0; i < 16; i++)
			zero_read(z + i * ps, ps);
		zp_end();
		if (mprotect(z, 16 * ps, PROT_NONE))
			die("mprotect");
		region("protnone", z, 16 * ps);
	}
}

/* the lengths of kinds runs' runs: on both sides of 512 pages (a PMD,
 * a chunk of pagemap reads) and of 1024 */
static const size_t RUNS[] = { 511, 512, 513, 1023, 1024, 1025, 4097 };

static void runs(size_t size, size_t n, size_t ps)
{
	size_t nruns = sizeof(RUNS) / sizeof(RUNS[0]), pages = size / ps;
	char *p = aligned_anon(size, 2 << 20, MAP_NORESERVE);

	if (16 * n + 8192 * (nruns + 1) > pages) {
		errno = EINVAL;
		die("runs: SIZE too small for N");
	}
	madvise(p, size, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < n; i++)
		p[16 * i * ps] = (char)(i | 1);
	for (size_t j = 0; j < nruns; j++)
		memset(p + (16 * n + 8192 * (j + 1) + 37 * j) * ps,
		       (int)(j | 1), RUNS[j] * ps);
	region("runs", p, size);
}

static void zero(size_t size, int thp)
{
	char *p = aligned_anon(size, 2 << 20, 0);
	volatile char sum = 0;

	if (madvise(p, size, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		die("madvise");
	if (thp) {
		for (size_t i = 0; i < size; i += 4096)
			sum += ((volatile char *)p)[i];
	} else {
		zero_begin(p, size, 4096);
		for (size_t i = 0; i < size; i += 4096)
			zero_read(p + i, 4096);
		zp_end();
	}
	(void)sum;
	region(thp ? "thpzero" : "zero", p, size);
}

static char *map_fd(int fd, size_t len)
{
	char *p;

	if (ftruncate(fd, (off_t)len))
		die("ftruncate");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap hugetlb file");
	return p;
}

/* A child that runs touch(arg), then waits for SIGTERM; returned once
 * touch has returned. */
static pid_t forked(void (*touch)(void *), void *arg)
{
	pid_t child;
	int done[2];
	char c;

	fflush(stdout);
	if (pipe(done))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		touch(arg);
		if (write(done[1], "t", 1) != 1)
			_exit(1);
		while (!stop)
			pause();
		_exit(0);
	}
	close(done[1]);
	if (read(done[0], &c, 1) != 1)
		die("child");
	close(done[0]);
	return child;
}

struct reads {
	char *const *maps;
	int n;
	size_t len, step;
};

static void read_maps(void *arg)
{
	const struct reads *r = arg;
	volatile char sum = 0;

	for (int j = 0; j < r->n; j++)
		for (size_t i = 0; i < r->len; i += r->step)
			sum += ((volatile char *)r->maps[j])[i];
	(void)sum;
}

/* A child that reads a byte of every step bytes of len in each of the n
 * maps, then waits for SIGTERM; returned once it has read them all. */
static pid_t reader(char *const *maps, int n, size_t len, size_t step)
{
	struct reads r = { maps, n, len, step };

	return forked(read_maps, &r);
}

static pid_t huge(size_t n, size_t hps, const char *dir)
{
	size_t len = n * hps;
	char *priv, *mfd, *file;
	int fd;

	priv = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (priv == MAP_FAILED)
		die("MAP_HUGETLB");
	fd = memfd_create("kinds-huge", MFD_HUGETLB);
	if (fd < 0)
		die("MFD_HUGETLB");
	mfd = map_fd(fd, len);
	close(fd);
	snprintf(hfile, sizeof(hfile), "%s/kinds-%d", dir, (int)getpid());
	fd = open(hfile, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		die("hugetlbfs file");
	file = map_fd(fd, len);
	close(fd);
	memset(priv, 1, len);
	memset(mfd, 2, len);
	memset(file, 3, len);
	region("hpriv", priv, len);
	region("hmemfd", mfd, len);
	region("hfile", file, len);
	return reader((char *const[]){ priv, mfd, file }, 3, len, hps);
}

struct cow {
	char *priv, *shared, *file;
	size_t len, half, hps;
};

/* hugecow's child: writes the first half of the private pages, reads the
 * rest and every page of the others. */
static void cow_child(void *arg)
{
	const struct cow *w = arg;
	volatile char sum = 0;

	memset(w->priv, 5, w->half);
	for (size_t i = w->half; i < w->len; i += w->hps)
		sum += ((volatile char *)w->priv)[i];
	for (size_t i = 0; i < w->len; i += w->hps)
		sum += ((volatile char *)w->shared)[i] +
		       ((volatile char *)w->file)[i];
	(void)sum;
}

/* kinds hugecow (see above); hps: the huge page size. */
static pid_t hugecow(size_t n, size_t hps, const char *dir)
{
	size_t len = n * hps, half = n / 2 * hps;
	volatile char sum = 0;
	char *priv, *shared, *file, *w;
	struct cow cow;
	int fd;

	priv = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	shared = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (priv == MAP_FAILED || shared == MAP_FAILED)
		die("MAP_HUGETLB");
	snprintf(hfile, sizeof(hfile), "%s/kinds-%d", dir, (int)getpid());
	fd = open(hfile, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		die("hugetlbfs file");
	w = map_fd(fd, len);
	memset(w, 3, len);
	munmap(w, len);
	file = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (file == MAP_FAILED)
		die("mmap hugetlbfs file private");
	close(fd);
	memset(priv, 1, len);
	memset(shared, 2, len);
	for (size_t i = 0; i < len; i += hps)
		sum += ((volatile char *)file)[i];
	memset(file, 4, half);
	region("cpriv", priv, len);
	region("cshared", shared, len);
	region("cfile", file, len);
	cow = (struct cow){ priv, shared, file, len, half, hps };
	return forked(cow_child, &cow);
}

/* One 1 GiB huge page of flags (MAP_SHARED or MAP_PRIVATE), written. */
static char *gig_page(int flags, const char *name)
{
	size_t len = (size_t)1 << 30;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       flags | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_1GB, -1,
		       0);

	if (p == MAP_FAILED)
		die("MAP_HUGETLB|MAP_HUGE_1GB");
	memset(p, 7, len);
	region(name, p, len);
	return p;
}

static pid_t gig(int npriv)
{
	char *shared = gig_page(MAP_SHARED, "gshared");
	pid_t child = reader(&shared, 1, (size_t)1 << 30, (size_t)1 << 30);

	if (npriv)
		gig_page(MAP_PRIVATE, "gpriv");
	return child;
}

/* A memfd of n pages, written, mapped times times (MAP_SHARED). */
static void memfd_mapped(const char *name, size_t n, size_t ps, int times)
{
	int fd = memfd_create(name, 0);
	char *p;

	if (fd < 0)
		die("memfd_create");
	if (ftruncate(fd, (off_t)(n * ps)))
		die("ftruncate");
	for (int k = 0; k < times; k++) {
		char rname[16];

		p = mmap(NULL, n * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 0);
		if (p == MAP_FAILED)
			die("mmap memfd");
		if (!k)
			memset(p, 5, n * ps);
		else
			for (size_t i = 0; i < n * ps; i += ps)
				(void)((volatile char *)p)[i];
		snprintf(rname, sizeof(rname), times > 1 ? "%s%d" : "%s",
			 name + 6, k + 1);
		region(rname, p, n * ps);
	}
	close(fd);
}

static void twice(size_t n, size_t ps)
{
	char *p = mmap(NULL, n * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!n) {
		errno = EINVAL;
		die("twice: N");
	}
	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 6, n * ps);
	region("anon", p, n * ps);
	memfd_mapped("kinds-twice", n, ps, 2);
	memfd_mapped("kinds-once", n, ps, 1);
}

/* kinds mosaic (see above): mappings a page or twenty apart, read
 * together where near (source_pagemap.c's read_group) */
static void mosaic(size_t ps)
{
	char *p = mmap(NULL, 64 * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = memfd_create("kinds-mosaic", 0);

	if (p == MAP_FAILED)
		die("mmap");
	if (fd < 0 || ftruncate(fd, (off_t)(4 * ps)))
		die("memfd");
	if (mmap(p + 12 * ps, 4 * ps, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
		die("mmap memfd");
	close(fd);
	for (size_t i = 0; i < 64; i++)
		if (i < 20 || i >= 24)
			p[i * ps] = 7;
	if (munmap(p + 10 * ps, ps) || munmap(p + 30 * ps, 20 * ps))
		die("munmap");
	if (mprotect(p + 4 * ps, 4 * ps, PROT_READ))
		die("mprotect");
	region("mosaic", p, 64 * ps);
}

int main(int argc, char **argv)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	struct sigaction sa = { .sa_handler = on_term };
	pid_t child = 0;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (argc == 4 &&
	    (!strcmp(argv[1], "sparse") || !strcmp(argv[1], "zsparse"))) {
		sparse(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0),
		       ps, !strcmp(argv[1], "sparse"));
	} else if (argc == 4 && !strcmp(argv[1], "runs")) {
		runs(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0),
		     ps);
	} else if (argc == 4 && !strcmp(argv[1], "zero")) {
		zero(strtoull(argv[2], NULL, 0), !strcmp(argv[3], "thp"));
	} else if (argc == 4 && !strcmp(argv[1], "huge")) {
		child = huge(strtoull(argv[2], NULL, 0), 2 << 20, argv[3]);
	} else if (argc == 4 && !strcmp(argv[1], "hugecow")) {
		child = hugecow(strtoull(argv[2], NULL, 0), 2 << 20, argv[3]);
	} else if (argc == 3 && !strcmp(argv[1], "gig")) {
		child = gig(atoi(argv[2]) != 0);
	} else if (argc == 3 && !strcmp(argv[1], "twice")) {
		twice(strtoull(argv[2], NULL, 0), ps);
	} else if (argc == 2 && !strcmp(argv[1], "mosaic")) {
		mosaic(ps);
	} else {
		fprintf(stderr,
			"usage: kinds sparse|zsparse SIZE N | runs SIZE "
			"N | zero SIZE thp|nothp | huge N DIR | hugecow N DIR | gig "
			"NPRIV | twice N | mosaic\n");
		return 2;
	}
	/* the page of stop read now, not after "ready" (a read of a page
	 * never written maps the zero page) */
	if (stop)
		return 1;
	if (child)
		printf("pids %d %d\n", (int)getpid(), (int)child);
	else
		printf("pids %d\n", (int)getpid());
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	if (child) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	if (hfile[0])
		unlink(hfile);
	return 0;
}
