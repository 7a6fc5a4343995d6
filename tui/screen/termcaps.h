/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * termcaps.h - whether a terminal type can show the live screen, asked of
 * terminfo before curses starts (kept apart from ui.c: <term.h> defines
 * macros with everyday names).
 */
#ifndef TUI_TERMCAPS_H
#define TUI_TERMCAPS_H

/* 0: term (a terminfo name) can show the screen on fd; -ENOENT: terminfo
 * knows no such type; -ENOTSUP: it cannot address the cursor (dumb). */
int tui_term_usable(const char *term, int fd);

#endif
