/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * table.h - rows: the one shape in which every list of exmtop (processes,
 * files, a process's files, a file's processes, mappings, ELF sections,
 * symbols, groups) is sorted, filtered and printed by batch and TUI alike.
 *
 * A row borrows pointers into the snapshot (and, for ELF rows, the ELF
 * cache); it is valid until the snapshot it came from is freed. Arrays
 * returned by the exm_table_* builders are owned by the caller (free()).
 */
#ifndef EXM_TABLE_H
#define EXM_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

enum exm_table {
	EXM_T_PROCS = 0, /* one row per process */
	EXM_T_FILES,	 /* one row per file/kind across all processes */
	EXM_T_PFILES,	 /* files/kinds within one process */
	EXM_T_FPROCS,	 /* processes mapping one file */
	EXM_T_MAPPINGS,	 /* mappings of one file in one process */
	EXM_T_SECTIONS,	 /* ELF sections (ELF issue) */
	EXM_T_SYMBOLS,	 /* ELF symbols (ELF issue) */
	EXM_T_GROUPS,	 /* processes grouped by program/user/cgroup */
	EXM_T__COUNT
};
#define EXM_TBIT(t) (1u << (t))

struct exm_row {
	const struct exm_proc *proc;   /* procs, fprocs; context elsewhere */
	const struct exm_file *file;   /* files, pfiles, fprocs, mappings */
	const struct exm_mapping *map; /* mappings */
	const char *name;	       /* section/symbol/group name */
	uint64_t addr;		       /* mapping start, section/symbol addr */
	uint64_t size;		       /* section/symbol size (bytes) */
	uint32_t nprocs;	       /* files: processes mapping; groups */
	uint32_t nmaps;		       /* pfiles: mappings in the process */
	uint32_t unmeasured;	       /* groups: members left out of a sum */
	unsigned flags;		       /* EXM_ROW_* */
	struct exm_sizes sz;
	struct exm_kpss kpss; /* procs, groups: kernel's figures */
	/* The same row's sizes in the previous snapshot (prev.has == 0:
	 * none, e.g. a new process or no previous snapshot), for deltas. */
	struct exm_sizes prev;
	struct exm_kpss prev_kpss; /* and its kernel figures */
	/* groups per cgroup: the cgroup's charge (snapshot.h), or NULL */
	const struct exm_cgcharge *cg;
};
#define EXM_ROW_GAP (1u << 0)	 /* section gap row: bytes no section covers */
#define EXM_ROW_DYNSYM (1u << 1) /* symbol from .dynsym (exported only) */
/* Delta rows (delta mode, --diff): every size field is the growth from
 * prev (and prev_kpss) to sz (and kpss), EXM_V_DELTA. A row only in the
 * later snapshot is NEW (prev: zeros, measured as sz), one only in the
 * earlier GONE (sz: zeros, measured as prev). */
#define EXM_ROW_DELTA (1u << 2)
#define EXM_ROW_NEW (1u << 3)
#define EXM_ROW_GONE (1u << 4)

/* Builders. *n receives the row count; NULL on ENOMEM (with *n = 0 for an
 * empty table a non-NULL zero-length allocation is returned). */
struct exm_row *exm_table_procs(const struct exm_snapshot *snap, size_t *n);
struct exm_row *exm_table_files(const struct exm_snapshot *snap, size_t *n);
struct exm_row *exm_table_pfiles(const struct exm_snapshot *snap,
				 const struct exm_proc *p, size_t *n);
struct exm_row *exm_table_fprocs(const struct exm_snapshot *snap,
				 const struct exm_file *f, size_t *n);
struct exm_row *exm_table_mappings(const struct exm_snapshot *snap,
				   const struct exm_proc *p,
				   const struct exm_file *f, size_t *n);

#endif
