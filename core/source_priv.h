/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source_priv.h - the /proc walk (procwalk.c) that the live sources
 * (kmod, pagemap, smaps) share: which processes, their identity and maps.
 */
#ifndef EXM_SOURCE_PRIV_H
#define EXM_SOURCE_PRIV_H

#include <errno.h>
#include <time.h>

#include "core/builder.h"
#include "core/source.h"

/* /proc/PID of the process walked: its path, and the directory opened
 * when something asked for it (exm_pdir_fd). */
struct exm_pdir {
	int fd; /* -1 until opened */
	/* A hash of what says the process changed: the counters of its stat
	 * (read_ident) and the text of its maps (exm_read_maps); 0 until
	 * both are read (reuse.h). */
	uint64_t key;
	/* key says every change itself (the module's counters): no more is
	 * read into it (reuse.h) */
	bool exact;
	/* its stat says one thread: with key unchanged (stat's counters and
	 * the main thread's run time), it did not run (reuse.h) */
	bool one_thread;
	/* key before maps' text was hashed into it (exm_read_maps) */
	uint64_t stat_key;
	/* the main thread's run time hashed, once read (0: not yet) */
	uint64_t sched;
	/* maps' text to parse rather than read (exm_reuse_maps: not owned),
	 * and the owner of /proc/PID then */
	const char *maps_in;
	size_t maps_in_len;
	uid_t uid;
	/* with keep_maps, exm_read_maps leaves the text it read in maps
	 * (malloc'd) for exm_reuse_take; the walk frees what is left */
	bool keep_maps;
	char *maps;
	size_t maps_len;
	/* the descriptors kept for the next walk (EXM_KFD_*; -1: not
	 * open), or NULL: each opened and closed in this walk */
	int *kept;
	char path[sizeof(((struct exm_sysinfo *)0)->proc_root) + 16];
};

/* What of /proc/PID a live walk keeps open (struct exm_pdir.kept). */
enum { EXM_KFD_DIR, EXM_KFD_STAT, EXM_KFD_SCHED, EXM_KFD_CMDLINE, EXM_KFD_N };

/* How many processes a live walk keeps descriptors of, with a soft
 * RLIMIT_NOFILE of soft (unlimited: RLIM_INFINITY): a quarter of the
 * limit left for everything else, none under 256. */
size_t exm_kept_max_of(uint64_t soft, bool unlimited);

/* Read d/name whole: through its kept descriptor for stat, schedstat and
 * cmdline when d keeps them, else opened through the directory. 0 or
 * -errno. */
int exm_pdir_read(struct exm_pdir *d, const char *name, char **buf,
		  size_t *len);

/* Close the descriptors src keeps (exm_source_close). */
void exm_kept_fds_free(struct exm_source *src);

/* The directory's descriptor, opened at the first call; -errno. */
int exm_pdir_fd(struct exm_pdir *d);

/* Per-process callback of exm_proc_walk: read the pages or figures of p
 * (whose maps are filled if the walk has .read_maps, and identity unless
 * it has .ident) from /proc/PID (d), with the calling worker's ctx, into
 * that worker's builder b. Return 0, 1 if it has nothing mapped (it is not
 * listed), -ENOENT/-ESRCH if the process vanished (it is dropped and
 * counted), -EACCES/-EPERM if it may not be read (it is listed with what
 * statm shows), or another -errno to fail the run. */
typedef int (*exm_proc_fn)(struct exm_source *src, void *ctx,
			   const struct exm_scan_opts *opts,
			   struct exm_builder *b, struct exm_proc *p,
			   struct exm_pdir *d);

struct exm_walk {
	exm_proc_fn fn;
	bool read_maps;
	/* fn fills comm, ppid, start_time and uid itself: the walk reads no
	 * stat and no owner of /proc/PID (and fn must fill p->comm before it
	 * may fail with anything but "gone") */
	bool ident;
	/* Per-worker state (buffers); NULL when not needed. */
	void *(*ctx_new)(struct exm_source *src);
	void (*ctx_free)(void *ctx);
};

/*
 * Walk b's snapshot's sys.proc_root (set by begin): for each selected
 * process read its identity (stat and uid, unless w->ident) and maps (if
 * w->read_maps), call w->fn, then read user, cmdline and cgroup. Processes
 * are split among up to four worker threads (one per CPU), each with its
 * own builder (exm_builder_fork), joined into b in pid order. Kernel
 * threads and processes without mappings are not listed. Reports the
 * skipped counts (end). 0 or -errno.
 */
int exm_proc_walk(struct exm_source *src, const struct exm_scan_opts *opts,
		  struct exm_builder *b, const struct exm_walk *w);

/* The clock id's time in ns. */
int64_t exm_clock_ns(clockid_t id);

/* Read p's mappings from d's maps into b: 0; 1 when there are none (a
 * kernel thread, or exiting); -errno. */
int exm_read_maps(struct exm_builder *b, struct exm_pdir *d,
		  struct exm_proc *p);

/* Read the kernel's figures of p from d's smaps_rollup into b. 0 or
 * -errno. */
int exm_read_kpss(struct exm_builder *b, struct exm_pdir *d,
		  struct exm_proc *p);

/* Whether the options ask for the kernel's figures of pid. */
bool exm_want_kpss(const struct exm_scan_opts *opts, pid_t pid);

/* Whether an errno from reading /proc/PID/... means the process is gone. */
static inline bool exm_errno_gone(int err)
{
	return err == -ENOENT || err == -ESRCH;
}

#endif
