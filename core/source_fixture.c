// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_fixture.c - hand-built snapshots for tests ("fixture:NAME").
 *
 * Every figure of these snapshots is known in advance, so batch and UI tests
 * can assert exact output. Fixtures:
 *   basic    a few processes sharing a library, fork-CoW anon, shared
 *            memory and swap (the default)
 *   hostile  names and command lines with escape sequences, control
 *            characters, invalid UTF-8, wide characters and spaces
 *   many     2000 processes, for scrolling and speed
 *   slow     basic, each snapshot after the first taking 3 s
 *   slowstart  basic, the first snapshot taking 2 s
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/pagemap.h"
#include "core/procfs.h"
#include "core/source.h"

#define PS 4096u
#define PRESENT EXM_PM_PRESENT
#define EXCL EXM_PM_EXCLUSIVE
#define FILEP EXM_PM_FILE

/* The fixtures' kernel figures (what smaps_rollup would say): Pss and
 * SwapPss in bytes, rounded to KiB like the kernel's; Rss is counted as
 * pages are added. */
struct kfig {
	pid_t pid;
	uint64_t pss, swap_pss;
};

static const struct kfig basic_kfig[] = {
	{ 1, 41984, 0 },	{ 200, 58368, 4096 },	{ 201, 58368, 4096 },
	{ 300, 106496, 10240 }, { 301, 106496, 10240 }, { 302, 106496, 10240 },
	{ 400, 28672, 0 },
};

/* hostile process 500 + i */
static const uint64_t hostile_pss[] = { 0,    0,    1024, 2048, 2048,
					3072, 5120, 7168, 11264 };

/* The process being built and its kernel figures. */
struct fx {
	struct exm_builder *b;
	const char *name; /* the fixture */
	struct exm_proc *p;
	struct exm_kpss k;
};

static void kernel_pss(const struct fx *x, pid_t pid, struct exm_kpss *k)
{
	if (!strcmp(x->name, "hostile")) {
		if (pid >= 500 && pid - 500 < (pid_t)(sizeof(hostile_pss) /
						      sizeof(hostile_pss[0])))
			k->pss = hostile_pss[pid - 500];
	} else if (!strcmp(x->name, "many")) {
		/* libc text shared by all 2000 (16 bytes each), the rest
		 * its own */
		k->pss = (uint64_t)(3 + (pid - 1000) % 50) * PS;
	} else {
		for (size_t i = 0;
		     i < sizeof(basic_kfig) / sizeof(basic_kfig[0]); i++)
			if (basic_kfig[i].pid == pid) {
				k->pss = basic_kfig[i].pss;
				k->swap_pss = basic_kfig[i].swap_pss;
			}
	}
}

/* Hand the last process's kernel figures to the builder. */
static void kfig_done(struct fx *x)
{
	if (x->p) {
		kernel_pss(x, x->p->pid, &x->k);
		exm_build_kpss(x->b, x->p, &x->k);
	}
	x->p = NULL;
}

static struct exm_proc *proc(struct fx *x, pid_t pid, pid_t ppid, uid_t uid,
			     const char *user, const char *comm,
			     const char *cmd, const char *cgroup)
{
	struct exm_proc *p;

	kfig_done(x);
	p = exm_build_proc(x->b);

	if (!p)
		return NULL;
	p->pid = pid;
	p->ppid = ppid;
	p->uid = uid;
	p->start_time = (uint64_t)pid * 10;
	p->user = strdup(user);
	p->comm = strdup(comm);
	p->cmdline = strdup(cmd);
	p->cgroup = strdup(cgroup);
	if (!p->user || !p->comm || !p->cmdline || !p->cgroup)
		return NULL;
	x->p = p;
	memset(&x->k, 0, sizeof(x->k));
	x->k.has = EXM_KPSS_PSS | EXM_KPSS_RSS | EXM_KPSS_SWAP_PSS;
	return p;
}

/* A mapping at page number vpn of npages pages. */
static struct exm_mapping *map(struct fx *x, uint64_t vpn, uint64_t npages,
			       const char *perms, const char *name,
			       uint64_t inode)
{
	struct exm_mapping *m = exm_build_mapping(x->b, x->p);

	if (!m)
		return NULL;
	m->start = vpn * PS;
	m->end = (vpn + npages) * PS;
	m->perms = (perms[0] == 'r' ? EXM_PERM_R : 0) |
		   (perms[1] == 'w' ? EXM_PERM_W : 0) |
		   (perms[2] == 'x' ? EXM_PERM_X : 0) |
		   (perms[3] == 's' ? EXM_PERM_S : 0);
	m->inode = inode;
	m->dev_major = inode ? 8 : 0;
	m->dev_minor = inode ? 1 : 0;
	m->name = strdup(name);
	if (!m->name)
		return NULL;
	m->kind = exm_classify(name, inode, m->dev_major, m->perms);
	return m;
}

/* count present pages from page index first of m, PFNs pfn, pfn+1, ... */
static int pages(struct fx *x, struct exm_mapping *m, uint64_t first,
		 uint64_t count, uint64_t pfn, uint64_t flags)
{
	for (uint64_t i = 0; i < count; i++) {
		uint64_t w = PRESENT | flags | (pfn + i);
		int ret = exm_build_pages(x->b, m, m->start / PS + first + i,
					  &w, 1);

		if (ret)
			return ret;
	}
	x->k.rss += count * PS;
	return 0;
}

static int swapped(struct fx *x, struct exm_mapping *m, uint64_t first,
		   uint64_t count, uint64_t off)
{
	for (uint64_t i = 0; i < count; i++) {
		uint64_t w = EXM_PM_SWAPPED | ((off + i) << 5) | 1;
		int ret = exm_build_pages(x->b, m, m->start / PS + first + i,
					  &w, 1);

		if (ret)
			return ret;
	}
	return 0;
}

#define TRY(x)                          \
	do {                            \
		if (!(x))               \
			return -ENOMEM; \
	} while (0)
#define TRYR(x)                    \
	do {                       \
		int r_ = (x);      \
		if (r_)            \
			return r_; \
	} while (0)

static const char LIBC[] = "/usr/lib/x86_64-linux-gnu/libc.so.6";

/* The C library mapped like ld.so does: text 8 pages, data 2 pages. */
static int libc(struct fx *x, unsigned resident_text)
{
	struct exm_mapping *m;

	TRY(m = map(x, 0x7f0000000, 8, "r-xp", LIBC, 1001));
	TRYR(pages(x, m, 0, resident_text, 0x1000, FILEP));
	TRY(m = map(x, 0x7f0000008, 2, "rw-p", LIBC, 1001));
	m->offset = 8 * PS;
	TRYR(pages(x, m, 0, 2, 0x2000 + (uint64_t)x->p->pid * 2, EXCL));
	return 0;
}

static int fixture_basic(struct fx *x)
{
	struct exm_proc *p;
	struct exm_mapping *m;

	/* init: libc text fully resident, heap 4 pages, stack 1. */
	TRY(p = proc(x, 1, 0, 0, "root", "init", "/sbin/init splash",
		     "/init.scope"));
	TRYR(libc(x, 8));
	TRY(m = map(x, 0x1000, 4, "rw-p", "[heap]", 0));
	TRYR(pages(x, m, 0, 4, 0x10000, EXCL));
	TRY(m = map(x, 0x7ffff000, 1, "rw-p", "[stack]", 0));
	TRYR(pages(x, m, 0, 1, 0x10010, EXCL));

	/* bash parent and child: 16 anon pages written before fork (shared
	 * CoW), the child then wrote 4 of them (own copies). */
	for (int i = 0; i < 2; i++) {
		TRY(p = proc(x, 200 + i, i ? 200 : 1, 1000, "alice", "bash",
			     i ? "bash -c make" : "-bash",
			     "/user.slice/user-1000.slice/session-1.scope"));
		TRYR(libc(x, 6));
		TRY(m = map(x, 0x2000, 16, "rw-p", "", 0));
		TRYR(pages(x, m, 0, 4, i ? 0x21000 : 0x20000, i ? EXCL : 0));
		TRYR(pages(x, m, 4, 12, 0x20004, 0));
		TRY(m = map(x, 0x7ffff000, 2, "rw-p", "[stack]", 0));
		TRYR(pages(x, m, 0, 1, 0x10020 + (uint64_t)i, EXCL));
		TRYR(swapped(x, m, 1, 1, 0x500 + (uint64_t)i));
	}

	/* postgres: three processes sharing 64 pages of shared memory, and
	 * 8 pages of it swapped out (shared swap entries). */
	for (int i = 0; i < 3; i++) {
		TRY(p = proc(x, 300 + i, i ? 300 : 1, 106, "postgres",
			     "postgres",
			     i ? "postgres: checkpointer"
			       : "/usr/lib/postgresql/15/bin/postgres -D "
				 "/var/lib/postgresql/15/main",
			     "/system.slice/postgresql.service"));
		TRYR(libc(x, 4));
		TRY(m = map(x, 0x3000, 72, "rw-s", "/SYSV00000000", 4242));
		TRYR(pages(x, m, 0, 64, 0x30000, FILEP));
		TRYR(swapped(x, m, 64, 8, 0x900));
		TRY(m = map(x, 0x1000, 2, "rw-p", "[heap]", 0));
		TRYR(pages(x, m, 0, 2, 0x11000 + (uint64_t)i * 2, EXCL));
	}

	/* A memfd mapped twice by one process (maps(pfn) == 2, procs == 1),
	 * and a deleted file with a space in its name. */
	TRY(p = proc(x, 400, 1, 1000, "alice", "worker", "worker --twice",
		     "/user.slice/user-1000.slice/session-1.scope"));
	TRY(m = map(x, 0x4000, 4, "rw-s", "/memfd:ring (deleted)", 5000));
	m->deleted = true;
	m->name[strlen("/memfd:ring")] = '\0';
	TRYR(pages(x, m, 0, 4, 0x40000, FILEP));
	TRY(m = map(x, 0x5000, 4, "r--s", "/memfd:ring (deleted)", 5000));
	m->deleted = true;
	m->name[strlen("/memfd:ring")] = '\0';
	TRYR(pages(x, m, 0, 4, 0x40000, FILEP));
	TRY(m = map(x, 0x6000, 3, "r--p", "/tmp/my data.bin", 6000));
	TRYR(pages(x, m, 0, 3, 0x50000, FILEP | EXCL));
	return 0;
}

static int fixture_hostile(struct fx *x)
{
	static const char *const comms[] = {
		"evil\033[2J\033[H",
		"tab\there",
		"nl\nline",
		"bell\a",
		"bad\xff\xfeutf8",
		"na\xc3\xafve \xe2\x98\x83",
		"\xe6\xbc\xa2\xe5\xad\x97wide",
		"del\x7f",
		"osc\033]0;pwned\a",
	};
	static const char *const files[] = {
		"/tmp/evil\033[31mred.so",   "/tmp/with space/lib x.so",
		"/tmp/new\nline.so",	     "/tmp/\xff\xfe.so",
		"/tmp/\xe2\x98\x83 snow.so",
	};
	struct exm_proc *p;
	struct exm_mapping *m;

	for (unsigned i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "%s --arg \033[5m%u\x01", comms[i],
			 i);
		TRY(p = proc(x, (pid_t)(500 + i), 1, 1000, "mallory", comms[i],
			     cmd, "/evil\033[7m.scope"));
		m = map(x, 0x1000, 2 + i, "r-xp",
			files[i % (sizeof(files) / sizeof(files[0]))],
			7000 + i % (sizeof(files) / sizeof(files[0])));
		TRY(m);
		TRYR(pages(x, m, 0, 1 + i, 0x60000, FILEP));
	}
	return 0;
}

static int fixture_many(struct fx *x)
{
	for (unsigned i = 0; i < 2000; i++) {
		char comm[32], cmd[64];
		struct exm_proc *p;
		struct exm_mapping *m;

		snprintf(comm, sizeof(comm), "proc%04u", i);
		snprintf(cmd, sizeof(cmd), "/usr/bin/proc%04u --id=%u", i, i);
		TRY(p = proc(x, (pid_t)(1000 + i), 1, i % 3 ? 1000 : 0,
			     i % 3 ? "alice" : "root", comm, cmd,
			     "/system.slice/many.service"));
		TRYR(libc(x, 8));
		TRY(m = map(x, 0x2000, 1 + i % 50, "rw-p", "[heap]", 0));
		TRYR(pages(x, m, 0, 1 + i % 50, 0x100000 + (uint64_t)i * 64,
			   EXCL));
	}
	return 0;
}

/* basic, but every snapshot after the first takes 3 s: for the UI's
 * test that keys are handled while a scan runs. */
static int fixture_slow(struct fx *x)
{
	static unsigned calls;
	struct timespec ts = { .tv_sec = 3 };

	if (calls++)
		nanosleep(&ts, NULL);
	return fixture_basic(x);
}

/* basic, but the first snapshot takes 2 s: for the UI's test of keys
 * pressed before there is anything to act on. */
static int fixture_slowstart(struct fx *x)
{
	static unsigned calls;
	struct timespec ts = { .tv_sec = 2 };

	if (!calls++)
		nanosleep(&ts, NULL);
	return fixture_basic(x);
}

/* The fixtures by name; the first is the default. */
static const struct {
	const char *name;
	int (*make)(struct fx *x);
} fixtures[] = {
	{ "basic", fixture_basic },	    { "hostile", fixture_hostile },
	{ "many", fixture_many },	    { "slow", fixture_slow },
	{ "slowstart", fixture_slowstart },
};

static int (*fixture_find(const struct exm_source *src))(struct fx *x)
{
	const char *a = src->arg && *src->arg ? src->arg : fixtures[0].name;

	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		if (!strcmp(a, fixtures[i].name))
			return fixtures[i].make;
	return NULL;
}

/*
 * The fixtures model an 8 GiB machine: its /proc/meminfo, so views of the
 * kernel's counters (the system view) have something to show. Its rows
 * leave 73728 kB that no counter names (the system view's unexplained).
 */
static const char fixture_meminfo[] = "MemTotal:        8388608 kB\n"
				      "MemFree:         4521984 kB\n"
				      "MemAvailable:    6291456 kB\n"
				      "Buffers:          131072 kB\n"
				      "Cached:          2097152 kB\n"
				      "SwapCached:         4096 kB\n"
				      "AnonPages:       1048576 kB\n"
				      "Mapped:           262144 kB\n"
				      "Shmem:             65536 kB\n"
				      "KReclaimable:     262144 kB\n"
				      "Slab:             393216 kB\n"
				      "SReclaimable:     229376 kB\n"
				      "SUnreclaim:       163840 kB\n"
				      "KernelStack:       16384 kB\n"
				      "PageTables:        32768 kB\n"
				      "SecPageTables:         0 kB\n"
				      "VmallocUsed:       49152 kB\n"
				      "Percpu:             8192 kB\n"
				      "HugePages_Total:       0\n"
				      "Hugepagesize:       2048 kB\n"
				      "Hugetlb:               0 kB\n";

static int fx_open(struct exm_source *src)
{
	int n;

	if (fixture_find(src))
		return 0;
	n = snprintf(src->errmsg, sizeof(src->errmsg),
		     "unknown fixture '%.64s' (", src->arg);
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		if (n >= 0 && (size_t)n < sizeof(src->errmsg))
			n += snprintf(src->errmsg + n, sizeof(src->errmsg) - n,
				      "%s%s", i ? ", " : "", fixtures[i].name);
	if (n >= 0 && (size_t)n < sizeof(src->errmsg))
		snprintf(src->errmsg + n, sizeof(src->errmsg) - n, ")");
	return -EINVAL;
}

static int fx_fill(struct exm_source *src, const struct exm_scan_opts *opts,
		   struct exm_builder *b)
{
	const char *a = src->arg && *src->arg ? src->arg : fixtures[0].name;
	int (*make)(struct fx * x) = fixture_find(src);
	struct fx x = { .b = b, .name = a };
	struct exm_sysinfo sys = { .page_size = PS };
	struct exm_build_end end = { 0 };
	int ret;

	exm_meminfo_parse(&sys.meminfo, fixture_meminfo,
			  sizeof(fixture_meminfo) - 1);
	exm_meminfo_get(&sys.meminfo, "MemTotal", &sys.mem_total);
	exm_meminfo_get(&sys.meminfo, "MemAvailable", &sys.mem_available);
	snprintf(sys.kernel, sizeof(sys.kernel), "6.1.0-fixture");
	snprintf(sys.hostname, sizeof(sys.hostname), "fixture");
	snprintf(sys.source, sizeof(sys.source), "fixture");
	snprintf(sys.source_detail, sizeof(sys.source_detail), "%s", a);
	sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_KPSS |
		   EXM_CAP_WRITABLE | EXM_CAP_ALLPROCS | EXM_CAP_CGROUP;
	ret = exm_build_begin(b, &sys);
	if (ret)
		return ret;
	ret = make ? make(&x) : -EINVAL;
	if (ret)
		return ret;
	kfig_done(&x);
	/* Honour -p like a real source. */
	if (opts && opts->pids)
		exm_snapshot_keep_pids(b->snap, opts->pids, opts->npids);
	exm_build_end(b, &end);
	return 0;
}

static void fx_close(struct exm_source *src)
{
}

const struct exm_source_ops exm_source_fixture = {
	.name = "fixture",
	.arg = "NAME",
	.open = fx_open,
	.fill = fx_fill,
	.close = fx_close,
};
