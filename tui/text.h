/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * text.h - fitting text into terminal cells, and laying out columns, without
 * curses (unit-tested). Text given here must already be terminal-safe
 * (exm_escape); widths are display columns of the current LC_CTYPE.
 */
#ifndef TUI_TEXT_H
#define TUI_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/fields.h"

/*
 * One line on stderr: "exmtop: " and the message, escaped whole
 * (exm_escape), so that no value it repeats (an argument, a file or process
 * name) splits the line or sends a control byte to the terminal.
 */
void tui_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Display width of s (invalid or unprintable bytes count 1). */
int tui_text_width(const char *s);
/*
 * s without its first cols display columns (s itself when cols <= 0; the
 * end when s is narrower). A wide character cut in two is skipped whole and
 * *pad (if not NULL) is set to the columns of it that were to be shown, to
 * print as spaces; else 0.
 */
const char *tui_text_skip(const char *s, int cols, int *pad);

/*
 * Copy s into out so that it takes exactly width columns: cut at a
 * character boundary when too wide, padded with spaces (on the right, or on
 * the left when right_align). A wide character that would straddle the
 * edge becomes a space. With ascii_only, every byte >= 0x80 becomes '?'
 * (for terminals whose locale is not UTF-8). Returns out.
 */
char *tui_text_fit(char *out, size_t outlen, const char *s, int width,
		   bool right_align, bool ascii_only);

/*
 * Like tui_text_fit (left-aligned), but text too wide loses its beginning
 * instead of its end, marked with an ellipsis ('<' with ascii_only): for
 * paths, whose end says most.
 */
char *tui_text_fit_tail(char *out, size_t outlen, const char *s, int width,
			bool ascii_only);

/* One laid-out column. */
struct tui_col {
	int field; /* enum exm_field_id */
	int x;	   /* first screen column */
	int w;	   /* width in columns */
};

/*
 * Lay out fields[0..n) on a screen width columns wide, one space between
 * columns. Each column gets its field-table width (size columns widen to
 * size_width when non-zero, for exact byte counts); the first column that
 * is a name (comm, cmd, file, group, section, symbol) stretches to use the
 * space left. When the screen is too narrow, columns are dropped from the
 * right, keeping room (up to 12 cells) for the name column, which is
 * shrunk to what is left if at least 4 cells remain. Returns the number of
 * columns laid out in cols (at most n).
 */
size_t tui_layout(const int *fields, size_t n, int width, int size_width,
		  struct tui_col *cols);

/* Whether f is a stretchable name column. */
bool tui_field_is_name(int f);

/* The n words as a choice, "a, b or c", into buf (cut to fit). Returns
 * buf. */
char *tui_text_or(char *buf, size_t len, const char *const *words, size_t n);

#endif
