/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc.h - the live UI's settings and ~/.config/exmtop/exmtoprc (no curses).
 *
 * The file is read at start-up and written only when the user saves (key
 * W). It is plain "key = value" lines; unknown keys and bad values are
 * ignored with a warning so an old or hand-edited file never stops exmtop:
 *
 *   delay = 2
 *   group = program
 *   full_cmd = 0
 *   bytes = 0
 *   fields.procs = pid,user,vm,rss,erss,cmd
 *   sort.procs = +erss         (as -o: '+' descending, '-' ascending)
 */
#ifndef TUI_RC_H
#define TUI_RC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/fields.h"
#include "core/group.h"
#include "core/table.h"

#define TUI_MAX_COLS EXM_F__COUNT

struct tui_settings {
	double delay;		    /* seconds between snapshots */
	enum exm_group_by group_by; /* processes pane grouping */
	bool full_cmd;		    /* full command lines */
	bool exact_bytes;	    /* exact byte counts */
	/* visible columns per table, -1 terminated */
	int fields[EXM_T__COUNT][TUI_MAX_COLS + 1];
	/* sort per table: field (-1: the view's default) and direction */
	int sort[EXM_T__COUNT];
	bool sort_desc[EXM_T__COUNT];
};

/* Defaults: 2 s, per process, the field table's default columns with the
 * kernel's Pss moved beside effective resident. */
void tui_settings_init(struct tui_settings *s);

/* The keys of a -1 terminated field list joined by commas. */
void tui_fields_format(const int *fields, char *buf, size_t len);
/* Number of fields in a -1 terminated list. */
size_t tui_fields_count(const int *fields);

/*
 * The settings file path: $XDG_CONFIG_HOME/exmtop/exmtoprc, else
 * $HOME/.config/exmtop/exmtoprc. -ENOENT when neither is set.
 */
int tui_settings_path(char *buf, size_t len);
/*
 * Read path into s (which keeps its values for keys not in the file).
 * 0; -ENOENT when there is no file (not an error for the caller);
 * other -errno on read errors. Bad lines are skipped; the first is
 * described in warn (may be NULL).
 */
int tui_settings_load(struct tui_settings *s, const char *path, char *warn,
		      size_t warnlen);
/* Write s to path (creating the directory), atomically. 0 or -errno. */
int tui_settings_save(const struct tui_settings *s, const char *path);

#endif
