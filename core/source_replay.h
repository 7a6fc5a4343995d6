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

/* For a source opened as "replay:FILE" (others: 0 / -EINVAL). */
size_t exm_replay_count(const struct exm_source *src);
/* The index the next exm_source_snapshot() loads. */
size_t exm_replay_tell(const struct exm_source *src);
/* Make the next snapshot index idx (0 = first); 0 or -ERANGE. */
int exm_replay_seek(struct exm_source *src, size_t idx);
/* When snapshot idx was taken; 0 or -ERANGE (-EINVAL: not a replay). */
int exm_replay_time(const struct exm_source *src, size_t idx,
		    struct timespec *at);
/* Make the next snapshot the last one taken at or before t. */
int exm_replay_seek_time(struct exm_source *src, const struct timespec *t);

#endif
