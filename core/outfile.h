/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h - the one way exmtop writes a file it is told to (--output,
 * the settings file): safely, whatever is at the path.
 *
 * - a regular file, or a path with nothing there: each document goes to a
 *   temporary file in the same directory, renamed over the path once
 *   complete (a reader such as node_exporter's textfile collector never sees
 *   half of one; a failed write leaves the old file as it was);
 * - a symbolic link: the same, at the file it points to (the link stays);
 * - a character device or a FIFO: written into directly, opened once for
 *   the whole run (the FIFO's reader sees every document, then one end);
 * - anything else (a directory, a block device, a socket) is refused.
 */
#ifndef EXM_OUTFILE_H
#define EXM_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct exm_outfile {
	const char *path; /* as given; the caller's, kept */
	mode_t mode;	  /* of a new file (an existing one keeps its own) */
	char *target;	  /* the path after symbolic links (ours) */
	char *tmp;	  /* the temporary file while a document is written */
	FILE *f;	  /* the document's stream */
	bool direct;	  /* a device or FIFO: f stays open between documents */
	int err;	  /* why the last call failed: an errno, */
	char errmsg[256]; /* and in words */
};

/* Set up o for path (not opened yet): nothing to free until a begin. */
void exm_outfile_init(struct exm_outfile *o, const char *path, mode_t mode);

/*
 * Start a document: the stream to write it to (valid until the matching
 * exm_outfile_end), or NULL with o->err and o->errmsg set (and nothing
 * held: no exm_outfile_fini needed).
 */
FILE *exm_outfile_begin(struct exm_outfile *o);

/* Whether path (its links followed) names a recording this process has
 * open, or its -wal, -shm or -journal (ownfiles.h): writing it would
 * replace the recording; exm_outfile_begin refuses it. */
bool exm_outfile_is_own(const char *path);

/* Whether path (its links followed) names the recording at `recording`
 * or its -wal, -shm or -journal, whether they exist yet or not. */
bool exm_outfile_names_recording(const char *path, const char *recording);

/*
 * End the document begun: commit it (ok) or drop it (!ok: the temporary file
 * is removed; a direct target keeps what was written). 0 or -errno (then
 * o->errmsg says why, and nothing replaced the file).
 */
int exm_outfile_end(struct exm_outfile *o, bool ok);

/* Whether f writes to a pipe or FIFO whose reader has left (a write
 * failed there with EPIPE, whatever errno says now). */
bool exm_out_reader_gone(FILE *f);

/* Close a direct target and free what o holds; o can be begun again. */
void exm_outfile_fini(struct exm_outfile *o);

#endif
