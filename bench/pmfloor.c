/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmfloor - the least that pagemap's read mode must read on a kernel
 * without PAGEMAP_SCAN (bench/kmod.sh, tests/kmod/guest-bench.sh): a
 * minimal reader doing only the reads, with no accounting and no output.
 *
 * Read mode locates the pages of a fork family's big reservations from one
 * member's pagemap read whole, and takes its counts from every process's
 * smaps. So this reads every /proc/PID/smaps whole and, with a PID, that
 * process's largest mapping's pagemap words (8 bytes a virtual page, 1 MiB
 * a read), and prints what it read (on stdout).
 *
 * With "every" (bench/snapshot.sh -F) it reads instead the pagemap words of
 * every mapping of every process, and nothing else: what any tool that
 * knows which frames each process maps pays at the least on a workload
 * whose mappings are full (resident: GiBs shared by fork), where no
 * question to PAGEMAP_SCAN can skip a page.
 *
 * Usage: pmfloor smaps | pagemap PID | both PID | every
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t buf[1 << 17]; /* 1 MiB */

/* Every process's smaps, whole: the bytes read. */
static long long read_smaps(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	long long total = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[300];
		ssize_t n;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/smaps", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			total += n;
		close(fd);
	}
	closedir(d);
	return total;
}

/* The words of [lo, hi) from pagemap fd: pages read, *present added. */
static long long read_words(int fd, unsigned long lo, unsigned long hi,
			    long long *present)
{
	long long pages = 0;

	for (unsigned long v = lo; v < hi;) {
		size_t want = (hi - v) / 4096 * sizeof(*buf);
		ssize_t n;

		if (want > sizeof(buf))
			want = sizeof(buf);
		n = pread(fd, buf, want, (off_t)(v / 4096 * sizeof(*buf)));
		if (n <= 0)
			break;
		for (size_t i = 0; i < (size_t)n / sizeof(*buf); i++)
			*present += buf[i] >> 63;
		pages += n / (ssize_t)sizeof(*buf);
		v += (unsigned long)n / sizeof(*buf) * 4096;
	}
	return pages;
}

/* The pagemap words of pid's largest mapping, read whole: 0 or -1. */
static int read_pagemap(const char *pid)
{
	unsigned long a, b, lo = 0, hi = 0;
	long long pages = 0, present = 0;
	char path[64], line[512];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &a, &b) == 2 && b - a > hi - lo) {
			lo = a;
			hi = b;
		}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%s/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	pages = read_words(fd, lo, hi, &present);
	close(fd);
	printf("pagemap of %s: %lld pages read, %lld present\n", pid, pages,
	       present);
	return 0;
}

/* Every process's every mapping's pagemap words (below the vsyscall
 * page): 0 or -1. */
static int read_every(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	long long pages = 0, present = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[300], line[512];
		unsigned long a, b;
		FILE *f;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/maps", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/pagemap", de->d_name);
		fd = open(path, O_RDONLY);
		while (fd >= 0 && fgets(line, sizeof(line), f))
			if (sscanf(line, "%lx-%lx", &a, &b) == 2 &&
			    b <= 0x7ffffffff000UL)
				pages += read_words(fd, a, b, &present);
		if (fd >= 0)
			close(fd);
		fclose(f);
	}
	closedir(d);
	printf("every pagemap: %lld pages read, %lld present\n", pages,
	       present);
	return 0;
}

int main(int argc, char **argv)
{
	bool smaps, pagemap;

	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "every"))
		return read_every() ? 1 : 0;
	smaps = !strcmp(argv[1], "smaps") || !strcmp(argv[1], "both");
	pagemap = !strcmp(argv[1], "pagemap") || !strcmp(argv[1], "both");
	if (!smaps && !pagemap)
		goto usage;
	if (pagemap && argc < 3)
		goto usage;
	if (smaps)
		printf("smaps: %lld bytes read\n", read_smaps());
	if (pagemap && read_pagemap(argv[2])) {
		perror("pmfloor");
		return 1;
	}
	return 0;
usage:
	fprintf(stderr,
		"usage: pmfloor smaps | pagemap PID | both PID | every\n");
	return 2;
}
