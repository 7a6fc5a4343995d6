/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view.h - the live UI's lists, without curses: a view is one list of rows
 * (processes, files, a process's files, mappings, groups, and later ELF
 * sections and symbols), a stack of views is the drill-down path shown in
 * the breadcrumb.
 *
 * A view never keeps pointers across snapshots. What it is about (its
 * context: a process, a file, a group, a section) and which row is selected
 * are kept as identities (struct tui_ident: core/diff.h's pid + start
 * time, file kind/dev/inode/name, name, address) that are looked up again
 * in every new snapshot. So the selection stays on the same process or file across
 * refreshes, and a view whose process exited says so instead of crashing.
 *
 * A view is a struct tui_view_ops: a build callback that returns rows of
 * a table (rows are the default), optional draw and key hooks for views
 * that show something else (the page strip of view_strip.c), and the views
 * it opens: .enter (Enter) and .alt ('e'), with an optional per-row child()
 * override. The context of a child is the parent's context merged with the
 * identity of the row Enter was pressed on: Enter on a file within a
 * process gives ctx.id.has_proc and ctx.id.has_file; Enter on a section row
 * adds ctx.id.name (the section name) and ctx.id.addr.
 *
 * Adding a view: write its ops (views.c holds the standard ones) and name
 * it as .enter or .alt of its parent. Nothing else changes.
 */
#ifndef TUI_VIEW_H
#define TUI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/diff.h"
#include "core/fields.h"
#include "core/group.h"
#include "core/snapshot.h"
#include "core/table.h"

/* The identity of a process, file, group, mapping, section or symbol
 * (core/diff.h's), kept across snapshots: its strings are owned. */
struct tui_ident {
	struct exm_ident id; /* fname and name owned */
	char *label; /* what to call it in the breadcrumb (owned; not compared:
		      * "comm (pid)", file name, group, section) */
};

void tui_ident_fini(struct tui_ident *id);
/* dst = copy of src (dst must be finalized or zeroed). 0 or -ENOMEM. */
int tui_ident_copy(struct tui_ident *dst, const struct tui_ident *src);
/* dst gains every part src has (src wins where both have it). */
int tui_ident_merge(struct tui_ident *dst, const struct tui_ident *src);
bool tui_ident_eq(const struct tui_ident *a, const struct tui_ident *b);
/* The identity of row r of table t (what selection keeping compares). */
int tui_ident_of_row(enum exm_table t, const struct exm_row *r,
		     struct tui_ident *out);

/* Look the process / file of an identity up in snap (core/diff.h's
 * identity); NULL if gone. */
const struct exm_proc *tui_ident_proc(const struct exm_snapshot *snap,
				      const struct tui_ident *id);
const struct exm_file *tui_ident_file(const struct exm_snapshot *snap,
				      const struct tui_ident *id);

struct tui_view;

/* What every build callback may need besides the snapshot. */
struct tui_build {
	const struct exm_snapshot *snap;
	/* The snapshot before it (NULL: none, or the view shows no delta):
	 * tui_view_refresh() builds the view's rows of it too and gives
	 * every row the sizes of its match (exm_rows_set_prev) for delta
	 * columns. */
	const struct exm_snapshot *prev;
	/* Delta mode: prev is the baseline and every size is shown as its
	 * growth since (EXM_ROW_DELTA). */
	bool delta;
	const char *user;  /* only this user's processes, or NULL */
	const pid_t *pids; /* only these processes (-p), or NULL */
	size_t npids;
	enum exm_group_by group_by; /* grouping of the processes pane */
};

/*
 * Where a draw hook draws: a box of w x h cells and a way to put text in
 * it. The UI provides it (curses); tests provide their own.
 */
enum tui_role {
	TUI_ROLE_NORMAL = 0,
	TUI_ROLE_TITLE,	  /* a heading line */
	TUI_ROLE_PRIVATE, /* one process: private */
	TUI_ROLE_SHARED,  /* a few processes */
	TUI_ROLE_MANY,	  /* shared widely */
	TUI_ROLE_DIM,	  /* nothing there */
	TUI_ROLE_WARN,	  /* swapped, errors */
};
struct tui_canvas {
	int w, h;
	/* put terminal-safe text at (y, x) of the box, cut at its edge */
	void (*put)(const struct tui_canvas *c, int y, int x, const char *s,
		    enum tui_role role);
	void *ctx;
};

struct tui_view_ops {
	const char *name;     /* short stable name, e.g. "pfiles" */
	enum exm_table table; /* which columns (fields.h) apply */
	/* What Enter and 'e' open on a row (NULL: nothing). */
	const struct tui_view_ops *enter, *alt;
	/*
	 * The rows of view v in b->snap: a malloc'd array the caller frees
	 * (rows borrow from the snapshot or from view-owned data). Return
	 * NULL and set *why (static text or text in v->why_buf) when the
	 * context is gone, e.g. "process 42 has exited"; *n = 0 then.
	 */
	struct exm_row *(*build)(struct tui_view *v, const struct tui_build *b,
				 size_t *n, const char **why);
	/* Breadcrumb text of view v (unescaped: the UI escapes it). */
	void (*crumb)(const struct tui_view *v, char *buf, size_t len);
	/* Optional: the view Enter opens on row r; NULL for .enter. Return
	 * &tui_view_none for "no child". */
	const struct tui_view_ops *(*child)(const struct tui_view *v,
					    const struct exm_row *r);
	/* Optional: draw the view in c instead of its rows (the UI still
	 * draws the header, breadcrumb and bottom line). */
	void (*draw)(struct tui_view *v, const struct tui_canvas *c);
	/* Optional: take key code k (keys.h) before the key table does;
	 * return TUI_R_* bits (live.h), 0 when not taken. */
	unsigned (*key)(struct tui_view *v, int k);
	/* Optional: release v->priv. */
	void (*fini)(struct tui_view *v);
	/* The draw hook draws the whole table area (no row of the table on
	 * top, no column header); build returns no rows (NULL, *why NULL). */
	bool no_row;
	/* Optional: whether v compares with the previous snapshot (it gets
	 * b->prev in build, and the UI keeps one). */
	bool (*wants_prev)(const struct tui_view *v);
	/* Optional: EXM_NEED_* (fields.h) v needs of every process, whatever
	 * rows are on screen (the scan policy reads them for all while v is
	 * on a stack). */
	unsigned (*needs_all)(const struct tui_view *v);
	/* build (for b->snap and b->prev) reads only the sizes of processes,
	 * mappings and files, never page words or share tables: while only
	 * such views are on the stacks, the live screen drops those of the
	 * snapshots it holds before the next is taken (live.c, slim). */
	bool sizes_only;
};

extern const struct tui_view_ops tui_view_none; /* "no child" marker */

/* A crumb callback for drilled-down views: the label of the row that was
 * entered (ctx.label), e.g. "bash (42)" or "/usr/lib/libc.so.6". */
void tui_view_crumb_label(const struct tui_view *v, char *buf, size_t len);

/* The view opened on row r of v, or NULL if none. */
const struct tui_view_ops *tui_view_child(const struct tui_view *v,
					  const struct exm_row *r, bool alt);

struct tui_view {
	const struct tui_view_ops *ops;
	struct tui_ident ctx; /* what this view is about */
	void *priv;	      /* ops-owned */
	char why_buf[128];

	/* Rows of the current snapshot (owned); vis indexes rows in display
	 * order (filtered and sorted). */
	struct exm_row *rows;
	size_t nrows;
	size_t *vis;
	size_t nvis;
	const char *why; /* why there are no rows, or NULL */

	int sort_field; /* enum exm_field_id */
	bool sort_desc;
	char *filter;	   /* live filter text (owned), NULL for none */
	char *user;	   /* user filter of the last refresh (owned) */
	const pid_t *pids; /* -p of the last refresh (borrowed), or NULL */
	size_t npids;

	size_t cursor, top;   /* index into vis; first row on screen */
	int page;	      /* rows on screen (set by the UI) */
	unsigned long gen;    /* UI: which snapshot/filters the rows reflect */
	struct tui_ident sel; /* identity of the selected row */
};

/* New view of ops about ctx (copied; may be NULL). Sort defaults to the
 * table's natural sort. NULL on ENOMEM. Free with tui_view_free. */
struct tui_view *tui_view_new(const struct tui_view_ops *ops,
			      const struct tui_ident *ctx);
void tui_view_free(struct tui_view *v);

/* Rebuild from b->snap, filter, sort, and put the cursor back on the
 * selected row (or, if it vanished, on the row now at its place). */
int tui_view_refresh(struct tui_view *v, const struct tui_build *b);
/* Re-filter and re-sort the current rows keeping the selection. */
void tui_view_relist(struct tui_view *v);
/* Drop rows (before their snapshot is freed). */
void tui_view_clear_rows(struct tui_view *v);

/* The selected row, or NULL when the list is empty. */
const struct exm_row *tui_view_selected(const struct tui_view *v);
/* Move the cursor to vis index i (clamped) and remember its identity. */
void tui_view_set_cursor(struct tui_view *v, long i);
/* Keep the cursor within [top, top + page) and top within the list. */
void tui_view_fix_scroll(struct tui_view *v);

/* Set / clear the live filter (copied; "" or NULL clears). */
int tui_view_set_filter(struct tui_view *v, const char *text);
/* Sort by field f (descending when desc), keeping the selection. */
void tui_view_set_sort(struct tui_view *v, int f, bool desc);
/* Whether row r matches text (case-insensitive substring of its names:
 * command, command line, user, file, group, section, symbol). */
bool tui_row_matches(enum exm_table t, const struct exm_row *r,
		     const char *text);
/*
 * Search from the row after (dir > 0) or before (dir < 0) the cursor, or
 * from the cursor itself (dir == 0), wrapping; moves the cursor to the first
 * match. Returns whether one was found.
 */
bool tui_view_search(struct tui_view *v, const char *text, int dir);

/* The fields that apply to a table, in field-table order; returns count. */
size_t tui_table_fields(enum exm_table t, int *out, size_t max);

#define TUI_STACK_MAX 16
/* A drill-down path: v[0] is the pane's root view. */
struct tui_stack {
	struct tui_view *v[TUI_STACK_MAX];
	int depth;
};

static inline struct tui_view *tui_stack_top(const struct tui_stack *s)
{
	return s->depth ? s->v[s->depth - 1] : NULL;
}
/* Push the child of the selected row of the top view (alt: the 'e' child).
 * Returns the new view (to be refreshed by the caller), or NULL when the row
 * has no child, the list is empty or the stack is full. */
struct tui_view *tui_stack_enter(struct tui_stack *s, bool alt);
/* Pop the top view unless it is the root; returns whether it popped. */
bool tui_stack_back(struct tui_stack *s);
/* Replace the whole stack by a root view of ops. 0 or -ENOMEM. */
int tui_stack_reset(struct tui_stack *s, const struct tui_view_ops *ops);
void tui_stack_fini(struct tui_stack *s);
/* Breadcrumb of the whole stack: crumbs joined by " > ". */
void tui_stack_crumbs(const struct tui_stack *s, char *buf, size_t len);

#endif
