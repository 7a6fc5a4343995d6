/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ownfiles.h - the files SQLite holds open in this process (a recording
 * and its -wal, -shm and -journal), which nothing else in the process may
 * open.
 *
 * POSIX record locks belong to the process, not to a descriptor: closing
 * any descriptor of an inode drops every lock the process holds on it. A
 * recorder that opened its own -shm (mapped by a reader, or by itself with
 * --include-self) to read a build-id would drop SQLite's locks in the
 * middle of a transaction. So every recording open in the process is
 * registered here, and exm_open_regular() (elf.h), through which every
 * mapped or named file is opened, refuses a file of the same device and
 * inode as any of them. Identity, not name: the candidates are stat()ed
 * anew at each check, as -wal and -shm appear after the open.
 *
 * Thread-safe (the live screen's scanner thread records while the screen
 * reads ELF files).
 */
#ifndef EXM_OWNFILES_H
#define EXM_OWNFILES_H

#include <stdbool.h>
#include <sys/stat.h>

/* Register the database file path (as SQLite resolved it, absolute) and
 * its companions. 0 or -ENOMEM. Registering twice needs two removes. */
int exm_ownfiles_add(const char *path);

/* Forget one registration of path (after the database is closed). */
void exm_ownfiles_remove(const char *path);

/* Whether st (of a file about to be opened) is one of the registered
 * files. */
bool exm_ownfiles_has(const struct stat *st);

#endif
