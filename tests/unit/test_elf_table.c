// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_elf_table.c - section and symbol attribution (core/elf_table.c) on a
 * hand-built snapshot of two processes mapping the standard elfgen image
 * at different load biases, with exact expected sizes.
 *
 * Layout (ELF addresses; see elfgen.h), in process at bias X:
 *   m0 r-xp [X, X+0x3000)        off 0       pages PFN 1000 1001 1002 (both)
 *   m1 rw-p [X+0x4000, X+0x6000) off 0x3000  page 0: A PFN 2000, B PFN 3000
 *                                            (private, written, exclusive)
 *                                            page 1: PFN 1005 (both, file)
 *   m2 rw-p anon [X+0x6000, ...) .bss tail   A: PFN 2001 (exclusive)
 *                                            B: 3 pages, only page 1 (past
 *                                            .bss) present, PFN 3001
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"
#include "core/elf.h"
#include "core/elf_table.h"
#include "core/pagemap.h"
#include "core/snapshot.h"
#include "tests/unit/elfgen.h"
#include "tests/unit/snapgen.h"

#define PS 4096u
#define XA UINT64_C(0x400000)
#define XB UINT64_C(0x7f0000000000)
#define FILEPG(pfn) (EXM_PM_PRESENT | EXM_PM_FILE | (uint64_t)(pfn))
#define ANONPG(pfn) (EXM_PM_PRESENT | EXM_PM_EXCLUSIVE | (uint64_t)(pfn))
#define LIB "/lib/libt.so"

static struct exm_proc *mkproc(struct exm_snapshot *s, pid_t pid)
{
	struct exm_proc *p = snapgen_proc(s, pid, "c");

	cr_assert_not_null(p);
	return p;
}

static struct exm_mapping *mkmap(struct exm_proc *p, uint64_t start,
				 uint64_t len, uint64_t off, unsigned perms,
				 bool file)
{
	struct exm_mapping *m = exm_proc_add_mapping(p);

	m->start = start;
	m->end = start + len;
	m->offset = off;
	m->perms = perms;
	m->name = strdup(file ? LIB : "");
	m->inode = file ? 77 : 0;
	m->dev_major = file ? 8 : 0;
	m->dev_minor = file ? 1 : 0;
	m->kind = file ? EXM_KIND_FILE : EXM_KIND_ANON;
	return m;
}

static void add(struct exm_mapping *m, uint64_t page, uint64_t w)
{
	cr_assert_eq(exm_mapping_add_page(m, m->start / PS + page, w), 0);
}

static void lib_proc(struct exm_snapshot *s, pid_t pid, uint64_t x, bool a)
{
	struct exm_proc *p = mkproc(s, pid);
	struct exm_mapping *m;

	m = mkmap(p, x, 0x3000, 0, EXM_PERM_R | EXM_PERM_X, true);
	add(m, 0, FILEPG(1000));
	add(m, 1, FILEPG(1001));
	add(m, 2, FILEPG(1002));
	m = mkmap(p, x + 0x4000, 0x2000, 0x3000, EXM_PERM_R | EXM_PERM_W, true);
	add(m, 0, ANONPG(a ? 2000 : 3000));
	add(m, 1, FILEPG(1005));
	if (a) {
		m = mkmap(p, x + 0x6000, 0x1000, 0, EXM_PERM_R | EXM_PERM_W,
			  false);
		add(m, 0, ANONPG(2001));
	} else {
		m = mkmap(p, x + 0x6000, 0x3000, 0, EXM_PERM_R | EXM_PERM_W,
			  false);
		add(m, 1, ANONPG(3001));
	}
}

static struct exm_snapshot *snap;
static struct exm_elf *elf;
static const struct exm_file *lib;

static void setup_two(void)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);

	elf = exm_elf_parse_mem(img, lay.len);
	free(img);
	cr_assert_eq(elf->state, EXM_ELF_OK);
	snap = exm_snapshot_new();
	snap->sys.page_size = PS;
	snap->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE;
	lib_proc(snap, 10, XA, true);
	lib_proc(snap, 11, XB, false);
	cr_assert_eq(exm_snapshot_account(snap), 0);
	lib = exm_snapshot_find_file(snap, LIB);
	cr_assert_not_null(lib);
}

static void teardown_two(void)
{
	exm_snapshot_free(snap);
	exm_elf_free(elf);
}

static const struct exm_row *row(const struct exm_row *rows, size_t n,
				 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	cr_assert_fail("no row %s", name);
	return NULL;
}

#define ASSERT_SZ(r, VM, RSS, ERSS, SOLE, WR)                                \
	do {                                                                 \
		cr_assert_eq((r)->sz.vm, (VM), "%s vm %lu", (r)->name,       \
			     (unsigned long)(r)->sz.vm);                     \
		cr_assert_eq((r)->sz.rss, (RSS), "%s rss %lu", (r)->name,    \
			     (unsigned long)(r)->sz.rss);                    \
		cr_assert_float_eq((r)->sz.erss, (double)(ERSS), 1e-6,       \
				   "%s erss %f", (r)->name, (r)->sz.erss);   \
		cr_assert_eq((r)->sz.sole, (SOLE), "%s sole %lu", (r)->name, \
			     (unsigned long)(r)->sz.sole);                   \
		cr_assert_eq((r)->sz.writable, (WR), "%s wr %lu", (r)->name, \
			     (unsigned long)(r)->sz.writable);               \
	} while (0)

TestSuite(elf_table, .init = setup_two, .fini = teardown_two);

Test(elf_table, regions_and_bias)
{
	const struct exm_proc *a = exm_snapshot_find_pid(snap, 10);
	const struct exm_proc *b = exm_snapshot_find_pid(snap, 11);
	struct exm_elf_region *r;
	long n = exm_elf_regions(snap, a, lib, elf, &r);

	cr_assert_eq(n, 3);
	cr_assert_eq(r[0].bias, XA);
	cr_assert_eq(r[1].bias, XA);
	cr_assert(r[2].bss);
	cr_assert_eq(r[2].start, XA + 0x6000);
	cr_assert_eq(r[2].end, XA + 0x7000);
	free(r);
	n = exm_elf_regions(snap, b, lib, elf, &r);
	cr_assert_eq(n, 3);
	cr_assert_eq(r[1].bias, XB);
	/* The anonymous mapping is longer than .bss: clipped to p_memsz. */
	cr_assert_eq(r[2].end, XB + 0x7000);
	cr_assert_eq(r[2].map->end, XB + 0x9000);
	free(r);
}

Test(elf_table, sections_in_one_process)
{
	const struct exm_proc *a = exm_snapshot_find_pid(snap, 10);
	size_t n;
	struct exm_row *rows = exm_table_sections(snap, a, lib, elf, &n);
	const struct exm_row *gap = NULL;
	uint64_t vm = 0, gaps = 0;
	double erss = 0;
	struct exm_sizes total;

	cr_assert_not_null(rows);
	/* 3 sections + 1 gap (headers and the tail of the text page). */
	cr_assert_eq(n, 4);
	ASSERT_SZ(row(rows, n, ".text"), 0x1800, 0x1800, 0xc00, 0, 0);
	ASSERT_SZ(row(rows, n, ".data"), 0x1100, 0x1100, 0x1000 + 0x80, 0x1000,
		  0x1000);
	ASSERT_SZ(row(rows, n, ".bss"), 0x1f00, 0x1f00, 0xf00 / 2 + 0x1000,
		  0x1000, 0x1000);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(rows[i].proc, a);
		cr_assert_eq(rows[i].nprocs, 1);
		vm += rows[i].sz.vm;
		erss += rows[i].sz.erss;
		if (rows[i].flags & EXM_ROW_GAP) {
			gap = &rows[i];
			gaps++;
		}
	}
	cr_assert_eq(gaps, 1);
	cr_assert_str_eq(gap->name, EXM_GAP_NAME);
	cr_assert_eq(gap->addr, 0);
	cr_assert_eq(gap->size, 0x1800);
	ASSERT_SZ(gap, 0x1800, 0x1800, 0xc00, 0, 0);
	/* The rows add up to the regions they come from. */
	cr_assert_eq(vm, 0x6000);
	exm_range_sizes(snap, a, NULL, XA, XA + 0x7000, &total);
	cr_assert_float_eq(erss, total.erss, 1e-6);
	cr_assert_eq(row(rows, n, ".data")->addr, 0x4000);
	cr_assert_eq(row(rows, n, ".data")->size, 0x1100);
	free(rows);
}

Test(elf_table, sections_other_process)
{
	const struct exm_proc *b = exm_snapshot_find_pid(snap, 11);
	size_t n;
	struct exm_row *rows = exm_table_sections(snap, b, lib, elf, &n);

	cr_assert_eq(n, 4);
	/* Only the shared file page of .bss is present; the anonymous page
	 * past p_memsz is not the library's. */
	ASSERT_SZ(row(rows, n, ".bss"), 0x1f00, 0xf00, 0xf00 / 2, 0, 0);
	ASSERT_SZ(row(rows, n, ".data"), 0x1100, 0x1100, 0x1000 + 0x80, 0x1000,
		  0x1000);
	free(rows);
}

Test(elf_table, sections_across_processes)
{
	size_t n;
	struct exm_row *rows = exm_table_sections(snap, NULL, lib, elf, &n);
	const struct exm_row *r;

	cr_assert_eq(n, 4);
	r = row(rows, n, ".text");
	cr_assert_null(r->proc);
	cr_assert_eq(r->nprocs, 2);
	/* Shared by both: effective sums to the bytes once. */
	ASSERT_SZ(r, 0x3000, 0x3000, 0x1800, 0, 0);
	ASSERT_SZ(row(rows, n, ".bss"), 0x3e00, 0x2e00, 0xf00 + 0x1000, 0x1000,
		  0x1000);
	r = row(rows, n, EXM_GAP_NAME);
	cr_assert_eq(r->size, 0x1800);
	ASSERT_SZ(r, 0x3000, 0x3000, 0x1800, 0, 0);
	free(rows);
}

Test(elf_table, section_procs)
{
	size_t n;
	long si = exm_elf_find_section(elf, ".bss");
	struct exm_row *rows = exm_table_section_procs(snap, lib, elf, si, &n);

	cr_assert_eq(n, 2);
	cr_assert_eq(rows[0].proc->pid, 10);
	ASSERT_SZ(&rows[0], 0x1f00, 0x1f00, 0xf00 / 2 + 0x1000, 0x1000, 0x1000);
	cr_assert_eq(rows[0].nmaps, 2); /* file page + anonymous .bss */
	cr_assert_eq(rows[1].proc->pid, 11);
	ASSERT_SZ(&rows[1], 0x1f00, 0xf00, 0xf00 / 2, 0, 0);
	free(rows);
}

Test(elf_table, symbols)
{
	const struct exm_proc *a = exm_snapshot_find_pid(snap, 10);
	size_t n;
	struct exm_row *rows;

	rows = exm_table_symbols(snap, a, lib, elf,
				 exm_elf_find_section(elf, ".text"), 0, &n);
	cr_assert_eq(n, 3);
	ASSERT_SZ(row(rows, n, "f1"), 0x800, 0x800, 0x400, 0, 0);
	ASSERT_SZ(row(rows, n, "f2"), 0x1000, 0x1000, 0x800, 0, 0);
	ASSERT_SZ(row(rows, n, "_ZN3foo3barEi"), 0x100, 0x100, 0x80, 0, 0);
	cr_assert_eq(row(rows, n, "f2")->addr, 0x1800);
	cr_assert_eq(row(rows, n, "f2")->size, 0x1000);
	cr_assert_eq(rows[0].flags & EXM_ROW_DYNSYM, 0);
	free(rows);

	rows = exm_table_symbols(snap, a, lib, elf,
				 exm_elf_find_section(elf, ".text"),
				 EXM_SYMS_DEMANGLE, &n);
	cr_assert_eq(n, 3);
	row(rows, n, "foo::bar(int)");
	free(rows);

	rows = exm_table_symbols(snap, a, lib, elf,
				 exm_elf_find_section(elf, ".data"), 0, &n);
	cr_assert_eq(n, 2);
	ASSERT_SZ(row(rows, n, "small"), 0x100, 0x100, 0x100, 0x100, 0x100);
	ASSERT_SZ(row(rows, n, "big"), 0x1000, 0x1000, 0xf00 + 0x80, 0xf00,
		  0xf00);
	free(rows);

	rows = exm_table_symbols(snap, a, lib, elf,
				 exm_elf_find_section(elf, ".bss"), 0, &n);
	cr_assert_eq(n, 1);
	ASSERT_SZ(row(rows, n, "zeroes"), 0x1f00, 0x1f00, 0xf00 / 2 + 0x1000,
		  0x1000, 0x1000);
	free(rows);

	/* Every symbol, across processes. */
	rows = exm_table_symbols(snap, NULL, lib, elf, -1, 0, &n);
	cr_assert_eq(n, EG_KEPT_SYMS);
	ASSERT_SZ(row(rows, n, "f1"), 0x1000, 0x1000, 0x800, 0, 0);
	cr_assert_eq(row(rows, n, "f1")->nprocs, 2);
	free(rows);
}

Test(elf_table, lookup_and_texts)
{
	cr_assert_eq(exm_elf_section_lookup(elf, ".bss", 0x5100), 2);
	cr_assert_eq(exm_elf_section_lookup(elf, ".bss", 0x1), 2);
	cr_assert_eq(exm_elf_section_lookup(elf, ".x", 0x5100), -1);
	cr_assert_null(exm_elf_empty_text(elf, false, 4));
	cr_assert_str_eq(exm_elf_empty_text(elf, true, 0),
			 "(no symbols in this section)");
	cr_assert_str_eq(exm_elf_empty_text(exm_elf_state_only(EXM_ELF_NOT_ELF),
					    false, 0),
			 "(not an ELF file)");
}

Test(elf_table, not_elf_gives_no_rows)
{
	const struct exm_elf *bad = exm_elf_state_only(EXM_ELF_REPLACED);
	size_t n = 99;
	struct exm_row *rows = exm_table_sections(snap, NULL, lib, bad, &n);

	cr_assert_not_null(rows);
	cr_assert_eq(n, 0);
	free(rows);
	rows = exm_table_symbols(snap, NULL, lib, bad, 0, 0, &n);
	cr_assert_eq(n, 0);
	free(rows);
	rows = exm_table_symbols(snap, NULL, lib, elf, 99, 0, &n);
	cr_assert_eq(n, 0);
	free(rows);
}

Test(elf_table, dynsym_rows_marked)
{
	struct eg_opts o = { .dynsym = true };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);
	struct exm_elf *d = exm_elf_parse_mem(img, lay.len);
	size_t n;
	struct exm_row *rows = exm_table_symbols(snap, NULL, lib, d, -1, 0, &n);

	cr_assert_eq(n, EG_KEPT_SYMS);
	for (size_t i = 0; i < n; i++)
		cr_assert(rows[i].flags & EXM_ROW_DYNSYM);
	free(rows);
	exm_elf_free(d);
	free(img);
}

/* A mapping whose offset no PT_LOAD covers is all gap, keyed by offset. */
Test(elf_table, mapping_outside_segments)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_proc *p;
	struct exm_mapping *m;
	const struct exm_file *f;
	struct exm_row *rows;
	size_t n;
	uint64_t vm = 0;

	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE;
	p = mkproc(s, 20);
	m = mkmap(p, 0x900000, 0x2000, 0x10000, EXM_PERM_R, true);
	add(m, 0, FILEPG(5000));
	cr_assert_eq(exm_snapshot_account(s), 0);
	f = exm_snapshot_find_file(s, LIB);
	rows = exm_table_sections(s, &s->procs[0], f, elf, &n);
	cr_assert_eq(n, 4);
	for (size_t i = 0; i < n; i++)
		vm += rows[i].sz.vm;
	cr_assert_eq(vm, 0x2000);
	ASSERT_SZ(row(rows, n, EXM_GAP_NAME), 0x2000, 0x1000, 0x1000, 0x1000,
		  0);
	cr_assert_eq(row(rows, n, EXM_GAP_NAME)->addr, 0x10000);
	free(rows);
	exm_snapshot_free(s);
}

/*
 * Two segments sharing a file page (a small executable: the read-only
 * segment at offset 0x2000 and the data segment at 0x2df8): both mappings
 * have offset 0x2000; each must get its own segment, hence bias X.
 */
Test(elf_table, segments_sharing_a_file_page)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(Elf64_Ehdr));
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_elf *e2;
	struct exm_elf_region *r;
	struct exm_proc *p;
	const struct exm_file *f;
	long n;

	ph[0].p_offset = 0x2000;
	ph[0].p_vaddr = 0x2000;
	ph[0].p_filesz = ph[0].p_memsz = 0x110;
	ph[0].p_flags = PF_R;
	ph[1].p_offset = 0x2df8;
	ph[1].p_vaddr = 0x3df8;
	ph[1].p_filesz = 0x260;
	ph[1].p_memsz = 0x298;
	e2 = exm_elf_parse_mem(img, lay.len);
	cr_assert_eq(e2->nsegs, 2);
	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE;
	p = mkproc(s, 30);
	mkmap(p, XA + 0x2000, 0x1000, 0x2000, EXM_PERM_R, true);
	mkmap(p, XA + 0x3000, 0x1000, 0x2000, EXM_PERM_R | EXM_PERM_W, true);
	p = mkproc(s, 31); /* only the data mapping: perms decide */
	mkmap(p, XB + 0x3000, 0x1000, 0x2000, EXM_PERM_R | EXM_PERM_W, true);
	cr_assert_eq(exm_snapshot_account(s), 0);
	f = exm_snapshot_find_file(s, LIB);
	n = exm_elf_regions(s, &s->procs[0], f, e2, &r);
	cr_assert_eq(n, 2);
	cr_assert_eq(r[0].bias, XA);
	cr_assert_eq(r[1].bias, XA);
	free(r);
	n = exm_elf_regions(s, &s->procs[1], f, e2, &r);
	cr_assert_eq(n, 1);
	cr_assert_eq(r[0].bias, XB);
	free(r);
	exm_snapshot_free(s);
	exm_elf_free(e2);
	free(img);
}
