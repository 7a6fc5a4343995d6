/* SPDX-License-Identifier: GPL-2.0-or-later */
/* man.h - the manual page, generated from the field table. */
#ifndef TUI_MAN_H
#define TUI_MAN_H

#include <stdio.h>

/* Write exmtop(1) in roff to f. */
void tui_print_man(FILE *f);

#endif
