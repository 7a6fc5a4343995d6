/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elf.h - what exmtop needs from an ELF file, parsed once with libelf and
 * kept in a compact, self-contained form: the PT_LOAD segments (to find the
 * load bias of a mapping), the sections that occupy address space, and the
 * symbols (.symtab, else a separate debug file, else .dynsym).
 *
 * The file is hostile input: any user can map a file that root's exmtop will
 * parse. The parser reads through pread (ELF_C_READ, never mmap, so a file
 * truncated while we read gives an error, not SIGBUS), bounds every count
 * and size, and copies every name it keeps into its own string pool.
 */
#ifndef EXM_ELF_H
#define EXM_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

enum exm_elf_state {
	EXM_ELF_OK = 0,
	EXM_ELF_NOT_ELF,    /* "(not an ELF file)" */
	EXM_ELF_REPLACED,   /* "(file replaced)": path names another file */
	EXM_ELF_UNREADABLE, /* "(file unreadable)": could not open/read */
	EXM_ELF_NOT_FILE,   /* "(not a file mapping)": anon, shmem, ... */
};

/* Where the symbols came from. */
enum exm_elf_symsrc {
	EXM_SYMS_NONE = 0, /* "(no symbols)" */
	EXM_SYMS_SYMTAB,   /* the file's own .symtab */
	EXM_SYMS_DEBUG,	   /* .symtab of a separate debug file */
	EXM_SYMS_DYNSYM,   /* .dynsym: exported symbols only */
};

struct exm_elf_segment { /* one PT_LOAD */
	uint64_t offset, vaddr, filesz, memsz, align;
	uint32_t flags; /* PF_R/W/X */
};

struct exm_elf_section {  /* SHF_ALLOC with sh_addr != 0 and sh_size != 0 */
	const char *name; /* never NULL; "" when unnamed */
	uint64_t addr, size;
	uint64_t offset;
	uint64_t flags; /* sh_flags */
	uint32_t type;	/* sh_type (SHT_NOBITS for .bss) */
	uint32_t index; /* index in the file's section header table */
};

struct exm_elf_symbol {
	const char *name; /* never NULL; raw (mangled) name */
	uint64_t addr, size;
	uint8_t type, bind; /* STT_*, STB_* */
};

struct exm_elf {
	enum exm_elf_state state;
	int err; /* errno-style detail when state != OK, or 0 */
	bool is64;
	uint16_t etype; /* ET_EXEC, ET_DYN, ... */
	uint16_t machine;

	struct exm_elf_segment *segs;
	size_t nsegs;
	struct exm_elf_section *secs; /* sorted by address */
	size_t nsecs;
	struct exm_elf_symbol *syms; /* sorted by address, then name */
	size_t nsyms;
	enum exm_elf_symsrc symsrc;
	char *debug_path; /* separate debug file used, or NULL */

	unsigned char build_id[64];
	size_t build_id_len;
	char *debuglink; /* .gnu_debuglink file name, or NULL */
	uint32_t debuglink_crc;

	/* Private. */
	char *pool;	  /* every name above points in here */
	char **demangled; /* lazily filled, one per symbol */
	uint64_t memsize; /* approximate bytes held, for the cache */
};

/* Bounds applied to hostile input. */
#define EXM_ELF_MAX_SYMS (8u << 20)   /* symbols kept from one table */
#define EXM_ELF_MAX_SECS 65536u	      /* sections considered */
#define EXM_ELF_MAX_DATA (512u << 20) /* bytes of one section read */
#define EXM_ELF_NAME_MAX 1024u	      /* longer names are cut */

/* Options for exm_elf_parse_fd(). */
#define EXM_ELF_NO_DEBUG (1u << 0) /* do not look for a separate debug file */

/*
 * Parse the ELF file open on fd (read with pread; the offset is untouched).
 * path, when not NULL, is where the file lives (used only to find a
 * .gnu_debuglink debug file next to it). Always returns a new object owned
 * by the caller (exm_elf_free), or NULL on ENOMEM: a file that is not ELF
 * gives state EXM_ELF_NOT_ELF, an I/O error EXM_ELF_UNREADABLE.
 */
struct exm_elf *exm_elf_parse_fd(int fd, const char *path, unsigned opts);

/* The same, looking for build-id debug files under debug_dir (instead of
 * exm_elf_debug_dir(); e.g. a sysroot's usr/lib/debug). */
struct exm_elf *exm_elf_parse_fd_in(int fd, const char *path, unsigned opts,
				    const char *debug_dir);

/* Same for an image in memory (tests, fuzzing); never looks for debug
 * files. The buffer is only read and may be freed after the call. */
struct exm_elf *exm_elf_parse_mem(const void *buf, size_t len);

/*
 * Only the GNU build-id of the ELF file open on fd (pread through libelf,
 * like exm_elf_parse_fd, but no symbols, sections or debug file): its
 * length, at most max (a longer one counts as none), written to id; 0
 * when there is none or the file is not ELF. Either byte order and class.
 */
size_t exm_elf_build_id_fd(int fd, unsigned char *id, size_t max);

/* The same for an image in memory (tests, fuzzing). */
size_t exm_elf_build_id_mem(const void *buf, size_t len, unsigned char *id,
			    size_t max);

void exm_elf_free(struct exm_elf *e);

/* Static objects for files that could not be parsed: never freed. */
const struct exm_elf *exm_elf_state_only(enum exm_elf_state state);

/* Short text for the state, e.g. "(not an ELF file)"; "" when OK. */
const char *exm_elf_state_text(const struct exm_elf *e);
/* "symtab", "debug file", "dynsym (exported only)" or "(no symbols)". */
const char *exm_elf_symsrc_text(const struct exm_elf *e);

/*
 * Name of symbol i for display: demangled when demangle is set and the name
 * is a C++ mangled name that demangles; else the raw name. The string is
 * owned by e (computed once, lives until exm_elf_free).
 */
const char *exm_elf_sym_name(const struct exm_elf *e, size_t i, bool demangle);

/*
 * Demangle one C++ name; a new string the caller frees, or NULL when name
 * is not a mangled name (or on failure).
 */
char *exm_demangle(const char *name);

/* Index into e->secs of the section called name (the lowest-addressed one
 * if several share it), or -1. */
long exm_elf_find_section(const struct exm_elf *e, const char *name);

/* Index into e->segs of the PT_LOAD whose file range holds file offset off
 * (the page holding p_offset counts as part of the segment), or -1. */
long exm_elf_segment_for_offset(const struct exm_elf *e, uint64_t off,
				unsigned page_size);

/* First index into e->syms whose addr >= addr (binary search). */
size_t exm_elf_sym_lower_bound(const struct exm_elf *e, uint64_t addr);

/*
 * Open path read-only if it is a regular file, never blocking on a FIFO or
 * device a hostile user put there, and never if it is a file SQLite holds
 * open in this process (ownfiles.h: its close would drop SQLite's locks);
 * the fd (caller closes) or -1 with errno set. *st receives its status.
 * Needs /proc (the file is reopened through /proc/self/fd).
 */
int exm_open_regular(const char *path, struct stat *st);

/* Directory under which build-id debug files are looked for:
 * $EXMTOP_DEBUG_DIR, else /usr/lib/debug. */
const char *exm_elf_debug_dir(void);

/* CRC-32 as .gnu_debuglink uses it (zlib's), continuing from crc. */
uint32_t exm_crc32(uint32_t crc, const void *buf, size_t len);

#endif
