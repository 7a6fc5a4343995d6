// SPDX-License-Identifier: GPL-2.0-or-later
/* menu.c - overlay menus; see menu.h. */
#include "tui/screen/menu.h"

#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "tui/screen/keys.h"

void tui_menu_empty(struct tui_menu *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->labels[i]);
	m->n = 0;
}

void tui_menu_clear(struct tui_menu *m)
{
	tui_menu_empty(m);
	memset(m, 0, sizeof(*m));
}

void tui_menu_add(struct tui_menu *m, int id, const char *label, bool checked)
{
	char esc[256];

	if (m->n >= TUI_MENU_MAX)
		return;
	exm_escape(esc, sizeof(esc), label);
	m->labels[m->n] = strdup(esc);
	if (!m->labels[m->n])
		return;
	m->ids[m->n] = id;
	m->checked[m->n] = checked;
	m->n++;
}

void tui_menu_select(struct tui_menu *m, int id)
{
	for (int i = 0; i < m->n; i++)
		if (m->ids[i] == id)
			m->cursor = i;
}

enum tui_menu_ret tui_menu_key(struct tui_menu *m, int k, int page)
{
	switch (k) {
	case TUI_KEY_UP:
	case 'k':
		m->cursor--;
		break;
	case TUI_KEY_DOWN:
	case 'j':
		m->cursor++;
		break;
	case TUI_KEY_PPAGE:
		m->cursor -= page;
		break;
	case TUI_KEY_NPAGE:
		m->cursor += page;
		break;
	case TUI_KEY_HOME:
		m->cursor = 0;
		break;
	case TUI_KEY_END:
		m->cursor = m->n - 1;
		break;
	case '\n':
	case '\r':
	case TUI_KEY_ENTER:
		/* the columns menu stays open for space, closes on Enter */
		return m->kind == TUI_MENU_FIELDS ? TUI_MENU_CLOSE
						  : TUI_MENU_CHOSEN;
	case ' ':
		return TUI_MENU_CHOSEN;
	case '[':
	case '-':
		if (m->kind == TUI_MENU_FIELDS && m->n)
			return TUI_MENU_LEFT;
		break;
	case ']':
	case '+':
		if (m->kind == TUI_MENU_FIELDS && m->n)
			return TUI_MENU_RIGHT;
		break;
	case TUI_KEY_F(2):
	case TUI_KEY_F(6):
	case TUI_KEY_F(10):
	case TUI_KEY_LEFT:
	case TUI_KEY_BACKSPACE:
	case TUI_KEY_ESC:
	case 'q':
	case 'f':
	case 127:
	case 8:
		return TUI_MENU_CLOSE;
	}
	if (m->cursor >= m->n)
		m->cursor = m->n - 1;
	if (m->cursor < 0)
		m->cursor = 0;
	return TUI_MENU_MOVED;
}
