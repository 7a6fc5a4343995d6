/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * views.h - every view of the live screen (no curses). Each names the
 * views Enter and 'e' open on its rows in views.c:
 *
 *   procs -> pfiles -> mappings -> strip      (e: sections)
 *   groups -> group_procs -> pfiles ...
 *   files -> fprocs -> mappings ...           (e: sections)
 *   sections -> symbols                       (e: section_procs)
 */
#ifndef TUI_VIEWS_H
#define TUI_VIEWS_H

#include "tui/screen/view.h"

extern const struct tui_view_ops tui_view_procs;       /* all processes */
extern const struct tui_view_ops tui_view_groups;      /* process groups */
extern const struct tui_view_ops tui_view_group_procs; /* one group */
extern const struct tui_view_ops tui_view_files;       /* all files */
extern const struct tui_view_ops tui_view_pfiles;      /* files of a process */
extern const struct tui_view_ops tui_view_fprocs;      /* procs of a file */
extern const struct tui_view_ops tui_view_mappings;    /* mappings */
extern const struct tui_view_ops tui_view_sections;    /* ELF sections */
extern const struct tui_view_ops tui_view_symbols;     /* a section's symbols */
extern const struct tui_view_ops tui_view_section_procs; /* behind a section */
extern const struct tui_view_ops tui_view_strip;	 /* a mapping's pages */
extern const struct tui_view_ops tui_view_fstrip;	 /* a file's pages */

#endif
