/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui.h - the live terminal UI (ncursesw).
 */
#ifndef TUI_UI_H
#define TUI_UI_H

#include <stddef.h>

#include "tui/opts.h"

/*
 * Run the live UI until the user quits, -n snapshots were shown, or a
 * signal (SIGINT, SIGTERM, SIGHUP) ends it. Opens the source named by
 * o->source (or "auto") itself. Returns the process exit status: 0 on a
 * normal quit, 1 when the source cannot be opened or the terminal cannot
 * be set up, 2 for bad options (--fields, -o, --source), 128 + signal number when a
 * signal ended it. The terminal is restored in every case.
 */
int tui_live(const struct tui_opts *o);

#endif
