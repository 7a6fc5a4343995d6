/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_report.h - a report of report.h (alerts, system view, units,
 * breakdown) on the live screen (no curses): the same text batch mode
 * prints, drawn over the whole table area and scrolled with the arrow
 * and page keys. Which report: the view's ctx.name. It is opened by a key
 * of tui_keys[] (TUI_A_REPORT) or by --alerts, --system, ... without -b.
 */
#ifndef TUI_VIEW_REPORT_H
#define TUI_VIEW_REPORT_H

#include "tui/screen/view.h"

extern const struct tui_view_ops tui_view_report;

/* Push the view of report name on s (replacing a report view on top).
 * Returns the view (to be refreshed), or NULL (unknown, ENOMEM, full). */
struct tui_view *tui_report_push(struct tui_stack *s, const char *name);

/* Release the ELF cache the report views share. */
void tui_view_report_fini(void);

#endif
