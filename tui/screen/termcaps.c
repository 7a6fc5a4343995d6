// SPDX-License-Identifier: GPL-2.0-or-later
/* termcaps.c - can a terminal type show the screen; see termcaps.h. */
#include "tui/screen/termcaps.h"

#include <curses.h>
#include <errno.h>
#include <term.h>

int tui_term_usable(const char *term, int fd)
{
	const char *cup;
	int err = 0, ret;

	/* setupterm, unlike a failed newterm, leaves nothing allocated */
	if (setupterm(term, fd, &err) != OK)
		return -ENOENT;
	cup = tigetstr("cup");
	ret = cup && cup != (char *)-1 ? 0 : -ENOTSUP;
	del_curterm(cur_term);
	return ret;
}
