/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live.h - the live screen's state and what keys do to it, without curses
 * (ui.c draws it and runs the loop). Every key goes through the one key
 * table (keys.h) to an action here; actions and view key hooks return what
 * they need (TUI_R_*) instead of setting flags.
 */
#ifndef TUI_LIVE_H
#define TUI_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/source.h"
#include "tui/screen/keys.h"
#include "tui/screen/menu.h"
#include "tui/opts.h"
#include "tui/screen/policy.h"
#include "tui/screen/prompt.h"
#include "tui/query.h"
#include "tui/screen/scan.h"
#include "tui/screen/tags.h"
#include "tui/screen/view.h"

enum tui_mode { TUI_M_NORMAL, TUI_M_HELP, TUI_M_MENU, TUI_M_PROMPT };

struct tui_live {
	const struct tui_opts *o;
	struct tui_query q; /* q.set: settings; q.user: user filter */
	struct exm_source *src;
	struct exm_scan_opts scan;
	struct tui_scanner *scanner;
	struct exm_snapshot *snap; /* on screen */
	struct exm_snapshot *prev; /* the one before: deltas */
	struct exm_snapshot *base; /* delta mode's baseline (may be snap or
				    * prev), or NULL */
	bool delta;		   /* delta mode: sizes as growth since base */
	bool base_next;		   /* delta mode: base is the next snapshot */
	size_t replay_n;	   /* snapshots of a replay, 0: live */
	size_t replay_pos;	   /* index of the replayed snapshot shown */
	long replay_want;	   /* index asked for, -1: none pending */
	unsigned long gen;	   /* bumps with every snapshot / filter */
	long nsnaps;		   /* snapshots shown */
	char scan_err[256];
	double next_due; /* monotonic time of the next request */
	bool paused;
	bool keyed; /* keys since the policy last looked */
	struct tui_policy policy;

	struct tui_stack stacks[2]; /* 0: processes, 1: files */
	int pane;
	char *last_search;

	enum tui_mode mode;
	struct tui_menu menu;
	int help_top;
	struct tui_prompt prompt;
	int page; /* rows on screen, for page keys */

	struct tui_tags tags; /* tagged processes (t, T) */

	char status[256];
	double status_until;
	bool quit;
};

/* Monotonic seconds. */
double tui_now(void);

/*
 * Set up from the options: query (with the settings file), source, panes,
 * scanner. 0, or the exit status after one line on stderr.
 */
int tui_live_init(struct tui_live *l, const struct tui_opts *o);
/* Release everything (the scanner is stopped, the source closed). */
void tui_live_fini(struct tui_live *l);

static inline struct tui_stack *tui_live_stack(struct tui_live *l)
{
	return &l->stacks[l->pane];
}
static inline struct tui_view *tui_live_view(struct tui_live *l)
{
	return tui_stack_top(tui_live_stack(l));
}
enum exm_table tui_view_table(const struct tui_view *v);
/* The columns of view v. */
const int *tui_live_fields(struct tui_live *l, const struct tui_view *v);
/* The field a column shows (the command column: comm unless -c). */
int tui_live_shown_field(const struct tui_live *l, int f);
/* Bring v up to date with the snapshot and filters. */
void tui_live_fresh(struct tui_live *l, struct tui_view *v);

void tui_live_status(struct tui_live *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A snapshot is ready (the scanner's fd is readable): show it. */
unsigned tui_live_take(struct tui_live *l);
/* Ask for a snapshot now (followup: see policy.h). */
void tui_live_request(struct tui_live *l, bool followup);
/* The views changed: read what they need from the next snapshot on. */
void tui_live_rescan(struct tui_live *l);
/* Deadlines and the policy: ask for a snapshot when one is due. 1 when
 * it asked, 0 when not, -1 when -n snapshots were shown (time to quit). */
int tui_live_tick(struct tui_live *l);

/* Handle key code k (keys.h) in the current mode. TUI_R_* bits. */
unsigned tui_live_key(struct tui_live *l, int k);
/* Do action a, as its keys would. TUI_R_* bits. */
unsigned tui_live_act(struct tui_live *l, enum tui_act a);
/* Sort the current view by field f (a click on its header). */
void tui_live_sort_by(struct tui_live *l, int f);
/* Put the cursor on row k of the current view. */
void tui_live_cursor(struct tui_live *l, long k);

#endif
