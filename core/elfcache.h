/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfcache.h - parsed ELF files kept across refreshes, keyed by the file's
 * identity on disk (device, inode, mtime, size), so drilling into libc for
 * the hundredth time costs nothing.
 *
 * Files are opened through /proc/PID/map_files/START-END (the exact file a
 * process maps, even if it was deleted or replaced on disk), falling back to
 * the path, which is used only if it still names the mapped inode.
 */
#ifndef EXM_ELFCACHE_H
#define EXM_ELFCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/elf.h"
#include "core/snapshot.h"

struct exm_elfcache;

/* A cache holding at most max parsed files (0: a default of 32). NULL on
 * ENOMEM; the caller frees it with exm_elfcache_free(). */
struct exm_elfcache *exm_elfcache_new(size_t max);
void exm_elfcache_free(struct exm_elfcache *c);

/*
 * The parsed ELF of file f as process p maps it (p NULL: as any process of
 * snap maps it). Never NULL: when the file cannot be parsed the result's
 * state says why (exm_elf_state_text()). The object is owned by the cache
 * and stays valid until exm_elfcache_free() or until max other files have
 * been looked up since (least recently used are dropped first).
 * proc_root NULL: the snapshot's sys.proc_root. A replayed snapshot
 * (EXM_CAP_REPLAY), or a cache with a sysroot, opens the file
 * by its path (under the sysroot) and, when the recording holds the
 * file's build-id, checks it: a file that differs gives EXM_ELF_REPLACED
 * and exm_elfcache_why() says so.
 */
const struct exm_elf *exm_elfcache_get(struct exm_elfcache *c,
				       const struct exm_snapshot *snap,
				       const struct exm_proc *p,
				       const struct exm_file *f,
				       const char *proc_root);

/*
 * Resolve mapped files, and their build-id debug files, under dir (a copy
 * of a target's root filesystem, to analyse its recording elsewhere); NULL
 * or "": none. Drops what the cache holds. 0 or -ENOMEM.
 */
int exm_elfcache_set_sysroot(struct exm_elfcache *c, const char *dir);

/* Why the last exm_elfcache_get() gave no usable file, in one line (e.g.
 * "PATH: build-id X does not match the recording's Y"), or "". Valid until
 * the next call. */
const char *exm_elfcache_why(const struct exm_elfcache *c);

/* Open mapping m of process pid through proc_root/PID/map_files (the
 * exact file mapped, even if replaced or deleted on disk); the fd (caller
 * closes) or -1 (gone, not allowed, or the pid now maps another file). */
int exm_open_mapped(const char *proc_root, pid_t pid,
		    const struct exm_mapping *m);

/* The same for an open file descriptor (path: hint for debug files). */
const struct exm_elf *exm_elfcache_get_fd(struct exm_elfcache *c, int fd,
					  const char *path);

struct exm_elfcache_stats {
	uint64_t hits, misses;
	size_t entries;
	uint64_t bytes; /* approximate memory held */
};
void exm_elfcache_stats(const struct exm_elfcache *c,
			struct exm_elfcache_stats *st);

#endif
