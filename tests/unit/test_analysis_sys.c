// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The system view (core/sysview.c) on a hand-built snapshot with a fake
 * meminfo, the OpenMetrics writer (core/openmetrics.c; its output checked
 * by promtool too) and the per-file strip (core/strip.c).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/builder.h"
#include "core/fields.h"
#include "core/openmetrics.h"
#include "core/source.h"
#include "core/filestrip.h"
#include "core/group.h"
#include "core/sysview.h"
#include "core/kconfig.h"
#include "core/meminfo.h"
#include <zlib.h>
#include "tests/unit/anagen.h"

/*
 * Two processes: anonymous frames 1, 2 (A) and 3 (B); file frame 10 mapped
 * by both; shm frame 20 mapped by both. Distinct: 3 anon, 1 file, 1 shm.
 */
static struct exm_snapshot *small(void)
{
	struct exm_snapshot *s = ag_snap();

	for (int i = 0; i < 2; i++) {
		struct exm_proc *p = ag_proc(s, 10 + i);
		struct exm_mapping *m;

		m = ag_map(p, 0x10000, 2, RW, "", 0, 0, EXM_KIND_ANON);
		ag_page(m, 0, PG(i ? 3 : 1, EXM_PM_EXCLUSIVE));
		if (!i)
			ag_page(m, 1, PG(2, EXM_PM_EXCLUSIVE));
		m = ag_map(p, 0x20000, 1, RX, "/lib/f.so", 5, 0, EXM_KIND_FILE);
		ag_page(m, 0, PG(10, EXM_PM_FILE));
		m = ag_map(p, 0x30000, 1, RW | EXM_PERM_S, "/dev/shm/x", 6, 0,
			   EXM_KIND_SHMEM);
		ag_page(m, 0, PG(20, EXM_PM_FILE));
	}
	ag_account(s);
	return s;
}

#define KB(x) ((int64_t)(x)*1024)

static const char meminfo[] = "MemTotal:        1000000 kB\n"
			      "MemFree:          600000 kB\n"
			      "Buffers:            1000 kB\n"
			      "Cached:           200000 kB\n"
			      "SwapCached:            0 kB\n"
			      "AnonPages:         50000 kB\n"
			      "Shmem:             10000 kB\n"
			      "KReclaimable:      30000 kB\n"
			      "SReclaimable:      25000 kB\n"
			      "SUnreclaim:        20000 kB\n"
			      "KernelStack:        3000 kB\n"
			      "PageTables:         4000 kB\n"
			      "SecPageTables:       100 kB\n"
			      "VmallocUsed:        9000 kB\n"
			      "Percpu:              700 kB\n"
			      "HugePages_Total:       0\n"
			      "Hugetlb:            2048 kB\n";

/* text parsed as meminfo rows (valid until the next call) */
static const struct exm_meminfo *mi(const char *text)
{
	static struct exm_meminfo m;

	exm_meminfo_parse(&m, text, strlen(text));
	return &m;
}

static bool row_known(const struct exm_sysview *v, const char *name)
{
	for (size_t i = 0; i < v->nrows; i++)
		if (!strcmp(v->rows[i].name, name))
			return v->rows[i].known;
	cr_assert_fail("no row %s", name);
	return false;
}

static int64_t row(const struct exm_sysview *v, const char *name)
{
	for (size_t i = 0; i < v->nrows; i++)
		if (!strcmp(v->rows[i].name, name))
			return v->rows[i].bytes;
	cr_assert_fail("no row %s", name);
	return 0;
}

Test(sysview, rows_add_up_to_memtotal)
{
	struct exm_snapshot *s = small();
	struct exm_sysview v;
	char err[128];
	int64_t sum = 0;
	double erss = 0;

	cr_assert_eq(exm_sysview_from_meminfo(s, mi(meminfo), &v, err,
					      sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(v.mem_total, KB(1000000));
	cr_assert_eq(v.user_anon, 3 * PS);
	cr_assert_eq(v.user_file, PS);
	cr_assert_eq(v.user_shmem, PS);
	for (size_t i = 0; i < s->nprocs; i++)
		erss += s->procs[i].sz.erss;
	cr_assert_eq(row(&v, "user_space"), 5 * PS);
	cr_assert_float_eq((double)row(&v, "user_space"), erss, 1e-6);
	cr_assert_eq(row(&v, "anon_unscanned"), KB(50000) - 3 * PS);
	cr_assert_eq(row(&v, "page_cache_unmapped"),
		     KB(200000 + 1000 - 10000) - PS);
	cr_assert_eq(row(&v, "shmem_unmapped"), KB(10000) - PS);
	cr_assert_eq(row(&v, "slab_reclaimable"), KB(25000));
	cr_assert_eq(row(&v, "slab_unreclaimable"), KB(20000));
	cr_assert_eq(row(&v, "kernel_reclaimable_other"), KB(5000));
	cr_assert_eq(row(&v, "kernel_stacks"), KB(3000));
	cr_assert_eq(row(&v, "page_tables"), KB(4100));
	cr_assert_eq(row(&v, "vmalloc"), KB(6000));
	cr_assert_eq(row(&v, "percpu"), KB(700));
	cr_assert_eq(row(&v, "hugetlb_mapped"), 0);
	cr_assert_eq(row(&v, "hugetlb_unmapped"), 0);
	cr_assert_eq(row(&v, "hugetlb_free"), KB(2048));
	cr_assert_eq(row(&v, "zswap"), 0);
	cr_assert_eq(row(&v, "free"), KB(600000));
	for (size_t i = 0; i < v.nrows; i++) {
		sum += v.rows[i].bytes;
		cr_assert_not_null(v.rows[i].help);
	}
	cr_assert_eq(sum, (int64_t)v.mem_total);
	/* 1000000 - free 600000 - Cached+Buffers 201000 - AnonPages 50000
	 * - slab 45000 - other reclaimable 5000 - stacks 3000 - page tables
	 * 4100 - vmalloc 6000 - percpu 700 - hugetlb 2048: the scanned
	 * pages moved from the derived rows to user_space change nothing */
	cr_assert_eq(row(&v, "unexplained"), KB(83152));
	exm_snapshot_free(s);
}

/* Pages counted rather than read (exm_mapping.counted: anonymous, each
 * mapped once, pagemap's read mode and count_once) are scanned anonymous
 * memory like the read ones: in user_space and out of anon_unscanned (they
 * were left in it, and unexplained went negative by as much). */
Test(sysview, counted_pages_are_scanned_anon)
{
	struct exm_snapshot *s = ag_snap();
	struct exm_proc *p = ag_proc(s, 10);
	struct exm_mapping *m;
	struct exm_sysview v;
	char err[128];
	int64_t sum = 0;

	m = ag_map(p, 0x100000, 64, RW, "", 0, 0, EXM_KIND_ANON);
	ag_page(m, 0, PG(1, EXM_PM_EXCLUSIVE));
	m->counted = true;
	m->counted_rss = 40 * PS;
	ag_account(s);
	cr_assert_eq(exm_sysview_from_meminfo(s, mi(meminfo), &v, err,
					      sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(v.user_anon, 41 * PS);
	cr_assert_eq(row(&v, "user_space"), 41 * PS);
	cr_assert_eq(row(&v, "anon_unscanned"), KB(50000) - 41 * PS);
	for (size_t i = 0; i < v.nrows; i++)
		sum += v.rows[i].bytes;
	cr_assert_eq(sum, (int64_t)v.mem_total);
	cr_assert_eq(row(&v, "unexplained"), KB(83152));
	exm_snapshot_free(s);
}

/* SwapCached less the mapped swap cache the scan saw (exmtop's own meminfo
 * row, kpageflags.h); without that row (a source that cannot tell, kmod):
 * unknown while the swap cache holds pages, and unexplained holds them;
 * known to be 0 when it holds none */
Test(sysview, swap_cache_row)
{
	struct exm_snapshot *s = small();
	struct exm_sysview v;
	char err[128], text[2048];
	int64_t unexpl;

	cr_assert_eq(exm_sysview_from_meminfo(s, mi(meminfo), &v, err,
					      sizeof(err)),
		     0, "%s", err);
	unexpl = row(&v, "unexplained");
	cr_assert(row_known(&v, "swap_cache_unmapped"), "SwapCached 0: known");
	for (size_t i = 0; i < v.nrows; i++)
		cr_assert(v.rows[i].known, "%s", v.rows[i].name);
	/* first: meminfo's own "SwapCached: 0 kB" is then a repeat */
	snprintf(text, sizeof(text), "SwapCached: 8000 kB\n%s", meminfo);
	cr_assert_eq(exm_sysview_from_meminfo(s, mi(text), &v, err,
					      sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(row(&v, "swap_cache_unmapped"), 0);
	cr_assert_not(row_known(&v, "swap_cache_unmapped"));
	cr_assert(row_known(&v, "unexplained"));
	cr_assert_eq(row(&v, "unexplained"), unexpl);
	snprintf(text, sizeof(text),
		 "SwapCached: 8000 kB\nSwapCached(mapped): 3000 kB\n%s",
		 meminfo);
	cr_assert_eq(exm_sysview_from_meminfo(s, mi(text), &v, err,
					      sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(row(&v, "swap_cache_unmapped"), KB(5000));
	cr_assert(row_known(&v, "swap_cache_unmapped"));
	cr_assert_eq(row(&v, "unexplained"), unexpl - KB(5000));
	/* counted at another moment than SwapCached: never negative */
	snprintf(text, sizeof(text),
		 "SwapCached: 8000 kB\nSwapCached(mapped): 9000 kB\n%s",
		 meminfo);
	cr_assert_eq(exm_sysview_from_meminfo(s, mi(text), &v, err,
					      sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(row(&v, "swap_cache_unmapped"), 0);
	exm_snapshot_free(s);
}

Test(sysview, negative_unexplained_is_kept)
{
	struct exm_snapshot *s = small();
	struct exm_sysview v;
	char err[128];
	int64_t sum = 0;

	cr_assert_eq(exm_sysview_from_meminfo(s,
					      mi("MemTotal: 100 kB\n"
						 "MemFree: 200 kB\n"
						 "AnonPages: 1 kB\n"),
					      &v, err, sizeof(err)),
		     0);
	cr_assert_eq(row(&v, "anon_unscanned"), 0, "clamped, not negative");
	cr_assert_eq(row(&v, "unexplained"), KB(100) - KB(200) - 5 * PS);
	for (size_t i = 0; i < v.nrows; i++)
		sum += v.rows[i].bytes;
	cr_assert_eq(sum, KB(100));
	exm_snapshot_free(s);
}

Test(sysview, needs_page_identity_and_memtotal)
{
	struct exm_snapshot *s = small();
	struct exm_sysview v;
	char err[128];

	cr_assert_eq(exm_sysview_from_meminfo(s, mi("MemFree: 1 kB\n"), &v, err,
					      sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "MemTotal"));
	/* a counter no machine has: refused, not summed past int64 */
	cr_assert_eq(exm_sysview_from_meminfo(s,
					      mi("MemTotal: 1 kB\n"
						 "Cached: 18014398509481983 "
						 "kB\n"),
					      &v, err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "Cached is out of range"), "%s", err);
	s->sys.caps &= ~EXM_CAP_PFN;
	cr_assert_eq(exm_sysview_from_meminfo(s, mi(meminfo), &v, err,
					      sizeof(err)),
		     -EOPNOTSUPP);
	cr_assert(strstr(err, "page identity"));
	exm_snapshot_free(s);
}

/* What the view says without meminfo: a snapshot of a recording made
 * before exmtop kept it, or one taken without it. */
Test(sysview, no_meminfo_is_said)
{
	struct exm_snapshot *s = small();
	struct exm_sysview v;
	char err[160];

	cr_assert_eq(s->sys.meminfo.n, 0);
	cr_assert_eq(exm_sysview_build(s, &v, err, sizeof(err)), -ENODATA);
	cr_assert(strstr(err, "no /proc/meminfo"), "%s", err);
	s->sys.meminfo.predates = true;
	cr_assert_eq(exm_sysview_build(s, &v, err, sizeof(err)), -ENODATA);
	cr_assert(strstr(err, "recorded before exmtop kept /proc/meminfo"),
		  "%s", err);
	cr_assert_null(strchr(err, '\n'));
	s->sys.meminfo = *mi(meminfo);
	cr_assert_eq(exm_sysview_build(s, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(v.mem_total, KB(1000000));
	exm_snapshot_free(s);
}

/* The machine's facts take every row of meminfo under the /proc root, and
 * RAM from them. */
Test(sysview, facts_read_meminfo_under_a_root)
{
	char dir[] = "/tmp/exm-sysview-XXXXXX", path[64];
	struct exm_sysinfo sys;
	uint64_t x;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/meminfo", dir);
	f = fopen(path, "w");
	fputs(meminfo, f);
	fclose(f);
	exm_sysfacts_local(&sys, dir);
	cr_assert_eq(sys.meminfo.n, 17);
	cr_assert_eq(sys.mem_total, KB(1000000));
	cr_assert_eq(sys.mem_available, 0, "this meminfo has none");
	cr_assert(exm_meminfo_get(&sys.meminfo, "SecPageTables", &x));
	cr_assert_eq(x, KB(100));
	cr_assert_str_eq(sys.meminfo.rows[15].key, "HugePages_Total");
	cr_assert(!sys.meminfo.rows[15].kb);
	unlink(path);
	/* none under the root: the machine's own */
	exm_sysfacts_local(&sys, dir);
	rmdir(dir);
	cr_assert_gt(sys.meminfo.n, 20);
	cr_assert(exm_meminfo_get(&sys.meminfo, "MemTotal", &x));
	cr_assert_eq(x, sys.mem_total);
}

/* CONFIG_NO_PAGE_MAPCOUNT from /boot/config-R (text) or /proc/config.gz */
Test(kconfig, averaged_mapcounts)
{
	char dir[] = "/tmp/exm-kconfig-XXXXXX", txt[64], gz[64], none[64];
	struct exm_sysinfo sys = { .kernel = "6.18.0" };
	gzFile g;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(txt, sizeof(txt), "%s/config", dir);
	snprintf(gz, sizeof(gz), "%s/config.gz", dir);
	snprintf(none, sizeof(none), "%s/none", dir);
	f = fopen(txt, "w");
	fputs("CONFIG_MMU=y\nCONFIG_NO_PAGE_MAPCOUNT=y\n", f);
	fclose(f);
	g = gzopen(gz, "wb");
	gzputs(g, "CONFIG_MMU=y\n# CONFIG_NO_PAGE_MAPCOUNT is not set\n"
		  "CONFIG_PAGE_MAPCOUNT=y\n");
	gzclose(g);
	cr_assert_eq(exm_kernel_mapcount("6.18.0", txt, gz),
		     EXM_MAPCOUNT_AVERAGE);
	/* the text file wins; without it, the gzip one */
	cr_assert_eq(exm_kernel_mapcount("6.18.0", none, gz),
		     EXM_MAPCOUNT_EXACT);
	/* zlib reads a file that is not compressed as it is */
	cr_assert_eq(exm_kernel_mapcount("6.18.0", NULL, txt),
		     EXM_MAPCOUNT_AVERAGE);
	/* neither: only kernels from 6.15 may average */
	cr_assert_eq(exm_kernel_mapcount("6.18.0", none, none),
		     EXM_MAPCOUNT_UNKNOWN);
	cr_assert_eq(exm_kernel_mapcount("6.15.2", none, none),
		     EXM_MAPCOUNT_UNKNOWN);
	cr_assert_eq(exm_kernel_mapcount("6.14.9", none, none),
		     EXM_MAPCOUNT_EXACT);
	cr_assert_eq(exm_kernel_mapcount("6.1.0-31-amd64", none, none),
		     EXM_MAPCOUNT_EXACT);
	cr_assert_eq(exm_kernel_mapcount("7.0", none, none),
		     EXM_MAPCOUNT_UNKNOWN);
	/* a kernel older than the option reads no config at all */
	cr_assert_eq(exm_kernel_mapcount("6.14.9", txt, gz),
		     EXM_MAPCOUNT_EXACT);
	unlink(txt);
	unlink(gz);
	rmdir(dir);
	/* the note on a snapshot of the running kernel: exact or said */
	exm_kernel_mapcount_note(&sys);
	cr_assert(!(sys.caps & EXM_CAP_AVG_MAPCOUNT) ||
		  strstr(sys.limits, "CONFIG_NO_PAGE_MAPCOUNT"));
}

/* The running kernel's answer is read once per run: a config that goes
 * away after the first question changes nothing; another root is read. */
Test(kconfig, read_once_per_run)
{
	char dir[] = "/tmp/exm-kconfig-XXXXXX", gz[64],
	     other[] = "/tmp/exm-kconfig-XXXXXX";
	gzFile g;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(mkdtemp(other));
	snprintf(gz, sizeof(gz), "%s/config.gz", dir);
	g = gzopen(gz, "wb");
	gzputs(g, "CONFIG_NO_PAGE_MAPCOUNT=y\n");
	gzclose(g);
	cr_assert_eq(exm_running_mapcount("6.18.0-x", dir),
		     EXM_MAPCOUNT_AVERAGE);
	unlink(gz);
	cr_assert_eq(exm_running_mapcount("6.18.0-x", dir),
		     EXM_MAPCOUNT_AVERAGE);
	/* another root (or release) is asked afresh: nothing readable */
	cr_assert_eq(exm_running_mapcount("6.18.0-x", other),
		     EXM_MAPCOUNT_UNKNOWN);
	cr_assert_eq(exm_running_mapcount("6.14.0-x", other),
		     EXM_MAPCOUNT_EXACT);
	rmdir(dir);
	rmdir(other);
}

Test(sysview, meminfo_parsing)
{
	struct exm_meminfo m;
	uint64_t x;

	cr_assert(exm_meminfo_get(mi(meminfo), "Cached", &x));
	cr_assert_eq(x, KB(200000));
	cr_assert(exm_meminfo_get(mi(meminfo), "HugePages_Total", &x));
	cr_assert_eq(x, 0);
	cr_assert(!exm_meminfo_get(mi(meminfo), "Cache", &x));
	cr_assert(!exm_meminfo_get(mi(meminfo), "Zswap", &x));
	cr_assert(!exm_meminfo_get(mi("X: -5 kB\n"), "X", &x));
	cr_assert(!exm_meminfo_get(mi("X: 5 MB\n"), "X", &x));
	cr_assert(!exm_meminfo_get(mi("X:\nY: 5 kB\n"), "X", &x));
	cr_assert(!exm_meminfo_get(mi("X: 99999999999999999999\n"), "X", &x));
	cr_assert(exm_meminfo_get(mi("Y: 1 kB\nX: 7"), "X", &x));
	cr_assert_eq(x, 7);
	/* the first of a repeated key; keys as the kernel writes them */
	cr_assert(exm_meminfo_get(mi("X: 1\nX: 2\n"), "X", &x));
	cr_assert_eq(x, 1);
	cr_assert_eq(mi("Active(anon): 4 kB\nbad key: 1 kB\n")->n, 1);
	memset(&m, 0, sizeof(m));
	cr_assert_eq(exm_meminfo_add(&m, "A", 1, 1, true), 0);
	cr_assert_eq(exm_meminfo_add(&m, "A", 1, 2, true), -EEXIST);
	cr_assert_eq(exm_meminfo_add(&m, "", 0, 2, true), -EINVAL);
	cr_assert_eq(exm_meminfo_add(&m, "a\nb", 3, 2, true), -EINVAL);
	cr_assert_eq(exm_meminfo_add(&m, "B", 1, UINT64_MAX / 1024 + 1, true),
		     -EINVAL);
	cr_assert_eq(exm_meminfo_add(&m, "B", 1, UINT64_C(1) << 63, false),
		     -EINVAL);
	cr_assert_eq(exm_meminfo_add(&m, "ABCDEFGHIJABCDEFGHIJABCDEFGHIJAB", 32,
				     1, false),
		     -EINVAL);
	for (int i = 1; i < EXM_MEMINFO_ROWS; i++) {
		char k[16];

		snprintf(k, sizeof(k), "K%d", i);
		cr_assert_eq(exm_meminfo_add(&m, k, strlen(k), 1, false), 0);
	}
	cr_assert_eq(exm_meminfo_add(&m, "Z", 1, 1, false), -E2BIG);
}

/* ---- OpenMetrics ---- */

static char *om_str(void (*fn)(FILE *, const char *), const char *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, in);
	fclose(f);
	return buf;
}

/* A label value holds no control byte: the name shown as text output
 * shows it (\e, \n, \xNN; a backslash doubled, so that no two names read
 * the same), then escaped as OpenMetrics requires (\\, \"). */
Test(openmetrics, label_escaping)
{
	struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "plain" },
		{ "a\\b", "a\\\\\\\\b" },
		{ "say \"hi\"", "say \\\"hi\\\"" },
		{ "two\nlines", "two\\\\nlines" },
		{ "two\\nlines", "two\\\\\\\\nlines" }, /* not the newline */
		{ "tab\tand\x1b[31m", "tab\\\\tand\\\\e[31m" },
		{ "bell\a del\x7f", "bell\\\\x07 del\\\\x7f" },
		{ "csi\xc2\x9b", "csi\\\\u009b" }, /* C1 control */
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "\xe2\x82\xac \xf0\x9f\x98\x80",
		  "\xe2\x82\xac \xf0\x9f\x98\x80" },
		/* invalid UTF-8: each bad byte shows as \xNN */
		{ "x\xffy", "x\\\\xffy" },
		{ "\xc3", "\\\\xc3" },		  /* truncated */
		{ "\xc0\xaf", "\\\\xc0\\\\xaf" }, /* overlong */
		{ "\xed\xa0\x80", "\\\\xed\\\\xa0\\\\x80" },
		{ "\xf4\x90\x80\x80", "\\\\xf4\\\\x90\\\\x80\\\\x80" },
		{ "\x80\"", "\\\\x80\\\"" },
		{ "", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = om_str(exm_om_label_value, cases[i].in);

		cr_assert_str_eq(s, cases[i].out, "case %zu", i);
		free(s);
	}
}

Test(openmetrics, name_sanitising)
{
	char b[32];

	exm_om_sanitize_name(b, sizeof(b), "exmtop_process_erss");
	cr_assert_str_eq(b, "exmtop_process_erss");
	exm_om_sanitize_name(b, sizeof(b), "a-b.c d:e");
	cr_assert_str_eq(b, "a_b_c_d:e");
	exm_om_sanitize_name(b, sizeof(b), "9lives");
	cr_assert_str_eq(b, "_9lives");
	exm_om_sanitize_name(b, sizeof(b), "");
	cr_assert_str_eq(b, "_");
	exm_om_sanitize_name(b, 4, "abcdef");
	cr_assert_str_eq(b, "abc");
}

static int promtool(const char *text);

static char *write_all(const struct exm_snapshot *s,
		       const struct exm_om_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(exm_om_write(f, s, o), 0);
	fclose(f);
	return buf;
}

Test(openmetrics, families_samples_and_eof)
{
	struct exm_snapshot *s = small();
	struct exm_sysview v;
	struct exm_om_opts o = { .top = 1, .groups = true, .files = true };
	char err[128], *out;
	const char *eof;

	free(s->procs[1].comm);
	s->procs[1].comm = strdup("evil\"}\n x{a=\"1\xff\\");
	s->procs[1].kpss.has = EXM_KPSS_PSS;
	s->procs[1].kpss.pss = 12345;
	cr_assert_eq(exm_sysview_from_meminfo(s, mi(meminfo), &v, err,
					      sizeof(err)),
		     0);
	o.sys = &v;
	out = write_all(s, &o);
	/* top 1 by erss: pid 10 (2.5 + .5 pages... 3.0 pages) over pid 11 */
	cr_assert(strstr(out, "# TYPE exmtop_process_effective_resident_bytes"
			      " gauge\n# UNIT exmtop_process_effective_"
			      "resident_bytes bytes\n"),
		  "%s", out);
	cr_assert(strstr(out, "exmtop_process_effective_resident_bytes{pid="
			      "\"10\",comm=\"c\",user=\"u\"} 12288\n"),
		  "%s", out);
	cr_assert_null(strstr(out, "pid=\"11\""), "top 1 only");
	/* no kernel Pss for pid 10: the sample is left out, not 0 */
	cr_assert_null(strstr(out, "exmtop_process_kernel_pss_bytes{"));
	cr_assert(strstr(out, "exmtop_system_bytes{row=\"user_space\"} 20480"
			      "\n"));
	cr_assert(strstr(out, "exmtop_memory_total_bytes 1024000000\n"));
	cr_assert(strstr(out, "exmtop_group_processes{by=\"program\","
			      "name=\"c\"} 1\n"),
		  "%s", out);
	cr_assert(strstr(out, "exmtop_file_processes{kind=\"file\",file=\""
			      "/lib/f.so\"} 2\n") ||
			  strstr(out, "exmtop_file_processes{kind=\"anon\""),
		  "%s", out);
	eof = strstr(out, "# EOF\n");
	cr_assert_not_null(eof);
	cr_assert_eq(eof[6], '\0', "# EOF is last");
	free(out);
	/* now the hostile name is in the top 2, escaped */
	o.top = 2;
	out = write_all(s, &o);
	cr_assert(strstr(out, "comm=\"evil\\\"}\\\\n x{a=\\\"1\\\\xff"
			      "\\\\\\\\\",user=\"u\"} "),
		  "%s", out);
	cr_assert(strstr(out, "exmtop_process_kernel_pss_bytes{pid=\"11\","));
	cr_assert(strstr(out, "\nexmtop_user_space_bytes 20480\n"));
	free(out);
	/* without page identity the user-space figure is unknown, not 0 */
	s->sys.caps &= ~EXM_CAP_PFN;
	out = write_all(s, &o);
	cr_assert(strstr(out, "# TYPE exmtop_user_space_bytes gauge\n"));
	cr_assert_null(strstr(out, "\nexmtop_user_space_bytes "));
	free(out);
	exm_snapshot_free(s);
}

/* The exposition reads its columns through the field table: every
 * process sample of a column is the field table's value of that row, and
 * what it reads covers what its columns need. */
Test(openmetrics, values_are_the_field_tables)
{
	static const struct {
		enum exm_field_id f;
		const char *family;
	} cols[] = {
		{ EXM_F_ERSS, "exmtop_process_effective_resident_bytes" },
		{ EXM_F_RSS, "exmtop_process_resident_bytes" },
		{ EXM_F_ESWAP, "exmtop_process_effective_swap_bytes" },
		{ EXM_F_SOLE, "exmtop_process_sole_bytes" },
		{ EXM_F_PSS, "exmtop_process_kernel_pss_bytes" },
	};
	struct exm_snapshot *s = small();
	struct exm_om_opts o = { .top = 10, .groups = true, .files = true };
	struct exm_row *rows;
	size_t n, seen = 0;
	char *out;

	s->procs[1].kpss.has = EXM_KPSS_PSS;
	s->procs[1].kpss.pss = 12345;
	out = write_all(s, &o);
	rows = exm_table_procs(s, &n);
	cr_assert_not_null(rows);
	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
			char head[160];
			struct exm_value v;
			const char *at;
			double want;

			snprintf(head, sizeof(head), "\n%s{pid=\"%d\",",
				 cols[c].family, (int)rows[i].proc->pid);
			at = strstr(out, head);
			exm_field_value(cols[c].f, EXM_T_PROCS, &rows[i], &v);
			if (v.type == EXM_V_NONE) {
				cr_assert_null(at, "%s: no sample", head + 1);
				continue;
			}
			cr_assert_not_null(at, "%s in:\n%s", head + 1, out);
			at = strstr(at, "} ");
			cr_assert_not_null(at);
			want = v.type == EXM_V_INT ? (double)v.u : v.d;
			cr_assert_eq(strtod(at + 2, NULL), want, "%s %g",
				     head + 1, want);
			seen++;
		}
	cr_assert_geq(seen, 9, "the sizes of both processes and one Pss");
	cr_assert_eq(exm_om_needs() &
			     (EXM_NEED_PAGES | EXM_NEED_KPSS | EXM_NEED_CGROUP),
		     EXM_NEED_PAGES | EXM_NEED_KPSS | EXM_NEED_CGROUP);
	free(rows);
	free(out);
	exm_snapshot_free(s);
}

/* The group of every process (user "u" in small()). */
static struct exm_row *user_group(const struct exm_snapshot *s,
				  struct exm_row **rows)
{
	size_t n;

	*rows = exm_table_groups(s, EXM_GROUP_USER, NULL, &n);
	cr_assert_not_null(*rows);
	cr_assert_eq(n, 1);
	return &(*rows)[0];
}

/* One member not readable (only vm and rss, from statm) does not hide the
 * others' sums: what was measured is summed, and how many members a sum
 * leaves out is said; a figure nobody has stays unmeasured. */
Test(groups, sum_what_was_measured_and_count_the_rest)
{
	struct exm_snapshot *s = small();
	struct exm_proc *a = &s->procs[0], *b = &s->procs[1];
	struct exm_om_opts o = { .top = 10, .groups = true };
	struct exm_row *rows, *g;
	double erss_a = a->sz.erss;
	uint64_t rss = a->sz.rss + b->sz.rss;
	char *out;

	g = user_group(s, &rows);
	cr_assert_eq(g->unmeasured, 0, "all read: every sum is complete");
	cr_assert_float_eq(g->sz.erss, erss_a + b->sz.erss, 1e-9);
	cr_assert_eq(g->kpss.has, 0, "nobody's Pss: not measured");
	free(rows);

	b->sz.has = EXM_HAS_VM | EXM_HAS_RSS; /* denied */
	b->sz.erss = 1e9; /* not measured: must not be added */
	g = user_group(s, &rows);
	cr_assert_eq(g->nprocs, 2);
	cr_assert_eq(g->unmeasured, 1);
	cr_assert(g->sz.has & EXM_HAS_ERSS, "the readable member's erss");
	cr_assert_float_eq(g->sz.erss, erss_a, 1e-9);
	cr_assert_eq(g->sz.rss, rss, "rss of both (statm)");
	free(rows);
	out = write_all(s, &o);
	cr_assert(strstr(out, "exmtop_group_unmeasured_processes{by=\"user\","
			      "name=\"u\"} 1\n"),
		  "%s", out);
	cr_assert(strstr(out, "exmtop_group_effective_resident_bytes{by=\""
			      "user\",name=\"u\"} "),
		  "%s", out);
	cr_assert_eq(promtool(out), 0, "promtool rejects:\n%s", out);
	free(out);

	/* only b's Pss read: a is left out of that sum too */
	b->kpss.has = EXM_KPSS_PSS;
	b->kpss.pss = 4096;
	g = user_group(s, &rows);
	cr_assert_eq(g->unmeasured, 2);
	cr_assert_eq(g->kpss.pss, 4096);
	free(rows);

	/* nothing of the pages measured: erss stays unmeasured */
	a->sz.has = EXM_HAS_VM | EXM_HAS_RSS;
	b->kpss.has = 0;
	g = user_group(s, &rows);
	cr_assert_eq(g->unmeasured, 0);
	cr_assert_not(g->sz.has & EXM_HAS_ERSS);
	free(rows);
	exm_snapshot_free(s);
}

/* ---- the per-file strip ---- */

Test(strip, processes_per_file_page)
{
	struct exm_snapshot *s = ag_snap();
	struct exm_file_strip st;
	const struct exm_file *f;
	char line[16] = "";

	/* A: r-xp pages 0-3 (0, 1 resident) and rw-p pages 6-7 (6 a copy).
	 * B: r-xp pages 0-3 (1, 2 resident, 2 twice: a second mapping).
	 * C: r--p page 1 only (resident). Page 4 and 5: no mapping. */
	struct exm_proc *p = ag_proc(s, 1);
	struct exm_mapping *m = ag_map(p, 0x10000, 4, RX, "/lib/s.so", 3, 0,
				       EXM_KIND_FILE);

	ag_page(m, 0, PG(100, EXM_PM_FILE));
	ag_page(m, 1, PG(101, EXM_PM_FILE));
	m = ag_map(p, 0x20000, 2, RW, "/lib/s.so", 3, 6 * PS, EXM_KIND_FILE);
	ag_page(m, 0, PG(500, EXM_PM_EXCLUSIVE));
	p = ag_proc(s, 2);
	m = ag_map(p, 0x10000, 4, RX, "/lib/s.so", 3, 0, EXM_KIND_FILE);
	ag_page(m, 1, PG(101, EXM_PM_FILE));
	ag_page(m, 2, PG(102, EXM_PM_FILE));
	m = ag_map(p, 0x30000, 1, RX, "/lib/s.so", 3, 2 * PS, EXM_KIND_FILE);
	ag_page(m, 0, PG(102, EXM_PM_FILE));
	p = ag_proc(s, 3);
	m = ag_map(p, 0x40000, 1, RO, "/lib/s.so", 3, PS, EXM_KIND_FILE);
	ag_page(m, 0, PG(101, EXM_PM_FILE));
	ag_map(p, 0x50000, 1, RW, "", 0, 0, EXM_KIND_ANON);
	ag_account(s);
	f = exm_snapshot_find_file(s, "/lib/s.so");
	cr_assert_not_null(f);
	cr_assert_eq(exm_strip_file(s, f, &st), 0);
	cr_assert(st.has_pages);
	cr_assert_eq(st.npages, 8);
	for (uint64_t i = 0; i < st.npages; i++)
		line[i] = exm_strip_count_char(st.procs[i]);
	cr_assert_str_eq(line, "131...1.");
	cr_assert_eq(st.nprocs, 3);
	cr_assert_eq(st.vm_pages, 6);
	cr_assert_eq(st.res_pages, 4);
	/* segments: r-x [0,4) (three mappings merged), r-- [1,2), rw- [6,8) */
	cr_assert_eq(st.nsegs, 3);
	cr_assert_eq(st.segs[0].first, 0);
	cr_assert_eq(st.segs[0].end, 4);
	cr_assert_eq(st.segs[0].perms, RX);
	cr_assert_eq(st.segs[1].first, 1);
	cr_assert_eq(st.segs[1].perms, RO);
	cr_assert_eq(st.segs[2].first, 6);
	cr_assert_eq(st.segs[2].end, 8);
	exm_file_strip_fini(&st);
	/* anonymous kinds have no file pages */
	f = exm_snapshot_find_file(s, "[anon]");
	cr_assert_not_null(f);
	cr_assert_eq(exm_strip_file(s, f, &st), -EINVAL);
	exm_snapshot_free(s);
}

Test(strip, characters)
{
	cr_assert_eq(exm_strip_count_char(0), '.');
	cr_assert_eq(exm_strip_count_char(1), '1');
	cr_assert_eq(exm_strip_count_char(9), '9');
	cr_assert_eq(exm_strip_count_char(10), '#');
	cr_assert_eq(exm_strip_count_char(1000), '#');
}

Test(strip, hostile_offsets_do_not_allocate)
{
	struct exm_snapshot *s = ag_snap();
	struct exm_proc *p = ag_proc(s, 1);
	struct exm_file_strip st;

	ag_map(p, 0x10000, 1, RO, "/huge", 4, UINT64_C(1) << 50, EXM_KIND_FILE);
	p = ag_proc(s, 2);
	ag_map(p, 0x10000, 2, RO, "/wrap", 5, UINT64_MAX & ~(uint64_t)(PS - 1),
	       EXM_KIND_FILE);
	ag_account(s);
	cr_assert_eq(exm_strip_file(s, exm_snapshot_find_file(s, "/huge"), &st),
		     -EFBIG);
	cr_assert_eq(exm_strip_file(s, exm_snapshot_find_file(s, "/wrap"), &st),
		     -EFBIG);
	exm_snapshot_free(s);
}

/* Exit status of `promtool check metrics` on text. */
static int promtool(const char *text)
{
	FILE *p = popen("promtool check metrics >/dev/null 2>&1", "w");

	cr_assert_not_null(p, "promtool (Debian: prometheus) is needed");
	fputs(text, p);
	return pclose(p);
}

Test(openmetrics, hostile_fixture_passes_promtool)
{
	struct exm_om_opts o = { .top = 100, .groups = true, .files = true };
	struct exm_scan_opts so = { 0 };
	struct exm_source *src;
	struct exm_snapshot *s;
	char err[256], *out;

	cr_assert_eq(exm_source_open("fixture:hostile", &src, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(exm_source_snapshot(src, &so, &s), 0);
	out = write_all(s, &o);
	cr_assert(strstr(out, "comm=\"bad\\\\xff\\\\xfeutf8\""), "%s", out);
	cr_assert(strstr(out, "comm=\"nl\\\\nline\""));
	cr_assert(strstr(out, "comm=\"osc\\\\e]0;pwned\\\\x07\""));
	for (const char *p = out; *p; p++)
		cr_assert(*p == '\n' ||
				  !((unsigned char)*p < 0x20 || *p == 0x7f),
			  "no control byte but newlines");
	cr_assert_eq(promtool(out), 0, "promtool rejects:\n%s", out);
	free(out);
	/* the check can fail: the same names unescaped are rejected */
	cr_assert_neq(promtool("# HELP a x\n# TYPE a gauge\n"
			       "a{l=\"bad\xff\"} 1\n# EOF\n"),
		      0);
	cr_assert_neq(promtool("# HELP a x\n# TYPE a gauge\n"
			       "a{l=\"nl\nline\"} 1\n# EOF\n"),
		      0);
	exm_snapshot_free(s);
	exm_source_close(src);
}

/* A process mapping 2 hugetlb pages of 2 MiB (1024 frames) and a page
 * of its own, accounted. */
static struct exm_snapshot *huge_snap(void)
{
	struct exm_snapshot *s = ag_snap();
	struct exm_proc *p = ag_proc(s, 10);
	struct exm_mapping *m = ag_map(p, 0x200000, 1024, RW, "/anon_hugepage",
				       7, 0, EXM_KIND_FILE);

	m->hugetlb = true;
	m->kpage_size = 2u << 20;
	for (uint64_t k = 0; k < 1024; k++)
		ag_page(m, k, PG(0x1000 + k, EXM_PM_EXCLUSIVE));
	m = ag_map(p, 0x10000, 1, RW, "", 0, 0, EXM_KIND_ANON);
	ag_page(m, 0, PG(1, EXM_PM_EXCLUSIVE));
	ag_account(s);
	return s;
}

/*
 * The huge page pool split (issue 24): of 8 huge pages (16 MiB) 5 in use,
 * 2 of them (1024 frames) mapped by the scanned process, hugetlb pages in
 * no other row (not user_space, not anonymous): the rows still add up.
 */
Test(sysview, hugetlb_pool_split)
{
	static const char text[] = "MemTotal:        1000000 kB\n"
				   "MemFree:          600000 kB\n"
				   "AnonPages:         50000 kB\n"
				   "HugePages_Total:       8\n"
				   "HugePages_Free:        3\n"
				   "Hugepagesize:       2048 kB\n"
				   "Hugetlb:           16384 kB\n";
	struct exm_snapshot *s = huge_snap();
	struct exm_sysview v;
	char err[128];
	int64_t sum = 0;

	cr_assert_eq(exm_sysview_from_meminfo(s, mi(text), &v, err,
					      sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(row(&v, "user_space"), PS);
	cr_assert_eq(v.user_anon, PS);
	cr_assert_eq(row(&v, "hugetlb_mapped"), 1024 * PS);
	cr_assert_eq(row(&v, "hugetlb_unmapped"), KB(3 * 2048));
	cr_assert_eq(row(&v, "hugetlb_free"), KB(3 * 2048));
	for (size_t i = 0; i < v.nrows; i++)
		sum += v.rows[i].bytes;
	cr_assert_eq(sum, (int64_t)v.mem_total);
	exm_snapshot_free(s);
}

/*
 * Every huge page size in use (sysfs's row, HugetlbUsed(sysfs)): a 1 GiB
 * page in use that no scanned process maps is in hugetlb_unmapped, not in
 * hugetlb_free, although meminfo's HugePages_* count 2 MiB pages only.
 */
Test(sysview, hugetlb_every_size_in_use)
{
	static const char text[] = "MemTotal:        4000000 kB\n"
				   "MemFree:          600000 kB\n"
				   "HugePages_Total:       8\n"
				   "HugePages_Free:        3\n"
				   "Hugepagesize:       2048 kB\n"
				   "Hugetlb:         1064960 kB\n"
				   "HugetlbUsed(sysfs): 1058816 kB\n";
	struct exm_snapshot *s = huge_snap();
	struct exm_sysview v;
	char err[128];

	cr_assert_eq(exm_sysview_from_meminfo(s, mi(text), &v, err,
					      sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(row(&v, "hugetlb_mapped"), 1024 * PS);
	/* 5 pages of 2 MiB and one of 1 GiB in use, 2 of 2 MiB mapped */
	cr_assert_eq(row(&v, "hugetlb_unmapped"), KB(3 * 2048 + 1048576));
	cr_assert_eq(row(&v, "hugetlb_free"), KB(3 * 2048));
	exm_snapshot_free(s);
}

static void put_count(const char *dir, const char *name, const char *v)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(v, f);
	fclose(f);
}

/* The row from a sysfs-like tree: (nr + surplus - free) x size, summed. */
Test(meminfo, hugetlb_used_from_sysfs)
{
	char dir[] = "/tmp/exm-huge-XXXXXX", a[300], b[300];
	struct exm_meminfo m = { 0 };
	uint64_t x;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/hugepages-2048kB", dir);
	snprintf(b, sizeof(b), "%s/hugepages-1048576kB", dir);
	cr_assert_eq(mkdir(a, 0700), 0);
	cr_assert_eq(mkdir(b, 0700), 0);
	put_count(a, "nr_hugepages", "8\n");
	put_count(a, "surplus_hugepages", "1\n");
	put_count(a, "free_hugepages", "3\n");
	put_count(b, "nr_hugepages", "2\n");
	put_count(b, "surplus_hugepages", "0\n");
	cr_assert_eq(exm_meminfo_add_hugetlb_used(&m, dir), -ENOENT,
		     "a count missing: no row");
	cr_assert(!exm_meminfo_get(&m, EXM_MEMINFO_HUGETLB_USED, &x));
	put_count(b, "free_hugepages", "1\n");
	cr_assert_eq(exm_meminfo_add_hugetlb_used(&m, dir), 0);
	cr_assert(exm_meminfo_get(&m, EXM_MEMINFO_HUGETLB_USED, &x));
	cr_assert_eq(x, KB(6 * 2048 + 1048576));
	for (int i = 0; i < 2; i++) {
		static const char *const names[] = { "nr_hugepages",
						     "surplus_hugepages",
						     "free_hugepages" };
		const char *sub = i ? b : a;
		char path[400];

		for (int j = 0; j < 3; j++) {
			snprintf(path, sizeof(path), "%s/%s", sub, names[j]);
			unlink(path);
		}
		rmdir(sub);
	}
	rmdir(dir);
}
