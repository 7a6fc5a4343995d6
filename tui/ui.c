// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ui.c - the live terminal UI: header, processes/files panes, drill-down
 * views, sorting, filtering, grouping, help, column chooser, mouse.
 *
 * One thread draws and reads keys; snapshots are taken by the scanner
 * thread (scan.h), so keys are handled while a slow scan runs. The loop
 * sleeps in poll() on the terminal, the scanner's pipe and a self-pipe for
 * signals, with a timeout computed from the next refresh deadline.
 *
 * Everything that is not drawing lives in curses-free files: view.c (lists,
 * drill-down, selection keeping), text.c (widths, column layout), rc.c
 * (settings file), scan.c (worker thread), core/group.c (grouping).
 */
#define NCURSES_WIDECHAR 1
#include "tui/ui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <stdarg.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>

#include "core/format.h"
#include "core/group.h"
#include "core/source.h"
#include "tui/rc.h"
#include "tui/scan.h"
#include "tui/text.h"
#include "tui/view.h"
#include "tui/view_elf.h"

#define CTRL(c) ((c) & 0x1f)
#define KEY_ESC 27

/* ---- terminal restoration on signals and crashes ---- */

static volatile sig_atomic_t got_signal;
static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t curses_on;

static void on_quit_signal(int sig)
{
	int e = errno;
	char c = (char)sig;

	got_signal = sig;
	if (sig_pipe[1] >= 0 && write(sig_pipe[1], &c, 1) < 0) {
		/* nothing to do: the flag is set */
	}
	errno = e;
}

static void on_fatal_signal(int sig)
{
	if (curses_on)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void restore_terminal(void)
{
	if (curses_on) {
		curses_on = 0;
		endwin();
	}
}

static void install_signals(void)
{
	static const int quit_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
					  SIGABRT };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit_signal;
	for (size_t i = 0; i < sizeof(quit_sigs) / sizeof(quit_sigs[0]); i++)
		sigaction(quit_sigs[i], &sa, NULL);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]);
	     i++)
		sigaction(fatal_sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(restore_terminal);
}

/* ---- attributes ---- */

enum ui_attr {
	A_TITLE,    /* header */
	A_HDRVAL,   /* header values */
	A_COLHDR,   /* column header */
	A_COLSORT,  /* sorted column header */
	A_SEL,	    /* selected row */
	A_CRUMB,    /* breadcrumb */
	A_SHARED,   /* effective size below resident: shared pages */
	A_PRIVATE,  /* effective size equals resident: private */
	A_FKEY,	    /* function bar key */
	A_FLABEL,   /* function bar label */
	A_WARN,	    /* limits, errors */
	A_MENU,	    /* overlay */
	A_MENUSEL,  /* overlay selection */
	A__COUNT
};

static attr_t attrs[A__COUNT];

static void setup_colors(bool want_color)
{
	static const struct {
		short fg, bg;
		attr_t extra;
	} pairs[A__COUNT] = {
		[A_TITLE] = { COLOR_CYAN, -1, A_BOLD },
		[A_HDRVAL] = { COLOR_WHITE, -1, A_BOLD },
		[A_COLHDR] = { COLOR_BLACK, COLOR_GREEN, 0 },
		[A_COLSORT] = { COLOR_BLACK, COLOR_CYAN, A_BOLD },
		[A_SEL] = { COLOR_BLACK, COLOR_CYAN, 0 },
		[A_CRUMB] = { COLOR_YELLOW, -1, A_BOLD },
		[A_SHARED] = { COLOR_CYAN, -1, 0 },
		[A_PRIVATE] = { COLOR_GREEN, -1, 0 },
		[A_FKEY] = { COLOR_WHITE, -1, A_BOLD },
		[A_FLABEL] = { COLOR_BLACK, COLOR_CYAN, 0 },
		[A_WARN] = { COLOR_RED, -1, A_BOLD },
		[A_MENU] = { COLOR_WHITE, COLOR_BLUE, 0 },
		[A_MENUSEL] = { COLOR_BLACK, COLOR_YELLOW, 0 },
	};
	/* Monochrome: only what every terminal has. */
	static const attr_t mono[A__COUNT] = {
		[A_TITLE] = A_BOLD,	   [A_HDRVAL] = A_BOLD,
		[A_COLHDR] = A_REVERSE,	   [A_COLSORT] = A_REVERSE | A_BOLD,
		[A_SEL] = A_REVERSE,	   [A_CRUMB] = A_BOLD,
		[A_SHARED] = A_NORMAL,	   [A_PRIVATE] = A_NORMAL,
		[A_FKEY] = A_BOLD,	   [A_FLABEL] = A_REVERSE,
		[A_WARN] = A_BOLD,	   [A_MENU] = A_NORMAL,
		[A_MENUSEL] = A_REVERSE,
	};
	bool color = want_color && has_colors() && start_color() == OK;

	if (color && use_default_colors() != OK) {
		/* no default background: use black */
		for (int i = 0; i < A__COUNT; i++)
			init_pair((short)(i + 1), pairs[i].fg,
				  pairs[i].bg < 0 ? COLOR_BLACK : pairs[i].bg);
	} else if (color) {
		for (int i = 0; i < A__COUNT; i++)
			init_pair((short)(i + 1), pairs[i].fg, pairs[i].bg);
	}
	for (int i = 0; i < A__COUNT; i++)
		attrs[i] = color && COLOR_PAIRS > A__COUNT
				   ? (attr_t)COLOR_PAIR(i + 1) | pairs[i].extra
				   : mono[i];
}

/* ---- state ---- */

enum ui_mode { M_NORMAL, M_HELP, M_MENU, M_PROMPT };
enum ui_menu { MENU_SORT, MENU_USER, MENU_FIELDS };
enum ui_prompt { P_SEARCH, P_FILTER, P_DELAY };

#define MENU_MAX 256

struct ui_menu_state {
	enum ui_menu kind;
	char title[64];
	int n, cursor, top;
	int ids[MENU_MAX];
	char *labels[MENU_MAX]; /* owned */
	bool checked[MENU_MAX];
};

struct ui_fkey {
	int x0, x1, key;
};

struct ui {
	const struct tui_opts *o;
	struct exm_source *src;
	struct exm_scan_opts scan;
	struct tui_scanner *scanner;
	struct exm_snapshot *snap;
	unsigned long gen;	/* bumps with every snapshot / filter change */
	long nsnaps;		/* snapshots shown */
	char scan_err[256];
	struct timespec next_due; /* next snapshot request */
	bool paused;
	/* kernel figures are read for these pids only (sorted): the rows
	 * on screen; scan.kpss_pids points here */
	pid_t *kpss;
	size_t nkpss, cap_kpss;
	bool kpss_all;
	bool keyed; /* keys handled since the last check of kpss_missing */

	struct tui_settings set;
	char rc_path[4096];
	struct tui_stack stacks[2]; /* 0: processes, 1: files */
	int pane;
	char *user; /* user filter */
	char *last_search;
	bool utf8;

	enum ui_mode mode;
	struct ui_menu_state menu;
	int help_top;
	enum ui_prompt prompt;
	wchar_t pbuf[256];
	size_t plen;
	size_t search_origin;

	char status[256];
	struct timespec status_until;

	/* geometry of the last draw, for the mouse */
	int rows_y, nrows_screen, colhdr_y, fbar_y;
	struct tui_col cols[TUI_MAX_COLS];
	size_t ncols;
	struct ui_fkey fkeys[16];
	int nfkeys;

	bool quit;
	bool dirty;
};

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct timespec ts_after(double secs)
{
	struct timespec ts;
	double t = now_mono() + secs;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	return ts;
}

static double ts_left(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9 - now_mono();
}

static void set_status(struct ui *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_status(struct ui *u, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->status, sizeof(u->status), fmt, ap);
	va_end(ap);
	u->status_until = ts_after(3.0);
	u->dirty = true;
}

static struct tui_stack *cur_stack(struct ui *u)
{
	return &u->stacks[u->pane];
}

static struct tui_view *cur_view(struct ui *u)
{
	return tui_stack_top(cur_stack(u));
}

static enum exm_table view_table(const struct tui_view *v)
{
	return v->ops->table < EXM_T__COUNT ? v->ops->table : EXM_T_PROCS;
}

static const int *view_fields(struct ui *u, const struct tui_view *v)
{
	return u->set.fields[view_table(v)];
}

/* The field whose value a column shows: the command column shows the
 * short name unless full command lines are on. */
static int shown_field(const struct ui *u, int f)
{
	if (f == EXM_F_CMD && !u->set.full_cmd)
		return EXM_F_COMM;
	return f;
}

/* Bring v up to date with the current snapshot and filters. */
static void ensure_fresh(struct ui *u, struct tui_view *v)
{
	struct tui_build b = {
		.snap = u->snap,
		.user = u->user,
		.group_by = u->set.group_by,
	};

	if (!v || v->gen == u->gen)
		return;
	v->gen = u->gen;
	if (!u->snap) {
		tui_view_clear_rows(v);
		v->why = NULL;
		return;
	}
	if (tui_view_refresh(v, &b))
		set_status(u, "out of memory");
}

/* New views of a table start with the sort the user chose for it. */
static void apply_saved_sort(struct ui *u, struct tui_view *v)
{
	enum exm_table t = view_table(v);

	if (u->set.sort[t] >= 0)
		tui_view_set_sort(v, u->set.sort[t], u->set.sort_desc[t]);
}

static int reset_pane(struct ui *u, int pane)
{
	const struct tui_view_ops *ops;

	if (pane == 1)
		ops = &tui_view_files;
	else if (u->set.group_by != EXM_GROUP_NONE)
		ops = &tui_view_groups;
	else
		ops = &tui_view_procs;
	if (tui_stack_reset(&u->stacks[pane], ops))
		return -ENOMEM;
	apply_saved_sort(u, u->stacks[pane].v[0]);
	return 0;
}

/* Filters changed: every view must be rebuilt when next shown. */
static void invalidate(struct ui *u)
{
	u->gen++;
	u->dirty = true;
}

static void take_snapshot(struct ui *u)
{
	int err = 0;
	char msg[256] = "";
	struct exm_snapshot *snap;

	snap = tui_scanner_take(u->scanner, &err, msg, sizeof(msg));
	if (!snap) {
		if (err) {
			snprintf(u->scan_err, sizeof(u->scan_err),
				 "snapshot failed: %.200s", msg);
			u->dirty = true;
		}
		return;
	}
	u->scan_err[0] = 0;
	/* rows of every view point into the old snapshot: drop them first */
	for (int p = 0; p < 2; p++)
		for (int i = 0; i < u->stacks[p].depth; i++)
			tui_view_clear_rows(u->stacks[p].v[i]);
	tui_scanner_dispose(u->scanner, u->snap);
	u->snap = snap;
	u->nsnaps++;
	invalidate(u);
	ensure_fresh(u, cur_view(u));
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static bool kpss_listed(struct ui *u, pid_t pid)
{
	return u->kpss_all ||
	       bsearch(&pid, u->kpss, u->nkpss, sizeof(pid), cmp_pid);
}

/*
 * Call fn(u, pid) for every process row the views on the stacks show (a
 * key that scrolls asks for a snapshot at once, see kpss_missing) until
 * it returns false: then 1; 0 when all were called; -1 if a view needs
 * the kernel's figures of every process (groups sum them; a sort by one
 * compares them all).
 */
static int visible_procs(struct ui *u, bool (*fn)(struct ui *, pid_t))
{
	for (int p = 0; p < 2; p++)
		for (int i = 0; i < u->stacks[p].depth; i++) {
			const struct tui_view *v = u->stacks[p].v[i];
			enum exm_table t = view_table(v);
			size_t page = v->page > 0 ? (size_t)v->page : 50;

			if (t == EXM_T_GROUPS ||
			    (v->sort_field >= 0 &&
			     (exm_fields[v->sort_field].needs & EXM_NEED_KPSS)))
				return -1;
			if (t != EXM_T_PROCS && t != EXM_T_FPROCS)
				continue;
			for (size_t k = v->top; k < v->nvis && k < v->top + page;
			     k++) {
				const struct exm_row *r = &v->rows[v->vis[k]];

				if (r->proc && !fn(u, r->proc->pid))
					return 1;
			}
		}
	return 0;
}

static bool add_kpss_pid(struct ui *u, pid_t pid)
{
	if (u->nkpss == u->cap_kpss) {
		size_t cap = u->cap_kpss ? u->cap_kpss * 2 : 256;
		pid_t *n = realloc(u->kpss, cap * sizeof(*n));

		if (!n) {
			u->kpss_all = true;
			return false;
		}
		u->kpss = n;
		u->cap_kpss = cap;
	}
	u->kpss[u->nkpss++] = pid;
	return true;
}

/* The processes whose kernel figures the next snapshot reads. */
static void update_kpss_pids(struct ui *u)
{
	static const pid_t none[1];

	u->nkpss = 0;
	/* all when a view needs all, or without memory for the list */
	u->kpss_all = !u->snap || visible_procs(u, add_kpss_pid) != 0;
	if (!u->kpss_all && u->nkpss) {
		size_t k = 0;

		qsort(u->kpss, u->nkpss, sizeof(*u->kpss), cmp_pid);
		for (size_t i = 0; i < u->nkpss; i++)
			if (!k || u->kpss[k - 1] != u->kpss[i])
				u->kpss[k++] = u->kpss[i];
		u->nkpss = k;
	}
	u->scan.kpss_pids = u->kpss_all ? NULL : u->nkpss ? u->kpss : none;
	u->scan.nkpss_pids = u->kpss_all ? 0 : u->nkpss;
	if (u->scanner)
		tui_scanner_set_opts(u->scanner, &u->scan);
}

/*
 * A row on screen whose kernel figures the last snapshot did not read
 * (scrolled, re-sorted, a new view), or a view that now needs them all:
 * worth a snapshot at once.
 */
static bool kpss_missing(struct ui *u)
{
	if (!u->scan.want_kpss || !u->snap || u->kpss_all)
		return false;
	return visible_procs(u, kpss_listed) != 0;
}

static void request_snapshot(struct ui *u)
{
	if (u->scan.want_kpss && !tui_scanner_busy(u->scanner))
		update_kpss_pids(u);
	tui_scanner_request(u->scanner);
	u->next_due = ts_after(u->set.delay);
	u->dirty = true;
}

/*
 * Read only what the shown columns need: the kernel's smaps_rollup figures
 * walk every page table a second time, so they are read only while a view
 * on one of the two stacks has a column that shows them. When a view that
 * needs them appears, a snapshot is taken at once.
 */
static void update_scan_needs(struct ui *u)
{
	unsigned needs = 0;
	bool had = u->scan.want_kpss;

	for (int p = 0; p < 2; p++)
		for (int i = 0; i < u->stacks[p].depth; i++) {
			const int *f = view_fields(u, u->stacks[p].v[i]);

			for (size_t k = 0; f[k] >= 0; k++)
				needs |= exm_fields[f[k]].needs;
		}
	u->scan.want_kpss = needs & EXM_NEED_KPSS;
	if (!u->scanner)
		return;
	tui_scanner_set_opts(u->scanner, &u->scan);
	if (u->scan.want_kpss && !had && u->snap &&
	    !(u->snap->sys.caps & EXM_CAP_KPSS) &&
	    !tui_scanner_busy(u->scanner))
		request_snapshot(u);
}


/* ---- drawing helpers ---- */

enum fit { FIT_LEFT, FIT_RIGHT, FIT_TAIL };

/* Put terminal-safe text at (y, x) in exactly w columns: aligned left or
 * right, or (a path) losing its beginning when too wide. */
static void put_text(struct ui *u, int y, int x, int w, const char *s,
		     enum fit how, attr_t a)
{
	char buf[2048];

	if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	if (how == FIT_TAIL)
		tui_text_fit_tail(buf, sizeof(buf), s, w, !u->utf8);
	else
		tui_text_fit(buf, sizeof(buf), s, w, how == FIT_RIGHT,
			     !u->utf8);
	attrset(a);
	mvaddstr(y, x, buf);
	attrset(A_NORMAL);
}

static void put_fit(struct ui *u, int y, int x, int w, const char *s,
		    bool right, attr_t a)
{
	put_text(u, y, x, w, s, right ? FIT_RIGHT : FIT_LEFT, a);
}

static void put_tail(struct ui *u, int y, int x, int w, const char *s,
		     attr_t a)
{
	put_text(u, y, x, w, s, FIT_TAIL, a);
}

/* Escape untrusted text, then put it. */
static void put_esc(struct ui *u, int y, int x, int w, const char *s,
		    attr_t a)
{
	char buf[2048];

	exm_escape(buf, sizeof(buf), s ? s : "");
	put_fit(u, y, x, w, buf, false, a);
}

static void fill_line(int y, attr_t a)
{
	if (y < 0 || y >= LINES)
		return;
	attrset(a);
	mvhline(y, 0, ' ', COLS);
	attrset(A_NORMAL);
}

static void fmt_size(char *buf, size_t len, double v, bool exact)
{
	if (exact)
		snprintf(buf, len, "%.0f", v);
	else
		exm_fmt_human(buf, len, v);
}

/* ---- header ---- */

static int draw_header(struct ui *u, int y, int lines)
{
	const struct exm_snapshot *s = u->snap;
	char line[1024], a[32], b[32], c[32], when[16] = "--:--:--";
	const char *src = s ? s->sys.source : (u->src->ops->name);
	struct tm tm;
	int used = 0;

	if (lines <= 0)
		return 0;
	if (s) {
		time_t t = s->sys.taken_at.tv_sec;

		localtime_r(&t, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	}
	snprintf(line, sizeof(line), "exmtop - %s  %s  source: %s%s%s%s  every %gs%s%s",
		 s ? s->sys.hostname : "", when, src,
		 s && s->sys.source_detail[0] ? " (" : "",
		 s ? s->sys.source_detail : "",
		 s && s->sys.source_detail[0] ? ")" : "", u->set.delay,
		 u->paused ? "  [paused]" : "",
		 tui_scanner_busy(u->scanner) ? "  scanning..." : "");
	fill_line(y, A_NORMAL);
	put_esc(u, y, 0, COLS, line, attrs[A_TITLE]);
	used++;
	if (used >= lines)
		return used;

	fill_line(y + used, A_NORMAL);
	if (s) {
		fmt_size(a, sizeof(a), (double)s->sys.mem_total, false);
		fmt_size(b, sizeof(b),
			 (double)(s->sys.mem_total - s->sys.mem_available),
			 false);
		fmt_size(c, sizeof(c), s->total.erss, u->set.exact_bytes);
		snprintf(line, sizeof(line),
			 "RAM %s used %s  eff.resident %s  %zu procs, skipped %zu gone %zu denied  scan %.2fs",
			 a, b, c, s->nprocs, s->nskipped_gone,
			 s->nskipped_denied, s->sys.time_taken);
		put_esc(u, y + used, 0, COLS, line, attrs[A_HDRVAL]);
	} else {
		put_esc(u, y + used, 0, COLS,
			u->scan_err[0] ? u->scan_err
				       : "taking the first snapshot...",
			u->scan_err[0] ? attrs[A_WARN] : attrs[A_HDRVAL]);
	}
	used++;
	if (used >= lines)
		return used;
	if (s && (s->sys.limits[0] || u->scan_err[0])) {
		fill_line(y + used, A_NORMAL);
		put_esc(u, y + used, 0, COLS,
			u->scan_err[0] ? u->scan_err : s->sys.limits,
			attrs[A_WARN]);
		used++;
	}
	return used;
}

/* The compact one-line header of small terminals. */
static void draw_header_small(struct ui *u, int y)
{
	char line[256], c[32] = "-";

	if (u->snap)
		fmt_size(c, sizeof(c), u->snap->total.erss, false);
	snprintf(line, sizeof(line), "exmtop %s eff %s %zu procs%s",
		 u->snap ? u->snap->sys.source : u->src->ops->name, c,
		 u->snap ? u->snap->nprocs : 0, u->paused ? " [paused]" : "");
	fill_line(y, A_NORMAL);
	put_esc(u, y, 0, COLS, line, attrs[A_TITLE]);
}

static void draw_crumbs(struct ui *u, int y)
{
	struct tui_view *v = cur_view(u);
	char raw[2048], crumbs[2048], flags[512], right[1024];
	int fw;

	snprintf(flags, sizeof(flags), "%s%s%s%s%s%s  [%zu/%zu]",
		 v->filter ? "  filter:" : "", v->filter ? v->filter : "",
		 u->user ? "  user:" : "", u->user ? u->user : "",
		 u->pane == 0 && u->set.group_by ? "  by " : "",
		 u->pane == 0 && u->set.group_by
			 ? exm_group_name(u->set.group_by)
			 : "",
		 v->nvis ? v->cursor + 1 : 0, v->nvis);
	exm_escape(right, sizeof(right), flags);
	fw = tui_text_width(right);
	if (fw > COLS / 2) {
		/* narrow: the position alone */
		snprintf(right, sizeof(right), " [%zu/%zu]",
			 v->nvis ? v->cursor + 1 : 0, v->nvis);
		fw = tui_text_width(right);
		if (fw > COLS / 2)
			fw = COLS / 2;
	}
	fill_line(y, A_NORMAL);
	/* a long path keeps its end: that is where the user is */
	tui_stack_crumbs(cur_stack(u), raw, sizeof(raw));
	exm_escape(crumbs, sizeof(crumbs), raw);
	put_tail(u, y, 0, COLS - fw, crumbs, attrs[A_CRUMB]);
	put_fit(u, y, COLS - fw, fw, right, true, A_NORMAL);
}

/* ---- the table ---- */

static void draw_colhdr(struct ui *u, struct tui_view *v, int y)
{
	char title[64];

	fill_line(y, attrs[A_COLHDR]);
	for (size_t i = 0; i < u->ncols; i++) {
		const struct tui_col *c = &u->cols[i];
		const struct exm_field *fd = &exm_fields[c->field];
		bool sorted = c->field == v->sort_field;
		bool right = fd->type != EXM_FT_STR;

		snprintf(title, sizeof(title), "%s%s", fd->title,
			 !sorted ? ""
			 : u->utf8 ? (v->sort_desc ? "\u25bc" : "\u25b2")
				   : (v->sort_desc ? "v" : "^"));
		put_fit(u, y, c->x, c->w, title, right,
			sorted ? attrs[A_COLSORT] : attrs[A_COLHDR]);
	}
}

static void draw_row(struct ui *u, struct tui_view *v, int y,
		     const struct exm_row *r, bool sel)
{
	enum exm_table t = view_table(v);
	char buf[2048];

	fill_line(y, sel ? attrs[A_SEL] : A_NORMAL);
	for (size_t i = 0; i < u->ncols; i++) {
		const struct tui_col *c = &u->cols[i];
		int f = shown_field(u, c->field);
		const struct exm_field *fd = &exm_fields[c->field];
		struct exm_value val;
		attr_t a = sel ? attrs[A_SEL] : A_NORMAL;

		exm_field_value(f, t, r, &val);
		if (val.type == EXM_V_NONE && f != c->field)
			exm_field_value(c->field, t, r, &val);
		exm_fmt_value(buf, sizeof(buf), f, &val, u->set.exact_bytes);
		if (!sel && c->field == EXM_F_ERSS && val.type == EXM_V_DBL &&
		    (r->sz.has & EXM_HAS_RSS) && r->sz.rss)
			a = val.d + 0.5 < (double)r->sz.rss ? attrs[A_SHARED]
							    : attrs[A_PRIVATE];
		if (f == EXM_F_FILE ||
		    (f == EXM_F_GROUP && u->set.group_by == EXM_GROUP_CGROUP))
			put_tail(u, y, c->x, c->w, buf, a);
		else
			put_fit(u, y, c->x, c->w, buf, fd->type != EXM_FT_STR,
				a);
	}
}

static void draw_table(struct ui *u, int y, int h)
{
	struct tui_view *v = cur_view(u);
	const int *fields = view_fields(u, v);
	int size_w = u->set.exact_bytes ? 13 : 0;

	u->colhdr_y = y;
	u->ncols = tui_layout(fields, tui_fields_count(fields), COLS, size_w,
			      u->cols);
	if (h <= 0)
		return;
	draw_colhdr(u, v, y);
	y++;
	h--;
	u->rows_y = y;
	u->nrows_screen = h;
	v->page = h > 0 ? h : 1;
	tui_view_fix_scroll(v);
	for (int i = 0; i < h; i++)
		fill_line(y + i, A_NORMAL);
	if (!u->snap) {
		if (h > 0)
			put_esc(u, y, 0, COLS,
				u->scan_err[0] ? u->scan_err
					       : "taking the first snapshot...",
				A_NORMAL);
		return;
	}
	if (!v->nvis) {
		if (h > 0)
			put_esc(u, y, 0, COLS,
				v->why ? v->why
				: v->filter || u->user
					? "(no rows match the filter)"
					: "(no rows)",
				A_NORMAL);
		return;
	}
	for (int i = 0; i < h && v->top + (size_t)i < v->nvis; i++) {
		size_t k = v->top + (size_t)i;

		draw_row(u, v, y + i, &v->rows[v->vis[k]], k == v->cursor);
	}
}

/* ---- bottom line: function keys, prompt or status ---- */

static void draw_fbar(struct ui *u, int y)
{
	static const struct {
		const char *key, *label;
		int code;
	} items[] = {
		{ "F1", "Help", KEY_F(1) },	{ "F2", "Cols", KEY_F(2) },
		{ "F3", "Search", KEY_F(3) },	{ "F4", "Filter", KEY_F(4) },
		{ "F5", "Group", KEY_F(5) },	{ "F6", "SortBy", KEY_F(6) },
		{ "Tab", "Files", '\t' },	{ "Enter", "In", '\n' },
		{ "Bksp", "Out", KEY_BACKSPACE }, { "F10", "Quit", KEY_F(10) },
	};
	int x = 0;

	u->fbar_y = y;
	u->nfkeys = 0;
	fill_line(y, A_NORMAL);
	if (u->status[0]) {
		put_esc(u, y, 0, COLS, u->status, attrs[A_WARN]);
		return;
	}
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]) && x < COLS;
	     i++) {
		int kw = (int)strlen(items[i].key);
		int lw = (int)strlen(items[i].label) + 1;
		const char *label = items[i].label;

		if (i == 6 && u->pane == 1)
			label = "Procs";
		put_fit(u, y, x, kw, items[i].key, false, attrs[A_FKEY]);
		put_fit(u, y, x + kw, lw, label, false, attrs[A_FLABEL]);
		if (u->nfkeys < 16)
			u->fkeys[u->nfkeys++] =
				(struct ui_fkey){ x, x + kw + lw, items[i].code };
		x += kw + lw;
	}
}

static void draw_prompt(struct ui *u, int y)
{
	static const char *const names[] = {
		[P_SEARCH] = "Search: ", [P_FILTER] = "Filter: ",
		[P_DELAY] = "Delay in seconds: ",
	};
	char text[1024], line[1200];
	wchar_t tmp[256];
	int w;

	wmemcpy(tmp, u->pbuf, u->plen);
	tmp[u->plen] = 0;
	if (wcstombs(text, tmp, sizeof(text)) == (size_t)-1)
		text[0] = 0;
	snprintf(line, sizeof(line), "%s%s", names[u->prompt], text);
	fill_line(y, A_NORMAL);
	put_esc(u, y, 0, COLS, line, attrs[A_FKEY]);
	w = tui_text_width(line);
	if (w < COLS) {
		move(y, w);
		curs_set(1);
	}
}

/* ---- overlays: help and menus ---- */

static const char *const help_lines[] = {
	"exmtop - what each process really costs in memory",
	"",
	"Effective resident (EFF.RES): each resident page's size divided among",
	"the processes mapping it, so the column adds up to the RAM in use.",
	"RES counts every page fully; SOLE is what no other process maps; WRITE",
	"is private memory the process could write without a copy; PSS is the",
	"kernel's own figure (smaps_rollup). '-' means it could not be measured.",
	"",
	" Up/Down PgUp/PgDn Home/End  move            mouse: click, wheel, header",
	" Enter Right                 drill down: process > files > mappings",
	" Backspace Esc Left          back up the breadcrumb",
	" Tab                         switch Processes / Files pane",
	" e                           ELF sections of the file (when available)",
	"                             (Enter on a mapping: its file's sections;",
	"                             Enter on a section: its symbols; e on a",
	"                             section: the processes behind it)",
	" m                           C++ demangling of symbols on / off",
	" F6 o                        choose the sort column",
	" < >                         sort by the column left / right",
	" r I                         reverse the sort order",
	" F3 /   n N                  search; next / previous match",
	" F4 \\                        filter rows (name, command, user, file);",
	"                             Esc in the filter line clears it",
	" u                           show only one user's processes",
	" F5 g                        group: process / program / user / cgroup",
	" c                           full command lines on / off",
	" b                           exact byte counts on / off",
	" F2 f                        choose columns ([ ] move, space toggles)",
	" W                           save settings to ~/.config/exmtop/exmtoprc",
	" d s                         change the refresh interval",
	" Space                       refresh now",
	" p Z                         pause / resume refreshing",
	" Ctrl-L                      redraw the screen",
	" F1 h ?                      this help",
	" F10 q                       quit",
	"",
	"Colours: EFF.RES in cyan when pages are shared, green when private.",
	"Press any key to return.",
};
#define NHELP ((int)(sizeof(help_lines) / sizeof(help_lines[0])))

const char *const *tui_help_text(size_t *n)
{
	*n = NHELP;
	return help_lines;
}

static void draw_help(struct ui *u)
{
	int h = LINES;

	if (u->help_top > NHELP - h)
		u->help_top = NHELP - h > 0 ? NHELP - h : 0;
	for (int i = 0; i < h; i++) {
		int k = u->help_top + i;

		fill_line(i, A_NORMAL);
		if (k < NHELP)
			put_fit(u, i, 0, COLS, help_lines[k], false,
				k == 0 ? attrs[A_TITLE] : A_NORMAL);
	}
}

static void draw_menu(struct ui *u)
{
	struct ui_menu_state *m = &u->menu;
	int w = 34, h = m->n + 2, x, y;

	if (w > COLS)
		w = COLS;
	if (h > LINES)
		h = LINES;
	x = (COLS - w) / 2;
	y = (LINES - h) / 2;
	if (m->cursor < m->top)
		m->top = m->cursor;
	if (h > 2 && m->cursor >= m->top + h - 2)
		m->top = m->cursor - (h - 3);
	put_fit(u, y, x, w, m->title, false, attrs[A_MENUSEL]);
	/* title, entries, and a key line when there is room for it */
	for (int i = 0; i < (h > 2 ? h - 2 : h - 1); i++) {
		int k = m->top + i;
		char line[256];

		if (k >= m->n)
			line[0] = 0;
		else
			snprintf(line, sizeof(line), " %s %s",
				 m->kind == MENU_FIELDS
					 ? (m->checked[k] ? "[x]" : "[ ]")
					 : (m->checked[k] ? "*" : " "),
				 m->labels[k]);
		put_fit(u, y + 1 + i, x, w, line, false,
			k == m->cursor ? attrs[A_MENUSEL] : attrs[A_MENU]);
	}
	if (h > 2)
		put_fit(u, y + h - 1, x, w,
			m->kind == MENU_FIELDS
				? " space: on/off  [ ]: move  Esc"
				: " Enter: choose  Esc: cancel",
			false, attrs[A_MENUSEL]);
}

static void draw(struct ui *u)
{
	int y = 0, h = LINES, hdr;

	curs_set(0);
	erase();
	if (u->mode == M_HELP) {
		draw_help(u);
		refresh();
		return;
	}
	ensure_fresh(u, cur_view(u));
	/* what fits: header 2-3 lines, breadcrumb, column header, rows,
	 * bottom line; small terminals drop the header first */
	if (h >= 12)
		hdr = draw_header(u, 0, 3);
	else if (h >= 7)
		hdr = (draw_header_small(u, 0), 1);
	else
		hdr = 0;
	y = hdr;
	if (h - y >= 4) {
		draw_crumbs(u, y);
		y++;
	}
	draw_table(u, y, h - y - 1);
	if (u->mode == M_PROMPT)
		draw_prompt(u, h - 1);
	else
		draw_fbar(u, h - 1);
	if (u->mode == M_MENU)
		draw_menu(u);
	refresh();
	u->dirty = false;
}

/* ---- menus ---- */

static void menu_clear(struct ui *u)
{
	for (int i = 0; i < u->menu.n; i++)
		free(u->menu.labels[i]);
	memset(&u->menu, 0, sizeof(u->menu));
}

static void menu_add(struct ui *u, int id, const char *label, bool checked)
{
	struct ui_menu_state *m = &u->menu;
	char esc[256];

	if (m->n >= MENU_MAX)
		return;
	exm_escape(esc, sizeof(esc), label);
	m->labels[m->n] = strdup(esc);
	if (!m->labels[m->n])
		return;
	m->ids[m->n] = id;
	m->checked[m->n] = checked;
	m->n++;
}

static void open_sort_menu(struct ui *u)
{
	struct tui_view *v = cur_view(u);
	int fs[EXM_F__COUNT];
	size_t n = tui_table_fields(view_table(v), fs, EXM_F__COUNT);
	char label[128];

	menu_clear(u);
	u->menu.kind = MENU_SORT;
	snprintf(u->menu.title, sizeof(u->menu.title), " Sort by");
	for (size_t i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "%-9s %s", exm_fields[fs[i]].title,
			 exm_fields[fs[i]].help);
		if (fs[i] == v->sort_field)
			u->menu.cursor = u->menu.n;
		menu_add(u, fs[i], label, fs[i] == v->sort_field);
	}
	u->mode = M_MENU;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void open_user_menu(struct ui *u)
{
	const char **names;
	size_t n = 0;

	menu_clear(u);
	u->menu.kind = MENU_USER;
	snprintf(u->menu.title, sizeof(u->menu.title), " Show processes of");
	menu_add(u, -1, "(all users)", !u->user);
	if (!u->snap)
		goto out;
	names = calloc(u->snap->nprocs + 1, sizeof(*names));
	if (!names)
		goto out;
	for (size_t i = 0; i < u->snap->nprocs; i++)
		if (u->snap->procs[i].user)
			names[n++] = u->snap->procs[i].user;
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (i && !strcmp(names[i], names[i - 1]))
			continue;
		if (u->user && !strcmp(u->user, names[i]))
			u->menu.cursor = u->menu.n;
		/* id: index into the snapshot's procs of one such user */
		for (size_t k = 0; k < u->snap->nprocs; k++)
			if (u->snap->procs[k].user == names[i]) {
				menu_add(u, (int)k, names[i],
					 u->user && !strcmp(u->user, names[i]));
				break;
			}
	}
	free(names);
out:
	u->mode = M_MENU;
}

static void fill_fields_menu(struct ui *u, int keep_id)
{
	struct tui_view *v = cur_view(u);
	const int *vis = view_fields(u, v);
	int fs[EXM_F__COUNT];
	size_t n = tui_table_fields(view_table(v), fs, EXM_F__COUNT);
	char label[128];

	for (int i = 0; i < u->menu.n; i++)
		free(u->menu.labels[i]);
	u->menu.n = 0;
	/* visible columns in their order, then the hidden ones */
	for (size_t i = 0; vis[i] >= 0; i++) {
		snprintf(label, sizeof(label), "%-9s %s",
			 exm_fields[vis[i]].title, exm_fields[vis[i]].help);
		menu_add(u, vis[i], label, true);
	}
	for (size_t i = 0; i < n; i++) {
		bool shown = false;

		for (size_t k = 0; vis[k] >= 0; k++)
			shown |= vis[k] == fs[i];
		if (shown)
			continue;
		snprintf(label, sizeof(label), "%-9s %s",
			 exm_fields[fs[i]].title, exm_fields[fs[i]].help);
		menu_add(u, fs[i], label, false);
	}
	for (int i = 0; i < u->menu.n; i++)
		if (u->menu.ids[i] == keep_id)
			u->menu.cursor = i;
}

static void open_fields_menu(struct ui *u)
{
	menu_clear(u);
	u->menu.kind = MENU_FIELDS;
	snprintf(u->menu.title, sizeof(u->menu.title), " Columns of %s",
		 exm_table_name(view_table(cur_view(u))));
	fill_fields_menu(u, -1);
	u->mode = M_MENU;
}

/* Column chooser: toggle or move field id in the current table's list. */
static void fields_edit(struct ui *u, int id, int move)
{
	int *vis = u->set.fields[view_table(cur_view(u))];
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
	fill_fields_menu(u, id);
	update_scan_needs(u);
	u->dirty = true;
}

static void set_user(struct ui *u, const char *user)
{
	free(u->user);
	u->user = user ? strdup(user) : NULL;
	invalidate(u);
}

static void menu_choose(struct ui *u)
{
	struct ui_menu_state *m = &u->menu;
	struct tui_view *v = cur_view(u);
	int id;

	if (!m->n)
		return;
	id = m->ids[m->cursor];
	switch (m->kind) {
	case MENU_SORT:
		tui_view_set_sort(v, id, exm_fields[id].desc);
		u->set.sort[view_table(v)] = id;
		u->set.sort_desc[view_table(v)] = v->sort_desc;
		break;
	case MENU_USER:
		set_user(u, id < 0 || !u->snap || (size_t)id >= u->snap->nprocs
				    ? NULL
				    : u->snap->procs[id].user);
		break;
	case MENU_FIELDS:
		fields_edit(u, id, 0);
		return; /* stays open */
	}
	menu_clear(u);
	u->mode = M_NORMAL;
}

static void menu_key(struct ui *u, int ch, bool fkey)
{
	struct ui_menu_state *m = &u->menu;
	int page = LINES - 4 > 1 ? LINES - 4 : 1;

	if (fkey && ch == KEY_ENTER) { /* the keypad's Enter: as Return */
		fkey = false;
		ch = '\n';
	}
	if (fkey) {
		switch (ch) {
		case KEY_UP:
			m->cursor--;
			break;
		case KEY_DOWN:
			m->cursor++;
			break;
		case KEY_PPAGE:
			m->cursor -= page;
			break;
		case KEY_NPAGE:
			m->cursor += page;
			break;
		case KEY_HOME:
			m->cursor = 0;
			break;
		case KEY_END:
			m->cursor = m->n - 1;
			break;
		case KEY_F(2):
		case KEY_F(6):
		case KEY_F(10):
		case KEY_LEFT:
		case KEY_BACKSPACE:
			menu_clear(u);
			u->mode = M_NORMAL;
			return;
		}
	} else {
		switch (ch) {
		case '\n':
		case '\r':
			if (m->kind == MENU_FIELDS) {
				menu_clear(u);
				u->mode = M_NORMAL;
				return;
			}
			menu_choose(u);
			return;
		case ' ':
			menu_choose(u);
			return;
		case '[':
		case '-':
			if (m->kind == MENU_FIELDS && m->n) {
				fields_edit(u, m->ids[m->cursor], -1);
				return;
			}
			break;
		case ']':
		case '+':
			if (m->kind == MENU_FIELDS && m->n) {
				fields_edit(u, m->ids[m->cursor], 1);
				return;
			}
			break;
		case 'k':
			m->cursor--;
			break;
		case 'j':
			m->cursor++;
			break;
		case KEY_ESC:
		case 'q':
		case 'f':
		case 127:
		case 8:
			menu_clear(u);
			u->mode = M_NORMAL;
			return;
		}
	}
	if (m->cursor >= m->n)
		m->cursor = m->n - 1;
	if (m->cursor < 0)
		m->cursor = 0;
}

/* ---- prompt ---- */

static void prompt_text(struct ui *u, char *buf, size_t len)
{
	wchar_t tmp[256];

	wmemcpy(tmp, u->pbuf, u->plen);
	tmp[u->plen] = 0;
	if (wcstombs(buf, tmp, len) == (size_t)-1)
		buf[0] = 0;
	buf[len - 1] = 0;
}

static void open_prompt(struct ui *u, enum ui_prompt kind, const char *init)
{
	u->mode = M_PROMPT;
	u->prompt = kind;
	u->plen = 0;
	if (init) {
		size_t k = mbstowcs(u->pbuf, init, 255);

		u->plen = k == (size_t)-1 ? 0 : k;
	}
	u->search_origin = cur_view(u)->cursor;
}

/* Apply the prompt text live (search moves, filter narrows). */
static void prompt_live(struct ui *u)
{
	struct tui_view *v = cur_view(u);
	char text[1024];

	prompt_text(u, text, sizeof(text));
	if (u->prompt == P_SEARCH) {
		tui_view_set_cursor(v, (long)u->search_origin);
		if (*text && !tui_view_search(v, text, 0))
			set_status(u, "not found");
	} else if (u->prompt == P_FILTER) {
		tui_view_set_filter(v, text);
	}
}

static void prompt_done(struct ui *u, bool accept)
{
	struct tui_view *v = cur_view(u);
	char text[1024];

	prompt_text(u, text, sizeof(text));
	u->mode = M_NORMAL;
	switch (u->prompt) {
	case P_SEARCH:
		if (accept && *text) {
			free(u->last_search);
			u->last_search = strdup(text);
		} else if (!accept) {
			tui_view_set_cursor(v, (long)u->search_origin);
		}
		break;
	case P_FILTER:
		tui_view_set_filter(v, accept ? text : NULL);
		break;
	case P_DELAY:
		if (accept) {
			char *end;
			double d = strtod(text, &end);

			if (end == text || *end || !(d >= 0.1 && d <= 3600)) {
				set_status(u, "delay must be 0.1 to 3600 seconds");
			} else {
				u->set.delay = d;
				u->next_due = ts_after(d);
				set_status(u, "refreshing every %gs", d);
			}
		}
		break;
	}
	u->dirty = true;
}

static void prompt_key(struct ui *u, wint_t ch, bool fkey)
{
	if (fkey) {
		switch (ch) {
		case KEY_ENTER:
			prompt_done(u, true);
			return;
		case KEY_BACKSPACE:
			if (u->plen)
				u->plen--;
			break;
		case KEY_F(3):
			if (u->prompt == P_SEARCH) {
				char text[1024];

				prompt_text(u, text, sizeof(text));
				tui_view_search(cur_view(u), text, 1);
				u->search_origin = cur_view(u)->cursor;
			}
			return;
		default:
			return;
		}
	} else if (ch == '\n' || ch == '\r') {
		prompt_done(u, true);
		return;
	} else if (ch == KEY_ESC) {
		prompt_done(u, false);
		return;
	} else if (ch == 127 || ch == 8) {
		if (u->plen)
			u->plen--;
	} else if (ch == CTRL('u')) {
		u->plen = 0;
	} else if (iswprint(ch) && u->plen < 255) {
		if (u->prompt == P_DELAY && !iswdigit(ch) && ch != '.')
			return;
		u->pbuf[u->plen++] = (wchar_t)ch;
	} else {
		return;
	}
	prompt_live(u);
}

/* ---- normal mode ---- */

static void enter_view(struct ui *u, bool alt)
{
	struct tui_view *v;

	if (!u->snap)
		return;
	v = tui_stack_enter(cur_stack(u), alt);
	if (!v) {
		if (cur_stack(u)->depth >= TUI_STACK_MAX)
			set_status(u, "too deep");
		else if (tui_view_selected(cur_view(u)))
			set_status(u, alt ? "no ELF view for this row"
					  : "nothing below this row");
		return;
	}
	apply_saved_sort(u, v);
	v->gen = u->gen - 1;
	ensure_fresh(u, v);
	update_scan_needs(u);
	u->dirty = true;
}

static void go_back(struct ui *u)
{
	if (tui_stack_back(cur_stack(u)))
		update_scan_needs(u);
}

static void sort_step(struct ui *u, int dir)
{
	struct tui_view *v = cur_view(u);
	const int *vis = view_fields(u, v);
	size_t n = tui_fields_count(vis), pos = n;
	int f;

	for (size_t i = 0; i < n; i++)
		if (vis[i] == v->sort_field)
			pos = i;
	if (!n)
		return;
	if (pos == n)
		pos = 0;
	else if (dir < 0)
		pos = pos ? pos - 1 : 0;
	else
		pos = pos + 1 < n ? pos + 1 : n - 1;
	f = vis[pos];
	tui_view_set_sort(v, f, exm_fields[f].desc);
	u->set.sort[view_table(v)] = f;
	u->set.sort_desc[view_table(v)] = v->sort_desc;
}

static void sort_reverse(struct ui *u)
{
	struct tui_view *v = cur_view(u);

	tui_view_set_sort(v, v->sort_field, !v->sort_desc);
	u->set.sort[view_table(v)] = v->sort_field;
	u->set.sort_desc[view_table(v)] = v->sort_desc;
}

static void cycle_group(struct ui *u)
{
	u->set.group_by = (u->set.group_by + 1) % EXM_GROUP__COUNT;
	if (reset_pane(u, 0)) {
		set_status(u, "out of memory");
		return;
	}
	u->pane = 0;
	invalidate(u);
	update_scan_needs(u);
	set_status(u, "processes grouped per %s",
		   exm_group_name(u->set.group_by));
}

static void save_settings(struct ui *u)
{
	int err;

	if (!u->rc_path[0]) {
		set_status(u, "cannot save: neither HOME nor XDG_CONFIG_HOME is set");
		return;
	}
	err = tui_settings_save(&u->set, u->rc_path);
	if (err)
		set_status(u, "cannot save %s: %s", u->rc_path, strerror(-err));
	else
		set_status(u, "settings saved to %s", u->rc_path);
}

static void move_cursor(struct ui *u, long delta)
{
	struct tui_view *v = cur_view(u);

	tui_view_set_cursor(v, (long)v->cursor + delta);
	u->dirty = true;
}

static void click(struct ui *u, MEVENT *ev)
{
	struct tui_view *v = cur_view(u);

	if (ev->bstate & BUTTON4_PRESSED) {
		move_cursor(u, -3);
		return;
	}
#ifdef BUTTON5_PRESSED
	if (ev->bstate & BUTTON5_PRESSED) {
		move_cursor(u, 3);
		return;
	}
#endif
	if (!(ev->bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED |
			    BUTTON1_RELEASED | BUTTON1_DOUBLE_CLICKED)))
		return;
	if (u->mode != M_NORMAL)
		return;
	if (ev->y == u->colhdr_y) {
		for (size_t i = 0; i < u->ncols; i++) {
			int f = u->cols[i].field;

			if (ev->x < u->cols[i].x ||
			    ev->x > u->cols[i].x + u->cols[i].w)
				continue;
			if (f == v->sort_field)
				tui_view_set_sort(v, f, !v->sort_desc);
			else
				tui_view_set_sort(v, f, exm_fields[f].desc);
			u->set.sort[view_table(v)] = f;
			u->set.sort_desc[view_table(v)] = v->sort_desc;
			u->dirty = true;
			return;
		}
		return;
	}
	if (ev->y >= u->rows_y && ev->y < u->rows_y + u->nrows_screen) {
		size_t k = v->top + (size_t)(ev->y - u->rows_y);

		if (k < v->nvis) {
			tui_view_set_cursor(v, (long)k);
			if (ev->bstate & BUTTON1_DOUBLE_CLICKED)
				enter_view(u, false);
		}
		u->dirty = true;
		return;
	}
	if (ev->y == u->fbar_y) {
		for (int i = 0; i < u->nfkeys; i++)
			if (ev->x >= u->fkeys[i].x0 && ev->x < u->fkeys[i].x1)
				ungetch(u->fkeys[i].key);
	}
}

static void normal_key(struct ui *u, wint_t ch, bool fkey)
{
	struct tui_view *v = cur_view(u);
	int page = v->page > 1 ? v->page - 1 : 1;
	MEVENT ev;

	if (fkey) {
		switch (ch) {
		case KEY_UP:
			move_cursor(u, -1);
			break;
		case KEY_DOWN:
			move_cursor(u, 1);
			break;
		case KEY_PPAGE:
			move_cursor(u, -page);
			break;
		case KEY_NPAGE:
			move_cursor(u, page);
			break;
		case KEY_HOME:
			tui_view_set_cursor(v, 0);
			break;
		case KEY_END:
			tui_view_set_cursor(v, (long)v->nvis - 1);
			break;
		case KEY_RIGHT:
		case KEY_ENTER:
			enter_view(u, false);
			break;
		case KEY_LEFT:
		case KEY_BACKSPACE:
			go_back(u);
			break;
		case KEY_F(1):
			u->mode = M_HELP;
			u->help_top = 0;
			break;
		case KEY_F(2):
			open_fields_menu(u);
			break;
		case KEY_F(3):
			open_prompt(u, P_SEARCH, NULL);
			break;
		case KEY_F(4):
			open_prompt(u, P_FILTER, v->filter);
			break;
		case KEY_F(5):
			cycle_group(u);
			break;
		case KEY_F(6):
			open_sort_menu(u);
			break;
		case KEY_F(10):
			u->quit = true;
			break;
		case KEY_MOUSE:
			if (getmouse(&ev) == OK)
				click(u, &ev);
			break;
		case KEY_RESIZE:
			break;
		}
		u->dirty = true;
		return;
	}
	switch (ch) {
	case 'q':
		u->quit = true;
		break;
	case 'h':
	case '?':
		u->mode = M_HELP;
		u->help_top = 0;
		break;
	case 'j':
		move_cursor(u, 1);
		break;
	case 'k':
		move_cursor(u, -1);
		break;
	case '\n':
	case '\r':
	case 'l':
		enter_view(u, false);
		break;
	case 'e':
		enter_view(u, true);
		break;
	case 'm':
		set_status(u, "C++ demangling %s",
			   tui_elf_toggle_demangle() ? "on" : "off");
		v->gen = u->gen - 1;
		ensure_fresh(u, v);
		break;
	case KEY_ESC:
	case 127:
	case 8:
		go_back(u);
		break;
	case '\t':
		u->pane = !u->pane;
		break;
	case 'o':
		open_sort_menu(u);
		break;
	case '<':
	case ',':
		sort_step(u, -1);
		break;
	case '>':
	case '.':
		sort_step(u, 1);
		break;
	case 'r':
	case 'I':
		sort_reverse(u);
		break;
	case '/':
		open_prompt(u, P_SEARCH, NULL);
		break;
	case 'n':
	case 'N':
		if (!u->last_search)
			set_status(u, "no search yet: press /");
		else if (!tui_view_search(v, u->last_search,
					  ch == 'n' ? 1 : -1))
			set_status(u, "not found");
		break;
	case '\\':
		open_prompt(u, P_FILTER, v->filter);
		break;
	case 'u':
		open_user_menu(u);
		break;
	case 'g':
		cycle_group(u);
		break;
	case 'c':
		u->set.full_cmd = !u->set.full_cmd;
		set_status(u, "full command lines %s",
			   u->set.full_cmd ? "on" : "off");
		break;
	case 'b':
		u->set.exact_bytes = !u->set.exact_bytes;
		break;
	case 'f':
		open_fields_menu(u);
		break;
	case 'W':
		save_settings(u);
		break;
	case 'd':
	case 's':
		open_prompt(u, P_DELAY, NULL);
		break;
	case ' ':
		if (tui_scanner_busy(u->scanner))
			set_status(u, "a snapshot is being taken");
		else
			request_snapshot(u);
		break;
	case 'p':
	case 'Z':
		u->paused = !u->paused;
		if (!u->paused)
			u->next_due = ts_after(0);
		set_status(u, u->paused ? "paused: space refreshes once"
					: "resumed");
		break;
	case CTRL('l'):
		clearok(curscr, TRUE);
		break;
	}
	u->dirty = true;
}

static void handle_key(struct ui *u, int ret, wint_t ch)
{
	bool fkey = ret == KEY_CODE_YES;

	if (fkey && ch == KEY_RESIZE) {
		u->dirty = true;
		return;
	}
	/* keys typed ahead act on current rows, even after Tab or back */
	ensure_fresh(u, cur_view(u));
	switch (u->mode) {
	case M_HELP:
		if (fkey && (ch == KEY_DOWN || ch == KEY_NPAGE)) {
			u->help_top += ch == KEY_DOWN ? 1 : LINES - 1;
		} else if (fkey && (ch == KEY_UP || ch == KEY_PPAGE)) {
			u->help_top -= ch == KEY_UP ? 1 : LINES - 1;
			if (u->help_top < 0)
				u->help_top = 0;
		} else if (!(fkey && ch == KEY_MOUSE)) {
			u->mode = M_NORMAL;
		}
		break;
	case M_MENU:
		menu_key(u, (int)ch, fkey);
		break;
	case M_PROMPT:
		prompt_key(u, ch, fkey);
		break;
	case M_NORMAL:
		normal_key(u, ch, fkey);
		break;
	}
	u->dirty = true;
}

/* ---- setup from the command line and the settings file ---- */

static int apply_opts(struct ui *u, const struct tui_opts *o)
{
	enum exm_table t = o->files ? EXM_T_FILES : EXM_T_PROCS;
	char err[256], warn[512] = "";
	int f;

	tui_settings_init(&u->set);
	if (tui_settings_path(u->rc_path, sizeof(u->rc_path)))
		u->rc_path[0] = 0;
	else if (tui_settings_load(&u->set, u->rc_path, warn, sizeof(warn)) ==
			 0 &&
		 warn[0])
		set_status(u, "%s", warn);
	/* the command line wins over the file */
	if (o->delay > 0 && o->delay != 2.0)
		u->set.delay = o->delay;
	if (o->full_cmd)
		u->set.full_cmd = true;
	if (o->bytes)
		u->set.exact_bytes = true;
	if (o->fields && tui_fields_parse(o->fields, t, u->set.fields[t],
					  TUI_MAX_COLS + 1, err,
					  sizeof(err))) {
		fprintf(stderr, "exmtop: --fields: %s\n", err);
		return 2;
	}
	if (o->sort_key) {
		f = exm_field_by_key(o->sort_key);
		if (f < 0 || !(exm_fields[f].tables & EXM_TBIT(t))) {
			fprintf(stderr, "exmtop: -o: unknown sort field '%s'\n",
				o->sort_key);
			return 2;
		}
		u->set.sort[t] = f;
		u->set.sort_desc[t] = !o->sort_asc;
	}
	if (o->user && !(u->user = strdup(o->user)))
		return 1;
	u->pane = o->files ? 1 : 0;
	return 0;
}

static bool locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

static int init_curses(struct ui *u, bool color)
{
	const char *term = getenv("TERM");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "exmtop: not a terminal (use -b for batch output)\n");
		return -ENOTTY;
	}
	if (!newterm(term && *term ? term : "vt100", stdout, stdin)) {
		fprintf(stderr, "exmtop: cannot use terminal type '%s'\n",
			term ? term : "");
		return -EINVAL;
	}
	curses_on = 1;
	set_escdelay(25);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
			  | BUTTON5_PRESSED
#endif
		  ,
		  NULL);
	curs_set(0);
	setup_colors(color);
	return 0;
}

static void ui_free(struct ui *u)
{
	for (int p = 0; p < 2; p++)
		tui_stack_fini(&u->stacks[p]);
	menu_clear(u);
	if (u->snap)
		exm_snapshot_free(u->snap);
	free(u->user);
	free(u->last_search);
	free(u->kpss);
}

/* ---- the loop ---- */

static void loop(struct ui *u)
{
	struct pollfd pfd[3] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = tui_scanner_fd(u->scanner), .events = POLLIN },
		{ .fd = sig_pipe[0], .events = POLLIN },
	};

	while (!u->quit && !got_signal) {
		double left;
		int timeout, ret;
		wint_t ch;

		/* refresh deadline */
		if (!u->paused && ts_left(&u->next_due) <= 0 &&
		    !tui_scanner_busy(u->scanner)) {
			if (u->o->iterations > 0 &&
			    u->nsnaps >= u->o->iterations)
				break;
			request_snapshot(u);
		}
		if (u->dirty)
			draw(u);
		/* the user scrolled or sorted onto rows whose kernel
		 * figures were not read: read them now, not at the next
		 * refresh (after keys only: new processes wait for it) */
		if (u->keyed && !u->paused &&
		    !tui_scanner_busy(u->scanner)) {
			if (kpss_missing(u))
				request_snapshot(u);
			u->keyed = false;
		} /* while a scan runs: look again when it is in */
		/* sleep until the next deadline; while a scan runs, its
		 * pipe wakes us */
		left = u->paused || tui_scanner_busy(u->scanner)
			       ? 3600
			       : ts_left(&u->next_due);
		if (u->status[0] && ts_left(&u->status_until) < left)
			left = ts_left(&u->status_until);
		if (left < 0)
			left = 0;
		timeout = (int)ceil(left * 1000);
		if (timeout > 60000)
			timeout = 60000;
		ret = poll(pfd, 3, timeout);
		if (ret < 0 && errno != EINTR)
			break;
		if (u->status[0] && ts_left(&u->status_until) <= 0) {
			u->status[0] = 0; /* expired */
			u->dirty = true;
		}
		if (ret > 0 && (pfd[1].revents & POLLIN))
			take_snapshot(u);
		/* keys: read all that are waiting (also after EINTR: a
		 * SIGWINCH shows up as KEY_RESIZE) */
		while ((ret = get_wch(&ch)) != ERR && !u->quit) {
			handle_key(u, ret, ch);
			u->keyed = true;
		}
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			break; /* terminal gone */
	}
}

int tui_live(const struct tui_opts *o)
{
	struct ui u;
	char err[256] = "";
	int ret, status = 0;
	bool color;

	memset(&u, 0, sizeof(u));
	u.o = o;
	tui_view_elf_register();
	setlocale(LC_CTYPE, "");
	u.utf8 = locale_is_utf8();
	ret = apply_opts(&u, o);
	if (ret) {
		ui_free(&u);
		return ret;
	}
	ret = exm_source_open(o->source ? o->source : "auto", &u.src, err,
			      sizeof(err));
	if (ret) {
		fprintf(stderr, "exmtop: %s\n", err[0] ? err : strerror(-ret));
		ui_free(&u);
		return 1;
	}
	tui_opts_scan(o, &u.scan);
	u.scan.want_cmdline = true;
	ret = reset_pane(&u, 0) || reset_pane(&u, 1) ||
	      pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK);
	if (!ret) {
		update_scan_needs(&u); /* the panes decide what to read */
		ret = tui_scanner_start(&u.scanner, u.src, &u.scan, true);
	}
	if (ret) {
		fprintf(stderr, "exmtop: cannot start: %s\n",
			strerror(ret < 0 ? -ret : errno));
		ui_free(&u);
		exm_source_close(u.src);
		return 1;
	}
	install_signals();
	color = !o->no_color && !(getenv("NO_COLOR") && *getenv("NO_COLOR"));
	if (init_curses(&u, color)) {
		tui_scanner_stop(u.scanner); /* closes the source */
		ui_free(&u);
		return 1;
	}
	u.gen = 1;
	u.dirty = true;
	request_snapshot(&u);
	loop(&u);
	restore_terminal();
	if (got_signal)
		status = 128 + got_signal;
	ui_free(&u);
	tui_view_elf_fini();
	tui_scanner_stop(u.scanner); /* closes the source */
	return status;
}
