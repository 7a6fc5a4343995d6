/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strip.h - the per-page strip of a byte range: one cell a page saying
 * whether it is resident, how many scanned processes map its frame, or
 * whether it is swapped out. No curses: the live screen and batch output
 * print the cells (exm_strip_char) their own way.
 *
 * The strip of one mapping of one process is exm_strip_mapping(); the
 * sharer counts come from exm_strip_count(), which takes any set of page
 * words, so a strip of a file across processes (by file offset) is the
 * same count over the words of every mapping of the file.
 */
#ifndef EXM_STRIP_H
#define EXM_STRIP_H

#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

enum exm_cell_state {
	EXM_CELL_NONE = 0, /* not resident, not swapped */
	EXM_CELL_PRESENT,  /* resident: nprocs processes map the frame */
	EXM_CELL_SWAPPED,  /* swapped out */
};

struct exm_cell {
	uint8_t state;	 /* enum exm_cell_state */
	uint16_t nprocs; /* present: scanned processes mapping the frame
			  * (saturates at UINT16_MAX); 0 when unknown */
};

struct exm_strip {
	uint64_t addr; /* address of the first page */
	unsigned page_size;
	size_t npages;
	struct exm_cell *cells; /* npages (owned) */
};

/*
 * The strip of mapping m of process p in snap. Sharer counts need page
 * identity (EXM_CAP_PFN); without it present pages count 0 processes.
 * 0, -ENODATA when the snapshot has no per-page facts, -ENOMEM.
 * Free with exm_strip_fini().
 */
int exm_strip_mapping(const struct exm_snapshot *snap, const struct exm_proc *p,
		      const struct exm_mapping *m, struct exm_strip *out);
void exm_strip_fini(struct exm_strip *s);

/*
 * For each of the n frames pfns[] (sorted ascending, unique), count the
 * scanned processes of snap that map it into counts[] (saturating). 0 or
 * -ENOMEM.
 */
int exm_strip_count(const struct exm_snapshot *snap, const uint64_t *pfns,
		    size_t n, uint16_t *counts);

/* The character of n processes mapping a page: '.' for none, '1'-'9', '#'
 * for ten or more (the per-file strip of filestrip.h prints these). */
char exm_strip_count_char(uint32_t n);

/* The character of a cell: '.' not resident, '1'-'9' processes mapping
 * it, '#' ten or more, 's' swapped ('?' present with an unknown count). */
char exm_strip_char(const struct exm_cell *c);

/* Pages a strip line shows. */
#define EXM_STRIP_LINE 64
/* Number of lines of s. */
static inline size_t exm_strip_lines(const struct exm_strip *s)
{
	return (s->npages + EXM_STRIP_LINE - 1) / EXM_STRIP_LINE;
}
/* Line k of s: its cells as characters in buf (NUL terminated; len >
 * EXM_STRIP_LINE); returns the address of its first page. */
uint64_t exm_strip_line(const struct exm_strip *s, size_t k, char *buf,
			size_t len);

/* The mapping of p that contains address addr, or NULL. */
const struct exm_mapping *exm_proc_mapping_at(const struct exm_proc *p,
					      uint64_t addr);

#endif
