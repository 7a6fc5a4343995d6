/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tags.h - the processes tagged on the live screen (a key tags the row under
 * the cursor, as Space does in htop; another untags all) and what stopping
 * them would give back: their effective resident summed, their exclusive
 * memory as a set (core/exclusive.h), the same figures as batch --freed
 * PID,... gives. No curses.
 *
 * A tag names a process by pid and start time, so a pid reused by another
 * process is not tagged; a tagged process gone from the snapshot counts for
 * nothing until it is untagged.
 */
#ifndef TUI_TAGS_H
#define TUI_TAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/snapshot.h"

struct tui_tag {
	pid_t pid;
	uint64_t start_time;
};

struct tui_tags {
	struct tui_tag *v; /* owned */
	size_t n, cap;
	unsigned long gen; /* bumps with every change */
	/* the summary of snapshot generation sum_snap at tags sum_gen (a
	 * cache: the screen is drawn often) */
	bool sum_ok, sum_exact;
	unsigned long sum_snap, sum_gen;
	char sum[256];
};

bool tui_tags_has(const struct tui_tags *t, const struct exm_proc *p);
/* Tag p, or untag it when tagged (on = -1), or set it (on = 0 / 1). 0 or
 * -ENOMEM. */
int tui_tags_set(struct tui_tags *t, const struct exm_proc *p, int on);
void tui_tags_clear(struct tui_tags *t);
void tui_tags_fini(struct tui_tags *t);

/*
 * The summary line of the tagged processes of snap, which the caller
 * numbers snap_gen (a new number for every snapshot) (borrowed, valid until
 * the next call), or NULL when none is tagged: "tagged N: eff.res E  freed
 * F  cached C  shmem S" (sizes human, or bytes with exact), "-" for what
 * the source cannot measure.
 */
const char *tui_tags_summary(struct tui_tags *t,
			     const struct exm_snapshot *snap,
			     unsigned long snap_gen, bool exact);

#endif
