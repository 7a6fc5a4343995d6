/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_elf.h - the ELF drill-down views of the live UI (no curses here):
 * a file's sections, a section's symbols, and a section's per-process
 * breakdown, plugged into the generic view stack of view.h.
 *
 * What opens them (views.c):
 *   'e' on a mapping (process > files > mappings) -> sections
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

#include "tui/screen/view.h"

/* The ELF views' callbacks; views.c puts them together. */
struct exm_row *tui_elf_build_sections(struct tui_view *v,
				       const struct tui_build *b, size_t *n,
				       const char **why);
struct exm_row *tui_elf_build_symbols(struct tui_view *v,
				      const struct tui_build *b, size_t *n,
				      const char **why);
struct exm_row *tui_elf_build_section_procs(struct tui_view *v,
					    const struct tui_build *b,
					    size_t *n, const char **why);
void tui_elf_crumb_sections(const struct tui_view *v, char *buf, size_t len);
void tui_elf_crumb_symbols(const struct tui_view *v, char *buf, size_t len);
void tui_elf_crumb_section_procs(const struct tui_view *v, char *buf,
				 size_t len);
/* A gap row is not a section: nothing below it. */
const struct tui_view_ops *tui_elf_section_child(const struct tui_view *v,
						 const struct exm_row *r);
void tui_elf_fini_view(struct tui_view *v);

/* Free the ELF cache (at exit). */
void tui_view_elf_fini(void);
/* ELF files of replays under dir (--sysroot; borrowed), NULL: none. */
void tui_elf_set_sysroot(const char *dir);

/* C++ demangling of symbol names in symbol views (default on). */
bool tui_elf_demangle(void);
/* Flip it; returns the new setting. */
bool tui_elf_toggle_demangle(void);

#endif
