// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_view_elf.c - the ELF views of the live UI (tui/screen/view_elf.c), without
 * curses: rows, "why" texts, breadcrumbs, the demangling toggle and what
 * Enter / 'e' open, on a hand-built snapshot of a process mapping an
 * elfgen image written to a temporary file (opened by path: the process
 * does not exist, so map_files fails over to the path).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/account.h"
#include "core/elf_table.h"
#include "core/pagemap.h"
#include "core/snapshot.h"
#include "core/table.h"
#include "tests/unit/elfgen.h"
#include "tests/unit/snapgen.h"
#include "tui/screen/view.h"
#include "tui/screen/view_elf.h"
#include "tui/screen/views.h"

#define PID 999999 /* no such process */

static char dir[] = "/tmp/exm_viewelf_XXXXXX";
static char path[512];
static struct exm_snapshot *snap;
static struct tui_ident file_id, proc_id;

static void write_file(const void *buf, size_t len)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static void make_snapshot(void)
{
	struct exm_proc *p;
	struct exm_mapping *m;
	struct exm_row *rows;
	struct stat st;
	size_t n;

	cr_assert_eq(stat(path, &st), 0);
	snap = exm_snapshot_new();
	snap->sys.page_size = 4096;
	snap->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE;
	p = snapgen_proc(snap, PID, "c");
	cr_assert_not_null(p);
	m = exm_proc_add_mapping(p);
	m->start = 0x400000;
	m->end = 0x403000;
	m->perms = EXM_PERM_R | EXM_PERM_X;
	m->kind = EXM_KIND_FILE;
	m->inode = st.st_ino;
	m->name = strdup(path);
	cr_assert_eq(exm_mapping_add_page(m, 0x401, EXM_PM_PRESENT | 7), 0);
	cr_assert_eq(exm_snapshot_account(snap), 0);
	rows = exm_table_files(snap, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(tui_ident_of_row(EXM_T_FILES, &rows[0], &file_id), 0);
	free(rows);
	rows = exm_table_procs(snap, &n);
	cr_assert_eq(tui_ident_of_row(EXM_T_PROCS, &rows[0], &proc_id), 0);
	free(rows);
}

static void setup_elf(void)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	write_file(img, lay.len);
	free(img);
	make_snapshot();
}

static void teardown(void)
{
	tui_ident_fini(&file_id);
	tui_ident_fini(&proc_id);
	exm_snapshot_free(snap);
	tui_view_elf_fini();
	unlink(path);
	rmdir(dir);
}

/* A view of ops about ctx (+ proc when with_proc, + name/addr). */
static struct tui_view *open_view(const struct tui_view_ops *ops,
				  bool with_proc, const char *name,
				  uint64_t addr)
{
	struct tui_ident ctx;
	struct tui_build b = { .snap = snap };
	struct tui_view *v;

	cr_assert_eq(tui_ident_copy(&ctx, &file_id), 0);
	if (with_proc)
		cr_assert_eq(tui_ident_merge(&ctx, &proc_id), 0);
	if (name) {
		ctx.id.has_name = true;
		ctx.id.name = strdup(name);
		ctx.id.has_addr = true;
		ctx.id.addr = addr;
	}
	v = tui_view_new(ops, &ctx);
	tui_ident_fini(&ctx);
	cr_assert_not_null(v);
	cr_assert_eq(tui_view_refresh(v, &b), 0);
	return v;
}

static bool has_row(const struct tui_view *v, const char *name)
{
	for (size_t i = 0; i < v->nrows; i++)
		if (!strcmp(v->rows[i].name, name))
			return true;
	return false;
}

TestSuite(view_elf, .init = setup_elf, .fini = teardown);

Test(view_elf, sections_in_a_process_and_across)
{
	struct tui_view *v = open_view(&tui_view_sections, true, NULL, 0);
	char crumb[256];

	cr_assert_null(v->why);
	cr_assert(has_row(v, ".text") && has_row(v, ".data") &&
		  has_row(v, ".bss") && has_row(v, EXM_GAP_NAME));
	v->ops->crumb(v, crumb, sizeof(crumb));
	cr_assert_str_eq(crumb, "lib.so: sections");
	for (size_t i = 0; i < v->nrows; i++)
		if (!strcmp(v->rows[i].name, ".text"))
			cr_assert_eq(v->rows[i].sz.rss, 0x1000);
	tui_view_free(v);

	v = open_view(&tui_view_sections, false, NULL, 0);
	v->ops->crumb(v, crumb, sizeof(crumb));
	cr_assert_str_eq(crumb, "lib.so: sections (all processes)");
	cr_assert(has_row(v, ".text"));
	tui_view_free(v);
}

Test(view_elf, symbols_and_demangling)
{
	struct tui_view *v = open_view(&tui_view_symbols, true, ".text",
				       0x1000);
	struct tui_build b = { .snap = snap };
	char crumb[256];

	cr_assert_null(v->why);
	cr_assert_eq(v->nrows, 3);
	cr_assert(tui_elf_demangle());
	cr_assert(has_row(v, "foo::bar(int)"));
	v->ops->crumb(v, crumb, sizeof(crumb));
	cr_assert_str_eq(crumb, ".text: symbols (symtab)");
	cr_assert_not(tui_elf_toggle_demangle());
	cr_assert_eq(tui_view_refresh(v, &b), 0);
	cr_assert(has_row(v, "_ZN3foo3barEi"));
	cr_assert(tui_elf_toggle_demangle());
	tui_view_free(v);

	/* A section name the file does not have. */
	v = open_view(&tui_view_symbols, true, ".nothere", 0x1234);
	cr_assert_eq(v->nrows, 0);
	cr_assert_str_eq(v->why, "(no such section in the file)");
	tui_view_free(v);
}

Test(view_elf, section_breakdown)
{
	struct tui_view *v = open_view(&tui_view_section_procs, false, ".text",
				       0x1000);

	cr_assert_eq(v->nrows, 1);
	cr_assert_eq(v->rows[0].proc->pid, PID);
	cr_assert_eq(v->rows[0].sz.rss, 0x1000);
	tui_view_free(v);
}

Test(view_elf, what_enter_opens)
{
	struct tui_view *v = open_view(&tui_view_sections, true, NULL, 0);
	struct exm_row gap = { .name = EXM_GAP_NAME, .flags = EXM_ROW_GAP };
	struct exm_row sec = { .name = ".text", .addr = 0x1000 };
	struct tui_view *m;

	cr_assert_eq(tui_view_child(v, &sec, false), &tui_view_symbols);
	cr_assert_eq(tui_view_child(v, &sec, true), &tui_view_section_procs);
	cr_assert_null(tui_view_child(v, &gap, false));
	tui_view_free(v);
	m = open_view(&tui_view_mappings, true, NULL, 0);
	cr_assert_eq(tui_view_child(m, &sec, false), &tui_view_strip);
	cr_assert_eq(tui_view_child(m, &sec, true), &tui_view_sections);
	tui_view_free(m);
	m = open_view(&tui_view_pfiles, true, NULL, 0);
	cr_assert_eq(tui_view_child(m, &sec, true), &tui_view_sections);
	tui_view_free(m);
	m = open_view(&tui_view_files, false, NULL, 0);
	cr_assert_eq(tui_view_child(m, &sec, true), &tui_view_sections);
	tui_view_free(m);
}

Test(view_elf, not_an_elf_file)
{
	struct tui_view *v;

	exm_snapshot_free(snap);
	tui_ident_fini(&file_id);
	tui_ident_fini(&proc_id);
	write_file("just text\n", 10);
	make_snapshot();
	v = open_view(&tui_view_sections, true, NULL, 0);
	cr_assert_eq(v->nrows, 0);
	cr_assert_str_eq(v->why, "(not an ELF file)");
	tui_view_free(v);
}

Test(view_elf, file_no_longer_mapped)
{
	struct tui_view *v;
	struct tui_build b;
	struct exm_snapshot *empty = exm_snapshot_new();

	v = open_view(&tui_view_sections, false, NULL, 0);
	cr_assert_eq(exm_snapshot_account(empty), 0);
	b = (struct tui_build){ .snap = empty };
	cr_assert_eq(tui_view_refresh(v, &b), 0);
	cr_assert_eq(v->nrows, 0);
	cr_assert_str_eq(v->why, "(no process maps this file any more)");
	tui_view_free(v);
	exm_snapshot_free(empty);
}
