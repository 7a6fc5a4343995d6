/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot.h - the immutable picture of memory sharing at one instant.
 *
 * A source (source.h) fills a snapshot: processes, their mappings exactly as
 * /proc/PID/maps lists them, and for each mapping its per-page facts.
 * exm_snapshot_account() (account.h) then computes every size once; after
 * that the snapshot is read-only and every pointer into it stays valid until
 * exm_snapshot_free().
 *
 * Per-page facts are stored sparsely: a mapping keeps only runs of pages that
 * are present or swapped, so a 64 GiB untouched reservation costs nothing.
 * Each page is one 64-bit word in pagemap's own layout (see pagemap.h), so
 * every source speaks the same language.
 */
#ifndef EXM_SNAPSHOT_H
#define EXM_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "core/meminfo.h"
#include "core/pagemap.h"

/* Kinds of mapping, from the maps line (name, inode, device). */
enum exm_kind {
	EXM_KIND_FILE = 0, /* regular file mapping (dev, inode) */
	EXM_KIND_SHMEM,	   /* SysV shm, memfd, /dev/shm, MAP_SHARED anon */
	EXM_KIND_HEAP,	   /* [heap] */
	EXM_KIND_STACK,	   /* [stack] */
	EXM_KIND_ANON,	   /* anonymous private memory, [anon:name] */
	EXM_KIND_VDSO,	   /* [vdso] */
	EXM_KIND_VVAR,	   /* [vvar], [vvar_vclock] */
	EXM_KIND_VSYSCALL, /* [vsyscall] */
	EXM_KIND_DEVICE,   /* character device mappings (/dev/...) */
	EXM_KIND_OTHER,	   /* any other [bracketed] name */
	EXM_KIND__COUNT
};

const char *exm_kind_name(enum exm_kind kind);

/* Mapping permission bits (from "rwxp"/"rwxs"). */
#define EXM_PERM_R 0x1u
#define EXM_PERM_W 0x2u
#define EXM_PERM_X 0x4u
#define EXM_PERM_S 0x8u /* shared; otherwise private */

/*
 * Which measurements a value set holds. A size whose bit is clear could not be
 * measured and is shown as "-", never as 0.
 */
#define EXM_HAS_VM (1u << 0)
#define EXM_HAS_RSS (1u << 1)
#define EXM_HAS_ERSS (1u << 2)
#define EXM_HAS_SWAP (1u << 3)
#define EXM_HAS_ESWAP (1u << 4)
#define EXM_HAS_SOLE (1u << 5)
#define EXM_HAS_WRITABLE (1u << 6)
#define EXM_HAS_ZERO (1u << 7)
#define EXM_HAS_HUGETLB (1u << 8)
#define EXM_HAS_EHUGETLB (1u << 9)
#define EXM_HAS_KSM (1u << 10)	/* ksm and eksm */
#define EXM_HAS_EXCL (1u << 11) /* freed, cached, shmem_excl */
#define EXM_HAS_ALL 0xfffu

/*
 * The sizes of docs/DESIGN.md section 3 for one byte range. Integer sizes are
 * bytes; effective sizes are fractional bytes (b / maps summed per page in
 * double precision, never rounded per mapping). Mapped and effective mapped
 * are derived: use exm_sizes_mapped() / exm_sizes_emapped().
 */
struct exm_sizes {
	uint64_t vm;
	uint64_t rss;
	uint64_t swap;
	uint64_t sole;
	uint64_t writable;
	uint64_t zero;	  /* mapped to the zero page: not resident */
	uint64_t hugetlb; /* present hugetlb pages: not resident */
	double erss;
	double eswap;
	double ehugetlb; /* hugetlb divided among its mappers */
	/* Resident in KSM pages (each mapping counted, like rss), and the
	 * same divided among the mappers: ksm - eksm is what merging saves
	 * (what the content would cost unmerged less what it costs). */
	uint64_t ksm;
	double eksm;
	/*
	 * Exclusive memory (DESIGN.md s. 3) of the set the range belongs to
	 * (a process; a group row: the group): bytes of the pages every
	 * scanned mapping of which lies in the set. freed: anonymous pages,
	 * private copies and swap slots; cached: file pages; shmem_excl:
	 * shared memory, memfd, /dev/shm. A page counts once however many
	 * times the set maps it.
	 */
	uint64_t freed, cached, shmem_excl;
	unsigned has; /* EXM_HAS_* */
};

static inline uint64_t exm_sizes_mapped(const struct exm_sizes *s)
{
	return s->rss + s->swap;
}

static inline double exm_sizes_emapped(const struct exm_sizes *s)
{
	return s->erss + s->eswap;
}

/* dst += src; validity is the intersection once dst holds anything. */
void exm_sizes_add(struct exm_sizes *dst, const struct exm_sizes *src);

/* The kernel's own per-process figures from smaps_rollup, in bytes. */
#define EXM_KPSS_PSS (1u << 0)
#define EXM_KPSS_PSS_ANON (1u << 1)
#define EXM_KPSS_PSS_FILE (1u << 2)
#define EXM_KPSS_PSS_SHMEM (1u << 3)
#define EXM_KPSS_PSS_DIRTY (1u << 4)
#define EXM_KPSS_SWAP_PSS (1u << 5)
#define EXM_KPSS_RSS (1u << 6)
struct exm_kpss {
	uint64_t pss;
	uint64_t pss_anon;
	uint64_t pss_file;
	uint64_t pss_shmem;
	uint64_t pss_dirty;
	uint64_t swap_pss;
	uint64_t rss;
	unsigned has; /* EXM_KPSS_* bits of the keys that were present */
};

/* A run of consecutive virtual pages that all have an entry (present or
 * swapped). pages[] of the mapping holds their pagemap words back to back. */
struct exm_run {
	uint64_t vpn;	/* first virtual page number (address / page size) */
	uint32_t count; /* number of pages */
	uint32_t idx;	/* index of the first page word in exm_mapping.pages */
};

struct exm_file;

struct exm_mapping {
	uint64_t start, end; /* [start, end) virtual addresses */
	uint64_t offset;     /* file offset of start */
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	unsigned perms; /* EXM_PERM_* */
	enum exm_kind kind;
	char *name;   /* exactly as maps gives it, or "" (owned) */
	bool deleted; /* name ended in " (deleted)" */
	/*
	 * What the kernel says of the mapping, never guessed from its name: a
	 * hugetlb mapping (smaps' KernelPageSize, PAGEMAP_SCAN's PAGE_IS_HUGE
	 * with kpageflags' KPF_HUGE, the module's VMA flag), and the size in
	 * bytes of the pages the kernel maps it with (0: the base page).
	 */
	bool hugetlb;
	uint32_t kpage_size;
	uint8_t build_id_len;	 /* recorded ELF build-id of the file, or 0 */
	unsigned char *build_id; /* (owned) only in replayed snapshots */

	/* Per-page facts (page-level sources only). */
	struct exm_run *runs;
	uint32_t nruns, cap_runs;
	bool runs_borrowed; /* runs live in the snapshot's page store */
	/* The words, see pagemap.h: packed in 32 bits (pages32) when they
	 * all fit, else 64 (pages); read them with exm_mapping_word(). */
	uint64_t *pages;
	uint32_t *pages32;
	uint32_t npages, cap_pages;
	bool pages_borrowed; /* the array lives in the snapshot's page store */
	/* the words are a live refresh's kept ones, KSM marks included:
	 * exm_ksm_mark reads no flags for them (see reuse.c, kmap_from) */
	bool ksm_known;

	/*
	 * Pages counted, not read (pagemap's read mode, see source_pagemap.c
	 * and docs/DESIGN.md): counted says this mapping's pages are given
	 * as counts only, no words. They are anonymous pages the kernel maps
	 * once in the whole system (smaps' Private_*, and swap entries of
	 * count 1: SwapPss = Swap), so each is its process's alone whoever is
	 * scanned; counted_rss and counted_swap are their bytes. Where in the
	 * mapping they lie is not known: a byte range cutting the mapping has
	 * only its VM measured.
	 */
	bool counted;
	uint64_t counted_rss, counted_swap;

	/*
	 * Sources without page identity (smaps) set these directly; page-level
	 * sources leave them for accounting to fill.
	 */
	struct exm_sizes sz;

	struct exm_file *file; /* set by accounting: the file this maps */
};

/* Why a process could not be measured fully. */
enum exm_proc_state {
	EXM_PROC_OK = 0,
	EXM_PROC_DENIED,  /* EACCES/EPERM on pages or smaps: only maps/stat */
	EXM_PROC_PARTIAL, /* some mappings unreadable */
};

struct exm_pfile; /* a file or anonymous kind within one process */

struct exm_proc {
	pid_t pid, ppid;
	uid_t uid;
	uint64_t start_time; /* clock ticks since boot (stat field 22) */
	char *user;	     /* user name or numeric uid (owned) */
	char *comm;	     /* raw comm, may contain anything (owned) */
	char *cmdline; /* NULs replaced by spaces; "" for kernel threads */
	char *cgroup;  /* unified cgroup path, or "" (owned) */
	bool kthread;
	enum exm_proc_state state;

	struct exm_mapping *maps;
	size_t nmaps;
	size_t cap_maps; /* room in maps (exm_proc_add_mapping) */

	struct exm_kpss kpss; /* kernel's figures where readable */
	/* The OOM killer's view, /proc/PID/oom_score and oom_score_adj,
	 * when asked for (want_oom) and readable (has_oom). */
	bool has_oom;
	int oom_score, oom_adj;

	/* Filled by accounting. */
	struct exm_sizes sz;
	struct exm_pfile *pfiles; /* per-file/kind breakdown (owned) */
	size_t npfiles;
	uint32_t index; /* position in snapshot->procs */
	/* A live source's hash of what says it changed (reuse.h); 0:
	 * unknown. Not recorded. */
	uint64_t change_key;
};

/* A file or anonymous kind across all processes. */
struct exm_file {
	enum exm_kind kind;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	char *name; /* path or "[kind]" (owned) */
	struct exm_sizes sz;
	uint32_t nprocs;
	uint32_t index;
	/* The build-id recorded for the file (replayed snapshots), from its
	 * first mapping; points into that mapping. */
	const unsigned char *build_id;
	uint8_t build_id_len;
};

struct exm_pfile {
	struct exm_file *file;
	struct exm_sizes sz;
	uint32_t nmaps; /* number of mappings of it in the process */
};

/* Capabilities of the source that made a snapshot. */
#define EXM_CAP_PAGES (1u << 0)	   /* per-page facts: byte-exact ranges */
#define EXM_CAP_PFN (1u << 1)	   /* page identity: sharing among scanned */
#define EXM_CAP_KPSS (1u << 2)	   /* kernel smaps_rollup figures */
#define EXM_CAP_WRITABLE (1u << 3) /* writable size measurable */
#define EXM_CAP_ALLPROCS (1u << 4) /* every process readable */
#define EXM_CAP_PTE_WRITABLE (1u << 5) /* page words carry EXM_PM_WRITABLE */
#define EXM_CAP_REPLAY \
	(1u << 6)		 /* read back from a recording: no live
					    /proc behind it (proc_root "") */
#define EXM_CAP_CGROUP (1u << 7) /* processes' cgroup paths read (else "") */
#define EXM_CAP_LIMITED \
	(1u << 8) /* only listed processes scanned:
					    sharing counted among them only */
#define EXM_CAP_AVG_MAPCOUNT \
	(1u << 9)	       /* the kernel's Pss of large folios
					  is an average (kconfig.h) */
#define EXM_CAP_KSM (1u << 10) /* page words say which are KSM pages */
#define EXM_CAP_CGROUP_V1 \
	(1u << 11) /* cgroup charge asked for, but the
					memory controller is on cgroup v1 */

struct exm_sysinfo {
	unsigned page_size;
	uint64_t mem_total;	/* bytes, MemTotal */
	uint64_t mem_available; /* bytes, MemAvailable */
	char kernel[128];	/* uname release */
	char hostname[128];
	char source[32];	  /* source name: "pagemap", "smaps", ... */
	char source_detail[256];  /* e.g. "PAGEMAP_SCAN", "chunked reads" */
	char limits[1024];	  /* what the source cannot show, or "" */
	unsigned caps;		  /* EXM_CAP_* */
	double time_taken;	  /* seconds spent filling + accounting */
	struct timespec taken_at; /* CLOCK_REALTIME when the scan began */
	char proc_root[256];	  /* the /proc this snapshot was read from */
	/* /proc/meminfo when the scan began (mem_total and mem_available
	 * are its MemTotal and MemAvailable); n == 0: not known */
	struct exm_meminfo meminfo;
};

/* Append what to sys->limits, after "; " when it holds a note already
 * (cut at its size). */
void exm_sys_note(struct exm_sysinfo *sys, const char *what);

/*
 * A cgroup's memory charge (cgroup v2, DESIGN.md s. 3, "Charge"): what the
 * kernel charges it, read from its memory.current and memory.stat, and
 * what /proc/kpagecgroup says of the frames the scan has. One for every
 * distinct cgroup of the scanned processes; path is its group key ("/"
 * for the root). A figure whose bit is clear is not known (null).
 */
#define EXM_CG_CURRENT (1u << 0)  /* memory.current */
#define EXM_CG_ANON (1u << 1)	  /* memory.stat anon */
#define EXM_CG_FILE (1u << 2)	  /* memory.stat file */
#define EXM_CG_SHMEM (1u << 3)	  /* memory.stat shmem */
#define EXM_CG_KERNEL (1u << 4)	  /* memory.stat kernel (Linux 5.18+) */
#define EXM_CG_FRAMES (1u << 5)	  /* others, elsewhere (kpagecgroup) */
#define EXM_CG_UNMAPPED (1u << 6) /* unmapped (file and frames) */
struct exm_cgcharge {
	char *path;   /* group key (owned) */
	uint64_t ino; /* inode of its directory: the memcg's id */
	uint64_t current, anon, file, shmem, kernel;
	/* Of the frames charged here that scanned processes map, the share
	 * (each frame divided among its mappings, as effective resident)
	 * of the mappings by processes of other cgroups. */
	double others;
	/* Of this cgroup's effective resident, the part on frames charged
	 * to another memcg (or to none). */
	double elsewhere;
	/* memory.stat file less the file and shmem frames charged here that
	 * scanned processes map (0 at least): page cache nobody scanned
	 * maps. */
	uint64_t unmapped;
	unsigned has; /* EXM_CG_* */
};

struct exm_snapshot {
	struct exm_sysinfo sys;
	struct exm_proc *procs;
	size_t nprocs, cap_procs;

	size_t nskipped_gone;	/* vanished during the scan */
	size_t nskipped_denied; /* could not read even maps */

	struct exm_file **files; /* all files/kinds, after accounting */
	size_t nfiles;

	/* Totals over scanned processes, after accounting. */
	struct exm_sizes total;
	uint64_t distinct_pages;   /* distinct PFNs mapped */
	uint64_t distinct_swap;	   /* distinct swap entries */
	uint64_t distinct_hugetlb; /* distinct hugetlb frames (not in pages) */

	struct exm_page_store *store;	   /* bulk page words (owned) */
	struct exm_pagecount *pfn_counts;  /* share counts by PFN */
	struct exm_pagecount *swap_counts; /* share counts by swap entry */
	struct exm_pagecount *huge_counts; /* share counts of hugetlb frames */
	bool accounted;
	/* The processes are in increasing pid order, as checked once by
	 * exm_snapshot_note_order (a process added since: not known). */
	bool pid_order;
	/* The charge of every cgroup of the scanned processes, sorted by
	 * path (cgcharge.h); NULL when not read. */
	struct exm_cgcharge *cgroups;
	size_t ncgroups;
	/* exm_snapshot_keep_sizes dropped the page words and share tables:
	 * only the sizes of processes, mappings and files are left. */
	bool sizes_only;
};

/* Allocate an empty snapshot; NULL on ENOMEM. Free with exm_snapshot_free. */
struct exm_snapshot *exm_snapshot_new(void);
void exm_snapshot_free(struct exm_snapshot *snap);

/*
 * Append a zeroed process; the returned pointer is valid until the next
 * exm_snapshot_add_proc() call (the array may move). NULL on ENOMEM.
 */
struct exm_proc *exm_snapshot_add_proc(struct exm_snapshot *snap);
/* Drop the last process added (e.g. it vanished mid-scan). */
void exm_snapshot_drop_last(struct exm_snapshot *snap);

/* Append a zeroed mapping to p; same lifetime rule as add_proc. */
struct exm_mapping *exm_proc_add_mapping(struct exm_proc *p);

/* Room in p for n more mappings than it has, exactly (a process's maps
 * lines counted first: growing by doubling left a third of the room
 * unused, memory touched for nothing). 0 or -ENOMEM. */
int exm_proc_reserve_mappings(struct exm_proc *p, size_t n);

/*
 * Append one page word for virtual page vpn to a mapping, extending the last
 * run when contiguous. Pages must be added in ascending vpn order. 0 or
 * -ENOMEM.
 */
int exm_mapping_add_page(struct exm_mapping *m, uint64_t vpn, uint64_t word);

/* Keep only the processes whose pid is listed (before accounting). */
void exm_snapshot_keep_pids(struct exm_snapshot *snap, const pid_t *pids,
			    size_t npids);

/* Page word k of m (k < m->npages), in the 64-bit layout of pagemap.h. */
static inline uint64_t exm_mapping_word(const struct exm_mapping *m, uint32_t k)
{
	return m->pages32 ? exm_pm_unpack(m->pages32[k]) : m->pages[k];
}

/*
 * Append the n page words of consecutive virtual pages from vpn, after any
 * pages already added (ascending order); words neither present nor swapped
 * are skipped. 0 or -ENOMEM.
 */
int exm_mapping_add_pages(struct exm_mapping *m, uint64_t vpn,
			  const uint64_t *words, uint32_t n);

/*
 * The same for n pages whose words are word, word + step, ... (a run of
 * consecutive frames: step 1; of swap offsets: step 1 << 5), without
 * spelling each word out first.
 */
int exm_mapping_add_run(struct exm_mapping *m, uint64_t vpn, uint64_t word,
			uint64_t step, uint32_t n);

/*
 * The same for n present pages whose words are flags | (frame1[k] - 1)
 * (frame numbers plus one, as source_pagemap.c learns them; none is 0;
 * flags has EXM_PM_PRESENT), packed straight from the frames when they
 * all pack, without spelling each word out first.
 */
int exm_mapping_add_frames(struct exm_mapping *m, uint64_t vpn,
			   const uint32_t *frame1, uint32_t n, uint64_t flags);

/* Forget m's page words (and free what it owns). */
void exm_mapping_clear_pages(struct exm_mapping *m);

/*
 * Identical mappings (fork, shared memory, the same library pages) are
 * found by a key of m's page count, word width and EXM_WORDS_SAMPLES words
 * spread over its array (cheap: most mappings have no twin), then compared
 * whole: whether a's and b's page words are the same.
 */
#define EXM_WORDS_SAMPLES 16
uint64_t exm_mapping_words_key(const struct exm_mapping *m);
bool exm_mapping_same_words(const struct exm_mapping *a,
			    const struct exm_mapping *b);

/*
 * m's words equal o's (exm_mapping_same_words), and o's packed words are
 * in snap's page store: m takes o's array (a fork's, the same shared
 * memory: stored once) and gives its own back, to the store when they
 * were the last it handed out. Nothing may add to m's or o's words after.
 */
void exm_mapping_share_words(struct exm_snapshot *snap, struct exm_mapping *m,
			     const struct exm_mapping *o);

/*
 * Give m room for exactly n more page words from the snapshot's page store
 * (large, huge-page backed blocks: no per-mapping allocation, few page
 * faults). Only for a mapping with no pages yet. 0 or -ENOMEM.
 */
int exm_mapping_reserve_store(struct exm_snapshot *snap, struct exm_mapping *m,
			      uint32_t n);

/*
 * m's runs, n of them, copied into snap's page store (no per-mapping
 * allocation, nothing to free one by one: a live refresh's kept processes,
 * see reuse.c). Only for a mapping with no runs yet; runs added after move
 * them to the heap. 0 or -ENOMEM.
 */
int exm_mapping_store_runs(struct exm_snapshot *snap, struct exm_mapping *m,
			   const struct exm_run *runs, uint32_t n);

/* Give back to the store the room reserved for m (exm_mapping_reserve_store)
 * beyond its words, when it was the last the store handed out; else
 * nothing. */
void exm_mapping_trim_store(struct exm_snapshot *snap, struct exm_mapping *m);

/* Move every process of src (and its page store) to the end of dst,
 * renumbering them; src is left empty. */
void exm_snapshot_append(struct exm_snapshot *dst, struct exm_snapshot *src);

/* Find a process by pid; NULL if absent. A binary search: every source
 * lists processes in pid order; a miss is searched through only where that
 * order is not known (pid_order). */
const struct exm_proc *exm_snapshot_find_pid(const struct exm_snapshot *snap,
					     pid_t pid);
/* Check once whether snap's processes are in pid order (sets pid_order):
 * done when a source's snapshot is built. */
void exm_snapshot_note_order(struct exm_snapshot *snap);

/* The /proc snap was read from, for exm_elfcache_get() and the ELF
 * lookups (NULL: /proc). */
static inline const char *exm_snapshot_proc_root(const struct exm_snapshot *snap)
{
	return snap->sys.proc_root[0] ? snap->sys.proc_root : NULL;
}

/* Release the page arrays of every mapping (after accounting, to save
 * memory when byte-range queries are not needed). */
void exm_snapshot_drop_pages(struct exm_snapshot *snap);

/*
 * Keep only what an accounted snapshot's tables of processes and files
 * are made of (their sizes): drop its page words and its share tables
 * (a holder of a reference to one keeps it). A snapshot kept for the next
 * one's delta columns need not hold them while the next is taken.
 */
void exm_snapshot_keep_sizes(struct exm_snapshot *snap);

/*
 * Keep less still: what the rows of its processes and files are (their
 * identity and sizes), for a batch listing's delta columns, which read no
 * more (exm_rows_set_prev_snap). Its processes' mappings and per-process
 * files go as well (nmaps and npfiles 0): on 2,000 small processes they
 * were two fifths of a refreshing run's peak memory.
 */
void exm_snapshot_keep_rows(struct exm_snapshot *snap);

#endif
