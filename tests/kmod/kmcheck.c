// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmcheck - the guest side of the kernel module test (tests/kmod/run).
 *
 *   kmcheck compare SHARER_OUT
 *       For every process (but kernel threads and itself): the pages the
 *       module reports equal what /proc/PID/pagemap says, page by page
 *       (present and PFN, exclusive and file bits; swap entries), retried a
 *       few times for a process that changed between the two readings.
 *       For the sharer's processes (tests/live/sharer.c output in
 *       SHARER_OUT) the writable pages of each region are exactly those
 *       its design writes after fork. What the module says each present
 *       page is (the zero page, KSM, hugetlb) is what /proc/kpageflags
 *       says of its frame. The zero pages the module counts without a
 *       walk (ABI 6), before and after it, are the walk's. A caller of
 *       an ABI too old is refused (EINVAL).
 *   kmcheck kinds
 *       Start processes holding every kind of page the module tells apart
 *       (the zero page, the huge zero page, hugetlb, KSM: cmd_kinds), print
 *       where, then "ready", and wait; they die with it.
 *   kmcheck kcheck KINDS_OUT SHARER_OUT
 *       What the module says of them against the kernel's own figures
 *       (smaps_rollup, smaps, ksm_merging_pages, ksmd's counts), and each
 *       process's figures and writable bytes for the host (cmd_kcheck).
 *   kmcheck task
 *       For every process (but kernel threads): who the module says it is
 *       (name, parent, start, effective uid) equals /proc/PID/stat and the
 *       owner of /proc/PID. Among them a child with a name of spaces and
 *       parentheses that changed its effective uid and is not dumpable
 *       (its /proc/PID files then belong to root; the directory does not).
 *   kmcheck maps
 *       For every process: the mappings the module reports equal
 *       /proc/PID/maps line by line (addresses, permissions, offset,
 *       device, inode, name as maps prints it), with maps' [vsyscall]
 *       line exactly when the module says so and the kernel has one;
 *       processes without mm (kernel threads) have an empty maps. Among
 *       them a child with awkward mappings: a path with a newline and a
 *       space, a deleted file, memfd, shared anonymous and SysV memory,
 *       named anonymous memory, PROT_NONE, a file mapped from an offset.
 *   kmcheck unpriv
 *       Open /dev/exmap as an unprivileged user: refused with EACCES at
 *       mode 0600, and with EPERM by the module when the mode would allow.
 *   kmcheck scan SECONDS
 *       Scan every process through the module in a loop; only vanishing
 *       processes may fail.
 *   kmcheck churn SECONDS
 *       Processes that map, touch, protect, unmap, fork and exit in a loop.
 *   kmcheck time NAME CMD [ARG...]
 *       Run CMD (output to /dev/null) and print "time NAME WALL USER SYS"
 *       in seconds (the benchmark, tests/kmod/guest-bench.sh).
 *   kmcheck calls NRECS
 *       Scan every process through the module, NRECS records per call as
 *       exmtop does, 6 times, and print "calls NRECS PROCS CALLS RECS PAGES
 *       MAXCALLS WALL USER SYS" for one pass (the mean of the last 5): what
 *       the module's interface costs alone.
 *   kmcheck nowalk MODE
 *       The same for the call a live refresh makes of every process to
 *       find whether it changed (EXMAP_SCAN_WATCH | EXMAP_SCAN_NOWALK, no
 *       mappings asked): MODE plain as ABI 5 makes it, zeros as ABI 6 (the
 *       zero pages counted), sums with EXMAP_SCAN_SUMS too (the kernel's
 *       figures added up): "nowalk MODE PROCS ZEROS WALL USER SYS".
 *   kmcheck smaps
 *       The same for reading every /proc/PID/smaps whole (what smemstat
 *       reads): "smaps PROCS BYTES WALL USER SYS". Both skip kernel
 *       threads and list the processes before they start the clock.
 *   kmcheck pty NAME WARMUP SECS CMD [ARG...]
 *       Run CMD on a 200x50 pseudo-terminal (its screen read and thrown
 *       away), and print "live NAME CPU SECS": the user + system seconds
 *       of all its threads (/proc/PID/stat) over SECS seconds after
 *       WARMUP seconds; then it gets 'q' and SIGTERM.
 *
 * One line per finding on stdout: "ok ..." or "FAIL ..."; the exit status
 * is 1 if anything failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernel/exmap_abi.h"

#define PM_PRESENT (1ull << 63)
#define PM_SWAP (1ull << 62)
#define PM_FILE (1ull << 61)
#define PM_EXCL (1ull << 56)
#define PM_FRAME ((1ull << 55) - 1)
/* what the core keeps of a word (see core/pagemap.h) */
#define PM_KEEP (PM_PRESENT | PM_SWAP | PM_FILE | PM_EXCL | PM_FRAME)

static long ps;
static int failed;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("FAIL ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
	failed = 1;
}

struct page {
	uint64_t va, word;
	uint32_t flags, mapcount;
};

struct pages {
	struct page *p;
	size_t n, cap;
};

static void push(struct pages *s, uint64_t va, uint64_t word, uint32_t flags,
		 uint32_t mapcount)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4096;
		s->p = realloc(s->p, s->cap * sizeof(*s->p));
		if (!s->p) {
			perror("realloc");
			exit(2);
		}
	}
	s->p[s->n++] = (struct page){ va, word, flags, mapcount };
}

/* Room for the mappings a scan call returns (ABI 3). */
struct vmabuf {
	struct exmap_vma *v;
	char *names;
	uint32_t cap, names_cap;
};

/*
 * One scan call for pid from start, into recs (room for nrecs) and, if vb
 * is not NULL, its mappings into vb: the one place that builds the call's
 * arguments. The answer in *a; 0 or -errno. A process without mm (a kernel
 * thread, an exiting process) succeeds with EXMAP_INFO_NOMM and nothing
 * but its identity.
 */
static int scan_once(int fd, pid_t pid, uint64_t start, struct exmap_rec *recs,
		     uint32_t nrecs, const struct vmabuf *vb,
		     struct exmap_scan *a)
{
	*a = (struct exmap_scan){ .size = sizeof(*a),
				  .abi = EXMAP_ABI_VERSION,
				  .pid = pid,
				  .start = start,
				  .recs = (uintptr_t)recs,
				  .nrecs = nrecs,
				  .rec_size = sizeof(*recs) };
	if (vb) {
		a->vmas = (uintptr_t)vb->v;
		a->nvmas = vb->cap;
		a->vma_size = sizeof(*vb->v);
		a->names = (uintptr_t)vb->names;
		a->names_len = vb->names_cap;
	}
	return ioctl(fd, EXMAP_IOC_SCAN, a) < 0 ? -errno : 0;
}

/* All pages of pid through the module, as pagemap words, asking for
 * nrecs records per call (at most 1000). 0; 1 if the process has no mm
 * (a kernel thread, or exiting: no pages); or -errno (-EPROTO: no mm but
 * records or a resume address). */
static int module_pages(int fd, pid_t pid, struct pages *out, uint32_t nrecs)
{
	static struct exmap_rec recs[1000];
	struct exmap_scan a;
	uint64_t next = 0;
	int ret;

	out->n = 0;
	do {
		ret = scan_once(fd, pid, next, recs, nrecs, NULL, &a);
		if (ret)
			return ret;
		if (a.info & EXMAP_INFO_NOMM)
			return a.nrecs || a.next ? -EPROTO : 1;
		for (uint32_t i = 0; i < a.nrecs; i++) {
			const struct exmap_rec *r = &recs[i];
			uint64_t w, step = 1;

			if (r->flags & EXMAP_F_PRESENT) {
				w = PM_PRESENT | r->frame;
			} else {
				w = PM_SWAP | r->frame;
				step = 32;
			}
			if (r->flags & EXMAP_F_FILE)
				w |= PM_FILE;
			if (r->flags & EXMAP_F_EXCL)
				w |= PM_EXCL;
			for (uint32_t k = 0; k < r->npages; k++)
				push(out, r->start + (uint64_t)k * ps,
				     w + k * step, r->flags, r->mapcount);
		}
		next = a.next;
	} while (next);
	return 0;
}

/* All used pages of pid through maps + pagemap. 0 or -errno. */
static int pagemap_pages(pid_t pid, struct pages *out)
{
	char path[64], line[4608];
	static uint64_t buf[4096];
	FILE *f;
	int fd;

	out->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f) {
		close(fd);
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (sscanf(line, "%lx-%lx", &s, &e) != 2 ||
		    strstr(line, "[vsyscall]"))
			continue;
		for (uint64_t v = s; v < e;) {
			size_t n = (e - v) / ps > 4096 ? 4096 : (e - v) / ps;
			ssize_t r = pread(fd, buf, n * 8, (off_t)(v / ps * 8));

			if (r <= 0)
				break;
			for (ssize_t k = 0; k < r / 8; k++)
				if (buf[k] & (PM_PRESENT | PM_SWAP))
					push(out, v + (uint64_t)k * ps,
					     buf[k] & PM_KEEP, 0, 0);
			v += (uint64_t)(r / 8) * ps;
		}
	}
	fclose(f);
	close(fd);
	return 0;
}

/* First difference of two page lists, or NULL when equal. */
static const char *diff(const struct pages *a, const struct pages *b, char *msg,
			size_t len)
{
	size_t i;

	for (i = 0; i < a->n && i < b->n; i++)
		if (a->p[i].va != b->p[i].va || a->p[i].word != b->p[i].word)
			break;
	if (i == a->n && i == b->n)
		return NULL;
	snprintf(msg, len,
		 "page %zu: module %#llx=%#llx, pagemap %#llx=%#llx (%zu vs %zu pages)",
		 i, i < a->n ? (unsigned long long)a->p[i].va : 0ull,
		 i < a->n ? (unsigned long long)a->p[i].word : 0ull,
		 i < b->n ? (unsigned long long)b->p[i].va : 0ull,
		 i < b->n ? (unsigned long long)b->p[i].word : 0ull, a->n,
		 b->n);
	return msg;
}

static int is_kthread(pid_t pid)
{
	char path[64], buf[16];
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	n = (int)read(fd, buf, sizeof(buf));
	close(fd);
	return n <= 0;
}

struct region {
	char name[32];
	uint64_t start, end;
};

/* Writable pages of each sharer region, as its design makes them. */
static int want_writable(const char *name, int idx, size_t k)
{
	if (!strcmp(name, "private"))
		return 1;
	if (!strcmp(name, "cow"))
		return idx == 1 && k == 0;
	if (!strcmp(name, "file"))
		return k < 4;
	if (!strcmp(name, "thp"))
		return idx == 2 && k == 5;
	if (!strcmp(name, "ro") || !strcmp(name, "swcow") ||
	    !strcmp(name, "swsole"))
		return 0;
	return -1; /* shared mappings: the kernel's choice */
}

static void check_writable(int idx, pid_t pid, const struct pages *m,
			   const struct region *rg, int nrg)
{
	int checked = 0;

	for (int r = 0; r < nrg; r++) {
		size_t npages = (rg[r].end - rg[r].start) / ps, nw = 0;

		if (want_writable(rg[r].name, idx, 0) < 0)
			continue;
		for (size_t k = 0; k < npages; k++) {
			uint64_t va = rg[r].start + k * ps;
			int want = want_writable(rg[r].name, idx, k), got = 0;

			for (size_t i = 0; i < m->n; i++)
				if (m->p[i].va == va)
					got = (m->p[i].flags & EXMAP_F_WRITE) !=
					      0;
			nw += got;
			if (got != want)
				fail("writable: process %d (pid %d) region %s page %zu: %d, want %d",
				     idx, (int)pid, rg[r].name, k, got, want);
		}
		checked++;
		printf("info writable %d %s %zu\n", idx, rg[r].name, nw);
	}
	if (!checked)
		fail("writable: no region of process %d checked", idx);
}

/*
 * A process with what the sharer lacks: zero pages (read, never written)
 * and an 8 GiB reservation with a page written every 128 MiB. It waits
 * for SIGKILL.
 */
static pid_t start_sparse(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		size_t big = (size_t)8 << 30, zero = 64 * (size_t)ps;
		volatile char *z = mmap(NULL, zero, PROT_READ,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *r = mmap(NULL, big, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			       0);
		unsigned long sum = 0;

		if (z == MAP_FAILED || r == MAP_FAILED)
			_exit(1);
		madvise((void *)z, zero, MADV_NOHUGEPAGE);
		madvise(r, big, MADV_NOHUGEPAGE);
		for (size_t o = 0; o < zero; o += (size_t)ps)
			sum += z[o];
		for (size_t o = 0; o < big; o += (size_t)128 << 20)
			r[o + (o >> 20)] = 1;
		if (write(p[1], "r", 1) != 1 || sum)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	return pid;
}

/* /proc/kpageflags bits (Documentation/admin-guide/mm/pagemap.rst) */
#define KPF_HUGE 17
#define KPF_KSM 21
#define KPF_ZERO_PAGE 24

/* The kernel's flags of frame pfn (read 512 frames at a time); 0 if none. */
static uint64_t kpageflags(int fd, uint64_t pfn)
{
	static uint64_t buf[512], first = UINT64_MAX;
	static ssize_t got;

	if (pfn < first || pfn >= first + 512) {
		first = pfn & ~511ull;
		got = pread(fd, buf, sizeof(buf), (off_t)(first * 8));
	}
	return got > (ssize_t)((pfn - first) * 8) ? buf[pfn - first] : 0;
}

static long long file_num(const char *path);

/*
 * What the module says each present page is (zero page, KSM, hugetlb)
 * against the kernel's own word on the frame (kpageflags) and, for KSM,
 * on the process (ksm_merging_pages: its pages merged): the number of
 * pages that differ (or 1 for the count), the first one in msg. A KSM page
 * must be KPF_KSM, but not the other way round: 6.12's kpageflags says
 * KPF_KSM of every anonymous page (it tests the mapping's KSM bits with
 * "&", and the anonymous bit is one of them).
 */
static size_t check_kinds_flags(int kfd, pid_t pid, const struct pages *m,
				size_t counts[3], char *msg, size_t len)
{
	static const struct {
		uint32_t f;
		int kpf;
	} kinds[3] = { { EXMAP_F_ZERO, KPF_ZERO_PAGE },
		       { EXMAP_F_KSM, KPF_KSM },
		       { EXMAP_F_HUGETLB, KPF_HUGE } };
	size_t bad = 0, ksm = 0;
	long long merging;
	char path[64];

	for (size_t i = 0; i < m->n; i++) {
		const struct page *pg = &m->p[i];
		uint64_t kf;

		/* present with a page (the zero page has one) */
		if (!(pg->flags & EXMAP_F_PRESENT) ||
		    (pg->flags & (EXMAP_F_NOPAGE | EXMAP_F_ZERO)) ==
			    EXMAP_F_NOPAGE)
			continue;
		kf = kpageflags(kfd, pg->word & PM_FRAME);
		for (int k = 0; k < 3; k++) {
			int mod = (pg->flags & kinds[k].f) != 0;

			counts[k] += mod;
			if (mod == (int)((kf >> kinds[k].kpf) & 1) ||
			    (kinds[k].f == EXMAP_F_KSM && !mod))
				continue;
			if (!bad++)
				snprintf(msg, len,
					 "pid %d page %#llx frame %#llx: module flags %#x, kpageflags %#llx",
					 (int)pid, (unsigned long long)pg->va,
					 (unsigned long long)(pg->word &
							      PM_FRAME),
					 pg->flags, (unsigned long long)kf);
		}
		ksm += (pg->flags & EXMAP_F_KSM) != 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/ksm_merging_pages", (int)pid);
	merging = file_num(path);
	if (merging != (long long)ksm && !bad++)
		snprintf(msg, len,
			 "pid %d: %zu KSM pages, ksm_merging_pages %lld",
			 (int)pid, ksm, merging);
	return bad;
}

/*
 * A caller of ABI 3 is refused: with its version, or its smaller vma. A
 * caller of ABI 4 (the oldest still answered) is answered with ABI 4's
 * struct, and refused when it gives ABI 5's flags. A caller of ABI 5 is
 * answered with ABI 5's struct: its counters, no zero-page count; and
 * refused when it asks for ABI 6's sums.
 */
static void check_old_abi(int fd)
{
	struct exmap_rec rec[1];
	struct exmap_vma v[64];
	char names[4096];
	struct vmabuf vb = { v, names, 64, sizeof(names) };
	struct exmap_scan a;
	int r1, r2, r3, r4;

	scan_once(fd, getpid(), 0, rec, 1, NULL, &a);
	a.abi = EXMAP_ABI_MIN - 1;
	r1 = ioctl(fd, EXMAP_IOC_SCAN, &a) < 0 ? errno : 0;
	scan_once(fd, getpid(), 0, rec, 1, &vb, &a);
	a.vma_size = offsetof(struct exmap_vma, page_size);
	r2 = ioctl(fd, EXMAP_IOC_SCAN, &a) < 0 ? errno : 0;
	if (r1 != EINVAL || r2 != EINVAL)
		fail("ABI %d call: %s; ABI 3 mapping size: %s; want EINVAL",
		     EXMAP_ABI_MIN - 1, strerror(r1), strerror(r2));
	scan_once(fd, getpid(), 0, rec, 1, NULL, &a);
	a.abi = EXMAP_ABI_MIN;
	a.size = offsetof(struct exmap_scan, changes);
	a.nrecs = 1;
	a.changes = ~0ull; /* past ABI 4's struct: left alone */
	r3 = ioctl(fd, EXMAP_IOC_SCAN, &a) < 0 ? errno : 0;
	if (r3 || a.nrecs != 1 || a.changes != ~0ull)
		fail("ABI %d call: %s, %u records, changes %llx; want 1, "
		     "untouched",
		     EXMAP_ABI_MIN, strerror(r3), a.nrecs,
		     (unsigned long long)a.changes);
	a.flags = EXMAP_SCAN_WATCH;
	a.nrecs = 1;
	r4 = ioctl(fd, EXMAP_IOC_SCAN, &a) < 0 ? errno : 0;
	if (r4 != EINVAL)
		fail("ABI %d call with flags: %s; want EINVAL", EXMAP_ABI_MIN,
		     strerror(r4));
	scan_once(fd, getpid(), 0, rec, 1, NULL, &a);
	a.abi = 5;
	a.size = EXMAP_SCAN_SIZE_5;
	a.flags = EXMAP_SCAN_WATCH | EXMAP_SCAN_NOWALK;
	a.nrecs = 1;
	a.zeros = ~0ull; /* past ABI 5's struct: left alone */
	r3 = ioctl(fd, EXMAP_IOC_SCAN, &a) < 0 ? errno : 0;
	if (r3 || !(a.info & EXMAP_INFO_WATCHED) || a.zeros != ~0ull)
		fail("ABI 5 call: %s, info %x, zeros %llx; want watched, "
		     "untouched",
		     strerror(r3), a.info, (unsigned long long)a.zeros);
	a.flags |= EXMAP_SCAN_SUMS;
	a.nrecs = 1;
	r4 = ioctl(fd, EXMAP_IOC_SCAN, &a) < 0 ? errno : 0;
	if (r4 != EINVAL)
		fail("ABI 5 call with ABI 6's sums: %s; want EINVAL",
		     strerror(r4));
}

/*
 * The zero pages the module counts without a walk (ABI 6: WATCH and
 * NOWALK, and flags), or -errno; the call's answer in *a.
 */
static long long module_zeros(int fd, pid_t pid, uint32_t flags,
			      struct exmap_scan *out)
{
	struct exmap_rec rec[1];
	struct exmap_scan tmp, *a = out ? out : &tmp;
	int ret = scan_once(fd, pid, 0, rec, 1, NULL, a);

	if (ret)
		return ret;
	a->flags = EXMAP_SCAN_WATCH | EXMAP_SCAN_NOWALK | flags;
	a->nrecs = 1;
	a->zeros = ~0ull;
	if (ioctl(fd, EXMAP_IOC_SCAN, a) < 0)
		return -errno;
	return a->nrecs || a->next ? -EPROTO : (long long)a->zeros;
}

/*
 * Whether the sums of a (EXMAP_SCAN_SUMS) are what the walk's pages m add
 * up to the way smaps_rollup counts (and exmtop from the records): NULL,
 * or what differs in msg.
 */
static const char *sums_diff(const struct exmap_scan *a, const struct pages *m,
			     char *msg, size_t len)
{
	uint64_t v[6] = { 0 }; /* rss, pss, anon, file, shmem, dirty */
	const uint64_t got[6] = { a->sum_rss,  a->sum_pss,   a->sum_anon,
				  a->sum_file, a->sum_shmem, a->sum_dirty };
	int swapped = 0;

	for (size_t i = 0; i < m->n; i++) {
		uint32_t f = m->p[i].flags, mc = m->p[i].mapcount;
		uint64_t share = ((uint64_t)ps << 12) / (mc >= 2 ? mc : 1);

		if ((f & EXMAP_F_SWAP) && !(f & EXMAP_F_MIGRATION)) {
			swapped = 1;
			continue;
		}
		if (f & (EXMAP_F_NOPAGE | EXMAP_F_ZERO | EXMAP_F_HUGETLB) ||
		    !(f & (EXMAP_F_ANON | EXMAP_F_FILE)))
			continue;
		v[0] += (uint64_t)ps;
		v[1] += share;
		v[f & EXMAP_F_ANON ? 2 : f & EXMAP_F_SHMEM ? 4 : 3] += share;
		if (f & EXMAP_F_DIRTY)
			v[5] += share;
	}
	if (swapped != !!(a->info & EXMAP_INFO_SWAPPED)) {
		snprintf(msg, len, "sums: swapped %d, the walk's %d",
			 !!(a->info & EXMAP_INFO_SWAPPED), swapped);
		return msg;
	}
	for (int k = 0; k < 6; k++)
		if (got[k] != v[k]) {
			snprintf(msg, len, "sum %d: %llu, the walk's %llu", k,
				 (unsigned long long)got[k],
				 (unsigned long long)v[k]);
			return msg;
		}
	return NULL;
}

/* The present zero pages (small and huge) of a walk's pages. */
static long long walk_zeros(const struct pages *m)
{
	long long n = 0;

	for (size_t i = 0; i < m->n; i++)
		n += (m->p[i].flags & (EXMAP_F_PRESENT | EXMAP_F_ZERO)) ==
		     (EXMAP_F_PRESENT | EXMAP_F_ZERO);
	return n;
}

static int cmd_compare(const char *sharer_out)
{
	pid_t sparse = start_sparse();
	int zero = 0, kfd = open("/proc/kpageflags", O_RDONLY);
	long long zcounted = 0;
	size_t kinds[3] = { 0 }, kbad = 0;
	struct pages m = { 0 }, p = { 0 };
	struct region rg[32];
	pid_t spids[8];
	int nrg = 0, nsp = 0, fd, nproc = 0, huge = 0, swapped = 0;
	char line[256], msg[256];
	FILE *f = fopen(sharer_out, "r");
	DIR *d;
	struct dirent *de;

	if (!f) {
		perror(sharer_out);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		if (nrg < 32 &&
		    sscanf(line, "region %31s %lx %lx", rg[nrg].name,
			   (unsigned long *)&rg[nrg].start,
			   (unsigned long *)&rg[nrg].end) == 3)
			nrg++;
		if (!strncmp(line, "pids ", 5))
			nsp = sscanf(line + 5, "%d %d %d %d", &spids[0],
				     &spids[1], &spids[2], &spids[3]);
	}
	fclose(f);
	if (nsp != 4 || nrg < 8) {
		fail("sharer output: %d pids, %d regions", nsp, nrg);
		return 1;
	}
	fd = open(EXMAP_DEVICE, O_RDONLY);
	if (fd < 0) {
		fail("open %s: %s", EXMAP_DEVICE, strerror(errno));
		return 1;
	}
	check_old_abi(fd);
	d = opendir("/proc");
	while ((de = readdir(d))) {
		pid_t pid = atoi(de->d_name);
		const char *why = "";
		int tries, r1 = 0, r2 = 0;
		long long z1 = 0, z2 = 0, z3 = 0;
		struct exmap_scan sa;

		if (pid <= 0 || pid == getpid() || is_kthread(pid))
			continue;
		for (tries = 0; tries < 5; tries++) {
			/* small buffers: every walk resumes many times */
			z1 = module_zeros(fd, pid, 0, NULL);
			r1 = module_pages(fd, pid, &m, 3 + (uint32_t)tries);
			z3 = module_zeros(fd, pid, EXMAP_SCAN_SUMS, &sa);
			r2 = pagemap_pages(pid, &p);
			z2 = module_zeros(fd, pid, 0, NULL);
			if (r1 || r2)
				break;
			why = diff(&m, &p, msg, sizeof(msg));
			/* the count, before and after, is the walk's, and so
			 * is a walk's that records nothing, and its sums */
			if (!why &&
			    (z1 != walk_zeros(&m) || z2 != z1 || z3 != z1)) {
				snprintf(msg, sizeof(msg),
					 "zero pages counted %lld, %lld with "
					 "sums, then %lld; walked %lld",
					 z1, z3, z2, walk_zeros(&m));
				why = msg;
			}
			if (!why)
				why = sums_diff(&sa, &m, msg, sizeof(msg));
			if (!why)
				break;
			usleep(100000);
		}
		if (r1 == -ESRCH || r1 == 1 || r2 == -ENOENT || r2 == -ESRCH)
			continue; /* gone, or exiting (no mm) */
		if (r1 || r2) {
			fail("pid %d: module %s, pagemap %s", (int)pid,
			     strerror(-r1), strerror(-r2));
			continue;
		}
		if (why) {
			fail("pid %d: %s", (int)pid, why);
			continue;
		}
		nproc++;
		if (kfd >= 0 &&
		    check_kinds_flags(kfd, pid, &m, kinds, msg, sizeof(msg)) &&
		    !kbad++)
			fail("kinds of page: %s", msg);
		for (size_t i = 0; i < m.n; i++) {
			huge += (m.p[i].flags & EXMAP_F_HUGE) != 0;
			zero += (m.p[i].flags & EXMAP_F_ZERO) != 0;
			swapped += (m.p[i].flags & EXMAP_F_SWAP) != 0;
		}
		zcounted += z1;
		for (int k = 0; k < 4; k++)
			if (spids[k] == pid)
				check_writable(k, pid, &m, rg, nrg);
	}
	closedir(d);
	close(fd);
	if (sparse > 0) {
		kill(sparse, SIGKILL);
		waitpid(sparse, NULL, 0);
	} else {
		fail("could not start the sparse process");
	}
	printf("info compared %d processes, %d huge pages, %d swapped pages, %d zero pages (%lld counted without a walk)\n",
	       nproc, huge, swapped, zero, zcounted);
	printf("info kinds of page as kpageflags says: %zu zero, %zu KSM, %zu hugetlb; %zu processes differ\n",
	       kinds[0], kinds[1], kinds[2], kbad);
	if (kfd < 0)
		fail("/proc/kpageflags unreadable");
	else
		close(kfd);
	if (!kinds[0] || !kinds[1] || !kinds[2])
		fail("kinds of page: some not seen (kmcheck kinds runs?)");
	if (zero < 64 || zcounted != zero)
		fail("%d zero pages seen, %lld counted; want at least 64, the same",
		     zero, zcounted);
	if (nproc < 5)
		fail("only %d processes compared", nproc);
	if (!swapped)
		fail("no swapped page seen: the swap case did not run");
	if (!huge)
		fail("no page mapped by a PMD seen: the THP case did not run");
	if (!failed)
		printf("ok pages identical to pagemap in %d processes\n",
		       nproc);
	free(m.p);
	free(p.p);
	return failed;
}

/* Open the device as nobody with the device at mode: refused with want? */
static void open_as_nobody(mode_t mode, int want)
{
	pid_t pid;
	int st;

	if (chmod(EXMAP_DEVICE, mode)) {
		fail("chmod: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		if (open(EXMAP_DEVICE, O_RDONLY) >= 0)
			_exit(4);
		_exit(errno == want ? 0 : 10 + (errno & 0x7f));
	}
	waitpid(pid, &st, 0);
	chmod(EXMAP_DEVICE, 0600);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail("unprivileged open at mode %o not refused with %s (status %#x: 4 opened, 10+errno)",
		     (unsigned)mode, strerror(want), st);
}

static int cmd_unpriv(void)
{
	/* the module's own check, then the device's mode */
	open_as_nobody(0666, EPERM);
	open_as_nobody(0600, EACCES);
	if (!failed)
		printf("ok unprivileged open refused\n");
	return failed;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmd_scan(double secs)
{
	struct pages m = { 0 };
	double end = now() + secs;
	long scans = 0, gone = 0, nomm = 0;
	int fd = open(EXMAP_DEVICE, O_RDONLY);

	if (fd < 0) {
		fail("open %s: %s", EXMAP_DEVICE, strerror(errno));
		return 1;
	}
	while (now() < end && !failed) {
		DIR *d = opendir("/proc");
		struct dirent *de;

		while ((de = readdir(d))) {
			pid_t pid = atoi(de->d_name);
			int r;

			if (pid <= 0)
				continue;
			r = module_pages(fd, pid, &m, 1000);
			if (r == -ESRCH)
				gone++;
			else if (r == 1)
				nomm++;
			else if (r)
				fail("scan pid %d: %s", (int)pid, strerror(-r));
			else
				scans++;
		}
		closedir(d);
	}
	close(fd);
	free(m.p);
	printf("info %ld scans, %ld without mm (kernel threads, exiting), %ld processes gone\n",
	       scans, nomm, gone);
	if (!failed)
		printf("ok scanner\n");
	return failed;
}

/* One churning process: random mappings, touched, changed, dropped. */
static void churn_child(unsigned seed, double end)
{
	void *maps[16] = { 0 };
	size_t lens[16];

	srand(seed);
	while (now() < end) {
		int i = rand() % 16;

		if (maps[i]) {
			switch (rand() % 4) {
			case 0:
				mprotect(maps[i], lens[i], PROT_READ);
				break;
			case 1:
				madvise(maps[i], lens[i], MADV_DONTNEED);
				break;
			case 2:
				madvise(maps[i], lens[i], MADV_PAGEOUT);
				break;
			default:
				break;
			}
			munmap(maps[i], lens[i]);
			maps[i] = NULL;
			continue;
		}
		lens[i] = (size_t)(1 + rand() % 1024) * (size_t)ps;
		maps[i] = mmap(NULL, lens[i], PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (maps[i] == MAP_FAILED) {
			maps[i] = NULL;
			continue;
		}
		if (rand() % 2)
			madvise(maps[i], lens[i], MADV_HUGEPAGE);
		for (size_t o = 0; o < lens[i];
		     o += (size_t)ps * (1 + rand() % 8))
			((volatile char *)maps[i])[o] = (char)o;
		if (rand() % 8 == 0) {
			pid_t c = fork();

			if (c == 0) {
				((volatile char *)maps[i])[0] = 1;
				_exit(0);
			}
			if (c > 0)
				waitpid(c, NULL, 0);
		}
	}
	_exit(0);
}

static int cmd_churn(double secs)
{
	double end = now() + secs;
	int n = 0;

	while (now() < end) {
		pid_t c = fork();

		if (c == 0)
			churn_child((unsigned)getpid(), now() + 0.5);
		if (c > 0)
			n++;
		if (n >= 4) {
			wait(NULL);
			n--;
		}
	}
	while (n-- > 0)
		wait(NULL);
	printf("ok churn\n");
	return 0;
}

static int cmd_time(const char *name, char **argv)
{
	struct rusage ru;
	double t0 = now();
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid)
		return 2;
	printf("time %s %.4f %.4f %.4f\n", name, now() - t0,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* CPU seconds of this process so far: user, system. */
static void self_cpu(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

#define PASSES 6 /* the first one warms up, the others are averaged */

/* The mean of one pass, in seconds: wall, user and system CPU time. */
struct pass_times {
	double wall, user, sys;
};

/* Run pass(arg) PASSES times: the first warms up, the others are timed
 * and averaged in *t. Each pass starts its counts afresh, so what it
 * leaves in arg is one pass's. */
static void timed_passes(void (*pass)(void *arg), void *arg,
			 struct pass_times *t)
{
	double t0, u0, s0, u1, s1;

	pass(arg);
	t0 = now();
	self_cpu(&u0, &s0);
	for (int i = 1; i < PASSES; i++)
		pass(arg);
	self_cpu(&u1, &s1);
	t->wall = (now() - t0) / (PASSES - 1);
	t->user = (u1 - u0) / (PASSES - 1);
	t->sys = (s1 - s0) / (PASSES - 1);
}

/* The pids of every user-space process but this one, in *pids. */
static size_t user_pids(pid_t **pids)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0, cap = 0;

	*pids = NULL;
	while (d && (de = readdir(d))) {
		pid_t pid = atoi(de->d_name);

		if (pid <= 0 || pid == getpid() || is_kthread(pid))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			*pids = realloc(*pids, cap * sizeof(**pids));
			if (!*pids) {
				perror("realloc");
				exit(2);
			}
		}
		(*pids)[n++] = pid;
	}
	if (d)
		closedir(d);
	return n;
}

/* /proc/PID/stat into buf, NUL-terminated. 0, or -1 if gone. */
static int read_stat(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* /proc/PID/stat's name, parent and start (clock ticks). 0 or -1. */
static int stat_ident(pid_t pid, char *comm, size_t len, long *ppid,
		      unsigned long long *start)
{
	char buf[1024], *lp, *rp;

	if (read_stat(pid, buf, sizeof(buf)))
		return -1;
	lp = strchr(buf, '(');
	rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp)
		return -1;
	snprintf(comm, len, "%.*s", (int)(rp - lp - 1), lp + 1);
	/* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime priority nice threads
	 * itrealvalue starttime */
	if (sscanf(rp + 2,
		   "%*c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u "
		   "%*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   ppid, start) != 2)
		return -1;
	return 0;
}

static int cmd_task(void)
{
	int fd = open(EXMAP_DEVICE, O_RDONLY), pfd[2], nok = 0, odd_ok = 0;
	unsigned long long tick = 1000000000ull / sysconf(_SC_CLK_TCK);
	pid_t *pids, odd;
	char c;
	size_t n;

	if (fd < 0 || pipe(pfd)) {
		fail("task: open %s: %s", EXMAP_DEVICE, strerror(errno));
		return failed;
	}
	odd = fork();
	if (odd == 0) {
		prctl(PR_SET_NAME, "a (b) c) d", 0, 0, 0);
		if (setresuid(0, 65534, 0) ||
		    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
			_exit(1);
		close(pfd[0]);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	if (odd < 0 || read(pfd[0], &c, 1) != 1) {
		fail("task: the odd child did not start");
		return failed;
	}
	n = user_pids(&pids);
	for (size_t i = 0; i < n; i++) {
		struct exmap_rec rec;
		struct exmap_scan a;
		char comm[64], mcomm[sizeof(a.comm) + 1], path[64];
		unsigned long long start;
		struct stat st;
		long ppid;

		snprintf(path, sizeof(path), "/proc/%d", (int)pids[i]);
		/* gone, or exiting: no mm (kernel threads are not listed) */
		if (scan_once(fd, pids[i], 0, &rec, 1, NULL, &a) ||
		    (a.info & EXMAP_INFO_NOMM) ||
		    stat_ident(pids[i], comm, sizeof(comm), &ppid, &start) ||
		    stat(path, &st))
			continue;
		snprintf(mcomm, sizeof(mcomm), "%.*s", (int)sizeof(a.comm),
			 a.comm);
		if (strcmp(mcomm, comm) || a.ppid != ppid ||
		    a.start_ns / tick != start || a.uid != st.st_uid) {
			fail("task: pid %d: module '%s' ppid %d start %llu uid %u; "
			     "/proc '%s' ppid %ld start %llu uid %u",
			     (int)pids[i], mcomm, (int)a.ppid,
			     (unsigned long long)(a.start_ns / tick),
			     (unsigned)a.uid, comm, ppid, start,
			     (unsigned)st.st_uid);
			continue;
		}
		nok++;
		if (pids[i] == odd && a.uid == 65534 &&
		    !strcmp(mcomm, "a (b) c) d"))
			odd_ok = 1;
	}
	free(pids);
	kill(odd, SIGKILL);
	waitpid(odd, NULL, 0);
	if (!odd_ok)
		fail("task: the undumpable child with euid 65534 was not matched");
	if (nok < 5)
		fail("task: only %d processes checked", nok);
	if (!failed)
		printf("ok task: %d processes: name, parent, start and uid as "
		       "/proc says\n",
		       nok);
	return failed;
}

/* PR_SET_VMA is Linux 5.17's; the headers may be older. */
#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

/* The maps child's files and names, as created and as maps shows them. */
#define MAPS_NL_FILE "/tmp/kmcheck map\nfile"
#define MAPS_DEL_FILE "/tmp/kmcheck-deleted"
#define MAPS_RO_FILE "/tmp/kmcheck-ro"
#define MAPS_ANON_NAME "kmcheck name"
#define MAPS_MAX_VMAS (1u << 18) /* the room we grow to on EOVERFLOW */

/* What the maps child says through its pipe once it is set up. */
struct maps_child {
	int step;	 /* 0: ready, else the step that failed... */
	int err;	 /* ... with this errno */
	int anon_named;	 /* the private anonymous mapping took one */
	int shmem_named; /* the shared anonymous mapping took a name */
	uint64_t none;	 /* an address in the PROT_NONE region */
	uint64_t ro;	 /* the read-only private file mapping */
};

/* A file of len bytes at path, mapped from off to its end; MAP_FAILED on
 * error. */
static void *map_file(const char *path, size_t len, int prot, int flags,
		      size_t off)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	void *p = MAP_FAILED;

	if (fd < 0)
		return MAP_FAILED;
	if (!ftruncate(fd, (off_t)len))
		p = mmap(NULL, len - off, prot, flags, fd, (off_t)off);
	close(fd);
	return p;
}

/* len bytes of anonymous memory (flags: MAP_SHARED or MAP_PRIVATE),
 * touched, and with named, named MAPS_ANON_NAME if the kernel lets us
 * (*named says); NULL on error. */
static char *map_named(int flags, size_t len, int *named)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p[0] = 1;
	if (named)
		*named = !prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME,
				(unsigned long)p, len,
				(unsigned long)MAPS_ANON_NAME);
	return p;
}

/* The maps child: mappings with awkward names, then it waits for SIGKILL.
 * Never returns. */
static void maps_child(int wfd)
{
	struct maps_child c = { 0 };
	size_t len = 4 * (size_t)ps;
	int rw = PROT_READ | PROT_WRITE, fd, id;
	char *p;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	/* a path with a newline and a space: maps shows "\012" */
	c.step = 1;
	p = map_file(MAPS_NL_FILE, len, rw, MAP_SHARED, 0);
	if (p == MAP_FAILED)
		goto out;
	p[0] = 1;
	/* a file mapped, then unlinked: " (deleted)" */
	c.step = 2;
	p = map_file(MAPS_DEL_FILE, len, rw, MAP_SHARED, 0);
	if (p == MAP_FAILED || unlink(MAPS_DEL_FILE))
		goto out;
	p[0] = 1;
	/* memfd: "/memfd:kmcheck (deleted)" */
	c.step = 3;
	fd = memfd_create("kmcheck", 0);
	if (fd < 0 || ftruncate(fd, (off_t)len))
		goto out;
	p = mmap(NULL, len, rw, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		goto out;
	p[0] = 1;
	/* shared anonymous: "/dev/zero (deleted)" */
	c.step = 4;
	if (!map_named(MAP_SHARED, len, NULL))
		goto out;
	/* another, named if the kernel lets us (6.2 on): [anon_shmem:NAME];
	 * 6.1 refuses with EBADF */
	c.step = 5;
	if (!map_named(MAP_SHARED, len, &c.shmem_named))
		goto out;
	/* SysV shared memory, removed once attached: "/SYSV... (deleted)" */
	c.step = 6;
	id = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600);
	if (id < 0)
		goto out;
	p = shmat(id, NULL, 0);
	if (p == (void *)-1 || shmctl(id, IPC_RMID, NULL))
		goto out;
	p[0] = 1;
	/* private anonymous, named: "[anon:NAME]", if the kernel has
	 * CONFIG_ANON_VMA_NAME (Debian's do not: EINVAL) */
	c.step = 7;
	if (!map_named(MAP_PRIVATE, len, &c.anon_named))
		goto out;
	/* no access at all: "---p" */
	c.step = 8;
	p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		goto out;
	c.none = (uintptr_t)p;
	/* a read-only private file mapping from its third page */
	c.step = 9;
	p = map_file(MAPS_RO_FILE, len, PROT_READ, MAP_PRIVATE, 2 * (size_t)ps);
	if (p == MAP_FAILED)
		goto out;
	c.ro = (uintptr_t)p;
	/* a heap of its own: [heap] */
	c.step = 10;
	p = sbrk((intptr_t)len);
	if (p == (void *)-1)
		goto out;
	p[0] = 1;
	c.step = 0;
	if (write(wfd, &c, sizeof(c)) != sizeof(c))
		_exit(1);
	for (;;)
		pause();
out:
	c.err = errno;
	if (write(wfd, &c, sizeof(c)) != sizeof(c))
		_exit(1);
	_exit(1);
}

/* Fork the maps child and wait until it is set up; its report in *c. */
static pid_t start_maps_child(struct maps_child *c)
{
	pid_t pid;
	int p[2];

	*c = (struct maps_child){ .step = -1 };
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		maps_child(p[1]);
	}
	close(p[1]);
	if (pid > 0 && read(p[0], c, sizeof(*c)) != sizeof(*c))
		*c = (struct maps_child){ .step = -1 };
	close(p[0]);
	return pid;
}

struct buf {
	char *p;
	size_t n, cap;
};

/* The whole of the file at path in b, NUL-terminated. 0 or -errno. */
static int read_all(const char *path, struct buf *b)
{
	int fd = open(path, O_RDONLY), e;
	ssize_t r;

	b->n = 0;
	if (fd < 0)
		return -errno;
	for (;;) {
		if (b->cap - b->n < 4096) {
			b->cap = b->cap ? 2 * b->cap : 65536;
			b->p = realloc(b->p, b->cap);
			if (!b->p) {
				perror("realloc");
				exit(2);
			}
		}
		r = read(fd, b->p + b->n, b->cap - b->n - 1);
		if (r <= 0)
			break;
		b->n += (size_t)r;
	}
	e = errno;
	close(fd);
	if (r < 0)
		return -e;
	b->p[b->n] = '\0';
	return 0;
}

/* One line of maps, read from the file or made from the module's. */
struct mline {
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perms[5];
	const char *name; /* len bytes, not NUL-terminated */
	size_t len;
};

struct mlines {
	struct mline *l;
	size_t n, cap;
};

static struct mline *mline_add(struct mlines *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->l = realloc(s->l, s->cap * sizeof(*s->l));
		if (!s->l) {
			perror("realloc");
			exit(2);
		}
	}
	memset(&s->l[s->n], 0, sizeof(s->l[0]));
	return &s->l[s->n++];
}

static int name_is(const struct mline *l, const char *name)
{
	return l->len == strlen(name) && !memcmp(l->name, name, l->len);
}

/* s's len bytes into out, what is not printable ASCII as \xNN. */
static void escape(char *out, size_t size, const char *s, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 5 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c > 0x7e)
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

/* l as maps prints it (one space before the name), escaped; or "(none)". */
static const char *render(char *out, size_t size, const struct mline *l)
{
	int k;

	if (!l)
		return "(none)";
	k = snprintf(out, size, "%08llx-%08llx %s %08llx %02x:%02x %llu ",
		     l->start, l->end, l->perms, l->off, l->maj, l->min,
		     l->ino);
	if (k > 0 && (size_t)k < size)
		escape(out + k, size - (size_t)k, l->name, l->len);
	return out;
}

/* maps text s (changed in place) as lines in out. NULL, or what is
 * wrong in msg. */
static const char *parse_maps(char *s, struct mlines *out, char *msg,
			      size_t size)
{
	static char tmp[16384];

	out->n = 0;
	while (*s) {
		char *nl = strchr(s, '\n');
		struct mline *l = mline_add(out);
		int n = -1;

		if (nl)
			*nl = '\0';
		if (sscanf(s, "%llx-%llx %4c %llx %x:%x %llu %n", &l->start,
			   &l->end, l->perms, &l->off, &l->maj, &l->min,
			   &l->ino, &n) != 7 ||
		    n < 0) {
			escape(tmp, sizeof(tmp), s, strlen(s));
			snprintf(msg, size,
				 "maps line %zu not understood: '%s'", out->n,
				 tmp);
			return msg;
		}
		l->perms[4] = '\0';
		l->name = s + n;
		l->len = strlen(l->name);
		s = nl ? nl + 1 : s + strlen(s);
	}
	return NULL;
}

/* The module's mappings in vb (answer a) as maps lines in out. NULL, or
 * what is wrong in msg. */
static const char *module_lines(const struct exmap_scan *a,
				const struct vmabuf *vb, struct mlines *out,
				char *msg, size_t size)
{
	out->n = 0;
	if (a->nvmas > vb->cap || a->names_len > vb->names_cap) {
		snprintf(msg, size,
			 "the module says it wrote %u mappings and %u name bytes into room for %u and %u",
			 a->nvmas, a->names_len, vb->cap, vb->names_cap);
		return msg;
	}
	for (uint32_t i = 0; i < a->nvmas; i++) {
		const struct exmap_vma *v = &vb->v[i];
		struct mline *l = mline_add(out);

		if ((uint64_t)v->name_off + v->name_len > a->names_len ||
		    (v->flags & ~(uint32_t)(EXMAP_VMA_READ | EXMAP_VMA_WRITE |
					    EXMAP_VMA_EXEC | EXMAP_VMA_SHARED |
					    EXMAP_VMA_HUGETLB))) {
			snprintf(msg, size,
				 "mapping %u at %llx: name at %u, %u bytes, of %u; flags %#x",
				 i, (unsigned long long)v->start, v->name_off,
				 v->name_len, a->names_len, v->flags);
			return msg;
		}
		l->start = v->start;
		l->end = v->end;
		l->off = v->offset;
		l->ino = v->inode;
		l->maj = v->dev_major;
		l->min = v->dev_minor;
		l->perms[0] = v->flags & EXMAP_VMA_READ ? 'r' : '-';
		l->perms[1] = v->flags & EXMAP_VMA_WRITE ? 'w' : '-';
		l->perms[2] = v->flags & EXMAP_VMA_EXEC ? 'x' : '-';
		l->perms[3] = v->flags & EXMAP_VMA_SHARED ? 's' : 'p';
		l->perms[4] = '\0';
		l->name = vb->names + v->name_off;
		l->len = v->name_len;
	}
	return NULL;
}

static int mline_eq(const struct mline *a, const struct mline *b)
{
	return a->start == b->start && a->end == b->end && a->off == b->off &&
	       a->ino == b->ino && a->maj == b->maj && a->min == b->min &&
	       !strcmp(a->perms, b->perms) && a->len == b->len &&
	       !memcmp(a->name, b->name, a->len);
}

/*
 * The module's lines against maps', in order, field by field; maps'
 * [vsyscall] line, the last, is there exactly when gate says. NULL, or
 * the first difference in msg. *has_gate: maps had the line.
 */
static const char *maps_diff(const struct mlines *mod,
			     const struct mlines *maps, int gate, int *has_gate,
			     char *msg, size_t size)
{
	static char ra[20000], rb[20000];
	size_t n = maps->n, i;

	*has_gate = n && name_is(&maps->l[n - 1], "[vsyscall]");
	n -= (size_t)*has_gate;
	for (i = 0; i < mod->n && i < n; i++)
		if (!mline_eq(&mod->l[i], &maps->l[i]))
			break;
	if (i < mod->n || i < n) {
		snprintf(msg, size,
			 "line %zu (module %zu mappings, maps %zu lines): module '%s', maps '%s'",
			 i + 1, mod->n, n,
			 render(ra, sizeof(ra), i < mod->n ? &mod->l[i] : NULL),
			 render(rb, sizeof(rb), i < n ? &maps->l[i] : NULL));
		return msg;
	}
	if (*has_gate != gate) {
		snprintf(msg, size,
			 "maps %s [vsyscall] (want it when EXMAP_INFO_GATE and our own maps has one)",
			 *has_gate ? "lists" : "does not list");
		return msg;
	}
	return NULL;
}

/*
 * One reading of pid: the module's mappings (vb grown on EOVERFLOW) and
 * maps (mb), as lines in mod and maps. 0 and *why NULL when they agree,
 * *why the difference when not, or -errno if either read failed.
 */
static int maps_once(int fd, pid_t pid, int self_gate, struct vmabuf *vb,
		     struct buf *mb, struct exmap_scan *a, struct mlines *mod,
		     struct mlines *maps, int *has_gate, const char **why)
{
	static char msg[65536];
	struct exmap_rec rec[1];
	char path[64];
	int r;

	*why = NULL;
	while ((r = scan_once(fd, pid, 0, rec, 1, vb, a)) == -EOVERFLOW &&
	       vb->cap < MAPS_MAX_VMAS) {
		vb->cap *= 2;
		vb->names_cap *= 2;
		vb->v = realloc(vb->v, vb->cap * sizeof(*vb->v));
		vb->names = realloc(vb->names, vb->names_cap);
		if (!vb->v || !vb->names) {
			perror("realloc");
			exit(2);
		}
	}
	if (r)
		return r;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	r = read_all(path, mb);
	if (r)
		return r;
	if ((a->info & EXMAP_INFO_NOMM) &&
	    (a->nrecs || a->nvmas || a->names_len ||
	     (a->info & EXMAP_INFO_GATE) || !a->comm[0])) {
		snprintf(msg, sizeof(msg),
			 "no mm, but %u records, %u mappings, %u name bytes, info %#x, name '%.16s'",
			 a->nrecs, a->nvmas, a->names_len, a->info, a->comm);
		*why = msg;
		return 0;
	}
	*why = module_lines(a, vb, mod, msg, sizeof(msg));
	if (!*why)
		*why = parse_maps(mb->p, maps, msg, sizeof(msg));
	if (!*why)
		*why = maps_diff(mod, maps,
				 self_gate && (a->info & EXMAP_INFO_GATE),
				 has_gate, msg, sizeof(msg));
	return 0;
}

/* What the maps child must show, as the module says and maps agrees. */
enum {
	SEEN_NL,
	SEEN_DELETED,
	SEEN_MEMFD,
	SEEN_ZERO,
	SEEN_SYSV,
	SEEN_ANON,
	SEEN_SHMEM,
	SEEN_NONE,
	SEEN_RO,
	SEEN_N
};

static const char *const seen_what[SEEN_N] = {
	[SEEN_NL] = "'/tmp/kmcheck map\\012file'",
	[SEEN_DELETED] = "'" MAPS_DEL_FILE " (deleted)'",
	[SEEN_MEMFD] = "'/memfd:kmcheck (deleted)'",
	[SEEN_ZERO] = "'/dev/zero (deleted)'",
	[SEEN_SYSV] = "'/SYSV...'",
	[SEEN_ANON] = "'[anon:" MAPS_ANON_NAME "]'",
	[SEEN_SHMEM] = "'[anon_shmem:" MAPS_ANON_NAME "]'",
	[SEEN_NONE] = "PROT_NONE '---p'",
	[SEEN_RO] = "read-only 'r--p' at offset 2 pages",
};

/* Which of the child's mappings its lines show, as SEEN_* bits. */
static unsigned int child_seen(const struct mlines *mod,
			       const struct maps_child *c)
{
	unsigned int seen = 0;

	for (size_t i = 0; i < mod->n; i++) {
		const struct mline *l = &mod->l[i];

		if (name_is(l, "/tmp/kmcheck map\\012file"))
			seen |= 1u << SEEN_NL;
		if (name_is(l, MAPS_DEL_FILE " (deleted)"))
			seen |= 1u << SEEN_DELETED;
		if (name_is(l, "/memfd:kmcheck (deleted)"))
			seen |= 1u << SEEN_MEMFD;
		if (name_is(l, "/dev/zero (deleted)"))
			seen |= 1u << SEEN_ZERO;
		if (l->len > 15 && !memcmp(l->name, "/SYSV", 5) &&
		    !memcmp(l->name + l->len - 10, " (deleted)", 10))
			seen |= 1u << SEEN_SYSV;
		if (name_is(l, "[anon:" MAPS_ANON_NAME "]"))
			seen |= 1u << SEEN_ANON;
		if (name_is(l, "[anon_shmem:" MAPS_ANON_NAME "]"))
			seen |= 1u << SEEN_SHMEM;
		if (!strcmp(l->perms, "---p") && l->start <= c->none &&
		    c->none < l->end)
			seen |= 1u << SEEN_NONE;
		if (l->start == c->ro && l->end == c->ro + 2 * (uint64_t)ps &&
		    !strcmp(l->perms, "r--p") && l->off == 2 * (uint64_t)ps &&
		    name_is(l, MAPS_RO_FILE))
			seen |= 1u << SEEN_RO;
	}
	return seen;
}

/* Whether our own maps lists the vsyscall page (the kernel has one). */
static int self_has_gate(void)
{
	struct buf b = { 0 };
	struct mlines l = { 0 };
	char msg[256];
	int gate = 0;

	if (!read_all("/proc/self/maps", &b) &&
	    !parse_maps(b.p, &l, msg, sizeof(msg)))
		for (size_t i = 0; i < l.n; i++)
			gate |= name_is(&l.l[i], "[vsyscall]");
	free(b.p);
	free(l.l);
	return gate;
}

/* Room for 1 mapping, then for 1 name byte: refused with EOVERFLOW? */
static void check_overflow(int fd, pid_t pid, const struct vmabuf *vb)
{
	struct exmap_rec rec[1];
	struct exmap_scan a;
	struct vmabuf t;
	int r1, r2;

	t = *vb;
	t.cap = 1;
	r1 = scan_once(fd, pid, 0, rec, 1, &t, &a);
	t = *vb;
	t.names_cap = 1;
	r2 = scan_once(fd, pid, 0, rec, 1, &t, &a);
	if (r1 != -EOVERFLOW || r2 != -EOVERFLOW)
		fail("maps: room for 1 mapping: %s, for 1 name byte: %s; want EOVERFLOW",
		     r1 ? strerror(-r1) : "success",
		     r2 ? strerror(-r2) : "success");
}

static int cmd_maps(void)
{
	struct vmabuf vb = { 0 };
	struct buf mb = { 0 };
	struct mlines mod = { 0 }, maps = { 0 };
	struct maps_child c;
	unsigned int seen = 0, want;
	int self_gate = self_has_gate(), fd, nproc = 0, nomm = 0, gone = 0;
	int heap = 0, stack = 0, gates = 0, kthreadd = 0, overflow = 0;
	long nvma = 0;
	pid_t child = start_maps_child(&c);
	char names[1024];
	struct dirent *de;
	DIR *d;

	if (child < 0 || c.step)
		fail("maps: the child's set-up failed at step %d: %s", c.step,
		     c.step > 0 ? strerror(c.err) : "no report");
	fd = open(EXMAP_DEVICE, O_RDONLY);
	d = opendir("/proc");
	if (fd < 0 || !d) {
		fail("maps: open %s or /proc: %s", EXMAP_DEVICE,
		     strerror(errno));
		if (d)
			closedir(d);
		if (fd >= 0)
			close(fd);
		goto out;
	}
	vb.cap = 256;
	vb.names_cap = 16384;
	vb.v = malloc(vb.cap * sizeof(*vb.v));
	vb.names = malloc(vb.names_cap);
	if (!vb.v || !vb.names) {
		perror("malloc");
		exit(2);
	}
	while ((de = readdir(d))) {
		pid_t pid = atoi(de->d_name);
		const char *why = NULL;
		struct exmap_scan a;
		int r = 0, tries, has_gate = 0, has_heap = 0, has_stack = 0;

		if (pid <= 0)
			continue;
		/* a process that changed between the two reads differs:
		 * read both again, a few times */
		for (tries = 0; tries < 4; tries++) {
			if (tries)
				usleep(100000);
			r = maps_once(fd, pid, self_gate, &vb, &mb, &a, &mod,
				      &maps, &has_gate, &why);
			if (r || !why)
				break;
		}
		if (r == -ESRCH || r == -ENOENT) {
			gone++;
			continue;
		}
		if (r) {
			fail("maps: pid %d: %s", (int)pid, strerror(-r));
			continue;
		}
		if (why) {
			fail("maps: pid %d (%.16s, info %#x): %s", (int)pid,
			     a.comm, a.info, why);
			continue;
		}
		if (a.info & EXMAP_INFO_NOMM) {
			nomm++;
			if (pid == 2 &&
			    !strncmp(a.comm, "kthreadd", sizeof(a.comm)))
				kthreadd = 1;
			continue;
		}
		nproc++;
		nvma += (long)mod.n;
		gates += has_gate;
		for (size_t i = 0; i < mod.n; i++) {
			has_heap |= name_is(&mod.l[i], "[heap]");
			has_stack |= name_is(&mod.l[i], "[stack]");
		}
		heap += has_heap;
		stack += has_stack;
		if (pid == child && !c.step) {
			seen = child_seen(&mod, &c);
			check_overflow(fd, pid, &vb);
			overflow = 1;
		}
	}
	closedir(d);
	close(fd);
	want = (1u << SEEN_N) - 1;
	/* names where the kernel took them: CONFIG_ANON_VMA_NAME, and for
	 * shared memory 6.2 on */
	if (!c.anon_named)
		want &= ~(1u << SEEN_ANON);
	if (!c.shmem_named)
		want &= ~(1u << SEEN_SHMEM);
	names[0] = '\0';
	for (int k = 0; k < SEEN_N; k++) {
		size_t o = strlen(names);

		if (!c.step && (want & ~seen & (1u << k)))
			fail("maps: the child's %s mapping not seen",
			     seen_what[k]);
		else if (seen & (1u << k))
			snprintf(names + o, sizeof(names) - o, "%s%s",
				 o ? ", " : "", seen_what[k]);
	}
	if (!c.step && !overflow)
		fail("maps: the child (pid %d) was not matched", (int)child);
	if (!heap || !stack)
		fail("maps: [heap] in %d processes, [stack] in %d", heap,
		     stack);
	if (!kthreadd)
		fail("maps: kthreadd (pid 2) not seen without mm");
	if (nproc < 5)
		fail("maps: only %d processes compared", nproc);
	/* every process in the guest is 64-bit: each has the vsyscall page
	 * when the kernel has it (the test boots amd64 with vsyscall=xonly) */
	if (self_gate && gates != nproc)
		fail("maps: [vsyscall] in %d of %d processes", gates, nproc);
	printf("%s maps: %d processes, %ld mappings identical to "
	       "/proc/PID/maps; names checked: %s; [heap] in %d, [stack] in "
	       "%d, [vsyscall] in %d (%s); %d without mm, empty maps; %d "
	       "gone; EOVERFLOW on too little room%s\n",
	       failed ? "info" : "ok", nproc, nvma, names, heap, stack, gates,
	       self_gate ? "the kernel has it" : "none in the kernel", nomm,
	       gone, overflow ? "" : " not checked");
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	unlink(MAPS_NL_FILE);
	unlink(MAPS_DEL_FILE);
	unlink(MAPS_RO_FILE);
	free(vb.v);
	free(vb.names);
	free(mb.p);
	free(mod.l);
	free(maps.l);
	return failed;
}

/*
 * Every kind of page the module tells apart, each in a process of its
 * own (kmcheck kinds):
 *   zero       64 MiB of anonymous memory read and never written, in
 *              small pages (MADV_NOHUGEPAGE): the zero page 16384 times
 *   thp        64 MiB read the same way while the guest has THP "always":
 *              the huge zero page, 32 PMDs
 *   huge       a MAP_HUGETLB private mapping, an MFD_HUGETLB memfd and a
 *              file on the hugetlbfs at KINDS_HUGEFS, KINDS_HUGE huge pages
 *              each, written, then shared by fork with hugechild, which
 *              writes the private mapping's first huge page (its own copy)
 *   ksm1..3    KINDS_KSM pages each, MADV_MERGEABLE: page i has the same
 *              content in all three and differs from every other page
 * Each child dies with kmcheck (PR_SET_PDEATHSIG).
 */
#define KINDS_HUGEFS "/tmp/hugetlbfs"
#define KINDS_HUGE 4
#define KINDS_HUGE_SIZE ((size_t)2 << 20)
#define KINDS_ANON ((size_t)64 << 20)
#define KINDS_KSM 64
#define KINDS_N 7

/* What a child reports: the region its figures are about, or an error. */
struct kind {
	char name[16];
	int pid, err, step;
	uint64_t start, end;
};

static void kind_report(int wfd, const char *name, int step, void *start,
			size_t len)
{
	struct kind k = { .pid = getpid(),
			  .step = step,
			  .err = step ? errno : 0,
			  .start = (uintptr_t)start,
			  .end = (uintptr_t)start + len };

	snprintf(k.name, sizeof(k.name), "%s", name);
	if (write(wfd, &k, sizeof(k)) != (ssize_t)sizeof(k))
		_exit(1);
}

static void __attribute__((noreturn)) kind_wait(void)
{
	for (;;)
		pause();
}

/* len bytes of anonymous memory, read page by page, never written. */
static void kind_read(int wfd, const char *name, int advice)
{
	size_t len = KINDS_ANON + KINDS_HUGE_SIZE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char *a;
	unsigned long sum = 0;

	if (p == MAP_FAILED) {
		kind_report(wfd, name, 1, NULL, 0);
		kind_wait();
	}
	a = (char *)(((uintptr_t)p + KINDS_HUGE_SIZE - 1) &
		     ~(uintptr_t)(KINDS_HUGE_SIZE - 1));
	if (advice && madvise((void *)a, KINDS_ANON, advice)) {
		kind_report(wfd, name, 2, NULL, 0);
		kind_wait();
	}
	for (size_t o = 0; o < KINDS_ANON; o += (size_t)ps)
		sum += (unsigned char)a[o];
	kind_report(wfd, name, sum ? 3 : 0, (void *)a, KINDS_ANON);
	kind_wait();
}

/* KINDS_HUGE huge pages of fd (-1: private anonymous), written. */
static char *huge_map(int fd, int flags)
{
	size_t len = KINDS_HUGE * KINDS_HUGE_SIZE;
	char *p;

	if (fd >= 0 && ftruncate(fd, (off_t)len))
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	for (size_t o = 0; o < len; o += (size_t)ps)
		p[o] = (char)(1 + o / KINDS_HUGE_SIZE);
	return p;
}

static void kind_huge(int wfd)
{
	int mfd = memfd_create("kmcheck-huge", MFD_HUGETLB);
	int ffd = open(KINDS_HUGEFS "/kmcheck", O_RDWR | O_CREAT, 0600);
	char *priv = huge_map(-1, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB);
	volatile char *mem = mfd < 0 ? NULL : huge_map(mfd, MAP_SHARED);
	volatile char *file = ffd < 0 ? NULL : huge_map(ffd, MAP_SHARED);
	pid_t child;

	if (!priv || !mem || !file) {
		kind_report(wfd, "huge", 1, NULL, 0);
		kind_wait();
	}
	child = fork();
	if (child == 0) {
		/* fork copies no entry of a shared mapping: read them in */
		unsigned long sum = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (size_t o = 0; o < KINDS_HUGE * KINDS_HUGE_SIZE;
		     o += KINDS_HUGE_SIZE)
			sum += (unsigned char)mem[o] + (unsigned char)file[o];
		priv[0] = 'c';
		kind_report(wfd, "hugechild", sum ? 0 : 3, priv,
			    KINDS_HUGE * KINDS_HUGE_SIZE);
		kind_wait();
	}
	kind_report(wfd, "huge", child < 0 ? 2 : 0, priv,
		    KINDS_HUGE * KINDS_HUGE_SIZE);
	kind_wait();
}

static void kind_ksm(int wfd, const char *name)
{
	size_t len = KINDS_KSM * (size_t)ps;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || madvise(p, len, MADV_NOHUGEPAGE)) {
		kind_report(wfd, name, 1, NULL, 0);
		kind_wait();
	}
	for (size_t i = 0; i < KINDS_KSM; i++) {
		memset(p + i * (size_t)ps, (int)(i % 251) + 1, (size_t)ps);
		memcpy(p + i * (size_t)ps, &i, sizeof(i));
	}
	kind_report(wfd, name, madvise(p, len, MADV_MERGEABLE) ? 2 : 0, p, len);
	kind_wait();
}

/*
 * kmcheck kinds: start them, print "kind NAME PID START END" for each (the
 * region it is about, hex) and "ready", or "FAIL" lines, then wait.
 */
static int cmd_kinds(void)
{
	static const char *const ksm[] = { "ksm1", "ksm2", "ksm3" };
	int p[2], n = 0;
	struct kind k;

	if (pipe(p))
		return 2;
	for (int i = 0; i < 6; i++) {
		pid_t c = fork();

		if (c < 0)
			return 2;
		if (c)
			continue;
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (i == 0)
			kind_read(p[1], "zero", MADV_NOHUGEPAGE);
		if (i == 1)
			kind_read(p[1], "thp", 0);
		if (i == 2)
			kind_huge(p[1]);
		kind_ksm(p[1], ksm[i - 3]);
	}
	close(p[1]);
	for (; n < KINDS_N && read(p[0], &k, sizeof(k)) == sizeof(k); n++) {
		if (k.step)
			fail("kinds: %s failed at step %d: %s", k.name, k.step,
			     strerror(k.err));
		else
			printf("kind %s %d %llx %llx\n", k.name, k.pid,
			       (unsigned long long)k.start,
			       (unsigned long long)k.end);
	}
	if (n < KINDS_N)
		fail("kinds: %d of %d processes reported", n, KINDS_N);
	printf("ready\n");
	kind_wait();
}

/* What the module says of one process, added up as the kernel would. */
struct kfig {
	uint64_t rss, pss; /* as smaps: no zero, no hugetlb; pss << 12 */
	uint64_t huge_shared, huge_private; /* as smaps' *_Hugetlb */
	uint64_t writable; /* present, PTE writable, not hugetlb */
	/* in the region: zero pages (small, huge), ksm and hugetlb pages */
	uint64_t zero, zero_huge, ksm, hugetlb, in_region;
};

static void kfig_add(struct kfig *f, const struct page *pg,
		     const struct kind *k)
{
	uint32_t fl = pg->flags;
	int in = pg->va >= k->start && pg->va < k->end;

	if (!(fl & EXMAP_F_PRESENT))
		return;
	f->in_region += in;
	if (fl & EXMAP_F_ZERO) {
		if (in && (fl & EXMAP_F_HUGE))
			f->zero_huge++;
		else if (in)
			f->zero++;
		return;
	}
	if (fl & EXMAP_F_HUGETLB) {
		/* smaps: shared when mapped more than once */
		if (pg->mapcount >= 2)
			f->huge_shared += (uint64_t)ps;
		else
			f->huge_private += (uint64_t)ps;
		f->hugetlb += in;
		return;
	}
	if (fl & EXMAP_F_WRITE)
		f->writable += (uint64_t)ps;
	if (fl & EXMAP_F_NOPAGE)
		return;
	f->ksm += in && (fl & EXMAP_F_KSM);
	f->rss += (uint64_t)ps;
	f->pss += ((uint64_t)ps << 12) / (pg->mapcount >= 2 ? pg->mapcount : 1);
}

/* The value of "key:" in text, a kB figure in bytes; -1 if absent. */
static long long kv(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *l = text;

	while (l && *l) {
		const char *nl = strchr(l, '\n');

		if (!strncmp(l, key, len) && l[len] == ':') {
			char *e;
			long long v = strtoll(l + len + 1, &e, 10);

			return strncmp(e, " kB", 3) ? v : v * 1024;
		}
		l = nl ? nl + 1 : NULL;
	}
	return -1;
}

/* A /proc/PID file's "key:" value (see kv); -1 if unreadable. */
static long long proc_kv(pid_t pid, const char *file, const char *key)
{
	struct buf b = { 0 };
	char path[64];
	long long v = -1;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	if (!read_all(path, &b))
		v = kv(b.p, key);
	free(b.p);
	return v;
}

/* One number from a file (sysfs, or ksm_merging_pages); -1 if none. */
static long long file_num(const char *path)
{
	struct buf b = { 0 };
	long long v = -1;

	if (!read_all(path, &b) && b.n)
		v = strtoll(b.p, NULL, 10);
	free(b.p);
	return v;
}

/* One entry of smaps: where it starts, its page size, hugetlb or not. */
struct sment {
	unsigned long long start;
	long long kps;
	int ht;
};

/* The entries of smaps text s (changed: lines cut) into e, at most n. */
static size_t parse_smaps(char *s, struct sment *e, size_t n)
{
	struct sment *cur = NULL;
	size_t k = 0;
	char *l, *nl;

	for (l = s; l && *l; l = nl ? nl + 1 : NULL) {
		unsigned long long a, b;

		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (sscanf(l, "%llx-%llx ", &a, &b) == 2 && k < n) {
			cur = &e[k++];
			*cur = (struct sment){ .start = a, .kps = -1 };
		} else if (cur && !strncmp(l, "KernelPageSize:", 15)) {
			cur->kps = strtoll(l + 15, NULL, 10) * 1024;
		} else if (cur && !strncmp(l, "VmFlags:", 8)) {
			cur->ht = strstr(l, " ht") != NULL;
		}
	}
	return k;
}

/*
 * Each mapping's hugetlb flag and page size from the module against
 * smaps' VmFlags "ht" and KernelPageSize: the number of hugetlb mappings.
 */
static int check_vma_sizes(int fd, const struct kind *k)
{
	static struct sment ent[4096];
	struct vmabuf vb = { .cap = 4096, .names_cap = 1 << 20 };
	struct exmap_rec rec[1];
	struct exmap_scan a;
	struct buf b = { 0 };
	char path[64];
	size_t n;
	int nhuge = 0;

	vb.v = calloc(vb.cap, sizeof(*vb.v));
	vb.names = malloc(vb.names_cap);
	snprintf(path, sizeof(path), "/proc/%d/smaps", k->pid);
	if (!vb.v || !vb.names || scan_once(fd, k->pid, 0, rec, 1, &vb, &a) ||
	    read_all(path, &b)) {
		fail("kcheck %s: mappings or smaps unreadable", k->name);
		goto out;
	}
	n = parse_smaps(b.p, ent, sizeof(ent) / sizeof(*ent));
	for (uint32_t i = 0; i < a.nvmas; i++) {
		const struct exmap_vma *v = &vb.v[i];
		int huge = (v->flags & EXMAP_VMA_HUGETLB) != 0;
		size_t j = 0;

		while (j < n && ent[j].start != v->start)
			j++;
		if (j == n || ent[j].ht != huge ||
		    ent[j].kps != (long long)v->page_size)
			fail("kcheck %s: mapping at %llx: hugetlb %d, page size %llu; smaps: %s, ht %d, KernelPageSize %lld",
			     k->name, (unsigned long long)v->start, huge,
			     (unsigned long long)v->page_size,
			     j == n ? "missing" : "found", j < n && ent[j].ht,
			     j < n ? ent[j].kps : -1);
		nhuge += huge;
	}
out:
	free(vb.v);
	free(vb.names);
	free(b.p);
	return nhuge;
}

/* Until ksmd has merged every page of the ksm processes (at most 120 s). */
static void ksm_wait(const struct kind *k, int n)
{
	double end = now() + 120;
	char path[64];
	int done = 0;

	while (!done && now() < end) {
		done = 1;
		for (int i = 0; i < n; i++) {
			if (strncmp(k[i].name, "ksm", 3))
				continue;
			snprintf(path, sizeof(path),
				 "/proc/%d/ksm_merging_pages", k[i].pid);
			if (file_num(path) != KINDS_KSM)
				done = 0;
		}
		if (!done)
			usleep(200000);
	}
}

/* Writable bytes of pid from the module's PTE bits (not hugetlb). */
static void print_writable(int fd, pid_t pid, struct pages *m)
{
	struct kind none = { 0 };
	struct kfig f = { 0 };

	if (module_pages(fd, pid, m, 1000)) {
		fail("kcheck: pid %d unreadable", (int)pid);
		return;
	}
	for (size_t i = 0; i < m->n; i++)
		kfig_add(&f, &m->p[i], &none);
	printf("writable %d %llu\n", (int)pid, (unsigned long long)f.writable);
}

/* The kind-specific expectations (see cmd_kinds). */
static void check_kind(const struct kind *k, const struct kfig *f, int nhuge)
{
	uint64_t anon = KINDS_ANON / (uint64_t)ps;
	uint64_t huge = KINDS_HUGE * KINDS_HUGE_SIZE;
	long long merging;
	char path[64];

	if (!strcmp(k->name, "zero") && (f->zero != anon || f->zero_huge))
		fail("kcheck zero: %llu pages of the zero page and %llu of the huge one in the region, want %llu and 0",
		     (unsigned long long)f->zero,
		     (unsigned long long)f->zero_huge,
		     (unsigned long long)anon);
	if (!strcmp(k->name, "thp") && f->zero_huge != anon)
		fail("kcheck thp: %llu pages of the huge zero page in the region (%llu of the small one), want %llu",
		     (unsigned long long)f->zero_huge,
		     (unsigned long long)f->zero, (unsigned long long)anon);
	if (!strncmp(k->name, "huge", 4) &&
	    (nhuge != 3 || f->huge_private != KINDS_HUGE_SIZE ||
	     f->huge_shared + f->huge_private != 3 * huge ||
	     f->hugetlb != huge / (uint64_t)ps))
		fail("kcheck %s: %d hugetlb mappings, %llu B shared, %llu B private, %llu pages in the private mapping; want 3, %llu, %llu, %llu",
		     k->name, nhuge, (unsigned long long)f->huge_shared,
		     (unsigned long long)f->huge_private,
		     (unsigned long long)f->hugetlb,
		     (unsigned long long)(3 * huge - KINDS_HUGE_SIZE),
		     (unsigned long long)KINDS_HUGE_SIZE,
		     (unsigned long long)(huge / (uint64_t)ps));
	if (strncmp(k->name, "huge", 4) && nhuge)
		fail("kcheck %s: %d hugetlb mappings", k->name, nhuge);
	if (strncmp(k->name, "ksm", 3))
		return;
	snprintf(path, sizeof(path), "/proc/%d/ksm_merging_pages", k->pid);
	merging = file_num(path);
	if (f->ksm != KINDS_KSM || merging != KINDS_KSM)
		fail("kcheck %s: %llu KSM pages from the module, ksm_merging_pages %lld; want %d",
		     k->name, (unsigned long long)f->ksm, merging, KINDS_KSM);
}

/* The module's KSM pages of the ksm processes against ksmd's counts. */
static void check_ksm_pages(const uint64_t *pfn, const uint32_t *mapcount,
			    size_t n)
{
	long long shared = file_num("/sys/kernel/mm/ksm/pages_shared");
	long long sharing = file_num("/sys/kernel/mm/ksm/pages_sharing");
	size_t distinct = 0, bad = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < i && pfn[j] != pfn[i])
			j++;
		distinct += j == i;
		bad += mapcount[i] != 3;
	}
	printf("info ksm: %zu KSM pages mapped, %zu distinct, pages_shared %lld, pages_sharing %lld\n",
	       n, distinct, shared, sharing);
	if (n != 3 * KINDS_KSM || distinct != KINDS_KSM ||
	    shared != KINDS_KSM || sharing != 2 * KINDS_KSM || bad)
		fail("kcheck ksm: %zu pages, %zu distinct, %zu not mapped 3 times; pages_shared %lld, pages_sharing %lld; want %d, %d, 0, %d, %d",
		     n, distinct, bad, shared, sharing, 3 * KINDS_KSM,
		     KINDS_KSM, KINDS_KSM, 2 * KINDS_KSM);
}

/*
 * kmcheck kcheck KINDS_OUT SHARER_OUT: for each process of kmcheck kinds,
 * what the module says against the kernel's own figures: Rss and Pss of
 * smaps_rollup from its pages but the zero page and hugetlb ones,
 * Shared_Hugetlb and Private_Hugetlb from its hugetlb pages, each
 * mapping's hugetlb flag and page size against smaps, and what each kind
 * must show (check_kind); the KSM pages against ksmd's counts. Prints
 * "kernel NAME PID RSS PSS HUGETLB ZERO KSM" (bytes, the kernel's and the
 * module's figures of the whole process) for the host, and "writable PID
 * BYTES" for the sharer's processes and these.
 */
static int cmd_kcheck(const char *kinds_out, const char *sharer_out)
{
	struct kind k[KINDS_N];
	struct pages m = { 0 };
	uint64_t kpfn[3 * KINDS_KSM + 1];
	uint32_t kmc[3 * KINDS_KSM + 1];
	size_t nk = 0;
	int n = 0, nsp = 0, fd;
	pid_t spids[4];
	char line[256];
	FILE *f = fopen(kinds_out, "r");

	while (f && fgets(line, sizeof(line), f) && n < KINDS_N)
		if (sscanf(line, "kind %15s %d %llx %llx", k[n].name, &k[n].pid,
			   (unsigned long long *)&k[n].start,
			   (unsigned long long *)&k[n].end) == 4)
			n++;
	if (f)
		fclose(f);
	f = fopen(sharer_out, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "pids ", 5))
			nsp = sscanf(line + 5, "%d %d %d %d", &spids[0],
				     &spids[1], &spids[2], &spids[3]);
	if (f)
		fclose(f);
	fd = open(EXMAP_DEVICE, O_RDONLY);
	if (n != KINDS_N || nsp != 4 || fd < 0) {
		fail("kcheck: %d kinds, %d sharer pids, %s", n, nsp,
		     fd < 0 ? strerror(errno) : "device open");
		return 1;
	}
	ksm_wait(k, n);
	for (int i = 0; i < n; i++) {
		struct kfig fg = { 0 };
		long long rss = proc_kv(k[i].pid, "smaps_rollup", "Rss");
		long long pss = proc_kv(k[i].pid, "smaps_rollup", "Pss");
		long long hs = proc_kv(k[i].pid, "smaps_rollup",
				       "Shared_Hugetlb");
		long long hp = proc_kv(k[i].pid, "smaps_rollup",
				       "Private_Hugetlb");
		uint64_t zero = 0, ksm = 0;

		if (module_pages(fd, k[i].pid, &m, 1000)) {
			fail("kcheck %s: module scan failed", k[i].name);
			continue;
		}
		for (size_t j = 0; j < m.n; j++) {
			const struct page *pg = &m.p[j];

			kfig_add(&fg, pg, &k[i]);
			zero += (pg->flags & EXMAP_F_ZERO) != 0;
			ksm += (pg->flags & EXMAP_F_KSM) != 0;
			if ((pg->flags & EXMAP_F_KSM) && nk < 3 * KINDS_KSM &&
			    !strncmp(k[i].name, "ksm", 3)) {
				kpfn[nk] = pg->word & PM_FRAME;
				kmc[nk++] = pg->mapcount;
			}
		}
		if ((long long)fg.rss != rss ||
		    (long long)(fg.pss >> 22 << 10) != pss ||
		    (long long)fg.huge_shared != hs ||
		    (long long)fg.huge_private != hp)
			fail("kcheck %s: module Rss %llu, Pss %llu, Shared_Hugetlb %llu, Private_Hugetlb %llu; smaps_rollup %lld, %lld, %lld, %lld",
			     k[i].name, (unsigned long long)fg.rss,
			     (unsigned long long)(fg.pss >> 12),
			     (unsigned long long)fg.huge_shared,
			     (unsigned long long)fg.huge_private, rss, pss, hs,
			     hp);
		check_kind(&k[i], &fg, check_vma_sizes(fd, &k[i]));
		printf("kernel %s %d %lld %lld %lld %llu %llu\n", k[i].name,
		       k[i].pid, rss, pss, hs + hp,
		       (unsigned long long)zero * (unsigned long long)ps,
		       (unsigned long long)ksm * (unsigned long long)ps);
		printf("writable %d %llu\n", k[i].pid,
		       (unsigned long long)fg.writable);
	}
	check_ksm_pages(kpfn, kmc, nk);
	for (int i = 0; i < 4; i++)
		print_writable(fd, spids[i], &m);
	close(fd);
	free(m.p);
	if (!failed)
		printf("ok kinds: the zero page, the huge zero page, hugetlb and KSM pages as the kernel counts them\n");
	return failed;
}

/* cmd_calls: one pass's counts over pids */
struct calls_pass {
	int fd;
	uint32_t nrecs;
	const pid_t *pids;
	size_t np;
	long procs, calls, nrec, pages, maxcalls;
};

static void calls_pass(void *arg)
{
	static struct exmap_rec recs[4096];
	struct calls_pass *c = arg;

	c->procs = c->calls = c->nrec = c->pages = c->maxcalls = 0;
	for (size_t j = 0; j < c->np; j++) {
		uint64_t next = 0;
		long n = 0;

		do {
			struct exmap_scan a;

			/* gone, or exiting: no mm */
			if (scan_once(c->fd, c->pids[j], next, recs, c->nrecs,
				      NULL, &a) ||
			    (a.info & EXMAP_INFO_NOMM))
				break;
			n++;
			c->nrec += a.nrecs;
			for (uint32_t i = 0; i < a.nrecs; i++)
				c->pages += recs[i].npages;
			next = a.next;
		} while (next);
		if (n) {
			c->procs++;
			c->calls += n;
			if (n > c->maxcalls)
				c->maxcalls = n;
		}
	}
}

static int cmd_calls(uint32_t nrecs)
{
	struct calls_pass c = { .nrecs = nrecs };
	struct pass_times t;
	pid_t *pids;

	c.fd = open(EXMAP_DEVICE, O_RDONLY);
	if (c.fd < 0 || nrecs == 0 || nrecs > 4096) {
		fail("open %s: %s (or NRECS not 1..4096)", EXMAP_DEVICE,
		     strerror(errno));
		return 1;
	}
	c.np = user_pids(&pids);
	c.pids = pids;
	timed_passes(calls_pass, &c, &t);
	free(pids);
	close(c.fd);
	printf("calls %u %ld %ld %ld %ld %ld %.4f %.4f %.4f\n", nrecs, c.procs,
	       c.calls, c.nrec, c.pages, c.maxcalls, t.wall, t.user, t.sys);
	return 0;
}

/* cmd_nowalk: one pass's counts over pids, m the index of its mode */
struct nowalk_pass {
	int fd, m;
	const pid_t *pids;
	size_t np;
	long procs, zeros;
};

static void nowalk_pass(void *arg)
{
	struct nowalk_pass *w = arg;

	w->procs = w->zeros = 0;
	for (size_t j = 0; j < w->np; j++) {
		struct exmap_rec rec[1];
		struct exmap_scan a;

		scan_once(w->fd, w->pids[j], 0, rec, 1, NULL, &a);
		a.flags = EXMAP_SCAN_WATCH | EXMAP_SCAN_NOWALK |
			  (w->m == 2 ? EXMAP_SCAN_SUMS : 0);
		if (w->m == 0) {
			a.abi = 5;
			a.size = EXMAP_SCAN_SIZE_5;
		}
		a.nrecs = 1;
		if (ioctl(w->fd, EXMAP_IOC_SCAN, &a) < 0 ||
		    (a.info & EXMAP_INFO_NOMM))
			continue;
		w->procs++;
		w->zeros += w->m ? (long)a.zeros : 0;
	}
}

static int cmd_nowalk(const char *mode)
{
	static const char *const modes[] = { "plain", "zeros", "sums" };
	struct nowalk_pass w = { 0 };
	struct pass_times t;
	pid_t *pids;

	w.fd = open(EXMAP_DEVICE, O_RDONLY);
	while (w.m < 3 && strcmp(mode, modes[w.m]))
		w.m++;
	if (w.fd < 0 || w.m == 3) {
		fail("open %s: %s (or MODE not plain, zeros, sums)",
		     EXMAP_DEVICE, strerror(errno));
		return 1;
	}
	w.np = user_pids(&pids);
	w.pids = pids;
	timed_passes(nowalk_pass, &w, &t);
	free(pids);
	close(w.fd);
	printf("nowalk %s %ld %ld %.4f %.4f %.4f\n", mode, w.procs, w.zeros,
	       t.wall, t.user, t.sys);
	return 0;
}

/* cmd_smaps: one pass's counts over pids */
struct smaps_pass {
	const pid_t *pids;
	size_t np;
	long procs, bytes;
};

static void smaps_pass(void *arg)
{
	static char buf[65536];
	struct smaps_pass *m = arg;

	m->procs = m->bytes = 0;
	for (size_t j = 0; j < m->np; j++) {
		char path[64];
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/smaps", (int)m->pids[j]);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			m->bytes += n;
		close(fd);
		m->procs++;
	}
}

static int cmd_smaps(void)
{
	struct smaps_pass m = { 0 };
	struct pass_times t;
	pid_t *pids;

	m.np = user_pids(&pids);
	m.pids = pids;
	timed_passes(smaps_pass, &m, &t);
	free(pids);
	printf("smaps %ld %ld %.4f %.4f %.4f\n", m.procs, m.bytes, t.wall,
	       t.user, t.sys);
	return 0;
}

/* utime + stime of every thread of pid, in clock ticks; -1 if gone. */
static long long proc_ticks(pid_t pid)
{
	char buf[1024], *p;
	unsigned long long ut, st;

	if (read_stat(pid, buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	/* after the comm: state is field 3, utime 14, stime 15 */
	if (!p ||
	    sscanf(p + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
		   &st) != 2)
		return -1;
	return (long long)(ut + st);
}

/* Read and drop what the terminal shows until the time t. */
static void drain(int mfd, double t)
{
	char buf[65536];

	while (now() < t) {
		struct pollfd pf = { .fd = mfd, .events = POLLIN };
		int ms = (int)((t - now()) * 1000) + 1;

		if (poll(&pf, 1, ms) > 0 && read(mfd, buf, sizeof(buf)) <= 0)
			usleep(10000); /* the child closed it: just wait */
	}
}

static int cmd_pty(const char *name, double warm, double secs, char **argv)
{
	struct winsize ws = { .ws_row = 50, .ws_col = 200 };
	long long c0, c1;
	char *slave;
	pid_t pid;
	int mfd, st;

	mfd = posix_openpt(O_RDWR | O_NOCTTY);
	if (mfd < 0 || grantpt(mfd) || unlockpt(mfd) ||
	    !(slave = ptsname(mfd))) {
		fail("pseudo-terminal: %s", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		int sfd;

		setsid();
		sfd = open(slave, O_RDWR);
		if (sfd < 0 || ioctl(sfd, TIOCSCTTY, 0) ||
		    ioctl(sfd, TIOCSWINSZ, &ws))
			_exit(126);
		dup2(sfd, 0);
		dup2(sfd, 1);
		dup2(sfd, 2);
		close(mfd);
		execvp(argv[0], argv);
		_exit(127);
	}
	drain(mfd, now() + warm);
	c0 = proc_ticks(pid);
	drain(mfd, now() + secs);
	c1 = proc_ticks(pid);
	if (write(mfd, "q", 1) != 1)
		kill(pid, SIGTERM);
	drain(mfd, now() + 1);
	kill(pid, SIGTERM);
	drain(mfd, now() + 0.5);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	close(mfd);
	if (c0 < 0 || c1 < 0) {
		fail("%s exited during the measurement (status %#x)", name, st);
		return 1;
	}
	printf("live %s %.3f %.1f\n", name,
	       (double)(c1 - c0) / (double)sysconf(_SC_CLK_TCK), secs);
	return 0;
}

int main(int argc, char **argv)
{
	ps = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "compare"))
		return cmd_compare(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "kinds"))
		return cmd_kinds();
	if (argc == 4 && !strcmp(argv[1], "kcheck"))
		return cmd_kcheck(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "unpriv"))
		return cmd_unpriv();
	if (argc == 2 && !strcmp(argv[1], "task"))
		return cmd_task();
	if (argc == 2 && !strcmp(argv[1], "maps"))
		return cmd_maps();
	if (argc == 3 && !strcmp(argv[1], "scan"))
		return cmd_scan(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "churn"))
		return cmd_churn(atof(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "time"))
		return cmd_time(argv[2], argv + 3);
	if (argc == 3 && !strcmp(argv[1], "calls"))
		return cmd_calls((uint32_t)atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "nowalk"))
		return cmd_nowalk(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "smaps"))
		return cmd_smaps();
	if (argc >= 6 && !strcmp(argv[1], "pty"))
		return cmd_pty(argv[2], atof(argv[3]), atof(argv[4]), argv + 5);
	fprintf(stderr,
		"usage: kmcheck compare FILE | kinds | kcheck KINDS_OUT SHARER_OUT | task | maps | unpriv | scan SECS | churn SECS | time NAME CMD... | calls NRECS | nowalk MODE | smaps | pty NAME WARMUP SECS CMD...\n");
	return 2;
}
