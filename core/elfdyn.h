/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfdyn.h - the two dynamic-linking facts of an ELF file the alerts need,
 * which the section/symbol parser (elf.h) does not keep:
 *
 * - whether the file has text relocations (DT_TEXTREL, or DF_TEXTREL in
 *   DT_FLAGS): the dynamic linker then writes into its read-only segments,
 *   so every process gets private copies of those pages;
 * - the PT_GNU_RELRO range: data relocated at load time and made read-only
 *   afterwards. Those pages are private copies by design.
 *
 * The file is hostile input: read with libelf through pread (ELF_C_READ),
 * every count bounded.
 */
#ifndef EXM_ELFDYN_H
#define EXM_ELFDYN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct exm_elfdyn {
	bool ok;	/* parsed as ELF; the rest is meaningless otherwise */
	bool textrel;	/* DT_TEXTREL or DF_TEXTREL */
	bool has_relro; /* a PT_GNU_RELRO header */
	uint64_t relro_offset,
		relro_size; /* its file range (p_offset, p_memsz) */
};

/* Parse the file open on fd (offset untouched). 0, or -EINVAL when it is
 * not a readable ELF file (out->ok false), -ENOMEM. */
int exm_elfdyn_parse_fd(int fd, struct exm_elfdyn *out);

/* The same for an image in memory (tests); the buffer is only read. */
int exm_elfdyn_parse_mem(const void *buf, size_t len, struct exm_elfdyn *out);

/* Whether file offset off lies on a page of the RELRO range (the dynamic
 * linker protects whole pages from the range's start page up to its end
 * rounded down; any page it touches counts here). */
bool exm_elfdyn_in_relro(const struct exm_elfdyn *d, uint64_t off,
			 unsigned page_size);

#endif
