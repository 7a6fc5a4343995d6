/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.h - snapshots kept in an SQLite file, and read back.
 *
 * The recorder is a consumer of the builder protocol (builder.h): every
 * process, mapping, run of page frames or swap entries, the kernel's
 * figures, and for each mapped file its ELF build-id (read by elf.h's
 * exm_elf_build_id_fd), so every size can be recomputed elsewhere; each
 * process's accounted sizes are kept too, for queries. The schema is
 * documented in README.md ("Recordings"). The recorder is record_write.c,
 * the reader record_read.c, and what both know of the file (its tables
 * and columns, its versions) record_schema.h.
 *
 * The file is in WAL mode and each snapshot is one transaction: a recorder
 * killed at any moment leaves a file holding every completed snapshot.
 * Several recorders may append to one file: their snapshots are written
 * one after the other (each waits for the other's transaction), each with
 * the next id. Readers and recorders register the file in ownfiles.h, so
 * nothing else in the process opens it behind SQLite's back.
 *
 * The reader treats the file as hostile: a file that is not a recording,
 * is corrupt or truncated, or comes from a newer exmtop gives -EINVAL and
 * one line in the error buffer, never a crash.
 */
#ifndef EXM_RECORD_H
#define EXM_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/builder.h"
#include "core/snapshot.h"

/*
 * The schema version this exmtop writes (PRAGMA user_version). It reads
 * every version up to it; appending to an older file upgrades it first.
 * 1: the first; 2: /proc/meminfo with each snapshot (a snapshot of a
 * version 1 file replays with meminfo.predates set); 3: a mapping's
 * hugetlb flag and kernel page size, its zero and hugetlb sizes, runs of
 * one word repeated (the zero page).
 */
#define EXM_RECORD_SCHEMA 4
/* PRAGMA application_id of a recording: "EXMT". */
#define EXM_RECORD_APP_ID 0x45584d54

struct exm_recorder;

/*
 * Open (or create) the recording at path for appending snapshots. On
 * success *out is owned by the caller (exm_record_close). On failure
 * -errno (-EINVAL for a file that is not a recording of this version, or
 * not a regular file: a directory, a device, a FIFO) and one line in err.
 */
int exm_record_open(const char *path, struct exm_recorder **out, char *err,
		    size_t errlen);

/*
 * Append snap (accounted, with its page words: before
 * exm_snapshot_drop_pages) as one transaction. Build-ids of mapped files
 * are read through snap->sys.proc_root/PID/map_files (once per file per
 * recorder; a snapshot without a proc_root has none, a replayed one keeps
 * those it was recorded with). 0 or -errno with exm_record_errmsg()
 * saying why; a snapshot that failed left nothing in the file and nothing
 * in the recorder's caches, so the next one may be tried.
 */
int exm_record_snapshot(struct exm_recorder *r,
			const struct exm_snapshot *snap);

/*
 * Retention (--keep, --keep-size): before each snapshot, in its
 * transaction, the oldest snapshots are dropped, with every page set
 * (and its runs) and file row no remaining mapping names, so that the
 * file keeps at most n snapshots (the new one included), none taken more
 * than secs before the new one, and its pages in use (what SQLite's
 * freelist does not hold) under bytes with room for the new snapshot (as
 * big as this recorder's last one). 0: no bound of that kind. The new
 * snapshot is always kept; a failed snapshot drops nothing. The file
 * reuses the pages freed, so its size stays near bytes.
 */
struct exm_retention {
	uint64_t n;
	double secs;
	uint64_t bytes;
};

/* Set the recorder's retention (it indexes mapping.pageset and .file, so
 * that a page set no mapping names is found fast). 0 or -errno with
 * exm_record_errmsg() saying why. */
int exm_record_set_retention(struct exm_recorder *r,
			     const struct exm_retention *k);

/* The id (snapshot.id) of the last snapshot this recorder wrote, or 0. */
int64_t exm_record_last_id(const struct exm_recorder *r);

const char *exm_record_errmsg(const struct exm_recorder *r);
void exm_record_close(struct exm_recorder *r);

/* ---- reading ---- */

struct exm_recording;

/*
 * Open a recording to read it, never writing it nor leaving a file beside
 * it (on read-only media, or someone else's file, too; record_read.c's
 * open_file() says how). 0, or -errno (-EINVAL: not a regular file, not a
 * recording, corrupt, or a newer schema) with one line in err.
 */
int exm_recording_open(const char *path, struct exm_recording **out, char *err,
		       size_t errlen);
void exm_recording_close(struct exm_recording *rec);

/* Number of snapshots it holds. */
size_t exm_recording_count(const struct exm_recording *rec);

/* When snapshot idx (0 = first) was taken; 0 or -ERANGE. */
int exm_recording_time(const struct exm_recording *rec, size_t idx,
		       struct timespec *at);

/* Index of the last snapshot taken at or before t (the first one if t is
 * earlier than all). */
size_t exm_recording_find_time(const struct exm_recording *rec,
			       const struct timespec *t);

/*
 * Play snapshot idx into a sink (builder protocol). 0, -ERANGE, -ENOMEM,
 * -EINVAL for a corrupt snapshot, or -EAGAIN when a recorder started
 * writing a file read without locks during the load (exm_recording_errmsg
 * says what).
 */
int exm_recording_load(struct exm_recording *rec, size_t idx,
		       const struct exm_sink_ops *ops, void *ctx);
/* What one snapshot may hold, so a hostile file cannot make the reader or
 * accounting allocate without bound: page words (0: 2^32) and distinct
 * chunks of 2^16 frames or swap slots (0: 2^16, 16 TiB of 4 KiB frames). */
void exm_recording_set_limits(struct exm_recording *rec, uint64_t max_pages,
			      uint64_t max_chunks);
const char *exm_recording_errmsg(const struct exm_recording *rec);

/* Open a recording held in memory (fuzzing, tests): like
 * exm_recording_open; buf is copied. */
int exm_recording_open_mem(const void *buf, size_t len,
			   struct exm_recording **out, char *err,
			   size_t errlen);

#endif
