// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_elf.c - the ELF parser (core/elf.c) on images of known layout and on
 * hostile variants of them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/elf.h"
#include "tests/unit/elfgen.h"

static struct exm_elf *parse_opts(const struct eg_opts *o,
				  struct eg_layout *lay)
{
	unsigned char *img = eg_build(o, lay);
	struct exm_elf *e = exm_elf_parse_mem(img, lay->len);

	free(img);
	cr_assert_not_null(e);
	return e;
}

static long sym_index(const struct exm_elf *e, const char *name)
{
	for (size_t i = 0; i < e->nsyms; i++)
		if (!strcmp(e->syms[i].name, name))
			return (long)i;
	return -1;
}

Test(elf, standard_layout)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	struct exm_elf *e = parse_opts(&o, &lay);

	cr_assert_eq(e->state, EXM_ELF_OK);
	cr_assert(e->is64);
	cr_assert_eq(e->etype, ET_DYN);
	cr_assert_eq(e->nsegs, 2);
	cr_assert_eq(e->segs[1].offset, 0x3000);
	cr_assert_eq(e->segs[1].vaddr, 0x4000);
	cr_assert_eq(e->segs[1].filesz, 0x1100);
	cr_assert_eq(e->segs[1].memsz, 0x3000);
	cr_assert_eq(e->nsecs, 3);
	cr_assert_str_eq(e->secs[0].name, ".text");
	cr_assert_str_eq(e->secs[1].name, ".data");
	cr_assert_str_eq(e->secs[2].name, ".bss");
	cr_assert_eq(e->secs[2].type, SHT_NOBITS);
	cr_assert_eq(e->secs[2].addr, 0x5100);
	cr_assert_eq(e->secs[2].size, 0x1f00);
	cr_assert_eq(e->symsrc, EXM_SYMS_SYMTAB);
	cr_assert_str_eq(exm_elf_symsrc_text(e), "symtab");
	/* FILE, SECTION, UNDEF and TLS symbols are left out. */
	cr_assert_eq(e->nsyms, EG_KEPT_SYMS);
	for (size_t i = 1; i < e->nsyms; i++)
		cr_assert_leq(e->syms[i - 1].addr, e->syms[i].addr);
	cr_assert_str_eq(e->syms[0].name, "f1");
	cr_assert_eq(e->syms[0].size, 0x800);
	cr_assert_eq(sym_index(e, "undefined_ref"), -1);
	cr_assert_eq(sym_index(e, "tls_var"), -1);
	cr_assert_eq(sym_index(e, "lib.c"), -1);
	cr_assert_eq(exm_elf_find_section(e, ".data"), 1);
	cr_assert_eq(exm_elf_find_section(e, ".nothere"), -1);
	cr_assert_str_eq(exm_elf_state_text(e), "");
	exm_elf_free(e);
}

Test(elf, segment_for_offset)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	struct exm_elf *e = parse_opts(&o, &lay);

	cr_assert_eq(exm_elf_segment_for_offset(e, 0, 4096), 0);
	cr_assert_eq(exm_elf_segment_for_offset(e, 0x2000, 4096), 0);
	cr_assert_eq(exm_elf_segment_for_offset(e, 0x3000, 4096), 1);
	cr_assert_eq(exm_elf_segment_for_offset(e, 0x4000, 4096), 1);
	cr_assert_eq(exm_elf_segment_for_offset(e, 0x5000, 4096), -1);
	exm_elf_free(e);
}

Test(elf, symbol_lower_bound)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	struct exm_elf *e = parse_opts(&o, &lay);

	cr_assert_eq(exm_elf_sym_lower_bound(e, 0), 0);
	cr_assert_eq(exm_elf_sym_lower_bound(e, 0x1001), 1);
	cr_assert_eq(exm_elf_sym_lower_bound(e, 0x4000), 3);
	cr_assert_eq(exm_elf_sym_lower_bound(e, 0x100000), e->nsyms);
	exm_elf_free(e);
}

Test(elf, dynsym_only)
{
	struct eg_opts o = { .dynsym = true };
	struct eg_layout lay;
	struct exm_elf *e = parse_opts(&o, &lay);

	cr_assert_eq(e->state, EXM_ELF_OK);
	cr_assert_eq(e->symsrc, EXM_SYMS_DYNSYM);
	cr_assert_eq(e->nsyms, EG_KEPT_SYMS);
	cr_assert_str_eq(exm_elf_symsrc_text(e), "dynsym (exported only)");
	exm_elf_free(e);
}

Test(elf, no_symbols)
{
	struct eg_opts o = { .no_symtab = true };
	struct eg_layout lay;
	struct exm_elf *e = parse_opts(&o, &lay);

	cr_assert_eq(e->state, EXM_ELF_OK);
	cr_assert_eq(e->symsrc, EXM_SYMS_NONE);
	cr_assert_eq(e->nsyms, 0);
	cr_assert_eq(e->nsecs, 3);
	cr_assert_str_eq(exm_elf_symsrc_text(e), "(no symbols)");
	exm_elf_free(e);
}

Test(elf, build_id_and_debuglink)
{
	struct eg_opts o = { .build_id = true, .debuglink = true };
	struct eg_layout lay;
	struct exm_elf *e = parse_opts(&o, &lay);

	cr_assert_eq(e->build_id_len, 20);
	for (int i = 0; i < 20; i++)
		cr_assert_eq(e->build_id[i], 0x11);
	cr_assert_str_eq(e->debuglink, "lib.debug");
	cr_assert_eq(e->debuglink_crc, 0x12345678);
	exm_elf_free(e);
}

/* The build-id alone (the recorder's way), from memory and through a
 * file, in either byte order and class, from a segment or a section: the
 * same bytes as the full parse gives. */
Test(elf, build_id_any_byte_order)
{
	for (int v = 0; v < 8; v++) {
		bool is64 = v & 1, msb = v & 2, in_sec = v & 4;
		unsigned char first = (unsigned char)(0x40 + 16 * v), id[64];
		size_t len, n;
		unsigned char *img = eg_build_id_image(is64, msb, in_sec, first,
						       &len);
		struct exm_elf *e;
		int fd;

		cr_assert_not_null(img);
		n = exm_elf_build_id_mem(img, len, id, sizeof(id));
		cr_assert_eq(n, 20, "variant %d: %zu", v, n);
		for (unsigned i = 0; i < 20; i++)
			cr_assert_eq(id[i], (unsigned char)(first + i),
				     "variant %d byte %u", v, i);
		/* too long for the caller's buffer: none */
		cr_assert_eq(exm_elf_build_id_mem(img, len, id, 19), 0);
		e = exm_elf_parse_mem(img, len);
		cr_assert_not_null(e);
		cr_assert_eq(e->state, EXM_ELF_OK, "variant %d", v);
		cr_assert_eq(e->is64, is64);
		cr_assert_eq(e->build_id_len, 20, "variant %d", v);
		cr_assert_eq(memcmp(e->build_id, id, 20), 0);
		exm_elf_free(e);

		memset(id, 0, sizeof(id));
		fd = memfd_create("bid", MFD_CLOEXEC);
		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, img, len), (ssize_t)len);
		cr_assert_eq(exm_elf_build_id_fd(fd, id, sizeof(id)), 20);
		cr_assert_eq(id[19], (unsigned char)(first + 19));
		close(fd);

		/* the note's sizes in the other byte order: no build-id */
		img[(in_sec ? 0 : (is64 ? 56 : 32)) + (is64 ? 64 : 52) + 3] ^= 4;
		img[(in_sec ? 0 : (is64 ? 56 : 32)) + (is64 ? 64 : 52)] ^= 4;
		cr_assert_eq(exm_elf_build_id_mem(img, len, id, sizeof(id)), 0,
			     "variant %d", v);
		free(img);
	}
	/* not ELF, empty */
	{
		unsigned char id[64];

		cr_assert_eq(exm_elf_build_id_mem("hello, world", 12, id,
						  sizeof(id)),
			     0);
		cr_assert_eq(exm_elf_build_id_mem("", 0, id, sizeof(id)), 0);
	}
}

Test(elf, demangle)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	struct exm_elf *e = parse_opts(&o, &lay);
	long i = sym_index(e, "_ZN3foo3barEi");
	char *d;

	cr_assert_geq(i, 0);
	cr_assert_str_eq(exm_elf_sym_name(e, (size_t)i, true), "foo::bar(int)");
	cr_assert_str_eq(exm_elf_sym_name(e, (size_t)i, false),
			 "_ZN3foo3barEi");
	/* A C name stays as it is. */
	cr_assert_str_eq(exm_elf_sym_name(e, (size_t)sym_index(e, "f1"), true),
			 "f1");
	cr_assert_str_eq(exm_elf_sym_name(e, 100000, true), "");
	cr_assert_null(exm_demangle("f1"));
	cr_assert_null(exm_demangle("_Z!!!garbage"));
	cr_assert_null(exm_demangle(NULL));
	d = exm_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi");
	cr_assert_not_null(d);
	cr_assert_str_eq(d, "std::vector<int, std::allocator<int> >"
			    "::push_back(int const&)");
	free(d);
	exm_elf_free(e);
}

Test(elf, not_elf)
{
	static const char *inputs[] = { "", "hello world",
					"\x7f"
					"ELF",
					"\x7f"
					"ELF\x02\x01\x01" };
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct exm_elf *e = exm_elf_parse_mem(inputs[i],
						      strlen(inputs[i]));

		cr_assert_not_null(e);
		cr_assert_eq(e->state, EXM_ELF_NOT_ELF, "input %zu", i);
		cr_assert_str_eq(exm_elf_state_text(e), "(not an ELF file)");
		cr_assert_eq(e->nsecs + e->nsyms + e->nsegs, 0);
		exm_elf_free(e);
	}
}

Test(elf, state_only_objects)
{
	const struct exm_elf *r = exm_elf_state_only(EXM_ELF_REPLACED);

	cr_assert_str_eq(exm_elf_state_text(r), "(file replaced)");
	cr_assert_str_eq(exm_elf_state_text(
				 exm_elf_state_only(EXM_ELF_UNREADABLE)),
			 "(file unreadable)");
	cr_assert_str_eq(exm_elf_state_text(exm_elf_state_only(99)),
			 "(file unreadable)");
	exm_elf_free((struct exm_elf *)r); /* a no-op, must not crash */
}

Test(elf, crc32)
{
	cr_assert_eq(exm_crc32(0, "123456789", 9), 0xcbf43926u);
	cr_assert_eq(exm_crc32(exm_crc32(0, "1234", 4), "56789", 5),
		     0xcbf43926u);
}

/* ---- hostile input ---- */

/* Parse a mutated image: must not crash and must stay self-consistent. */
static struct exm_elf *parse_bytes(const unsigned char *img, size_t len)
{
	struct exm_elf *e = exm_elf_parse_mem(img, len);

	cr_assert_not_null(e);
	for (size_t i = 0; i < e->nsecs; i++) {
		cr_assert_not_null(e->secs[i].name);
		cr_assert_leq(strlen(e->secs[i].name), EXM_ELF_NAME_MAX);
		cr_assert_geq(e->secs[i].addr + e->secs[i].size,
			      e->secs[i].addr);
	}
	for (size_t i = 0; i < e->nsyms; i++) {
		cr_assert_not_null(e->syms[i].name);
		cr_assert_leq(strlen(e->syms[i].name), EXM_ELF_NAME_MAX);
		exm_elf_sym_name(e, i, true);
	}
	return e;
}

Test(elf_hostile, every_truncation)
{
	struct eg_opts o = { .build_id = true, .debuglink = true };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);

	for (size_t len = 0; len < lay.len; len++) {
		unsigned char *cut = malloc(len ? len : 1);

		memcpy(cut, img, len);
		exm_elf_free(parse_bytes(cut, len));
		free(cut);
	}
	free(img);
}

Test(elf_hostile, section_headers_past_file)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	struct exm_elf *e;

	eh->e_shoff = lay.len + 4096;
	e = parse_bytes(img, lay.len);
	cr_assert_eq(e->nsecs, 0);
	cr_assert_eq(e->nsyms, 0);
	exm_elf_free(e);
	eh->e_shoff = UINT64_MAX - 8;
	exm_elf_free(parse_bytes(img, lay.len));
	eh->e_shoff = lay.shoff;
	eh->e_shnum = 0xffff;
	exm_elf_free(parse_bytes(img, lay.len));
	eh->e_shnum = (uint16_t)lay.shnum;
	eh->e_shentsize = 3;
	exm_elf_free(parse_bytes(img, lay.len));
	free(img);
}

Test(elf_hostile, absurd_section_sizes)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + lay.shoff);
	struct exm_elf *e;

	/* A symbol table claiming far more than the file holds. */
	sh[lay.symtab_idx].sh_size = UINT64_MAX / 2;
	e = parse_bytes(img, lay.len);
	cr_assert_eq(e->nsyms, 0);
	cr_assert_eq(e->nsecs, 3);
	exm_elf_free(e);
	sh[lay.symtab_idx].sh_size = lay.nsyms * sizeof(Elf64_Sym);
	sh[lay.symtab_idx].sh_offset = UINT64_MAX - 16;
	exm_elf_free(parse_bytes(img, lay.len));
	sh[lay.symtab_idx].sh_offset = lay.symtab_off;
	/* A section wrapping the address space is dropped. */
	sh[1].sh_addr = UINT64_MAX - 0x10;
	sh[1].sh_size = 0x1000;
	e = parse_bytes(img, lay.len);
	cr_assert_eq(e->nsecs, 2);
	exm_elf_free(e);
	/* Overlapping sections are kept as they are. */
	sh[1].sh_addr = 0x4000;
	sh[1].sh_size = 0x3000;
	e = parse_bytes(img, lay.len);
	cr_assert_eq(e->nsecs, 3);
	exm_elf_free(e);
	free(img);
}

Test(elf_hostile, missing_string_tables)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + lay.shoff);
	struct exm_elf *e;

	/* No section name table: sections are kept, unnamed. */
	eh->e_shstrndx = 0;
	e = parse_bytes(img, lay.len);
	cr_assert_eq(e->nsecs, 3);
	cr_assert_str_eq(e->secs[0].name, "");
	cr_assert_eq(e->nsyms, EG_KEPT_SYMS);
	exm_elf_free(e);
	eh->e_shstrndx = 0xfff0;
	exm_elf_free(parse_bytes(img, lay.len));
	eh->e_shstrndx = (uint16_t)lay.shstrndx;
	/* Symbol table linked to nothing, or to a non-string section. */
	sh[lay.symtab_idx].sh_link = 999;
	e = parse_bytes(img, lay.len);
	cr_assert_eq(e->nsyms, EG_KEPT_SYMS);
	for (size_t i = 0; i < e->nsyms; i++)
		cr_assert_str_eq(e->syms[i].name, "");
	exm_elf_free(e);
	sh[lay.symtab_idx].sh_link = 1;
	exm_elf_free(parse_bytes(img, lay.len));
	sh[lay.symtab_idx].sh_link = (uint32_t)lay.symtab_idx;
	exm_elf_free(parse_bytes(img, lay.len));
	sh[lay.symtab_idx].sh_link = (uint32_t)lay.strtab_idx;
	/* A string table whose last string is not terminated. */
	img[lay.strtab_off + sh[lay.strtab_idx].sh_size - 1] = 'x';
	exm_elf_free(parse_bytes(img, lay.len));
	/* Name offsets past the table. */
	for (size_t i = 1; i < lay.nsyms; i++)
		((Elf64_Sym *)(img + lay.symtab_off))[i].st_name = 0xfffffff0u;
	e = parse_bytes(img, lay.len);
	cr_assert_eq(e->nsyms, EG_KEPT_SYMS);
	exm_elf_free(e);
	free(img);
}

Test(elf_hostile, very_long_names)
{
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + lay.shoff);
	size_t longlen = 200000, len;
	unsigned char *big;
	struct exm_elf *e;

	/* Append a long string table and point .strtab at it. */
	len = lay.len + longlen + 2;
	big = calloc(1, len);
	memcpy(big, img, lay.len);
	memset(big + lay.len + 1, 'A', longlen);
	sh = (Elf64_Shdr *)(big + lay.shoff);
	sh[lay.strtab_idx].sh_offset = lay.len;
	sh[lay.strtab_idx].sh_size = longlen + 2;
	for (size_t i = 1; i < lay.nsyms; i++)
		((Elf64_Sym *)(big + lay.symtab_off))[i].st_name = 1;
	e = parse_bytes(big, len);
	cr_assert_eq(e->nsyms, EG_KEPT_SYMS);
	cr_assert_eq(strlen(e->syms[0].name), EXM_ELF_NAME_MAX);
	exm_elf_free(e);
	free(big);
	free(img);
}

Test(elf_hostile, huge_symbol_count)
{
	struct eg_opts o = { .extra_syms = 200000 };
	struct eg_layout lay;
	struct exm_elf *e = parse_opts(&o, &lay);

	/* Every symbol appears (libLLVM has 46,000+). */
	cr_assert_eq(e->nsyms, EG_KEPT_SYMS + 200000);
	cr_assert_geq(sym_index(e, "s199999"), 0);
	exm_elf_free(e);
}

Test(elf_hostile, random_mutations)
{
	struct eg_opts o = { .build_id = true, .debuglink = true };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);
	unsigned char *m = malloc(lay.len);
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int iter = 0; iter < 3000; iter++) {
		memcpy(m, img, lay.len);
		for (int k = 0; k < 1 + iter % 8; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			m[(x >> 8) % lay.len] = (unsigned char)x;
		}
		exm_elf_free(parse_bytes(m, lay.len));
	}
	free(m);
	free(img);
}

/* ---- files and separate debug files ---- */

static int write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	return 0;
}

static struct exm_elf *parse_path(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct exm_elf *e;

	cr_assert_geq(fd, 0);
	e = exm_elf_parse_fd(fd, path, 0);
	close(fd);
	cr_assert_not_null(e);
	return e;
}

Test(elf_files, debug_file_by_build_id)
{
	char dir[] = "/tmp/exm_elf_XXXXXX", path[256];
	struct eg_opts mo = { .no_symtab = true, .build_id = true };
	struct eg_opts dbo = { .build_id = true };
	struct eg_layout ml, dl;
	unsigned char *main_img, *dbg_img;
	struct exm_elf *e;

	cr_assert_not_null(mkdtemp(dir));
	main_img = eg_build(&mo, &ml);
	dbg_img = eg_build(&dbo, &dl);
	snprintf(path, sizeof(path), "%s/.build-id", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/.build-id/11", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/.build-id/11/%s.debug", dir,
		 "11111111111111111111111111111111111111");
	write_file(path, dbg_img, dl.len);
	setenv("EXMTOP_DEBUG_DIR", dir, 1);
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	write_file(path, main_img, ml.len);

	e = parse_path(path);
	cr_assert_eq(e->state, EXM_ELF_OK);
	cr_assert_eq(e->symsrc, EXM_SYMS_DEBUG);
	cr_assert_eq(e->nsyms, EG_KEPT_SYMS);
	cr_assert_str_eq(exm_elf_symsrc_text(e), "debug file");
	cr_assert_not_null(e->debug_path);
	cr_assert(strstr(e->debug_path, "/.build-id/11/") != NULL);
	cr_assert_str_eq(exm_elf_sym_name(e, 0, true), "f1");
	exm_elf_free(e);

	/* A debug file with another build-id is not used. */
	{
		struct eg_opts other = { 0 }; /* no build-id at all */
		struct eg_layout ol;
		unsigned char *oimg = eg_build(&other, &ol);

		snprintf(path, sizeof(path), "%s/.build-id/11/%s.debug", dir,
			 "11111111111111111111111111111111111111");
		write_file(path, oimg, ol.len);
		free(oimg);
	}
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	e = parse_path(path);
	cr_assert_eq(e->symsrc, EXM_SYMS_NONE);
	exm_elf_free(e);
	/* With EXM_ELF_NO_DEBUG the debug file is not looked for. */
	unsetenv("EXMTOP_DEBUG_DIR");
	free(main_img);
	free(dbg_img);
}

Test(elf_files, debug_file_by_debuglink)
{
	char dir[] = "/tmp/exm_elf_XXXXXX", path[256];
	struct eg_opts mo = { .no_symtab = true, .debuglink = true };
	struct eg_opts dbo = { 0 };
	struct eg_layout ml, dl;
	unsigned char *main_img, *dbg_img;
	struct exm_elf *e;
	uint32_t crc;

	cr_assert_not_null(mkdtemp(dir));
	main_img = eg_build(&mo, &ml);
	dbg_img = eg_build(&dbo, &dl);
	snprintf(path, sizeof(path), "%s/.debug", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/.debug/lib.debug", dir);
	write_file(path, dbg_img, dl.len);

	/* Wrong CRC: not used. */
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	write_file(path, main_img, ml.len);
	e = parse_path(path);
	cr_assert_eq(e->symsrc, EXM_SYMS_NONE);
	exm_elf_free(e);

	crc = exm_crc32(0, dbg_img, dl.len);
	memcpy(main_img + ml.debuglink_off + 12, &crc, 4);
	write_file(path, main_img, ml.len);
	e = parse_path(path);
	cr_assert_eq(e->symsrc, EXM_SYMS_DEBUG);
	cr_assert_eq(e->nsyms, EG_KEPT_SYMS);
	cr_assert(strstr(e->debug_path, "/.debug/lib.debug") != NULL);
	exm_elf_free(e);
	free(main_img);
	free(dbg_img);
}

Test(elf_files, truncated_while_open)
{
	char path[] = "/tmp/exm_elf_trunc_XXXXXX";
	struct eg_opts o = { 0 };
	struct eg_layout lay;
	unsigned char *img = eg_build(&o, &lay);
	int fd = mkstemp(path);
	struct exm_elf *e;
	void *map;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, img, lay.len), (ssize_t)lay.len);
	/* Map it (as a process would), then cut it to half. */
	map = mmap(NULL, lay.len, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq(map, MAP_FAILED);
	cr_assert_eq(ftruncate(fd, (off_t)lay.len / 2), 0);
	e = exm_elf_parse_fd(fd, path, 0);
	cr_assert_not_null(e);
	cr_assert_eq(e->nsyms, 0);
	exm_elf_free(e);
	cr_assert_eq(ftruncate(fd, 0), 0);
	e = exm_elf_parse_fd(fd, path, 0);
	cr_assert_not_null(e);
	cr_assert_neq(e->state, EXM_ELF_OK);
	exm_elf_free(e);
	munmap(map, lay.len);
	close(fd);
	unlink(path);
	free(img);
}

/* A 32-bit shared object (i386, built with gcc -m32 -nostdlib). */
Test(elf_files, elf32)
{
	struct exm_elf *e = parse_path(EXM_CORPUS_DIR "/seed-tiny32-so");
	long text;

	cr_assert_eq(e->state, EXM_ELF_OK);
	cr_assert_not(e->is64);
	cr_assert_eq(e->machine, EM_386);
	cr_assert_eq(e->build_id_len, 20);
	cr_assert_geq(e->nsegs, 2);
	text = exm_elf_find_section(e, ".text");
	cr_assert_geq(text, 0);
	cr_assert_eq(e->secs[text].size, 0x2f);
	cr_assert_eq(e->symsrc, EXM_SYMS_SYMTAB);
	cr_assert_geq(sym_index(e, "f"), 0);
	cr_assert_eq(e->syms[sym_index(e, "f")].addr, e->secs[text].addr);
	cr_assert_geq(sym_index(e, "x"), 0);
	cr_assert_eq(e->syms[sym_index(e, "x")].size, 400);
	exm_elf_free(e);
}
