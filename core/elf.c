// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * elf.c - hardened ELF parsing for the section and symbol drill-down.
 *
 * Everything read from the file is untrusted. libelf checks that section
 * headers and section data lie inside the file and that strings are
 * terminated inside their table; on top of that we bound counts and sizes
 * (EXM_ELF_MAX_*), never follow links we did not check, and keep only
 * copies of what we need, so the Elf handle is closed before returning.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/elf.h"
#include "core/ownfiles.h"

/*
 * libstdc++'s demangler (C linkage), loaded on first use: most runs never
 * demangle, and linking libstdc++ costs every start-up its relocations
 * (more than a small snapshot itself). Without libstdc++.so.6 nothing
 * demangles.
 */
typedef char *demangle_fn(const char *mangled, char *buf, size_t *len,
			  int *status);
static demangle_fn *cxa_demangle;
static pthread_once_t demangle_once = PTHREAD_ONCE_INIT;

static void demangle_load(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	void *fn = h ? dlsym(h, "__cxa_demangle") : NULL;

	memcpy(&cxa_demangle, &fn, sizeof(fn));
}

/* Names are kept as pool offsets while parsing (the pool may move), then
 * turned into pointers once the pool is final. */
#define OFF_TO_PTR(off) ((const char *)(uintptr_t)(off))
#define PTR_TO_OFF(p) ((size_t)(uintptr_t)(p))

struct pool {
	char *buf;
	size_t len, cap;
};

struct parse {
	Elf *elf;
	struct exm_elf *e;
	struct pool pool;
	size_t shstrndx;
	bool have_shstrndx;
	Elf_Scn *symtab, *dynsym;
	size_t nsyms_cap;
	struct exm_elf *debug; /* separate debug file, owned */
};

/* The debug file is kept next to the object whose symbols it gave. */
struct exm_elf_priv {
	struct exm_elf pub;
	struct exm_elf *debug;
};

static const struct exm_elf state_only[] = {
	[EXM_ELF_OK] = { .state = EXM_ELF_OK },
	[EXM_ELF_NOT_ELF] = { .state = EXM_ELF_NOT_ELF },
	[EXM_ELF_REPLACED] = { .state = EXM_ELF_REPLACED },
	[EXM_ELF_UNREADABLE] = { .state = EXM_ELF_UNREADABLE },
	[EXM_ELF_NOT_FILE] = { .state = EXM_ELF_NOT_FILE },
};

const struct exm_elf *exm_elf_state_only(enum exm_elf_state state)
{
	if ((unsigned)state >= sizeof(state_only) / sizeof(state_only[0]))
		state = EXM_ELF_UNREADABLE;
	return &state_only[state];
}

const char *exm_elf_state_text(const struct exm_elf *e)
{
	switch (e ? e->state : EXM_ELF_UNREADABLE) {
	case EXM_ELF_OK:
		return "";
	case EXM_ELF_NOT_ELF:
		return "(not an ELF file)";
	case EXM_ELF_REPLACED:
		return "(file replaced)";
	case EXM_ELF_NOT_FILE:
		return "(not a file mapping)";
	case EXM_ELF_UNREADABLE:
	default:
		return "(file unreadable)";
	}
}

const char *exm_elf_symsrc_text(const struct exm_elf *e)
{
	switch (e->symsrc) {
	case EXM_SYMS_SYMTAB:
		return "symtab";
	case EXM_SYMS_DEBUG:
		return "debug file";
	case EXM_SYMS_DYNSYM:
		return "dynsym (exported only)";
	case EXM_SYMS_NONE:
	default:
		return "(no symbols)";
	}
}

const char *exm_elf_debug_dir(void)
{
	const char *d = getenv("EXMTOP_DEBUG_DIR");

	return d && *d == '/' ? d : "/usr/lib/debug";
}

uint32_t exm_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t table[256]; /* per call: 2 KiB of work, no shared state */

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* Append s (cut at EXM_ELF_NAME_MAX bytes) to the pool; offset or -1. */
static long pool_add(struct pool *pl, const char *s)
{
	size_t n = s ? strnlen(s, EXM_ELF_NAME_MAX) : 0;
	size_t off;

	if (pl->len + n + 1 > pl->cap) {
		size_t cap = pl->cap ? pl->cap : 4096;
		char *nb;

		while (cap < pl->len + n + 1)
			cap *= 2;
		nb = realloc(pl->buf, cap);
		if (!nb)
			return -1;
		pl->buf = nb;
		pl->cap = cap;
	}
	off = pl->len;
	if (n)
		memcpy(pl->buf + off, s, n);
	pl->buf[off + n] = '\0';
	pl->len += n + 1;
	return (long)off;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int sec_cmp(const void *pa, const void *pb)
{
	const struct exm_elf_section *a = pa, *b = pb;
	int c = cmp_u64(a->addr, b->addr);

	if (!c)
		c = cmp_u64(a->size, b->size);
	if (!c)
		c = cmp_u64(a->index, b->index);
	return c;
}

static int sym_cmp(const void *pa, const void *pb)
{
	const struct exm_elf_symbol *a = pa, *b = pb;
	int c = cmp_u64(a->addr, b->addr);

	if (!c)
		c = cmp_u64(b->size, a->size);
	if (!c)
		c = strcmp(a->name, b->name);
	return c;
}

/* Section name from the section header string table, or "" */
static const char *sec_name(struct parse *ps, const GElf_Shdr *sh)
{
	const char *n;

	if (!ps->have_shstrndx)
		return "";
	n = elf_strptr(ps->elf, ps->shstrndx, sh->sh_name);
	return n ? n : "";
}

/* The build-id in a note data block, if any. */
static void scan_notes(struct exm_elf *e, Elf_Data *d)
{
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	while (d && off < d->d_size) {
		size_t next = gelf_getnote(d, off, &nh, &noff, &doff);

		if (!next || next <= off)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    noff + 4 <= d->d_size && doff <= d->d_size &&
		    nh.n_descsz <= d->d_size - doff &&
		    !memcmp((const char *)d->d_buf + noff, "GNU", 4) &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof(e->build_id) &&
		    !e->build_id_len) {
			memcpy(e->build_id, (const char *)d->d_buf + doff,
			       nh.n_descsz);
			e->build_id_len = nh.n_descsz;
		}
		off = next;
	}
}

/*
 * The GNU build-id of elf into e: from its PT_NOTE segments, else its
 * SHT_NOTE sections (the first one found). libelf turns the note headers
 * into host order, so a file of either byte order and class gives the
 * same bytes.
 */
static void read_build_id(Elf *elf, struct exm_elf *e)
{
	Elf_Scn *scn = NULL;
	size_t n, seen = 0;

	if (elf_getphdrnum(elf, &n) != 0)
		n = 0;
	for (size_t i = 0; i < n && i < 65535 && !e->build_id_len; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			break;
		if (ph.p_type == PT_NOTE && ph.p_filesz > 0 &&
		    ph.p_filesz <= 65536)
			scan_notes(e,
				   elf_getdata_rawchunk(elf,
							(int64_t)ph.p_offset,
							ph.p_filesz,
							ph.p_align == 8
								? ELF_T_NHDR8
								: ELF_T_NHDR));
	}
	if (elf_getshdrnum(elf, &n) != 0)
		n = 0;
	if (n > EXM_ELF_MAX_SECS)
		n = EXM_ELF_MAX_SECS;
	while (!e->build_id_len && (scn = elf_nextscn(elf, scn)) &&
	       seen++ < n) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    sh.sh_size <= 65536)
			scan_notes(e, elf_getdata(scn, NULL));
	}
}

static void read_debuglink(struct exm_elf *e, struct pool *pl, Elf_Scn *scn,
			   bool msb)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const char *s;
	size_t n, crcoff;
	long off;

	if (!d || !d->d_buf || d->d_size < 6)
		return;
	s = d->d_buf;
	n = strnlen(s, d->d_size);
	if (n == 0 || n >= d->d_size || n > NAME_MAX)
		return;
	crcoff = (n + 1 + 3) & ~(size_t)3;
	if (crcoff + 4 > d->d_size)
		return;
	/* A bare file name only: no directories, no "." or "..". */
	if (memchr(s, '/', n) || !strcmp(s, ".") || !strcmp(s, ".."))
		return;
	off = pool_add(pl, s);
	if (off < 0)
		return;
	e->debuglink = (char *)OFF_TO_PTR(off);
	/* The CRC is stored in the file's byte order. */
	{
		const unsigned char *b = (const unsigned char *)s + crcoff;

		if (msb)
			e->debuglink_crc = (uint32_t)b[0] << 24 |
					   (uint32_t)b[1] << 16 |
					   (uint32_t)b[2] << 8 | b[3];
		else
			e->debuglink_crc = (uint32_t)b[3] << 24 |
					   (uint32_t)b[2] << 16 |
					   (uint32_t)b[1] << 8 | b[0];
	}
}

static bool keep_symbol(const GElf_Sym *s)
{
	unsigned type = GELF_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS ||
	    s->st_shndx == SHN_COMMON)
		return false;
	switch (type) {
	case STT_NOTYPE:
	case STT_OBJECT:
	case STT_FUNC:
	case STT_GNU_IFUNC:
		return true;
	default: /* STT_SECTION, STT_FILE, STT_TLS, ... */
		return false;
	}
}

/* Read the symbols of table scn into e->syms; 0 or -errno. */
static int read_symbols(struct parse *ps, Elf_Scn *scn)
{
	struct exm_elf *e = ps->e;
	GElf_Shdr sh, strsh;
	Elf_Scn *strscn;
	Elf_Data *d;
	size_t entsize, count, i;
	bool names_ok;

	if (!gelf_getshdr(scn, &sh))
		return 0;
	if (sh.sh_size == 0 || sh.sh_size > EXM_ELF_MAX_DATA)
		return 0;
	entsize = gelf_fsize(ps->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!entsize)
		return 0;
	strscn = elf_getscn(ps->elf, sh.sh_link);
	names_ok = strscn && gelf_getshdr(strscn, &strsh) &&
		   strsh.sh_type == SHT_STRTAB &&
		   strsh.sh_size <= EXM_ELF_MAX_DATA;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return 0;
	count = d->d_size / entsize;
	if (count > EXM_ELF_MAX_SYMS)
		count = EXM_ELF_MAX_SYMS;
	if (count <= 1)
		return 0;
	e->syms = calloc(count, sizeof(*e->syms));
	if (!e->syms)
		return -ENOMEM;
	e->nsyms = 0;
	for (i = 1; i < count; i++) {
		struct exm_elf_symbol *y;
		const char *name = NULL;
		GElf_Sym s;
		long off;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		if (!keep_symbol(&s))
			continue;
		if (names_ok && s.st_name)
			name = elf_strptr(ps->elf, sh.sh_link, s.st_name);
		off = pool_add(&ps->pool, name);
		if (off < 0)
			return -ENOMEM;
		y = &e->syms[e->nsyms++];
		y->name = OFF_TO_PTR(off);
		y->addr = s.st_value;
		/* ARM Thumb functions have bit 0 set in their address. */
		if (e->machine == EM_ARM && GELF_ST_TYPE(s.st_info) == STT_FUNC)
			y->addr &= ~(uint64_t)1;
		y->size = s.st_size;
		y->type = GELF_ST_TYPE(s.st_info);
		y->bind = GELF_ST_BIND(s.st_info);
	}
	return 0;
}

static int read_segments(struct parse *ps)
{
	struct exm_elf *e = ps->e;
	size_t n, i;

	if (elf_getphdrnum(ps->elf, &n) != 0)
		return 0;
	if (n > 65535)
		n = 65535;
	if (!n)
		return 0;
	e->segs = calloc(n, sizeof(*e->segs));
	if (!e->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(ps->elf, (int)i, &ph))
			break;
		if (ph.p_type != PT_LOAD)
			continue;
		/* A segment that wraps the address space is nonsense. */
		if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr ||
		    ph.p_offset + ph.p_filesz < ph.p_offset)
			continue;
		e->segs[e->nsegs++] = (struct exm_elf_segment){
			.offset = ph.p_offset,
			.vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz,
			.memsz = ph.p_memsz,
			.align = ph.p_align,
			.flags = ph.p_flags,
		};
	}
	return 0;
}

static int read_sections(struct parse *ps, Elf_Scn **debuglink)
{
	struct exm_elf *e = ps->e;
	Elf_Scn *scn = NULL;
	size_t n, seen = 0;

	if (elf_getshdrnum(ps->elf, &n) != 0 || n == 0)
		return 0;
	if (n > EXM_ELF_MAX_SECS)
		n = EXM_ELF_MAX_SECS;
	ps->have_shstrndx = elf_getshdrstrndx(ps->elf, &ps->shstrndx) == 0;
	e->secs = calloc(n, sizeof(*e->secs));
	if (!e->secs)
		return -ENOMEM;
	while ((scn = elf_nextscn(ps->elf, scn)) && seen++ < n) {
		GElf_Shdr sh;
		const char *name;
		long off;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = sec_name(ps, &sh);
		if (sh.sh_type == SHT_SYMTAB && !ps->symtab)
			ps->symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !ps->dynsym)
			ps->dynsym = scn;
		else if (sh.sh_type == SHT_PROGBITS &&
			 !strcmp(name, ".gnu_debuglink") && sh.sh_size <= 4096)
			*debuglink = scn;
		if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_addr == 0 ||
		    sh.sh_size == 0)
			continue;
		/* .tbss takes no address space in the image. */
		if ((sh.sh_flags & SHF_TLS) && sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		off = pool_add(&ps->pool, name);
		if (off < 0)
			return -ENOMEM;
		e->secs[e->nsecs++] = (struct exm_elf_section){
			.name = OFF_TO_PTR(off),
			.addr = sh.sh_addr,
			.size = sh.sh_size,
			.offset = sh.sh_offset,
			.flags = sh.sh_flags,
			.type = sh.sh_type,
			.index = (uint32_t)elf_ndxscn(scn),
		};
	}
	return 0;
}

/* Whether the debug file d belongs to e. */
static bool debug_matches(const struct exm_elf *e, const struct exm_elf *d,
			  int dfd, bool by_link)
{
	if (d->state != EXM_ELF_OK || d->symsrc != EXM_SYMS_SYMTAB)
		return false;
	if (e->build_id_len)
		return d->build_id_len == e->build_id_len &&
		       !memcmp(d->build_id, e->build_id, e->build_id_len);
	if (by_link) {
		/* No build-id to compare: check the debuglink CRC. */
		unsigned char buf[65536];
		uint32_t crc = 0;
		struct stat st;
		off_t pos = 0;
		ssize_t r;

		/* Bound the work a hostile debuglink can cause. */
		if (fstat(dfd, &st) || st.st_size > (off_t)4 * EXM_ELF_MAX_DATA)
			return false;
		while ((r = pread(dfd, buf, sizeof(buf), pos)) > 0) {
			crc = exm_crc32(crc, buf, (size_t)r);
			pos += r;
		}
		return r == 0 && crc == e->debuglink_crc;
	}
	return false;
}

int exm_open_regular(const char *path, struct stat *st)
{
	char self[64];
	int pfd = open(path, O_PATH | O_CLOEXEC), fd = -1, e;

	/*
	 * A path descriptor first: it opens nothing for reading, and closing
	 * it drops no POSIX lock (ownfiles.h). Only a regular file that is
	 * not one of this process's recordings is then opened for reading,
	 * through it, so the file checked is the file opened.
	 */
	if (pfd < 0)
		return -1;
	if (fstat(pfd, st) || !S_ISREG(st->st_mode)) {
		errno = EINVAL;
	} else if (exm_ownfiles_has(st)) {
		errno = EBUSY;
	} else {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
		fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	}
	e = errno;
	close(pfd);
	errno = e;
	return fd;
}

static struct exm_elf *try_debug(const struct exm_elf *e, const char *path,
				 bool by_link)
{
	struct exm_elf *d;
	struct stat st;
	int fd = exm_open_regular(path, &st);

	if (fd < 0)
		return NULL;
	d = exm_elf_parse_fd(fd, NULL, EXM_ELF_NO_DEBUG);
	if (d && !debug_matches(e, d, fd, by_link)) {
		exm_elf_free(d);
		d = NULL;
	}
	if (d && !d->debug_path)
		d->debug_path = strdup(path);
	close(fd);
	return d;
}

/* Find the separate debug file of e (opened from path, may be NULL). */
static struct exm_elf *find_debug(const struct exm_elf *e, const char *path,
				  const char *root)
{
	char buf[PATH_MAX + 64];
	struct exm_elf *d;

	if (e->build_id_len >= 2) {
		int n = snprintf(buf, sizeof(buf), "%s/.build-id/%02x/", root,
				 e->build_id[0]);

		for (size_t i = 1; i < e->build_id_len && n > 0 &&
				   (size_t)n + 3 < sizeof(buf);
		     i++)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%02x",
				      e->build_id[i]);
		if (n > 0 && (size_t)n + 7 < sizeof(buf)) {
			strcpy(buf + n, ".debug");
			d = try_debug(e, buf, false);
			if (d)
				return d;
		}
	}
	if (e->debuglink && path && *path == '/') {
		const char *slash = strrchr(path, '/');
		int dirlen = (int)(slash - path);
		const char *subs[] = { "", "/.debug" };

		for (size_t i = 0; i < 2; i++) {
			snprintf(buf, sizeof(buf), "%.*s%s/%s", dirlen, path,
				 subs[i], e->debuglink);
			if (strcmp(buf, path) && (d = try_debug(e, buf, true)))
				return d;
		}
		snprintf(buf, sizeof(buf), "%s%.*s/%s", root, dirlen, path,
			 e->debuglink);
		if ((d = try_debug(e, buf, true)))
			return d;
	}
	return NULL;
}

static void fixup_names(struct exm_elf *e, struct pool *pl)
{
	for (size_t i = 0; i < e->nsecs; i++)
		e->secs[i].name = pl->buf + PTR_TO_OFF(e->secs[i].name);
	for (size_t i = 0; i < e->nsyms; i++)
		e->syms[i].name = pl->buf + PTR_TO_OFF(e->syms[i].name);
	if (e->debuglink)
		e->debuglink = pl->buf + PTR_TO_OFF(e->debuglink);
	e->pool = pl->buf;
	pl->buf = NULL;
}

static struct exm_elf *parse_elf(Elf *elf, int fd, const char *path,
				 unsigned opts, const char *debug_dir)
{
	struct exm_elf_priv *priv = calloc(1, sizeof(*priv));
	struct exm_elf *e = priv ? &priv->pub : NULL;
	struct parse ps = { .elf = elf, .e = e };
	Elf_Scn *debuglink = NULL;
	GElf_Ehdr eh;
	int err = 0;

	if (!e)
		return NULL;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		e->state = elf ? EXM_ELF_NOT_ELF : EXM_ELF_UNREADABLE;
		return e;
	}
	e->is64 = gelf_getclass(elf) == ELFCLASS64;
	e->etype = eh.e_type;
	e->machine = eh.e_machine;
	/* Offset 0 of the pool is the empty name. */
	if (pool_add(&ps.pool, "") < 0)
		goto nomem;
	read_build_id(elf, e);
	err = read_segments(&ps);
	if (!err)
		err = read_sections(&ps, &debuglink);
	if (!err && debuglink)
		read_debuglink(e, &ps.pool, debuglink,
			       eh.e_ident[EI_DATA] == ELFDATA2MSB);
	if (!err && ps.symtab) {
		err = read_symbols(&ps, ps.symtab);
		if (!err && e->nsyms)
			e->symsrc = EXM_SYMS_SYMTAB;
	}
	if (err)
		goto nomem;
	fixup_names(e, &ps.pool);
	if (e->symsrc == EXM_SYMS_NONE && fd >= 0 &&
	    !(opts & EXM_ELF_NO_DEBUG)) {
		struct exm_elf *d = find_debug(e, path, debug_dir);

		if (d) {
			free(e->syms);
			e->syms = d->syms;
			e->nsyms = d->nsyms;
			d->syms = NULL;
			d->nsyms = 0;
			e->debug_path = d->debug_path;
			d->debug_path = NULL;
			e->symsrc = EXM_SYMS_DEBUG;
			priv->debug = d; /* owns the names */
			e->memsize += d->memsize;
		}
	}
	if (e->symsrc == EXM_SYMS_NONE && ps.dynsym) {
		/* Names go into a second pool kept by a helper object. */
		struct exm_elf_priv *dp = calloc(1, sizeof(*dp));
		struct parse ds = { .elf = elf, .e = dp ? &dp->pub : NULL };

		if (!dp)
			goto nomem_final;
		dp->pub.machine = e->machine;
		if (pool_add(&ds.pool, "") < 0 ||
		    read_symbols(&ds, ps.dynsym) < 0) {
			free(ds.pool.buf);
			exm_elf_free(&dp->pub);
			goto nomem_final;
		}
		fixup_names(&dp->pub, &ds.pool);
		free(e->syms);
		e->syms = dp->pub.syms;
		e->nsyms = dp->pub.nsyms;
		dp->pub.syms = NULL;
		dp->pub.nsyms = 0;
		if (e->nsyms)
			e->symsrc = EXM_SYMS_DYNSYM;
		dp->pub.memsize = ds.pool.cap;
		priv->debug = &dp->pub;
	}
	if (e->nsecs)
		qsort(e->secs, e->nsecs, sizeof(*e->secs), sec_cmp);
	if (e->nsyms)
		qsort(e->syms, e->nsyms, sizeof(*e->syms), sym_cmp);
	e->memsize += sizeof(*priv) + ps.pool.cap +
		      e->nsecs * sizeof(*e->secs) +
		      e->nsyms * (sizeof(*e->syms) + sizeof(char *)) +
		      e->nsegs * sizeof(*e->segs);
	return e;

nomem:
	free(ps.pool.buf);
nomem_final:
	exm_elf_free(e);
	return NULL;
}

struct exm_elf *exm_elf_parse_fd(int fd, const char *path, unsigned opts)
{
	return exm_elf_parse_fd_in(fd, path, opts, exm_elf_debug_dir());
}

struct exm_elf *exm_elf_parse_fd_in(int fd, const char *path, unsigned opts,
				    const char *debug_dir)
{
	struct exm_elf *e;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		struct exm_elf_priv *priv = calloc(1, sizeof(*priv));

		if (!priv)
			return NULL;
		/* elf_begin fails on read errors; short files are ELF_K_NONE. */
		priv->pub.state = EXM_ELF_UNREADABLE;
		priv->pub.err = EIO;
		return &priv->pub;
	}
	e = parse_elf(elf, fd, path, opts, debug_dir);
	elf_end(elf);
	return e;
}

/* An Elf handle of a copy of buf (*copy: free it after elf_end): elf_memory
 * may write to the image (byte order). NULL with *copy NULL: no memory. */
static Elf *elf_of_copy(const void *buf, size_t len, char **copy)
{
	*copy = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*copy = malloc(len ? len : 1);
	if (!*copy)
		return NULL;
	if (len)
		memcpy(*copy, buf, len);
	return elf_memory(*copy, len);
}

struct exm_elf *exm_elf_parse_mem(const void *buf, size_t len)
{
	struct exm_elf *e;
	char *copy;
	Elf *elf = elf_of_copy(buf, len, &copy);

	if (!copy)
		return NULL;
	e = parse_elf(elf, -1, NULL, EXM_ELF_NO_DEBUG, NULL);
	if (elf)
		elf_end(elf);
	free(copy);
	return e;
}

/* The build-id of an Elf handle (NULL: none) into id; its length. */
static size_t build_id_of(Elf *elf, unsigned char *id, size_t max)
{
	struct exm_elf e = { 0 };
	GElf_Ehdr eh;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return 0; /* as parse_elf: not ELF */
	read_build_id(elf, &e);
	if (e.build_id_len > max)
		return 0;
	memcpy(id, e.build_id, e.build_id_len);
	return e.build_id_len;
}

size_t exm_elf_build_id_fd(int fd, unsigned char *id, size_t max)
{
	size_t n;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	n = build_id_of(elf, id, max);
	elf_end(elf);
	return n;
}

size_t exm_elf_build_id_mem(const void *buf, size_t len, unsigned char *id,
			    size_t max)
{
	char *copy;
	Elf *elf = elf_of_copy(buf, len, &copy);
	size_t n = build_id_of(elf, id, max);

	elf_end(elf);
	free(copy);
	return n;
}

void exm_elf_free(struct exm_elf *e)
{
	struct exm_elf_priv *priv;

	if (!e || (e >= state_only &&
		   e < state_only + sizeof(state_only) / sizeof(state_only[0])))
		return;
	priv = (struct exm_elf_priv *)e;
	if (e->demangled) {
		for (size_t i = 0; i < e->nsyms; i++)
			if (e->demangled[i] != e->syms[i].name)
				free(e->demangled[i]);
		free(e->demangled);
	}
	exm_elf_free(priv->debug);
	free(e->segs);
	free(e->secs);
	free(e->syms);
	free(e->debug_path);
	free(e->pool);
	free(priv);
}

char *exm_demangle(const char *name)
{
	size_t n;
	int status = -1;
	char *out;

	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	n = strnlen(name, EXM_ELF_NAME_MAX + 1);
	if (n > EXM_ELF_NAME_MAX)
		return NULL;
	pthread_once(&demangle_once, demangle_load);
	if (!cxa_demangle)
		return NULL;
	out = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

const char *exm_elf_sym_name(const struct exm_elf *e, size_t i, bool demangle)
{
	struct exm_elf *me = (struct exm_elf *)e; /* the lazy cache only */
	char *d;

	if (i >= e->nsyms)
		return "";
	if (!demangle)
		return e->syms[i].name;
	if (!me->demangled) {
		me->demangled = calloc(e->nsyms, sizeof(char *));
		if (!me->demangled)
			return e->syms[i].name;
	}
	if (!me->demangled[i]) {
		d = exm_demangle(e->syms[i].name);
		me->demangled[i] = d ? d : (char *)e->syms[i].name;
	}
	return me->demangled[i];
}

long exm_elf_find_section(const struct exm_elf *e, const char *name)
{
	for (size_t i = 0; i < e->nsecs; i++)
		if (!strcmp(e->secs[i].name, name))
			return (long)i;
	return -1;
}

long exm_elf_segment_for_offset(const struct exm_elf *e, uint64_t off,
				unsigned page_size)
{
	uint64_t mask = page_size ? ~((uint64_t)page_size - 1) : ~0ull;

	for (size_t i = 0; i < e->nsegs; i++) {
		const struct exm_elf_segment *s = &e->segs[i];

		if (off >= (s->offset & mask) && off < s->offset + s->filesz)
			return (long)i;
	}
	return -1;
}

size_t exm_elf_sym_lower_bound(const struct exm_elf *e, uint64_t addr)
{
	size_t lo = 0, hi = e->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
