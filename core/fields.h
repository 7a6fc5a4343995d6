/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields.h - the one table of columns. Every column of every list, in batch
 * text, CSV, JSON and the TUI, is an entry here. .key is a stable interface:
 * used by -o, --fields, CSV headers, JSON keys and saved settings.
 */
#ifndef EXM_FIELDS_H
#define EXM_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/table.h"

enum exm_field_id {
	EXM_F_PID = 0,
	EXM_F_PPID,
	EXM_F_USER,
	EXM_F_COMM,
	EXM_F_CMD,
	EXM_F_GROUP,
	EXM_F_FILE,
	EXM_F_KIND,
	EXM_F_NPROCS,
	EXM_F_UNMEASURED,
	EXM_F_NMAPS,
	EXM_F_SECTION,
	EXM_F_SYMBOL,
	EXM_F_ADDR,
	EXM_F_SIZE,
	EXM_F_PERMS,
	EXM_F_OFFSET,
	EXM_F_VM,
	EXM_F_RSS,
	EXM_F_ERSS,
	EXM_F_SWAP,
	EXM_F_ESWAP,
	EXM_F_MAPPED,
	EXM_F_EMAPPED,
	EXM_F_SOLE,
	EXM_F_WRITABLE,
	EXM_F_ZERO,
	EXM_F_HUGETLB,
	EXM_F_EHUGETLB,
	EXM_F_KSM,
	EXM_F_KSM_SAVED,
	EXM_F_FREED,
	EXM_F_CACHED,
	EXM_F_SHMEM_EXCL,
	EXM_F_PSS,
	EXM_F_PSS_ANON,
	EXM_F_PSS_FILE,
	EXM_F_PSS_SHMEM,
	EXM_F_PSS_DIRTY,
	EXM_F_SWAP_PSS,
	EXM_F_OOM,
	EXM_F_OOM_ADJ,
	EXM_F_CG_CURRENT,
	EXM_F_CG_ANON,
	EXM_F_CG_FILE,
	EXM_F_CG_SHMEM,
	EXM_F_CG_KERNEL,
	EXM_F_CG_OTHERS,
	EXM_F_CG_ELSEWHERE,
	EXM_F_CG_UNMAPPED,
	EXM_F_DERSS,
	EXM_F_CHANGE,
	EXM_F__COUNT
};

enum exm_ftype {
	EXM_FT_INT,   /* integer, right-aligned */
	EXM_FT_STR,   /* text, left-aligned */
	EXM_FT_SIZE,  /* bytes (integer) */
	EXM_FT_ESIZE, /* effective bytes (may be fractional) */
	EXM_FT_ADDR,  /* hexadecimal address */
	EXM_FT_SINT,  /* signed integer (in u as int64_t), right-aligned */
};

/* What a column needs read from the system (the OR over visible columns
 * decides what a scan reads). */
#define EXM_NEED_PAGES (1u << 0)
#define EXM_NEED_KPSS (1u << 1)
#define EXM_NEED_CMDLINE (1u << 2)
/* Not a column's: the processes pane grouped per cgroup, and what keeps
 * every process's cgroup (a recording, OpenMetrics' groups). */
#define EXM_NEED_CGROUP (1u << 3)
/* The kernel's figures must come from its own walk, smaps_rollup (with
 * EXM_NEED_KPSS): Pss_Dirty and SwapPss, which page words cannot give (a
 * PTE's dirty bit, a swap entry's count), and the Pss cross-check. */
#define EXM_NEED_ROLLUP (1u << 4)
/* Not a column's: where every page lies (a recording, a page strip), so
 * pagemap's read mode reads the frames of every mapping rather than
 * counting the pages the kernel says are mapped once (exm_scan_opts). */
#define EXM_NEED_PLACES (1u << 5)
/* Not a column's: the system view's swap-cache row, which needs the swap-
 * cache frames the processes map counted (a pass over every frame and
 * /proc/kpageflags, see kpageflags.h); a recording keeps it too. */
#define EXM_NEED_SWAPCACHE (1u << 6)
/* /proc/PID/oom_score and oom_score_adj */
#define EXM_NEED_OOM (1u << 7)
/* each cgroup's charge (cgcharge.h): memory.current, memory.stat and the
 * memcg of every frame (/proc/kpagecgroup; every frame read, none counted,
 * where that can be read: exm_cgcharge_frames) */
#define EXM_NEED_CGCHARGE (1u << 8)

struct exm_field {
	const char *key;   /* stable lowercase key */
	const char *title; /* column header */
	const char *help;  /* one line */
	int width;	   /* default display width */
	enum exm_ftype type;
	unsigned tables; /* EXM_TBIT() of the tables it applies to */
	unsigned needs;	 /* EXM_NEED_* */
	bool desc;	 /* natural sort is descending (sizes) */
	/* A size that is not a figure of the row's memory (an ELF size, a
	 * growth itself): it does not grow in delta rows. Every other size
	 * (EXM_FT_SIZE, EXM_FT_ESIZE) does, see exm_field_grows(). */
	bool nogrow;
};

extern const struct exm_field exm_fields[EXM_F__COUNT];

/* What every column together needs (EXM_NEED_*). */
unsigned exm_fields_needs(void);

/* Whether field f is a size whose growth a delta row (table.h) gives:
 * every size of the table but those marked nogrow. */
bool exm_field_grows(enum exm_field_id f);

/* Field id for key, or -1. */
int exm_field_by_key(const char *key);

/* EXM_V_DELTA: a signed change since the previous snapshot, in d. */
enum exm_vtype { EXM_V_NONE = 0, EXM_V_INT, EXM_V_DBL, EXM_V_STR, EXM_V_DELTA };
struct exm_value {
	enum exm_vtype type; /* EXM_V_NONE: not measured ("-") */
	uint64_t u;
	double d;      /* EXM_V_DBL, EXM_V_DELTA (may be negative) */
	const char *s; /* borrowed from the row */
};

/*
 * The one rule of growth (diff.h), turning *after into the change from
 * before: EXM_V_DELTA, after minus before (negative when it shrank), or
 * EXM_V_NONE when either is not measured. Numbers only (INT, DBL).
 */
void exm_value_growth(struct exm_value *after, const struct exm_value *before);

/* Value of field f in row r of table t. */
void exm_field_value(enum exm_field_id f, enum exm_table t,
		     const struct exm_row *r, struct exm_value *v);

/* Compare rows by field (ascending order; unmeasured sorts lowest); ties
 * broken by pid, then name, then address, so the order is total. */
int exm_row_cmp(enum exm_field_id f, enum exm_table t, const struct exm_row *a,
		const struct exm_row *b);

/* Sort rows by field, descending when desc. */
void exm_rows_sort(struct exm_row *rows, size_t n, enum exm_field_id f,
		   enum exm_table t, bool desc);

/* The default columns of a table, as a -1 terminated list. */
const int *exm_table_default_fields(enum exm_table t);
/*
 * Parse a comma-separated list of field keys valid for table t into out
 * (-1 terminated, at most max - 1 keys); NULL list gives the table's
 * defaults. 0, or -EINVAL with a one-line reason in err (unknown key, a key
 * of another table, an empty list or entry, too many keys). The one parser
 * of field lists: options, the settings file and batch all use it.
 */
int exm_fields_parse(const char *list, enum exm_table t, int *out, size_t max,
		     char *err, size_t errlen);
/* The order a table is listed in unless the user chose one: effective
 * resident descending where the table has it, else its first column. */
void exm_table_natural_sort(enum exm_table t, int *field, bool *desc);
/*
 * A sort key as options and the settings file write it: "KEY" sorts in the
 * field's natural direction (sizes descending, names and ids ascending),
 * "-KEY" ascending, "+KEY" descending. 0, or -EINVAL with a reason when
 * KEY is unknown or does not apply to table t.
 */
int exm_sort_parse(const char *text, enum exm_table t, int *field, bool *desc,
		   char *err, size_t errlen);
/* The text exm_sort_parse reads back: always signed, "+erss", "-pid". */
void exm_sort_format(int field, bool desc, char *buf, size_t len);
/* The one table of tables: names in settings keys, messages, the field
 * list and the manual page. */
struct exm_table_info {
	const char *key;  /* stable: settings keys "fields.KEY", "sort.KEY" */
	const char *name; /* in messages: "processes" */
	char letter;	  /* column of --list-fields */
	const char *help; /* in the manual: "files of a process" */
};
extern const struct exm_table_info exm_tables[EXM_T__COUNT];
/* exm_tables[t].name, "?" for an unknown table. */
const char *exm_table_name(enum exm_table t);
/* The table whose key is key, or -1. */
int exm_table_by_key(const char *key);

/* EXM_PERM_* bits as /proc/PID/maps shows them: "r-xp". */
const char *exm_perms_str(unsigned perms);

#endif
