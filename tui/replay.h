/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.h - recordings in the program (no curses): open the recorder of
 * --record, and pick a recorded snapshot by index or time (--from, --to).
 */
#ifndef TUI_REPLAY_H
#define TUI_REPLAY_H

#include <stddef.h>

#include "core/record.h"
#include "core/source.h"
#include "tui/opts.h"

/*
 * Open o->record for appending. 0, or the exit status 2 after one line on
 * stderr (a path that cannot be written, a file that is not a recording
 * of this exmtop).
 */
int tui_record_open(const struct tui_opts *o, struct exm_recorder **out);

/*
 * The index (0 = first) of the snapshot of replay source src that spec
 * names: "K" (1 = first), "@UNIXSECS", "YYYY-MM-DDTHH:MM:SS" (local time,
 * "Z" at the end: UTC) or "HH:MM:SS" (on the day of the first snapshot):
 * the last one taken at or before that time. 0, or 2 after one line on
 * stderr naming opt.
 */
int tui_replay_pick(struct exm_source *src, const char *opt, const char *spec,
		    size_t *idx);

#endif
