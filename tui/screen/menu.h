/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * menu.h - the live screen's overlay menus (no curses): a titled list of
 * labelled entries with a cursor, each with an id and a mark. live.c fills
 * them (sort column, user, columns) and acts on the choice; ui.c draws.
 */
#ifndef TUI_MENU_H
#define TUI_MENU_H

#include <stdbool.h>

#define TUI_MENU_MAX 256

enum tui_menu_kind { TUI_MENU_SORT, TUI_MENU_USER, TUI_MENU_FIELDS };

struct tui_menu {
	enum tui_menu_kind kind;
	char title[64];
	int n, cursor, top;
	int ids[TUI_MENU_MAX];
	char *labels[TUI_MENU_MAX]; /* owned, escaped */
	bool checked[TUI_MENU_MAX];
};

/* What a key did in a menu. */
enum tui_menu_ret {
	TUI_MENU_MOVED,	 /* cursor moved (or nothing) */
	TUI_MENU_CHOSEN, /* Enter/space: act on ids[cursor] */
	TUI_MENU_LEFT,	 /* '[': move the entry up (columns menu) */
	TUI_MENU_RIGHT,	 /* ']': move it down */
	TUI_MENU_CLOSE,	 /* Esc, q, ...: close it */
};

void tui_menu_clear(struct tui_menu *m);
/* Drop the entries, keep kind and title. */
void tui_menu_empty(struct tui_menu *m);
/* Add an entry (label escaped here). */
void tui_menu_add(struct tui_menu *m, int id, const char *label, bool checked);
/* Put the cursor on the entry of id, if any. */
void tui_menu_select(struct tui_menu *m, int id);
/* Handle key code k (keys.h); page: entries a page key moves. */
enum tui_menu_ret tui_menu_key(struct tui_menu *m, int k, int page);

#endif
