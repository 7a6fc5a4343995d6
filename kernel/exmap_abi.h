/* SPDX-License-Identifier: GPL-2.0-or-later WITH Linux-syscall-note */
/*
 * exmap_abi.h - the interface of /dev/exmap, shared by the kernel module
 * (kernel/exmap.c) and exmtop's kmod source (core/source_kmod.c).
 *
 * Fixed-size types only; every argument struct starts with its size and the
 * ABI version the caller was built for. A module refuses (-EINVAL) a
 * version it does not speak or a size smaller than it knows.
 *
 * EXMAP_IOC_SCAN walks the page tables of one process, given by pid in the
 * caller's pid namespace, from address start, and writes run-length
 * encoded records into the caller's buffer. A record is a run of virtual
 * pages with consecutive frames (or swap offsets), the same flags and the
 * same mapcount; pages with no entry give nothing. When the buffer fills,
 * next says where to resume; when the walk is done next is 0.
 *
 * Given room for them (vmas, names), a call also returns the process's
 * mappings, all of them whatever start and end say, read under the same
 * lock as the records: what /proc/PID/maps prints, field by field, the
 * name exactly as maps shows it ("\n" as "\012", " (deleted)", [heap],
 * [anon:NAME], ...). Not among them: the vsyscall page, which maps lists
 * after them for a process that has it (EXMAP_INFO_GATE). When they do not
 * fit, the call fails with EOVERFLOW and nothing else is returned.
 *
 * hugetlb mappings are walked too (ABI 4): each base page of a present
 * huge page is a page of a record (EXMAP_F_HUGETLB), its frame the huge
 * page's first frame plus the page's offset in it, its mapcount the huge
 * page's, as pagemap and smaps see them.
 */
#ifndef EXMAP_ABI_H
#define EXMAP_ABI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define EXMAP_ABI_VERSION 6
/*
 * the oldest ABI a module still answers (a caller of 4 or 5 gets its
 * ABI's struct)
 */
#define EXMAP_ABI_MIN 4
#define EXMAP_DEVICE "/dev/exmap"

/*
 * Record flags. FILE and EXCL are pagemap's bits 61 and 56 exactly; DIRTY
 * is what smaps counts as dirty (the PTE's or the folio's dirty bit);
 * NOPAGE marks a present entry without a struct page (the zero page, PFN
 * maps); MIGRATION a migration or device entry, whose frame is a PFN in
 * swap-entry layout. ZERO, KSM and HUGETLB say what the page is, from the
 * page itself (ABI 4: KSM and HUGETLB).
 */
#define EXMAP_F_PRESENT		0x0001	/* frame is a PFN */
#define EXMAP_F_SWAP		0x0002	/* frame is type | offset << 5 */
#define EXMAP_F_WRITE		0x0004	/* the PTE (or PMD) is writable */
#define EXMAP_F_DIRTY		0x0008	/* PTE or folio dirty */
#define EXMAP_F_HUGE		0x0010	/* mapped by a PMD (THP) */
#define EXMAP_F_ZERO		0x0020	/* the (huge) zero page */
#define EXMAP_F_ANON		0x0040	/* anonymous folio */
#define EXMAP_F_FILE		0x0080	/* a page that is not anonymous */
#define EXMAP_F_SHMEM		0x0100	/* swap-backed, not anonymous */
#define EXMAP_F_EXCL		0x0200	/* exclusively mapped */
#define EXMAP_F_NOPAGE		0x0400	/* present without a page */
#define EXMAP_F_MIGRATION	0x0800	/* migration or device entry */
#define EXMAP_F_KSM		0x1000	/* a KSM page (merged) */
#define EXMAP_F_HUGETLB		0x2000	/* a page of a hugetlb huge page */

struct exmap_rec {
	__u64 start;	/* virtual address of the first page */
	__u64 frame;	/* first PFN, or first swap entry */
	__u32 npages;	/* pages in the run */
	__u32 flags;	/* EXMAP_F_* */
	__u32 mapcount; /* per page: what smaps divides Pss by */
	__u32 reserved;
};

/* Mapping flags: the permissions maps prints, and hugetlb (ABI 4). */
#define EXMAP_VMA_READ		0x0001
#define EXMAP_VMA_WRITE		0x0002
#define EXMAP_VMA_EXEC		0x0004
#define EXMAP_VMA_SHARED	0x0008	/* VM_MAYSHARE: "s", else "p" */
#define EXMAP_VMA_HUGETLB	0x0010	/* a hugetlb mapping (VM_HUGETLB) */

struct exmap_vma {
	__u64 start;	/* the mapping is [start, end) */
	__u64 end;
	__u64 offset;	/* file offset of start, in bytes; 0 if no file */
	__u64 inode;	/* the file's inode number, or 0 */
	__u32 dev_major; /* the file's device, or 0:0 */
	__u32 dev_minor;
	__u32 flags;	/* EXMAP_VMA_* */
	__u32 name_off;	/* the name is names[name_off, name_off + name_len) */
	__u32 name_len;	/* 0: none; no NUL */
	__u32 reserved;
	/*
	 * bytes per page: the huge page size of a hugetlb mapping, else
	 * PAGE_SIZE, as smaps' KernelPageSize (ABI 4)
	 */
	__u64 page_size;
};

/*
 * Scan info. NOMM: the process has no memory (a kernel thread, or exiting),
 * so the call returns nothing else. GATE: maps lists the vsyscall page
 * after the mappings, if the kernel has one.
 */
#define EXMAP_INFO_NOMM		0x0001
#define EXMAP_INFO_GATE		0x0002
/*
 * ABI 5. WATCHED: the change counters below are set. TRANSIENT: the walk
 * saw an entry that a later fault or completion changes with neither an
 * invalidation nor a counter moving (a migration entry, a NUMA hinting
 * entry, a read-only huge page mapped once that a write would reuse):
 * what this walk gave must not be kept.
 */
#define EXMAP_INFO_WATCHED	0x0004
#define EXMAP_INFO_TRANSIENT	0x0008
/* ABI 6, with EXMAP_SCAN_SUMS: the walk saw a swap entry */
#define EXMAP_INFO_SWAPPED	0x0010

/*
 * Scan flags (in, ABI 5). WATCH: watch the process's memory (an mmu
 * notifier on its mm, kept until the mm or the module goes) and return
 * its change counters. NOWALK: walk nothing, only say who it is, its
 * mappings (given room) and, with WATCH, its counters.
 */
#define EXMAP_SCAN_WATCH	0x0001
#define EXMAP_SCAN_NOWALK	0x0002
/*
 * ABI 6, with WATCH and NOWALK: walk the whole space but record nothing;
 * return the kernel's figures of it (sums below) and its zero pages.
 */
#define EXMAP_SCAN_SUMS		0x0004

struct exmap_scan {
	__u32 size;	/* in: sizeof(struct exmap_scan) */
	__u32 abi;	/* in: EXMAP_ABI_VERSION */
	__s32 pid;	/* in: process, in the caller's pid namespace */
	__u32 flags;	/* in: 0 */
	__u64 start;	/* in: first address to walk */
	__u64 end;	/* in: end of the walk, 0 for the whole space */
	__u64 recs;	/* in: user pointer to struct exmap_rec[] */
	__u32 nrecs;	/* in: room in recs; out: records written */
	__u32 rec_size; /* in: sizeof(struct exmap_rec) */
	__u64 next;	/* out: resume address, 0 when the walk is done */
	/* out: the process (ABI 2) */
	__u64 start_ns;	/* start, ns after boot in the caller's time ns */
	__s32 ppid;	/* parent, in the caller's pid namespace, or 0 */
	__u32 uid;	/* effective uid, in the caller's user namespace */
	char comm[16];	/* name, NUL-padded (TASK_COMM_LEN) */
	/* the mappings (ABI 3), on any call that gives room for them */
	__u64 vmas;	/* in: user pointer to struct exmap_vma[], or 0 */
	__u64 names;	/* in: user pointer to the names' bytes */
	__u32 nvmas;	/* in: room in vmas; out: mappings written */
	__u32 vma_size;	/* in: sizeof(struct exmap_vma) */
	__u32 names_len; /* in: room in names; out: bytes written */
	__u32 info;	/* out: EXMAP_INFO_* */
	/*
	 * ABI 5, with EXMAP_SCAN_WATCH: what moves when the process's page
	 * table entries may have changed, read before the walk. While all
	 * are unchanged (and the mappings, and the walk was not TRANSIENT),
	 * a walk gives what the last one gave, but for a never-touched
	 * anonymous page another task read (the zero page), which only
	 * zeros below shows (ABI 6).
	 */
	__u64 changes;	/* invalidations of the mm (from a random base) */
	__u64 faults;	/* page faults of its threads, live and exited */
	/*
	 * the system's write faults that reused a page, when the last walk
	 * saw a page such a fault makes writable (read-only, mapped once);
	 * else 0
	 */
	__u64 reuses;
	__u64 rss[4];	/* anon, file, shmem pages, swap entries: exact */
	__u64 pgtables;	/* bytes of page tables */
	__u64 hugetlb;	/* hugetlb bytes mapped */
	/*
	 * ABI 6, with EXMAP_SCAN_WATCH and EXMAP_SCAN_NOWALK: the pages
	 * mapped to the zero page or the huge zero page (each base page of
	 * it), counted under the mmap lock in every mapping a walk would
	 * give such a page in (the others cannot hold one; with SUMS, in
	 * every mapping). The records of a walk of the whole space at that
	 * moment hold as many pages with EXMAP_F_PRESENT and EXMAP_F_ZERO.
	 * A walk leaves it 0.
	 */
	__u64 zeros;
	/*
	 * ABI 6, with EXMAP_SCAN_SUMS: what smaps_rollup adds up from the
	 * pages a walk would record. A present page with a page behind it
	 * that is neither the zero page nor hugetlb adds PAGE_SIZE to
	 * sum_rss and PAGE_SIZE << 12 (Pss fixed point) divided by its
	 * mapcount (when 2 or more) to sum_pss, to sum_anon, sum_shmem or
	 * sum_file by its kind, and to sum_dirty when dirty. A swap entry
	 * sets EXMAP_INFO_SWAPPED.
	 */
	__u64 sum_rss;	/* bytes */
	__u64 sum_pss, sum_anon, sum_file, sum_shmem, sum_dirty;
};

/* The struct's size at ABI 4 and 5 (a caller of those gives it). */
#define EXMAP_SCAN_SIZE_4 offsetof(struct exmap_scan, changes)
#define EXMAP_SCAN_SIZE_5 offsetof(struct exmap_scan, zeros)

#define EXMAP_IOC_MAGIC 0xE8
#define EXMAP_IOC_SCAN	_IOWR(EXMAP_IOC_MAGIC, 1, struct exmap_scan)

#endif
