// SPDX-License-Identifier: GPL-2.0-or-later
/* prompt.c - the bottom-line line editor; see prompt.h. */
#include "tui/screen/prompt.h"

#include <stdlib.h>
#include <wctype.h>

#include "tui/screen/keys.h"

void tui_prompt_open(struct tui_prompt *p, enum tui_prompt_kind kind,
		     const char *init)
{
	p->kind = kind;
	p->len = 0;
	if (init) {
		size_t k = mbstowcs(p->buf, init, 255);

		p->len = k == (size_t)-1 ? 0 : k;
	}
}

enum tui_prompt_ret tui_prompt_key(struct tui_prompt *p, int k)
{
	switch (k) {
	case '\n':
	case '\r':
	case TUI_KEY_ENTER:
		return TUI_PROMPT_ACCEPT;
	case TUI_KEY_ESC:
		return TUI_PROMPT_CANCEL;
	case TUI_KEY_F(3):
		return p->kind == TUI_P_SEARCH ? TUI_PROMPT_AGAIN
					       : TUI_PROMPT_IGNORED;
	case TUI_KEY_BACKSPACE:
	case 127:
	case 8:
		if (!p->len)
			return TUI_PROMPT_IGNORED;
		p->len--;
		return TUI_PROMPT_EDITED;
	case TUI_KEY_CTRL('u'):
		p->len = 0;
		return TUI_PROMPT_EDITED;
	}
	if (k >= TUI_KEY_BASE || !iswprint((wint_t)k) || p->len >= 255)
		return TUI_PROMPT_IGNORED;
	if (p->kind == TUI_P_DELAY && !iswdigit((wint_t)k) && k != '.')
		return TUI_PROMPT_IGNORED;
	p->buf[p->len++] = (wchar_t)k;
	return TUI_PROMPT_EDITED;
}

void tui_prompt_text(const struct tui_prompt *p, char *buf, size_t len)
{
	wchar_t tmp[256];

	for (size_t i = 0; i < p->len; i++)
		tmp[i] = p->buf[i];
	tmp[p->len] = 0;
	if (wcstombs(buf, tmp, len) == (size_t)-1)
		buf[0] = 0;
	buf[len - 1] = 0;
}

const char *tui_prompt_label(const struct tui_prompt *p)
{
	static const char *const names[] = {
		[TUI_P_SEARCH] = "Search: ",
		[TUI_P_FILTER] = "Filter: ",
		[TUI_P_DELAY] = "Delay in seconds: ",
	};

	return names[p->kind];
}
