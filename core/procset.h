/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procset.h - a set of processes named on the command line (--freed):
 * PID[,PID...], user:NAME (name or numeric uid), cgroup:PATH (the
 * unified cgroup path, "/" for the root) or comm:NAME (the command name
 * exactly).
 */
#ifndef EXM_PROCSET_H
#define EXM_PROCSET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/snapshot.h"

enum exm_procset_kind {
	EXM_PSET_PIDS = 0,
	EXM_PSET_USER,
	EXM_PSET_CGROUP,
	EXM_PSET_COMM,
};

struct exm_procset {
	enum exm_procset_kind kind;
	pid_t *pids; /* EXM_PSET_PIDS (owned) */
	size_t npids;
	const char *name; /* the others: borrowed from the text parsed */
};

/*
 * Parse text into *s. 0, or -EINVAL with a one-line reason in err (an
 * empty name, a bad pid, an unknown prefix), or -ENOMEM. Release with
 * exm_procset_fini().
 */
int exm_procset_parse(const char *text, struct exm_procset *s, char *err,
		      size_t errlen);
void exm_procset_fini(struct exm_procset *s);

/* Whether process p is in the set. */
bool exm_procset_match(const struct exm_procset *s, const struct exm_proc *p);

#endif
