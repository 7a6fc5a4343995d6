/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_strip.h - the page strip of one mapping (no curses): Enter on a
 * mapping row shows its pages, one character a page, 64 a line with the
 * address at the left (core/strip.h says what the characters mean). A view
 * that draws itself (draw hook) and scrolls its lines (key hook).
 */
#ifndef TUI_VIEW_STRIP_H
#define TUI_VIEW_STRIP_H

#include "tui/view.h"

struct exm_row *tui_strip_build(struct tui_view *v, const struct tui_build *b,
				size_t *n, const char **why);
void tui_strip_crumb(const struct tui_view *v, char *buf, size_t len);
void tui_strip_draw(struct tui_view *v, const struct tui_canvas *c);
unsigned tui_strip_key(struct tui_view *v, int k);
void tui_strip_fini(struct tui_view *v);

#endif
