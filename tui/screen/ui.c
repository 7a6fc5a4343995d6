// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ui.c - the live terminal UI: the terminal (signals, colours, keys and
 * mouse in), drawing (header, breadcrumb, table or a view's own drawing,
 * bottom line, help, menus) and the loop.
 *
 * One thread draws and reads keys; snapshots are taken by the scanner
 * thread (scan.h), so keys are handled while a slow scan runs. The loop
 * sleeps in poll() on the terminal, the scanner's pipe and a self-pipe for
 * signals, with a timeout computed from the next refresh deadline.
 *
 * Everything else lives in curses-free files: live.c (state and what keys
 * do), keys.c (the key table), menu.c and prompt.c (overlays), policy.c
 * (what scans read), views.c/view.c (lists, drill-down, selection),
 * text.c (widths, column layout), query.c/rc.c (options and settings),
 * scan.c (worker thread).
 */
#define NCURSES_WIDECHAR 1
#include "tui/screen/ui.h"

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
#include "tui/screen/live.h"
#include "tui/print.h"
#include "tui/screen/termcaps.h"
#include "tui/text.h"
#include "tui/screen/view_elf.h"
#include "tui/screen/view_report.h"

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
	/* every signal whose default is to end the program: the loop ends
	 * and the terminal is restored (SIGUSR1 and SIGALRM left it in the
	 * alternate screen with mouse reporting on) */
	static const int quit_sigs[] = { SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
					 SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM,
					 SIGPROF, SIGIO,   SIGPWR,  SIGSTKFLT,
					 SIGXCPU, SIGXFSZ };
	static const int fatal_sigs[] = { SIGSEGV, SIGBUS,  SIGFPE, SIGILL,
					  SIGABRT, SIGTRAP, SIGSYS };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit_signal;
	for (size_t i = 0; i < sizeof(quit_sigs) / sizeof(quit_sigs[0]); i++)
		sigaction(quit_sigs[i], &sa, NULL);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		sigaction(fatal_sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(restore_terminal);
}

/* ---- attributes ---- */

enum ui_attr {
	A_TITLE,   /* header */
	A_HDRVAL,  /* header values */
	A_COLHDR,  /* column header */
	A_COLSORT, /* sorted column header */
	A_SEL,	   /* selected row */
	A_CRUMB,   /* breadcrumb */
	A_SHARED,  /* effective size below resident: shared pages */
	A_PRIVATE, /* effective size equals resident: private */
	A_FKEY,	   /* function bar key */
	A_FLABEL,  /* function bar label */
	A_WARN,	   /* limits, errors */
	A_MENU,	   /* overlay */
	A_MENUSEL, /* overlay selection */
	A_SMANY,   /* page strip: shared by ten or more */
	A_SNONE,   /* page strip: not resident */
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
		[A_SMANY] = { COLOR_MAGENTA, -1, A_BOLD },
		[A_SNONE] = { COLOR_BLUE, -1, 0 },
	};
	/* Monochrome: only what every terminal has. */
	static const attr_t mono[A__COUNT] = {
		[A_TITLE] = A_BOLD,	 [A_HDRVAL] = A_BOLD,
		[A_COLHDR] = A_REVERSE,	 [A_COLSORT] = A_REVERSE | A_BOLD,
		[A_SEL] = A_REVERSE,	 [A_CRUMB] = A_BOLD,
		[A_SHARED] = A_NORMAL,	 [A_PRIVATE] = A_NORMAL,
		[A_FKEY] = A_BOLD,	 [A_FLABEL] = A_REVERSE,
		[A_WARN] = A_BOLD,	 [A_MENU] = A_NORMAL,
		[A_MENUSEL] = A_REVERSE, [A_SMANY] = A_BOLD,
		[A_SNONE] = A_NORMAL,
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

/* ---- state: the live screen's, and the geometry of the last draw ---- */

struct ui_fkey {
	int x0, x1, key;
};

struct ui {
	struct tui_live l;
	bool utf8;
	/* geometry of the last draw, for the mouse */
	int rows_y, nrows_screen, colhdr_y, fbar_y;
	struct tui_col cols[TUI_MAX_COLS];
	size_t ncols;
	struct ui_fkey fkeys[16];
	int nfkeys;
	bool dirty;
};

static struct tui_view *cur_view(struct ui *u)
{
	return tui_live_view(&u->l);
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

static void put_tail(struct ui *u, int y, int x, int w, const char *s, attr_t a)
{
	put_text(u, y, x, w, s, FIT_TAIL, a);
}

/* Escape untrusted text, then put it. */
static void put_esc(struct ui *u, int y, int x, int w, const char *s, attr_t a)
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
	const struct exm_snapshot *s = u->l.snap;
	char line[1024], a[32], b[32], c[32], when[32] = "--:--:--";
	char rec[96] = "";
	const char *src = s ? s->sys.source : "";
	struct tui_counts n;
	struct tm tm;
	int used = 0;

	if (lines <= 0)
		return 0;
	if (s) {
		time_t t = s->sys.taken_at.tv_sec;

		localtime_r(&t, &tm);
		/* a replayed snapshot: its date too, and which one it is */
		strftime(when, sizeof(when),
			 u->l.replay_n ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
	}
	if (s && u->l.replay_n)
		snprintf(rec, sizeof(rec), "  [%zu/%zu]", u->l.replay_pos + 1,
			 u->l.replay_n);
	if (u->l.delta && u->l.base) {
		time_t t = u->l.base->sys.taken_at.tv_sec;
		size_t k = strlen(rec);

		localtime_r(&t, &tm);
		snprintf(rec + k, sizeof(rec) - k, "  delta since ");
		k = strlen(rec);
		strftime(rec + k, sizeof(rec) - k, "%H:%M:%S", &tm);
	}
	snprintf(line, sizeof(line),
		 "exmtop - %s  %s%s  source: %s%s%s%s  every %gs%s%s",
		 s ? s->sys.hostname : "", when, rec, src,
		 s && s->sys.source_detail[0] ? " (" : "",
		 s ? s->sys.source_detail : "",
		 s && s->sys.source_detail[0] ? ")" : "", u->l.q.set.delay,
		 u->l.paused ? "  [paused]" : "",
		 tui_scanner_busy(u->l.scanner) ? "  scanning..." : "");
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
		fmt_size(c, sizeof(c), s->total.erss, u->l.q.set.exact_bytes);
		tui_counts_of(s, &n);
		snprintf(line, sizeof(line),
			 "RAM %s used %s  eff.resident %s  %zu procs, skipped %zu gone %zu denied  scan %.2fs",
			 a, b, c, n.scanned, n.gone, n.denied,
			 s->sys.time_taken);
		put_esc(u, y + used, 0, COLS, line, attrs[A_HDRVAL]);
	} else {
		put_esc(u, y + used, 0, COLS,
			u->l.scan_err[0] ? u->l.scan_err
					 : "taking the first snapshot...",
			u->l.scan_err[0] ? attrs[A_WARN] : attrs[A_HDRVAL]);
	}
	used++;
	if (used >= lines)
		return used;
	if (s && (s->sys.limits[0] || u->l.scan_err[0])) {
		fill_line(y + used, A_NORMAL);
		put_esc(u, y + used, 0, COLS,
			u->l.scan_err[0] ? u->l.scan_err : s->sys.limits,
			attrs[A_WARN]);
		used++;
	}
	return used;
}

/* The compact one-line header of small terminals. */
static void draw_header_small(struct ui *u, int y)
{
	char line[256], c[32] = "-";
	struct tui_counts n = { 0 };

	if (u->l.snap) {
		fmt_size(c, sizeof(c), u->l.snap->total.erss, false);
		tui_counts_of(u->l.snap, &n);
	}
	snprintf(line, sizeof(line), "exmtop %s eff %s %zu procs%s",
		 u->l.snap ? u->l.snap->sys.source : "", c, n.scanned,
		 u->l.paused ? " [paused]" : "");
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
		 u->l.q.user ? "  user:" : "", u->l.q.user ? u->l.q.user : "",
		 u->l.pane == 0 && u->l.q.set.group_by ? "  by " : "",
		 u->l.pane == 0 && u->l.q.set.group_by
			 ? exm_group_name(u->l.q.set.group_by)
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
	tui_stack_crumbs(tui_live_stack(&u->l), raw, sizeof(raw));
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
			 !sorted   ? ""
			 : u->utf8 ? (v->sort_desc ? "\u25bc" : "\u25b2")
				   : (v->sort_desc ? "v" : "^"));
		put_fit(u, y, c->x, c->w, title, right,
			sorted ? attrs[A_COLSORT] : attrs[A_COLHDR]);
	}
}

static void draw_row(struct ui *u, struct tui_view *v, int y,
		     const struct exm_row *r, bool sel)
{
	enum exm_table t = tui_view_table(v);
	char buf[2048];

	fill_line(y, sel ? attrs[A_SEL] : A_NORMAL);
	for (size_t i = 0; i < u->ncols; i++) {
		const struct tui_col *c = &u->cols[i];
		int f = tui_live_shown_field(&u->l, c->field);
		const struct exm_field *fd = &exm_fields[c->field];
		struct exm_value val;
		attr_t a = sel ? attrs[A_SEL] : A_NORMAL;

		exm_field_value(f, t, r, &val);
		if (val.type == EXM_V_NONE && f != c->field)
			exm_field_value(c->field, t, r, &val);
		exm_fmt_value(buf, sizeof(buf), f, &val,
			      u->l.q.set.exact_bytes);
		if (!sel && c->field == EXM_F_ERSS && val.type == EXM_V_DBL &&
		    (r->sz.has & EXM_HAS_RSS) && r->sz.rss)
			a = val.d + 0.5 < (double)r->sz.rss ? attrs[A_SHARED]
							    : attrs[A_PRIVATE];
		if (f == EXM_F_FILE ||
		    (f == EXM_F_GROUP &&
		     u->l.q.set.group_by == EXM_GROUP_CGROUP))
			put_tail(u, y, c->x, c->w, buf, a);
		else
			put_fit(u, y, c->x, c->w, buf, fd->type != EXM_FT_STR,
				a);
	}
	/* a tagged process (t): a mark in the first column */
	if ((t == EXM_T_PROCS || t == EXM_T_FPROCS) &&
	    tui_tags_has(&u->l.tags, r->proc))
		put_fit(u, y, 0, 1, "*", false, attrs[A_WARN] | A_BOLD);
}

/* A view's own drawing (draw hook) goes through this canvas. */
struct canvas_ctx {
	struct ui *u;
	int y0, x0;
};

static void canvas_put(const struct tui_canvas *c, int y, int x, const char *s,
		       enum tui_role role)
{
	static const int attr_of[] = {
		[TUI_ROLE_NORMAL] = -1,		[TUI_ROLE_TITLE] = A_TITLE,
		[TUI_ROLE_PRIVATE] = A_PRIVATE, [TUI_ROLE_SHARED] = A_SHARED,
		[TUI_ROLE_MANY] = A_SMANY,	[TUI_ROLE_DIM] = A_SNONE,
		[TUI_ROLE_WARN] = A_WARN,
	};
	const struct canvas_ctx *cc = c->ctx;
	int a = attr_of[role];

	if (y < 0 || y >= c->h || x >= c->w)
		return;
	put_fit(cc->u, cc->y0 + y, cc->x0 + x, tui_text_width(s), s, false,
		a < 0 ? A_NORMAL : attrs[a]);
}

static void draw_table(struct ui *u, int y, int h)
{
	struct tui_view *v = cur_view(u);
	const int *fields = tui_live_fields(&u->l, v);
	int size_w = u->l.q.set.exact_bytes ? 13 : 0;

	u->colhdr_y = y;
	u->ncols = tui_layout(fields, tui_fields_count(fields), COLS, size_w,
			      u->cols);
	if (h <= 0)
		return;
	if (v->ops->no_row && u->l.snap) {
		/* the view draws the whole area (the reports) */
		struct canvas_ctx cc = { u, y, 0 };
		struct tui_canvas c = {
			.w = COLS, .h = h, .put = canvas_put, .ctx = &cc
		};

		u->colhdr_y = u->rows_y = -1;
		u->nrows_screen = 0;
		for (int i = 0; i < h; i++)
			fill_line(y + i, A_NORMAL);
		v->ops->draw(v, &c);
		return;
	}
	draw_colhdr(u, v, y);
	y++;
	h--;
	u->rows_y = y;
	u->nrows_screen = h;
	v->page = h > 0 ? h : 1;
	tui_view_fix_scroll(v);
	for (int i = 0; i < h; i++)
		fill_line(y + i, A_NORMAL);
	if (!u->l.snap) {
		if (h > 0)
			put_esc(u, y, 0, COLS,
				u->l.scan_err[0]
					? u->l.scan_err
					: "taking the first snapshot...",
				A_NORMAL);
		return;
	}
	if (!v->nvis) {
		if (h > 0)
			put_esc(u, y, 0, COLS,
				v->why ? v->why
				: v->filter || u->l.q.user || u->l.q.pids
					? "(no rows match the filter)"
					: "(no rows)",
				A_NORMAL);
		return;
	}
	if (v->ops->draw) {
		/* the view's row on top, its own drawing below */
		struct canvas_ctx cc = { u, y + 1, 0 };
		struct tui_canvas c = {
			.w = COLS, .h = h - 1, .put = canvas_put, .ctx = &cc
		};

		draw_row(u, v, y, &v->rows[v->vis[v->cursor]], false);
		if (c.h > 0)
			v->ops->draw(v, &c);
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
	const struct tui_key *k;
	int x = 0;

	u->fbar_y = y;
	u->nfkeys = 0;
	fill_line(y, A_NORMAL);
	if (u->l.status[0]) {
		put_esc(u, y, 0, COLS, u->l.status, attrs[A_WARN]);
		return;
	}
	for (int pos = 1; (k = tui_key_bar(pos)) && x < COLS; pos++) {
		const char *label = u->l.pane == 1 && k->bar_alt ? k->bar_alt
								 : k->bar;
		int kw = (int)strlen(k->bar_key);
		int lw = (int)strlen(label) + 1;

		put_fit(u, y, x, kw, k->bar_key, false, attrs[A_FKEY]);
		put_fit(u, y, x + kw, lw, label, false, attrs[A_FLABEL]);
		if (u->nfkeys < 16)
			u->fkeys[u->nfkeys++] = (struct ui_fkey){ x,
								  x + kw + lw,
								  k->keys[0] };
		x += kw + lw;
	}
}

static void draw_prompt(struct ui *u, int y)
{
	char text[1024], line[1200];
	int w;

	tui_prompt_text(&u->l.prompt, text, sizeof(text));
	snprintf(line, sizeof(line), "%s%s", tui_prompt_label(&u->l.prompt),
		 text);
	fill_line(y, A_NORMAL);
	put_esc(u, y, 0, COLS, line, attrs[A_FKEY]);
	w = tui_text_width(line);
	if (w < COLS) {
		move(y, w);
		curs_set(1);
	}
}

/* ---- overlays: help and menus ---- */

/*
 * Line i of the help screen (from the key table) into buf, or false past
 * the end. A key's help may hold '\n': note lines below it.
 */
static bool help_line(int i, char *buf, size_t len, bool *title)
{
	int k = 0;

	*title = i == 0;
	for (const char *const *l = tui_help_intro; *l; l++, k++)
		if (k == i)
			return snprintf(buf, len, "%s", *l), true;
	for (size_t n = 0; n < tui_nkeys; n++) {
		const char *h = tui_keys[n].help;
		bool first = true;

		while (h) {
			const char *nl = strchr(h, '\n');
			int hl = nl ? (int)(nl - h) : (int)strlen(h);

			if (k++ == i) {
				snprintf(buf, len, " %-27s %.*s",
					 first ? tui_keys[n].names : "", hl, h);
				return true;
			}
			first = false;
			h = nl ? nl + 1 : NULL;
		}
	}
	for (const char *const *l = tui_help_outro; *l; l++, k++)
		if (k == i)
			return snprintf(buf, len, "%s", *l), true;
	return false;
}

static void draw_help(struct ui *u)
{
	int h = LINES, n = 0;
	char line[256];
	bool title;

	while (help_line(n, line, sizeof(line), &title))
		n++;
	if (u->l.help_top > n - h)
		u->l.help_top = n - h > 0 ? n - h : 0;
	for (int i = 0; i < h; i++) {
		fill_line(i, A_NORMAL);
		if (help_line(u->l.help_top + i, line, sizeof(line), &title))
			put_fit(u, i, 0, COLS, line, false,
				title ? attrs[A_TITLE] : A_NORMAL);
	}
}

static void draw_menu(struct ui *u)
{
	struct tui_menu *m = &u->l.menu;
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
				 m->kind == TUI_MENU_FIELDS
					 ? (m->checked[k] ? "[x]" : "[ ]")
					 : (m->checked[k] ? "*" : " "),
				 m->labels[k]);
		put_fit(u, y + 1 + i, x, w, line, false,
			k == m->cursor ? attrs[A_MENUSEL] : attrs[A_MENU]);
	}
	if (h > 2)
		put_fit(u, y + h - 1, x, w,
			m->kind == TUI_MENU_FIELDS
				? " space: on/off  [ ]: move  Esc"
				: " Enter: choose  Esc: cancel",
			false, attrs[A_MENUSEL]);
}

static void draw(struct ui *u)
{
	int y = 0, h = LINES, hdr;
	const char *sum;

	curs_set(0);
	erase();
	if (u->l.mode == TUI_M_HELP) {
		draw_help(u);
		refresh();
		return;
	}
	tui_live_fresh(&u->l, cur_view(u));
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
	/* the tagged processes' summary above the bottom line (t) */
	sum = h - y >= 5 ? tui_tags_summary(&u->l.tags, u->l.snap, u->l.gen,
					    u->l.q.set.exact_bytes)
			 : NULL;
	draw_table(u, y, h - y - 1 - (sum != NULL));
	if (sum) {
		fill_line(h - 2, A_NORMAL);
		put_esc(u, h - 2, 0, COLS, sum, attrs[A_HDRVAL]);
	}
	if (u->l.mode == TUI_M_PROMPT)
		draw_prompt(u, h - 1);
	else
		draw_fbar(u, h - 1);
	if (u->l.mode == TUI_M_MENU)
		draw_menu(u);
	refresh();
	u->dirty = false;
}

/* ---- keys and the mouse in ---- */

/* The key code (keys.h) of what get_wch() returned. */
static int key_code(int ret, wint_t ch)
{
	static const struct {
		int curses, code;
	} map[] = {
		{ KEY_UP, TUI_KEY_UP },
		{ KEY_DOWN, TUI_KEY_DOWN },
		{ KEY_LEFT, TUI_KEY_LEFT },
		{ KEY_RIGHT, TUI_KEY_RIGHT },
		{ KEY_PPAGE, TUI_KEY_PPAGE },
		{ KEY_NPAGE, TUI_KEY_NPAGE },
		{ KEY_HOME, TUI_KEY_HOME },
		{ KEY_END, TUI_KEY_END },
		{ KEY_ENTER, TUI_KEY_ENTER },
		{ KEY_BACKSPACE, TUI_KEY_BACKSPACE },
		{ KEY_MOUSE, TUI_KEY_MOUSE },
		{ KEY_RESIZE, TUI_KEY_RESIZE },
		{ KEY_SLEFT, TUI_KEY_SLEFT },
		{ KEY_SRIGHT, TUI_KEY_SRIGHT },
	};

	if (ret != KEY_CODE_YES)
		return (int)ch;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].curses == (int)ch)
			return map[i].code;
	if ((int)ch >= KEY_F(0) && (int)ch <= KEY_F(63))
		return TUI_KEY_F((int)ch - KEY_F(0));
	return 0;
}

static void click(struct ui *u, MEVENT *ev)
{
	struct tui_view *v = cur_view(u);

	if (ev->bstate & BUTTON4_PRESSED) {
		tui_live_cursor(&u->l, (long)v->cursor - 3);
		return;
	}
#ifdef BUTTON5_PRESSED
	if (ev->bstate & BUTTON5_PRESSED) {
		tui_live_cursor(&u->l, (long)v->cursor + 3);
		return;
	}
#endif
	if (!(ev->bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED |
			    BUTTON1_RELEASED | BUTTON1_DOUBLE_CLICKED)))
		return;
	if (u->l.mode != TUI_M_NORMAL)
		return;
	if (ev->y == u->colhdr_y) {
		for (size_t i = 0; i < u->ncols; i++)
			if (ev->x >= u->cols[i].x &&
			    ev->x <= u->cols[i].x + u->cols[i].w) {
				tui_live_sort_by(&u->l, u->cols[i].field);
				return;
			}
		return;
	}
	if (ev->y >= u->rows_y && ev->y < u->rows_y + u->nrows_screen) {
		size_t k = v->top + (size_t)(ev->y - u->rows_y);

		if (k < v->nvis) {
			tui_live_cursor(&u->l, (long)k);
			if (ev->bstate & BUTTON1_DOUBLE_CLICKED)
				tui_live_act(&u->l, TUI_A_ENTER);
		}
		return;
	}
	if (ev->y == u->fbar_y) {
		for (int i = 0; i < u->nfkeys; i++)
			if (ev->x >= u->fkeys[i].x0 && ev->x < u->fkeys[i].x1)
				tui_live_key(&u->l, u->fkeys[i].key);
	}
}

/* Handle one key; TUI_R_* bits. */
static unsigned handle_key(struct ui *u, int ret, wint_t ch)
{
	int k = key_code(ret, ch);
	MEVENT ev;

	u->l.page = LINES > 2 ? LINES - 1 : 1;
	if (k == TUI_KEY_MOUSE && u->l.mode == TUI_M_NORMAL) {
		if (getmouse(&ev) == OK)
			click(u, &ev);
		return TUI_R_REDRAW | TUI_R_RESCAN;
	}
	return k ? tui_live_key(&u->l, k) : 0;
}

/* ---- setup ---- */

static bool locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

static int init_curses(struct ui *u, bool color)
{
	const char *term = getenv("TERM");
	int ok;

	if (!term || !*term)
		term = "vt100";
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		tui_error("not a terminal (use -b for batch output)");
		return -ENOTTY;
	}
	/* asked before curses starts: a screen needs cursor addressing
	 * (TERM=dumb stayed blank until q) */
	ok = tui_term_usable(term, STDOUT_FILENO);
	if (ok) {
		tui_error("%s terminal type '%s' (use -b for batch output)",
			  ok == -ENOTSUP ? "cannot address the cursor of"
					 : "unknown",
			  term);
		return -EINVAL;
	}
	if (!newterm(term, stdout, stdin)) {
		tui_error("cannot use terminal type '%s' (use -b for batch "
			  "output)",
			  term);
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
/* ---- the loop ---- */

static void loop(struct ui *u)
{
	struct tui_live *l = &u->l;
	struct pollfd pfd[3] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = tui_scanner_fd(l->scanner), .events = POLLIN },
		{ .fd = sig_pipe[0], .events = POLLIN },
	};

	while (!l->quit && !got_signal) {
		double left;
		int timeout, ret;
		wint_t ch;

		if (u->dirty)
			draw(u);
		/* refresh deadline; rows on screen whose kernel figures
		 * were not read after keys (policy.h) */
		ret = tui_live_tick(l);
		if (ret < 0)
			break;
		if (ret)
			draw(u); /* "scanning..." */
		/* sleep until the next deadline; while a scan runs, its
		 * pipe wakes us */
		left = l->paused || tui_scanner_busy(l->scanner)
			       ? 3600
			       : l->next_due - tui_now();
		if (l->status[0] && l->status_until - tui_now() < left)
			left = l->status_until - tui_now();
		if (left < 0)
			left = 0;
		timeout = (int)ceil(left * 1000);
		if (timeout > 60000)
			timeout = 60000;
		ret = poll(pfd, 3, timeout);
		if (ret < 0 && errno != EINTR)
			break;
		if (l->status[0] && l->status_until - tui_now() <= 0) {
			l->status[0] = 0; /* expired */
			u->dirty = true;
		}
		if (ret > 0 && (pfd[1].revents & POLLIN) && tui_live_take(l))
			u->dirty = true;
		/* keys: read all that are waiting (also after EINTR: a
		 * SIGWINCH shows up as KEY_RESIZE) */
		while ((ret = get_wch(&ch)) != ERR && !l->quit) {
			unsigned r = handle_key(u, ret, ch);

			if (r & TUI_R_RESCAN)
				tui_live_rescan(l);
			if (r & TUI_R_CLEAR)
				clearok(curscr, TRUE);
			u->dirty = true;
		}
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			break; /* terminal gone */
	}
}

int tui_live(const struct tui_opts *o)
{
	struct ui u;
	int ret, status = 0;
	bool color;

	memset(&u, 0, sizeof(u));
	setlocale(LC_CTYPE, "");
	u.utf8 = locale_is_utf8();
	ret = tui_live_init(&u.l, o);
	if (!ret && pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK)) {
		tui_error("cannot start: %s", strerror(errno));
		ret = 1;
	}
	if (ret) {
		tui_live_fini(&u.l);
		return ret;
	}
	install_signals();
	color = !o->no_color && !(getenv("NO_COLOR") && *getenv("NO_COLOR"));
	ret = init_curses(&u, color);
	if (ret) {
		tui_live_fini(&u.l);
		/* a terminal type that cannot show the screen: bad input */
		return ret == -EINVAL ? 2 : 1;
	}
	u.dirty = true;
	tui_live_request(&u.l, false);
	loop(&u);
	restore_terminal();
	if (got_signal)
		status = 128 + got_signal;
	tui_live_fini(&u.l);
	tui_view_elf_fini();
	tui_view_report_fini();
	return status;
}
