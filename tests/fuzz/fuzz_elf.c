// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_elf.c - libFuzzer target for the ELF parser and the section/symbol
 * attribution on arbitrary bytes.
 *
 * Each input is parsed (from memory, and through a memfd like a mapped
 * file), then mapped into two synthetic processes of a hand-built snapshot
 * the way ld.so would map it (one mapping per PT_LOAD, an anonymous
 * mapping after a segment whose p_memsz exceeds p_filesz), and every table
 * of core/elf_table.c is built. Besides the sanitizers, two invariants
 * are checked: when no two sections overlap, the section rows (with gap
 * rows) of a process add up exactly to the bytes of its regions; and the
 * build-id read alone (exm_elf_build_id_*, the recorder's way) is the one
 * the full parse finds.
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer; built without
 * libFuzzer as tests/fuzz/replay to replay tests/fuzz/corpus in make check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/account.h"
#include "core/elf.h"
#include "core/elf_table.h"
#include "core/pagemap.h"
#include "core/snapshot.h"
#include "tests/unit/snapgen.h"

#define PS 4096u
#define MAX_MAP_PAGES 16
#define MAX_LOADS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t pd(uint64_t x)
{
	return x & ~(uint64_t)(PS - 1);
}

/* Map e into a new process of s at base, with page words from data. */
static void map_proc(struct exm_snapshot *s, const struct exm_elf *e, pid_t pid,
		     uint64_t base, const uint8_t *data, size_t size)
{
	struct exm_proc *p = snapgen_proc(s, pid, "fuzz");
	uint64_t last_end = 0;
	size_t nl = 0, k = 0;

	if (!p)
		return;
	for (size_t i = 0; i < e->nsegs && nl < MAX_LOADS; i++, nl++) {
		const struct exm_elf_segment *g = &e->segs[i];
		uint64_t start = base + pd(g->vaddr & 0xffffffffu);
		uint64_t fpages = (g->vaddr % PS + g->filesz + PS - 1) / PS;
		uint64_t mpages = (g->vaddr % PS + g->memsz + PS - 1) / PS;
		struct exm_mapping *m;

		if (fpages > MAX_MAP_PAGES)
			fpages = MAX_MAP_PAGES;
		if (mpages > MAX_MAP_PAGES)
			mpages = MAX_MAP_PAGES;
		if (!fpages || start < last_end)
			continue; /* mappings stay sorted, never overlap */
		m = exm_proc_add_mapping(p);
		if (!m)
			return;
		m->start = start;
		m->end = start + fpages * PS;
		m->offset = pd(g->offset);
		m->perms = EXM_PERM_R | ((g->flags & 2) ? EXM_PERM_W : 0);
		m->kind = EXM_KIND_FILE;
		m->inode = 4242;
		m->dev_major = 8;
		m->name = strdup("/fuzz/lib.so");
		for (uint64_t pg = 0; pg < fpages; pg++, k++) {
			uint8_t b = size ? data[k % size] : 0;

			if (b & 1)
				exm_mapping_add_page(m, m->start / PS + pg,
						     EXM_PM_PRESENT |
							     EXM_PM_FILE |
							     (uint64_t)(1 +
									b % 5));
		}
		last_end = m->end;
		if (mpages > fpages) {
			m = exm_proc_add_mapping(p);
			if (!m)
				return;
			m->start = last_end;
			m->end = start + mpages * PS;
			m->perms = EXM_PERM_R | EXM_PERM_W;
			m->kind = EXM_KIND_ANON;
			m->name = strdup("");
			for (uint64_t pg = 0; pg < mpages - fpages; pg++, k++)
				exm_mapping_add_page(
					m, m->start / PS + pg,
					EXM_PM_PRESENT | EXM_PM_EXCLUSIVE |
						(uint64_t)(100 + pid * 64 +
							   k % 64));
			last_end = m->end;
		}
	}
}

static bool sections_overlap(const struct exm_elf *e)
{
	for (size_t i = 1; i < e->nsecs; i++)
		if (e->secs[i - 1].addr + e->secs[i - 1].size > e->secs[i].addr)
			return true;
	return false;
}

static void attribute(const struct exm_elf *e, const uint8_t *data, size_t size)
{
	struct exm_snapshot *s = exm_snapshot_new();
	const struct exm_file *f;
	struct exm_row *rows;
	size_t n;

	if (!s)
		return;
	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE;
	map_proc(s, e, 1, UINT64_C(0x10000000000), data, size);
	map_proc(s, e, 2, UINT64_C(0x20000000000), data, size);
	if (exm_snapshot_account(s))
		goto out;
	f = exm_snapshot_find_file(s, "/fuzz/lib.so");
	if (!f)
		goto out;
	for (size_t pi = 0; pi < s->nprocs; pi++) {
		const struct exm_proc *p = &s->procs[pi];
		struct exm_elf_region *regs;
		long nr = exm_elf_regions(s, p, f, e, &regs);
		uint64_t want = 0, got = 0;

		for (long i = 0; i < nr; i++)
			want += regs[i].end - regs[i].start;
		free(regs);
		rows = exm_table_sections(s, p, f, e, &n);
		for (size_t i = 0; rows && i < n; i++)
			got += rows[i].sz.vm;
		free(rows);
		if (e->state == EXM_ELF_OK && !sections_overlap(e) &&
		    got != want) {
			fprintf(stderr, "rows add up to %llu, regions %llu\n",
				(unsigned long long)got,
				(unsigned long long)want);
			abort();
		}
		for (long si = -1; si < (long)e->nsecs && si < 4; si++) {
			rows = exm_table_symbols(s, p, f, e, si,
						 EXM_SYMS_DEMANGLE, &n);
			free(rows);
		}
	}
	rows = exm_table_sections(s, NULL, f, e, &n);
	free(rows);
	rows = exm_table_section_procs(s, f, e, 0, &n);
	free(rows);
out:
	exm_snapshot_free(s);
}

/* The build-id alone (what the recorder reads) is the full parse's. */
static void check_build_id(const struct exm_elf *e, const unsigned char *id,
			   size_t n)
{
	if (n != e->build_id_len || (n && memcmp(id, e->build_id, n))) {
		fprintf(stderr, "build-id alone: %zu bytes, parsed: %zu\n", n,
			e->build_id_len);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exm_elf *e = exm_elf_parse_mem(data, size);
	unsigned char id[sizeof(e->build_id)];
	int fd;

	if (!e)
		return 0;
	check_build_id(e, id, exm_elf_build_id_mem(data, size, id, sizeof(id)));
	for (size_t i = 0; i < e->nsyms && i < 64; i++)
		exm_elf_sym_name(e, i, true);
	exm_elf_find_section(e, ".text");
	attribute(e, data, size);
	exm_elf_free(e);

	/* The file path: pread through libelf, no debug file lookup. */
	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, data, size) == (ssize_t)size) {
			e = exm_elf_parse_fd(fd, NULL, EXM_ELF_NO_DEBUG);
			if (e)
				check_build_id(e, id,
					       exm_elf_build_id_fd(fd, id,
								   sizeof(id)));
			exm_elf_free(e);
		}
		close(fd);
	}
	return 0;
}
