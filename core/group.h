/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * group.h - processes grouped per program, per user or per cgroup.
 *
 * A group row (table EXM_T_GROUPS) sums the sizes and the kernel's figures
 * of every process in the group; row.name is the group key (borrowed from a
 * process of the snapshot), row.nprocs the number of processes and row.proc
 * the first process of the group (so pid/user columns have a value).
 *
 * A figure is summed over the members that have it measured, and the group
 * has it when one member does: a process that could not be read (denied,
 * gone mid-scan, its kernel figures not asked for) does not hide what was
 * measured of the others. row.unmeasured counts the members left out of at
 * least one of the group's sums, so a sum is never presented as complete
 * when it is not (0: every sum covers every member). A figure no member
 * has stays not measured ("-", JSON null).
 *
 * Effective sizes add up exactly: a page shared only inside a group counts
 * once for the group, so grouping per program answers "what does firefox
 * cost in all" the way ps_mem does, but page-exact.
 */
#ifndef EXM_GROUP_H
#define EXM_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/table.h"

enum exm_group_by {
	EXM_GROUP_NONE = 0, /* one row per process */
	EXM_GROUP_PROGRAM,  /* by command name (comm) */
	EXM_GROUP_USER,	    /* by user name */
	EXM_GROUP_CGROUP,   /* by cgroup path (container, service) */
	EXM_GROUP__COUNT
};

/* Their names, NULL-terminated (a shell completes --group with them). */
extern const char *const exm_group_names[EXM_GROUP__COUNT + 1];
/* "process", "program", "user", "cgroup". */
const char *exm_group_name(enum exm_group_by by);
/* Parse a name as above; -1 if unknown. */
int exm_group_by_name(const char *name);

/*
 * The key of process p under a grouping (borrowed from p; never NULL).
 * Kernel threads group under "[kthreads]" for program grouping and an empty
 * cgroup shows as "/".
 */
const char *exm_group_key(const struct exm_proc *p, enum exm_group_by by);

/*
 * Which processes a listing shows (-u, -p). A filter selects rows and never
 * changes a figure: the sharing of every page is counted over every
 * scanned process, whatever is shown. Borrowed strings and arrays.
 */
struct exm_proc_filter {
	const char *user;  /* name or numeric uid; NULL: any */
	const pid_t *pids; /* these pids only; NULL: any */
	size_t npids;
};

/* Whether p passes f (NULL f: every process does). */
bool exm_proc_filter_match(const struct exm_proc_filter *f,
			   const struct exm_proc *p);

/*
 * Which files and kinds a process passing f maps: a malloc'd array of
 * snap->nfiles flags indexed by exm_file.index (caller frees), or NULL on
 * ENOMEM.
 */
bool *exm_files_mapped_by(const struct exm_snapshot *snap,
			  const struct exm_proc_filter *f);

/*
 * One row per group, in key order (caller sorts), of the processes that
 * pass f (NULL for every process). Returns a malloc'd array the caller
 * frees; rows borrow from snap. NULL on ENOMEM.
 */
struct exm_row *exm_table_groups(const struct exm_snapshot *snap,
				 enum exm_group_by by,
				 const struct exm_proc_filter *f, size_t *n);

/* Whether process p belongs to user (name or numeric uid; NULL: yes). */
bool exm_proc_is_user(const struct exm_proc *p, const char *user);

/*
 * The processes of one group: like exm_table_procs() restricted to those
 * whose key equals key. Caller frees; NULL on ENOMEM.
 */
struct exm_row *exm_table_group_procs(const struct exm_snapshot *snap,
				      enum exm_group_by by, const char *key,
				      size_t *n);

#endif
