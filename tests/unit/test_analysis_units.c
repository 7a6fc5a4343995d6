// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Executable units and the per-process breakdown (core/units.c) on a
 * hand-built snapshot whose files are the standard elfgen.h image:
 *
 *   PT_LOAD r-x offset 0x0000 vaddr 0x0000 filesz 0x3000
 *   PT_LOAD rw- offset 0x3000 vaddr 0x4000 filesz 0x1100 memsz 0x3000
 *   .text [0x1000, 0x2800)  .data [0x4000, 0x5100)  .bss [0x5100, 0x7000)
 *
 * Mapped at base B: r-xp [B, B+0x3000) offset 0, rw-p [B+0x4000, B+0x6000)
 * offset 0x3000, anonymous rw-p [B+0x6000, B+0x7000) (.bss). So text is
 * 3 pages, data 0x1100 bytes, bss 0xf00 (in the file page) + 0x1000.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "tests/unit/anagen.h"
#include "tests/unit/elfgen.h"

#define EXE "/bin/prog"
#define LIB "/lib/libu.so"
#define EXE_B 0x400000u
#define LIB_B 0x7f0000000000u

static struct exm_elf *elf;
static int lookups;

static const struct exm_elf *get(void *ctx, const struct exm_snapshot *snap,
				 const struct exm_proc *p,
				 const struct exm_file *f)
{
	(void)ctx;
	(void)snap;
	(void)p;
	(void)f;
	lookups++;
	return elf;
}

static const struct exm_elf_lookup lk = { .get = get };

/* Map the image at base b as name/inode; text pages are the file's
 * frames tf + 0..2 (shared), data and bss frames private (df + 0..2). */
static void map_image(struct exm_proc *p, uint64_t b, const char *name,
		      uint64_t ino, uint64_t tf, uint64_t df)
{
	struct exm_mapping *m;

	m = ag_map(p, b, 3, RX, name, ino, 0, EXM_KIND_FILE);
	for (int i = 0; i < 3; i++)
		ag_page(m, i, PG(tf + i, EXM_PM_FILE));
	m = ag_map(p, b + 0x4000, 2, RW, name, ino, 0x3000, EXM_KIND_FILE);
	ag_page(m, 0, PG(df, EXM_PM_EXCLUSIVE));
	ag_page(m, 1, PG(df + 1, EXM_PM_EXCLUSIVE));
	m = ag_map(p, b + 0x6000, 1, RW, "", 0, 0, EXM_KIND_ANON);
	ag_page(m, 0, PG(df + 2, EXM_PM_EXCLUSIVE));
}

/* Process pid: EXE and LIB, heap 2 pages, stack 1, anon 1, shm 1. */
static void mkproc(struct exm_snapshot *s, pid_t pid, uint64_t df)
{
	struct exm_proc *p = ag_proc(s, pid);
	struct exm_mapping *m;

	map_image(p, EXE_B, EXE, 1, 100, df);
	m = ag_map(p, 0x1000000, 2, RW, "[heap]", 0, 0, EXM_KIND_HEAP);
	ag_page(m, 0, PG(df + 10, EXM_PM_EXCLUSIVE));
	ag_page(m, 1, PG(df + 11, EXM_PM_EXCLUSIVE));
	m = ag_map(p, 0x7e0000000000u, 1, RW, "", 0, 0, EXM_KIND_ANON);
	ag_page(m, 0, PG(df + 12, EXM_PM_EXCLUSIVE));
	map_image(p, LIB_B, LIB, 2, 200, df + 20);
	m = ag_map(p, 0x7f1000000000u, 1, RW | EXM_PERM_S, "/SYSV0", 9, 0,
		   EXM_KIND_SHMEM);
	ag_page(m, 0, PG(300, EXM_PM_FILE));
	m = ag_map(p, 0x7ffff0000000u, 1, RW, "[stack]", 0, 0, EXM_KIND_STACK);
	ag_page(m, 0, PG(df + 13, EXM_PM_EXCLUSIVE));
}

static struct exm_snapshot *two_procs(void)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);
	struct exm_snapshot *s;

	elf = exm_elf_parse_mem(img, lay.len);
	free(img);
	cr_assert_eq(elf->state, EXM_ELF_OK);
	s = ag_snap();
	mkproc(s, 10, 1000);
	mkproc(s, 11, 2000);
	ag_account(s);
	lookups = 0;
	return s;
}

static const struct exm_unit *unit(const struct exm_unit *u, size_t n,
				   const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(u[i].file->name, name))
			return &u[i];
	cr_assert_fail("no unit %s", name);
	return NULL;
}

Test(units, text_data_bss_across_processes)
{
	struct exm_snapshot *s = two_procs();
	struct exm_unit *u;
	const struct exm_unit *l;
	size_t n;

	cr_assert_eq(exm_units_table(s, &lk, &u, &n), 0);
	cr_assert_eq(n, 2, "the executable and the library; not shm");
	cr_assert_eq(lookups, 2, "one ELF lookup per file");
	l = unit(u, n, LIB);
	cr_assert_eq(l->nprocs, 2);
	cr_assert_eq(l->elf_state, EXM_ELF_OK);
	cr_assert_eq(l->seg[EXM_SEG_TEXT].vm, 2 * 3 * PS);
	cr_assert_eq(l->seg[EXM_SEG_TEXT].rss, 2 * 3 * PS);
	/* text frames shared by the two: each pays half */
	cr_assert_float_eq(l->seg[EXM_SEG_TEXT].erss, 3.0 * PS, 1e-6);
	cr_assert_eq(l->seg[EXM_SEG_DATA].vm, 2 * 0x1100);
	cr_assert_eq(l->seg[EXM_SEG_DATA].rss, 2 * 0x1100);
	cr_assert_float_eq(l->seg[EXM_SEG_DATA].erss, 2.0 * 0x1100, 1e-6);
	cr_assert_eq(l->seg[EXM_SEG_BSS].vm, 2 * (0xf00 + PS));
	cr_assert_eq(l->seg[EXM_SEG_BSS].rss, 2 * (0xf00 + PS));
	cr_assert_eq(l->total.rss, 2 * 6 * PS);
	cr_assert_float_eq(l->total.erss, 3.0 * PS + 2 * 3 * PS, 1e-6);
	cr_assert_eq(strcmp(exm_seg_name(EXM_SEG_BSS), "bss"), 0);
	free(u);
	exm_snapshot_free(s);
	exm_elf_free(elf);
}

Test(units, unparsable_file_counts_by_permission)
{
	struct exm_snapshot *s = two_procs();
	struct exm_unit *u;
	const struct exm_unit *l;
	struct exm_elf *good = elf;
	size_t n;

	elf = (struct exm_elf *)exm_elf_state_only(EXM_ELF_UNREADABLE);
	cr_assert_eq(exm_units_table(s, &lk, &u, &n), 0);
	l = unit(u, n, LIB);
	cr_assert_eq(l->elf_state, EXM_ELF_UNREADABLE);
	cr_assert_eq(l->seg[EXM_SEG_TEXT].vm, 2 * 3 * PS);
	cr_assert_eq(l->seg[EXM_SEG_DATA].vm, 2 * 2 * PS);
	cr_assert_eq(l->seg[EXM_SEG_BSS].vm, 0, "no .bss without the ELF");
	free(u);
	exm_snapshot_free(s);
	exm_elf_free(good);
}

Test(breakdown, one_row_per_process_adding_up)
{
	struct exm_snapshot *s = two_procs();
	struct exm_breakdown *b;
	size_t n;

	cr_assert_eq(exm_breakdown_table(s, &lk, &b, &n), 0);
	cr_assert_eq(n, 2);
	for (size_t i = 0; i < n; i++) {
		const struct exm_proc *p = &s->procs[i];
		struct exm_sizes sum = { 0 };

		cr_assert_eq(b[i].proc, p);
		cr_assert_str_eq(b[i].program->name, EXE);
		cr_assert_eq(b[i].part[EXM_BD_STACK].rss, PS);
		cr_assert_eq(b[i].part[EXM_BD_HEAP].rss, 2 * PS);
		cr_assert_eq(b[i].part[EXM_BD_ANON].rss, PS,
			     "the .bss pages are not anonymous memory");
		cr_assert_eq(b[i].part[EXM_BD_OTHER].rss, PS); /* shm */
		cr_assert_eq(b[i].part[EXM_BD_PROG_TEXT].rss, 3 * PS);
		cr_assert_float_eq(b[i].part[EXM_BD_PROG_TEXT].erss, 1.5 * PS,
				   1e-6);
		cr_assert_eq(b[i].part[EXM_BD_PROG_DATA].rss, 0x1100);
		cr_assert_eq(b[i].part[EXM_BD_PROG_BSS].rss, 0xf00 + PS);
		cr_assert_eq(b[i].part[EXM_BD_LIB_TEXT].vm, 3 * PS);
		cr_assert_eq(b[i].part[EXM_BD_LIB_DATA].vm, 0x1100);
		cr_assert_eq(b[i].part[EXM_BD_LIB_BSS].vm, 0xf00 + PS);
		for (int k = 0; k < EXM_BD__COUNT; k++)
			exm_sizes_add(&sum, &b[i].part[k]);
		cr_assert_eq(sum.vm, p->sz.vm);
		cr_assert_eq(sum.rss, p->sz.rss);
		cr_assert_eq(sum.sole, p->sz.sole);
		cr_assert_float_eq(sum.erss, p->sz.erss, 1e-6);
		cr_assert(b[i].has_sole);
		/* shared: text of both images and the shm page */
		cr_assert_eq(b[i].shared, 7 * PS);
		cr_assert_eq(b[i].sole + b[i].shared, p->sz.rss);
	}
	cr_assert_str_eq(exm_bd_key(EXM_BD_PROG_BSS), "prog_bss");
	for (int k = 0; k < EXM_BD__COUNT; k++)
		cr_assert_str_neq(exm_bd_key(k), "?");
	free(b);
	exm_snapshot_free(s);
	exm_elf_free(elf);
}

Test(breakdown, heap_after_bss_is_split)
{
	/* A non-PIE program: the anonymous .bss page is followed directly
	 * by [heap], which exm_elf_regions() treats as .bss up to p_memsz. */
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);
	struct exm_snapshot *s;
	struct exm_proc *p;
	struct exm_mapping *m;
	struct exm_breakdown *b;
	size_t n;

	elf = exm_elf_parse_mem(img, lay.len);
	free(img);
	s = ag_snap();
	p = ag_proc(s, 10);
	m = ag_map(p, EXE_B, 3, RX, EXE, 1, 0, EXM_KIND_FILE);
	ag_page(m, 0, PG(100, EXM_PM_FILE));
	m = ag_map(p, EXE_B + 0x4000, 2, RW, EXE, 1, 0x3000, EXM_KIND_FILE);
	m = ag_map(p, EXE_B + 0x6000, 4, RW, "[heap]", 0, 0, EXM_KIND_HEAP);
	for (int i = 0; i < 4; i++)
		ag_page(m, i, PG(500 + i, EXM_PM_EXCLUSIVE));
	ag_account(s);
	cr_assert_eq(exm_breakdown_table(s, &lk, &b, &n), 0);
	cr_assert_eq(b[0].part[EXM_BD_PROG_BSS].vm, 0xf00 + PS);
	cr_assert_eq(b[0].part[EXM_BD_PROG_BSS].rss, PS);
	cr_assert_eq(b[0].part[EXM_BD_HEAP].vm, 3 * PS);
	cr_assert_eq(b[0].part[EXM_BD_HEAP].rss, 3 * PS);
	free(b);
	exm_snapshot_free(s);
	exm_elf_free(elf);
}
