/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * keys.h - the live screen's one table of keys (no curses): each entry
 * names its keys, the action they take and one line of help. It drives key
 * dispatch (live.c), the function-key bar and the help screen (ui.c) and
 * the manual's KEYS (man.c).
 *
 * Adding a key: one entry in tui_keys[] (keys.c); a new action also needs
 * its enum value here and its handler in live.c's action table.
 *
 * Key codes: characters are their code point; the other keys are
 * TUI_KEY_* codes above Unicode (ui.c translates the terminal's).
 */
#ifndef TUI_KEYS_H
#define TUI_KEYS_H

#include <stddef.h>

struct tui_report_ops; /* report.h */

enum {
	TUI_KEY_BASE = 0x110000,
	TUI_KEY_UP = TUI_KEY_BASE,
	TUI_KEY_DOWN,
	TUI_KEY_LEFT,
	TUI_KEY_RIGHT,
	TUI_KEY_PPAGE,
	TUI_KEY_NPAGE,
	TUI_KEY_HOME,
	TUI_KEY_END,
	TUI_KEY_ENTER, /* the keypad's */
	TUI_KEY_BACKSPACE,
	TUI_KEY_MOUSE,
	TUI_KEY_RESIZE,
	TUI_KEY_SLEFT,	/* Shift-Left */
	TUI_KEY_SRIGHT, /* Shift-Right */
	TUI_KEY_F0,	/* TUI_KEY_F(n) = TUI_KEY_F0 + n */
};
#define TUI_KEY_F(n) (TUI_KEY_F0 + (n))
#define TUI_KEY_CTRL(c) ((c)&0x1f)
#define TUI_KEY_ESC 27

/* What a key did (bits), from actions and views' key hooks. */
#define TUI_R_HANDLED 1u /* the key was taken */
#define TUI_R_REDRAW 2u	 /* the screen must be drawn again */
#define TUI_R_RESCAN 4u	 /* what the views need changed: rescan policy */
#define TUI_R_CLEAR 8u	 /* the terminal must be repainted whole */

enum tui_act {
	TUI_A_NONE = 0,
	TUI_A_UP,
	TUI_A_DOWN,
	TUI_A_PGUP,
	TUI_A_PGDN,
	TUI_A_HOME,
	TUI_A_END,
	TUI_A_ENTER,
	TUI_A_BACK,
	TUI_A_PANE,
	TUI_A_ELF,
	TUI_A_DEMANGLE,
	TUI_A_SORT_MENU,
	TUI_A_SORT_LEFT,
	TUI_A_SORT_RIGHT,
	TUI_A_SORT_REV,
	TUI_A_SEARCH,
	TUI_A_NEXT,
	TUI_A_PREV,
	TUI_A_FILTER,
	TUI_A_USER,
	TUI_A_GROUP,
	TUI_A_FULL_CMD,
	TUI_A_BYTES,
	TUI_A_COLUMNS,
	TUI_A_SAVE,
	TUI_A_DELAY,
	TUI_A_REFRESH,
	TUI_A_PAUSE,
	TUI_A_REDRAW,
	TUI_A_HELP,
	TUI_A_QUIT,
	/* recordings: step through a replay, delta mode and its baseline */
	TUI_A_REPLAY_PREV,
	TUI_A_REPLAY_NEXT,
	TUI_A_REPLAY_FIRST,
	TUI_A_REPLAY_LAST,
	TUI_A_DELTA,
	TUI_A_BASELINE,
	TUI_A_REPORT, /* open the report the key names (.report) */
	TUI_A_SCROLL_LEFT,
	TUI_A_SCROLL_RIGHT, /* a wide report's columns */
	TUI_A_TAG,
	TUI_A_UNTAG_ALL, /* the tagged processes (tags.h) */
	TUI_A__COUNT
};

struct tui_key {
	int keys[5];	   /* codes, 0 terminated */
	const char *names; /* as the help screen and manual show them */
	enum tui_act act;
	const char *help;    /* one line; '\n' starts a note line below */
	const char *bar;     /* function-bar label, or NULL */
	const char *bar_alt; /* its label in the Files pane, or NULL */
	const char *bar_key; /* the key the bar names */
	int bar_pos;	     /* place in the bar, 1-based; 0: not in it */
	/* TUI_A_REPORT: the report it opens (report.h) */
	const struct tui_report_ops *report;
};

extern const struct tui_key tui_keys[];
extern const size_t tui_nkeys;

/* The entry of key code k, or NULL. */
const struct tui_key *tui_key_find(int k);
/* The action of key code k, TUI_A_NONE when none. */
enum tui_act tui_key_action(int k);
/* The entry of the bar's place pos (1-based), NULL past the end. */
const struct tui_key *tui_key_bar(int pos);

/* The help screen's introduction and closing lines (NULL terminated). */
extern const char *const tui_help_intro[];
extern const char *const tui_help_outro[];

#endif
