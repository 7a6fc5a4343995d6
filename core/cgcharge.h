/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgcharge.h - what the kernel charges each cgroup of the scanned
 * processes, beside what they cost (DESIGN.md s. 3, "Charge").
 *
 * cgroup v2 only: memory.current and memory.stat's anon, file, shmem and
 * kernel of every cgroup a scanned process is in, and from
 * /proc/kpagecgroup (the inode of the memcg each frame is charged to,
 * read in runs for the frames the snapshot has, as kpageflags.c reads its
 * file) what the charge and the cost disagree on: frames charged here that
 * other cgroups' processes map (others), frames this cgroup's processes map
 * that are charged elsewhere (elsewhere), and the page cache charged here
 * that no scanned process maps (unmapped). Where the memory controller is
 * not on a v2 hierarchy (cgroup v1) nothing is read and the snapshot's
 * limits say so once (EXM_CAP_CGROUP_V1): the figures stay null.
 */
#ifndef EXM_CGCHARGE_H
#define EXM_CGCHARGE_H

#include "core/snapshot.h"

/* What the snapshot's limits (and a format without them, on stderr) say
 * on a machine whose memory controller is on cgroup v1. */
#define EXM_CGCHARGE_V1_NOTE                                                \
	"no cgroup charge: the memory controller is not on cgroup v2 here " \
	"(cgroup v1)"

/*
 * Where the cgroup v2 hierarchy is mounted (its first mount in
 * /proc/self/mounts) into buf; false (buf "") when it is not.
 */
bool exm_cgcharge_mount(char *buf, size_t len);

/*
 * Fill snap->cgroups for an accounted snapshot whose processes' cgroups
 * were read (EXM_CAP_CGROUP), from the hierarchy mounted on cg_root (as
 * exm_cgcharge_mount gives it; "": none) and proc_root's
 * kpagecgroup (NULL: /proc). A figure that cannot be read stays null; 0
 * or -ENOMEM.
 */
int exm_cgcharge_read(struct exm_snapshot *snap, const char *proc_root,
		      const char *cg_root);

/*
 * Whether the frames' memcgs can be read here: the memory controller on
 * the cgroup v2 hierarchy mounted on cg_root (as exm_cgcharge_read's) and
 * proc_root's (NULL: /proc) kpagecgroup readable. Only then does the
 * charge need every frame read (no counted mapping); elsewhere its frame
 * figures are null whatever the scan reads.
 */
bool exm_cgcharge_frames(const char *proc_root, const char *cg_root);

/* The charge of the cgroup whose group key is key, or NULL. */
const struct exm_cgcharge *exm_cgcharge_find(const struct exm_snapshot *snap,
					     const char *key);

#endif
