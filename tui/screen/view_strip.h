/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_strip.h - the page strip of one mapping (no curses): Enter on a
 * mapping row shows its pages, one character a page, 64 a line with the
 * address at the left (core/strip.h says what the characters mean). A view
 * that draws itself (draw hook) and scrolls its lines (key hook).
 */
#ifndef TUI_VIEW_STRIP_H
#define TUI_VIEW_STRIP_H

#include "core/filestrip.h"
#include "tui/screen/view.h"

struct exm_row *tui_strip_build(struct tui_view *v, const struct tui_build *b,
				size_t *n, const char **why);
void tui_strip_crumb(const struct tui_view *v, char *buf, size_t len);
void tui_strip_draw(struct tui_view *v, const struct tui_canvas *c);
unsigned tui_strip_key(struct tui_view *v, int k);
void tui_strip_fini(struct tui_view *v);
/* What both strips need of every scan: where every page lies
 * (EXM_NEED_PLACES: pagemap's read mode then counts no mapping). */
unsigned tui_strip_needs_all(const struct tui_view *v);

/*
 * The per-page strip of a file across processes (core/filestrip.h): Enter
 * on a file in the Files pane shows it, by file offset, one character a
 * page ('.' no process has it resident, 1-9 processes, '#' ten or more),
 * with the segments mapped and their permissions; Enter again lists the
 * processes mapping the file.
 */
struct exm_row *tui_fstrip_build(struct tui_view *v, const struct tui_build *b,
				 size_t *n, const char **why);
void tui_fstrip_crumb(const struct tui_view *v, char *buf, size_t len);
void tui_fstrip_draw(struct tui_view *v, const struct tui_canvas *c);
unsigned tui_fstrip_key(struct tui_view *v, int k);
void tui_fstrip_fini(struct tui_view *v);

/* Scroll *top of a text of nlines lines shown page_lines at a time by key
 * k (Up, Down, PgUp, PgDn, Home, End): TUI_R_* bits, 0 when not taken. */
unsigned tui_scroll_key(size_t *top, int page_lines, size_t nlines, int k);

#endif
