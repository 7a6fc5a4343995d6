/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scan.h - snapshots taken off the input path (no curses).
 *
 * A scanner owns one worker thread that takes snapshots on request with
 * exm_source_snapshot(); the UI thread keeps reading keys and drawing the
 * previous snapshot meanwhile, and learns that a new one is ready when
 * tui_scanner_fd() becomes readable. The source is used only by the worker
 * thread while the scanner runs. All signals are blocked in the worker, so
 * SIGWINCH, SIGINT and friends reach the UI thread.
 */
#ifndef TUI_SCAN_H
#define TUI_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/record.h"
#include "core/source.h"

struct tui_scanner;

/*
 * Start a scanner on src with scan options *scan (copied; the pids array
 * and proc_root it points to must outlive the scanner). On success the
 * scanner owns src and closes it when it stops; on failure (-errno) src
 * stays the caller's. With threaded false, snapshots are taken
 * synchronously inside tui_scanner_request() (for tests).
 */
int tui_scanner_start(struct tui_scanner **out, struct exm_source *src,
		      const struct exm_scan_opts *scan, bool threaded);
/* A file descriptor that becomes readable when a snapshot is ready. */
int tui_scanner_fd(const struct tui_scanner *s);
/* Ask for a snapshot; does nothing while one is being taken. */
void tui_scanner_request(struct tui_scanner *s);
/* Scan options for the next snapshots (copied, as in tui_scanner_start;
 * the kpss_pids list too). */
void tui_scanner_set_opts(struct tui_scanner *s,
			  const struct exm_scan_opts *scan);
/*
 * Hand a snapshot the UI no longer uses to the worker, which frees it
 * (freeing a page-level snapshot takes time better not spent between two
 * keys). Takes ownership.
 */
void tui_scanner_dispose(struct tui_scanner *s, struct exm_snapshot *snap);
/* Append every snapshot taken from now on to rec (--record), which the
 * scanner owns and closes when it stops. A failure to append is a failed
 * scan (tui_scanner_take). */
void tui_scanner_record(struct tui_scanner *s, struct exm_recorder *rec);
/* A replay source: load snapshot idx next (0 = first). */
void tui_scanner_seek(struct tui_scanner *s, size_t idx);
/* A replay source: the index of the last snapshot taken. */
size_t tui_scanner_pos(struct tui_scanner *s);
/* Whether a snapshot is being taken now. */
bool tui_scanner_busy(struct tui_scanner *s);
/*
 * The finished snapshot (caller frees it), or NULL when none is ready or
 * the scan failed (then *err is -errno and msg holds a one-line reason).
 */
struct exm_snapshot *tui_scanner_take(struct tui_scanner *s, int *err,
				      char *msg, size_t msglen);
/*
 * Stop the worker and close the source. A scan in progress is abandoned
 * (the thread is detached, drops its result, closes the source and frees
 * the scanner when the scan ends) so quitting never waits for a slow scan.
 * Returns whether the worker was idle (everything is released now).
 */
bool tui_scanner_stop(struct tui_scanner *s);

#endif
