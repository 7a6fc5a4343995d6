// SPDX-License-Identifier: GPL-2.0-or-later
/* live.c - the live screen's state and actions; see live.h. */
#include "tui/screen/live.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/format.h"
#include "core/group.h"
#include "tui/replay.h"
#include "tui/report.h"
#include "tui/text.h"
#include "tui/screen/view_elf.h"
#include "tui/screen/view_report.h"
#include "tui/screen/views.h"

double tui_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void tui_live_status(struct tui_live *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->status, sizeof(l->status), fmt, ap);
	va_end(ap);
	l->status_until = tui_now() + 3.0;
}

enum exm_table tui_view_table(const struct tui_view *v)
{
	return v->ops->table < EXM_T__COUNT ? v->ops->table : EXM_T_PROCS;
}

const int *tui_live_fields(struct tui_live *l, const struct tui_view *v)
{
	return tui_query_fields(&l->q, tui_view_table(v));
}

int tui_live_shown_field(const struct tui_live *l, int f)
{
	if (f == EXM_F_CMD && !l->q.set.full_cmd)
		return EXM_F_COMM;
	return f;
}

/* Whether v shows a column that compares with the previous snapshot. */
static bool wants_prev(struct tui_live *l, const struct tui_view *v)
{
	if (v->ops->wants_prev && v->ops->wants_prev(v))
		return true;
	for (const int *f = tui_live_fields(l, v); *f >= 0; f++)
		if (*f == EXM_F_DERSS)
			return true;
	return v->sort_field == EXM_F_DERSS;
}

/*
 * Whether something on screen may read page words or share tables of the
 * snapshots held: a view that is not sizes_only (groups' exclusive
 * memory, strips, ELF sections, reports) or the tagged processes'
 * summary (their exclusive memory).
 */
static bool needs_pages(const struct tui_live *l)
{
	if (l->tags.n || l->delta)
		return true;
	for (int p = 0; p < 2; p++)
		for (int i = 0; i < l->stacks[p].depth; i++)
			if (!l->stacks[p].v[i]->ops->sizes_only)
				return true;
	return false;
}

/*
 * Before a snapshot is taken: while nothing on screen needs more than the
 * sizes, the snapshots held keep only them (the page words and share
 * tables of the one on screen would otherwise be alive beside the next
 * one's being built: the live screen's peak memory). Not in delta mode:
 * its baseline keeps everything (a groups view may come), and one taken
 * while the snapshot on screen is slim is the one being taken
 * (delta_mode). A view that needs more, opened meanwhile, waits for the
 * snapshot being taken (tui_live_fresh).
 */
static void slim(struct tui_live *l)
{
	struct exm_snapshot *s[2] = { l->snap, l->prev };

	if (needs_pages(l))
		return;
	for (int k = 0; k < 2; k++)
		if (s[k] && s[k] != l->base && !s[k]->sizes_only)
			exm_snapshot_keep_sizes(s[k]);
}

void tui_live_fresh(struct tui_live *l, struct tui_view *v)
{
	struct tui_build b = {
		.snap = l->snap,
		.user = l->q.user,
		.pids = l->q.pids,
		.npids = l->q.npids,
		.group_by = l->q.set.group_by,
	};

	if (!v || v->gen == l->gen)
		return;
	v->gen = l->gen;
	if (!l->snap) {
		tui_view_clear_rows(v);
		v->why = NULL;
		return;
	}
	if (l->snap->sizes_only && !v->ops->sizes_only) {
		/* kept only its sizes (slim) while a snapshot is taken: that
		 * one has what v needs */
		tui_view_clear_rows(v);
		v->why = "(reading the pages again: a moment)";
		if (!tui_scanner_busy(l->scanner))
			tui_live_request(l, false);
		return;
	}
	if (l->delta && l->base) {
		b.prev = l->base;
		b.delta = true;
	} else if (wants_prev(l, v)) {
		b.prev = l->prev;
	}
	if (b.prev && b.prev->sizes_only && !v->ops->sizes_only)
		b.prev = NULL; /* no delta until the next snapshot */
	if (tui_view_refresh(v, &b))
		tui_live_status(l, "out of memory");
}

/* New views of a table start with the sort the user chose for it. */
static void apply_saved_sort(struct tui_live *l, struct tui_view *v)
{
	enum exm_table t = tui_view_table(v);

	if (l->q.set.sort[t] >= 0)
		tui_view_set_sort(v, l->q.set.sort[t], l->q.set.sort_desc[t]);
}

static int reset_pane(struct tui_live *l, int pane)
{
	const struct tui_view_ops *ops;

	if (pane == 1)
		ops = &tui_view_files;
	else if (l->q.set.group_by != EXM_GROUP_NONE)
		ops = &tui_view_groups;
	else
		ops = &tui_view_procs;
	if (tui_stack_reset(&l->stacks[pane], ops))
		return -ENOMEM;
	apply_saved_sort(l, l->stacks[pane].v[0]);
	return 0;
}

/* Filters changed: every view must be rebuilt when next shown. */
static void invalidate(struct tui_live *l)
{
	l->gen++;
}

/* Give s back unless it is still the baseline of delta mode. */
static void drop(struct tui_live *l, struct exm_snapshot *s)
{
	if (s && s != l->base)
		tui_scanner_dispose(l->scanner, s);
}

/* Make s (the snapshot on screen, or NULL) the baseline. */
static void set_base(struct tui_live *l, struct exm_snapshot *s)
{
	struct exm_snapshot *old = l->base;

	l->base = s;
	if (old && old != s && old != l->snap && old != l->prev)
		tui_scanner_dispose(l->scanner, old);
}

/* Whether snap has a mapping counted without its pages' places (pagemap
 * read mode): a strip opened on it waits for a scan that reads them. */
static bool snap_counted(const struct exm_snapshot *snap)
{
	for (size_t i = 0; snap && i < snap->nprocs; i++)
		for (size_t j = 0; j < snap->procs[i].nmaps; j++)
			if (snap->procs[i].maps[j].counted)
				return true;
	return false;
}

/* Grouped per cgroup, but the snapshot on screen has no cgroup paths: it
 * was taken before (they are read only while needed). */
static bool lacks_cgroups(const struct tui_live *l)
{
	return l->scan.want_cgroup && l->snap && !l->replay_n &&
	       !(l->snap->sys.caps & EXM_CAP_CGROUP);
}

void tui_live_request(struct tui_live *l, bool followup)
{
	if (l->replay_n) /* a replay loads the snapshot asked for */
		tui_scanner_seek(l->scanner, l->replay_want >= 0
						     ? (size_t)l->replay_want
						     : l->replay_pos);
	if (!tui_scanner_busy(l->scanner)) {
		if (l->scan.want_kpss)
			tui_policy_plan(&l->policy, l->stacks, 2, l->snap,
					followup, &l->scan);
		tui_scanner_set_opts(l->scanner, &l->scan);
		slim(l);
	}
	tui_scanner_request(l->scanner);
	if (!followup)
		l->next_due = tui_now() + l->q.set.delay;
}

/* Whether a view on the stacks, or a table's columns, show a delta. */
static bool keeps_prev(struct tui_live *l)
{
	for (int t = 0; t < EXM_T__COUNT; t++)
		for (const int *f = l->q.set.fields[t]; *f >= 0; f++)
			if (*f == EXM_F_DERSS)
				return true;
	for (int p = 0; p < 2; p++)
		for (int i = 0; i < l->stacks[p].depth; i++)
			if (wants_prev(l, l->stacks[p].v[i]))
				return true;
	return false;
}

unsigned tui_live_take(struct tui_live *l)
{
	int err = 0;
	char msg[256] = "";
	struct exm_snapshot *snap;

	snap = tui_scanner_take(l->scanner, &err, msg, sizeof(msg));
	if (!snap) {
		if (!err)
			return 0;
		snprintf(l->scan_err, sizeof(l->scan_err),
			 "snapshot failed: %.200s", msg);
		return TUI_R_REDRAW;
	}
	l->scan_err[0] = 0;
	/* rows of every view point into the old snapshots: drop them */
	for (int p = 0; p < 2; p++)
		for (int i = 0; i < l->stacks[p].depth; i++)
			tui_view_clear_rows(l->stacks[p].v[i]);
	drop(l, l->prev);
	l->prev = l->snap;
	l->snap = snap;
	if (l->base_next) {
		set_base(l, snap);
		l->base_next = false;
	}
	if (l->replay_n) {
		l->replay_pos = tui_scanner_pos(l->scanner);
		/* keys stepped on while it loaded: go where they went */
		if (l->replay_want >= 0 &&
		    (size_t)l->replay_want != l->replay_pos)
			tui_live_request(l, false);
		else
			l->replay_want = -1;
	}
	l->nsnaps++;
	tui_policy_arrived(&l->policy);
	invalidate(l);
	tui_live_fresh(l, tui_live_view(l));
	/* the rows may now be in another order than the ones the request
	 * was planned from: rows already known but not read, read now */
	if (l->scan.want_kpss && !l->paused && l->prev &&
	    tui_policy_may_follow(&l->policy) &&
	    tui_policy_missing(&l->policy, l->stacks, 2, l->prev))
		tui_live_request(l, true);
	else if (!l->paused && lacks_cgroups(l)) /* taken before grouping */
		tui_live_request(l, false);
	if (!keeps_prev(l)) {
		/* one generation only while a delta is shown: a page-level
		 * snapshot is big */
		drop(l, l->prev);
		l->prev = NULL;
	}
	return TUI_R_REDRAW;
}

/*
 * Read only what the shown columns need: the kernel's figures cost reads of
 * /proc/kpagecount or, for Pss_Dirty, SwapPss and the alerts, a second walk
 * of every page table (smaps_rollup), so they are read only while a view
 * on one of the two stacks has a column that shows them. When a view that
 * needs them appears, a snapshot is taken at once.
 */
void tui_live_rescan(struct tui_live *l)
{
	bool had = l->scan.want_kpss, had_rollup = l->scan.want_rollup,
	     had_swapcache = l->scan.want_swapcache;
	bool had_places = l->scan.want_places;
	unsigned needs = tui_policy_needs(l->stacks, 2, &l->q.set);

	/* a replay has the kernel's figures it recorded, no more */
	l->scan.want_kpss = (needs & EXM_NEED_KPSS) && !l->replay_n;
	l->scan.want_rollup = (needs & EXM_NEED_ROLLUP) && !l->replay_n;
	l->scan.want_cmdline = true; /* the filter matches command lines */
	/* a recording keeps every process's cgroup */
	l->scan.want_cgroup = (needs & EXM_NEED_CGROUP) || l->o->record;
	/* a strip shows, a recording keeps, where every page lies */
	l->scan.want_places = (needs & EXM_NEED_PLACES) || l->o->record;
	/* the system view's swap-cache row (and a recording's) */
	l->scan.want_swapcache = ((needs & EXM_NEED_SWAPCACHE) ||
				  l->o->record) &&
				 !l->replay_n;
	/* a recording keeps the OOM scores and the cgroups' charge */
	l->scan.want_oom = ((needs & EXM_NEED_OOM) || l->o->record) &&
			   !l->replay_n;
	l->scan.want_cgcharge = ((needs & EXM_NEED_CGCHARGE) || l->o->record) &&
				!l->replay_n;
	if (!l->scanner)
		return;
	tui_scanner_set_opts(l->scanner, &l->scan);
	if (l->snap && !tui_scanner_busy(l->scanner) &&
	    ((l->scan.want_kpss && !had &&
	      !(l->snap->sys.caps & EXM_CAP_KPSS)) ||
	     (l->scan.want_rollup && !had_rollup) ||
	     (l->scan.want_places && !had_places && snap_counted(l->snap)) ||
	     (l->scan.want_swapcache && !had_swapcache) || lacks_cgroups(l)))
		tui_live_request(l, false);
}

int tui_live_tick(struct tui_live *l)
{
	bool busy = tui_scanner_busy(l->scanner);
	int asked = 0;

	if (!l->paused && l->next_due - tui_now() <= 0 && !busy) {
		if (l->o->iterations > 0 && l->nsnaps >= l->o->iterations)
			return -1;
		if (l->replay_n && l->nsnaps && l->replay_want < 0) {
			/* playing a replay: the next snapshot, and stop at
			 * the last */
			if (l->replay_pos + 1 >= l->replay_n) {
				l->paused = true;
				tui_live_status(l, "the last snapshot of the "
						   "recording");
				return 0;
			}
			l->replay_want = (long)l->replay_pos + 1;
		}
		tui_live_request(l, false);
		busy = true;
		asked = 1;
	}
	/* the user scrolled or sorted onto rows whose kernel figures were
	 * not read: read them now, not at the next refresh (while a scan
	 * runs: look again when it is in) */
	if (l->keyed && !l->paused && !busy) {
		if (l->scan.want_kpss && l->snap &&
		    tui_policy_missing(&l->policy, l->stacks, 2, NULL)) {
			tui_live_request(l, false);
			asked = 1;
		}
		l->keyed = false;
	}
	return asked;
}

/* ---- menus ---- */

static void open_sort_menu(struct tui_live *l)
{
	struct tui_view *v = tui_live_view(l);
	int fs[EXM_F__COUNT];
	size_t n = tui_table_fields(tui_view_table(v), fs, EXM_F__COUNT);
	char label[128];

	tui_menu_clear(&l->menu);
	l->menu.kind = TUI_MENU_SORT;
	snprintf(l->menu.title, sizeof(l->menu.title), " Sort by");
	for (size_t i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "%-9s %s",
			 exm_fields[fs[i]].title, exm_fields[fs[i]].help);
		tui_menu_add(&l->menu, fs[i], label, fs[i] == v->sort_field);
	}
	tui_menu_select(&l->menu, v->sort_field);
	l->mode = TUI_M_MENU;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void open_user_menu(struct tui_live *l)
{
	const struct exm_snapshot *s = l->snap;
	const char **names;
	size_t n = 0;

	tui_menu_clear(&l->menu);
	l->menu.kind = TUI_MENU_USER;
	snprintf(l->menu.title, sizeof(l->menu.title), " Show processes of");
	tui_menu_add(&l->menu, -1, "(all users)", !l->q.user);
	l->mode = TUI_M_MENU;
	if (!s || !(names = calloc(s->nprocs + 1, sizeof(*names))))
		return;
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].user)
			names[n++] = s->procs[i].user;
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		bool cur = l->q.user && !strcmp(l->q.user, names[i]);

		if (i && !strcmp(names[i], names[i - 1]))
			continue;
		if (cur)
			l->menu.cursor = l->menu.n;
		/* id: index into the snapshot's procs of one such user */
		for (size_t k = 0; k < s->nprocs; k++)
			if (s->procs[k].user == names[i]) {
				tui_menu_add(&l->menu, (int)k, names[i], cur);
				break;
			}
	}
	free(names);
}

static void fill_fields_menu(struct tui_live *l, int keep_id)
{
	struct tui_view *v = tui_live_view(l);
	const int *vis = tui_live_fields(l, v);
	int fs[EXM_F__COUNT];
	size_t n = tui_table_fields(tui_view_table(v), fs, EXM_F__COUNT);
	char label[128];

	tui_menu_empty(&l->menu);
	/* visible columns in their order, then the hidden ones */
	for (size_t i = 0; vis[i] >= 0; i++) {
		snprintf(label, sizeof(label), "%-9s %s",
			 exm_fields[vis[i]].title, exm_fields[vis[i]].help);
		tui_menu_add(&l->menu, vis[i], label, true);
	}
	for (size_t i = 0; i < n; i++) {
		bool shown = false;

		for (size_t k = 0; vis[k] >= 0; k++)
			shown |= vis[k] == fs[i];
		if (shown)
			continue;
		snprintf(label, sizeof(label), "%-9s %s",
			 exm_fields[fs[i]].title, exm_fields[fs[i]].help);
		tui_menu_add(&l->menu, fs[i], label, false);
	}
	tui_menu_select(&l->menu, keep_id);
}

static void open_fields_menu(struct tui_live *l)
{
	tui_menu_clear(&l->menu);
	l->menu.kind = TUI_MENU_FIELDS;
	snprintf(l->menu.title, sizeof(l->menu.title), " Columns of %s",
		 exm_table_name(tui_view_table(tui_live_view(l))));
	fill_fields_menu(l, -1);
	l->mode = TUI_M_MENU;
}

/* Column chooser: toggle or move field id in the current table's list. */
static void fields_edit(struct tui_live *l, int id, int move)
{
	int *vis = l->q.set.fields[tui_view_table(tui_live_view(l))];
	size_t n = tui_fields_count(vis), pos = n;

	for (size_t i = 0; i < n; i++)
		if (vis[i] == id)
			pos = i;
	if (move) {
		long to = (long)pos + move;

		if (pos == n || to < 0 || (size_t)to >= n)
			return;
		vis[pos] = vis[to];
		vis[to] = id;
	} else if (pos < n) {
		if (n == 1)
			return; /* keep at least one column */
		memmove(vis + pos, vis + pos + 1, (n - pos) * sizeof(*vis));
	} else if (n < TUI_MAX_COLS) {
		/* a new column goes before a trailing name column */
		size_t at = n && tui_field_is_name(vis[n - 1]) ? n - 1 : n;

		memmove(vis + at + 1, vis + at, (n - at + 1) * sizeof(*vis));
		vis[at] = id;
	}
	fill_fields_menu(l, id);
	invalidate(l); /* a delta column needs the rows rebuilt */
}

static void remember_sort(struct tui_live *l, struct tui_view *v)
{
	l->q.set.sort[tui_view_table(v)] = v->sort_field;
	l->q.set.sort_desc[tui_view_table(v)] = v->sort_desc;
}

void tui_live_sort_by(struct tui_live *l, int f)
{
	struct tui_view *v = tui_live_view(l);

	if (f == v->sort_field)
		tui_view_set_sort(v, f, !v->sort_desc);
	else
		tui_view_set_sort(v, f, exm_fields[f].desc);
	remember_sort(l, v);
}

static unsigned menu_key(struct tui_live *l, int k)
{
	struct tui_menu *m = &l->menu;
	struct tui_view *v = tui_live_view(l);
	int id = m->n ? m->ids[m->cursor] : -1;
	const struct exm_snapshot *s = l->snap;

	switch (tui_menu_key(m, k, l->page > 4 ? l->page - 3 : 1)) {
	case TUI_MENU_MOVED:
		return TUI_R_REDRAW;
	case TUI_MENU_LEFT:
		fields_edit(l, id, -1);
		return TUI_R_REDRAW | TUI_R_RESCAN;
	case TUI_MENU_RIGHT:
		fields_edit(l, id, 1);
		return TUI_R_REDRAW | TUI_R_RESCAN;
	case TUI_MENU_CLOSE:
		break;
	case TUI_MENU_CHOSEN:
		if (id < 0 && m->kind != TUI_MENU_USER)
			break;
		if (m->kind == TUI_MENU_FIELDS) {
			fields_edit(l, id, 0);
			return TUI_R_REDRAW | TUI_R_RESCAN; /* stays open */
		}
		if (m->kind == TUI_MENU_SORT) {
			tui_view_set_sort(v, id, exm_fields[id].desc);
			remember_sort(l, v);
		} else {
			const char *u = id < 0 || !s || (size_t)id >= s->nprocs
						? NULL
						: s->procs[id].user;

			free(l->q.user);
			l->q.user = u ? strdup(u) : NULL;
			invalidate(l);
		}
		break;
	}
	tui_menu_clear(m);
	l->mode = TUI_M_NORMAL;
	return TUI_R_REDRAW | TUI_R_RESCAN;
}

/* ---- prompts ---- */

static void open_prompt(struct tui_live *l, enum tui_prompt_kind kind,
			const char *init)
{
	l->mode = TUI_M_PROMPT;
	tui_prompt_open(&l->prompt, kind, init);
	l->prompt.origin = tui_live_view(l)->cursor;
}

static unsigned prompt_done(struct tui_live *l, bool accept, const char *text)
{
	struct tui_view *v = tui_live_view(l);

	l->mode = TUI_M_NORMAL;
	switch (l->prompt.kind) {
	case TUI_P_SEARCH:
		if (accept && *text) {
			free(l->last_search);
			l->last_search = strdup(text);
		} else if (!accept) {
			tui_view_set_cursor(v, (long)l->prompt.origin);
		}
		break;
	case TUI_P_FILTER:
		tui_view_set_filter(v, accept ? text : NULL);
		break;
	case TUI_P_DELAY:
		if (accept) {
			/* the settings table's parser: -d and the file take
			 * the same values */
			char why[128];

			if (tui_setting_parse(tui_setting_find("delay", NULL),
					      -1, &l->q.set, text, why,
					      sizeof(why))) {
				tui_live_status(l, "delay: %s", why);
			} else {
				l->next_due = tui_now() + l->q.set.delay;
				tui_live_status(l, "refreshing every %gs",
						l->q.set.delay);
			}
		}
		break;
	}
	return TUI_R_REDRAW;
}

static unsigned prompt_key(struct tui_live *l, int k)
{
	struct tui_view *v = tui_live_view(l);
	char text[1024];
	enum tui_prompt_ret r = tui_prompt_key(&l->prompt, k);

	tui_prompt_text(&l->prompt, text, sizeof(text));
	switch (r) {
	case TUI_PROMPT_IGNORED:
		return 0;
	case TUI_PROMPT_ACCEPT:
	case TUI_PROMPT_CANCEL:
		return prompt_done(l, r == TUI_PROMPT_ACCEPT, text);
	case TUI_PROMPT_AGAIN:
		tui_view_search(v, text, 1);
		l->prompt.origin = v->cursor;
		return TUI_R_REDRAW;
	case TUI_PROMPT_EDITED:
		break;
	}
	/* applied live: search moves, filter narrows */
	if (l->prompt.kind == TUI_P_SEARCH) {
		tui_view_set_cursor(v, (long)l->prompt.origin);
		if (*text && !tui_view_search(v, text, 0))
			tui_live_status(l, "not found");
	} else if (l->prompt.kind == TUI_P_FILTER) {
		tui_view_set_filter(v, text);
	}
	return TUI_R_REDRAW;
}

/* ---- actions ---- */

void tui_live_cursor(struct tui_live *l, long k)
{
	tui_view_set_cursor(tui_live_view(l), k);
}

static unsigned move_cursor(struct tui_live *l, long delta)
{
	struct tui_view *v = tui_live_view(l);

	tui_view_set_cursor(v, (long)v->cursor + delta);
	return TUI_R_REDRAW;
}

static long page_rows(struct tui_live *l)
{
	struct tui_view *v = tui_live_view(l);

	return v->page > 1 ? v->page - 1 : 1;
}

/* No snapshot on screen yet: says so (a key that needs one). */
static bool no_snapshot(struct tui_live *l)
{
	if (l->snap)
		return false;
	tui_live_status(l, "no snapshot yet");
	return true;
}

static unsigned enter_view(struct tui_live *l, bool alt)
{
	struct tui_stack *s = tui_live_stack(l);
	struct tui_view *v;

	if (no_snapshot(l))
		return TUI_R_REDRAW;
	v = tui_stack_enter(s, alt);
	if (!v) {
		if (s->depth >= TUI_STACK_MAX)
			tui_live_status(l, "too deep");
		else if (tui_view_selected(tui_live_view(l)))
			tui_live_status(l, alt ? "no ELF view for this row"
					       : "nothing below this row");
		return TUI_R_REDRAW;
	}
	apply_saved_sort(l, v);
	v->gen = l->gen - 1;
	tui_live_fresh(l, v);
	return TUI_R_REDRAW | TUI_R_RESCAN;
}

static unsigned sort_step(struct tui_live *l, int dir)
{
	struct tui_view *v = tui_live_view(l);
	const int *vis = tui_live_fields(l, v);
	size_t n = tui_fields_count(vis), pos = n;
	int f;

	for (size_t i = 0; i < n; i++)
		if (vis[i] == v->sort_field)
			pos = i;
	if (!n)
		return 0;
	if (pos == n)
		pos = 0;
	else if (dir < 0)
		pos = pos ? pos - 1 : 0;
	else
		pos = pos + 1 < n ? pos + 1 : n - 1;
	f = vis[pos];
	tui_view_set_sort(v, f, exm_fields[f].desc);
	remember_sort(l, v);
	return TUI_R_REDRAW | TUI_R_RESCAN;
}

/* t: tag or untag the process under the cursor (on a group row: all the
 * group's processes the row counts), then down a row, as htop's Space. */
static unsigned tag_row(struct tui_live *l)
{
	struct tui_view *v = tui_live_view(l);
	const struct exm_row *r = tui_view_selected(v);
	enum exm_table t = tui_view_table(v);
	int ret = 0;

	if (!l->snap || !r || !r->proc ||
	    (t != EXM_T_PROCS && t != EXM_T_FPROCS && t != EXM_T_GROUPS)) {
		tui_live_status(l, "only processes and groups can be tagged");
		return TUI_R_REDRAW;
	}
	if (t == EXM_T_GROUPS) {
		struct exm_proc_filter f = tui_query_filter(&l->q);
		enum exm_group_by by = l->q.set.group_by;
		bool all = true;

		for (int pass = 0; pass < 2 && !ret; pass++)
			for (size_t i = 0; i < l->snap->nprocs && !ret; i++) {
				const struct exm_proc *p = &l->snap->procs[i];

				if (!exm_proc_filter_match(&f, p) ||
				    strcmp(exm_group_key(p, by), r->name))
					continue;
				if (!pass)
					all &= tui_tags_has(&l->tags, p);
				else
					ret = tui_tags_set(&l->tags, p, !all);
			}
	} else {
		ret = tui_tags_set(&l->tags, r->proc, -1);
	}
	if (ret)
		tui_live_status(l, "out of memory");
	return move_cursor(l, 1);
}

static unsigned cycle_group(struct tui_live *l)
{
	l->q.set.group_by = (l->q.set.group_by + 1) % EXM_GROUP__COUNT;
	if (reset_pane(l, 0)) {
		tui_live_status(l, "out of memory");
		return TUI_R_REDRAW;
	}
	l->pane = 0;
	invalidate(l);
	tui_live_status(l, "processes grouped per %s",
			exm_group_name(l->q.set.group_by));
	return TUI_R_REDRAW | TUI_R_RESCAN;
}

static void save_settings(struct tui_live *l)
{
	int err;

	if (!l->q.rc_path[0]) {
		tui_live_status(l, "cannot save: neither HOME nor "
				   "XDG_CONFIG_HOME is set");
		return;
	}
	err = tui_settings_save(&l->q.set, l->q.rc_path);
	if (err)
		tui_live_status(l, "cannot save %s: %s", l->q.rc_path,
				strerror(-err));
	else
		tui_live_status(l, "settings saved to %s", l->q.rc_path);
}

static unsigned replay_step(struct tui_live *l, enum tui_act a)
{
	size_t cur = l->replay_want >= 0 ? (size_t)l->replay_want
					 : l->replay_pos,
	       n = l->replay_n, to;

	if (!n) {
		tui_live_status(l, "not a replay: exmtop --replay FILE steps "
				   "through a recording");
		return TUI_R_HANDLED | TUI_R_REDRAW;
	}
	if (a == TUI_A_REPLAY_PREV)
		to = cur ? cur - 1 : 0;
	else if (a == TUI_A_REPLAY_NEXT)
		to = cur + 1 < n ? cur + 1 : n - 1;
	else
		to = a == TUI_A_REPLAY_FIRST ? 0 : n - 1;
	if (to == cur) {
		tui_live_status(l, "the %s snapshot of the recording",
				to ? "last" : "first");
		return TUI_R_HANDLED | TUI_R_REDRAW;
	}
	l->replay_want = (long)to;
	if (!tui_scanner_busy(l->scanner))
		tui_live_request(l, false);
	return TUI_R_HANDLED | TUI_R_REDRAW;
}

static unsigned delta_mode(struct tui_live *l, bool baseline)
{
	if (no_snapshot(l))
		return TUI_R_HANDLED | TUI_R_REDRAW;
	if (baseline) {
		set_base(l, l->snap);
		l->delta = true;
	} else {
		l->delta = !l->delta;
		set_base(l, l->delta ? l->snap : NULL);
	}
	/* a slim one (sizes only) cannot be every view's baseline: the one
	 * being taken is (slim) */
	l->base_next = l->delta && l->snap->sizes_only;
	if (l->base_next)
		set_base(l, NULL);
	if (l->delta)
		tui_live_status(l, "delta mode: growth since the baseline "
				   "(B: make this snapshot the baseline)");
	else
		tui_live_status(l, "delta mode off");
	invalidate(l);
	return TUI_R_HANDLED | TUI_R_REDRAW;
}

unsigned tui_live_act(struct tui_live *l, enum tui_act a)
{
	struct tui_view *v = tui_live_view(l);

	switch (a) {
	case TUI_A_NONE:
		return 0;
	case TUI_A_UP:
		return move_cursor(l, -1) | TUI_R_HANDLED;
	case TUI_A_DOWN:
		return move_cursor(l, 1) | TUI_R_HANDLED;
	case TUI_A_PGUP:
		return move_cursor(l, -page_rows(l)) | TUI_R_HANDLED;
	case TUI_A_PGDN:
		return move_cursor(l, page_rows(l)) | TUI_R_HANDLED;
	case TUI_A_HOME:
		tui_view_set_cursor(v, 0);
		break;
	case TUI_A_END:
		tui_view_set_cursor(v, (long)v->nvis - 1);
		break;
	case TUI_A_ENTER:
		return enter_view(l, false) | TUI_R_HANDLED;
	case TUI_A_ELF:
		return enter_view(l, true) | TUI_R_HANDLED;
	case TUI_A_BACK:
		return tui_stack_back(tui_live_stack(l))
			       ? TUI_R_HANDLED | TUI_R_REDRAW | TUI_R_RESCAN
			       : TUI_R_HANDLED;
	case TUI_A_PANE:
		l->pane = !l->pane;
		break;
	case TUI_A_DEMANGLE:
		tui_live_status(l, "C++ demangling %s",
				tui_elf_toggle_demangle() ? "on" : "off");
		v->gen = l->gen - 1;
		tui_live_fresh(l, v);
		break;
	case TUI_A_SORT_MENU:
		open_sort_menu(l);
		break;
	case TUI_A_SORT_LEFT:
		return sort_step(l, -1) | TUI_R_HANDLED;
	case TUI_A_SORT_RIGHT:
		return sort_step(l, 1) | TUI_R_HANDLED;
	case TUI_A_SORT_REV:
		tui_view_set_sort(v, v->sort_field, !v->sort_desc);
		remember_sort(l, v);
		break;
	case TUI_A_SEARCH:
		open_prompt(l, TUI_P_SEARCH, NULL);
		break;
	case TUI_A_NEXT:
	case TUI_A_PREV:
		if (!l->last_search)
			tui_live_status(l, "no search yet: press /");
		else if (!tui_view_search(v, l->last_search,
					  a == TUI_A_NEXT ? 1 : -1))
			tui_live_status(l, "not found");
		break;
	case TUI_A_FILTER:
		open_prompt(l, TUI_P_FILTER, v->filter);
		break;
	case TUI_A_USER:
		open_user_menu(l);
		break;
	case TUI_A_GROUP:
		return cycle_group(l) | TUI_R_HANDLED;
	case TUI_A_FULL_CMD:
		l->q.set.full_cmd = !l->q.set.full_cmd;
		tui_live_status(l, "full command lines %s",
				l->q.set.full_cmd ? "on" : "off");
		break;
	case TUI_A_BYTES:
		l->q.set.exact_bytes = !l->q.set.exact_bytes;
		break;
	case TUI_A_COLUMNS:
		open_fields_menu(l);
		break;
	case TUI_A_SAVE:
		save_settings(l);
		break;
	case TUI_A_DELAY:
		open_prompt(l, TUI_P_DELAY, NULL);
		break;
	case TUI_A_REFRESH:
		if (tui_scanner_busy(l->scanner))
			tui_live_status(l, "a snapshot is being taken");
		else
			tui_live_request(l, false);
		break;
	case TUI_A_PAUSE:
		l->paused = !l->paused;
		if (!l->paused)
			l->next_due = tui_now();
		tui_live_status(l, l->paused ? "paused: space refreshes once"
					     : "resumed");
		break;
	case TUI_A_REDRAW:
		return TUI_R_HANDLED | TUI_R_REDRAW | TUI_R_CLEAR;
	case TUI_A_HELP:
		l->mode = TUI_M_HELP;
		l->help_top = 0;
		break;
	case TUI_A_QUIT:
		l->quit = true;
		break;
	case TUI_A_REPLAY_PREV:
	case TUI_A_REPLAY_NEXT:
	case TUI_A_REPLAY_FIRST:
	case TUI_A_REPLAY_LAST:
		return replay_step(l, a);
	case TUI_A_DELTA:
	case TUI_A_BASELINE:
		return delta_mode(l, a == TUI_A_BASELINE);
	case TUI_A_TAG:
		return tag_row(l) | TUI_R_HANDLED;
	case TUI_A_UNTAG_ALL:
		tui_tags_clear(&l->tags);
		break;
	case TUI_A_REPORT:	/* needs its key: tui_live_key */
	case TUI_A_SCROLL_LEFT: /* the report view's (its key hook) */
	case TUI_A_SCROLL_RIGHT:
	case TUI_A__COUNT:
		return 0;
	}
	return TUI_R_HANDLED | TUI_R_REDRAW;
}

/* Open report name (report.h) on the current pane. */
static unsigned open_report(struct tui_live *l, const char *name)
{
	struct tui_view *v = tui_report_push(tui_live_stack(l), name);

	if (!v) {
		tui_live_status(l, "cannot open the %s report", name);
		return TUI_R_HANDLED | TUI_R_REDRAW;
	}
	v->gen = l->gen - 1;
	tui_live_fresh(l, v);
	return TUI_R_HANDLED | TUI_R_REDRAW | TUI_R_RESCAN;
}

unsigned tui_live_key(struct tui_live *l, int k)
{
	const struct tui_key *e;
	struct tui_view *v;
	unsigned r;

	if (k == TUI_KEY_RESIZE)
		return TUI_R_REDRAW;
	/* keys typed ahead act on current rows, even after Tab or back */
	tui_live_fresh(l, tui_live_view(l));
	l->keyed = true;
	switch (l->mode) {
	case TUI_M_HELP:
		if (k == TUI_KEY_DOWN || k == TUI_KEY_NPAGE) {
			l->help_top += k == TUI_KEY_DOWN ? 1 : l->page;
		} else if (k == TUI_KEY_UP || k == TUI_KEY_PPAGE) {
			l->help_top -= k == TUI_KEY_UP ? 1 : l->page;
			if (l->help_top < 0)
				l->help_top = 0;
		} else if (k != TUI_KEY_MOUSE) {
			l->mode = TUI_M_NORMAL;
		}
		return TUI_R_REDRAW;
	case TUI_M_MENU:
		return menu_key(l, k);
	case TUI_M_PROMPT:
		return prompt_key(l, k) | TUI_R_REDRAW;
	case TUI_M_NORMAL:
		break;
	}
	v = tui_live_view(l);
	/* the view first: it may take keys of its own */
	if (v->ops->key && (r = v->ops->key(v, k)))
		return r;
	e = tui_key_find(k);
	if (e && e->act == TUI_A_REPORT)
		return open_report(l, e->report->name);
	return tui_live_act(l, e ? e->act : TUI_A_NONE) | TUI_R_REDRAW;
}

/* ---- setup ---- */

int tui_live_init(struct tui_live *l, const struct tui_opts *o)
{
	struct exm_recorder *rec = NULL;
	char err[256];
	int ret;

	memset(l, 0, sizeof(*l));
	l->o = o;
	tui_policy_init(&l->policy);
	ret = tui_query_build(&l->q, o, true, err, sizeof(err));
	if (ret) {
		tui_error("%s", ret == -EINVAL ? err : strerror(-ret));
		return ret == -EINVAL ? 2 : 1;
	}
	if (l->q.warn[0])
		tui_live_status(l, "%s", l->q.warn);
	l->pane = o->files ? 1 : 0;
	ret = tui_open_source(o, &l->src);
	if (!ret)
		ret = tui_source_reuse(l->src, &l->q);
	if (ret)
		return ret;
	l->replay_want = -1;
	l->replay_n = exm_source_count(l->src);
	if (l->replay_n) {
		/* a replay waits for keys: [ ] step, p plays */
		l->paused = true;
		if (o->from && (ret = tui_replay_pick(l->src, "--from", o->from,
						      &l->replay_pos)))
			return ret;
		tui_live_status(l, "replay: [ ] step, { } first / last, p "
				   "plays");
	}
	tui_elf_set_sysroot(o->sysroot);
	tui_query_scan(&l->q, EXM_NEED_CMDLINE, &l->scan);
	if (reset_pane(l, 0) || reset_pane(l, 1)) {
		tui_error("out of memory");
		return 1;
	}
	if (o->report && !tui_report_push(&l->stacks[l->pane], o->report)) {
		tui_error("out of memory");
		return 1;
	}
	tui_live_rescan(l); /* the panes decide what to read */
	ret = tui_scanner_start(&l->scanner, l->src, &l->scan, true);
	if (ret) {
		tui_error("cannot start: %s", strerror(-ret));
		return 1;
	}
	l->src = NULL; /* the scanner's now */
	if (o->record && (ret = tui_record_open(o, &rec)))
		return ret;
	if (rec)
		tui_scanner_record(l->scanner, rec);
	l->gen = 1;
	return 0;
}

void tui_live_fini(struct tui_live *l)
{
	for (int p = 0; p < 2; p++)
		tui_stack_fini(&l->stacks[p]);
	tui_menu_clear(&l->menu);
	if (l->base && l->base != l->snap && l->base != l->prev)
		exm_snapshot_free(l->base);
	if (l->snap)
		exm_snapshot_free(l->snap);
	if (l->prev)
		exm_snapshot_free(l->prev);
	free(l->last_search);
	tui_tags_fini(&l->tags);
	tui_policy_fini(&l->policy);
	tui_query_fini(&l->q);
	if (l->scanner)
		tui_scanner_stop(l->scanner); /* closes the source */
	else if (l->src)
		exm_source_close(l->src);
}
