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
 *       its design writes after fork.
 *   kmcheck task
 *       For every process (but kernel threads): who the module says it is
 *       (name, parent, start, effective uid) equals /proc/PID/stat and the
 *       owner of /proc/PID. Among them a child with a name of spaces and
 *       parentheses that changed its effective uid and is not dumpable
 *       (its /proc/PID files then belong to root; the directory does not).
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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
	uint32_t flags;
};

struct pages {
	struct page *p;
	size_t n, cap;
};

static void push(struct pages *s, uint64_t va, uint64_t word, uint32_t flags)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4096;
		s->p = realloc(s->p, s->cap * sizeof(*s->p));
		if (!s->p) {
			perror("realloc");
			exit(2);
		}
	}
	s->p[s->n++] = (struct page){ va, word, flags };
}

/* All pages of pid through the module, as pagemap words, asking for
 * nrecs records per call (at most 1000). 0 or -errno. */
static int module_pages(int fd, pid_t pid, struct pages *out, uint32_t nrecs)
{
	static struct exmap_rec recs[1000];
	uint64_t next = 0;

	out->n = 0;
	do {
		struct exmap_scan a = { .size = sizeof(a),
					.abi = EXMAP_ABI_VERSION,
					.pid = pid,
					.start = next,
					.recs = (uintptr_t)recs,
					.nrecs = nrecs,
					.rec_size = sizeof(recs[0]) };

		if (ioctl(fd, EXMAP_IOC_SCAN, &a) < 0)
			return -errno;
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
				     w + k * step, r->flags);
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
					     buf[k] & PM_KEEP, 0);
			v += (uint64_t)(r / 8) * ps;
		}
	}
	fclose(f);
	close(fd);
	return 0;
}

/* First difference of two page lists, or NULL when equal. */
static const char *diff(const struct pages *a, const struct pages *b,
			char *msg, size_t len)
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
					got = (m->p[i].flags & EXMAP_F_WRITE) != 0;
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

static int cmd_compare(const char *sharer_out)
{
	pid_t sparse = start_sparse();
	int zero = 0;
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
		if (nrg < 32 && sscanf(line, "region %31s %lx %lx", rg[nrg].name,
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
	d = opendir("/proc");
	while ((de = readdir(d))) {
		pid_t pid = atoi(de->d_name);
		const char *why = "";
		int tries, r1 = 0, r2 = 0;

		if (pid <= 0 || pid == getpid() || is_kthread(pid))
			continue;
		for (tries = 0; tries < 5; tries++) {
			/* small buffers: every walk resumes many times */
			r1 = module_pages(fd, pid, &m, 3 + (uint32_t)tries);
			r2 = pagemap_pages(pid, &p);
			if (r1 || r2)
				break;
			why = diff(&m, &p, msg, sizeof(msg));
			if (!why)
				break;
			usleep(100000);
		}
		if (r1 == -ESRCH || r2 == -ENOENT || r2 == -ESRCH)
			continue; /* gone */
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
		for (size_t i = 0; i < m.n; i++) {
			huge += (m.p[i].flags & EXMAP_F_HUGE) != 0;
			zero += (m.p[i].flags & EXMAP_F_ZERO) != 0;
			swapped += (m.p[i].flags & EXMAP_F_SWAP) != 0;
		}
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
	printf("info compared %d processes, %d huge pages, %d swapped pages, %d zero pages\n",
	       nproc, huge, swapped, zero);
	if (zero < 64)
		fail("%d zero pages seen, want at least 64", zero);
	if (nproc < 5)
		fail("only %d processes compared", nproc);
	if (!swapped)
		fail("no swapped page seen: the swap case did not run");
	if (!huge)
		fail("no page mapped by a PMD seen: the THP case did not run");
	if (!failed)
		printf("ok pages identical to pagemap in %d processes\n", nproc);
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
	long scans = 0, gone = 0;
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
			else if (r)
				fail("scan pid %d: %s", (int)pid, strerror(-r));
			else
				scans++;
		}
		closedir(d);
	}
	close(fd);
	free(m.p);
	printf("info %ld scans, %ld processes gone or kernel threads\n", scans,
	       gone);
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
		for (size_t o = 0; o < lens[i]; o += (size_t)ps * (1 + rand() % 8))
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
	if (sscanf(rp + 2, "%*c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u "
		   "%*u %*u %*d %*d %*d %*d %*d %*d %llu", ppid, start) != 2)
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
		if (setresuid(0, 65534, 0) || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
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
		struct exmap_scan a = { .size = sizeof(a),
					.abi = EXMAP_ABI_VERSION,
					.pid = pids[i],
					.recs = (uintptr_t)&rec,
					.nrecs = 1,
					.rec_size = sizeof(rec) };
		char comm[64], mcomm[sizeof(a.comm) + 1], path[64];
		unsigned long long start;
		struct stat st;
		long ppid;

		snprintf(path, sizeof(path), "/proc/%d", (int)pids[i]);
		if (ioctl(fd, EXMAP_IOC_SCAN, &a) < 0 ||
		    stat_ident(pids[i], comm, sizeof(comm), &ppid, &start) ||
		    stat(path, &st))
			continue; /* gone (or a zombie: no mm) */
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
		       "/proc says\n", nok);
	return failed;
}

static int cmd_calls(uint32_t nrecs)
{
	static struct exmap_rec recs[4096];
	long procs = 0, calls = 0, nrec = 0, pages = 0, maxcalls = 0;
	double t0 = 0, u0 = 0, s0 = 0, u1, s1;
	int fd = open(EXMAP_DEVICE, O_RDONLY);
	pid_t *pids;
	size_t np;

	if (fd < 0 || nrecs == 0 || nrecs > 4096) {
		fail("open %s: %s (or NRECS not 1..4096)", EXMAP_DEVICE,
		     strerror(errno));
		return 1;
	}
	np = user_pids(&pids);
	for (int pass = 0; pass < PASSES; pass++) {
		if (pass == 1) {
			t0 = now();
			self_cpu(&u0, &s0);
		}
		procs = calls = nrec = pages = maxcalls = 0;
		for (size_t j = 0; j < np; j++) {
			uint64_t next = 0;
			long c = 0;

			do {
				struct exmap_scan a = {
					.size = sizeof(a),
					.abi = EXMAP_ABI_VERSION,
					.pid = pids[j],
					.start = next,
					.recs = (uintptr_t)recs,
					.nrecs = nrecs,
					.rec_size = sizeof(recs[0])
				};

				if (ioctl(fd, EXMAP_IOC_SCAN, &a) < 0)
					break;
				c++;
				nrec += a.nrecs;
				for (uint32_t i = 0; i < a.nrecs; i++)
					pages += recs[i].npages;
				next = a.next;
			} while (next);
			if (c) {
				procs++;
				calls += c;
				if (c > maxcalls)
					maxcalls = c;
			}
		}
	}
	free(pids);
	close(fd);
	self_cpu(&u1, &s1);
	printf("calls %u %ld %ld %ld %ld %ld %.4f %.4f %.4f\n", nrecs, procs,
	       calls, nrec, pages, maxcalls, (now() - t0) / (PASSES - 1),
	       (u1 - u0) / (PASSES - 1), (s1 - s0) / (PASSES - 1));
	return 0;
}

static int cmd_smaps(void)
{
	static char buf[65536];
	double t0 = 0, u0 = 0, s0 = 0, u1, s1;
	long procs = 0, bytes = 0;
	pid_t *pids;
	size_t np;

	np = user_pids(&pids);
	for (int pass = 0; pass < PASSES; pass++) {
		if (pass == 1) {
			t0 = now();
			self_cpu(&u0, &s0);
		}
		procs = bytes = 0;
		for (size_t j = 0; j < np; j++) {
			char path[64];
			ssize_t n;
			int fd;

			snprintf(path, sizeof(path), "/proc/%d/smaps",
				 (int)pids[j]);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				continue;
			while ((n = read(fd, buf, sizeof(buf))) > 0)
				bytes += n;
			close(fd);
			procs++;
		}
	}
	free(pids);
	self_cpu(&u1, &s1);
	printf("smaps %ld %ld %.4f %.4f %.4f\n", procs, bytes,
	       (now() - t0) / (PASSES - 1), (u1 - u0) / (PASSES - 1),
	       (s1 - s0) / (PASSES - 1));
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
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
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
	if (mfd < 0 || grantpt(mfd) || unlockpt(mfd) || !(slave = ptsname(mfd))) {
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
	if (argc == 2 && !strcmp(argv[1], "unpriv"))
		return cmd_unpriv();
	if (argc == 2 && !strcmp(argv[1], "task"))
		return cmd_task();
	if (argc == 3 && !strcmp(argv[1], "scan"))
		return cmd_scan(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "churn"))
		return cmd_churn(atof(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "time"))
		return cmd_time(argv[2], argv + 3);
	if (argc == 3 && !strcmp(argv[1], "calls"))
		return cmd_calls((uint32_t)atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "smaps"))
		return cmd_smaps();
	if (argc >= 6 && !strcmp(argv[1], "pty"))
		return cmd_pty(argv[2], atof(argv[3]), atof(argv[4]), argv + 5);
	fprintf(stderr, "usage: kmcheck compare FILE | task | unpriv | scan SECS | churn SECS | time NAME CMD... | calls NRECS | smaps | pty NAME WARMUP SECS CMD...\n");
	return 2;
}
