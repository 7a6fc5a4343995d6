// SPDX-License-Identifier: GPL-2.0-or-later
/* ui.c - placeholder until the live UI lands (owned by the UI work). */
#include <stdio.h>

#include "tui/ui.h"

int tui_live(const struct tui_opts *o)
{
	(void)o;
	fputs("exmtop: the live screen is not built yet; use -b\n", stderr);
	return 2;
}
