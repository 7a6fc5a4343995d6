/* SPDX-License-Identifier: GPL-2.0-or-later */
/* completion.h - shell completion, generated from the option table. */
#ifndef TUI_COMPLETION_H
#define TUI_COMPLETION_H

#include <stdio.h>

/* Write the bash completion script for exmtop to f. */
void tui_print_completion(FILE *f);

#endif
