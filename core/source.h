/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.h - where snapshots come from.
 *
 * Each source is one ops table, listed once in source.c's table.
 * exm_source_open() picks by name, or, with name NULL/"auto", the first
 * source of that table whose probe says it is usable here (pagemap when
 * this process can read PFNs, else smaps). A source fills a snapshot by
 * speaking the builder protocol (builder.h).
 */
#ifndef EXM_SOURCE_H
#define EXM_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "core/builder.h"
#include "core/snapshot.h"

struct exm_source;

/* What to scan. */
struct exm_scan_opts {
	const pid_t *pids; /* only these pids (NULL: all) */
	size_t npids;
	bool include_self; /* scan exmtop's own process too */
	/* The kernel's figures (Pss and its split): from the mapping counts
	 * of the frames read (/proc/kpagecount) where the source can, else
	 * from smaps_rollup. */
	bool want_kpss;
	/* With want_kpss: from smaps_rollup, the kernel's second walk, all
	 * of them (Pss_Dirty, SwapPss, the Pss cross-check need it). */
	bool want_rollup;
	/* With want_kpss: only for these pids (sorted ascending), e.g. the
	 * rows on screen; NULL: for every process. The walk of smaps_rollup
	 * is the costliest read after pagemap. */
	const pid_t *kpss_pids;
	size_t nkpss_pids;
	bool want_cmdline; /* read /proc/PID/cmdline */
	bool want_cgroup;  /* read /proc/PID/cgroup (else ""; EXM_CAP_CGROUP) */
	/* count the mapped swap-cache frames (EXM_MI_SWAPCACHE_MAPPED, the
	 * system view's swap-cache row; else the row is unknown) */
	bool want_swapcache;
	bool want_oom; /* read /proc/PID/oom_score and oom_score_adj */
	/* The source's own setting (its ops' knob): the index of the word
	 * chosen, 0 (the first, its default) when none was. */
	int knob;
	/* with want_cgroup: each cgroup's charge (cgcharge.h) */
	bool want_cgcharge;
	/* Where every page lies is wanted (a recording, a page strip): no
	 * mapping is counted rather than read (exm_mapping.counted). */
	bool want_places;
	const char *proc_root; /* "/proc" unless testing */
};

/*
 * A setting of one source's own, not of the others (an option such as
 * --pagemap-mode): the words it takes, the first its default, whose index
 * reaches the source as exm_scan_opts.knob, and a line of help.
 */
struct exm_source_knob {
	const char *source;	  /* the source's name, for messages */
	const char *const *words; /* NULL-terminated */
	const char *help;
};

struct exm_source_ops {
	const char *name;
	/* Optional: its own setting (NULL: none). */
	const struct exm_source_knob *knob;
	/* Optional: whether the opened source can work with its setting's
	 * word knob on this machine: 0, or -errno with src->errmsg set (a
	 * bad value: exm_source_knob_check). */
	int (*knob_check)(struct exm_source *src, int knob);
	/* Optional: whether "auto" may choose this source here. */
	bool (*probe)(void);
	/* Prepare; 0 or -errno (e.g. -EPERM when this source is unusable). */
	int (*open)(struct exm_source *src);
	/* One scan into the builder (begin ... end); 0 or -errno for a
	 * failure of the run (src->errmsg says why). */
	int (*fill)(struct exm_source *src, const struct exm_scan_opts *opts,
		    struct exm_builder *b);
	void (*close)(struct exm_source *src);
	/* Optional, for a source of recorded snapshots (NULL: a live one,
	 * which has no snapshots before the next): how many, the index of
	 * the one the next snapshot gives, move there (0 or -ERANGE), when
	 * one was taken (0 or -ERANGE), move to the last one taken at or
	 * before a time. Called through exm_source_count() etc. */
	size_t (*count)(const struct exm_source *src);
	size_t (*tell)(const struct exm_source *src);
	int (*seek)(struct exm_source *src, size_t idx);
	int (*time)(const struct exm_source *src, size_t idx,
		    struct timespec *at);
	int (*seek_time)(struct exm_source *src, const struct timespec *t);
	/* Optional, for refreshes (reuse.h): the kernel's figures of procs
	 * (n of snap's processes) had again from the mapping counts of their
	 * words, in place. 0 or -errno. */
	int (*kpss_again)(struct exm_source *src, struct exm_snapshot *snap,
			  struct exm_proc *const *procs, size_t n);
	/* For --source's help (exm_source_help): the name's argument after
	 * ':' ("FILE"), NULL when it takes none; and a few words, or NULL. */
	const char *arg;
	const char *help;
	/* Takes ":ARG" though help does not say so (pagemap:DIR, a
	 * /proc-like tree, for tests); any other source given one is a bad
	 * value. */
	bool arg_unlisted;
};

struct exm_source {
	const struct exm_source_ops *ops;
	void *priv;	     /* source-owned state */
	const char *arg;     /* source argument (fixture name, file, ...) */
	char errmsg[256];    /* set on failure: one line for the user */
	int64_t walk_cpu_ns; /* CPU the last /proc walk took (procwalk.c) */
	/* Refreshes that re-read only what changed (reuse.h), or NULL:
	 * every snapshot walks every process. Owned. */
	struct exm_reuse *reuse;
	/* With reuse: /proc/PID descriptors kept from walk to walk
	 * (procwalk.c), or NULL. Owned. */
	struct exm_kept_fds *kept_fds;
};

extern const struct exm_source_ops exm_source_kmod;
extern const struct exm_source_ops exm_source_pagemap;
extern const struct exm_source_ops exm_source_smaps;
extern const struct exm_source_ops exm_source_fixture;
extern const struct exm_source_ops exm_source_replay; /* source_replay.h */
/* pagemap's knob (--pagemap-mode), its words by index: auto (PAGEMAP_SCAN
 * where it helps), scan (always PAGEMAP_SCAN), read (plain reads),
 * read-all (plain reads of every mapping's frames: none counted) */
enum exm_pagemap_mode {
	EXM_PMODE_AUTO,
	EXM_PMODE_SCAN,
	EXM_PMODE_READ,
	EXM_PMODE_READ_ALL
};
extern const struct exm_source_knob exm_pagemap_knob;

/* The ops of the source a --source NAME[:ARG] names, or NULL ("auto" or
 * unknown). */
const struct exm_source_ops *exm_source_find(const char *name);

/*
 * Raise the soft RLIMIT_NOFILE to the hard limit, as a program that keeps
 * many descriptors should at start (a live walk keeps four of each
 * process while three quarters of the soft limit allow: procwalk.c). The
 * old soft limit would have to be restored for a program exec'd, as
 * select() breaks above 1024 descriptors; exmtop executes nothing, and
 * neither it nor its libraries (ncurses polls) call select().
 */
void exm_raise_nofile(void);

/*
 * Open a source by name ("auto", "pagemap", "smaps", "fixture:NAME",
 * ...).
 * On success *out is owned by the caller (exm_source_close). On failure
 * returns -errno and writes a one-line reason to err (errlen bytes).
 */
int exm_source_open(const char *name, struct exm_source **out, char *err,
		    size_t errlen);
void exm_source_close(struct exm_source *src);

/* Whether src can work with word of setting knob (a source's own, such as
 * --pagemap-mode): 0 (also when knob is not src's), or -errno with
 * src->errmsg saying why. */
int exm_source_knob_check(struct exm_source *src,
			  const struct exm_source_knob *knob, int word);
/*
 * The name of the registry's source i ("kmod", ...), or NULL past the
 * last; *takes_arg: it is opened as NAME:ARG (its .arg).
 */
const char *exm_source_name(size_t i, bool *takes_arg);

/*
 * Take one snapshot: fill, then account. On success *out is a new snapshot
 * owned by the caller. Sets sys.time_taken and sys.taken_at.
 */
int exm_source_snapshot(struct exm_source *src,
			const struct exm_scan_opts *opts,
			struct exm_snapshot **out);

/*
 * Seeking a source of recorded snapshots (its ops; a live source has
 * none): exm_source_count is how many (0: a live source, the one test of
 * "is this a recording"); tell, the index of the snapshot the next
 * exm_source_snapshot() gives; seek makes it idx (0, -ERANGE, -EINVAL for
 * a live source); time says when snapshot idx was taken; seek_time moves
 * to the last one taken at or before t.
 */
size_t exm_source_count(const struct exm_source *src);
size_t exm_source_tell(const struct exm_source *src);
int exm_source_seek(struct exm_source *src, size_t idx);
int exm_source_time(const struct exm_source *src, size_t idx,
		    struct timespec *at);
int exm_source_seek_time(struct exm_source *src, const struct timespec *t);

/* The names --source takes, from the table of sources, with their words:
 * "auto, kmod (the exmap module), ..., replay:FILE". */
void exm_source_help(char *buf, size_t len);

/*
 * Let src's next snapshots re-read only the processes that changed, with
 * a full walk at least every full_every seconds (reuse.h); with check,
 * each is also compared with a full walk (exm_reuse_stats says how).
 * Only the pagemap source keeps words (the module's walk is cheap, the
 * smaps source has none): for the others this does nothing. 0 or -ENOMEM.
 */
int exm_source_set_reuse(struct exm_source *src, double full_every, bool check);
/* The next snapshot is the source's last (exm_reuse_last). */
void exm_source_last(struct exm_source *src);
/* What the last snapshot re-read (reuse.h), or NULL without reuse. */
const struct exm_reuse_stats *exm_source_reuse_stats(
	const struct exm_source *src);

/* Whether /dev/exmap (the kernel module) exists and this process may open
 * it. */
bool exm_kmod_available(void);
/* The open kmod source's module watches processes (ABI 5): its refreshes
 * can re-read only what changed, exactly (reuse.h). */
bool exm_kmod_watches(const struct exm_source *src);

/* Whether this process can read PFNs from pagemap (root / CAP_SYS_ADMIN). */
bool exm_pagemap_has_pfns(void);

#endif
