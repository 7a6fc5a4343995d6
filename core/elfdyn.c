// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * elfdyn.c - DT_TEXTREL and PT_GNU_RELRO of an ELF file; see elfdyn.h.
 */
#include "core/elfdyn.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

/* Bounds for hostile input. */
#define MAX_PHDRS 65535u
#define MAX_DYN (1u << 20) /* bytes of PT_DYNAMIC read */

static int parse(Elf *elf, struct exm_elfdyn *out)
{
	size_t nph = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph) ||
	    nph > MAX_PHDRS)
		return -EINVAL;
	out->ok = true;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_GNU_RELRO && !out->has_relro) {
			out->has_relro = true;
			out->relro_offset = ph.p_offset;
			out->relro_size = ph.p_memsz;
		} else if (ph.p_type == PT_DYNAMIC && ph.p_filesz) {
			size_t len = ph.p_filesz < MAX_DYN ? ph.p_filesz
							   : MAX_DYN;
			Elf_Type t = ELF_T_DYN;
			Elf_Data *d = elf_getdata_rawchunk(elf, ph.p_offset,
							   len, t);
			size_t esz = gelf_fsize(elf, t, 1, EV_CURRENT);

			if (!d || !esz)
				continue;
			for (size_t k = 0; k < len / esz; k++) {
				GElf_Dyn dyn;

				if (!gelf_getdyn(d, (int)k, &dyn) ||
				    dyn.d_tag == DT_NULL)
					break;
				if (dyn.d_tag == DT_TEXTREL ||
				    (dyn.d_tag == DT_FLAGS &&
				     (dyn.d_un.d_val & DF_TEXTREL)))
					out->textrel = true;
			}
		}
	}
	return 0;
}

int exm_elfdyn_parse_fd(int fd, struct exm_elfdyn *out)
{
	Elf *elf;
	int r;

	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	r = parse(elf, out);
	if (elf)
		elf_end(elf);
	return r;
}

int exm_elfdyn_parse_mem(const void *buf, size_t len, struct exm_elfdyn *out)
{
	char *copy;
	Elf *elf;
	int r;

	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	/* elf_memory may convert the image in place; work on a copy. */
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, buf, len);
	elf = elf_memory(copy, len);
	r = parse(elf, out);
	if (elf)
		elf_end(elf);
	free(copy);
	return r;
}

bool exm_elfdyn_in_relro(const struct exm_elfdyn *d, uint64_t off,
			 unsigned page_size)
{
	uint64_t ps = page_size ? page_size : 4096, lo, hi;

	if (!d->ok || !d->has_relro || !d->relro_size)
		return false;
	lo = d->relro_offset & ~(ps - 1);
	hi = d->relro_offset + d->relro_size;
	if (hi < d->relro_offset)
		hi = UINT64_MAX;
	return off >= lo && off < hi;
}
