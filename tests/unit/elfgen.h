/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfgen.h - build small ELF64 images in memory with a known layout, for
 * the ELF unit tests and the fuzz corpus seeds. Header-only (static).
 *
 * The standard image describes a library laid out like this (addresses are
 * ELF virtual addresses, page size 4096):
 *
 *   PT_LOAD r-x  offset 0x0000 vaddr 0x0000 filesz 0x3000 memsz 0x3000
 *   PT_LOAD rw-  offset 0x3000 vaddr 0x4000 filesz 0x1100 memsz 0x3000
 *   .text  [0x1000, 0x2800)   .data [0x4000, 0x5100)   .bss [0x5100, 0x7000)
 *
 * The PROGBITS contents are not in the image (their sh_offset lies past
 * the end): the parser never reads them, which keeps the image small.
 */
#ifndef TESTS_ELFGEN_H
#define TESTS_ELFGEN_H

#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct eg_opts {
	bool no_symtab;	     /* no symbol table at all */
	bool dynsym;	     /* symbols in .dynsym/.dynstr instead of .symtab */
	bool build_id;	     /* add a .note.gnu.build-id (id 0x11 x 20) */
	bool debuglink;	     /* add a .gnu_debuglink naming "lib.debug" */
	uint32_t extra_syms; /* more FUNC symbols in .text, named "s%u" */
};

/* Where things ended up in the image (for hostile mutations). */
struct eg_layout {
	size_t len;
	size_t shoff, shnum, shstrndx;
	size_t symtab_idx, symtab_off, strtab_idx, strtab_off;
	size_t nsyms;	      /* including the null symbol */
	size_t debuglink_off; /* of the section data (name, pad, CRC) */
};

struct eg_buf {
	unsigned char *p;
	size_t len, cap;
};

static size_t eg_put(struct eg_buf *b, const void *d, size_t n, size_t align)
{
	size_t off;

	while (b->len % align)
		b->len++;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		memset(b->p + b->cap, 0, cap - b->cap);
		b->cap = cap;
	}
	off = b->len;
	if (d)
		memcpy(b->p + off, d, n);
	b->len += n;
	return off;
}

static size_t eg_str(struct eg_buf *s, const char *str)
{
	return eg_put(s, str, strlen(str) + 1, 1);
}

struct eg_symdef {
	const char *name;
	uint64_t value, size;
	unsigned type, bind;
	uint16_t shndx;
};

static const struct eg_symdef eg_syms[] = {
	{ "lib.c", 0, 0, STT_FILE, STB_LOCAL, SHN_ABS },
	{ "", 0x1000, 0, STT_SECTION, STB_LOCAL, 1 },
	{ "f1", 0x1000, 0x800, STT_FUNC, STB_GLOBAL, 1 },
	{ "f2", 0x1800, 0x1000, STT_FUNC, STB_GLOBAL, 1 },
	{ "_ZN3foo3barEi", 0x2000, 0x100, STT_FUNC, STB_GLOBAL, 1 },
	{ "small", 0x4000, 0x100, STT_OBJECT, STB_LOCAL, 2 },
	{ "big", 0x4100, 0x1000, STT_OBJECT, STB_GLOBAL, 2 },
	{ "zeroes", 0x5100, 0x1f00, STT_OBJECT, STB_GLOBAL, 3 },
	{ "undefined_ref", 0, 0, STT_FUNC, STB_GLOBAL, SHN_UNDEF },
	{ "tls_var", 0x10, 8, STT_TLS, STB_GLOBAL, 2 },
};
#define EG_NSYMS (sizeof(eg_syms) / sizeof(eg_syms[0]))
#define EG_KEPT_SYMS 6 /* f1 f2 _ZN3foo3barEi small big zeroes */

/* Build the standard image; malloc'd, caller frees. */
static unsigned char *eg_build(const struct eg_opts *o, struct eg_layout *lay)
{
	struct eg_buf b = { 0 }, shstr = { 0 }, str = { 0 }, syms = { 0 };
	Elf64_Shdr sh[12];
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];
	unsigned n = 0;
	size_t off, name_off[12];
	size_t note_off = 0, sym_off = 0, str_off = 0, dl_off = 0, shs_off;
	char nm[32];

	memset(sh, 0, sizeof(sh));
	memset(lay, 0, sizeof(*lay));
	eg_put(&b, NULL, sizeof(eh) + sizeof(ph), 8);
	eg_str(&shstr, "");

	/* Symbols. */
	eg_str(&str, "");
	eg_put(&syms, NULL, sizeof(Elf64_Sym), 8);
	for (size_t i = 0; i < EG_NSYMS; i++) {
		Elf64_Sym s = {
			.st_name = (uint32_t)eg_str(&str, eg_syms[i].name),
			.st_info = ELF64_ST_INFO(eg_syms[i].bind,
						 eg_syms[i].type),
			.st_shndx = eg_syms[i].shndx,
			.st_value = eg_syms[i].value,
			.st_size = eg_syms[i].size,
		};
		eg_put(&syms, &s, sizeof(s), 8);
	}
	for (uint32_t i = 0; i < o->extra_syms; i++) {
		Elf64_Sym s = {
			.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			.st_shndx = 1,
			.st_value = 0x1000 + (i % 0x1800),
			.st_size = 1,
		};
		snprintf(nm, sizeof(nm), "s%u", i);
		s.st_name = (uint32_t)eg_str(&str, nm);
		eg_put(&syms, &s, sizeof(s), 8);
	}
	if (o->build_id) {
		unsigned char note[12 + 4 + 20];
		Elf64_Nhdr nh = { .n_namesz = 4,
				  .n_descsz = 20,
				  .n_type = NT_GNU_BUILD_ID };

		memcpy(note, &nh, 12);
		memcpy(note + 12, "GNU", 4);
		memset(note + 16, 0x11, 20);
		note_off = eg_put(&b, note, sizeof(note), 4);
	}
	if (!o->no_symtab) {
		sym_off = eg_put(&b, syms.p, syms.len, 8);
		str_off = eg_put(&b, str.p, str.len, 1);
	}
	if (o->debuglink) {
		unsigned char dl[16] = "lib.debug";
		uint32_t crc = 0x12345678;

		memcpy(dl + 12, &crc, 4);
		dl_off = eg_put(&b, dl, sizeof(dl), 4);
		lay->debuglink_off = dl_off;
	}

	/* Section headers. */
	n = 1;
	name_off[n] = eg_str(&shstr, ".text");
	sh[n++] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS,
				.sh_flags = SHF_ALLOC | SHF_EXECINSTR,
				.sh_addr = 0x1000,
				.sh_offset = 0x1000,
				.sh_size = 0x1800,
				.sh_addralign = 16 };
	name_off[n] = eg_str(&shstr, ".data");
	sh[n++] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS,
				.sh_flags = SHF_ALLOC | SHF_WRITE,
				.sh_addr = 0x4000,
				.sh_offset = 0x3000,
				.sh_size = 0x1100,
				.sh_addralign = 16 };
	name_off[n] = eg_str(&shstr, ".bss");
	sh[n++] = (Elf64_Shdr){ .sh_type = SHT_NOBITS,
				.sh_flags = SHF_ALLOC | SHF_WRITE,
				.sh_addr = 0x5100,
				.sh_offset = 0x4100,
				.sh_size = 0x1f00,
				.sh_addralign = 16 };
	if (o->build_id) {
		name_off[n] = eg_str(&shstr, ".note.gnu.build-id");
		sh[n++] = (Elf64_Shdr){ .sh_type = SHT_NOTE,
					.sh_offset = note_off,
					.sh_size = 36,
					.sh_addralign = 4 };
	}
	if (!o->no_symtab) {
		lay->symtab_idx = n;
		lay->symtab_off = sym_off;
		lay->nsyms = syms.len / sizeof(Elf64_Sym);
		name_off[n] = eg_str(&shstr, o->dynsym ? ".dynsym" : ".symtab");
		sh[n] = (Elf64_Shdr){ .sh_type = o->dynsym ? SHT_DYNSYM
							   : SHT_SYMTAB,
				      .sh_offset = sym_off,
				      .sh_size = syms.len,
				      .sh_link = n + 1,
				      .sh_info = 3,
				      .sh_entsize = sizeof(Elf64_Sym),
				      .sh_addralign = 8 };
		if (o->dynsym)
			sh[n].sh_flags = SHF_ALLOC; /* addr 0: not listed */
		n++;
		lay->strtab_idx = n;
		lay->strtab_off = str_off;
		name_off[n] = eg_str(&shstr, o->dynsym ? ".dynstr" : ".strtab");
		sh[n++] = (Elf64_Shdr){ .sh_type = SHT_STRTAB,
					.sh_offset = str_off,
					.sh_size = str.len,
					.sh_addralign = 1 };
	}
	if (o->debuglink) {
		name_off[n] = eg_str(&shstr, ".gnu_debuglink");
		sh[n++] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS,
					.sh_offset = dl_off,
					.sh_size = 16,
					.sh_addralign = 4 };
	}
	lay->shstrndx = n;
	name_off[n] = eg_str(&shstr, ".shstrtab");
	shs_off = eg_put(&b, shstr.p, shstr.len, 1);
	sh[n++] = (Elf64_Shdr){ .sh_type = SHT_STRTAB,
				.sh_offset = shs_off,
				.sh_size = shstr.len,
				.sh_addralign = 1 };
	for (unsigned i = 1; i < n; i++)
		sh[i].sh_name = (uint32_t)name_off[i];
	off = eg_put(&b, sh, n * sizeof(Elf64_Shdr), 8);

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_shoff = off;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 2;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (uint16_t)n;
	eh.e_shstrndx = (uint16_t)lay->shstrndx;
	memcpy(b.p, &eh, sizeof(eh));
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD,
			      .p_flags = PF_R | PF_X,
			      .p_offset = 0,
			      .p_vaddr = 0,
			      .p_paddr = 0,
			      .p_filesz = 0x3000,
			      .p_memsz = 0x3000,
			      .p_align = 0x1000 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD,
			      .p_flags = PF_R | PF_W,
			      .p_offset = 0x3000,
			      .p_vaddr = 0x4000,
			      .p_paddr = 0x4000,
			      .p_filesz = 0x1100,
			      .p_memsz = 0x3000,
			      .p_align = 0x1000 };
	memcpy(b.p + sizeof(eh), ph, sizeof(ph));

	lay->shoff = off;
	lay->shnum = n;
	lay->len = b.len;
	free(shstr.p);
	free(str.p);
	free(syms.p);
	return b.p;
}

/* Write the image of o to path through a temporary file and a rename: a
 * new inode, as package upgrades do. 0 or -1. */
static inline int eg_write(const char *path, const struct eg_opts *o)
{
	struct eg_layout lay;
	unsigned char *img = eg_build(o, &lay);
	char tmp[4096];
	int fd, ok;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fd = open(tmp, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	ok = fd >= 0 && write(fd, img, lay.len) == (ssize_t)lay.len;
	if (fd >= 0)
		close(fd);
	free(img);
	return ok && !rename(tmp, path) ? 0 : -1;
}

/* Store v in n bytes at p, most significant first when msb. */
static inline void eg_wr(unsigned char *p, unsigned n, uint64_t v, bool msb)
{
	for (unsigned i = 0; i < n; i++)
		p[msb ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/*
 * A minimal ELF image of either class and byte order whose only content
 * is a GNU build-id note (20 bytes: id[i] = first + i), in a PT_NOTE
 * segment, or with in_section in a SHT_NOTE section (then no program
 * header at all). malloc'd, *len its size; the caller frees.
 */
static inline unsigned char *eg_build_id_image(bool is64, bool msb,
					       bool in_section,
					       unsigned char first, size_t *len)
{
	static const char shstr[] = "\0.note.gnu.build-id\0.shstrtab";
	size_t w = is64 ? 8 : 4, eh = is64 ? 64 : 52, phs = is64 ? 56 : 32;
	size_t shs = is64 ? 64 : 40;
	size_t note = eh + (in_section ? 0 : phs), strs = note + 36;
	size_t shoff = (strs + sizeof(shstr) + 7) & ~(size_t)7;
	size_t n = in_section ? shoff + 3 * shs : strs;
	unsigned char *b = calloc(1, n), *p;

	if (!b)
		return NULL;
	memcpy(b, ELFMAG, SELFMAG);
	b[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	b[EI_DATA] = msb ? ELFDATA2MSB : ELFDATA2LSB;
	b[EI_VERSION] = EV_CURRENT;
	eg_wr(b + 16, 2, ET_DYN, msb);
	eg_wr(b + 18, 2,
	      msb ? (is64 ? EM_PPC64 : EM_PPC) : (is64 ? EM_X86_64 : EM_386),
	      msb);
	eg_wr(b + 20, 4, EV_CURRENT, msb);
	/* e_entry, e_phoff, e_shoff, then e_flags and the sizes */
	eg_wr(b + 24 + w, w, in_section ? 0 : eh, msb);
	eg_wr(b + 24 + 2 * w, w, in_section ? shoff : 0, msb);
	p = b + 24 + 3 * w + 4;
	eg_wr(p, 2, eh, msb);
	eg_wr(p + 2, 2, phs, msb);
	eg_wr(p + 4, 2, in_section ? 0 : 1, msb);
	eg_wr(p + 6, 2, shs, msb);
	eg_wr(p + 8, 2, in_section ? 3 : 0, msb);
	eg_wr(p + 10, 2, in_section ? 2 : 0, msb);
	/* the note: namesz, descsz, type, "GNU", the id */
	eg_wr(b + note, 4, 4, msb);
	eg_wr(b + note + 4, 4, 20, msb);
	eg_wr(b + note + 8, 4, NT_GNU_BUILD_ID, msb);
	memcpy(b + note + 12, "GNU", 4);
	for (unsigned i = 0; i < 20; i++)
		b[note + 16 + i] = (unsigned char)(first + i);
	if (!in_section) {
		p = b + eh; /* one PT_NOTE */
		eg_wr(p, 4, PT_NOTE, msb);
		if (is64) {
			eg_wr(p + 4, 4, PF_R, msb);
			eg_wr(p + 8, 8, note, msb);
			eg_wr(p + 32, 8, 36, msb);
			eg_wr(p + 40, 8, 36, msb);
			eg_wr(p + 48, 8, 4, msb);
		} else {
			eg_wr(p + 4, 4, note, msb);
			eg_wr(p + 16, 4, 36, msb);
			eg_wr(p + 20, 4, 36, msb);
			eg_wr(p + 24, 4, PF_R, msb);
			eg_wr(p + 28, 4, 4, msb);
		}
	} else {
		/* sections: none, the note, the names */
		memcpy(b + strs, shstr, sizeof(shstr));
		for (unsigned i = 1; i < 3; i++) {
			p = b + shoff + i * shs;
			eg_wr(p, 4, i == 1 ? 1 : 20, msb); /* sh_name */
			eg_wr(p + 4, 4, i == 1 ? SHT_NOTE : SHT_STRTAB, msb);
			/* sh_offset, sh_size after sh_flags, sh_addr */
			eg_wr(p + 8 + 2 * w, w, i == 1 ? note : strs, msb);
			eg_wr(p + 8 + 3 * w, w, i == 1 ? 36 : sizeof(shstr),
			      msb);
			eg_wr(p + 16 + 4 * w, w, i == 1 ? 4 : 1, msb);
		}
	}
	*len = n;
	return b;
}

#endif
