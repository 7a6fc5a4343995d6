/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record_schema.h - what the recorder (record_write.c) and the reader
 * (record_read.c) of a recording share: the tables and their upgrades,
 * every column of every table with its position, the statements made from
 * them, and the checks both make of a file. Private to those two files;
 * the interface is record.h.
 *
 * Each table's columns are listed once, below, in the order of the table.
 * The list gives the column's position (an enum: the bind index less one
 * in an INSERT, the result column in a SELECT), its name, its declaration,
 * the schema version that added it (a SELECT reads NULL for it from an
 * older file), and for a size or a kernel figure the bit saying it was
 * measured. The tables of a new file, the upgrades of an older one (ALTER
 * TABLE ADD COLUMN, or CREATE TABLE for a table of a later version), the
 * INSERT and the SELECT texts are all made from the lists: a column is
 * added by one line at the end of its list (where ALTER TABLE puts it)
 * with the next schema version, and EXM_RECORD_SCHEMA raised to it.
 *
 * The versions (record.h: EXM_RECORD_SCHEMA):
 * 2: /proc/meminfo with each snapshot. snapshot.meminfo is its number of
 * rows (NULL: the snapshot was written before version 2), meminfo holds
 * the rows as the kernel prints them (unit 'kB' or NULL for a count).
 * 3: what the kernel says of a mapping (is_hugetlb, kpage_size: NULL or 0
 * the base page) and, from a source without pages, its zero, hugetlb and
 * ehugetlb sizes; a run's step (NULL: the next frame or swap slot, 0: the
 * same word again, as the zero page or a KSM page mapped at consecutive
 * addresses). Page words keep bits 59 (zero page) and 60 (KSM) among the
 * flags, which bits 55-61 always were: a file written before has neither.
 * 4: the OOM killer's view of a process (oom_score, oom_adj: NULL when not
 * read), and the cgroup table: the charge of every cgroup of the scanned
 * processes (cgcharge.h), each figure NULL when not known; a file written
 * before has neither (replayed, they are null).
 */
#ifndef EXM_RECORD_SCHEMA_H
#define EXM_RECORD_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <sqlite3.h>

#include "core/record.h"
#include "core/snapshot.h"

/* Pagemap bits 55-61 (soft-dirty, exclusive, uffd-wp, writable PTE, zero
 * page, KSM, file) are kept as a run's flags 0-6. */
#define EXM_REC_FLAG_SHIFT 55
#define EXM_REC_FLAG_MASK UINT64_C(0x7f)

/* C(position, name, declaration, since, bit): bit is an EXM_HAS_* for a
 * size column (an EXM_KPSS_* in the kernel table), else 0. A table
 * WITHOUT ROWID has its leading columns as its key (exm_rec_table.nkey). */
#define EXM_REC_SNAPSHOT(C)                                          \
	C(RC_SNAP_ID, "id", "INTEGER PRIMARY KEY", 1, 0)             \
	C(RC_SNAP_TAKEN_SEC, "taken_sec", "INTEGER", 1, 0)           \
	C(RC_SNAP_TAKEN_NSEC, "taken_nsec", "INTEGER", 1, 0)         \
	C(RC_SNAP_TIME_TAKEN, "time_taken", "REAL", 1, 0)            \
	C(RC_SNAP_PAGE_SIZE, "page_size", "INTEGER", 1, 0)           \
	C(RC_SNAP_MEM_TOTAL, "mem_total", "INTEGER", 1, 0)           \
	C(RC_SNAP_MEM_AVAILABLE, "mem_available", "INTEGER", 1, 0)   \
	C(RC_SNAP_KERNEL, "kernel", "TEXT", 1, 0)                    \
	C(RC_SNAP_HOSTNAME, "hostname", "TEXT", 1, 0)                \
	C(RC_SNAP_SOURCE, "source", "TEXT", 1, 0)                    \
	C(RC_SNAP_SOURCE_DETAIL, "source_detail", "TEXT", 1, 0)      \
	C(RC_SNAP_LIMITS, "limits", "TEXT", 1, 0)                    \
	C(RC_SNAP_CAPS, "caps", "INTEGER", 1, 0)                     \
	C(RC_SNAP_PROC_ROOT, "proc_root", "TEXT", 1, 0)              \
	C(RC_SNAP_SKIPPED_GONE, "skipped_gone", "INTEGER", 1, 0)     \
	C(RC_SNAP_SKIPPED_DENIED, "skipped_denied", "INTEGER", 1, 0) \
	C(RC_SNAP_MEMINFO, "meminfo", "INTEGER", 2, 0) /* its rows, NULL: v1 */

#define EXM_REC_MEMINFO(C)                             \
	C(RC_MI_SNAPSHOT, "snapshot", "INTEGER", 2, 0) \
	C(RC_MI_IDX, "idx", "INTEGER", 2, 0)           \
	C(RC_MI_KEY, "key", "TEXT", 2, 0)              \
	C(RC_MI_VALUE, "value", "INTEGER", 2, 0)       \
	C(RC_MI_UNIT, "unit", "TEXT", 2, 0) /* 'kB', or NULL: a count */

#define EXM_REC_PROCESS(C)                                              \
	C(RC_PROC_SNAPSHOT, "snapshot", "INTEGER", 1, 0)                \
	C(RC_PROC_IDX, "idx", "INTEGER", 1, 0)                          \
	C(RC_PROC_PID, "pid", "INTEGER", 1, 0)                          \
	C(RC_PROC_PPID, "ppid", "INTEGER", 1, 0)                        \
	C(RC_PROC_UID, "uid", "INTEGER", 1, 0)                          \
	C(RC_PROC_START_TIME, "start_time", "INTEGER", 1, 0)            \
	C(RC_PROC_USER, "user", "TEXT", 1, 0)                           \
	C(RC_PROC_COMM, "comm", "TEXT", 1, 0)                           \
	C(RC_PROC_CMDLINE, "cmdline", "TEXT", 1, 0)                     \
	C(RC_PROC_CGROUP, "cgroup", "TEXT", 1, 0)                       \
	C(RC_PROC_STATE, "state", "INTEGER", 1, 0)                      \
	C(RC_PROC_VM, "vm", "INTEGER", 1, EXM_HAS_VM)                   \
	C(RC_PROC_RSS, "rss", "INTEGER", 1, EXM_HAS_RSS)                \
	C(RC_PROC_ERSS, "erss", "REAL", 1, EXM_HAS_ERSS)                \
	C(RC_PROC_SWAP, "swap", "INTEGER", 1, EXM_HAS_SWAP)             \
	C(RC_PROC_ESWAP, "eswap", "REAL", 1, EXM_HAS_ESWAP)             \
	C(RC_PROC_SOLE, "sole", "INTEGER", 1, EXM_HAS_SOLE)             \
	C(RC_PROC_WRITABLE, "writable", "INTEGER", 1, EXM_HAS_WRITABLE) \
	C(RC_PROC_OOM_SCORE, "oom_score", "INTEGER", 4, 0)              \
	C(RC_PROC_OOM_ADJ, "oom_adj", "INTEGER", 4, 0)

#define EXM_REC_KERNEL(C)                                                   \
	C(RC_KERN_SNAPSHOT, "snapshot", "INTEGER", 1, 0)                    \
	C(RC_KERN_PROC, "proc", "INTEGER", 1, 0)                            \
	C(RC_KERN_PSS, "pss", "INTEGER", 1, EXM_KPSS_PSS)                   \
	C(RC_KERN_PSS_ANON, "pss_anon", "INTEGER", 1, EXM_KPSS_PSS_ANON)    \
	C(RC_KERN_PSS_FILE, "pss_file", "INTEGER", 1, EXM_KPSS_PSS_FILE)    \
	C(RC_KERN_PSS_SHMEM, "pss_shmem", "INTEGER", 1, EXM_KPSS_PSS_SHMEM) \
	C(RC_KERN_PSS_DIRTY, "pss_dirty", "INTEGER", 1, EXM_KPSS_PSS_DIRTY) \
	C(RC_KERN_SWAP_PSS, "swap_pss", "INTEGER", 1, EXM_KPSS_SWAP_PSS)    \
	C(RC_KERN_RSS, "rss", "INTEGER", 1, EXM_KPSS_RSS)

/* bit: the EXM_CG_* bit of a figure (NULL when the cgroup lacks it). */
#define EXM_REC_CGROUP(C)                                         \
	C(RC_CG_SNAPSHOT, "snapshot", "INTEGER", 4, 0)            \
	C(RC_CG_IDX, "idx", "INTEGER", 4, 0)                      \
	C(RC_CG_PATH, "path", "TEXT", 4, 0)                       \
	C(RC_CG_INO, "ino", "INTEGER", 4, 0)                      \
	C(RC_CG_CURRENT, "current", "INTEGER", 4, EXM_CG_CURRENT) \
	C(RC_CG_ANON, "anon", "INTEGER", 4, EXM_CG_ANON)          \
	C(RC_CG_FILE, "file", "INTEGER", 4, EXM_CG_FILE)          \
	C(RC_CG_SHMEM, "shmem", "INTEGER", 4, EXM_CG_SHMEM)       \
	C(RC_CG_KERNEL, "kernel", "INTEGER", 4, EXM_CG_KERNEL)    \
	C(RC_CG_OTHERS, "others", "REAL", 4, EXM_CG_FRAMES)       \
	C(RC_CG_ELSEWHERE, "elsewhere", "REAL", 4, EXM_CG_FRAMES) \
	C(RC_CG_UNMAPPED, "unmapped", "INTEGER", 4, EXM_CG_UNMAPPED)

#define EXM_REC_FILE(C)                                    \
	C(RC_FILE_ID, "id", "INTEGER PRIMARY KEY", 1, 0)   \
	C(RC_FILE_NAME, "name", "TEXT", 1, 0)              \
	C(RC_FILE_DEV_MAJOR, "dev_major", "INTEGER", 1, 0) \
	C(RC_FILE_DEV_MINOR, "dev_minor", "INTEGER", 1, 0) \
	C(RC_FILE_INODE, "inode", "INTEGER", 1, 0)         \
	C(RC_FILE_BUILD_ID, "build_id", "TEXT", 1, 0) /* hex, NULL: none */

/* A mapping's sizes are the source's own figures (a source without
 * pages), NULL from a source with pages; has says which were measured. */
#define EXM_REC_MAPPING(C)                                          \
	C(RC_MAP_SNAPSHOT, "snapshot", "INTEGER", 1, 0)             \
	C(RC_MAP_PROC, "proc", "INTEGER", 1, 0)                     \
	C(RC_MAP_IDX, "idx", "INTEGER", 1, 0)                       \
	C(RC_MAP_START, "start", "INTEGER", 1, 0)                   \
	C(RC_MAP_END, "end", "INTEGER", 1, 0)                       \
	C(RC_MAP_OFFSET, "offset", "INTEGER", 1, 0)                 \
	C(RC_MAP_PERMS, "perms", "INTEGER", 1, 0)                   \
	C(RC_MAP_KIND, "kind", "INTEGER", 1, 0)                     \
	C(RC_MAP_FILE, "file", "INTEGER", 1, 0)                     \
	C(RC_MAP_PAGESET, "pageset", "INTEGER", 1, 0)               \
	C(RC_MAP_DELETED, "deleted", "INTEGER", 1, 0)               \
	C(RC_MAP_VM, "vm", "INTEGER", 1, EXM_HAS_VM)                \
	C(RC_MAP_RSS, "rss", "INTEGER", 1, EXM_HAS_RSS)             \
	C(RC_MAP_ERSS, "erss", "REAL", 1, EXM_HAS_ERSS)             \
	C(RC_MAP_SWAP, "swap", "INTEGER", 1, EXM_HAS_SWAP)          \
	C(RC_MAP_ESWAP, "eswap", "REAL", 1, EXM_HAS_ESWAP)          \
	C(RC_MAP_SOLE, "sole", "INTEGER", 1, EXM_HAS_SOLE)          \
	C(RC_MAP_HAS, "has", "INTEGER", 1, 0)                       \
	C(RC_MAP_IS_HUGETLB, "is_hugetlb", "INTEGER", 3, 0)         \
	C(RC_MAP_KPAGE_SIZE, "kpage_size", "INTEGER", 3, 0)         \
	C(RC_MAP_ZERO, "zero", "INTEGER", 3, EXM_HAS_ZERO)          \
	C(RC_MAP_HUGETLB, "hugetlb", "INTEGER", 3, EXM_HAS_HUGETLB) \
	C(RC_MAP_EHUGETLB, "ehugetlb", "REAL", 3, EXM_HAS_EHUGETLB)

#define EXM_REC_PAGESET(C)                               \
	C(RC_PSET_ID, "id", "INTEGER PRIMARY KEY", 1, 0) \
	C(RC_PSET_PAGES, "pages", "INTEGER", 1, 0)

/* step NULL: the next frame or swap slot; 0: the same word again. */
#define EXM_REC_RUN(C)                                    \
	C(RC_RUN_PAGESET, "pageset", "INTEGER", 1, 0)     \
	C(RC_RUN_OFFSET, "offset", "INTEGER", 1, 0)       \
	C(RC_RUN_COUNT, "count", "INTEGER", 1, 0)         \
	C(RC_RUN_PRESENT, "present", "INTEGER", 1, 0)     \
	C(RC_RUN_FIRST, "first", "INTEGER", 1, 0)         \
	C(RC_RUN_SWAP_TYPE, "swap_type", "INTEGER", 1, 0) \
	C(RC_RUN_FLAGS, "flags", "INTEGER", 1, 0)         \
	C(RC_RUN_STEP, "step", "INTEGER", 3, 0)

#define EXM_REC_POS(pos, name, decl, since, bit) pos,
enum { EXM_REC_SNAPSHOT(EXM_REC_POS) RC_SNAP__N };
enum { EXM_REC_MEMINFO(EXM_REC_POS) RC_MI__N };
enum { EXM_REC_PROCESS(EXM_REC_POS) RC_PROC__N };
enum { EXM_REC_KERNEL(EXM_REC_POS) RC_KERN__N };
enum { EXM_REC_CGROUP(EXM_REC_POS) RC_CG__N };
enum { EXM_REC_FILE(EXM_REC_POS) RC_FILE__N };
enum { EXM_REC_MAPPING(EXM_REC_POS) RC_MAP__N };
enum { EXM_REC_PAGESET(EXM_REC_POS) RC_PSET__N };
enum { EXM_REC_RUN(EXM_REC_POS) RC_RUN__N };
#undef EXM_REC_POS

struct exm_rec_col {
	const char *name;
	const char *decl; /* its type (and constraint) in CREATE TABLE */
	int since;	  /* schema version */
	unsigned bit;
};

struct exm_rec_table {
	const char *name;
	int since; /* schema version that created it */
	int nkey;  /* WITHOUT ROWID, keyed by its first nkey columns; 0: a
		    * rowid table */
	const struct exm_rec_col *cols;
	int ncols;
};

extern const struct exm_rec_table exm_rec_snapshot, exm_rec_meminfo,
	exm_rec_process, exm_rec_kernel, exm_rec_cgroup, exm_rec_file,
	exm_rec_mapping, exm_rec_pageset, exm_rec_run;

/*
 * The statements that take a file from schema version v to v + 1 (v = 0:
 * an empty database, to version 1): the tables and columns the lists say
 * version v + 1 added. NULL: no memory; sqlite3_free() it.
 */
char *exm_rec_upgrade_sql(int v);

/*
 * "INSERT INTO t(every column) VALUES(?, ...)": a column's value is bound
 * at its position + 1 (an id left unbound is given by SQLite). NULL: no
 * memory; sqlite3_free() it.
 */
char *exm_rec_insert_sql(const struct exm_rec_table *t);

/*
 * "SELECT alias.column, ... FROM ..." of every column of the n tables
 * (aliases alias[i], "" for none), NULL for a column newer than version;
 * the columns of table i start at the sum of the column counts before it.
 * tail follows (the FROM clause and the rest). NULL: no memory;
 * sqlite3_free() it.
 */
char *exm_rec_select_sql(int version, const struct exm_rec_table *const *t,
			 const char *const *alias, int n, const char *tail);

/* Bind each size column of table t (one with an EXM_HAS_* bit) of an
 * INSERT to its member of s, or leave it NULL when s->has lacks it. */
void exm_rec_bind_sizes(sqlite3_stmt *st, const struct exm_rec_table *t,
			const struct exm_sizes *s);
/* The sizes of table t from the row of a SELECT that starts with t's
 * columns: a bit in s->has for each one not NULL, the others 0. */
void exm_rec_col_sizes(sqlite3_stmt *st, const struct exm_rec_table *t,
		       struct exm_sizes *s);
/* The same for the kernel table's figures (EXM_KPSS_* bits). */
void exm_rec_bind_kpss(sqlite3_stmt *st, const struct exm_kpss *k);
void exm_rec_col_kpss(sqlite3_stmt *st, struct exm_kpss *k);
/* The same for the cgroup table's figures (EXM_CG_* bits). */
void exm_rec_bind_cgroup(sqlite3_stmt *st, const struct exm_cgcharge *c);
void exm_rec_col_cgroup(sqlite3_stmt *st, struct exm_cgcharge *c);

/* Messages quote the file's own text: escaped in place (one line, no
 * control characters, no invalid UTF-8) within the cap bytes of s. */
void exm_rec_one_line(char *s, size_t cap);

/* "PATH: what[: SQLite's message]" in buf, one line. */
void exm_rec_set_err(char *buf, size_t len, const char *path, const char *what,
		     sqlite3 *db);

/*
 * A recording is a regular file of its own: anything else at path (a
 * directory, a device, a FIFO) gets -EINVAL and one line before SQLite
 * opens it. A path that does not exist is -ENOENT, or 0 if may_be_new
 * (but not a symbolic link to nothing).
 */
int exm_rec_regular_file(const char *path, bool may_be_new, char *err,
			 size_t errlen);

/* Register the files SQLite has open for db (ownfiles.h); the name to
 * give exm_rec_own_drop() after sqlite3_close(), or NULL (no memory). */
char *exm_rec_own_add(sqlite3 *db);
void exm_rec_own_drop(char *name);

/* Check that db is a recording this exmtop reads: 0, or -EINVAL with why
 * in err. *fresh is set for an empty database, *version to its schema. */
int exm_rec_check_header(sqlite3 *db, const char *path, bool *fresh,
			 int *version, char *err, size_t errlen);

#endif
