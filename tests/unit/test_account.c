// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Accounting on hand-built snapshots, and the pagemap source's decoder on
 * a synthetic /proc tree with binary pagemap files.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/account.h"
#include "core/kpageflags.h"
#include "core/meminfo.h"
#include "core/pagemap.h"
#include "core/source.h"
#include "core/table.h"
#include "tests/unit/snapgen.h"
#include "tests/unit/fsput.h"

#define PS 4096u
#define PRESENT(pfn, fl) (EXM_PM_PRESENT | (fl) | (uint64_t)(pfn))
#define SWAPW(type, off) (EXM_PM_SWAPPED | ((uint64_t)(off) << 5) | (type))

static struct exm_proc *mkproc(struct exm_snapshot *s, pid_t pid)
{
	struct exm_proc *p = snapgen_proc(s, pid, "c");

	cr_assert_not_null(p);
	return p;
}

static struct exm_mapping *mkmap(struct exm_proc *p, uint64_t start,
				 uint64_t npages, unsigned perms,
				 const char *name, uint64_t inode,
				 enum exm_kind kind)
{
	struct exm_mapping *m = exm_proc_add_mapping(p);

	m->start = start;
	m->end = start + npages * PS;
	m->perms = perms;
	m->name = strdup(name);
	m->inode = inode;
	m->kind = kind;
	return m;
}

static void add(struct exm_mapping *m, uint64_t page, uint64_t w)
{
	cr_assert_eq(exm_mapping_add_page(m, m->start / PS + page, w), 0);
}

/*
 * A: anon rw-p [0x10000, 4 pages): pfn 100 (shared), pfn 101 (exclusive),
 *    swap entry (1, 7) shared with B, one page absent; file r--s 1 page at
 *    0x20000 mapping pfn 100 again (twice in one process).
 * B: anon pfn 100, swap (1, 7).   C: anon pfn 100.
 * maps(100) = 4, procs(100) = 3.
 */
static struct exm_snapshot *three_way(void)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_proc *p;
	struct exm_mapping *m;

	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE;
	p = mkproc(s, 10);
	m = mkmap(p, 0x10000, 4, EXM_PERM_R | EXM_PERM_W, "", 0, EXM_KIND_ANON);
	add(m, 0, PRESENT(100, 0));
	add(m, 1, PRESENT(101, EXM_PM_EXCLUSIVE));
	add(m, 2, SWAPW(1, 7));
	m = mkmap(p, 0x20000, 1, EXM_PERM_R | EXM_PERM_S, "/lib/x.so", 55,
		  EXM_KIND_FILE);
	add(m, 0, PRESENT(100, EXM_PM_FILE));
	p = mkproc(s, 20);
	m = mkmap(p, 0x10000, 2, EXM_PERM_R | EXM_PERM_W, "", 0, EXM_KIND_ANON);
	add(m, 0, PRESENT(100, 0));
	add(m, 1, SWAPW(1, 7));
	p = mkproc(s, 30);
	m = mkmap(p, 0x10000, 1, EXM_PERM_R | EXM_PERM_W, "", 0, EXM_KIND_ANON);
	add(m, 0, PRESENT(100, 0));
	cr_assert_eq(exm_snapshot_account(s), 0);
	return s;
}

Test(account, shared_three_ways_and_twice_in_one_process)
{
	struct exm_snapshot *s = three_way();
	const struct exm_proc *a = &s->procs[0], *b = &s->procs[1],
			      *c = &s->procs[2];

	cr_assert_eq(a->sz.vm, 5 * PS);
	cr_assert_eq(a->sz.rss, 3 * PS);
	cr_assert_float_eq(a->sz.erss, PS / 4.0 + PS + PS / 4.0, 1e-9);
	cr_assert_eq(a->sz.swap, PS);
	cr_assert_float_eq(a->sz.eswap, PS / 2.0, 1e-9);
	cr_assert_eq(a->sz.sole, PS); /* pfn 101 only; 100 has 3 procs */
	cr_assert_eq(a->sz.writable, PS);
	cr_assert_eq(exm_sizes_mapped(&a->sz), 4 * PS);
	cr_assert_float_eq(exm_sizes_emapped(&a->sz), 2.0 * PS, 1e-9);
	cr_assert_eq(b->sz.rss, PS);
	cr_assert_float_eq(b->sz.erss, PS / 4.0, 1e-9);
	cr_assert_float_eq(b->sz.eswap, PS / 2.0, 1e-9);
	cr_assert_eq(b->sz.sole, 0);
	cr_assert_eq(b->sz.writable, 0); /* not exclusive: CoW shared */
	cr_assert_float_eq(c->sz.erss, PS / 4.0, 1e-9);
	cr_assert_eq(s->distinct_pages, 2);
	cr_assert_eq(s->distinct_swap, 1);
	exm_snapshot_free(s);
}

/*
 * A counted mapping (pagemap read mode: pages mapped once, counts only)
 * beside page words: 3 resident pages and 2 swapped in a writable one, 1
 * resident in a read-only one of another process. Every page a whole
 * share, sole; writable where the mapping is; conserved with the
 * distinct counts; a range cutting the mapping knows only its VM.
 */
Test(account, counted_pages_are_whole_sole_and_conserved)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_proc *p;
	struct exm_mapping *m;
	struct exm_sizes r;
	double sum = 0, swsum = 0;

	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE;
	p = mkproc(s, 10);
	m = mkmap(p, 0x10000, 2, EXM_PERM_R | EXM_PERM_W, "", 0, EXM_KIND_ANON);
	add(m, 0, PRESENT(100, 0));
	m = mkmap(p, 0x100000, 1024, EXM_PERM_R | EXM_PERM_W, "", 0,
		  EXM_KIND_ANON);
	m->counted = true;
	m->counted_rss = 3 * PS;
	m->counted_swap = 2 * PS;
	p = mkproc(s, 20);
	m = mkmap(p, 0x10000, 1, EXM_PERM_R | EXM_PERM_W, "", 0, EXM_KIND_ANON);
	add(m, 0, PRESENT(100, 0));
	m = mkmap(p, 0x100000, 1024, EXM_PERM_R, "", 0, EXM_KIND_ANON);
	m->counted = true;
	m->counted_rss = PS;
	cr_assert_eq(exm_snapshot_account(s), 0);
	p = &s->procs[0];
	cr_assert_eq(p->maps[1].sz.rss, 3 * PS);
	cr_assert_float_eq(p->maps[1].sz.erss, 3.0 * PS, 1e-9);
	cr_assert_eq(p->maps[1].sz.sole, 3 * PS);
	cr_assert_eq(p->maps[1].sz.writable, 3 * PS);
	cr_assert_eq(p->maps[1].sz.swap, 2 * PS);
	cr_assert_float_eq(p->maps[1].sz.eswap, 2.0 * PS, 1e-9);
	cr_assert_eq(p->maps[1].sz.vm, 1024 * PS);
	cr_assert_eq(p->sz.rss, 4 * PS);
	cr_assert_float_eq(p->sz.erss, 3.0 * PS + PS / 2.0, 1e-9);
	cr_assert_eq(p->sz.sole, 3 * PS);
	cr_assert_eq(s->procs[1].maps[1].sz.writable, 0);
	cr_assert_eq(s->procs[1].maps[1].sz.sole, PS);
	cr_assert_eq(s->distinct_pages, 1 + 3 + 1);
	cr_assert_eq(s->distinct_swap, 2);
	for (size_t i = 0; i < s->nprocs; i++) {
		sum += s->procs[i].sz.erss;
		swsum += s->procs[i].sz.eswap;
	}
	cr_assert_float_eq(sum, (double)(s->distinct_pages * PS), 1e-6);
	cr_assert_float_eq(swsum, (double)(s->distinct_swap * PS), 1e-6);
	/* the whole mapping, alone or in a wider range: known */
	cr_assert_eq(exm_range_sizes(s, p, NULL, 0, UINT64_MAX / 2, &r), 0);
	cr_assert(r.has & EXM_HAS_RSS);
	cr_assert_eq(r.rss, 4 * PS);
	/* a range cutting it: only its VM */
	cr_assert_eq(exm_range_sizes(s, p, &p->maps[1], 0x100000, 0x100000 + PS,
				     &r),
		     0);
	cr_assert_eq(r.has, EXM_HAS_VM);
	cr_assert_eq(r.vm, PS);
	exm_snapshot_free(s);
}

Test(account, conservation)
{
	struct exm_snapshot *s = three_way();
	double sum = 0, swsum = 0;

	for (size_t i = 0; i < s->nprocs; i++) {
		sum += s->procs[i].sz.erss;
		swsum += s->procs[i].sz.eswap;
	}
	cr_assert_float_eq(sum, (double)(s->distinct_pages * PS), 1e-6);
	cr_assert_float_eq(swsum, (double)(s->distinct_swap * PS), 1e-6);
	cr_assert_float_eq(s->total.erss, (double)(s->distinct_pages * PS),
			   1e-6);
	exm_snapshot_free(s);
}

Test(account, conservation_many_odd_sharers)
{
	/* 97 processes; page k mapped by (k % 13) + 1 of them: divisions
	 * by 1..13 must still add up to whole pages. */
	struct exm_snapshot *s = exm_snapshot_new();
	double sum = 0;

	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN;
	for (int i = 0; i < 97; i++) {
		struct exm_proc *p = mkproc(s, 100 + i);
		struct exm_mapping *m = mkmap(p, 0x100000, 4096, EXM_PERM_R, "",
					      0, EXM_KIND_ANON);

		for (uint64_t k = 0; k < 4096; k++)
			if ((uint64_t)i <= k % 13)
				add(m, k, PRESENT(5000 + k, 0));
	}
	cr_assert_eq(exm_snapshot_account(s), 0);
	for (size_t i = 0; i < s->nprocs; i++)
		sum += s->procs[i].sz.erss;
	cr_assert_eq(s->distinct_pages, 4096);
	cr_assert(fabs(sum - 4096.0 * PS) < 1e-3, "sum %.6f", sum);
	exm_snapshot_free(s);
}

Test(account, byte_ranges_smaller_than_a_page)
{
	struct exm_snapshot *s = three_way();
	const struct exm_proc *a = &s->procs[0];
	struct exm_sizes z;

	/* 200 bytes inside pfn 100 (maps 4). */
	exm_range_sizes(s, a, NULL, 0x10000 + 100, 0x10000 + 300, &z);
	cr_assert_eq(z.vm, 200);
	cr_assert_eq(z.rss, 200);
	cr_assert_float_eq(z.erss, 50.0, 1e-9);
	cr_assert_eq(z.sole, 0);
	/* Straddling pages 0 and 1: 96 bytes each side. */
	exm_range_sizes(s, a, NULL, 0x11000 - 96, 0x11000 + 96, &z);
	cr_assert_eq(z.rss, 192);
	cr_assert_float_eq(z.erss, 24.0 + 96.0, 1e-9);
	cr_assert_eq(z.sole, 96);
	cr_assert_eq(z.writable, 96);
	/* 10 bytes of the swapped page. */
	exm_range_sizes(s, a, NULL, 0x12010, 0x1201a, &z);
	cr_assert_eq(z.rss, 0);
	cr_assert_eq(z.swap, 10);
	cr_assert_float_eq(z.eswap, 5.0, 1e-9);
	/* Across the gap between the two mappings: only mapped bytes. */
	exm_range_sizes(s, a, NULL, 0x13000, 0x21000, &z);
	cr_assert_eq(z.vm, 2 * PS);
	cr_assert_eq(z.rss, PS);
	cr_assert_float_eq(z.erss, PS / 4.0, 1e-9);
	/* Restricted to one mapping. */
	exm_range_sizes(s, a, &a->maps[1], 0, UINT64_MAX, &z);
	cr_assert_eq(z.vm, PS);
	cr_assert_eq(z.rss, PS);
	/* Sub-page ranges add up to the page. */
	{
		double e = 0;

		for (uint64_t off = 0; off < PS; off += 512) {
			exm_range_sizes(s, a, NULL, 0x10000 + off,
					0x10000 + off + 512, &z);
			e += z.erss;
		}
		cr_assert_float_eq(e, PS / 4.0, 1e-9);
	}
	exm_snapshot_free(s);
}

Test(account, files_within_and_across)
{
	struct exm_snapshot *s = three_way();
	const struct exm_file *anon = exm_snapshot_find_file(s, "[anon]");
	const struct exm_file *lib = exm_snapshot_find_file(s, "/lib/x.so");
	struct exm_row *rows;
	size_t n;

	cr_assert_not_null(anon);
	cr_assert_not_null(lib);
	cr_assert_eq(anon->nprocs, 3);
	cr_assert_eq(lib->nprocs, 1);
	cr_assert_eq(anon->sz.rss, 4 * PS);
	cr_assert_float_eq(anon->sz.erss, 3 * PS / 4.0 + PS, 1e-9);
	cr_assert_float_eq(lib->sz.erss, PS / 4.0, 1e-9);
	rows = exm_table_fprocs(s, anon, &n);
	cr_assert_eq(n, 3);
	free(rows);
	rows = exm_table_pfiles(s, &s->procs[0], &n);
	cr_assert_eq(n, 2);
	free(rows);
	rows = exm_table_mappings(s, &s->procs[0], lib, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(rows[0].addr, 0x20000);
	free(rows);
	exm_snapshot_free(s);
}

/* ---- pagemap decoder on a synthetic /proc tree ---- */

static void put_word(int fd, uint64_t vpn, uint64_t w)
{
	cr_assert_eq(pwrite(fd, &w, 8, (off_t)(vpn * 8)), 8);
}

/* Process pid in the fake /proc tree root: its stat (named comm), an
 * empty command line, cgroup "/" and maps; its directory into dir. */
static void fake_pid(const char *root, int pid, const char *comm,
		     const char *maps, char *dir, size_t len)
{
	char stat[200];

	snprintf(dir, len, "%s/%d", root, pid);
	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(stat, sizeof(stat),
		 "%d (%s) S 1 %d %d 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 "
		 "556 0 0\n",
		 pid, comm, pid, pid);
	put(dir, "stat", stat);
	put(dir, "cmdline", "");
	put(dir, "cgroup", "0::/\n");
	put(dir, "maps", maps);
}

/* File name of dir (pagemap, kpageflags) made empty, open for put_word. */
static int open_words(const char *dir, const char *name)
{
	char path[700];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0, "%s", path);
	return fd;
}

/* The pagemap source reading the fake tree root; name (len bytes) holds
 * its name, which the source keeps. */
static struct exm_source *fake_source(const char *root, char *name, size_t len)
{
	struct exm_source *src;
	char err[256];

	snprintf(name, len, "pagemap:%s", root);
	cr_assert_eq(exm_source_open(name, &src, err, sizeof(err)), 0, "%s",
		     err);
	return src;
}

static void rm_tree(const char *root)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

Test(pagemap, decoder_on_binary_fixture)
{
	char root[] = "/tmp/exm-fakeproc-XXXXXX", pid[600], path[700];
	struct exm_source *src;
	struct exm_snapshot *snap;
	struct exm_scan_opts opts = { .want_kpss = true,
				      .want_cmdline = true,
				      .want_cgroup = true };
	const struct exm_proc *p;
	char name[700];
	int fd;

	cr_assert_not_null(mkdtemp(root));
	snprintf(pid, sizeof(pid), "%s/4242", root);
	cr_assert_eq(mkdir(pid, 0755), 0);
	put(pid, "stat",
	    "4242 (fa ke) S 1 4242 4242 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 "
	    "1 0 555 0 0\n");
	{
		FILE *f;

		snprintf(path, sizeof(path), "%s/cmdline", pid);
		f = fopen(path, "w");
		cr_assert_not_null(f);
		fwrite("fake\0--flag\0", 1, 13, f);
		fclose(f);
	}
	put(pid, "cgroup", "0::/test.slice\n");
	put(pid, "maps",
	    "10000-14000 rw-p 00000000 00:00 0 \n"
	    "20000-22000 r--s 00000000 08:01 77 /data/x y\n");
	put(pid, "smaps_rollup", "Rss: 12 kB\nPss: 8 kB\n");
	fd = open_words(pid, "pagemap");
	put_word(fd, 0x10, PRESENT(0x1234, EXM_PM_EXCLUSIVE));
	put_word(fd, 0x11, SWAPW(3, 0x55));
	put_word(fd, 0x12, EXM_PM_SOFT_DIRTY); /* not present: ignored */
	put_word(fd, 0x13, PRESENT(0x999, 0));
	put_word(fd, 0x20, PRESENT(0x1234, EXM_PM_FILE)); /* same frame */
	put_word(fd, 0x21, PRESENT(0x777, EXM_PM_FILE | EXM_PM_EXCLUSIVE));
	close(fd);

	src = fake_source(root, name, sizeof(name));
	cr_assert_eq(exm_source_snapshot(src, &opts, &snap), 0);
	cr_assert_eq(snap->nprocs, 1);
	p = &snap->procs[0];
	cr_assert_str_eq(p->comm, "fa ke");
	cr_assert_str_eq(p->cmdline, "fake --flag");
	cr_assert_str_eq(p->cgroup, "/test.slice");
	cr_assert_eq(p->start_time, 555);
	cr_assert_eq(p->nmaps, 2);
	/* Anon mapping: pages 0x10, 0x11 then a hole then 0x13: 2 runs. */
	cr_assert_eq(p->maps[0].npages, 3);
	cr_assert_eq(p->maps[0].nruns, 2);
	cr_assert_eq(EXM_PM_SWAP_TYPE(exm_mapping_word(&p->maps[0], 1)), 3);
	cr_assert_eq(EXM_PM_SWAP_OFF(exm_mapping_word(&p->maps[0], 1)), 0x55);
	cr_assert_str_eq(p->maps[1].name, "/data/x y");
	cr_assert_eq(p->sz.vm, 6 * PS);
	cr_assert_eq(p->sz.rss, 4 * PS);
	cr_assert_eq(p->sz.swap, PS);
	cr_assert_float_eq(p->sz.erss, PS / 2.0 * 2 + PS * 2, 1e-9);
	/* frame 0x1234 is mapped twice: not sole, as in the kernel's USS */
	cr_assert_eq(p->sz.sole, 2 * PS);
	cr_assert_eq(p->sz.writable, PS); /* only the exclusive anon page */
	cr_assert_eq(p->kpss.pss, 8192);
	cr_assert_str_eq(snap->sys.source_detail, "chunked reads");
	cr_assert(snap->sys.caps & EXM_CAP_CGROUP);
	exm_snapshot_free(snap);
	/* the cgroup is read only when asked for, and the snapshot says so */
	opts.want_cgroup = false;
	cr_assert_eq(exm_source_snapshot(src, &opts, &snap), 0);
	cr_assert_eq(snap->nprocs, 1);
	cr_assert_str_eq(snap->procs[0].cgroup, "");
	cr_assert_str_eq(snap->procs[0].cmdline, "fake --flag");
	cr_assert_not(snap->sys.caps & EXM_CAP_CGROUP);
	exm_snapshot_free(snap);
	exm_source_close(src);
	rm_tree(root);
}

/* Two fake processes; the kernel's figures read only for the one asked. */
static void fake_proc(const char *root, int pid)
{
	char dir[600];

	fake_pid(root, pid, "p", "10000-11000 rw-p 00000000 00:00 0 \n", dir,
		 sizeof(dir));
	put(dir, "smaps_rollup", "Rss: 4 kB\nPss: 4 kB\n");
	put(dir, "pagemap", "");
}

Test(pagemap, kernel_figures_only_for_asked_pids)
{
	char root[] = "/tmp/exm-fakeproc-XXXXXX", name[600];
	pid_t want[] = { 11 };
	struct exm_scan_opts opts = { .want_kpss = true,
				      .kpss_pids = want,
				      .nkpss_pids = 1 };
	struct exm_source *src;
	struct exm_snapshot *snap;

	cr_assert_not_null(mkdtemp(root));
	fake_proc(root, 11);
	fake_proc(root, 12);
	src = fake_source(root, name, sizeof(name));
	cr_assert_eq(exm_source_snapshot(src, &opts, &snap), 0);
	cr_assert_eq(snap->nprocs, 2);
	cr_assert_eq(snap->procs[0].pid, 11);
	cr_assert(snap->pid_order, "a source's snapshot knows its order");
	cr_assert_eq(snap->procs[0].kpss.pss, 4096);
	cr_assert(snap->procs[0].kpss.has & EXM_KPSS_PSS);
	cr_assert_eq(snap->procs[1].kpss.has, 0);
	exm_snapshot_free(snap);
	exm_source_close(src);
	rm_tree(root);
}

/* Words are kept in 32 bits while they fit; a PFN past 2^28 or a swap key
 * past 2^30 moves the mapping to 64 bits without losing a word. */
Test(account, packed_words_widen_when_one_does_not_fit)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_proc *p = mkproc(s, 1);
	struct exm_mapping *m = mkmap(p, 0x100000, 8, EXM_PERM_R | EXM_PERM_W,
				      "", 0, EXM_KIND_ANON);
	uint64_t w[6] = {
		PRESENT(7, EXM_PM_EXCLUSIVE),
		PRESENT(8, EXM_PM_FILE),
		SWAPW(3, 0x55),
		0 /* absent: skipped */,
		PRESENT((1ull << 28) + 5, EXM_PM_EXCLUSIVE),
		PRESENT(9, 0),
	};

	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE;
	cr_assert_eq(exm_mapping_add_pages(m, 0x100, w, 3), 0);
	cr_assert_not_null(m->pages32);
	cr_assert_eq(exm_mapping_add_pages(m, 0x103, w + 3, 3), 0);
	cr_assert_null(m->pages32);
	cr_assert_eq(m->npages, 5);
	cr_assert_eq(m->nruns, 2); /* the absent page splits the runs */
	cr_assert_eq(exm_mapping_word(m, 0), w[0]);
	cr_assert_eq(exm_mapping_word(m, 1), w[1]);
	cr_assert_eq(exm_mapping_word(m, 2), w[2]);
	cr_assert_eq(exm_mapping_word(m, 3), w[4]);
	cr_assert_eq(exm_mapping_word(m, 4), w[5]);
	cr_assert_eq(exm_snapshot_account(s), 0);
	cr_assert_eq(m->sz.rss, 4 * PS);
	cr_assert_eq(m->sz.swap, PS);
	cr_assert_eq(m->sz.writable, 2 * PS); /* exclusive anon pages */
	cr_assert_eq(s->distinct_pages, 4);
	exm_snapshot_free(s);
}

/* Words added in pieces of random size, with random gaps, swap entries and
 * PFNs that do not pack, into heap or reserved store room, read back the
 * same (the bits packing keeps), run by run, at the same virtual pages
 * (against a plain record of every used word). */
Test(account, added_words_read_back_run_by_run)
{
	enum { N = 20000 };
	static uint64_t w[N], want[N], wvpn[N];
	unsigned seed = 12345;

	for (int round = 0; round < 24; round++) {
		struct exm_snapshot *s = exm_snapshot_new();
		struct exm_proc *p = mkproc(s, 1);
		struct exm_mapping *m = mkmap(p, 0x100000, N, EXM_PERM_R, "", 0,
					      EXM_KIND_ANON);
		uint32_t nused = 0, k = 0, got = 0;
		bool wide = round % 3 == 2, gaps = round % 2;

		for (uint32_t i = 0; i < N; i++) {
			unsigned r = (unsigned)rand_r(&seed);
			uint64_t pfn = (uint64_t)rand_r(&seed) % 100000 + 1;

			if (wide && i == N / 2)
				w[i] = PRESENT((1ull << 28) + pfn, 0);
			else if (gaps && r % 7 < 3)
				w[i] = r % 2 ? EXM_PM_SOFT_DIRTY : 0;
			else if (r % 97 == 0)
				w[i] = SWAPW(r % 4, pfn);
			else
				w[i] = PRESENT(pfn,
					       (r & 8 ? EXM_PM_EXCLUSIVE : 0) |
						       (r & 16 ? EXM_PM_FILE
							       : 0));
			if (exm_pm_used(w[i])) {
				want[nused] = w[i];
				wvpn[nused++] = 0x100 + i;
			}
		}
		if (round % 4 < 2)
			cr_assert_eq(exm_mapping_reserve_store(s, m, nused), 0);
		while (k < N) {
			uint32_t piece = (uint32_t)rand_r(&seed) % 3000 + 1;

			if (piece > N - k)
				piece = N - k;
			cr_assert_eq(exm_mapping_add_pages(m, 0x100 + k, w + k,
							   piece),
				     0);
			k += piece;
		}
		cr_assert_eq(m->npages, nused);
		cr_assert_eq(m->pages32 == NULL, wide);
		for (uint32_t r = 0; r < m->nruns; r++) {
			const struct exm_run *run = &m->runs[r];

			cr_assert_gt(run->count, 0);
			cr_assert_eq(run->idx, got);
			for (uint32_t j = 0; j < run->count; j++, got++) {
				uint64_t e = want[got];
				uint64_t x = exm_mapping_word(m, run->idx + j);

				cr_assert_eq(run->vpn + j, wvpn[got]);
				cr_assert_eq(
					x, e,
					"round %d word %u: %#llx, not %#llx",
					round, got, (unsigned long long)x,
					(unsigned long long)e);
			}
			/* runs are maximal: the next one starts after a gap */
			if (r + 1 < m->nruns)
				cr_assert_neq(run->vpn + run->count,
					      m->runs[r + 1].vpn);
		}
		cr_assert_eq(got, nused);
		exm_snapshot_free(s);
	}
}

/* Two mappings of n pages of kind, one after the other, of a new process
 * of s. */
static void two_maps(struct exm_snapshot *s, uint32_t n, enum exm_kind kind,
		     struct exm_mapping **a, struct exm_mapping **b)
{
	struct exm_proc *p = mkproc(s, 1);

	mkmap(p, 0x100000, n, EXM_PERM_R, "", 0, kind);
	*b = mkmap(p, 0x100000 + (uint64_t)n * PS, n, EXM_PERM_R, "", 0, kind);
	*a = &p->maps[0]; /* mkmap may have moved it */
}

/* a and b store the same nused words, in the same runs, the same width */
static void same_store(const struct exm_mapping *a, const struct exm_mapping *b,
		       uint32_t nused, int round)
{
	cr_assert_eq(a->npages, nused);
	cr_assert_eq(b->npages, nused);
	cr_assert_eq(a->pages32 == NULL, b->pages32 == NULL);
	cr_assert_eq(a->nruns, b->nruns);
	for (uint32_t r = 0; r < a->nruns; r++) {
		cr_assert_eq(a->runs[r].vpn, b->runs[r].vpn);
		cr_assert_eq(a->runs[r].count, b->runs[r].count);
		cr_assert_eq(a->runs[r].idx, b->runs[r].idx);
	}
	for (uint32_t i = 0; i < nused; i++)
		cr_assert_eq(exm_mapping_word(a, i), exm_mapping_word(b, i),
			     "round %d word %u", round, i);
}

/* Runs of words (consecutive frames or swap offsets) added whole store
 * exactly what the same words added one by one store: packed or wide,
 * into heap or reserved room, across a frame that does not pack. */
Test(account, runs_store_what_their_words_store)
{
	enum { N = 12000 };
	static uint64_t w[N];
	unsigned seed = 777;

	for (int round = 0; round < 12; round++) {
		struct exm_snapshot *s = exm_snapshot_new();
		struct exm_mapping *a, *b;
		uint32_t k = 0, nused = 0;

		two_maps(s, N, EXM_KIND_ANON, &a, &b);
		while (k < N) {
			unsigned r = (unsigned)rand_r(&seed);
			uint32_t n = r % 600 + 1, i;
			uint64_t pfn = (uint64_t)rand_r(&seed) % 100000 + 1,
				 word, step = 1;

			if (n > N - k)
				n = N - k;
			if (r % 11 == 0) {
				word = 0; /* a hole */
			} else if (r % 5 == 0) {
				word = SWAPW(r % 4, pfn);
				step = 1u << 5;
			} else {
				if (round % 3 == 2 && r % 13 == 0)
					pfn = (1ull << 28) -
					      n / 2; /* ends wide */
				word = PRESENT(pfn,
					       (r & 8 ? EXM_PM_EXCLUSIVE : 0) |
						       (r & 16 ? EXM_PM_FILE
							       : 0));
			}
			for (i = 0; i < n; i++)
				w[k + i] = word ? word + i * step : 0;
			if (word)
				nused += n;
			if (round % 4 == 1 && !k) {
				/* reserved room, as a source that knows
				 * its count gives: both alike */
				cr_assert_eq(exm_mapping_reserve_store(s, a, N),
					     0);
				cr_assert_eq(exm_mapping_reserve_store(s, b, N),
					     0);
			}
			cr_assert_eq(exm_mapping_add_pages(a, 0x100 + k, w + k,
							   n),
				     0);
			cr_assert_eq(exm_mapping_add_run(b, 0x100 + k, word,
							 step, n),
				     0);
			k += n;
		}
		same_store(a, b, nused, round);
		exm_snapshot_free(s);
	}
}

/* Pages added from frame numbers (plus one, as source_pagemap.c learns
 * them) store exactly what their words added as words store: packed or
 * wide, into heap or reserved room, with frames at and past what packs
 * (2^28 - 1, 2^28, 2^28 + 1), scattered or consecutive. */
Test(account, frames_store_what_their_words_store)
{
	enum { N = 9000 };
	static uint64_t w[N];
	static uint32_t f1[N];
	unsigned seed = 4242;

	for (int round = 0; round < 16; round++) {
		struct exm_snapshot *s = exm_snapshot_new();
		struct exm_mapping *a, *b;
		uint64_t flags = EXM_PM_PRESENT |
				 (round & 1 ? EXM_PM_FILE : 0) |
				 (round & 2 ? EXM_PM_EXCLUSIVE : 0);
		uint32_t k = 0;

		two_maps(s, N, EXM_KIND_SHMEM, &a, &b);
		for (uint32_t i = 0; i < N; i++) {
			uint64_t pfn = (uint64_t)rand_r(&seed) % 100000;

			if (round % 4 == 3 && i == (uint32_t)(N / 3 + round))
				pfn = EXM_PC_PFN_MAX + (uint64_t)(round % 3);
			if (round % 8 == 5)
				pfn = 1000 + i; /* consecutive */
			f1[i] = (uint32_t)pfn + 1;
			w[i] = flags | pfn;
		}
		if (round % 4 == 1) {
			cr_assert_eq(exm_mapping_reserve_store(s, a, N), 0);
			cr_assert_eq(exm_mapping_reserve_store(s, b, N), 0);
		}
		while (k < N) {
			uint32_t n = (uint32_t)rand_r(&seed) % 700 + 1;

			if (n > N - k)
				n = N - k;
			/* a gap of one page between pieces, now and then */
			cr_assert_eq(exm_mapping_add_pages(a,
							   0x100 + k + k / 2000,
							   w + k, n),
				     0);
			cr_assert_eq(exm_mapping_add_frames(b,
							    0x100 + k +
								    k / 2000,
							    f1 + k, n, flags),
				     0);
			k += n;
		}
		same_store(a, b, N, round);
		exm_snapshot_free(s);
	}
}

/* The accounting threads give the very same figures as one thread. */
Test(account, threads_change_nothing)
{
	struct exm_snapshot *snap[2];

	for (int k = 0; k < 2; k++) {
		struct exm_snapshot *s = exm_snapshot_new();

		setenv("EXMTOP_THREADS", k ? "4" : "1", 1);
		s->sys.page_size = PS;
		s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN;
		for (int i = 0; i < 40; i++) {
			struct exm_proc *p = mkproc(s, 100 + i);
			struct exm_mapping *m = mkmap(p, 0x100000, 2048,
						      EXM_PERM_R, "", 0,
						      EXM_KIND_ANON);

			for (uint64_t j = 0; j < 2048; j++)
				if ((j + (uint64_t)i) % 5)
					add(m, j,
					    PRESENT((j * 131 +
						     (uint64_t)i * (j % 4)) %
							    300000,
						    0));
		}
		cr_assert_eq(exm_snapshot_account(s), 0);
		snap[k] = s;
	}
	unsetenv("EXMTOP_THREADS");
	cr_assert_eq(snap[0]->distinct_pages, snap[1]->distinct_pages);
	for (size_t i = 0; i < snap[0]->nprocs; i++) {
		const struct exm_sizes *a = &snap[0]->procs[i].sz;
		const struct exm_sizes *b = &snap[1]->procs[i].sz;

		cr_assert_eq(a->rss, b->rss);
		cr_assert_eq(a->sole, b->sole);
		cr_assert(a->erss == b->erss, "pid %d: %.9f vs %.9f",
			  snap[0]->procs[i].pid, a->erss, b->erss);
	}
	exm_snapshot_free(snap[0]);
	exm_snapshot_free(snap[1]);
}

/* Mappings with the very same words are counted once times their copies
 * and sized once: their figures must be what each would get alone. */
Test(account, identical_mappings)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_mapping *a[3], *c[2];
	unsigned rw = EXM_PERM_R | EXM_PERM_W;

	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE;
	a[0] = mkmap(mkproc(s, 1), 0x100000, 3, rw, "", 0, EXM_KIND_ANON);
	a[1] = mkmap(mkproc(s, 2), 0x200000, 5, rw, "", 0, EXM_KIND_ANON);
	a[2] = mkmap(mkproc(s, 3), 0x100000, 3, EXM_PERM_R, "", 0,
		     EXM_KIND_ANON);
	{
		struct exm_proc *p4 = mkproc(s, 4);

		mkmap(p4, 0x100000, 2, EXM_PERM_R | EXM_PERM_S, "/f", 9,
		      EXM_KIND_FILE);
		mkmap(p4, 0x300000, 2, EXM_PERM_R | EXM_PERM_S, "/f", 9,
		      EXM_KIND_FILE);
		/* the second may have moved the first */
		c[0] = &p4->maps[0];
		c[1] = &p4->maps[1];
	}
	for (int k = 0; k < 3; k++)
		for (uint64_t j = 0; j < 3; j++)
			add(a[k], j, PRESENT(10 + j, EXM_PM_EXCLUSIVE));
	for (int k = 0; k < 2; k++)
		for (uint64_t j = 0; j < 2; j++)
			add(c[k], j, PRESENT(50 + j, EXM_PM_FILE));
	cr_assert_eq(exm_snapshot_account(s), 0);
	for (int k = 0; k < 3; k++) {
		cr_assert_eq(a[k]->sz.rss, 3 * PS);
		cr_assert_float_eq(a[k]->sz.erss, (double)PS, 1e-9);
		cr_assert_eq(a[k]->sz.sole, 0);
		cr_assert_eq(a[k]->sz.writable, k < 2 ? 3 * PS : 0);
		cr_assert_eq(a[k]->sz.vm, (k == 1 ? 5 : 3) * PS);
	}
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(c[k]->sz.rss, 2 * PS);
		cr_assert_float_eq(c[k]->sz.erss, (double)PS, 1e-9);
		/* one process, twice: mapped twice, not sole (USS) */
		cr_assert_eq(c[k]->sz.sole, 0);
	}
	cr_assert_eq(s->distinct_pages, 5);
	cr_assert_float_eq(s->total.erss, 5.0 * PS, 1e-6);
	exm_snapshot_free(s);
}

/* A snapshot of n processes (pids 10 on) mapping 64 anonymous pages each
 * at 0x100000, their mappings in m[]. */
static struct exm_snapshot *anon_procs(struct exm_mapping **m, int n)
{
	struct exm_snapshot *s = exm_snapshot_new();

	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN;
	for (int i = 0; i < n; i++)
		m[i] = mkmap(mkproc(s, 10 + i), 0x100000, 64,
			     EXM_PERM_R | EXM_PERM_W, "", 0, EXM_KIND_ANON);
	return s;
}

/* A mapping whose words equal an earlier one's takes its array: its own
 * room goes back to the page store (the next reservation gets it), its
 * own heap array is freed, and every figure is as with two copies. */
Test(account, shared_words_give_their_room_back)
{
	struct exm_mapping *m[4];
	struct exm_snapshot *s = anon_procs(m, 4);
	uint64_t w[64];
	uint32_t *given;
	for (uint64_t k = 0; k < 64; k++)
		w[k] = PRESENT(7000 + k, 0);
	/* 0 and 1 in the store, 3 on the heap: all three the same words */
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(exm_mapping_reserve_store(s, m[i], 64), 0);
		cr_assert_eq(exm_mapping_add_pages(m[i], 0x100, w, 64), 0);
	}
	cr_assert_eq(exm_mapping_add_pages(m[3], 0x100, w, 64), 0);
	cr_assert(!m[3]->pages_borrowed);
	cr_assert(exm_mapping_same_words(m[0], m[1]));
	cr_assert(exm_mapping_same_words(m[0], m[3]));
	given = m[1]->pages32;
	cr_assert_neq(given, m[0]->pages32);
	exm_mapping_share_words(s, m[1], m[0]);
	exm_mapping_share_words(s, m[3], m[0]);
	cr_assert_eq(m[1]->pages32, m[0]->pages32);
	cr_assert_eq(m[3]->pages32, m[0]->pages32);
	cr_assert_eq(m[1]->npages, 64);
	/* 1's room was the store's last: 2 gets it */
	cr_assert_eq(exm_mapping_reserve_store(s, m[2], 64), 0);
	cr_assert_eq(m[2]->pages32, given);
	for (uint64_t k = 0; k < 64; k++)
		w[k] = PRESENT(9000 + k, 0);
	cr_assert_eq(exm_mapping_add_pages(m[2], 0x100, w, 64), 0);
	for (uint32_t k = 0; k < 64; k++) {
		cr_assert_eq(exm_mapping_word(m[1], k), PRESENT(7000 + k, 0));
		cr_assert_eq(exm_mapping_word(m[2], k), PRESENT(9000 + k, 0));
	}
	cr_assert_eq(exm_snapshot_account(s), 0);
	for (int i = 0; i < 4; i++) {
		const struct exm_sizes *z = &s->procs[i].sz;

		cr_assert_eq(z->rss, 64 * PS);
		cr_assert_float_eq(z->erss, i == 2 ? 64.0 * PS : 64.0 * PS / 3,
				   1e-6, "process %d: %.6f", i, z->erss);
		cr_assert_eq(z->sole, i == 2 ? 64 * PS : 0);
	}
	cr_assert_eq(s->distinct_pages, 128);
	exm_snapshot_free(s);
}

/* A reservation that was only a bound (source_pagemap's read_dense: the
 * process's resident pages): fewer words came, the rest goes back to the
 * store (the next reservation starts right after them); more came, they
 * move to the heap, all of them kept. */
Test(account, bound_reservations_trimmed_or_grown)
{
	struct exm_mapping *m[3];
	struct exm_snapshot *s = anon_procs(m, 3);
	uint64_t w[64];
	for (uint64_t k = 0; k < 64; k++)
		w[k] = k % 3 ? PRESENT(7000 + k, 0) : 0; /* 42 used */
	cr_assert_eq(exm_mapping_reserve_store(s, m[0], 64), 0);
	cr_assert_eq(exm_mapping_add_pages(m[0], 0x100, w, 64), 0);
	cr_assert_eq(m[0]->npages, 42);
	exm_mapping_trim_store(s, m[0]);
	cr_assert_eq(m[0]->cap_pages, 42);
	cr_assert(m[0]->pages_borrowed);
	/* 21 words of 64 bits hold 42 packed: the next room follows */
	cr_assert_eq(exm_mapping_reserve_store(s, m[1], 10), 0);
	cr_assert_eq(m[1]->pages32, m[0]->pages32 + 42);
	for (uint64_t k = 0; k < 64; k++)
		w[k] = PRESENT(9000 + k, 0);
	cr_assert_eq(exm_mapping_add_pages(m[1], 0x100, w, 64), 0);
	cr_assert_eq(m[1]->npages, 64);
	cr_assert(!m[1]->pages_borrowed);
	exm_mapping_trim_store(s, m[1]); /* on the heap: nothing to give */
	cr_assert_eq(exm_mapping_reserve_store(s, m[2], 8), 0);
	cr_assert_eq(exm_mapping_add_pages(m[2], 0x100, w, 8), 0);
	for (uint32_t k = 0; k < 42; k++)
		cr_assert_eq(exm_mapping_word(m[0], k),
			     PRESENT(7000 + k / 2 * 3 + 1 + k % 2, 0));
	for (uint32_t k = 0; k < 64; k++)
		cr_assert_eq(exm_mapping_word(m[1], k), PRESENT(9000 + k, 0));
	cr_assert_eq(exm_snapshot_account(s), 0);
	cr_assert_eq(s->procs[0].sz.rss, 42 * PS);
	cr_assert_eq(s->procs[1].sz.rss, 64 * PS);
	exm_snapshot_free(s);
}

/* Runs kept in the store (a live refresh's kept processes): nothing of
 * theirs is freed one by one (ASan: no free of store memory), and a run
 * added after moves them to the heap, the earlier ones kept. */
Test(account, runs_in_the_store)
{
	struct exm_mapping *m;
	struct exm_snapshot *s = anon_procs(&m, 1);
	struct exm_run runs[2] = { { .vpn = 0x100, .count = 4, .idx = 0 },
				   { .vpn = 0x110, .count = 4, .idx = 4 } };
	uint64_t w[8];

	for (uint64_t k = 0; k < 8; k++)
		w[k] = PRESENT(5000 + k, 0);
	cr_assert_eq(exm_mapping_reserve_store(s, m, 8), 0);
	cr_assert_eq(exm_mapping_store_runs(s, m, runs, 2), 0);
	cr_assert(m->runs_borrowed);
	cr_assert_eq(exm_mapping_store_runs(s, m, runs, 2), -EINVAL);
	for (uint32_t k = 0; k < 8; k++)
		cr_assert(exm_pm_pack(w[k], &m->pages32[k]));
	m->npages = 8;
	w[0] = PRESENT(6000, 0);
	cr_assert_eq(exm_mapping_add_pages(m, 0x120, w, 1), 0);
	cr_assert(!m->runs_borrowed);
	cr_assert_eq(m->nruns, 3);
	cr_assert_eq(m->runs[1].vpn, 0x110);
	cr_assert_eq(m->runs[2].vpn, 0x120);
	cr_assert_eq(exm_mapping_word(m, 8), PRESENT(6000, 0));
	cr_assert_eq(exm_snapshot_account(s), 0);
	cr_assert_eq(s->procs[0].sz.rss, 9 * PS);
	exm_snapshot_drop_pages(s);
	cr_assert_null(m->runs);
	exm_snapshot_free(s);
}

/* Mappings that agree on every sampled word but not elsewhere are not
 * taken for twins, however many there are; real twins still are. */
Test(account, twins_by_content_not_by_samples)
{
	struct exm_snapshot *s = exm_snapshot_new();

	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN;
	for (int i = 0; i < 80; i++) {
		struct exm_mapping *m = mkmap(mkproc(s, 100 + i), 0x100000, 64,
					      EXM_PERM_R, "", 0, EXM_KIND_ANON);
		int src = i < 40 ? i : 0; /* 40..79: copies of process 0 */

		for (uint64_t k = 0; k < 64; k++)
			add(m, k,
			    PRESENT(k % 4 == 0 ? 1000 + k
					       : 5000 + (uint64_t)src * 64 + k,
				    0));
	}
	cr_assert_eq(exm_snapshot_account(s), 0);
	for (int i = 0; i < 80; i++) {
		const struct exm_sizes *z = &s->procs[i].sz;
		/* 16 sampled pages: all 80; the other 48: one process, or
		 * process 0 and its 40 copies */
		double own = (i == 0 || i >= 40) ? 48.0 * PS / 41 : 48.0 * PS;

		cr_assert_float_eq(z->erss, 16.0 * PS / 80 + own, 1e-6,
				   "process %d: %.6f", i, z->erss);
		cr_assert_eq(z->sole, (i == 0 || i >= 40) ? 0 : 48 * PS);
	}
	cr_assert_eq(s->distinct_pages, 16 + 40 * 48);
	exm_snapshot_free(s);
}

/* Every flag accounting reads survives packing; the limits are exact. */
Test(pagemap, pack_round_trip)
{
	const uint64_t flags[] = { EXM_PM_EXCLUSIVE, EXM_PM_FILE,
				   EXM_PM_WRITABLE };
	uint32_t c;

	for (unsigned f = 0; f < 8; f++)
		for (uint64_t pfn = 0; pfn <= EXM_PC_PFN_MAX;
		     pfn = pfn * 3 + 1) {
			uint64_t w = EXM_PM_PRESENT | pfn;

			for (unsigned b = 0; b < 3; b++)
				if (f & (1u << b))
					w |= flags[b];
			cr_assert(exm_pm_pack(w | EXM_PM_SOFT_DIRTY, &c));
			cr_assert_eq(exm_pm_unpack(c), w, "%#llx",
				     (unsigned long long)w);
		}
	cr_assert(exm_pm_pack(EXM_PM_PRESENT | EXM_PC_PFN_MAX, &c));
	cr_assert(!exm_pm_pack(EXM_PM_PRESENT | (EXM_PC_PFN_MAX + 1ull), &c));
	cr_assert(exm_pm_pack(SWAPW(31, EXM_PC_SWAP_MAX >> 5), &c));
	cr_assert_eq(exm_pm_unpack(c), SWAPW(31, EXM_PC_SWAP_MAX >> 5));
	cr_assert(!exm_pm_pack(SWAPW(0, (EXM_PC_SWAP_MAX >> 5) + 1), &c));
}

/* Plain reads of a process with a big mapping: smaps says which mappings
 * hold pages and empty ones are not read (a word planted in one that
 * smaps calls empty is not seen, which shows it was not read), but for a
 * private anonymous one, readable or not (PROT_NONE keeps the zero pages
 * a mapping read before), which may map the zero page (smaps
 * never counts it: 1 GiB read), unless it is over 4 GiB and the kernel
 * has no PAGEMAP_SCAN (8 GiB unread: reading every page of terabytes
 * would cost seconds); a forced PAGEMAP_SCAN where the ioctl does not
 * work is a clear error. */
Test(pagemap, reads_skip_what_smaps_calls_empty)
{
	char root[] = "/tmp/exm-fakeproc-XXXXXX", pid[600];
	struct exm_source *src;
	struct exm_snapshot *snap = NULL;
	struct exm_scan_opts opts = { .knob = EXM_PMODE_READ };
	char name[700];
	const struct exm_proc *p;
	int fd;

	cr_assert_not_null(mkdtemp(root));
	fake_pid(root, 4243, "big",
		 "10000-12000 rw-p 00000000 00:00 0 \n"
		 "40000000-80000000 rw-p 00000000 00:00 0 \n"
		 "100000000-140000000 r--p 00000000 08:01 77 /data.bin\n"
		 "200000000-201000000 r--p 00000000 00:00 0 \n"
		 "300000000-340000000 r--p 00000000 00:00 0 \n"
		 "400000000-600000000 r--p 00000000 00:00 0 \n"
		 "700000000-740000000 ---p 00000000 00:00 0 \n",
		 pid, sizeof(pid));
	put(pid, "smaps",
	    "10000-12000 rw-p 00000000 00:00 0 \n"
	    "Rss:                   8 kB\nSwap:                  0 kB\n"
	    "40000000-80000000 rw-p 00000000 00:00 0 \n"
	    "Rss:                   0 kB\nSwap:                  4 kB\n"
	    "100000000-140000000 r--p 00000000 08:01 77 /data.bin\n"
	    "Rss:                   0 kB\nSwap:                  0 kB\n"
	    "200000000-201000000 r--p 00000000 00:00 0 \n"
	    "Rss:                   0 kB\nSwap:                  0 kB\n"
	    "VmFlags: rd mr mw me ac\n"
	    "300000000-340000000 r--p 00000000 00:00 0 \n"
	    "Rss:                   0 kB\nSwap:                  0 kB\n"
	    "VmFlags: rd mr mw me ac\n"
	    "400000000-600000000 r--p 00000000 00:00 0 \n"
	    "Rss:                   0 kB\nSwap:                  0 kB\n"
	    "VmFlags: rd mr mw me ac\n"
	    "700000000-740000000 ---p 00000000 00:00 0 \n"
	    "Rss:                   0 kB\nSwap:                  0 kB\n");
	fd = open_words(pid, "pagemap");
	put_word(fd, 0x10, PRESENT(0x100, EXM_PM_EXCLUSIVE));
	put_word(fd, 0x11, PRESENT(0x101, EXM_PM_EXCLUSIVE));
	put_word(fd, 0x40000 + 9, SWAPW(1, 0x42));
	put_word(fd, 0x100000 + 7, PRESENT(0x102, 0)); /* "empty": unread */
	put_word(fd, 0x200000 + 5, PRESENT(0x103, 0)); /* read: zero page? */
	put_word(fd, 0x300000 + 3, PRESENT(0x104, 0)); /* 1 GiB: read */
	put_word(fd, 0x400000 + 2, PRESENT(0x105, 0)); /* 8 GiB: unread */
	put_word(fd, 0x700000 + 1, PRESENT(0x106, 0)); /* PROT_NONE: read */
	close(fd);

	src = fake_source(root, name, sizeof(name));
	cr_assert_eq(exm_source_snapshot(src, &opts, &snap), 0);
	p = &snap->procs[0];
	cr_assert_eq(p->nmaps, 7);
	cr_assert_eq(p->maps[0].npages, 2);
	cr_assert_eq(p->maps[1].npages, 1);
	cr_assert_eq(p->maps[2].npages, 0);
	cr_assert_eq(p->maps[3].npages, 1);
	cr_assert_eq(p->maps[4].npages, 1);
	cr_assert_eq(p->maps[5].npages, 0);
	cr_assert_eq(p->maps[6].npages, 1);
	cr_assert_eq(p->sz.rss, 5 * PS);
	cr_assert_eq(p->sz.swap, PS);
	exm_snapshot_free(snap);

	opts.knob = EXM_PMODE_SCAN; /* PAGEMAP_SCAN on plain files: ENOTTY */
	snap = NULL;
	cr_assert_eq(exm_source_snapshot(src, &opts, &snap), -EOPNOTSUPP);
	cr_assert_null(snap);
	cr_assert(strstr(src->errmsg, "PAGEMAP_SCAN"), "%s", src->errmsg);
	exm_source_close(src);
	rm_tree(root);
}

/*
 * Zero pages and hugetlb pages (issue 24). A: anon rw-p, 3 pages: the zero
 * page twice (one frame, EXM_PM_ZERO) and pfn 200 exclusive; a hugetlb
 * mapping of 2 pages (pfns 0x400, 0x401) shared with B. B: the same
 * hugetlb pages, and the zero page once. Zero pages are in zero only;
 * hugetlb pages in hugetlb and ehugetlb, counted among their own mappers,
 * not in resident, effective resident, sole or the distinct pages.
 */
Test(account, zero_and_hugetlb_pages_are_not_resident)
{
	struct exm_snapshot *s = exm_snapshot_new();
	const uint64_t z = EXM_PM_ZERO | EXM_PM_PRESENT | 0x2a00;
	struct exm_proc *p;
	struct exm_mapping *m;

	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE;
	p = mkproc(s, 10);
	m = mkmap(p, 0x10000, 3, EXM_PERM_R | EXM_PERM_W, "", 0, EXM_KIND_ANON);
	add(m, 0, z);
	add(m, 1, z);
	add(m, 2, PRESENT(200, EXM_PM_EXCLUSIVE));
	m = mkmap(p, 0x200000, 2, EXM_PERM_R | EXM_PERM_W | EXM_PERM_S,
		  "/memfd:h", 9, EXM_KIND_SHMEM);
	m->hugetlb = true;
	m->kpage_size = 2u << 20;
	add(m, 0, PRESENT(0x400, EXM_PM_FILE));
	add(m, 1, PRESENT(0x401, EXM_PM_FILE));
	p = mkproc(s, 20);
	m = mkmap(p, 0x200000, 2, EXM_PERM_R | EXM_PERM_S, "/memfd:h", 9,
		  EXM_KIND_SHMEM);
	m->hugetlb = true;
	m->kpage_size = 2u << 20;
	add(m, 0, PRESENT(0x400, EXM_PM_FILE));
	add(m, 1, PRESENT(0x401, EXM_PM_FILE));
	m = mkmap(p, 0x10000, 1, EXM_PERM_R, "", 0, EXM_KIND_ANON);
	add(m, 0, z);
	cr_assert_eq(exm_snapshot_account(s), 0);

	p = &s->procs[0];
	cr_assert_eq(p->sz.rss, PS);
	cr_assert_eq(p->sz.erss, (double)PS);
	cr_assert_eq(p->sz.sole, PS);
	cr_assert_eq(p->sz.writable, PS);
	cr_assert_eq(p->sz.zero, 2 * PS);
	cr_assert_eq(p->sz.hugetlb, 2 * PS);
	cr_assert_eq(p->sz.ehugetlb, (double)PS);
	cr_assert(p->sz.has & EXM_HAS_ZERO && p->sz.has & EXM_HAS_EHUGETLB);
	p = &s->procs[1];
	cr_assert_eq(p->sz.rss, 0);
	cr_assert_eq(p->sz.erss, 0.0);
	cr_assert_eq(p->sz.zero, PS);
	cr_assert_eq(p->sz.hugetlb, 2 * PS);
	cr_assert_eq(p->sz.ehugetlb, (double)PS);
	/* conservation, each kind apart */
	cr_assert_eq(s->distinct_pages, 1);
	cr_assert_eq(s->distinct_hugetlb, 2);
	cr_assert_eq(s->total.erss, (double)(s->distinct_pages * PS));
	cr_assert_eq(s->total.ehugetlb, (double)(s->distinct_hugetlb * PS));
	exm_snapshot_free(s);
}

/*
 * What the frames say, from a /proc tree's kpageflags: a file mapping
 * aligned to 2 MiB whose first frame is a hugetlb page (KPF_HUGE) is a
 * hugetlb mapping of 2 MiB pages (the frame 2 MiB on is no tail of it);
 * in an anonymous mapping, 512 frames from an aligned one that is the huge
 * zero page (KPF_ZERO_PAGE), at an aligned address, are zero pages, and
 * an exclusive transparent huge page after them is resident.
 */
Test(pagemap, kinds_from_kpageflags)
{
	char root[] = "/tmp/exm-fakeproc-XXXXXX", pid[600];
	struct exm_scan_opts opts = { .knob = EXM_PMODE_READ };
	struct exm_snapshot *snap = NULL;
	const struct exm_proc *p;
	struct exm_source *src;
	char name[700];
	uint64_t f;
	int fd;

	cr_assert_not_null(mkdtemp(root));
	fake_pid(root, 4250, "kinds",
		 "200000-600000 rw-s 00000000 00:10 77 /anon_hugepage (deleted)\n"
		 "800000-c00000 rw-p 00000000 00:00 0 \n",
		 pid, sizeof(pid));
	fd = open_words(pid, "pagemap");
	for (uint64_t k = 0; k < 1024; k++) {
		put_word(fd, 0x200 + k, PRESENT(0x10000 + k, EXM_PM_FILE));
		put_word(fd, 0x800 + k,
			 k < 512 ? PRESENT(0x20000 + k, EXM_PM_FILE)
				 : PRESENT(0x30000 + k - 512,
					   EXM_PM_EXCLUSIVE));
	}
	close(fd);
	fd = open_words(root, "kpageflags");
	f = 1ull << 17 | 1ull << 15; /* KPF_HUGE, KPF_COMPOUND_HEAD */
	put_word(fd, 0x10000, f);
	put_word(fd, 0x10200, f);
	f = 1ull << 24 | 1ull << 22 | 1ull << 15; /* ZERO_PAGE, THP, HEAD */
	put_word(fd, 0x20000, f);
	put_word(fd, 0x30000, 1ull << 22 | 1ull << 15);
	put_word(fd, 0x40000, 0);
	close(fd);

	src = fake_source(root, name, sizeof(name));
	cr_assert_eq(exm_source_snapshot(src, &opts, &snap), 0);
	p = &snap->procs[0];
	cr_assert_eq(p->nmaps, 2);
	cr_assert(p->maps[0].hugetlb);
	cr_assert_eq(p->maps[0].kpage_size, 2u << 20);
	cr_assert_eq(p->maps[0].sz.hugetlb, 4u << 20);
	cr_assert_eq(p->maps[0].sz.rss, 0);
	cr_assert(!p->maps[1].hugetlb);
	cr_assert_eq(p->maps[1].sz.zero, 2u << 20);
	cr_assert_eq(p->maps[1].sz.rss, 2u << 20);
	cr_assert_eq(p->sz.rss, 2u << 20);
	cr_assert_eq(snap->distinct_pages, 512);
	cr_assert_eq(snap->distinct_hugetlb, 1024);
	exm_snapshot_free(snap);
	exm_source_close(src);
	rm_tree(root);
}

/*
 * The swap-cache frames the processes map are counted (a pass over every
 * frame and kpageflags) only when a scan asks (want_swapcache: the system
 * view's swap-cache row, a recording); otherwise the row stays unknown.
 */
Test(pagemap, swapcache_counted_only_when_asked)
{
	char root[] = "/tmp/exm-fakeproc-XXXXXX", pid[600];
	struct exm_scan_opts opts = { .knob = EXM_PMODE_READ };
	struct exm_snapshot *snap = NULL;
	struct exm_source *src;
	char name[700];
	uint64_t kb = 0; /* bytes */
	int fd;

	cr_assert_not_null(mkdtemp(root));
	put(root, "meminfo",
	    "MemTotal:        1000000 kB\n"
	    "SwapCached:           12 kB\n");
	snprintf(pid, sizeof(pid), "%s/4252", root);
	cr_assert_eq(mkdir(pid, 0755), 0);
	put(pid, "stat",
	    "4252 (sc) S 1 4252 4252 0 -1 4194560 0 0 0 0 0 "
	    "0 0 0 20 0 1 0 556 0 0\n");
	put(pid, "cmdline", "");
	put(pid, "cgroup", "0::/\n");
	put(pid, "maps", "10000-13000 rw-p 00000000 00:00 0 \n");
	fd = open_words(pid, "pagemap");
	for (uint64_t k = 0; k < 3; k++)
		put_word(fd, 0x10 + k, PRESENT(0x100 + k, EXM_PM_EXCLUSIVE));
	close(fd);
	fd = open_words(root, "kpageflags");
	put_word(fd, 0x100, 1ull << EXM_KPF_SWAPCACHE);
	put_word(fd, 0x101, 0);
	put_word(fd, 0x102, 1ull << EXM_KPF_SWAPCACHE);
	close(fd);

	src = fake_source(root, name, sizeof(name));
	cr_assert_eq(exm_source_snapshot(src, &opts, &snap), 0);
	cr_assert_eq(snap->nprocs, 1);
	cr_assert(exm_meminfo_get(&snap->sys.meminfo, "SwapCached", &kb));
	cr_assert_eq(kb, 12 * 1024); /* in bytes */
	cr_assert(!exm_meminfo_get(&snap->sys.meminfo, EXM_MI_SWAPCACHE_MAPPED,
				   &kb),
		  "counted though not asked: %llu bytes",
		  (unsigned long long)kb);
	exm_snapshot_free(snap);
	opts.want_swapcache = true;
	cr_assert_eq(exm_source_snapshot(src, &opts, &snap), 0);
	cr_assert(exm_meminfo_get(&snap->sys.meminfo, EXM_MI_SWAPCACHE_MAPPED,
				  &kb));
	cr_assert_eq(kb, 2 * PS); /* frames 0x100 and 0x102 */
	exm_snapshot_free(snap);
	exm_source_close(src);
	rm_tree(root);
}

/* smaps says a mapping is hugetlb by its KernelPageSize, and how much of
 * it is mapped by Shared_Hugetlb + Private_Hugetlb (in no other size). */
Test(smaps, hugetlb_from_kernel_page_size)
{
	char root[] = "/tmp/exm-fakeproc-XXXXXX", pid[600];
	struct exm_scan_opts opts = { 0 };
	struct exm_snapshot *snap = NULL;
	const struct exm_proc *p;
	struct exm_source *src;
	char err[256];

	cr_assert_not_null(mkdtemp(root));
	fake_pid(root, 4251, "kinds",
		 "200000-600000 rw-s 00000000 00:10 77 /anon_hugepage (deleted)\n"
		 "800000-c00000 rw-p 00000000 00:00 0 \n",
		 pid, sizeof(pid));
	put(pid, "smaps",
	    "200000-600000 rw-s 00000000 00:10 77 /anon_hugepage (deleted)\n"
	    "Rss:                   0 kB\nPss:                   0 kB\n"
	    "KernelPageSize:     2048 kB\n"
	    "Shared_Hugetlb:     2048 kB\nPrivate_Hugetlb:    2048 kB\n"
	    "800000-c00000 rw-p 00000000 00:00 0 \n"
	    "Rss:                   8 kB\nPss:                   8 kB\n"
	    "KernelPageSize:        4 kB\n"
	    "Shared_Hugetlb:        0 kB\nPrivate_Hugetlb:       0 kB\n");
	cr_assert_eq(exm_source_open("smaps", &src, err, sizeof(err)), 0, "%s",
		     err);
	opts.proc_root = root; /* the tree, not /proc */
	cr_assert_eq(exm_source_snapshot(src, &opts, &snap), 0);
	p = &snap->procs[0];
	cr_assert_eq(p->nmaps, 2);
	cr_assert(p->maps[0].hugetlb);
	cr_assert_eq(p->maps[0].kpage_size, 2u << 20);
	cr_assert_eq(p->maps[0].sz.hugetlb, 4u << 20);
	cr_assert(!p->maps[1].hugetlb);
	cr_assert_eq(p->sz.rss, 8192);
	cr_assert_eq(p->sz.hugetlb, 4u << 20);
	cr_assert(!(p->sz.has & EXM_HAS_EHUGETLB));
	cr_assert(!(p->sz.has & EXM_HAS_ZERO));
	exm_snapshot_free(snap);
	exm_source_close(src);
	rm_tree(root);
}

/* smaps' Swap of a private mapping of a shmem file adds the file's pages
 * in swap where the mapping has no page (no page table's): the smaps source
 * takes private file mappings' swap from what VmSwap leaves. Here the
 * process's entries are 2 anonymous pages and 4 copies in the written
 * memfd mapping, shared after a fork (SwapPss 8 kB of them); the read-only
 * mapping (SwapPss 0) holds none, though smaps says 128 kB. */
Test(smaps, private_file_swap_from_vmswap)
{
	char root[] = "/tmp/exm-fakeproc-XXXXXX", pid[600];
	struct exm_scan_opts opts = { 0 };
	struct exm_snapshot *snap = NULL;
	const struct exm_proc *p;
	struct exm_source *src;
	char err[256];
	static const char maps[] =
		"100000-140000 rw-p 00000000 00:00 0 \n"
		"200000-240000 rw-s 00000000 00:01 9 /memfd:m (deleted)\n"
		"300000-340000 r--p 00000000 00:01 9 /memfd:m (deleted)\n"
		"400000-440000 rw-p 00000000 00:01 9 /memfd:m (deleted)\n";

	cr_assert_not_null(mkdtemp(root));
	fake_pid(root, 4252, "shmswap", maps, pid, sizeof(pid));
	put(pid, "smaps",
	    "100000-140000 rw-p 00000000 00:00 0 \n"
	    "Rss: 8 kB\nPss: 8 kB\nSwap: 8 kB\nSwapPss: 8 kB\n"
	    "200000-240000 rw-s 00000000 00:01 9 /memfd:m (deleted)\n"
	    "Rss: 0 kB\nPss: 0 kB\nSwap: 128 kB\nSwapPss: 0 kB\n"
	    "300000-340000 r--p 00000000 00:01 9 /memfd:m (deleted)\n"
	    "Rss: 0 kB\nPss: 0 kB\nSwap: 128 kB\nSwapPss: 0 kB\n"
	    "400000-440000 rw-p 00000000 00:01 9 /memfd:m (deleted)\n"
	    "Rss: 0 kB\nPss: 0 kB\nSwap: 144 kB\nSwapPss: 8 kB\n");
	put(pid, "status", "Name:\tshmswap\nVmSwap:\t      24 kB\n");
	cr_assert_eq(exm_source_open("smaps", &src, err, sizeof(err)), 0, "%s",
		     err);
	opts.proc_root = root;
	cr_assert_eq(exm_source_snapshot(src, &opts, &snap), 0);
	p = &snap->procs[0];
	cr_assert_eq(p->nmaps, 4);
	cr_assert_eq(p->maps[0].sz.swap, 8192);
	cr_assert_eq(p->maps[1].sz.swap, 0); /* shared: the file's */
	cr_assert_eq(p->maps[2].sz.swap, 0, "read-only copy: %llu",
		     (unsigned long long)p->maps[2].sz.swap);
	cr_assert_eq(p->maps[3].sz.swap, 16384, "written copy: %llu",
		     (unsigned long long)p->maps[3].sz.swap);
	cr_assert_eq(p->sz.swap, 24 * 1024); /* VmSwap */
	exm_snapshot_free(snap);
	exm_source_close(src);
	rm_tree(root);
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* exm_sort_frames sorts as qsort does: keys differing in low, middle and
 * only high bytes, repeats, a byte the same in all (a pass left out), an
 * odd and an even number of passes, none and one key. */
Test(pagemap, frames_sorted_by_radix)
{
	static const uint64_t masks[] = { 0xff,
					  0xffff,
					  0xffffff,
					  UINT64_C(0xff00000000000000),
					  UINT64_C(0xff000000ff),
					  EXM_PM_PFN_MASK,
					  UINT64_MAX };
	size_t ns[] = { 0, 1, 2, 7, 1000, 70000 };
	uint64_t x = UINT64_C(0x9e3779b97f4a7c15);

	for (size_t m = 0; m < sizeof(masks) / sizeof(*masks); m++)
		for (size_t k = 0; k < sizeof(ns) / sizeof(*ns); k++) {
			size_t n = ns[k];
			uint64_t *v = malloc((n + 1) * sizeof(*v));
			uint64_t *want = malloc((n + 1) * sizeof(*v));
			uint64_t *tmp = malloc((n + 1) * sizeof(*v));

			cr_assert(v && want && tmp);
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				/* every third a repeat of the one before */
				v[i] = i % 3 == 2 ? v[i - 1]
						  : (x & masks[m]) | 0x1000;
			}
			memcpy(want, v, n * sizeof(*v));
			qsort(want, n, sizeof(*want), cmp_key);
			exm_sort_frames(v, tmp, n);
			cr_assert(!memcmp(v, want, n * sizeof(*v)),
				  "mask %zu, %zu keys", m, n);
			free(v);
			free(want);
			free(tmp);
		}
}

/* A process is found by pid in a snapshot in pid order (as sources list
 * them) and in one out of order, the order known or not; an absent pid is
 * not. Where the order is known, a miss searches no further than the
 * binary search: a pid out of its place is not found there. */
Test(snapshot, find_pid_in_order_and_out_of_order)
{
	static const pid_t sorted[] = { 1, 7, 8, 300, 301, 4000, 4001 };
	static const pid_t shuffled[] = { 300, 1, 4001, 8, 7, 4000, 301 };
	const pid_t *order[] = { sorted, shuffled };

	for (size_t k = 0; k < 4; k++) {
		struct exm_snapshot *s = exm_snapshot_new();
		const pid_t *pids = order[k % 2];

		cr_assert_not_null(s);
		for (size_t i = 0; i < 7; i++) {
			struct exm_proc *p = exm_snapshot_add_proc(s);

			cr_assert_not_null(p);
			p->pid = pids[i];
		}
		cr_assert_not(s->pid_order, "not known while pids are set");
		if (k >= 2) {
			exm_snapshot_note_order(s);
			cr_assert_eq(s->pid_order, pids == sorted);
		}
		for (size_t i = 0; i < 7; i++) {
			const struct exm_proc *p =
				exm_snapshot_find_pid(s, pids[i]);

			cr_assert_eq(p, &s->procs[i], "pid %d, case %zu",
				     (int)pids[i], k);
		}
		cr_assert_null(exm_snapshot_find_pid(s, 2));
		cr_assert_null(exm_snapshot_find_pid(s, 0));
		cr_assert_null(exm_snapshot_find_pid(s, 5000));
		if (k == 2) {
			/* 4001 put first, the order still said known: the
			 * miss is not searched through */
			s->procs[0].pid = 4001;
			s->procs[6].pid = 1;
			cr_assert_null(exm_snapshot_find_pid(s, 4001));
			/* a process added: the order is not known again */
			cr_assert_not_null(exm_snapshot_add_proc(s));
			cr_assert_not(s->pid_order);
			cr_assert_eq(exm_snapshot_find_pid(s, 4001),
				     &s->procs[0]);
		}
		exm_snapshot_free(s);
	}
}
