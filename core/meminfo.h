/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * meminfo.h - the rows of /proc/meminfo taken with a snapshot.
 *
 * A snapshot keeps the kernel's memory counters of its time (snapshot->sys
 * .meminfo), so every view built on them (the system view, sysview.h)
 * works the same on a live snapshot, a fixture and a replay. Rows are kept
 * as /proc/meminfo prints them: a key, a number and whether the number is
 * in kB (HugePages_Total and friends are counts). Recordings store them row
 * by row (record.h); a recording made before exmtop kept them replays with
 * no rows and .predates set.
 */
#ifndef EXM_MEMINFO_H
#define EXM_MEMINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXM_MEMINFO_ROWS 128  /* /proc/meminfo has about 60 */
#define EXM_MEMINFO_KEYLEN 32 /* with the NUL; "ShmemPmdMapped" is 14 */

struct exm_meminfo_row {
	char key[EXM_MEMINFO_KEYLEN]; /* [A-Za-z0-9_()]+ */
	uint64_t value;		      /* as printed */
	bool kb;		      /* value is in kB (else a count) */
};

struct exm_meminfo {
	uint32_t n; /* rows; 0: not known */
	/* replayed from a snapshot recorded before exmtop kept meminfo */
	bool predates;
	struct exm_meminfo_row rows[EXM_MEMINFO_ROWS];
};

/* Whether key (len bytes) can be a row's key: 1 to 31 characters of
 * letters, digits, '_', '(' and ')'. */
bool exm_meminfo_key_ok(const char *key, size_t len);

/*
 * Add a row. 0; -EINVAL for a bad key, a value past INT64_MAX or a kB
 * value whose bytes overflow;
 * -EEXIST for a key already there; -E2BIG when full.
 */
int exm_meminfo_add(struct exm_meminfo *mi, const char *key, size_t keylen,
		    uint64_t value, bool kb);

/*
 * Parse /proc/meminfo text (len bytes) into mi (reset first). Lines that
 * are not "Key: N" or "Key: N kB" are skipped, and so are repeated keys and
 * rows past EXM_MEMINFO_ROWS. Returns the number of rows.
 */
uint32_t exm_meminfo_parse(struct exm_meminfo *mi, const char *text,
			   size_t len);

/* Read and parse the file at path: 0, or -errno (-ENODATA when it holds no
 * row). */
int exm_meminfo_read(struct exm_meminfo *mi, const char *path);

/* The value of key in bytes (a count as is); false when absent. */
bool exm_meminfo_get(const struct exm_meminfo *mi, const char *key,
		     uint64_t *out);

/*
 * The huge pages in use of every size, a row of our own beside the
 * kernel's: /proc/meminfo's HugePages_Total and HugePages_Free count the
 * default size only (1 GiB pages in use are in its Hugetlb, not in them).
 * In kB: the sum over dir's hugepages-<size>kB of nr_hugepages and
 * surplus_hugepages less free_hugepages, times the size.
 */
#define EXM_MEMINFO_HUGETLB_USED "HugetlbUsed(sysfs)"

/* Add that row from dir (/sys/kernel/mm/hugepages): 0, or -errno (no row:
 * dir or a count cannot be read). */
int exm_meminfo_add_hugetlb_used(struct exm_meminfo *mi, const char *dir);

#endif
