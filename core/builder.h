/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * builder.h - the one protocol every source speaks to make a snapshot:
 *
 *	begin(system facts)
 *	  { proc(identity)  { mapping(range, file)  pages(vpn, words)* }*
 *	    kpss(kernel figures)? }*
 *	end(counts)
 *
 * begin declares the system facts once (page size, RAM, kernel, host, the
 * source, its detail, limits and capabilities, the /proc root); nothing
 * downstream reads them from anywhere but snapshot->sys. Page words are in
 * pagemap's layout (pagemap.h), runs of consecutive virtual pages in
 * ascending order within a mapping.
 *
 * Consumers implement struct exm_sink_ops:
 *   - the in-memory snapshot (struct exm_builder below; exm_builder_sink);
 *   - the recorder (record.h), which writes rows of an SQLite file.
 * Producers:
 *   - the /proc sources and the fixtures call the in-memory builder's
 *     direct entry points (exm_build_*: no indirect call per page run, and
 *     per-worker builders merged without copying, see exm_builder_fork);
 *   - the replay source (source_replay.c) reads a recording into any sink;
 *   - exm_snapshot_emit() plays a built snapshot into any sink (this is how
 *     the recorder records what a live source took).
 */
#ifndef EXM_BUILDER_H
#define EXM_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

/* What end() reports. */
struct exm_build_end {
	size_t nskipped_gone;	/* processes that vanished during the scan */
	size_t nskipped_denied; /* processes listed with statm figures only */
};

/*
 * A consumer of the protocol. Every op returns 0 or -errno (which ends the
 * build). proc() receives the identity fields of p (pid ... state, and for
 * a denied process its statm sizes in p->sz); its maps, pfiles and kpss
 * are not read. mapping() receives the header of a mapping of the last
 * process (range, offset, device, inode, perms, kind, name, deleted, and
 * for sources without pages its sizes in m->sz; m->file and the build-id
 * when known); its page arrays are not read. pages() adds n words of the
 * consecutive virtual pages from vpn to the last mapping (words neither
 * present nor swapped are skipped). kpss() gives the kernel's figures of
 * the last process.
 */
struct exm_sink_ops {
	int (*begin)(void *ctx, const struct exm_sysinfo *sys);
	int (*proc)(void *ctx, const struct exm_proc *p);
	int (*mapping)(void *ctx, const struct exm_mapping *m);
	int (*pages)(void *ctx, uint64_t vpn, const uint64_t *words,
		     uint32_t n);
	int (*kpss)(void *ctx, const struct exm_kpss *k);
	/* Optional: the charge of a cgroup of the snapshot (after the
	 * processes, in path order; its path borrowed). */
	int (*cgroup)(void *ctx, const struct exm_cgcharge *c);
	int (*end)(void *ctx, const struct exm_build_end *e);
};

/* ---- the in-memory consumer ---- */

struct exm_builder {
	struct exm_snapshot *snap; /* borrowed: what is being built */
	struct exm_proc *proc;	   /* sink: the last process */
	struct exm_mapping *map;   /* sink: the last mapping */
};

/* Build into snap (empty, from exm_snapshot_new); b lives on the caller's
 * stack and owns nothing. */
void exm_builder_init(struct exm_builder *b, struct exm_snapshot *snap);

/*
 * The machine's own facts for a source reading proc_root (NULL: "/proc"):
 * page size (sysconf), the rows of proc_root/meminfo (falling back to
 * /proc/meminfo) with RAM from them, kernel release and host name
 * (uname), proc_root. The
 * caller then names the source, its detail, limits and caps.
 */
void exm_sysfacts_local(struct exm_sysinfo *sys, const char *proc_root);

/* begin: snap->sys = *sys (taken_at and time_taken kept when set). */
int exm_build_begin(struct exm_builder *b, const struct exm_sysinfo *sys);

/* A new zeroed process to fill; valid until the next exm_build_proc or
 * exm_build_drop. NULL on ENOMEM. */
struct exm_proc *exm_build_proc(struct exm_builder *b);

/* Forget the last process (it vanished mid-read). */
void exm_build_drop(struct exm_builder *b);

/* A new zeroed mapping of p (the last process); NULL on ENOMEM. */
struct exm_mapping *exm_build_mapping(struct exm_builder *b,
				      struct exm_proc *p);

/* Page words of m, see exm_sink_ops.pages. 0 or -ENOMEM. */
int exm_build_pages(struct exm_builder *b, struct exm_mapping *m, uint64_t vpn,
		    const uint64_t *words, uint32_t n);
/* n pages whose words step apart (exm_mapping_add_run). */
int exm_build_run(struct exm_builder *b, struct exm_mapping *m, uint64_t vpn,
		  uint64_t word, uint64_t step, uint32_t n);

/* n present pages from frame numbers plus one (exm_mapping_add_frames). */
int exm_build_frames(struct exm_builder *b, struct exm_mapping *m, uint64_t vpn,
		     const uint32_t *frame1, uint32_t n, uint64_t flags);

/* A hint: n used words of m follow (taken from the snapshot's page store,
 * no per-mapping allocation); more may come (then m's words move to the
 * heap), fewer when exm_build_trim follows. 0 or -errno. */
int exm_build_reserve(struct exm_builder *b, struct exm_mapping *m, uint32_t n);
/* After a reservation of n that was only a bound: fewer words came, give
 * the rest back (exm_mapping_trim_store). */
void exm_build_trim(struct exm_builder *b, struct exm_mapping *m);

/* The kernel's figures of p. */
void exm_build_kpss(struct exm_builder *b, struct exm_proc *p,
		    const struct exm_kpss *k);

/* end: the counts. */
void exm_build_end(struct exm_builder *b, const struct exm_build_end *e);

/*
 * Per-worker builders: child builds into a new snapshot with b's facts;
 * exm_builder_join() moves its processes (and page store) to the end of
 * b's snapshot, adds its counts and frees it. 0 or -ENOMEM.
 */
int exm_builder_fork(struct exm_builder *b, struct exm_builder *child);
void exm_builder_join(struct exm_builder *b, struct exm_builder *child);

/* The in-memory consumer as a sink; ctx is a struct exm_builder. Strings
 * are copied. */
extern const struct exm_sink_ops exm_builder_sink;

/*
 * Play snap (filled; accounted or not) into a sink, in order: begin, every
 * process with its mappings, their page runs and the kernel figures, end.
 * 0 or the first error of the sink.
 */
int exm_snapshot_emit(const struct exm_snapshot *snap,
		      const struct exm_sink_ops *ops, void *ctx);

#endif
