/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source_replay.h - the replay source: "replay:FILE" gives the snapshots
 * of a recording (record.h), the first one first; each snapshot taken
 * moves on to the next, and the last one repeats. Figures equal those of
 * the live snapshot that was recorded, exactly.
 */
#ifndef EXM_SOURCE_REPLAY_H
#define EXM_SOURCE_REPLAY_H

#include <stddef.h>
#include <time.h>

#include "core/source.h"

/* Its seeking is the source interface's: exm_source_count(),
 * exm_source_seek() and the like (source.h). */

#endif
