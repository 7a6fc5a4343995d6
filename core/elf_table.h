/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elf_table.h - ELF sections and symbols as rows (table.h), with every size
 * of the core, attributed as docs/DESIGN.md section 5 says:
 *
 * - each mapping of the file is tied to the PT_LOAD segment holding its file
 *   offset, which gives the load bias (start - off) - (p_vaddr - p_offset);
 *   an ELF address a lives at a + bias in the process;
 * - the anonymous mapping right after a segment's file pages, up to the end
 *   of its p_memsz (.bss), belongs to the file too;
 * - sections (SHF_ALLOC, sh_addr != 0) and symbols are ELF address ranges;
 *   their sizes are byte-granular (exm_range_sizes());
 * - bytes of those regions no section covers are shown as one gap row per
 *   region (flag EXM_ROW_GAP, name "[gap]"), so the section rows of a
 *   process add up exactly to the regions they come from.
 *
 * Two contexts: a file within one process (p != NULL: that process's
 * sizes), and a file across all processes (p == NULL: sums over every
 * process mapping it; nprocs says how many). Rows borrow names from the
 * exm_elf (owned by the ELF cache) and pointers from the snapshot.
 */
#ifndef EXM_ELF_TABLE_H
#define EXM_ELF_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/elf.h"
#include "core/snapshot.h"
#include "core/table.h"

#define EXM_GAP_NAME "[gap]"

/* One piece of a process's address space that belongs to the file. */
struct exm_elf_region {
	const struct exm_mapping *map; /* the mapping it lies in */
	uint64_t start, end;	       /* process addresses */
	uint64_t bias;		       /* process address - ELF address */
	bool has_bias;		       /* false: no PT_LOAD matched */
	bool bss;		       /* anonymous part after a segment */
};

/*
 * The regions of process p that belong to file f, parsed as e, in address
 * order. *out is malloc'd (caller frees); returns the count, or -ENOMEM.
 */
long exm_elf_regions(const struct exm_snapshot *snap, const struct exm_proc *p,
		     const struct exm_file *f, const struct exm_elf *e,
		     struct exm_elf_region **out);

/*
 * Section rows (EXM_T_SECTIONS): every section of e, then gap rows. p NULL:
 * across all processes. Caller frees the array; NULL on ENOMEM (*n = 0).
 * A file whose state is not OK gives zero rows.
 */
struct exm_row *exm_table_sections(const struct exm_snapshot *snap,
				   const struct exm_proc *p,
				   const struct exm_file *f,
				   const struct exm_elf *e, size_t *n);

#define EXM_SYMS_DEMANGLE (1u << 0) /* row names demangled (C++) */

/*
 * Symbol rows (EXM_T_SYMBOLS) of the symbols whose address lies in section
 * secidx of e (index into e->secs; -1: every symbol). EXM_ROW_DYNSYM is set
 * when the symbols come from .dynsym. Same ownership as above.
 */
struct exm_row *exm_table_symbols(const struct exm_snapshot *snap,
				  const struct exm_proc *p,
				  const struct exm_file *f,
				  const struct exm_elf *e, long secidx,
				  unsigned flags, size_t *n);

/*
 * The per-process breakdown of one section across processes: one row per
 * process mapping f (proc set; name, addr and size of the section; nmaps:
 * the number of mappings it lies in; the sizes of that process). Columns
 * as EXM_T_FPROCS. Same ownership.
 */
struct exm_row *exm_table_section_procs(const struct exm_snapshot *snap,
					const struct exm_file *f,
					const struct exm_elf *e, long secidx,
					size_t *n);

/* Index of the section with this name and address, else by name only,
 * else -1. */
long exm_elf_section_lookup(const struct exm_elf *e, const char *name,
			    uint64_t addr);

/* Text to show instead of an empty table: the file's state, "(no
 * symbols)" for a symbol table without symbols, or NULL if rows exist. */
const char *exm_elf_empty_text(const struct exm_elf *e, bool symbols,
			       size_t nrows);

#endif
