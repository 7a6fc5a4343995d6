/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filestrip.h - the per-page strip of one file across processes (the USENIX
 * '05 paper's Figure 5): for every page of the file's length (from offset
 * 0 to the end of the furthest mapping of it), the number of scanned
 * processes that have that page of the file resident in a mapping of it,
 * with the file's segments (the offset ranges its mappings cover, with
 * their permissions).
 *
 * A page counts for a process when one of its mappings of the file holds
 * it present: a page-cache page or the process's private copy of it. The
 * .bss after a data segment is anonymous, not a page of the file, and is
 * not part of the strip.
 */
#ifndef EXM_FILESTRIP_H
#define EXM_FILESTRIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"
#include "core/strip.h"

struct exm_file_strip_seg {
	uint64_t first, end; /* file pages [first, end) */
	unsigned perms;	     /* EXM_PERM_* of the mappings covering them */
};

struct exm_file_strip {
	uint64_t npages;    /* file pages covered: the strip's length */
	uint32_t *procs;    /* per page: processes with it resident */
	uint32_t nprocs;    /* processes mapping the file at all */
	uint64_t vm_pages;  /* pages some mapping covers */
	uint64_t res_pages; /* pages resident in some process */
	struct exm_file_strip_seg *segs; /* in offset order, merged */
	size_t nsegs;
	bool has_pages; /* false: no page facts (smaps source) */
};

/* Longest strip built (64 GiB of 4 KiB pages): a file mapped at a huge
 * offset (any user can do it) must not make root's exmtop allocate. */
#define EXM_STRIP_MAX_PAGES (UINT64_C(1) << 24)

/*
 * The strip of file f (a file or shared memory) in accounted snapshot
 * snap. 0, -EINVAL when f is an anonymous kind, -EFBIG past
 * EXM_STRIP_MAX_PAGES, or -ENOMEM. Release with exm_file_strip_fini().
 */
int exm_strip_file(const struct exm_snapshot *snap, const struct exm_file *f,
		   struct exm_file_strip *out);
void exm_file_strip_fini(struct exm_file_strip *s);

/* Lines of 64 pages of s; line k as characters in buf (EXM_STRIP_LINE + 1
 * bytes), returning its first page; the line above them. The live
 * screen's file strip and --pagemap FILE print the same. */
size_t exm_file_strip_lines(const struct exm_file_strip *s);
uint64_t exm_file_strip_line(const struct exm_file_strip *s, size_t k,
			     char *buf);
void exm_file_strip_head(const struct exm_file_strip *s, char *buf, size_t len);

/* Its characters: exm_strip_count_char() of strip.h. */

#endif
