/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prompt.h - the bottom-line prompts (search, filter, delay) as a line
 * editor without curses: wide characters in, multibyte text out.
 */
#ifndef TUI_PROMPT_H
#define TUI_PROMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

enum tui_prompt_kind { TUI_P_SEARCH, TUI_P_FILTER, TUI_P_DELAY };

struct tui_prompt {
	enum tui_prompt_kind kind;
	wchar_t buf[256];
	size_t len;
	size_t origin; /* search: the cursor when it opened */
};

enum tui_prompt_ret {
	TUI_PROMPT_IGNORED, /* nothing changed */
	TUI_PROMPT_EDITED,  /* the text changed: apply it live */
	TUI_PROMPT_ACCEPT,  /* Enter */
	TUI_PROMPT_CANCEL,  /* Esc */
	TUI_PROMPT_AGAIN,   /* F3: search the next match */
};

/* Open a prompt of kind with initial text init (may be NULL). */
void tui_prompt_open(struct tui_prompt *p, enum tui_prompt_kind kind,
		     const char *init);
/* Handle key code k (keys.h). */
enum tui_prompt_ret tui_prompt_key(struct tui_prompt *p, int k);
/* The text typed so far, in the locale's multibyte encoding. */
void tui_prompt_text(const struct tui_prompt *p, char *buf, size_t len);
/* "Search: ", "Filter: ", "Delay in seconds: ". */
const char *tui_prompt_label(const struct tui_prompt *p);

#endif
