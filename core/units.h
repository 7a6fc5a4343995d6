/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * units.h - executable units (programs and libraries) as the USENIX '05
 * physical memory analysis paper counts them:
 *
 * - per unit across all processes (its Figure 6): the sizes of each
 *   executable or library split into text, data and bss from its ELF
 *   sections, with the number of processes mapping it;
 * - per process (its Figure 2): stack, heap, program text/data/bss,
 *   library text/data/bss, other anonymous memory, everything else, and
 *   the single-use (sole) and shared resident bytes.
 *
 * Classification, byte by byte (docs/DESIGN.md section 5 for the attribution):
 * a section with SHT_NOBITS is bss, one with SHF_WRITE is data (.data,
 * .data.rel.ro, .got, .init_array, ...), any other allocated section is
 * text (.text, .rodata, .eh_frame, ...). Bytes no section covers count by
 * their PT_LOAD (writable: data, else text); the anonymous mapping right
 * after a data segment, up to its p_memsz, is bss. TLS .tbss takes no
 * address space and is skipped. A file that cannot be parsed counts by
 * mapping permission (writable: data, else text).
 *
 * A unit is a regular file some process maps with execute permission. A
 * process's program is the unit it maps at the lowest address (the
 * executable is mapped before its heap and libraries).
 */
#ifndef EXM_UNITS_H
#define EXM_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "core/elf.h"
#include "core/elfcache.h"
#include "core/snapshot.h"

enum exm_seg { EXM_SEG_TEXT = 0, EXM_SEG_DATA, EXM_SEG_BSS, EXM_SEG__COUNT };

/* "text", "data", "bss". */
const char *exm_seg_name(enum exm_seg s);

/*
 * Where the ELF of a file comes from: get() returns the parsed file f as
 * process p maps it (p NULL: as any process maps it), never NULL for a
 * file mapping (a state-only object when it cannot be parsed), and keeps
 * it valid until the next get() call.
 */
struct exm_elf_lookup {
	const struct exm_elf *(*get)(void *ctx, const struct exm_snapshot *snap,
				     const struct exm_proc *p,
				     const struct exm_file *f);
	void *ctx;
};

/* The usual lookup: through an ELF cache (elfcache.h). */
struct exm_elf_lookup_cache {
	struct exm_elfcache *cache;
	const char *proc_root; /* NULL: /proc (snap->sys has no root yet) */
};
const struct exm_elf *exm_elf_lookup_cached(void *ctx,
					    const struct exm_snapshot *snap,
					    const struct exm_proc *p,
					    const struct exm_file *f);

struct exm_unit {
	const struct exm_file *file;
	uint32_t nprocs;	      /* processes mapping it as code */
	enum exm_elf_state elf_state; /* EXM_ELF_OK: split by sections */
	struct exm_sizes seg[EXM_SEG__COUNT];
	struct exm_sizes total; /* the three added */
};

/*
 * One row per unit, in snap->files order. *out is malloc'd (caller frees;
 * rows borrow from snap). 0 or -ENOMEM.
 */
int exm_units_table(const struct exm_snapshot *snap,
		    const struct exm_elf_lookup *lk, struct exm_unit **out,
		    size_t *n);

enum exm_bd {
	EXM_BD_STACK = 0,
	EXM_BD_HEAP,
	EXM_BD_PROG_TEXT,
	EXM_BD_PROG_DATA,
	EXM_BD_PROG_BSS,
	EXM_BD_LIB_TEXT,
	EXM_BD_LIB_DATA,
	EXM_BD_LIB_BSS,
	EXM_BD_ANON,  /* other anonymous private memory */
	EXM_BD_OTHER, /* shared memory, other files, vdso, devices, ... */
	EXM_BD__COUNT
};

/* Stable lowercase key ("stack", "heap", "prog_text", ..., "other"). */
const char *exm_bd_key(enum exm_bd b);

struct exm_breakdown {
	const struct exm_proc *proc;
	const struct exm_file *program; /* NULL: no executable unit mapped */
	struct exm_sizes part[EXM_BD__COUNT]; /* add up to proc->sz */
	/* Resident bytes on pages mapped once (proc->sz.sole) and
	 * the rest of its resident bytes; valid when has_sole. */
	uint64_t sole, shared;
	bool has_sole;
};

/*
 * One row per process of snap, in snap->procs order. *out is malloc'd
 * (caller frees; rows borrow from snap). 0 or -ENOMEM.
 */
int exm_breakdown_table(const struct exm_snapshot *snap,
			const struct exm_elf_lookup *lk,
			struct exm_breakdown **out, size_t *n);

#endif
