/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procfs.h - parsers for /proc text files. Pure functions on buffers, so
 * they are unit-tested on truncated and unknown input.
 */
#ifndef EXM_PROCFS_H
#define EXM_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/snapshot.h"

/*
 * Parse one line of /proc/PID/maps (without or with its trailing newline)
 * into m: range, perms, offset, device, inode, kind and name (malloc'd,
 * as the kernel wrote it after the inode field, minus a trailing
 * " (deleted)" which sets m->deleted, and with each "\012", maps' escape
 * of a newline, a newline again: the file's real name, which every output
 * escapes its own way). 0, -EINVAL for a malformed line, -ENOMEM.
 */
int exm_parse_maps_line(const char *line, size_t len, struct exm_mapping *m);

/*
 * Set m's name from the len bytes maps prints after the inode field (not
 * NUL-terminated), as exm_parse_maps_line does, and its kind from them and
 * the other fields, which must be set. 0 or -ENOMEM.
 */
int exm_mapping_name(struct exm_mapping *m, const char *name, size_t len);

/*
 * m (kind set) is a hugetlb mapping whose kernel page size is kpage: a
 * hugetlbfs file mapped shared is shared memory wherever hugetlbfs is
 * mounted, not only where its name says so (/dev/hugepages).
 */
void exm_mapping_set_hugetlb(struct exm_mapping *m, uint32_t kpage);

/* Classify a mapping from its name, inode, device and perms. */
enum exm_kind exm_classify(const char *name, uint64_t inode, uint32_t dev_major,
			   unsigned perms);

/*
 * Parse a "Key:   123 kB" line of smaps/smaps_rollup/status. On success
 * sets *key and *keylen to the key (without colon) and *value to the number
 * (multiplied by 1024 when followed by "kB"); returns 0. Lines that are
 * not of that shape (e.g. the VMA header or "VmFlags: rd wr") return
 * -EINVAL.
 */
int exm_parse_kv(const char *line, size_t len, const char **key, size_t *keylen,
		 uint64_t *value);

/* The same, with the number as printed and *kb saying whether "kB"
 * followed it (/proc/meminfo keeps counts such as HugePages_Total). */
int exm_parse_kv_unit(const char *line, size_t len, const char **key,
		      size_t *keylen, uint64_t *value, bool *kb);

/*
 * Walk /proc/PID/smaps text of process p (whose maps, sorted, was read
 * earlier): for each VMA header, vma(ctx, first, exact, start, end) where
 * first is the first mapping of p ending after start (p->nmaps if none)
 * and exact says it has exactly that range (else the mappings changed in
 * between); for each "Key: n kB" line of the VMA, kv(ctx, key, keylen,
 * value).
 */
void exm_smaps_walk(const char *buf, size_t len, const struct exm_proc *p,
		    void (*vma)(void *ctx, size_t first, bool exact,
				uint64_t start, uint64_t end),
		    void (*kv)(void *ctx, const char *key, size_t keylen,
			       uint64_t value),
		    void *ctx);

/* Parse smaps_rollup (whole buffer) into k; only exact key matches count.
 * Returns 0; k->has says which keys were found. */
int exm_parse_rollup(const char *buf, size_t len, struct exm_kpss *k);

/* /proc/PID/stat's fields exmtop reads, by their numbers in proc(5). */
struct exm_stat {
	pid_t ppid;	     /* 4 */
	unsigned flags;	     /* 9: PF_* */
	unsigned threads;    /* 20 */
	uint64_t start_time; /* 22: clock ticks since boot */
	uint64_t vsize;	     /* 23: bytes */
};

/*
 * Parse /proc/PID/stat: comm (between the first '(' and the LAST ')';
 * malloc'd into *comm unless comm is NULL) and the fields of *st.
 * 0, -EINVAL, -ENOMEM.
 */
int exm_parse_stat(const char *buf, size_t len, char **comm,
		   struct exm_stat *st);

/* qsort's and bsearch's order of pid_t values */
int exm_cmp_pid(const void *a, const void *b);

/*
 * The processes a /proc tree (root) lists: its entries named by a pid,
 * ascending, into a malloc'd *pids (NULL when none). 0, -errno when root
 * cannot be opened, -ENOMEM.
 */
int exm_list_pids(const char *root, pid_t **pids, size_t *n);

/* Read a whole small file at dirfd/path into a malloc'd NUL-terminated
 * buffer (*len excludes the NUL). 0 or -errno. */
int exm_read_file(int dirfd, const char *path, char **buf, size_t *len);

/* The same from an open /proc file, from its start (pread: a seq_file
 * read at offset 0 is generated afresh). A read shorter than asked is
 * taken as the end: /proc/PID's stat, schedstat and cmdline fill every
 * read that their text can. 0 or -errno. */
int exm_pread_file(int fd, char **buf, size_t *len);

/* /proc/PID/statm's first three fields, in pages. */
struct exm_statm {
	uint64_t size, resident, shared;
};

/* Read statm at dirfd/path into *st. 0, -EINVAL when it does not parse
 * (or says more shared pages than resident ones), or -errno. */
int exm_read_statm(int dirfd, const char *path, struct exm_statm *st);

/* The number a file holds (sysfs's and cgroupfs's counts), at path
 * (relative to dirfd). 0, -EINVAL when it holds none, or -errno. */
int exm_read_u64(int dirfd, const char *path, uint64_t *v);

#endif
