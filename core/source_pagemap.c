// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_pagemap.c - page-level snapshots from /proc/PID/pagemap (root).
 *
 * With the PAGEMAP_SCAN ioctl (Linux 6.7+) the kernel first tells which
 * ranges hold present or swapped pages, and only those ranges are read:
 * untouched address space costs nothing. Older kernels get plain chunked
 * reads of every mapping. Both paths store identical page words.
 *
 * Every word is classified as it is read, from the frame itself: the zero
 * page (its frame is learnt once, from a page of our own: a read fault, or
 * userfaultfd where read faults get pages of their own) and the huge
 * zero page (/proc/kpageflags' KPF_ZERO_PAGE on the first frame of an
 * aligned run) get EXM_PM_ZERO; a mapping whose first present frame is a
 * hugetlb page (KPF_HUGE) is a hugetlb mapping. PAGEMAP_SCAN's categories
 * (PAGE_IS_PFNZERO, PAGE_IS_HUGE) say the same where the ioctl is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include <linux/userfaultfd.h>

#include <pthread.h>
#include <stdatomic.h>
#include <sys/utsname.h>
#include <time.h>

#include "core/hugemem.h"
#include "core/kconfig.h"
#include "core/kpageflags.h"
#include "core/pagemap.h"
#include "core/procfs.h"
#include "core/reuse.h"
#include "core/source_priv.h"

/* From <linux/fs.h> of Linux 6.7+; Debian 12's headers predate it. */
struct exm_page_region {
	uint64_t start, end, categories;
};

struct exm_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask;
	uint64_t return_mask;
};

#define EXM_PAGEMAP_SCAN _IOWR('f', 16, struct exm_pm_scan_arg)
#define EXM_PAGE_IS_PRESENT (1u << 3)
#define EXM_PAGE_IS_SWAPPED (1u << 4)
#define EXM_PAGE_IS_PFNZERO (1u << 5)
#define EXM_PAGE_IS_HUGE (1u << 6)
/* /proc/kpageflags bits (Documentation/admin-guide/mm/pagemap.rst) */
#define KPF_COMPOUND_TAIL (UINT64_C(1) << 16)
#define KPF_HUGE (UINT64_C(1) << 17)
#define KPF_ZERO_PAGE (UINT64_C(1) << 24)
#define KPF_LRU (UINT64_C(1) << 5)
#define NO_PFN UINT64_MAX
/* access_ok() must accept [start, end): one page below TASK_SIZE_MAX. */
#define EXM_SCAN_END UINT64_C(0x7ffffffff000)

#define NREGIONS 1024	  /* regions per PAGEMAP_SCAN call */
#define CHUNK_WORDS 16384 /* 128 KiB per plain read */
/* With PAGEMAP_SCAN (auto mode), a mapping of at most this many pages is
 * read in one go rather than asked about first: reading its words walks
 * its page tables once, asking and then reading walks them twice. Only
 * big mappings (reservations of gigabytes or terabytes, mostly empty) are
 * worth the question. */
#define DIRECT_PAGES 65536 /* 256 MiB of 4 KiB pages: 512 KiB of words */
/* A bigger mapping is read at once too when its process's resident pages
 * are at least half its pages (dense_enough): asking first would walk
 * mostly full page tables twice. It is read in pieces (read_dense), but a
 * shared file's of up to this many pages is read whole into c->big (16 MiB
 * at most), for shared_learn. */
#define DENSE_PAGES ((uint64_t)1 << 21) /* 8 GiB of 4 KiB pages */

enum scan_state { SCAN_UNKNOWN = 0, SCAN_YES, SCAN_NO };

/* The cache of mapping counts (see cache_slot): a frame's count, a block
 * of them, a pointer to a block, written by any worker. */
typedef _Atomic uint16_t count16;
typedef count16 *_Atomic count_block;
typedef count_block *_Atomic count_mid;

/*
 * The frames of a shared file's pages, by page of the file, as one
 * mapping read them this snapshot (auto mode, see shared_learn): every
 * MAP_SHARED mapping of a page cache file maps the file's own page at
 * each offset, so another mapping of the same pages needs only to know
 * which of them it has (PAGEMAP_SCAN, without the frame: a third of the
 * cost of reading its words), not to read them again.
 */
#define SFILE_NEAR 4096 /* bits of struct sfile's summary */

struct sfile {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	uint64_t first, n; /* file pages [first, first + n) */
	uint32_t *pfn;	   /* frame + 1 of each, or 0: read it */
	uint64_t unlearnt; /* how many are 0 */
	/* where the frames learnt lie, to tell when none can be a zero
	 * page's (frames_near): a bit per 2^shift frames from lo */
	uint64_t lo;
	unsigned shift;
	uint64_t near[SFILE_NEAR / 64];
};

#define MAX_SFILES 4096
#define MAX_SFILE_PAGES (UINT64_C(1) << 23) /* 32 MiB of frames in all */

/* Shared by all workers. */
struct pm_priv {
	_Atomic int scan; /* enum scan_state */
	/* with SCAN_NO, the errno that said so (scan_refused) */
	_Atomic int scan_errno;
	_Atomic bool any_scan, any_read;
	_Atomic uint64_t ncounted; /* mappings counted, not read, this scan */
	/* big mappings read whole (every virtual page): they hold pages
	 * shared with another mapping, or counting was not allowed */
	_Atomic uint64_t nwhole;
	int kpf; /* /proc/kpageflags (of the tree read), or -1 */
	int kpc; /* /proc/kpagecount (of the tree read), or -1 */
	/* frames a read of kpc may span (exm_count_gap), measured by the
	 * first worker to read counts (gap_asked) */
	_Atomic unsigned count_gap;
	_Atomic bool gap_asked;
	uint64_t zero_pfn; /* the zero page's frame, or NO_PFN */
	/* the first frame of the huge zero page, as last seen, or NO_PFN */
	_Atomic uint64_t huge_zero;
	uint64_t pmd_pages; /* base pages in a PMD (the huge zero page) */
	uint64_t hsizes[8]; /* hugetlb page sizes, ascending (bytes) */
	unsigned nhsizes;
	/* smaps' private counts are per page (no CONFIG_NO_PAGE_MAPCOUNT):
	 * read mode may count pages rather than read them (count_mapping) */
	bool may_count;
	/* /proc/meminfo's SwapCached is not 0 (or not known) this snapshot:
	 * the swap cache's mapped row, when wanted, needs every frame
	 * (count_once) */
	bool swapcache;
	/* KSM shares pages on this machine this snapshot (exm_ksm_sharing:
	 * 1, 0, -1 not known; 0 for another /proc): a process whose pages
	 * KSM merged may map a KSM page alone, which says mapped once and
	 * must be marked KSM, so none of its pages is counted (proc_merging) */
	int ksm_sharing;
	/* pids of processes sharing their mm with another process (clone
	 * with CLONE_VM but not CLONE_THREAD, vfork, posix_spawn): learnt
	 * once a snapshot, when a mapping is first to be counted (mm_shared) */
	pthread_mutex_t mm_lock;
	bool mm_known;
	pid_t *mm_pids;
	size_t nmm_pids;
	_Atomic uint64_t nlocated; /* of them, shared pages located */
	/* of them, on transparent huge pages, counted from smaps (count_huge) */
	_Atomic uint64_t nhuge;
	/* shared mappings whose frames were known from another's (auto) */
	_Atomic uint64_t nderived;
	/* Where big mappings read whole had pages, by range, kept across
	 * snapshots (locate_shared): at most MAX_SEEN, then forgotten. */
	pthread_mutex_t seen_lock;
	pthread_cond_t seen_done; /* an entry stopped being pending */
	struct seen *seen;
	size_t nseen, cap_seen;
	uint32_t *seen_idx; /* pp->seen by range: SEEN_SLOTS, or NULL */
	uint64_t seen_runs; /* their runs in all, at most MAX_SEEN_ALL */
	/* The mapping counts read in this snapshot, by frame, for every
	 * worker: processes share frames, each is read once (cache_slot). */
	count_mid *cache;
	struct cache_mem *_Atomic cache_mem; /* its levels, to free */
	/* shared files' frames learnt this snapshot (struct sfile) */
	pthread_mutex_t sf_lock;
	struct sfile *sf[MAX_SFILES];
	size_t nsf;
	uint64_t sf_pages;
};

/* Consecutive virtual pages [vpn, vpn + n). */
struct span {
	uint64_t vpn, n;
};

/* The virtual pages mappings of [start, end) read whole had in use. */
struct seen {
	uint64_t start, end;
	struct span *runs; /* ascending, apart */
	size_t n;
	bool pending; /* a worker reads such a mapping whole: wait for it */
};

#define MAX_SEEN 4096
#define SEEN_SLOTS (2 * MAX_SEEN)	 /* open addressing, see seen_find */
#define MAX_SEEN_RUNS (1u << 18)	 /* a mapping's, to keep */
#define MAX_SEEN_ALL (UINT64_C(1) << 21) /* 32 MiB of runs */

/* What smaps says of one mapping, in bytes (see count_mapping and
 * kpss_from_smaps). */
struct vma_counts {
	uint64_t rss, priv, swap, swap_pss;
	uint64_t pss, pss_dirty, priv_clean, priv_dirty, sh_clean, sh_dirty;
	bool known;	/* its VMA had exactly the mapping's range */
	bool has_dirty; /* smaps says Pss_Dirty (Linux 6.0+) */
};

/* The kernel's Pss of one mapping from its page words (pss_sum), with
 * its resident bytes: what smaps says of it, to compare. */
struct map_sum {
	uint64_t pss; /* << PSS_SHIFT */
	uint64_t rss;
	/* the mapping count of its pages mapped more than once, when they
	 * all have the same (else MC_NONE or MC_SEVERAL, see pss_map) */
	uint64_t mc;
};

/* One per worker thread. */
struct pm_ctx {
	struct exm_page_region *regions;
	size_t nregions, cap_regions;
	bool *want; /* per mapping: read it (plain reads, see smaps) */
	struct vma_counts *cnt; /* per mapping: what smaps says */
	size_t cap_want;
	uint64_t *words;  /* plain-read buffer */
	bool asked, read; /* this process: PAGEMAP_SCAN used, direct reads */
	int dirfd;	  /* the process's directory (statm, smaps) */
	/* its resident pages (statm), UINT64_MAX before they are read,
	 * 0 when they cannot be */
	uint64_t resident;
	uint64_t *big; /* words of a dense shared file mapping (big_room) */
	size_t cap_big;
	struct pm_priv *pp;
	const struct exm_mapping *typed; /* mapping whose kind is known */
	uint64_t *counts;		 /* /proc/kpagecount buffer */
	uint64_t *miss;			 /* frames not in the cache, to read */
	size_t cap_miss;
	uint64_t *sort; /* room to sort them */
	size_t cap_sort;
	/* The Pss of mappings already summed, by their words (kpss_twin) */
	struct kpss_twin *twins;
	size_t twin_cap, twin_n;
	/* Mappings whose words are stored, by their words (share_words) */
	struct kpss_twin *wtwins;
	size_t wtwin_cap, wtwin_n;
	uint32_t *twin_of; /* per mapping of the process: its twin, or none */
	uint64_t *twin_key;
	struct map_sum *msum; /* per mapping of the process: its Pss */
	size_t cap_twin_of;
	/* this process's smaps was read (c->cnt), each VMA one of its
	 * mappings exactly: the kernel's figures may come from it */
	bool smaps_whole;
	/* this process's smaps: not read yet (0), read into c->cnt (1), not
	 * readable (-1); see count_huge */
	int smaps_got;
	/* this process shares its mm with another (mm_shared): its pages,
	 * each mapped once, are in both; none is counted (read mode: nor
	 * when it may map KSM pages, proc_merging) */
	bool mm_shared;
	/* the mapping whose pages mapped once are counted as its words are
	 * stored (count_once), or NULL, and its process; this process's
	 * mm_shared known (once_mm_shared) */
	const struct exm_mapping *once;
	pid_t once_pid;
	bool mm_known;
	/* the process being scanned may map KSM pages (proc_merging): -1
	 * not asked yet */
	int merging;
};

static void cache_free(struct pm_priv *pp);
static void share_words(struct pm_ctx *c, struct exm_builder *b,
			const struct exm_proc *p, struct exm_mapping *m);

/* Forget the shared files' frames of the last snapshot. */
static void shared_forget(struct pm_priv *pp)
{
	for (size_t i = 0; i < pp->nsf; i++) {
		free(pp->sf[i]->pfn);
		free(pp->sf[i]);
	}
	pp->nsf = 0;
	pp->sf_pages = 0;
}

static void *pm_ctx_new(struct exm_source *src)
{
	struct pm_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->pp = src->priv;
	c->words = malloc(DIRECT_PAGES * sizeof(*c->words));
	if (!c->words) {
		free(c);
		return NULL;
	}
	return c;
}

static void pm_ctx_free(void *ctx)
{
	struct pm_ctx *c = ctx;

	if (!c)
		return;
	free(c->regions);
	free(c->want);
	free(c->cnt);
	free(c->words);
	free(c->big);
	free(c->counts);
	free(c->miss);
	free(c->sort);
	free(c->twins);
	free(c->wtwins);
	free(c->twin_of);
	free(c->twin_key);
	free(c->msum);
	free(c);
}

int exm_self_pagemap(void)
{
	static _Atomic int kept = -1;
	int fd = kept, none = -1;

	if (fd >= 0)
		return fd;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!atomic_compare_exchange_strong(&kept, &none, fd)) {
		close(fd); /* another thread's was kept first */
		fd = none;
	}
	return fd;
}

bool exm_self_pagemap_word(const volatile void *addr, uint64_t *w)
{
	long ps = sysconf(_SC_PAGESIZE);
	int fd = exm_self_pagemap();

	*w = 0;
	return fd >= 0 && ps > 0 &&
	       pread(fd, w, sizeof(*w),
		     (off_t)((uintptr_t)addr / (uintptr_t)ps * 8)) ==
		       (ssize_t)sizeof(*w);
}

bool exm_pagemap_has_pfns(void)
{
	volatile char probe = 1;
	uint64_t w;

	probe = 2; /* make sure the page is present */
	return exm_self_pagemap_word(&probe, &w) && exm_pm_present(w) &&
	       exm_pm_key(w) != 0;
}

/*
 * Whether an errno of PAGEMAP_SCAN means it cannot be had here at all: a
 * kernel without it (ENOTTY, before 6.7), or a seccomp filter or emulator
 * that does not know it (qemu-user, a container runtime's filter: ENOSYS,
 * EPERM, EACCES, EINVAL, EOPNOTSUPP). Asked on our own pagemap, none of
 * them can be about a process.
 */
static bool scan_refused(int err)
{
	return err == ENOTTY || err == EINVAL || err == EOPNOTSUPP ||
	       err == ENOSYS || err == EPERM || err == EACCES;
}

/* Why PAGEMAP_SCAN cannot be used (err: scan_refused's errno), one line;
 * *plain set when it is only that the kernel predates it. */
static void scan_why(char *buf, size_t len, int err, bool *plain)
{
	struct utsname u;
	unsigned major = 0, minor = 0;
	bool old = err == ENOTTY && !uname(&u) &&
		   sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
		   (major < 6 || (major == 6 && minor < 7));

	if (old)
		snprintf(buf, len,
			 "this kernel has no PAGEMAP_SCAN ioctl (Linux 6.7+)");
	else
		snprintf(buf, len,
			 "the PAGEMAP_SCAN ioctl is refused here (%s)",
			 strerror(err));
	if (plain)
		*plain = old;
}

/* Whether this kernel has PAGEMAP_SCAN, asked on one page of our own
 * (*err: the errno of SCAN_NO). */
static int probe_scan(int *err)
{
	volatile char probe = 1;
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t page = (uint64_t)(uintptr_t)&probe & ~(uint64_t)(ps - 1);
	struct exm_page_region r;
	struct exm_pm_scan_arg arg;
	int fd = exm_self_pagemap();
	long n;

	if (fd < 0)
		return SCAN_UNKNOWN;
	memset(&arg, 0, sizeof(arg));
	memset(&r, 0, sizeof(r));
	arg.size = sizeof(arg);
	arg.start = page;
	arg.end = page + (uint64_t)ps;
	arg.vec = (uint64_t)(uintptr_t)&r;
	arg.vec_len = 1;
	arg.category_anyof_mask = EXM_PAGE_IS_PRESENT | EXM_PAGE_IS_SWAPPED;
	arg.return_mask = EXM_PAGE_IS_PRESENT | EXM_PAGE_IS_SWAPPED;
	n = ioctl(fd, EXM_PAGEMAP_SCAN, &arg);
	if (n >= 0)
		return SCAN_YES;
	*err = errno;
	return scan_refused(errno) ? SCAN_NO : SCAN_UNKNOWN;
}

/* The flags of frame pfn in /proc/kpageflags; 0 when unknown. */
static uint64_t kpf_of(const struct pm_priv *pp, uint64_t pfn)
{
	uint64_t f = 0;

	if (pp->kpf < 0 || pfn > EXM_PM_PFN_MASK ||
	    pread(pp->kpf, &f, sizeof(f), (off_t)(pfn * 8)) != sizeof(f))
		return 0;
	return f;
}

/*
 * The zero page's frame, as pagemap gives it for one page of our own that
 * maps it: never mapped once (the zero page has no mapping count, so no
 * exclusive bit) and, where kpageflags can be read, KPF_ZERO_PAGE.
 */
static uint64_t zero_word_pfn(const struct pm_priv *pp, void *page)
{
	uint64_t w;

	if (!exm_self_pagemap_word(page, &w) || !exm_pm_present(w) ||
	    !exm_pm_key(w) || (w & EXM_PM_EXCLUSIVE))
		return NO_PFN;
	if (pp->kpf >= 0 && !(kpf_of(pp, exm_pm_key(w)) & KPF_ZERO_PAGE))
		return NO_PFN;
	return exm_pm_key(w);
}

/*
 * A kernel may fill a read fault with a page of its own rather than the
 * zero page (booted with pvm_no_zero_page, s390 guests), and still map the
 * zero page elsewhere: UFFDIO_ZEROPAGE, KSM's use_zero_pages. Ask
 * userfaultfd to map it at a page of ours (user-mode-only faults, which
 * need no privilege, else plain). NO_PFN when that fails too.
 */
static uint64_t uffd_zero_pfn(const struct pm_priv *pp, void *page, long ps)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)page, .len = (uint64_t)ps },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	struct uffdio_zeropage z = {
		.range = { .start = (uintptr_t)page, .len = (uint64_t)ps },
	};
	uint64_t pfn = NO_PFN;
	long fd = -1;

#ifdef UFFD_USER_MODE_ONLY
	fd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
#endif
	if (fd < 0)
		fd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (fd < 0)
		return NO_PFN;
	if (!ioctl((int)fd, UFFDIO_API, &api) &&
	    !ioctl((int)fd, UFFDIO_REGISTER, &reg) &&
	    !ioctl((int)fd, UFFDIO_ZEROPAGE, &z))
		pfn = zero_word_pfn(pp, page);
	close((int)fd);
	return pfn;
}

/*
 * The zero page's frame (one frame for the system's life on x86-64): a
 * read-only private page of our own, read, maps it; where the kernel gave
 * a page of its own instead, userfaultfd asked to map it. NO_PFN when it
 * cannot be learnt.
 */
static uint64_t learn_zero_pfn(const struct pm_priv *pp)
{
	long ps = sysconf(_SC_PAGESIZE);
	void *map = mmap(NULL, (size_t)ps, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *spare;
	uint64_t pfn;

	if (map == MAP_FAILED)
		return NO_PFN;
	(void)*(volatile const char *)map; /* a read fault: the zero page */
	pfn = zero_word_pfn(pp, map);
	munmap(map, (size_t)ps);
	if (pfn != NO_PFN)
		return pfn;
	spare = mmap(NULL, (size_t)ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (spare == MAP_FAILED)
		return NO_PFN;
	pfn = uffd_zero_pfn(pp, spare, ps);
	munmap(spare, (size_t)ps);
	return pfn;
}

static int cmp_size(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The sizes of huge pages the kernel offers, and of a PMD mapping. */
static void learn_sizes(struct pm_priv *pp, unsigned ps)
{
	DIR *d = opendir("/sys/kernel/mm/hugepages");
	struct dirent *e;
	unsigned long long v;
	char buf[32];
	int fd;

	pp->pmd_pages = (UINT64_C(2) << 20) / ps;
	fd = open("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
		  O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		if (n > 0) {
			buf[n] = '\0';
			v = strtoull(buf, NULL, 10);
			if (v >= ps && !(v & (v - 1)))
				pp->pmd_pages = v / ps;
		}
		close(fd);
	}
	while (d && (e = readdir(d)) && pp->nhsizes < 8)
		if (sscanf(e->d_name, "hugepages-%llukB", &v) == 1 && v &&
		    v * 1024 > ps && !(v & (v - 1)))
			pp->hsizes[pp->nhsizes++] = (uint64_t)v * 1024;
	if (d)
		closedir(d);
	if (!pp->nhsizes)
		pp->hsizes[pp->nhsizes++] = UINT64_C(2) << 20;
	qsort(pp->hsizes, pp->nhsizes, sizeof(*pp->hsizes), cmp_size);
}

static int pm_open(struct exm_source *src)
{
	struct pm_priv *pp;
	char path[300];
	struct stat st;

	/* "pagemap:DIR" reads a /proc-like tree at DIR (tests, recorded
	 * trees): no privilege is involved in reading plain files. */
	if (src->arg && *src->arg &&
	    (stat(src->arg, &st) || !S_ISDIR(st.st_mode))) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "pagemap:%.200s: not a directory", src->arg);
		return -EINVAL;
	}
	if (!(src->arg && *src->arg) && !exm_pagemap_has_pfns()) {
		snprintf(src->errmsg, sizeof(src->errmsg),
			 "pagemap source needs root (CAP_SYS_ADMIN) to read "
			 "page frame numbers; use --source smaps");
		return -EPERM;
	}
	pp = calloc(1, sizeof(*pp));
	if (!pp)
		return -ENOMEM;
	src->priv = pp;
	snprintf(path, sizeof(path), "%s/kpageflags",
		 src->arg && *src->arg ? src->arg : "/proc");
	pp->kpf = open(path, O_RDONLY | O_CLOEXEC);
	pp->kpc = -1; /* opened by the first scan that wants it */
	pp->count_gap = EXM_GAP_DEFAULT;
	pthread_mutex_init(&pp->seen_lock, NULL);
	pthread_mutex_init(&pp->mm_lock, NULL);
	pthread_cond_init(&pp->seen_done, NULL);
	pthread_mutex_init(&pp->sf_lock, NULL);
	pp->zero_pfn = NO_PFN;
	pp->huge_zero = NO_PFN;
	learn_sizes(pp, (unsigned)sysconf(_SC_PAGESIZE));
	if (!(src->arg && *src->arg)) {
		struct utsname u;
		int err = 0;

		pp->scan = probe_scan(&err);
		pp->scan_errno = pp->scan == SCAN_NO ? err : 0;
		pp->zero_pfn = learn_zero_pfn(pp);
		if (!uname(&u))
			pp->may_count = exm_running_mapcount(u.release,
							     "/proc") ==
					EXM_MAPCOUNT_EXACT;
	}
	return 0;
}

static void pm_close(struct exm_source *src)
{
	struct pm_priv *pp = src->priv;

	if (pp && pp->kpf >= 0)
		close(pp->kpf);
	if (pp && pp->kpc >= 0)
		close(pp->kpc);
	if (pp) {
		for (size_t i = 0; i < pp->nseen; i++)
			free(pp->seen[i].runs);
		free(pp->seen);
		free(pp->seen_idx);
		pthread_mutex_destroy(&pp->seen_lock);
		pthread_mutex_destroy(&pp->mm_lock);
		free(pp->mm_pids);
		pthread_cond_destroy(&pp->seen_done);
		shared_forget(pp);
		cache_free(pp);
		pthread_mutex_destroy(&pp->sf_lock);
	}
	free(pp);
}

/*
 * A mapping's kind, from its first present frame: a hugetlb page (and how
 * big) or not. Only a file-backed mapping aligned to a huge page size can
 * be one (hugetlbfs, MAP_HUGETLB and MFD_HUGETLB are all files).
 */
static void type_mapping(struct pm_ctx *c, struct exm_mapping *m,
			 const uint64_t *w, size_t n, unsigned ps)
{
	const struct pm_priv *pp = c->pp;
	uint64_t pfn, f, size = 0;
	size_t k = 0;

	if (c->typed == m)
		return;
	if (pp->kpf < 0 || !m->inode || m->start % pp->hsizes[0] ||
	    m->end % pp->hsizes[0]) {
		c->typed = m;
		return;
	}
	while (k < n && !exm_pm_present(w[k]))
		k++;
	if (k == n)
		return; /* not known yet */
	c->typed = m;
	pfn = exm_pm_key(w[k]);
	f = kpf_of(pp, pfn);
	if (!(f & KPF_HUGE))
		return;
	/* the smallest size whose next frame is not a tail of this page */
	for (unsigned i = 0; i < pp->nhsizes && !size; i++)
		if (!(m->start % pp->hsizes[i]) &&
		    !(kpf_of(pp, pfn + pp->hsizes[i] / ps) & KPF_COMPOUND_TAIL))
			size = pp->hsizes[i];
	exm_mapping_set_hugetlb(m, (uint32_t)(size ? size : pp->hsizes[0]));
}

/*
 * Mark the zero-page words of w[0..n) (pages vpn on, of m): the zero
 * page's frame, and the frames of the huge zero page, which is only ever
 * mapped whole by one PMD, so found by its first frame at an aligned
 * address (one kpageflags read for a candidate not already known).
 *
 * This runs on every word read: between two PMD-aligned pages a word is
 * only compared with the frames known (present bit and frame masked
 * together, so a hole or swap word never matches); the search for a new
 * huge zero page is made at the aligned ones alone.
 */
static void mark_zero(struct pm_ctx *c, const struct exm_mapping *m,
		      uint64_t vpn, uint64_t *w, size_t n)
{
	const uint64_t pm = EXM_PM_PRESENT | EXM_PM_PFN_MASK;
	struct pm_priv *pp = c->pp;
	uint64_t hz = pp->huge_zero, hn = pp->pmd_pages;
	/* no frame matches UINT64_MAX (bits 55-62 are masked off) */
	uint64_t zp = pp->zero_pfn == NO_PFN ? UINT64_MAX
					     : EXM_PM_PRESENT | pp->zero_pfn;
	uint64_t hzp = EXM_PM_PRESENT | hz, hspan = hz == NO_PFN ? 0 : hn;
	bool may_huge = !(m->perms & EXM_PERM_S) && !m->hugetlb && pp->kpf >= 0;
	/* the next PMD-aligned word (n: none to look at) */
	size_t k = 0, next = may_huge ? (size_t)((hn - vpn % hn) % hn) : n;

	for (;;) {
		size_t stop = next < n ? next : n;
		uint64_t x, pfn;

		for (; k + 8 <= stop; k += 8)
#pragma GCC unroll 8
			for (unsigned j = 0; j < 8; j++) {
				uint64_t t = w[k + j] & pm;

				if (t == zp || t - hzp < hspan)
					w[k + j] |= EXM_PM_ZERO;
			}
		for (; k < stop; k++) {
			uint64_t t = w[k] & pm;

			if (t == zp || t - hzp < hspan)
				w[k] |= EXM_PM_ZERO;
		}
		if (k >= n)
			return;
		x = w[k];
		pfn = exm_pm_key(x);
		next += hn;
		if (!exm_pm_present(x)) {
			k++;
			continue;
		}
		if ((x & pm) == zp || (x & pm) - hzp < hspan) {
			w[k++] = x | EXM_PM_ZERO;
			continue;
		}
		if (!(pfn % hn) && !(x & EXM_PM_EXCLUSIVE) &&
		    (k + 1 == n || exm_pm_key(w[k + 1]) == pfn + 1) &&
		    (kpf_of(pp, pfn) & KPF_ZERO_PAGE)) {
			hz = pfn;
			hzp = EXM_PM_PRESENT | hz;
			hspan = hn;
			pp->huge_zero = pfn;
			w[k] = x | EXM_PM_ZERO;
		}
		k++;
	}
}

static bool mm_shared(struct pm_priv *pp, pid_t pid);

/* Whether the process being scanned shares its mm with another
 * (mm_shared), asked once a process, at its first page to count. */
static bool once_mm_shared(struct pm_ctx *c)
{
	if (!c->mm_known) {
		c->mm_shared = mm_shared(c->pp, c->once_pid);
		c->mm_known = true;
	}
	return c->mm_shared;
}

/* Whether the process being scanned (c->once_pid) may map KSM pages
 * (pp->ksm_sharing and exm_ksm_merging): none of its pages is counted.
 * Asked once a process, when a mapping is first to be counted. */
static bool proc_merging(struct pm_ctx *c)
{
	if (c->merging < 0)
		c->merging = c->pp->ksm_sharing &&
			     exm_ksm_merging(NULL, c->once_pid);
	return c->merging;
}

/* A word count_once counts: a present page mapped once, not the zero
 * page. */
static inline bool once_word(uint64_t w)
{
	return (w & (EXM_PM_PRESENT | EXM_PM_EXCLUSIVE | EXM_PM_ZERO)) ==
	       (EXM_PM_PRESENT | EXM_PM_EXCLUSIVE);
}

/* Whether count_once's mapping counts pages of w[0..n): some to count,
 * and its process shares its mm with no other, asked (kcmp, once a
 * snapshot) only then; if it does, none of its pages is counted. */
static bool once_may(struct pm_ctx *c, const uint64_t *w, size_t n)
{
	size_t k = 0;

	while (k < n && !once_word(w[k]))
		k++;
	if (k == n)
		return false;
	if (once_mm_shared(c))
		c->once = NULL;
	return !c->mm_shared;
}

/* Most base pages a PMD maps that pmd_exclusive checks (x86-64: 512) */
#define PMD_PAGES_MAX 512

/*
 * pagemap's exclusive bit for the pages of a huge page a PMD maps is the
 * huge page's first page's, written on all of them (Linux 6.1 to 6.18 at
 * least, and the module does as pagemap, see exmap_pmd_excl): after a
 * fork, a child that wrote the first page of a transparent huge page and
 * not the rest maps the rest by PTEs, and the parent's words still say
 * every page of it is mapped once. Trusted, that would count such a page
 * as the parent's alone (count_once, the kernel's Pss from counts) while
 * the child maps the same frame. So in w[0..n) (words of pages from vpn),
 * wherever pmd_pages words from a PMD boundary are one present page
 * after the other from a frame on such a boundary, flags alike and the
 * first said mapped once, the mapping counts of those frames are read
 * (/proc/kpagecount: each page's own) and the bit is cleared where one is
 * not 1. An 8 GiB heap of its own so costs one read of 4 KiB a huge page.
 */
static void pmd_exclusive(const struct pm_ctx *c, uint64_t vpn, uint64_t *w,
			  size_t n)
{
	const uint64_t want = EXM_PM_PRESENT | EXM_PM_EXCLUSIVE;
	uint64_t pn = c->pp->pmd_pages, counts[PMD_PAGES_MAX];

	if (c->pp->kpc < 0 || pn < 2 || pn > PMD_PAGES_MAX)
		return;
	for (size_t k = (size_t)((pn - vpn % pn) % pn); k + pn <= n;
	     k += (size_t)pn) {
		uint64_t h = w[k], i = 1;
		ssize_t got;

		if ((h & (want | EXM_PM_SWAPPED)) != want ||
		    (h & EXM_PM_PFN_MASK) % pn)
			continue;
		while (i < pn && w[k + i] == h + i)
			i++;
		if (i < pn)
			continue;
		do
			got = pread(c->pp->kpc, counts, pn * sizeof(*counts),
				    (off_t)((h & EXM_PM_PFN_MASK) *
					    sizeof(*counts)));
		while (got < 0 && errno == EINTR);
		for (i = 0; i < pn; i++)
			if (got != (ssize_t)(pn * sizeof(*counts)) ||
			    counts[i] != 1)
				w[k + i] &= ~EXM_PM_EXCLUSIVE;
	}
}

/* Classify the words of pages [vpn, vpn + n) of m (or_bits ORed into the
 * present ones) and store them. */
static int store_words(struct pm_ctx *c, struct exm_builder *b,
		       struct exm_mapping *m, uint64_t vpn, uint64_t *w,
		       size_t n, uint64_t or_bits)
{
	if (or_bits)
		for (size_t k = 0; k < n; k++)
			if (exm_pm_present(w[k]))
				w[k] |= or_bits;
	pmd_exclusive(c, vpn, w, n);
	type_mapping(c, m, w, n, b->snap->sys.page_size);
	mark_zero(c, m, vpn, w, n);
	if (m == c->once && once_may(c, w, n)) {
		uint64_t once = 0;

		/* pages mapped once: counted, not stored (count_once) */
		for (size_t k = 0; k < n; k++)
			if (once_word(w[k])) {
				w[k] = 0;
				once++;
			}
		if (once) {
			m->counted = true;
			m->counted_rss += once * b->snap->sys.page_size;
		}
	}
	return exm_build_pages(b, m, vpn, w, (uint32_t)n);
}

/* At most n words from vpn, ending at a multiple of CHUNK_WORDS (so a
 * PMD's words are read together) unless the range ends first. */
static size_t chunk_len(uint64_t vpn, uint64_t n)
{
	uint64_t k = CHUNK_WORDS - vpn % CHUNK_WORDS;

	return (size_t)(n < k ? n : k);
}

/* pread that maps errors to -errno and tolerates short reads at the end;
 * entries that are no swap slot read as holes (exm_pm_nonswap). */
static ssize_t read_words(int fd, uint64_t *buf, uint64_t vpn, size_t n)
{
	ssize_t r;

	do {
		r = pread(fd, buf, n * 8, (off_t)(vpn * 8));
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	for (ssize_t i = 0; i < r / 8; i++)
		if (exm_pm_nonswap(buf[i]))
			buf[i] = 0;
	return r / 8;
}

/* The first used word of w[k..n), or n. A sparse mapping's words are
 * mostly holes: thirty-two, then eight, are tested at once (under
 * emulation, as in QEMU, every instruction of this loop counts; plain
 * 64-bit ORs, which emulators translate cheaply, unlike vector ones). */
static ssize_t next_used(const uint64_t *w, ssize_t k, ssize_t n)
{
	const uint64_t used = EXM_PM_PRESENT | EXM_PM_SWAPPED;

	while (k + 32 <= n) {
		uint64_t any = 0;

#pragma GCC unroll 32
		for (unsigned j = 0; j < 32; j++)
			any |= w[k + j];
		if (any & used)
			break;
		k += 32;
	}
	while (k + 8 <= n && !((w[k] | w[k + 1] | w[k + 2] | w[k + 3] |
				w[k + 4] | w[k + 5] | w[k + 6] | w[k + 7]) &
			       used))
		k += 8;
	while (k < n && !exm_pm_used(w[k]))
		k++;
	return k;
}

/*
 * Read words for virtual pages [v0, v1) and store the used ones in the
 * mappings of p, starting the search at *mi (mappings are sorted). Runs
 * of used words are appended in bulk.
 */
static int read_range(struct pm_ctx *c, struct exm_builder *b, int fd,
		      struct exm_proc *p, size_t *mi, unsigned ps, uint64_t v0,
		      uint64_t v1)
{
	while (v0 < v1) {
		size_t n = chunk_len(v0, v1 - v0);
		ssize_t got = read_words(fd, c->words, v0, n);
		ssize_t k = 0;

		if (got < 0)
			return (int)got;
		if (got == 0)
			return 0; /* past the end of the address space */
		while (k < got) {
			uint64_t va = (v0 + (uint64_t)k) * ps, mend;
			struct exm_mapping *m;
			ssize_t j;
			int ret;

			if (!exm_pm_used(c->words[k])) {
				k = next_used(c->words, k + 1, got);
				continue;
			}
			while (*mi < p->nmaps && p->maps[*mi].end <= va)
				(*mi)++;
			if (*mi >= p->nmaps)
				return 0;
			m = &p->maps[*mi];
			if (va < m->start || m->kind == EXM_KIND_VSYSCALL) {
				k++; /* mapping changed since maps was read */
				continue;
			}
			/* The run of used words inside this mapping. */
			mend = m->end / ps - v0;
			for (j = k; j < got && (uint64_t)j < mend &&
				    exm_pm_used(c->words[j]);
			     j++)
				;
			ret = store_words(c, b, m, v0 + (uint64_t)k,
					  c->words + k, (size_t)(j - k), 0);
			if (ret)
				return ret;
			k = j;
		}
		v0 += (uint64_t)got;
	}
	return 0;
}

/*
 * Ask the kernel which ranges of [start, end) hold present or swapped
 * pages: c->regions, ascending, none overlapping. 1 when the kernel has no
 * PAGEMAP_SCAN, 0, -errno.
 *
 * The kernel walks in batches of its own (512 regions on 6.18) and
 * returns up to the number of regions asked for; walk_end is where the
 * walk stopped only when that number was reached: after a batch it
 * keeps the batch's end even when the walk went on to the end of the
 * range. So a call that returns fewer regions than asked has covered the
 * whole range, and a call that fills them all goes on from the end of the
 * last one returned (what lies between it and walk_end holds no page).
 */
static int scan_regions(struct pm_ctx *c, int fd, uint64_t start, uint64_t end)
{
	struct exm_pm_scan_arg arg;

	c->nregions = 0;
	while (start < end) {
		struct exm_page_region *got;
		uint64_t last;
		long n;

		if (c->cap_regions - c->nregions < NREGIONS) {
			size_t cap = c->cap_regions * 2 + NREGIONS;
			struct exm_page_region *r = realloc(c->regions,
							    cap * sizeof(*r));

			if (!r)
				return -ENOMEM;
			/* zeroed once: tools like valgrind cannot know the
			 * ioctl fills it (zeroing each call cost more than
			 * the rest of the scan) */
			memset(r + c->cap_regions, 0,
			       (cap - c->cap_regions) * sizeof(*r));
			c->regions = r;
			c->cap_regions = cap;
		}
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.start = start;
		arg.end = end;
		arg.vec = (uint64_t)(uintptr_t)(c->regions + c->nregions);
		arg.vec_len = NREGIONS;
		arg.category_anyof_mask = EXM_PAGE_IS_PRESENT |
					  EXM_PAGE_IS_SWAPPED;
		arg.return_mask = EXM_PAGE_IS_PRESENT | EXM_PAGE_IS_SWAPPED |
				  EXM_PAGE_IS_PFNZERO | EXM_PAGE_IS_HUGE;
		n = ioctl(fd, EXM_PAGEMAP_SCAN, &arg);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* EPERM, EACCES: this process may be another's now
			 * (a setuid): it is one process's, -errno */
			if (scan_refused(errno) && errno != EPERM &&
			    errno != EACCES) {
				c->pp->scan_errno = errno;
				return 1;
			}
			return -errno;
		}
		if (n > NREGIONS)
			return -EIO;
		got = c->regions + c->nregions;
		last = n ? got[n - 1].end : end;
		/* keep what lies past the regions kept (never a page twice) */
		for (long i = 0; i < n; i++) {
			struct exm_page_region r = got[i];
			uint64_t floor =
				c->nregions ? c->regions[c->nregions - 1].end
					    : start;

			if (r.start < floor)
				r.start = floor;
			if (r.end > end)
				r.end = end;
			if (r.start < r.end)
				c->regions[c->nregions++] = r;
		}
		if (n < NREGIONS || last <= start)
			break; /* the range is covered (or no progress) */
		start = last;
	}
	return 0;
}

/* Read the words of pages [vpn, vpn + n) of m into its reserved room
 * (or_bits ORed into the present ones). */
static int read_piece(struct pm_ctx *c, struct exm_builder *b,
		      struct exm_mapping *m, uint64_t vpn, uint64_t n, int fd,
		      uint64_t or_bits)
{
	while (n) {
		size_t want = chunk_len(vpn, n);
		ssize_t got = read_words(fd, c->words, vpn, want);
		int ret;

		if (got <= 0)
			return (int)got;
		/* packed into the room reserved for this mapping */
		ret = store_words(c, b, m, vpn, c->words, (size_t)got, or_bits);
		if (ret)
			return ret;
		vpn += (uint64_t)got;
		n -= (uint64_t)got;
	}
	return 0;
}

/* Keep the used ones of the got words w[] read of m's first pages. */
static int keep_direct(struct pm_ctx *c, struct exm_builder *b,
		       struct exm_mapping *m, unsigned ps, uint64_t *w,
		       size_t got)
{
	uint32_t used = 0;
	int ret;

#pragma GCC unroll 8
	for (size_t k = 0; k < got; k++)
		used += exm_pm_used(w[k]);
	ret = exm_build_reserve(b, m, used);
	if (!ret)
		ret = store_words(c, b, m, m->start / ps, w, got, 0);
	return ret;
}

/* A small mapping (or a dense one): read all its words at once into w
 * (room for them all), keep the used ones; *nread: how many were read. */
static int read_direct(struct pm_ctx *c, struct exm_builder *b, int fd,
		       struct exm_mapping *m, unsigned ps, uint64_t *w,
		       size_t *nread)
{
	uint64_t vpn = m->start / ps, n = (m->end - m->start) / ps;
	ssize_t got = read_words(fd, w, vpn, (size_t)n);

	*nread = got > 0 ? (size_t)got : 0;
	if (got <= 0)
		return (int)got;
	return keep_direct(c, b, m, ps, w, (size_t)got);
}

/* Mappings read together (read_group, read_process) are at most this
 * many pages apart: a read costs the kernel as much as some hundreds of
 * hole words (here 1.4 us a read, 2,000 small processes' reads of 24
 * mappings each: 0.113 s one read a mapping, 0.055 s together). */
#define GROUP_GAP 16

/* Whether m is read with the mapping before it, prev (both read the same
 * way), in one read from first: at most GROUP_GAP pages apart, at most
 * DIRECT_PAGES from first. */
static bool groups_with(const struct exm_mapping *prev,
			const struct exm_mapping *m, uint64_t first,
			unsigned ps)
{
	return m->start >= prev->end &&
	       (m->start - prev->end) / ps <= GROUP_GAP &&
	       (m->end - first) / ps <= DIRECT_PAGES;
}

/*
 * Small mappings p->maps[k..j) (one or more, see scan_process), no
 * more than GROUP_GAP pages apart and DIRECT_PAGES in all: their words
 * read by one call into c->words (the holes between them too) and each
 * one's kept as read_direct keeps them. A process of a few dozen small
 * mappings (libraries' segments one beside the other) costs a few reads,
 * not one a mapping. 0 or -errno.
 */
static int read_group(struct pm_ctx *c, struct exm_builder *b, int fd,
		      struct exm_proc *p, size_t k, size_t j, unsigned ps)
{
	uint64_t first = p->maps[k].start / ps;
	ssize_t got = read_words(fd, c->words, first,
				 (size_t)(p->maps[j - 1].end / ps - first));

	if (got < 0)
		return (int)got;
	c->read = true;
	for (size_t i = k; i < j; i++) {
		struct exm_mapping *m = &p->maps[i];
		uint64_t at = m->start / ps - first,
			 n = (m->end - m->start) / ps;
		int ret = 0;

		if (at < (uint64_t)got)
			ret = keep_direct(c, b, m, ps, c->words + at,
					  (size_t)((uint64_t)got - at < n
							   ? (uint64_t)got - at
							   : n));
		if (ret)
			return ret;
		share_words(c, b, p, m);
	}
	return 0;
}

/*
 * Whether big mapping p->maps[k] is worth reading at once rather than
 * asking PAGEMAP_SCAN where its pages are: its process's resident pages
 * (statm, read once a process) not found in its mappings before it are at
 * least half its pages (so an empty reservation beside a full mapping
 * read before it is asked about). Only the cost differs: both paths store
 * the same words.
 */
static bool dense_enough(struct pm_ctx *c, const struct exm_proc *p, size_t k,
			 unsigned ps)
{
	const struct exm_mapping *m = &p->maps[k];
	uint64_t n = (m->end - m->start) / ps, found = 0;

	if (c->resident == UINT64_MAX) {
		struct exm_statm st;

		c->resident = exm_read_statm(c->dirfd, "statm", &st)
				      ? 0
				      : st.resident;
	}
	for (size_t i = 0; i < k; i++)
		found += p->maps[i].npages;
	return found < c->resident && n <= 2 * (c->resident - found);
}

/* Room in c->big for all the words of dense shared mapping m (shared_learn
 * needs them whole), or NULL: none, or more than DENSE_PAGES. */
static uint64_t *big_room(struct pm_ctx *c, const struct exm_mapping *m,
			  unsigned ps)
{
	uint64_t n = (m->end - m->start) / ps;

	if (n > DENSE_PAGES)
		return NULL;
	if (c->cap_big < n) {
		uint64_t *t = realloc(c->big, n * sizeof(*t));

		if (!t)
			return NULL;
		c->big = t;
		c->cap_big = n;
		/* all of it is read into: faulted in at once */
		exm_populate(t, n * sizeof(*t));
	}
	return c->big;
}

/*
 * Dense big mapping m, not a shared file's: read in pieces into c->words
 * (no buffer of all its words: 8 bytes a page, written once), kept in
 * room reserved for as many words as its process has resident pages at
 * most; what they did not use is given back.
 */
static int read_dense(struct pm_ctx *c, struct exm_builder *b, int fd,
		      struct exm_mapping *m, unsigned ps)
{
	uint64_t n = (m->end - m->start) / ps,
		 room = c->resident < n ? c->resident : n;
	int ret = exm_build_reserve(b, m,
				    (uint32_t)(room < UINT32_MAX ? room
								 : UINT32_MAX));

	if (!ret)
		ret = read_piece(c, b, m, m->start / ps, n, fd, 0);
	exm_build_trim(b, m);
	return ret;
}

/* A big mapping: ask PAGEMAP_SCAN where its pages are, read only those. */
static int scan_mapping(struct pm_ctx *c, struct exm_builder *b, int fd,
			struct exm_mapping *m, unsigned ps)
{
	uint64_t end = m->end < EXM_SCAN_END ? m->end : EXM_SCAN_END;
	uint64_t count = 0, done = m->start;
	int ret;

	if (m->start >= end)
		return 0;
	ret = scan_regions(c, fd, m->start, end);
	if (ret)
		return ret;
	/* Each page once, in order: a region may begin before the end of
	 * the one before it (seen while the process's pages change: a page
	 * given twice across two calls), so each starts where the last
	 * ended at the earliest. */
	for (size_t r = 0; r < c->nregions; r++) {
		uint64_t s = c->regions[r].start > done ? c->regions[r].start
							: done;
		uint64_t e = c->regions[r].end < end ? c->regions[r].end : end;

		if (s < e) {
			count += (e - s) / ps;
			done = e;
		}
	}
	ret = exm_build_reserve(b, m,
				count > UINT32_MAX ? UINT32_MAX
						   : (uint32_t)count);
	done = m->start;
	for (size_t r = 0; !ret && r < c->nregions; r++) {
		uint64_t s = c->regions[r].start > done ? c->regions[r].start
							: done;
		uint64_t e = c->regions[r].end < end ? c->regions[r].end : end;

		if (s < e) {
			ret = read_piece(c, b, m, s / ps, (e - s) / ps, fd,
					 c->regions[r].categories &
							 EXM_PAGE_IS_PFNZERO
						 ? EXM_PM_ZERO
						 : 0);
			done = e;
		}
	}
	return ret;
}

/*
 * Whether m's pages are its file's page cache pages, the same frame at
 * each offset in every MAP_SHARED mapping of the file: shared memory or a
 * regular file, never a device's or an anonymous inode's (perf's and
 * io_uring's rings share one inode, each at offset 0), nor hugetlb. The
 * frames' flags confirm it when they are learnt (shared_learn). Only where
 * the kernel keeps per-page mapping counts (pm_priv's may_count): with
 * CONFIG_NO_PAGE_MAPCOUNT a large folio's page read may say exclusive
 * what another mapping maps too.
 */
static bool shared_file(const struct exm_mapping *m)
{
	if (!(m->perms & EXM_PERM_S) || !m->inode || m->hugetlb)
		return false;
	if (m->kind == EXM_KIND_SHMEM)
		return strncmp(m->name, "/anon_hugepage", 14) &&
		       strncmp(m->name, "/dev/hugepages/", 15);
	return m->kind == EXM_KIND_FILE;
}

/* The frames learnt of file pages [first, first + n) of m's file, or
 * NULL. Entries are never changed nor freed while a snapshot is read. */
static const struct sfile *shared_find(struct pm_priv *pp,
				       const struct exm_mapping *m,
				       uint64_t first, uint64_t n)
{
	const struct sfile *found = NULL;

	pthread_mutex_lock(&pp->sf_lock);
	for (size_t i = 0; i < pp->nsf && !found; i++) {
		const struct sfile *e = pp->sf[i];

		if (e->inode == m->inode && e->dev_major == m->dev_major &&
		    e->dev_minor == m->dev_minor && first >= e->first &&
		    first + n <= e->first + e->n)
			found = e;
	}
	pthread_mutex_unlock(&pp->sf_lock);
	return found;
}

/*
 * After shared mapping m's words w[0..n) were read whole (read_direct):
 * keep the frames of its pages that some other mapping maps too (present,
 * file, not exclusive), for the next mappings of the same pages
 * (shared_derive). Only when one is shared, its first frame is on an LRU
 * list (a page cache page, not a driver's), and within MAX_SFILE_PAGES.
 */
static void shared_learn(struct pm_ctx *c, const struct exm_mapping *m,
			 const uint64_t *w, size_t n, unsigned ps)
{
	const uint64_t odd = EXM_PM_EXCLUSIVE | EXM_PM_ZERO | EXM_PM_KSM;
	struct pm_priv *pp = c->pp;
	uint64_t first = m->offset / ps, lo = UINT64_MAX, hi = 0;
	size_t k = 0, kept = 0;
	struct sfile *e;

	while (k < n && !(exm_pm_present(w[k]) && !(w[k] & odd)))
		k++;
	if (k == n || pp->kpf < 0 || pp->nsf >= MAX_SFILES ||
	    shared_find(pp, m, first, n) ||
	    !(kpf_of(pp, exm_pm_key(w[k])) & KPF_LRU))
		return;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->pfn = calloc(n, sizeof(*e->pfn)))) {
		free(e);
		return;
	}
	for (; k < n; k++) {
		uint64_t pfn = exm_pm_key(w[k]);

		if (exm_pm_present(w[k]) && (w[k] & EXM_PM_FILE) &&
		    !(w[k] & odd) && pfn < UINT32_MAX) {
			e->pfn[k] = (uint32_t)(pfn + 1);
			lo = pfn < lo ? pfn : lo;
			hi = pfn > hi ? pfn : hi;
			kept++;
		}
	}
	e->lo = lo;
	e->unlearnt = n - kept;
	while (kept && (hi - lo) >> e->shift >= SFILE_NEAR)
		e->shift++;
	for (k = 0; kept && k < n; k++)
		if (e->pfn[k]) {
			uint64_t bit = (e->pfn[k] - 1 - lo) >> e->shift;

			e->near[bit / 64] |= UINT64_C(1) << bit % 64;
		}
	e->dev_major = m->dev_major;
	e->dev_minor = m->dev_minor;
	e->inode = m->inode;
	e->first = first;
	e->n = n;
	pthread_mutex_lock(&pp->sf_lock);
	if (kept && pp->nsf < MAX_SFILES &&
	    pp->sf_pages + n <= MAX_SFILE_PAGES) {
		pp->sf[pp->nsf++] = e;
		pp->sf_pages += n;
		e = NULL;
	}
	pthread_mutex_unlock(&pp->sf_lock);
	if (e) {
		free(e->pfn);
		free(e);
	}
}

/* Where e keeps the frame learnt at m's page vpn, plus one (0: not
 * learnt); those of the pages after it follow. */
static const uint32_t *learnt_at(const struct sfile *e,
				 const struct exm_mapping *m, uint64_t vpn,
				 unsigned ps)
{
	return &e->pfn[m->offset / ps - e->first + (vpn - m->start / ps)];
}

/* Whether e learnt the frames of all m's pages [vpn, end). */
static bool all_learnt(const struct sfile *e, const struct exm_mapping *m,
		       uint64_t vpn, uint64_t end, unsigned ps)
{
	const uint32_t *pf = learnt_at(e, m, vpn, ps);
	uint64_t n = end - vpn, k = 0;

	if (!e->unlearnt)
		return true;
	for (; k + 8 <= n; k += 8) /* a compare a word, under emulation too */
#pragma GCC unroll 8
		for (unsigned j = 0; j < 8; j++)
			if (!pf[k + j])
				return false;
	for (; k < n; k++)
		if (!pf[k])
			return false;
	return true;
}

/*
 * Whether m's page vpn is the frame learnt there: the same file, not one
 * that only looks it. (device, inode) is not unique on every file system
 * (btrfs snapshots keep inode numbers, and a container's paths may equal
 * another's); a page cache page is one file's, so one page's frame, read,
 * proves the file.
 */
static bool same_file(int fd, const struct sfile *e,
		      const struct exm_mapping *m, uint64_t vpn, unsigned ps)
{
	uint64_t w;

	return read_words(fd, &w, vpn, 1) == 1 && exm_pm_present(w) &&
	       exm_pm_key(w) + 1 == *learnt_at(e, m, vpn, ps);
}

/* Whether some frame learnt in e may lie in [pfn, pfn + n) (n > 0). */
static bool frames_near(const struct sfile *e, uint64_t pfn, uint64_t n)
{
	uint64_t top = e->lo + ((uint64_t)SFILE_NEAR << e->shift) - 1;
	uint64_t a, z;

	if (pfn + n <= e->lo || pfn > top)
		return false;
	a = (pfn < e->lo ? 0 : pfn - e->lo) >> e->shift;
	z = ((pfn + n - 1 > top ? top : pfn + n - 1) - e->lo) >> e->shift;
	for (; a <= z; a++)
		if (e->near[a / 64] & (UINT64_C(1) << a % 64))
			return true;
	return false;
}

/*
 * Store m's words for its pages [vpn, end) from the frames learnt in e:
 * each present, a file page, not exclusive (shared_derive). mark_zero
 * can only mark a word of a MAP_SHARED mapping whose frame is a zero
 * page's known now: when no frame learnt lies near those, it is left out
 * (it would leave every word as it is).
 */
static int derive_words(struct pm_ctx *c, struct exm_builder *b,
			struct exm_mapping *m, const struct sfile *e,
			uint64_t vpn, uint64_t end, unsigned ps)
{
	const uint64_t flags = EXM_PM_PRESENT | EXM_PM_FILE;
	const struct pm_priv *pp = c->pp;
	uint64_t hz = pp->huge_zero;
	bool zero = !(m->perms & EXM_PERM_S) ||
		    (pp->zero_pfn != NO_PFN &&
		     frames_near(e, pp->zero_pfn, 1)) ||
		    (hz != NO_PFN && frames_near(e, hz, pp->pmd_pages));
	int ret = 0;

	while (!ret && vpn < end) {
		size_t len = chunk_len(vpn, end - vpn), k = 0;
		const uint32_t *pf = learnt_at(e, m, vpn, ps);

		if (!zero) { /* the words straight from the frames */
			uint64_t w0 = flags | (pf[0] - 1);

			type_mapping(c, m, &w0, 1, ps);
			ret = exm_build_frames(b, m, vpn, pf, (uint32_t)len,
					       flags);
			vpn += len;
			continue;
		}
		for (; k + 8 <= len; k += 8)
#pragma GCC unroll 8
			for (unsigned j = 0; j < 8; j++)
				c->words[k + j] = flags | (pf[k + j] - 1);
		for (; k < len; k++)
			c->words[k] = flags | (pf[k] - 1);
		ret = store_words(c, b, m, vpn, c->words, len, 0);
		vpn += len;
	}
	return ret;
}

/*
 * Shared mapping m's words from the frames another mapping of the same
 * file pages read (shared_learn): PAGEMAP_SCAN says which pages m has,
 * each is the frame learnt at its offset, present, a file page, and not
 * exclusive (the other mapping maps it too), once its first page's frame,
 * read, is the one learnt there. The words are those a read
 * gives (but the soft-dirty bit, which no figure uses). 2 when they
 * cannot all be had so (nothing learnt, a page not learnt, a swap or
 * migration entry, a huge or zero page): read m as any other. 1 when the
 * kernel has no PAGEMAP_SCAN, 0, -errno.
 */
static int shared_derive(struct pm_ctx *c, struct exm_builder *b, int fd,
			 struct exm_mapping *m, unsigned ps)
{
	const uint64_t odd = EXM_PAGE_IS_SWAPPED | EXM_PAGE_IS_PFNZERO |
			     EXM_PAGE_IS_HUGE;
	uint64_t n = (m->end - m->start) / ps, first = m->offset / ps;
	const struct sfile *e = shared_find(c->pp, m, first, n);
	uint64_t count = 0;
	int ret;

	if (!e || m->end > EXM_SCAN_END)
		return 2;
	ret = scan_regions(c, fd, m->start, m->end);
	if (ret)
		return ret;
	/* first every page: all learnt, or none derived */
	for (size_t r = 0; r < c->nregions; r++) {
		const struct exm_page_region *g = &c->regions[r];

		if ((g->categories & odd) || g->start < m->start ||
		    g->end > m->end || (r && g->start < g[-1].end))
			return 2;
		if (!all_learnt(e, m, g->start / ps, g->end / ps, ps))
			return 2;
		count += (g->end - g->start) / ps;
	}
	if (c->nregions && !same_file(fd, e, m, c->regions[0].start / ps, ps))
		return 2;
	ret = exm_build_reserve(b, m, (uint32_t)count);
	for (size_t r = 0; !ret && r < c->nregions; r++)
		ret = derive_words(c, b, m, e, c->regions[r].start / ps,
				   c->regions[r].end / ps, ps);
	if (!ret)
		c->pp->nderived++;
	return ret;
}

/*
 * Read mode's shared_derive, where no PAGEMAP_SCAN says which pages m
 * has: smaps says it when m's VMA is the mapping exactly and every page of
 * it is present (Rss its whole size, no swap entry) and mapped by another
 * mapping too (no Private_*, pages mapped once). Its words are then the
 * frames learnt at each offset, all of them learnt, once its first page's
 * frame, read, is the one learnt there (the same file: see shared_derive).
 * 2: read m as any other; 0; -errno.
 */
static int shared_derive_whole(struct pm_ctx *c, struct exm_builder *b, int fd,
			       struct exm_mapping *m,
			       const struct vma_counts *v, unsigned ps)
{
	uint64_t n = (m->end - m->start) / ps;
	const struct sfile *e;
	int ret;

	if (!v->known || v->rss != m->end - m->start || v->swap || v->priv ||
	    n > DIRECT_PAGES)
		return 2;
	e = shared_find(c->pp, m, m->offset / ps, n);
	if (!e)
		return 2;
	if (!all_learnt(e, m, m->start / ps, m->end / ps, ps) ||
	    !same_file(fd, e, m, m->start / ps, ps))
		return 2;
	ret = exm_build_reserve(b, m, (uint32_t)n);
	if (!ret)
		ret = derive_words(c, b, m, e, m->start / ps, m->end / ps, ps);
	if (!ret)
		c->pp->nderived++;
	return ret;
}

static bool count_once(const struct pm_ctx *c, const struct exm_scan_opts *opts,
		       const struct exm_mapping *m, unsigned ps);
static int count_huge(struct pm_ctx *c, struct exm_builder *b, int fd,
		      struct exm_proc *p, size_t k, unsigned ps);

/* Whether scan_process's direct path reads m's words at once: a small
 * mapping that is not a shared file's (see shared_derive); it and such
 * mappings beside it are read by one call (read_group). */
static bool read_alone(const struct pm_ctx *c, const struct exm_mapping *m,
		       unsigned ps)
{
	return m->kind != EXM_KIND_VSYSCALL &&
	       !(c->pp->may_count && shared_file(m)) &&
	       (m->end - m->start) / ps <= DIRECT_PAGES;
}

/*
 * The PAGEMAP_SCAN path (direct: small mappings read at once, see
 * DIRECT_PAGES, and big ones that are dense enough; else every mapping
 * asked about): 1 when the kernel has no PAGEMAP_SCAN, 0, -errno.
 */
static int scan_process(struct pm_ctx *c, struct exm_builder *b, int fd,
			const struct exm_scan_opts *opts, struct exm_proc *p,
			unsigned ps, bool direct)
{
	c->resident = UINT64_MAX;
	c->once_pid = p->pid; /* its mm asked about at a first page to count */
	c->mm_known = false;
	c->merging = -1;
	c->smaps_got = 0;
	for (size_t k = 0; k < p->nmaps; k++) {
		struct exm_mapping *m = &p->maps[k];
		uint64_t *w = NULL;
		size_t got, j = k + 1;
		bool shared;
		int ret;

		if (m->kind == EXM_KIND_VSYSCALL)
			continue;
		shared = direct && c->pp->may_count && shared_file(m);
		if (direct && read_alone(c, m, ps)) {
			while (j < p->nmaps && read_alone(c, &p->maps[j], ps) &&
			       groups_with(&p->maps[j - 1], &p->maps[j],
					   m->start, ps))
				j++;
			ret = read_group(c, b, fd, p, k, j, ps);
			if (ret)
				return ret;
			k = j - 1;
			continue;
		}
		ret = shared ? shared_derive(c, b, fd, m, ps) : 2;
		c->once = NULL;
		if (ret == 2 && count_once(c, opts, m, ps) &&
		    !proc_merging(c)) {
			c->once = m; /* store_words adds them up */
			m->counted = false;
			m->counted_rss = m->counted_swap = 0;
			ret = count_huge(c, b, fd, p, k, ps);
			if (ret < 0)
				return ret;
			ret = ret ? 0 : 2;
		}
		if (ret != 2) { /* another mapping's frames, or no ioctl */
			c->asked = ret != 1;
		} else {
			bool dense = false;

			if (direct && (m->end - m->start) / ps <= DIRECT_PAGES)
				w = c->words;
			else if (direct &&
				 (dense = dense_enough(c, p, k, ps)) && shared)
				w = big_room(c, m, ps);
			if (dense && !w) {
				ret = read_dense(c, b, fd, m, ps);
				c->read = true;
			} else if (w) {
				ret = read_direct(c, b, fd, m, ps, w, &got);
				c->read = true;
				if (!ret && shared)
					shared_learn(c, m, w, got, ps);
			} else {
				ret = scan_mapping(c, b, fd, m, ps);
				c->asked = ret != 1;
			}
		}
		c->once = NULL;
		if (ret)
			return ret;
		if (m->counted) {
			exm_build_trim(b, m); /* room for the pages counted */
			c->pp->ncounted++;
		}
		share_words(c, b, p, m);
	}
	return 0;
}

struct populated {
	const struct exm_proc *p;
	bool *want;		/* per mapping: read it */
	struct vma_counts *cnt; /* per mapping: smaps' counts */
	size_t cur;   /* the mapping of the VMA being parsed, or SIZE_MAX */
	bool inexact; /* a VMA not exactly one of the mappings */
};

static void pop_vma(void *ctx, size_t first, bool exact, uint64_t start,
		    uint64_t end)
{
	struct populated *pp = ctx;

	pp->cur = exact ? first : SIZE_MAX;
	pp->inexact |= !exact;
	if (exact)
		pp->cnt[first].known = true;
	if (!exact) /* changed since maps was read: read what overlaps */
		for (size_t k = first;
		     k < pp->p->nmaps && pp->p->maps[k].start < end; k++)
			pp->want[k] = true;
}

#define KEY_IS(key, klen, lit) \
	((klen) == sizeof(lit) - 1 && !memcmp((key), (lit), sizeof(lit) - 1))

/* The counts count_mapping weighs. */
static void count_kv(struct vma_counts *c, const char *key, size_t klen,
		     uint64_t v)
{
	if (KEY_IS(key, klen, "Rss"))
		c->rss = v;
	else if (KEY_IS(key, klen, "Pss"))
		c->pss = v;
	else if (KEY_IS(key, klen, "Pss_Dirty"))
		c->pss_dirty = v, c->has_dirty = true;
	else if (KEY_IS(key, klen, "Private_Clean"))
		c->priv += v, c->priv_clean = v;
	else if (KEY_IS(key, klen, "Private_Dirty"))
		c->priv += v, c->priv_dirty = v;
	else if (KEY_IS(key, klen, "Shared_Clean"))
		c->sh_clean = v;
	else if (KEY_IS(key, klen, "Shared_Dirty"))
		c->sh_dirty = v;
	else if (KEY_IS(key, klen, "Swap"))
		c->swap = v;
	else if (KEY_IS(key, klen, "SwapPss"))
		c->swap_pss = v;
}

static void pop_kv(void *ctx, const char *key, size_t klen, uint64_t v)
{
	struct populated *pp = ctx;

	if (pp->cur != SIZE_MAX)
		count_kv(&pp->cnt[pp->cur], key, klen, v);
	if (pp->cur != SIZE_MAX && v &&
	    ((klen == 3 && !memcmp(key, "Rss", 3)) ||
	     (klen == 4 && !memcmp(key, "Swap", 4)) ||
	     (klen == 14 && !memcmp(key, "Shared_Hugetlb", 14)) ||
	     (klen == 15 && !memcmp(key, "Private_Hugetlb", 15))))
		pp->want[pp->cur] = true;
}

/*
 * Without PAGEMAP_SCAN, reading a mapping's words costs 8 bytes for every
 * virtual page, present or not: a mostly empty 64 GiB reservation is 128
 * MiB of reads. For a process with a mapping bigger than DIRECT_PAGES,
 * smaps says first which mappings hold any page at all (Rss, Swap or
 * hugetlb pages), and the empty ones are not read, but for those that may
 * map the zero page, which smaps does not count (see may_hold_zero). Sets c->want[k] for a mapping to read. 0,
 * or -errno when smaps cannot be read (then read everything).
 */
static int populated_from_smaps(struct pm_ctx *c, int dirfd,
				const struct exm_proc *p)
{
	struct populated pp = {
		.p = p, .want = c->want, .cnt = c->cnt, .cur = SIZE_MAX
	};
	char *buf;
	size_t len;
	int ret = exm_read_file(dirfd, "smaps", &buf, &len);

	if (ret)
		return ret;
	memset(c->want, 0, p->nmaps * sizeof(*c->want));
	memset(c->cnt, 0, p->nmaps * sizeof(*c->cnt));
	exm_smaps_walk(buf, len, p, pop_vma, pop_kv, &pp);
	free(buf);
	c->smaps_whole = !pp.inexact;
	return 0;
}

/* Room in c->want and c->cnt for p's mappings; 0 or -ENOMEM. */
static int smaps_room(struct pm_ctx *c, const struct exm_proc *p)
{
	bool *n;
	struct vma_counts *v;

	if (c->cap_want >= p->nmaps)
		return 0;
	n = realloc(c->want, p->nmaps * sizeof(*n));
	if (!n)
		return -ENOMEM;
	c->want = n;
	v = realloc(c->cnt, p->nmaps * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->cnt = v;
	c->cap_want = p->nmaps;
	return 0;
}

/* Only a private anonymous mapping can map the zero page (or the huge
 * zero page): a read fault there maps it rather than a page. Readable
 * then, maybe not now: mprotect keeps the zero pages a mapping read.
 * /dev/zero mapped private is one too, though it names an inode. */
static bool may_hold_zero(const struct exm_mapping *m)
{
	return !(m->perms & EXM_PERM_S) &&
	       (!m->inode || m->kind == EXM_KIND_ANON);
}

/* The biggest mapping smaps calls empty that plain reads go through for
 * its zero pages: 8 MiB of reads. A whole TiB costs 0.5 to 2 s here. */
#define ZERO_READ_PAGES ((uint64_t)1 << 20) /* 4 GiB of 4 KiB pages */

/*
 * A mapping smaps calls empty, in read mode: it may still map the zero
 * page, which smaps never counts. 1: read it (up to ZERO_READ_PAGES); 0:
 * done, because it cannot map the zero page, or PAGEMAP_SCAN said where
 * its zero pages are (exact at any size: a sanitizer's terabytes of
 * shadow cost nothing), or, bigger on a kernel without PAGEMAP_SCAN
 * (before 6.7), it is left unread and its zero pages out of `zero` (no
 * other figure counts them; README says so); -errno.
 */
static int empty_mapping(struct pm_ctx *c, struct exm_builder *b, int fd,
			 struct exm_mapping *m, unsigned ps)
{
	int ret;

	if (!may_hold_zero(m))
		return 0;
	if ((m->end - m->start) / ps <= ZERO_READ_PAGES)
		return 1;
	if (c->pp->scan != SCAN_YES)
		return 0;
	ret = scan_mapping(c, b, fd, m, ps);
	if (!ret) /* the header says the ioctl was used */
		c->pp->any_scan = true;
	return ret == 1 ? 0 : ret;
}

/*
 * Read mode's shortcut for big mappings (issue 23): reading a mapping's
 * frames costs 8 bytes a virtual page, but a page the kernel maps once in
 * the whole system needs no frame: it is its process's alone whoever else
 * is scanned, so every figure of it follows from its count. smaps says
 * per mapping how many pages are mapped once (Private_Clean and
 * Private_Dirty: mapcount 1) and whether every swap entry is (SwapPss,
 * each entry's share summed, equals Swap only when every entry has one
 * reference: a shared one falls short by 2 kB or more). A big private
 * anonymous mapping ([anon], [heap]) may be counted (exm_mapping.counted):
 * all its pages when all are mapped once, else what remains once every
 * shared page is located (locate_shared). Not where the places of pages
 * are wanted (want_places: recordings, page strips), nor in read-all
 * mode, nor when smaps' counts of large folios are averages
 * (CONFIG_NO_PAGE_MAPCOUNT). docs/DESIGN.md says what a counted mapping
 * shows: every figure, but zero pages (smaps does not see them: left out
 * of zero, as for an empty big mapping) and what lies where inside it.
 */
static bool may_count_kind(const struct pm_ctx *c,
			   const struct exm_scan_opts *opts,
			   const struct exm_mapping *m, unsigned ps)
{
	return c->pp->may_count && !opts->want_places &&
	       opts->knob != EXM_PMODE_READ_ALL &&
	       (m->end - m->start) / ps > DIRECT_PAGES && !m->inode &&
	       !(m->perms & EXM_PERM_S) &&
	       (m->kind == EXM_KIND_ANON || m->kind == EXM_KIND_HEAP);
}

static bool may_count(const struct pm_ctx *c, const struct exm_scan_opts *opts,
		      const struct exm_mapping *m, const struct vma_counts *v,
		      unsigned ps)
{
	return may_count_kind(c, opts, m, ps) && !c->mm_shared && v->known &&
	       v->priv <= v->rss && v->swap_pss == v->swap && !(v->rss % ps) &&
	       !(v->swap % ps);
}

static size_t seen_slot(uint64_t start, uint64_t end)
{
	uint64_t h = (start ^ end * UINT64_C(0x9e3779b97f4a7c15)) *
		     UINT64_C(0xff51afd7ed558ccd);

	return (size_t)(h >> 40) & (SEEN_SLOTS - 1);
}

/* The entry of [start, end) in pp->seen, or NULL (lock held): found by
 * its range's slot in pp->seen_idx, not by a search of them all (a
 * machine of many forked processes with big mappings keeps thousands). */
static struct seen *seen_find(struct pm_priv *pp, uint64_t start, uint64_t end)
{
	if (!pp->seen_idx)
		return NULL;
	for (size_t i = seen_slot(start, end); pp->seen_idx[i] != UINT32_MAX;
	     i = (i + 1) & (SEEN_SLOTS - 1)) {
		struct seen *e = &pp->seen[pp->seen_idx[i]];

		if (e->start == start && e->end == end)
			return e;
	}
	return NULL;
}

/* Forget every range kept (lock held). */
static void seen_forget(struct pm_priv *pp)
{
	for (size_t k = 0; k < pp->nseen; k++)
		free(pp->seen[k].runs);
	pp->nseen = 0;
	pp->seen_runs = 0;
	if (pp->seen_idx)
		memset(pp->seen_idx, 0xff, SEEN_SLOTS * sizeof(*pp->seen_idx));
}

/* A new entry for [start, end), which pp->seen does not hold (lock
 * held), or NULL when memory runs short. Past MAX_SEEN entries, those
 * kept are all forgotten first. */
static struct seen *seen_new(struct pm_priv *pp, uint64_t start, uint64_t end)
{
	size_t i;

	if (!pp->seen_idx) {
		pp->seen_idx = malloc(SEEN_SLOTS * sizeof(*pp->seen_idx));
		if (!pp->seen_idx)
			return NULL;
		memset(pp->seen_idx, 0xff, SEEN_SLOTS * sizeof(*pp->seen_idx));
	}
	if (pp->nseen >= MAX_SEEN)
		seen_forget(pp);
	if (pp->nseen == pp->cap_seen) {
		size_t cap = pp->cap_seen ? pp->cap_seen * 2 : 16;
		struct seen *t = realloc(pp->seen, cap * sizeof(*t));

		if (!t)
			return NULL;
		pp->seen = t;
		pp->cap_seen = cap;
	}
	for (i = seen_slot(start, end); pp->seen_idx[i] != UINT32_MAX;
	     i = (i + 1) & (SEEN_SLOTS - 1))
		;
	pp->seen_idx[i] = (uint32_t)pp->nseen;
	pp->seen[pp->nseen] = (struct seen){ .start = start, .end = end };
	return &pp->seen[pp->nseen++];
}

/* a (na runs) and m's runs, ascending, joined into out (room for both):
 * how many runs out holds. */
static size_t span_join(const struct span *a, size_t na,
			const struct exm_mapping *m, struct span *out)
{
	size_t i = 0, j = 0, n = 0;

	while (i < na || j < m->nruns) {
		struct span x;

		if (j == m->nruns || (i < na && a[i].vpn <= m->runs[j].vpn)) {
			x = a[i++];
		} else {
			x = (struct span){ m->runs[j].vpn, m->runs[j].count };
			j++;
		}
		if (n && out[n - 1].vpn + out[n - 1].n >= x.vpn) {
			if (x.vpn + x.n > out[n - 1].vpn + out[n - 1].n)
				out[n - 1].n = x.vpn + x.n - out[n - 1].vpn;
		} else {
			out[n++] = x;
		}
	}
	return n;
}

/*
 * After m was read whole for its shared pages (ok: it was read): keep
 * where its pages are, joined to what other processes' mappings of the
 * same range had (a fork's children share their parent's pages at its
 * addresses), and wake the workers waiting for it. Only a help: nothing
 * is lost when memory runs short.
 */
static void seen_add(struct pm_priv *pp, const struct exm_mapping *m, bool ok)
{
	struct seen *e;
	struct span *u;

	pthread_mutex_lock(&pp->seen_lock);
	e = seen_find(pp, m->start, m->end);
	if (e)
		e->pending = false;
	pthread_cond_broadcast(&pp->seen_done);
	if (!ok || !m->nruns || m->nruns > MAX_SEEN_RUNS)
		goto out;
	if (pp->seen_runs + m->nruns > MAX_SEEN_ALL)
		seen_forget(pp);
	e = seen_find(pp, m->start, m->end);
	if (!e)
		e = seen_new(pp, m->start, m->end);
	if (!e)
		goto out;
	u = malloc((e->n + m->nruns) * sizeof(*u));
	if (!u)
		goto out;
	pp->seen_runs -= e->n;
	e->n = span_join(e->runs, e->n, m, u);
	pp->seen_runs += e->n;
	free(e->runs);
	e->runs = u;
out:
	pthread_mutex_unlock(&pp->seen_lock);
}

/*
 * A big mapping holding shared pages, without reading every virtual
 * page: read only the pages where a mapping of the same range (a fork's
 * parent or sibling) had pages. When the shared pages found there
 * (present, not mapped once, not the zero page) are as many as smaps
 * says the mapping holds, every shared page has its frame: those pages
 * (and the others found, zero pages too) are stored, and the rest are
 * counted, each mapped once. Else nothing is kept (0: read it whole).
 * 1 located.
 */
static int locate_shared(struct pm_ctx *c, struct exm_builder *b, int fd,
			 struct exm_mapping *m, const struct vma_counts *v,
			 unsigned ps)
{
	struct pm_priv *pp = c->pp;
	uint64_t res = 0, shared = 0, swp = 0;
	struct span *cand = NULL;
	size_t n = 0;
	struct seen *e;

	pthread_mutex_lock(&pp->seen_lock);
	/* another worker reads a mapping of this range whole: its pages
	 * will do */
	while ((e = seen_find(pp, m->start, m->end)) && e->pending)
		pthread_cond_wait(&pp->seen_done, &pp->seen_lock);
	if (!e) { /* the first: this worker reads it whole (seen_add) */
		e = seen_new(pp, m->start, m->end);
		if (e)
			e->pending = true;
	} else if (e->n) {
		cand = malloc(e->n * sizeof(*cand));
		if (cand) {
			n = e->n;
			memcpy(cand, e->runs, n * sizeof(*cand));
		}
	}
	pthread_mutex_unlock(&pp->seen_lock);
	if (!n)
		return 0;
	for (size_t r = 0; r < n; r++) {
		uint64_t lo = cand[r].vpn, end = lo + cand[r].n;

		if (lo < m->start / ps)
			lo = m->start / ps;
		if (end > m->end / ps)
			end = m->end / ps;
		while (lo < end) {
			ssize_t got = read_words(fd, c->words, lo,
						 chunk_len(lo, end - lo));
			size_t out = 0, run = 0; /* kept words, packed */
			uint64_t run_vpn = 0;

			if (got <= 0)
				goto fail;
			pmd_exclusive(c, lo, c->words, (size_t)got);
			for (ssize_t k = 0; k < got; k++) {
				uint64_t vpn = lo + (uint64_t)k,
					 w = c->words[k];

				if (!exm_pm_used(w))
					continue;
				/* a zero page is stored too, in no count
				 * (smaps does not see it): zero is then the
				 * same in every snapshot and every process
				 * of the family where the read had one */
				mark_zero(c, m, vpn, &w, 1);
				if (!exm_pm_present(w)) {
					swp++;
				} else if (!(w & EXM_PM_ZERO)) {
					res++;
					shared += !(w & EXM_PM_EXCLUSIVE);
				}
				/* runs of consecutive pages stored at once
				 * (out never passes k: packing in place) */
				if (out > run && vpn != run_vpn + (out - run)) {
					if (exm_build_pages(b, m, run_vpn,
							    c->words + run,
							    (uint32_t)(out -
								       run)))
						goto fail;
					run = out;
				}
				if (out == run)
					run_vpn = vpn;
				c->words[out++] = w;
			}
			if (out > run &&
			    exm_build_pages(b, m, run_vpn, c->words + run,
					    (uint32_t)(out - run)))
				goto fail;
			lo += (uint64_t)got;
		}
	}
	free(cand);
	if (shared * ps != v->rss - v->priv || res * ps > v->rss ||
	    swp * ps > v->swap)
		goto drop;
	m->counted = true;
	m->counted_rss = v->rss - res * ps;
	m->counted_swap = v->swap - swp * ps;
	pp->nlocated++;
	return 1;
fail:
	free(cand);
drop:
	exm_mapping_clear_pages(m);
	return 0;
}

/* Count m's pages rather than read them (see may_count): true when done,
 * false to read it whole. */
static bool count_mapping(struct pm_ctx *c, struct exm_builder *b, int fd,
			  const struct exm_scan_opts *opts,
			  struct exm_mapping *m, const struct vma_counts *v,
			  unsigned ps)
{
	if (!may_count(c, opts, m, v, ps))
		return false;
	if (v->priv != v->rss)
		return locate_shared(c, b, fd, m, v, ps) == 1;
	m->counted = true;
	m->counted_rss = v->rss;
	m->counted_swap = v->swap;
	c->pp->ncounted++;
	return true;
}

/* Read mode: whether shared mapping m is read at once, its frames learnt
 * for the other mappings of the same pages (shared_learn), and taken from
 * those of another where smaps says it may (shared_derive_whole). Not in
 * read-all mode, which reads every mapping's words. */
static bool learns(const struct pm_ctx *c, const struct exm_scan_opts *opts,
		   const struct exm_mapping *m, unsigned ps)
{
	return c->pp->may_count && opts->knob != EXM_PMODE_READ_ALL &&
	       shared_file(m) && (m->end - m->start) / ps <= DIRECT_PAGES;
}

struct mm_key {
	uint64_t vsize;
	pid_t pid;
};

static int cmp_mm_key(const void *a, const void *b)
{
	const struct mm_key *x = a, *y = b;

	if (x->vsize != y->vsize)
		return x->vsize < y->vsize ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* kcmp(2)'s KCMP_VM of a and b: 0 one mm, 1 or 2 the order of two mms
 * (the kernel orders them), -1 with errno where it cannot say (a pid
 * gone: ESRCH; no CONFIG_KCMP: ENOSYS; refused: EPERM). */
static long kcmp_vm(pid_t a, pid_t b)
{
#ifdef SYS_kcmp
	return syscall(SYS_kcmp, a, b, KCMP_VM, 0UL, 0UL);
#else
	(void)a;
	(void)b;
	errno = ENOSYS;
	return -1;
#endif
}

/* qsort's order of processes by their mm (kcmp's order); a pid gone
 * goes by its pid (it shares nothing any more) */
static int cmp_mm_of(const void *a, const void *b)
{
	const struct mm_key *x = a, *y = b;
	long r = x->pid == y->pid ? 0 : kcmp_vm(x->pid, y->pid);

	if (r == 0)
		return 0;
	if (r == 1)
		return -1;
	if (r == 2)
		return 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static void mm_add(struct pm_priv *pp, pid_t pid)
{
	pid_t *np = realloc(pp->mm_pids, (pp->nmm_pids + 1) * sizeof(*np));

	if (np) {
		pp->mm_pids = np;
		pp->mm_pids[pp->nmm_pids++] = pid;
	}
}

/* The processes of k[0..m) (one vsize) that share their mm with another
 * of them, added to pp->mm_pids: sorted by kcmp's order of their mms
 * (m log m calls, not m squared: a prefork server's thousand workers have
 * one vsize), those equal to a neighbour share one. Where kcmp cannot
 * say for a live pair (no CONFIG_KCMP, refused), all of them: reading a
 * mapping whole is always right, counting it only when its pages are its
 * process's alone. */
static void mm_group(struct pm_priv *pp, struct mm_key *k, size_t m)
{
	size_t i;

	if (m < 2)
		return;
	if (kcmp_vm(k[0].pid, k[1].pid) < 0 && errno != ESRCH) {
		for (i = 0; i < m; i++)
			mm_add(pp, k[i].pid);
		return;
	}
	qsort(k, m, sizeof(*k), cmp_mm_of);
	for (i = 0; i < m; i++)
		if ((i > 0 && kcmp_vm(k[i - 1].pid, k[i].pid) == 0) ||
		    (i + 1 < m && kcmp_vm(k[i].pid, k[i + 1].pid) == 0))
			mm_add(pp, k[i].pid);
}

/* The pids of processes sharing their mm with another (pp->mm_pids,
 * sorted), learnt once a snapshot (lock held): processes on one mm have
 * one virtual size (/proc/PID/stat's vsize), so only those of equal
 * nonzero vsize are compared. */
static void mm_learn(struct pm_priv *pp)
{
	struct mm_key *k = NULL;
	size_t n = 0, cap = 0, npids = 0;
	pid_t *pids = NULL;

	pp->nmm_pids = 0;
	(void)exm_list_pids("/proc", &pids, &npids);
	for (size_t i = 0; i < npids; i++) {
		char path[64], buf[1024];
		struct exm_stat st;
		ssize_t got;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		got = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (got <= 0)
			continue;
		if (exm_parse_stat(buf, (size_t)got, NULL, &st) || !st.vsize)
			continue;
		if (n == cap) {
			struct mm_key *nk;

			cap = cap ? cap * 2 : 256;
			nk = realloc(k, cap * sizeof(*nk));
			if (!nk)
				break;
			k = nk;
		}
		k[n++] = (struct mm_key){ .vsize = st.vsize, .pid = pids[i] };
	}
	free(pids);
	if (n)
		qsort(k, n, sizeof(*k), cmp_mm_key);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && k[j].vsize == k[i].vsize; j++)
			;
		mm_group(pp, k + i, j - i);
	}
	free(k);
	if (pp->nmm_pids)
		qsort(pp->mm_pids, pp->nmm_pids, sizeof(pid_t), exm_cmp_pid);
	pp->mm_known = true;
}

/*
 * Whether process pid shares its mm with another process (a clone with
 * CLONE_VM but not CLONE_THREAD, a vfork child before exec, posix_spawn's
 * child). Its pages are mapped once (mapcount 1, smaps' Private_*), yet
 * both processes map every one of them: counted as this process's alone
 * they would be whole in each, so such a process's mappings are read
 * (their frames show them in both), never counted.
 */
static bool mm_shared(struct pm_priv *pp, pid_t pid)
{
	bool r;

	pthread_mutex_lock(&pp->mm_lock);
	if (!pp->mm_known)
		mm_learn(pp);
	r = pp->nmm_pids && bsearch(&pid, pp->mm_pids, pp->nmm_pids,
				    sizeof(pid_t), exm_cmp_pid);
	pthread_mutex_unlock(&pp->mm_lock);
	return r;
}

/*
 * With PAGEMAP_SCAN (auto and scan modes): whether big mapping m counts
 * its pages mapped once as their words are read (store_words)
 * rather than storing them. Such a page needs no frame, as for read
 * mode's counting (may_count_kind): its word says it is mapped once, so
 * it is its process's alone whoever else is scanned, and every figure of
 * it follows from its count. Its word is read all the same (its frame is
 * what tells it apart from a shared page, a zero page or a swap entry,
 * which are stored), but not kept, not counted by frame, not looked up
 * for the kernel's Pss: one snapshot of an 8 GiB heap cost 88 ms of CPU
 * with its words stored, 49 ms counted (61 and 17 ms on transparent huge
 * pages). Where its pages lie is all that is lost,
 * and nothing is counted where that is wanted (want_places), nor where
 * the swap cache holds pages and the row of those mapped is wanted
 * (want_swapcache: it needs every frame, exm_swapcache_mapped), nor in a
 * process sharing its mm (once_may asks at the first page to count).
 */
static bool count_once(const struct pm_ctx *c, const struct exm_scan_opts *opts,
		       const struct exm_mapping *m, unsigned ps)
{
	return !(opts->want_swapcache && c->pp->swapcache) &&
	       may_count_kind(c, opts, m, ps);
}

/* The first region of present pages in [start, end) PAGEMAP_SCAN finds,
 * no more than one page of it asked for (the walk stops there): 1 found,
 * 0 none, -errno. */
static int first_present(int fd, uint64_t start, uint64_t end,
			 struct exm_page_region *r)
{
	struct exm_pm_scan_arg arg = {
		.size = sizeof(arg),
		.start = start,
		.end = end,
		.vec = (uint64_t)(uintptr_t)r,
		.vec_len = 1,
		.max_pages = 1,
		.category_anyof_mask = EXM_PAGE_IS_PRESENT,
		.return_mask = EXM_PAGE_IS_PRESENT | EXM_PAGE_IS_PFNZERO |
			       EXM_PAGE_IS_HUGE,
	};
	long n;

	memset(r, 0, sizeof(*r));
	do
		n = ioctl(fd, EXM_PAGEMAP_SCAN, &arg);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n > 0;
}

/*
 * count_once's mapping p->maps[k] on transparent huge pages: its pages
 * mapped once counted from smaps, not from their words. pagemap gives a
 * word for each 4 KiB of a huge page, and the kernel works out each one's
 * mapping count to say whether it is mapped once: an 8 GiB heap of its
 * own cost 15 to 17 ms of CPU read so, against smemstat's 4 ms, for smaps
 * takes a huge page mapped once in one step. So where the mapping's first
 * present page is a huge page mapped once (PAGEMAP_SCAN, then its word),
 * the process's smaps is read (once) and, when it says every page of the
 * mapping is mapped once (Private_* is its Rss, as read mode's counting
 * asks, see may_count) with no swap entry, and PAGEMAP_SCAN finds as
 * many present pages that are not the zero page, those are counted and
 * only the zero pages' words are read and stored (smaps does not see
 * them: zero stays exact). The figures are those count_once gives.
 * 1 counted, 0 read it as any other (nothing stored), -errno.
 */
static int count_huge(struct pm_ctx *c, struct exm_builder *b, int fd,
		      struct exm_proc *p, size_t k, unsigned ps)
{
	struct exm_mapping *m = &p->maps[k];
	uint64_t end = m->end < EXM_SCAN_END ? m->end : EXM_SCAN_END;
	uint64_t present = 0, nzero = 0, w;
	struct exm_page_region first;
	const struct vma_counts *v;
	int ret;

	if (m->end > EXM_SCAN_END || c->pp->scan == SCAN_NO || c->smaps_got < 0)
		return 0;
	/* any error: the usual reads meet it */
	if (first_present(fd, m->start, end, &first) != 1)
		return 0;
	if ((first.categories & (EXM_PAGE_IS_HUGE | EXM_PAGE_IS_PFNZERO)) !=
	    EXM_PAGE_IS_HUGE)
		return 0;
	if (read_words(fd, &w, first.start / ps, 1) != 1 ||
	    !(w & EXM_PM_EXCLUSIVE))
		return 0; /* shared (a fork's): read it */
	if (!c->smaps_got) {
		if (smaps_room(c, p))
			return -ENOMEM;
		c->smaps_got = populated_from_smaps(c, c->dirfd, p) ? -1 : 1;
		if (c->smaps_got < 0)
			return 0;
	}
	v = &c->cnt[k];
	if (!v->known || v->priv != v->rss || v->swap || v->rss % ps || !v->rss)
		return 0;
	if (once_mm_shared(c))
		return 0;
	ret = scan_regions(c, fd, m->start, end);
	if (ret)
		return ret == 1 ? 0 : ret;
	for (size_t r = 0; r < c->nregions; r++) {
		const struct exm_page_region *g = &c->regions[r];
		uint64_t n = (g->end - g->start) / ps;

		if (g->categories & EXM_PAGE_IS_SWAPPED)
			return 0; /* one since smaps was read */
		if (g->categories & EXM_PAGE_IS_PFNZERO)
			nzero += n;
		else
			present += n;
	}
	if (present * ps != v->rss)
		return 0; /* moved since smaps was read */
	ret = exm_build_reserve(b, m,
				nzero > UINT32_MAX ? UINT32_MAX
						   : (uint32_t)nzero);
	c->once = NULL; /* the zero pages' words: stored */
	for (size_t r = 0; !ret && r < c->nregions; r++) {
		const struct exm_page_region *g = &c->regions[r];

		if (g->categories & EXM_PAGE_IS_PFNZERO)
			ret = read_piece(c, b, m, g->start / ps,
					 (g->end - g->start) / ps, fd,
					 EXM_PM_ZERO);
	}
	if (ret) {
		exm_mapping_clear_pages(m);
		return ret;
	}
	m->counted = true;
	m->counted_rss = v->rss;
	c->asked = true;
	c->pp->nhuge++;
	return 1;
}

static int read_process(struct pm_ctx *c, struct exm_builder *b, int fd,
			int dirfd, const struct exm_scan_opts *opts,
			struct exm_proc *p, unsigned ps)
{
	bool big = false, sel = false;

	for (size_t i = 0; i < p->nmaps && !big; i++)
		big = (p->maps[i].end - p->maps[i].start) / ps > DIRECT_PAGES;
	if (big && smaps_room(c, p))
		return -ENOMEM;
	c->once_pid = p->pid;
	c->merging = -1;
	/* neither counts a page of its own (may_count) */
	c->mm_shared = big && c->pp->may_count &&
		       (mm_shared(c->pp, p->pid) || proc_merging(c));
	if (big)
		sel = !populated_from_smaps(c, dirfd, p);
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exm_mapping *m = &p->maps[i];
		size_t mi = i;
		int ret;

		if (m->kind == EXM_KIND_VSYSCALL)
			continue;
		if (sel && !c->want[i]) { /* smaps calls it empty */
			ret = empty_mapping(c, b, fd, &p->maps[i], ps);
			if (ret < 0)
				return ret;
			if (!ret)
				continue;
		} else if (sel && count_mapping(c, b, fd, opts, &p->maps[i],
						&c->cnt[i], ps)) {
			continue;
		}
		if (learns(c, opts, m, ps)) {
			size_t got;

			ret = sel ? shared_derive_whole(c, b, fd, &p->maps[i],
							&c->cnt[i], ps)
				  : 2;
			if (ret == 2) {
				ret = read_direct(c, b, fd, &p->maps[i], ps,
						  c->words, &got);
				if (!ret)
					shared_learn(c, m, c->words, got, ps);
			}
			if (ret)
				return ret;
			continue;
		}
		if (!big) { /* with those beside it read the same way */
			size_t j = i + 1;

			while (j < p->nmaps &&
			       p->maps[j].kind != EXM_KIND_VSYSCALL &&
			       !learns(c, opts, &p->maps[j], ps) &&
			       groups_with(&p->maps[j - 1], &p->maps[j],
					   m->start, ps))
				j++;
			ret = read_range(c, b, fd, p, &mi, ps, m->start / ps,
					 p->maps[j - 1].end / ps);
			if (ret)
				return ret;
			i = j - 1;
			continue;
		}
		if ((m->end - m->start) / ps > DIRECT_PAGES)
			c->pp->nwhole++;
		ret = read_range(c, b, fd, p, &mi, ps, m->start / ps,
				 m->end / ps);
		/* read whole for its shared pages: where they are, for the
		 * same range in other processes (also when it failed: who
		 * waits for it is woken) */
		if (sel && may_count(c, opts, m, &c->cnt[i], ps))
			seen_add(c->pp, m, !ret);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The kernel's Pss without its second walk (smaps_rollup): from the page
 * words just read and the mapping count of each frame, as smaps_account()
 * computes it. A page counts (PAGE_SIZE << 12) / mapcount, a page mapped
 * once (pagemap's exclusive bit: mapcount 1) its whole size; the sum is
 * truncated to kB once, as smaps_rollup prints it. Anonymous pages
 * (pagemap's file bit clear) count as Pss_Anon, the others as Pss_Shmem
 * when the frame is swap-backed (a tmpfs, memfd or shared anonymous
 * page), else Pss_File. The zero page, hugetlb pages and the frames of a
 * PFN mapping ([vvar]) are not in the kernel's Rss or Pss. Only the
 * frames not mapped once are looked up in /proc/kpagecount, sorted and
 * read in runs, each once a snapshot and worker (processes share them:
 * the counts read are kept, by frame), and a mapping whose words equal
 * an earlier one's takes that one's sum (see kpss_twin). Pss_Dirty and
 * SwapPss need a PTE's dirty bit and a swap entry's count, which no word
 * says: those come from smaps_rollup (want_rollup).
 */
enum { PSS_ANON, PSS_FILE, PSS_SHMEM, PSS_NCAT };

#define KPF_SWAPBACKED (UINT64_C(1) << 14)
#define COUNT_RUN 4096 /* frames per /proc/kpagecount read at most */
/* reads of 1 and of GAP_FRAMES frames timed for the gap, the best of
 * GAP_TRIES each (a read preempted only takes longer) */
#define GAP_FRAMES 1024
#define GAP_TRIES 4
#define PSS_SHIFT 12 /* the kernel's fixed point (fs/proc/task_mmu.c) */
/* frames listed as missing at most, then read (512 KiB of them) */
#define MISS_BATCH 65536

/* Whether the page cache pages of m's file are swap-backed (shmem): one
 * frame's flags say it of them all; a block device's file never is. */
static bool file_is_shmem(const struct pm_ctx *c, const struct exm_mapping *m,
			  uint64_t pfn, const struct exm_mapping **last,
			  bool *last_shmem)
{
	if (m->kind == EXM_KIND_SHMEM)
		return true;
	if (m->dev_major || !m->inode)
		return false;
	if (*last && (*last)->inode == m->inode &&
	    (*last)->dev_minor == m->dev_minor && !(*last)->dev_major)
		return *last_shmem;
	*last = m;
	*last_shmem = (kpf_of(c->pp, pfn) & KPF_SWAPBACKED) != 0;
	return *last_shmem;
}

/*
 * The cache of mapping counts: a count per frame in blocks of
 * CACHE_BLOCK consecutive frames (2 bytes a frame), found by two levels
 * of pointers from the frame number: a frame is one lookup, and a block
 * costs its 1 KiB only where frames were read (for the frames of a
 * fork-shared GiB, 2 bytes each where a hash table took 16 to 32; the
 * shared frames of an idle machine's libraries, scattered over its RAM,
 * fill 137 blocks of 512 frames where they filled 102 of 4096: 140 KB
 * against 835 KB). A count of 0 is not known yet (a frame read as mapped
 * 0 times, unmapped since its word was read, is kept as 1); CACHE_MANY, a
 * count too big for the block, is read alone each time (one_count); so are
 * frames beyond CACHE_FRAMES (4 PiB of RAM). The levels made are listed
 * (cache_mem), so that freeing them reads no untouched pointer page.
 */
#define CACHE_BLOCK_BITS 9
#define CACHE_MID_BITS 17
#define CACHE_TOP_BITS 14
#define CACHE_BLOCK (UINT64_C(1) << CACHE_BLOCK_BITS)
#define CACHE_MID (UINT64_C(1) << CACHE_MID_BITS)
#define CACHE_FRAMES \
	(UINT64_C(1) << (CACHE_BLOCK_BITS + CACHE_MID_BITS + CACHE_TOP_BITS))
#define CACHE_MANY UINT16_MAX

/* A level of the cache: n zeroed bytes after this header. */
struct cache_mem {
	struct cache_mem *next;
	uint64_t pad; /* the level 16-byte aligned, as malloc's */
};

/* Install a fresh level (zeroed, n bytes) at *at unless another worker
 * did first; what is there then. NULL on ENOMEM. */
static void *cache_level(struct pm_priv *pp, void *_Atomic *at, size_t n)
{
	void *cur = atomic_load_explicit(at, memory_order_acquire);
	struct cache_mem *m;

	if (cur)
		return cur;
	m = calloc(1, sizeof(*m) + n);
	if (!m)
		return NULL;
	if (!atomic_compare_exchange_strong(at, &cur, (void *)(m + 1))) {
		free(m); /* cur: the other worker's */
		return cur;
	}
	m->next = atomic_load_explicit(&pp->cache_mem, memory_order_relaxed);
	while (!atomic_compare_exchange_weak(&pp->cache_mem, &m->next, m))
		;
	return m + 1;
}

/* The counts' slot of pfn, or NULL when its block is not there (made
 * when make, NULL then on ENOMEM too). The workers share the cache: a
 * level is installed by compare and swap, a count stored whole. */
static count16 *cache_slot(struct pm_ctx *c, uint64_t pfn, bool make)
{
	count_mid *top = c->pp->cache;
	count_block *mid;
	count16 *blk;

	if (pfn >= CACHE_FRAMES || !top)
		return NULL;
	top += pfn >> (CACHE_BLOCK_BITS + CACHE_MID_BITS);
	mid = make ? cache_level(c->pp, (void *_Atomic *)top,
				 CACHE_MID * sizeof(count_block))
		   : atomic_load_explicit(top, memory_order_acquire);
	if (!mid)
		return NULL;
	mid += (pfn >> CACHE_BLOCK_BITS) & (CACHE_MID - 1);
	blk = make ? cache_level(c->pp, (void *_Atomic *)mid,
				 CACHE_BLOCK * sizeof(count16))
		   : atomic_load_explicit(mid, memory_order_acquire);
	return blk ? &blk[pfn & (CACHE_BLOCK - 1)] : NULL;
}

/* Forget the counts (between snapshots: they move). */
static void cache_free(struct pm_priv *pp)
{
	struct cache_mem *m = pp->cache_mem;

	while (m) {
		struct cache_mem *next = m->next;

		free(m);
		m = next;
	}
	pp->cache_mem = NULL;
	free(pp->cache);
	pp->cache = NULL;
}

/* The cached mapping count of pfn, or false (also for a frame read
 * alone: see one_count). */
static bool cached_count(struct pm_ctx *c, uint64_t pfn, uint64_t *count)
{
	count16 *s = cache_slot(c, pfn, false);
	uint16_t v = s ? atomic_load_explicit(s, memory_order_relaxed) : 0;

	if (!v || v == CACHE_MANY)
		return false;
	*count = v;
	return true;
}

static int cache_put(struct pm_ctx *c, uint64_t pfn, uint64_t count)
{
	count16 *s;

	if (pfn >= CACHE_FRAMES)
		return 0;
	s = cache_slot(c, pfn, true);
	if (!s)
		return -ENOMEM;
	atomic_store_explicit(s,
			      count < CACHE_MANY ? (uint16_t)count : CACHE_MANY,
			      memory_order_relaxed);
	return 0;
}

/* The source's gap (exm_count_gap) from reads of the block of frames
 * around pfn, a frame in use (so its block is memory, not a hole); left
 * as it was when a read comes back short. */
static void measure_gap(struct pm_ctx *c, uint64_t pfn)
{
	uint64_t lo = pfn & ~(uint64_t)(GAP_FRAMES - 1);
	uint64_t one = UINT64_MAX, many = UINT64_MAX, t;
	int64_t t0;

	for (int k = 0; k < GAP_TRIES; k++) {
		t0 = exm_clock_ns(CLOCK_MONOTONIC);
		if (pread(c->pp->kpc, c->counts, 8, (off_t)(lo * 8)) != 8)
			return;
		t = (uint64_t)(exm_clock_ns(CLOCK_MONOTONIC) - t0);
		one = t < one ? t : one;
		t0 = exm_clock_ns(CLOCK_MONOTONIC);
		if (pread(c->pp->kpc, c->counts, GAP_FRAMES * 8,
			  (off_t)(lo * 8)) != GAP_FRAMES * 8)
			return;
		t = (uint64_t)(exm_clock_ns(CLOCK_MONOTONIC) - t0);
		many = t < many ? t : many;
	}
	atomic_store(&c->pp->count_gap, exm_count_gap(one, many, GAP_FRAMES));
}

/* Read the mapping counts of c->miss[0..n) (sorted, distinct) from
 * /proc/kpagecount, in runs, into the cache; 0 or -errno. */
static int read_counts(struct pm_ctx *c, size_t n)
{
	size_t i = 0;
	unsigned gap;

	if (!c->counts) {
		c->counts = malloc(COUNT_RUN * sizeof(*c->counts));
		if (!c->counts)
			return -ENOMEM;
	}
	if (n && !atomic_exchange(&c->pp->gap_asked, true))
		measure_gap(c, c->miss[0]);
	gap = atomic_load_explicit(&c->pp->count_gap, memory_order_relaxed);
	while (i < n) {
		uint64_t lo = c->miss[i], hi = lo + 1;
		size_t j = i + 1;
		ssize_t got;

		while (j < n && c->miss[j] - hi <= gap &&
		       c->miss[j] - lo < COUNT_RUN)
			hi = c->miss[j++] + 1;
		do {
			got = pread(c->pp->kpc, c->counts, (hi - lo) * 8,
				    (off_t)(lo * 8));
		} while (got < 0 && errno == EINTR);
		if (got < 0)
			return -errno;
		for (; i < j; i++) {
			uint64_t k = c->miss[i] - lo;
			/* 0: unmapped since its word was read */
			uint64_t mc = k < (uint64_t)got / 8 ? c->counts[k] : 1;
			int ret = cache_put(c, c->miss[i], mc ? mc : 1);

			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Read the counts of the frames listed in c->miss[0..*n) (in any order,
 * repeated or not) into the cache; the list is empty after. */
static int read_missing(struct pm_ctx *c, size_t *n)
{
	size_t nmiss = 0;

	if (c->cap_sort < *n) {
		uint64_t *t = realloc(c->sort, *n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		c->sort = t;
		c->cap_sort = *n;
	}
	exm_sort_frames(c->miss, c->sort, *n);
	for (size_t i = 0; i < *n; i++)
		if (!nmiss || c->miss[nmiss - 1] != c->miss[i])
			c->miss[nmiss++] = c->miss[i];
	*n = 0;
	return read_counts(c, nmiss);
}

/* The mapping count of a frame that cannot be cached (beyond 4 PiB),
 * read alone; 1 when it cannot be read. */
static uint64_t one_count(const struct pm_ctx *c, uint64_t pfn)
{
	uint64_t mc = 1;

	if (pfn > EXM_PM_PFN_MASK ||
	    pread(c->pp->kpc, &mc, sizeof(mc), (off_t)(pfn * 8)) != sizeof(mc))
		return 1;
	return mc ? mc : 1;
}

/* The kernel's category of a resident page word of m (see above). */
static unsigned pss_cat(const struct pm_ctx *c, const struct exm_mapping *m,
			uint64_t w, const struct exm_mapping **last,
			bool *last_shmem)
{
	if (!(w & EXM_PM_FILE))
		return PSS_ANON;
	if (m->kind == EXM_KIND_SHMEM || m->inode)
		return file_is_shmem(c, m, exm_pm_key(w), last, last_shmem)
			       ? PSS_SHMEM
			       : PSS_FILE;
	return PSS_FILE;
}

/* The mapping count of the pages mapped more than once of a mapping
 * (map_sum.mc): none yet, or several counts. */
#define MC_NONE 0
#define MC_SEVERAL UINT64_MAX

/*
 * Add the Pss of m's pages to pss[] and their bytes to *rss. Pass 0 lists
 * in c->miss the frames mapped more than once whose count is not cached;
 * pass 1, once they are read, adds the shares, and keeps in *mc the count
 * of those mapped more than once (MC_NONE, MC_SEVERAL). 0 or -errno.
 */
static int pss_map(struct pm_ctx *c, const struct exm_mapping *m, unsigned ps,
		   int pass, size_t *nmiss, uint64_t pss[PSS_NCAT],
		   uint64_t *rss, uint64_t *mc_shared,
		   const struct exm_mapping **last, bool *last_shmem)
{
	uint64_t full = (uint64_t)ps << PSS_SHIFT, mc;

	for (uint32_t j = 0; j < m->npages; j++) {
		uint64_t w = exm_mapping_word(m, j), pfn = exm_pm_key(w);

		if (!exm_pm_resident(w))
			continue;
		if (pass == 0) {
			if ((w & EXM_PM_EXCLUSIVE) || cached_count(c, pfn, &mc))
				continue;
			if (*nmiss == MISS_BATCH) {
				int ret = read_missing(c, nmiss);

				if (ret)
					return ret;
			}
			if (*nmiss == c->cap_miss) {
				size_t cap = c->cap_miss * 2 + 1024;
				uint64_t *t = realloc(c->miss,
						      cap * sizeof(*t));

				if (!t)
					return -ENOMEM;
				c->miss = t;
				c->cap_miss = cap;
			}
			c->miss[(*nmiss)++] = pfn;
			continue;
		}
		*rss += ps;
		if (w & EXM_PM_EXCLUSIVE)
			mc = 1;
		else if (!cached_count(c, pfn, &mc))
			mc = one_count(c, pfn);
		if (mc > 1 && *mc_shared != mc)
			*mc_shared = *mc_shared == MC_NONE ? mc : MC_SEVERAL;
		pss[pss_cat(c, m, w, last, last_shmem)] += full /
							   (mc > 1 ? mc : 1);
	}
	return 0;
}

/*
 * Twins: forked processes, or processes sharing memory or a library,
 * hold mappings with the very same page words. The mapping counts of a
 * snapshot are read once per worker (the cache), so such a mapping's Pss
 * is the same sum: it is summed once and taken for every twin the worker
 * meets after it, found by a key of sampled words and compared whole (as
 * accounting finds its twins, see account.c): a comparison of the words
 * costs far less than a cache lookup per page. What the sum depends on
 * besides the words is compared too: the mapping's kind and file (which
 * decide Pss_Shmem against Pss_File). A twin is named by its place in
 * the worker's snapshot and its pid (a place is never reused for another
 * process once its Pss is summed: only a process whose Pss was summed
 * enters the table, and it stays).
 */
#define TWIN_MIN_PAGES 64 /* smaller mappings are summed as they are */
#define TWIN_TRIES 4	  /* whole comparisons at most, per mapping */
#define TWIN_SAME 16	  /* entries with one key at most */
#define NO_TWIN UINT32_MAX

struct kpss_twin {
	uint64_t key; /* 0: an empty slot */
	pid_t pid;
	uint32_t proc, map; /* in the worker's snapshot */
	uint64_t pss[PSS_NCAT], rss;
	uint64_t mc; /* of its pages mapped more than once (map_sum.mc) */
};

/* m's key (never 0), or 0 when m is not worth a twin. */
static uint64_t twin_key(const struct exm_mapping *m)
{
	uint64_t h;

	if (m->npages < TWIN_MIN_PAGES || m->hugetlb ||
	    m->kind == EXM_KIND_VVAR)
		return 0;
	h = exm_mapping_words_key(m) ^ m->inode ^ ((uint64_t)m->kind << 40);
	return h ? h : 1;
}

static bool twin_same(const struct exm_mapping *a, const struct exm_mapping *b)
{
	return a->kind == b->kind && a->inode == b->inode &&
	       a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->hugetlb == b->hugetlb && exm_mapping_same_words(a, b);
}

/* The mapping a twin entry names, or NULL when it names none now. */
static const struct exm_mapping *twin_map(const struct exm_builder *b,
					  const struct kpss_twin *t)
{
	const struct exm_proc *q;

	if (t->proc >= b->snap->nprocs)
		return NULL;
	q = &b->snap->procs[t->proc];
	return q->pid == t->pid && t->map < q->nmaps ? &q->maps[t->map] : NULL;
}

/* The entry of a twin of m (key k), or NO_TWIN. */
static uint32_t twin_find(const struct pm_ctx *c, const struct exm_builder *b,
			  const struct exm_mapping *m, uint64_t k)
{
	unsigned tries = 0;

	if (!k || !c->twin_cap)
		return NO_TWIN;
	for (size_t i = k & (c->twin_cap - 1); c->twins[i].key;
	     i = (i + 1) & (c->twin_cap - 1)) {
		const struct exm_mapping *o;

		if (c->twins[i].key != k)
			continue;
		if (tries++ == TWIN_TRIES)
			break;
		o = twin_map(b, &c->twins[i]);
		if (o && twin_same(o, m))
			return (uint32_t)i;
	}
	return NO_TWIN;
}

static void twin_put(struct kpss_twin *t, size_t cap, const struct kpss_twin *e)
{
	size_t i = e->key & (cap - 1);

	while (t[i].key)
		i = (i + 1) & (cap - 1);
	t[i] = *e;
}

/* Keep e's sums for the twins to come (only a help: nothing is lost when
 * memory runs short, or when TWIN_SAME entries have e's key). */
/* Add e to the table *t of *cap slots, *n used (at most TWIN_SAME
 * entries with one key: the others are not kept, nor on ENOMEM). */
static void twin_add_to(struct kpss_twin **t, size_t *cap, size_t *n,
			const struct kpss_twin *e)
{
	unsigned same = 0;

	if ((*n + 1) * 2 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct kpss_twin *nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return;
		for (size_t k = 0; k < *cap; k++)
			if ((*t)[k].key)
				twin_put(nt, ncap, &(*t)[k]);
		free(*t);
		*t = nt;
		*cap = ncap;
	}
	for (size_t i = e->key & (*cap - 1); (*t)[i].key;
	     i = (i + 1) & (*cap - 1))
		if ((*t)[i].key == e->key && ++same == TWIN_SAME)
			return;
	twin_put(*t, *cap, e);
	(*n)++;
}

static void twin_add(struct pm_ctx *c, const struct kpss_twin *e)
{
	twin_add_to(&c->twins, &c->twin_cap, &c->twin_n, e);
}

/*
 * Words stored once: a mapping whose packed words in the page store equal
 * an earlier one's of this worker (a fork's copy-on-write memory, the same
 * shared memory or library pages) takes that one's array and gives its
 * own back (exm_mapping_share_words). On a resident-heavy machine most
 * words are such copies: the store, most of a snapshot's memory, holds
 * each once. The earlier mappings are found as kpss_twin finds them (by
 * place and pid, compared whole).
 */
static void share_words(struct pm_ctx *c, struct exm_builder *b,
			const struct exm_proc *p, struct exm_mapping *m)
{
	struct kpss_twin e = { .pid = p->pid,
			       .proc = (uint32_t)(p - b->snap->procs),
			       .map = (uint32_t)(m - p->maps) };
	unsigned tries = 0;

	if (m->npages < TWIN_MIN_PAGES || !m->pages32 || !m->pages_borrowed)
		return;
	e.key = exm_mapping_words_key(m) | 1;
	for (size_t i = c->wtwin_cap ? e.key & (c->wtwin_cap - 1) : 0;
	     c->wtwin_cap && c->wtwins[i].key;
	     i = (i + 1) & (c->wtwin_cap - 1)) {
		const struct exm_mapping *o;

		if (c->wtwins[i].key != e.key)
			continue;
		if (tries++ == TWIN_TRIES)
			break;
		o = twin_map(b, &c->wtwins[i]);
		if (o && o != m && o->pages32 && o->pages_borrowed &&
		    exm_mapping_same_words(o, m)) {
			exm_mapping_share_words(b->snap, m, o);
			return;
		}
	}
	twin_add_to(&c->wtwins, &c->wtwin_cap, &c->wtwin_n, &e);
}

/* Room for p's per-mapping twin facts. */
static int twin_room(struct pm_ctx *c, size_t nmaps)
{
	uint32_t *o;
	uint64_t *k;
	struct map_sum *s;

	if (c->cap_twin_of >= nmaps)
		return 0;
	o = realloc(c->twin_of, nmaps * sizeof(*o));
	if (!o)
		return -ENOMEM;
	c->twin_of = o;
	k = realloc(c->twin_key, nmaps * sizeof(*k));
	if (!k)
		return -ENOMEM;
	c->twin_key = k;
	s = realloc(c->msum, nmaps * sizeof(*s));
	if (!s)
		return -ENOMEM;
	c->msum = s;
	c->cap_twin_of = nmaps;
	return 0;
}

/*
 * The Pss of p's pages from their words (see above): the sums of twins
 * already met taken as they are found, the others summed in two passes
 * around one read of the counts missing (pss_map), then kept for their
 * twins (after the last step that can fail: p stays in the snapshot).
 */
static int pss_sum(struct pm_ctx *c, const struct exm_builder *b,
		   const struct exm_proc *p, unsigned ps,
		   uint64_t pss[PSS_NCAT], uint64_t *rss)
{
	const struct exm_mapping *last = NULL;
	bool last_shmem = false;
	size_t n = 0;
	int ret = twin_room(c, p->nmaps);

	for (size_t i = 0; !ret && i < p->nmaps; i++) {
		const struct exm_mapping *m = &p->maps[i];
		uint32_t t;

		c->twin_key[i] = twin_key(m);
		c->twin_of[i] = t = twin_find(c, b, m, c->twin_key[i]);
		c->msum[i] = (struct map_sum){ 0 };
		if (t != NO_TWIN) {
			for (unsigned k = 0; k < PSS_NCAT; k++) {
				pss[k] += c->twins[t].pss[k];
				c->msum[i].pss += c->twins[t].pss[k];
			}
			*rss += c->twins[t].rss;
			c->msum[i].rss = c->twins[t].rss;
			c->msum[i].mc = c->twins[t].mc;
		} else if (!m->hugetlb && m->kind != EXM_KIND_VVAR) {
			ret = pss_map(c, m, ps, 0, &n, pss, rss, NULL, &last,
				      &last_shmem);
		}
	}
	if (ret)
		return ret;
	ret = read_missing(c, &n);
	if (ret)
		return ret;
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exm_mapping *m = &p->maps[i];
		struct kpss_twin e = { .key = c->twin_key[i],
				       .pid = p->pid,
				       .proc = (uint32_t)(p - b->snap->procs),
				       .map = (uint32_t)i };

		if (c->twin_of[i] != NO_TWIN || m->hugetlb ||
		    m->kind == EXM_KIND_VVAR)
			continue;
		/* pass 1 cannot fail: its counts are cached or read alone */
		pss_map(c, m, ps, 1, &n, e.pss, &e.rss, &e.mc, &last,
			&last_shmem);
		for (unsigned k = 0; k < PSS_NCAT; k++) {
			pss[k] += e.pss[k];
			c->msum[i].pss += e.pss[k];
		}
		*rss += e.rss;
		c->msum[i].rss = e.rss;
		c->msum[i].mc = e.mc;
		if (e.key)
			twin_add(c, &e);
	}
	return 0;
}

/* The kernel's Pss figures of p from its words and the mapping counts
 * into k (and c->msum: each mapping's); 0 or -errno. */
static int kpss_counted(struct pm_ctx *c, struct exm_builder *b,
			struct exm_proc *p, unsigned ps, struct exm_kpss *k)
{
	uint64_t pss[PSS_NCAT] = { 0 }, rss = 0;
	int ret = pss_sum(c, b, p, ps, pss, &rss);

	if (ret)
		return ret;
	/* counted mappings: anonymous pages mapped once, whole shares */
	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].counted) {
			uint64_t r = p->maps[i].counted_rss;

			rss += r;
			pss[PSS_ANON] += r << PSS_SHIFT;
			c->msum[i].rss += r;
			c->msum[i].pss += r << PSS_SHIFT;
		}
	/* truncated to kB once, as smaps_rollup prints them */
	*k = (struct exm_kpss){ 0 };
	k->pss_anon = pss[PSS_ANON] >> PSS_SHIFT >> 10 << 10;
	k->pss_file = pss[PSS_FILE] >> PSS_SHIFT >> 10 << 10;
	k->pss_shmem = pss[PSS_SHMEM] >> PSS_SHIFT >> 10 << 10;
	k->pss = (pss[PSS_ANON] + pss[PSS_FILE] + pss[PSS_SHMEM]) >>
		 PSS_SHIFT >> 10 << 10;
	k->rss = rss;
	k->has = EXM_KPSS_PSS | EXM_KPSS_PSS_ANON | EXM_KPSS_PSS_FILE |
		 EXM_KPSS_PSS_SHMEM | EXM_KPSS_RSS;
	return 0;
}

static int kpss_from_counts(struct pm_ctx *c, struct exm_builder *b,
			    struct exm_proc *p, unsigned ps)
{
	struct exm_kpss k;
	int ret = kpss_counted(c, b, p, ps, &k);

	if (!ret)
		exm_build_kpss(b, p, &k);
	return ret;
}

/* kB as smaps prints a figure kept << PSS_SHIFT */
#define PSS_KB(x) ((x) >> PSS_SHIFT >> 10)

/* A mapping's Pss_Dirty << PSS_SHIFT as smaps' counts and its Pss say
 * it (see kpss_from_smaps), or UINT64_MAX when they cannot. */
static uint64_t map_dirty(const struct vma_counts *v, const struct map_sum *m,
			  unsigned ps)
{
	uint64_t full = (uint64_t)ps << PSS_SHIFT;

	if (!v->sh_dirty)
		return v->priv_dirty << PSS_SHIFT;
	if (!v->sh_clean && m->pss >= v->priv_clean << PSS_SHIFT)
		return m->pss - (v->priv_clean << PSS_SHIFT);
	if (m->mc != MC_NONE && m->mc != MC_SEVERAL)
		return (v->priv_dirty << PSS_SHIFT) +
		       v->sh_dirty / ps * (full / m->mc);
	return UINT64_MAX;
}

/*
 * All of smaps_rollup's figures without its walk, where read mode read
 * smaps anyway (for its counts: populated_from_smaps). smaps_rollup adds
 * up the same per-mapping figures smaps prints, but truncates each sum
 * to kB once where smaps truncates each mapping's, so a sum of smaps'
 * kB may fall short. Exact instead:
 * - Pss and its split, Rss: from the mapping counts (kpss_counted), and
 *   each mapping's Pss and Rss must be what smaps says of it (the cross-
 *   check against the kernel's own walk the alerts want);
 * - Pss_Dirty: a page mapped once counts whole (Private_*), one mapped
 *   more often its share (Shared_*), dirty or clean. So a mapping's is
 *   its Private_Dirty when it has no shared dirty page, its Pss less
 *   Private_Clean when it has no shared clean one, and Private_Dirty
 *   plus a share per shared dirty page when all its shared pages have
 *   one mapping count (fork-shared memory): known to the fixed point, and
 *   each must be what smaps says truncated. One mapping holding shared
 *   pages of several counts both dirty and clean may be taken as smaps
 *   truncates it only when the others add up to whole kB;
 * - SwapPss: a mapping's equals Swap when each of its swap entries is
 *   mapped once (whole pages); one that shares entries may be taken as
 *   smaps truncates it, as the others are whole kB.
 * Else (two such mappings, a VMA that is none of the mappings, a
 * mapping's Pss or Rss not what smaps says: a race or an averaged
 * mapcount) 1: read smaps_rollup. 0 done, or -errno.
 */
static int kpss_from_smaps(struct pm_ctx *c, struct exm_builder *b,
			   struct exm_proc *p, unsigned ps)
{
	uint64_t dirty = 0, mixed_kb = 0;
	unsigned mixed = 0, shared_swap = 0;
	bool has_dirty = p->nmaps > 0;
	struct exm_kpss k;
	int ret;

	if (!c->smaps_whole)
		return 1;
	ret = kpss_counted(c, b, p, ps, &k);
	if (ret)
		return ret;
	k.has |= EXM_KPSS_SWAP_PSS;
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct vma_counts *v = &c->cnt[i];
		const struct map_sum *m = &c->msum[i];

		if (!v->known || PSS_KB(m->pss) != v->pss >> 10 ||
		    m->rss != v->rss)
			return 1;
		if (v->swap_pss != v->swap && shared_swap++)
			return 1;
		k.swap_pss += v->swap_pss;
		has_dirty &= v->has_dirty;
	}
	for (size_t i = 0; has_dirty && i < p->nmaps; i++) {
		const struct vma_counts *v = &c->cnt[i];
		uint64_t d = map_dirty(v, &c->msum[i], ps);

		if (d == UINT64_MAX) {
			if (mixed++)
				return 1;
			mixed_kb = v->pss_dirty;
		} else if (PSS_KB(d) != v->pss_dirty >> 10) {
			return 1;
		} else {
			dirty += d;
		}
	}
	if (has_dirty) {
		if (mixed && PSS_KB(dirty) << 10 << PSS_SHIFT != dirty)
			return 1;
		k.pss_dirty = (PSS_KB(dirty) << 10) + mixed_kb;
		k.has |= EXM_KPSS_PSS_DIRTY;
	}
	exm_build_kpss(b, p, &k);
	return 0;
}

static void reset_pages(struct exm_proc *p)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		exm_mapping_clear_pages(&p->maps[i]);
		p->maps[i].counted = false; /* count_once's */
		p->maps[i].counted_rss = p->maps[i].counted_swap = 0;
	}
}

static int pm_walk_proc(struct exm_source *src, void *ctx,
			const struct exm_scan_opts *opts, struct exm_builder *b,
			struct exm_proc *p, struct exm_pdir *d)
{
	struct pm_priv *pp = src->priv;
	struct pm_ctx *c = ctx;
	unsigned ps = b->snap->sys.page_size;
	int fd, ret = 1, dirfd = exm_pdir_fd(d);

	if (dirfd < 0)
		return dirfd;
	fd = openat(dirfd, "pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	c->typed = NULL;
	c->dirfd = dirfd;
	c->smaps_whole = false;
	if (opts->knob < EXM_PMODE_READ && pp->scan != SCAN_NO) {
		c->asked = c->read = false;
		ret = scan_process(c, b, fd, opts, p, ps,
				   opts->knob == EXM_PMODE_AUTO);
		if (ret == 1) {
			pp->scan = SCAN_NO;
			if (opts->knob == EXM_PMODE_SCAN) {
				scan_why(src->errmsg, sizeof(src->errmsg),
					 pp->scan_errno, NULL);
				close(fd);
				return -EOPNOTSUPP;
			}
			reset_pages(p);
		} else if (!ret) {
			if (c->asked) {
				pp->scan = SCAN_YES;
				pp->any_scan = true;
			}
			if (c->read)
				pp->any_read = true;
		}
	}
	if (ret == 1) {
		ret = read_process(c, b, fd, dirfd, opts, p, ps);
		pp->any_read = true;
	}
	close(fd);
	if (ret)
		return ret == -EIO ? -ESRCH : ret;
	if (exm_want_kpss(opts, p->pid)) {
		if (pp->kpc < 0 ||
		    (opts->want_rollup ? kpss_from_smaps(c, b, p, ps)
				       : kpss_from_counts(c, b, p, ps)))
			ret = exm_read_kpss(b, d, p);
		if (ret && !exm_errno_gone(ret))
			ret = 0; /* figures stay unmeasured */
	}
	return ret;
}

/* A process unchanged since the last snapshot keeps its words (reuse.h);
 * the others are walked. */
static int pm_proc(struct exm_source *src, void *ctx,
		   const struct exm_scan_opts *opts, struct exm_builder *b,
		   struct exm_proc *p, struct exm_pdir *d)
{
	struct pm_priv *pp = src->priv;
	int ret = exm_reuse_take(src->reuse, b, p, d, opts);

	if (ret == 2) { /* kept words: the kernel's Pss from their counts */
		if (pp->kpc < 0 ||
		    kpss_from_counts(ctx, b, p, b->snap->sys.page_size))
			ret = exm_read_kpss(b, d, p);
		else
			ret = 0;
		return exm_errno_gone(ret) ? ret : 0;
	}
	if (ret)
		return ret == 1 ? 0 : ret;
	return pm_walk_proc(src, ctx, opts, b, p, d);
}

/* A new cache of mapping counts (for one snapshot or one kpss_again);
 * 0 or -ENOMEM. */
static int cache_new(struct pm_priv *pp)
{
	pp->cache = calloc(CACHE_FRAMES / CACHE_MID / CACHE_BLOCK,
			   sizeof(*pp->cache));
	return pp->cache ? 0 : -ENOMEM;
}

/* Kept processes whose words' mapping counts moved: their kernel Pss
 * again, from those counts read now (exm_source_ops.kpss_again), in a
 * cache of their own (the snapshot's is gone). */
static int pm_kpss_again(struct exm_source *src, struct exm_snapshot *snap,
			 struct exm_proc *const *procs, size_t n)
{
	struct pm_priv *pp = src->priv;
	struct exm_builder b;
	struct pm_ctx *c;
	int ret = 0;

	if (pp->kpc < 0)
		return -EOPNOTSUPP;
	if (cache_new(pp))
		return -ENOMEM;
	c = pm_ctx_new(src);
	if (!c) {
		cache_free(pp);
		return -ENOMEM;
	}
	exm_builder_init(&b, snap);
	for (size_t k = 0; k < n && !ret; k++)
		ret = kpss_from_counts(c, &b, procs[k], snap->sys.page_size);
	pm_ctx_free(c);
	cache_free(pp);
	return ret;
}

/* The header's note when big mappings were read whole where the kernel
 * has no PAGEMAP_SCAN (pm_fill). */
#define WHOLE_NOTE                                                         \
	"big mappings read at every virtual page (8 bytes a page): "       \
	"without PAGEMAP_SCAN (Linux 6.7+) only the exmtop module avoids " \
	"it"

/* Read mode's big mappings in the source detail: how many were counted
 * (count_mapping) and how many read whole, the cost only the module or
 * PAGEMAP_SCAN (6.7+) avoids when a big mapping holds a shared page. */
static void detail_counts(char *detail, size_t len, const struct pm_priv *pp)
{
	size_t n = strlen(detail);

	if (pp->ncounted)
		n += (size_t)snprintf(detail + n, len - n,
				      ", %llu big mappings counted",
				      (unsigned long long)pp->ncounted);
	if (pp->nhuge && n < len)
		n += (size_t)snprintf(detail + n, len - n,
				      " (%llu on huge pages, from smaps)",
				      (unsigned long long)pp->nhuge);
	if (pp->nlocated && n < len)
		n += (size_t)snprintf(detail + n, len - n, ", %llu %slocated",
				      (unsigned long long)pp->nlocated,
				      pp->ncounted ? "" : "big mappings ");
	if (pp->nwhole && n < len)
		n += (size_t)snprintf(detail + n, len - n,
				      ", %llu %sread whole",
				      (unsigned long long)pp->nwhole,
				      pp->ncounted || pp->nlocated
					      ? ""
					      : "big mappings ");
	if (pp->nderived && n < len)
		snprintf(detail + n, len - n,
			 ", %llu shared mappings from frames already read",
			 (unsigned long long)pp->nderived);
}

/* Whether the swap cache holds pages (or it is not known) as the
 * snapshot begins (count_once). */
static bool swap_cached(const struct exm_sysinfo *sys)
{
	uint64_t bytes;

	return !exm_meminfo_get(&sys->meminfo, "SwapCached", &bytes) || bytes;
}

static int pm_fill(struct exm_source *src, const struct exm_scan_opts *opts,
		   struct exm_builder *b)
{
	static const struct exm_walk walk = {
		.fn = pm_proc,
		.read_maps = true,
		.ctx_new = pm_ctx_new,
		.ctx_free = pm_ctx_free,
	};
	struct pm_priv *pp = src->priv;
	struct exm_scan_opts o = *opts;
	struct exm_sysinfo sys;
	int ret;

	if (src->arg && *src->arg) {
		o.proc_root = src->arg;
		o.include_self = true; /* our pid means nothing there */
	}
	exm_sysfacts_local(&sys, o.proc_root);
	snprintf(sys.source, sizeof(sys.source), "pagemap");
	sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE |
		   EXM_CAP_ALLPROCS | (opts->want_kpss ? EXM_CAP_KPSS : 0);
	snprintf(sys.limits, sizeof(sys.limits),
		 "writable is approximate: exclusive anonymous pages in "
		 "writable private mappings");
	ret = exm_build_begin(b, &sys);
	if (ret)
		return ret;
	if (opts->want_kpss && pp->kpc < 0) {
		char path[300];

		snprintf(path, sizeof(path), "%s/kpagecount",
			 src->arg && *src->arg ? src->arg : "/proc");
		pp->kpc = open(path, O_RDONLY | O_CLOEXEC);
	}
	pp->any_scan = pp->any_read = false;
	shared_forget(pp);    /* frames change between snapshots */
	pp->mm_known = false; /* so do processes */
	pp->ncounted = pp->nwhole = pp->nlocated = pp->nderived = 0;
	pp->nhuge = 0;
	pp->swapcache = swap_cached(&b->snap->sys);
	pp->ksm_sharing = o.proc_root && *o.proc_root &&
					  strcmp(o.proc_root, "/proc")
				  ? 0
				  : exm_ksm_sharing();
	if (opts->knob == EXM_PMODE_SCAN && pp->scan == SCAN_NO) {
		scan_why(src->errmsg, sizeof(src->errmsg), pp->scan_errno,
			 NULL);
		return -EOPNOTSUPP;
	}
	if (pp->kpc >= 0 && cache_new(pp))
		return -ENOMEM;
	ret = exm_proc_walk(src, &o, b, &walk);
	cache_free(pp);
	if (!ret && opts->want_swapcache)
		ret = exm_swapcache_mapped(b->snap, o.proc_root);
	if (!ret)
		ret = exm_ksm_mark(b->snap, o.proc_root, pp->ksm_sharing);
	/* auto on a kernel with the ioctl: big mappings asked about, small
	 * ones read at once (see DIRECT_PAGES). How the pages were read is
	 * known only now: the one fact set after begin. */
	if (opts->knob == EXM_PMODE_AUTO && pp->scan == SCAN_YES)
		pp->any_scan = true;
	snprintf(b->snap->sys.source_detail, sizeof(b->snap->sys.source_detail),
		 "%s",
		 pp->any_scan && !pp->any_read ? "PAGEMAP_SCAN"
		 : pp->any_scan		       ? "PAGEMAP_SCAN+reads"
					       : "chunked reads");
	detail_counts(b->snap->sys.source_detail,
		      sizeof(b->snap->sys.source_detail), pp);
	/* a kernel of 6.7+ whose PAGEMAP_SCAN is refused (a seccomp filter,
	 * an emulator): read mode instead, for the whole run; said once a
	 * snapshot, where the source detail says how pages were read */
	if (pp->scan == SCAN_NO && !(src->arg && *src->arg) &&
	    opts->knob < EXM_PMODE_READ) {
		char why[200];
		bool plain;

		scan_why(why, sizeof(why), pp->scan_errno, &plain);
		if (!plain) {
			char note[256];

			snprintf(note, sizeof(note),
				 "%s: pages read without it", why);
			exm_sys_note(&b->snap->sys, note);
		}
	}
	/* what only the module spares a kernel without PAGEMAP_SCAN */
	if (pp->nwhole && opts->knob != EXM_PMODE_READ_ALL &&
	    pp->scan != SCAN_YES)
		exm_sys_note(&b->snap->sys, WHOLE_NOTE);
	return ret;
}

static const char *const pm_modes[] = { [EXM_PMODE_AUTO] = "auto",
					[EXM_PMODE_SCAN] = "scan",
					[EXM_PMODE_READ] = "read",
					[EXM_PMODE_READ_ALL] = "read-all",
					NULL };

const struct exm_source_knob exm_pagemap_knob = {
	.source = "pagemap",
	.words = pm_modes,
	.help = "auto, scan (PAGEMAP_SCAN ioctl, Linux 6.7+), read, or "
		"read-all (read, with the frames of mappings whose pages the "
		"kernel says are mapped once read too)",
};

/* --pagemap-mode scan where PAGEMAP_SCAN cannot be had is a bad value,
 * known before any snapshot (exm_source_ops.knob_check). */
static int pm_knob_check(struct exm_source *src, int knob)
{
	struct pm_priv *pp = src->priv;

	if (knob != EXM_PMODE_SCAN || pp->scan != SCAN_NO)
		return 0;
	scan_why(src->errmsg, sizeof(src->errmsg), pp->scan_errno, NULL);
	return -EOPNOTSUPP;
}

const struct exm_source_ops exm_source_pagemap = {
	.name = "pagemap",
	.knob = &exm_pagemap_knob,
	.knob_check = pm_knob_check,
	.help = "root",
	.arg_unlisted = true,
	.probe = exm_pagemap_has_pfns,
	.open = pm_open,
	.fill = pm_fill,
	.close = pm_close,
	.kpss_again = pm_kpss_again,
};
