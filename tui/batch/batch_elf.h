/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * batch_elf.h - batch output of the ELF drill-down:
 *   exmtop -b --sections FILE [-p PID]
 *   exmtop -b --symbols FILE:SECTION [-p PID]     (SECTION "*": all)
 * in text, CSV or JSON: a mode of the batch driver (drive.h,
 * tui_elf_ops). FILE is a mapped file's path as maps shows it, or
 * any path resolving to it, or its base name when that is unambiguous.
 * With one -p PID the sizes are that process's; otherwise they are sums
 * over every scanned process mapping the file.
 */
#ifndef TUI_BATCH_ELF_H
#define TUI_BATCH_ELF_H

#include "core/snapshot.h"
#include "tui/opts.h"

/*
 * The file of snap that arg names: exact name, else the realpath of arg,
 * else the unique file whose base name is arg. NULL if none (*ambiguous
 * set when several files matched by base name).
 */
const struct exm_file *tui_elf_find_file(const struct exm_snapshot *snap,
					 const char *arg, bool *ambiguous);

#endif
