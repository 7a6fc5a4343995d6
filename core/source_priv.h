/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source_priv.h - helpers shared by the /proc based sources (pagemap,
 * smaps): walking /proc and reading a process's identity and maps.
 */
#ifndef EXM_SOURCE_PRIV_H
#define EXM_SOURCE_PRIV_H

#include "core/source.h"

/* Per-process callback of exm_proc_walk: read the pages or figures of p
 * (whose identity and maps are filled) through dirfd (/proc/PID), with the
 * calling worker's ctx. Return 0, -ENOENT/-ESRCH if the process vanished
 * (it is dropped and counted), -EACCES/-EPERM if it may not be read (it is
 * listed with what statm shows), or another -errno to fail the run. */
typedef int (*exm_proc_fn)(struct exm_source *src, void *ctx,
			   const struct exm_scan_opts *opts,
			   struct exm_snapshot *snap, struct exm_proc *p,
			   int dirfd);

struct exm_walk {
	exm_proc_fn fn;
	bool read_maps;
	/* Per-worker state (buffers); NULL when not needed. */
	void *(*ctx_new)(struct exm_source *src);
	void (*ctx_free)(void *ctx);
};

/*
 * Walk /proc (or opts->proc_root): for each selected process fill identity
 * (stat, uid, user, cmdline, cgroup), read maps if w->read_maps, call
 * w->fn. Processes are split among up to four worker threads (one per
 * CPU), each filling a private snapshot merged into snap in pid order.
 * Kernel threads and processes without mappings are not listed. 0 or
 * -errno.
 */
int exm_proc_walk(struct exm_source *src, const struct exm_scan_opts *opts,
		  struct exm_snapshot *snap, const struct exm_walk *w);

/* Fill snap->sys facts common to all sources (page size, RAM, kernel,
 * host). */
void exm_sysinfo_fill(struct exm_sysinfo *sys);

/* Read the kernel's figures of p from dirfd/smaps_rollup. 0 or -errno. */
int exm_read_kpss(int dirfd, struct exm_proc *p);

/* Whether the options ask for the kernel's figures of pid. */
bool exm_want_kpss(const struct exm_scan_opts *opts, pid_t pid);

/* Whether an errno from reading /proc/PID/... means the process is gone. */
static inline bool exm_errno_gone(int err)
{
	return err == -ENOENT || err == -ESRCH;
}

#endif
