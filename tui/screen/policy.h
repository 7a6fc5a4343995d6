/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.h - the live screen's scan policy (no curses): what the next
 * snapshot must read for the views on the stacks, and when to ask for one
 * before the refresh deadline.
 *
 * The kernel's figures (smaps_rollup: a second walk of every page table)
 * are read only for the processes on screen, and a page of rows above and
 * below. Each request records the pids it read them for; when the rows on
 * screen are not all among them, the policy says so:
 *  - after keys (scrolled, sorted, drilled): ask at once;
 *  - after a snapshot arrived: its rows may be in another order than the
 *    rows the request was planned from (sizes changed), so rows of
 *    processes that were already known may show up without their
 *    figures. Ask again, for the union of what was read and what is on
 *    screen now, at most TUI_POLICY_FOLLOWUPS times; the last of those
 *    reads every process, so a "-" never stays on a row that could have a
 *    figure. A process born since the last snapshot waits for the next
 *    refresh, as every new process does.
 */
#ifndef TUI_POLICY_H
#define TUI_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/source.h"
#include "tui/rc.h"
#include "tui/screen/view.h"

#define TUI_POLICY_FOLLOWUPS 2

struct tui_policy {
	pid_t *plan; /* kernel figures asked for (sorted, unique) */
	size_t nplan, cap;
	bool plan_all; /* ... or for every process */
	pid_t *shown;  /* what the snapshot on screen read them for */
	size_t nshown;
	bool shown_all;
	unsigned followups; /* follow-up requests since the last other one */
};

void tui_policy_init(struct tui_policy *p);
void tui_policy_fini(struct tui_policy *p);

/* EXM_NEED_* of the columns (per set) and sorts of the views on the
 * stacks: what the next snapshot must read. */
unsigned tui_policy_needs(const struct tui_stack *stacks, int nstacks,
			  const struct tui_settings *set);

/*
 * Plan the next request: the pids whose kernel figures it reads, put in
 * scan (which points into p until the next plan). With snap NULL (nothing
 * on screen yet) or a view that needs every process (groups sum them, a
 * sort by a kernel figure compares them all, the alerts view compares every
 * process's Pss with its effective resident): all. With followup, the pids
 * of the snapshot on screen stay in, and the last follow-up reads all.
 */
void tui_policy_plan(struct tui_policy *p, const struct tui_stack *stacks,
		     int nstacks, const struct exm_snapshot *snap,
		     bool followup, struct exm_scan_opts *scan);
/* The snapshot of the last plan arrived and is now on screen. */
void tui_policy_arrived(struct tui_policy *p);
/*
 * Whether a process row on screen lacks the kernel figures because the
 * snapshot on screen did not read them. With known (the snapshot before
 * it), only processes that were in known count: new ones wait.
 */
bool tui_policy_missing(const struct tui_policy *p,
			const struct tui_stack *stacks, int nstacks,
			const struct exm_snapshot *known);
/* Whether a follow-up may still be asked for. */
static inline bool tui_policy_may_follow(const struct tui_policy *p)
{
	return p->followups < TUI_POLICY_FOLLOWUPS;
}

#endif
