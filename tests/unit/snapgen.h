/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapgen.h - hand-built snapshots for the tests: a process whose string
 * fields are owned placeholders, as exm_snapshot_free expects.
 */
#ifndef EXM_TESTS_SNAPGEN_H
#define EXM_TESTS_SNAPGEN_H

#include <stdlib.h>
#include <string.h>

#include "core/snapshot.h"

/* A new process pid named comm in s; NULL on ENOMEM. */
static inline struct exm_proc *snapgen_proc(struct exm_snapshot *s, pid_t pid,
					    const char *comm)
{
	struct exm_proc *p = exm_snapshot_add_proc(s);

	if (!p)
		return NULL;
	p->pid = pid;
	p->user = strdup("u");
	p->comm = strdup(comm);
	p->cmdline = strdup("");
	p->cgroup = strdup("");
	return p;
}

/* A mapping of npages 4 KiB pages at start in p (a file's inode 77). */
static inline struct exm_mapping *snapgen_map(struct exm_proc *p,
					      uint64_t start, uint64_t npages,
					      unsigned perms, const char *name,
					      enum exm_kind kind)
{
	struct exm_mapping *m = exm_proc_add_mapping(p);

	m->start = start;
	m->end = start + npages * 4096;
	m->perms = perms;
	m->name = strdup(name);
	m->inode = kind == EXM_KIND_ANON ? 0 : 77;
	m->kind = kind;
	return m;
}

#endif
