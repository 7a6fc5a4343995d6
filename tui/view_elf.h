/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_elf.h - the ELF drill-down views of the live UI (no curses here):
 * a file's sections, a section's symbols, and a section's per-process
 * breakdown, plugged into the generic view stack of view.h.
 *
 * What opens them (tui_view_elf_register()):
 *   Enter on a mapping (process > files > mappings) -> sections
 *   'e' on a file within a process, or on a process of a file -> sections
 *   'e' on a file of the Files pane -> sections across all processes
 *   Enter on a section -> its symbols ('e': the processes behind it)
 * A view whose context has a process shows that process's sizes; without
 * one, sums over every process mapping the file.
 *
 * Parsed files are kept in one ELF cache for the life of the program, so
 * rows may borrow their names from it.
 */
#ifndef TUI_VIEW_ELF_H
#define TUI_VIEW_ELF_H

#include <stdbool.h>

#include "tui/view.h"

extern const struct tui_view_ops tui_view_sections;
extern const struct tui_view_ops tui_view_symbols;
extern const struct tui_view_ops tui_view_section_procs;

/* Register the views above as children in the view registry. */
void tui_view_elf_register(void);
/* Free the ELF cache (at exit). */
void tui_view_elf_fini(void);

/* C++ demangling of symbol names in symbol views (default on). */
bool tui_elf_demangle(void);
/* Flip it; returns the new setting. */
bool tui_elf_toggle_demangle(void);

#endif
