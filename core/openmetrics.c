// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * openmetrics.c - OpenMetrics text exposition; see openmetrics.h.
 */
#include "core/openmetrics.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fields.h"
#include "core/format.h"
#include "core/group.h"
#include "core/table.h"

/* The inside of a label value, from text with no control byte in it. */
static void om_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', out);
		fputc(*s, out);
	}
}

void exm_om_label_value(FILE *out, const char *str)
{
	char small[256];
	char *e = exm_escape_all(small, sizeof(small), str);

	/*
	 * The format lets a label value hold any UTF-8 but a newline, quote
	 * or backslash; ESC or BEL from a process name would reach the
	 * terminal of whoever prints the file. So the value is first made
	 * terminal-safe as text output shows it (\e, \n, \xNN, a backslash
	 * doubled: exm_escape), so that no two names read the same (a
	 * newline, and a backslash and an n), then escaped as the format
	 * requires: a label reads "\\e", a backslash "\\\\".
	 */
	om_escaped(out, e);
	if (e != small)
		free(e);
}

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == ':' || (!first && c >= '0' && c <= '9');
}

void exm_om_sanitize_name(char *dst, size_t len, const char *src)
{
	size_t k = 0;

	if (!len)
		return;
	if (src[0] >= '0' && src[0] <= '9' && k + 1 < len)
		dst[k++] = '_';
	for (size_t i = 0; src[i] && k + 1 < len; i++) {
		dst[k] = name_char(src[i], k == 0) ? src[i] : '_';
		k++;
	}
	if (!k && len > 1)
		dst[k++] = '_';
	dst[k] = '\0';
}

void exm_om_family(FILE *out, const char *name, const char *type,
		   const char *unit, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	if (unit)
		fprintf(out, "# UNIT %s %s\n", name, unit);
}

void exm_om_value(FILE *out, double v)
{
	char buf[40];

	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		fprintf(out, "%.0f\n", v);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fprintf(out, "%s\n", buf);
}

/* ---- processes, groups and files: the top N rows of each ---- */

/*
 * The columns the exposition has, each a column of the field table
 * (fields.h) and the name of its metric: a family per column and kind of
 * row, over the rows of each kind whose table has the column, with the
 * value the field table gives (a size that was not measured has no
 * sample). A size column's metric ends in _bytes with unit bytes.
 */
static const struct om_col {
	enum exm_field_id f;
	const char *metric;
	const char *help;
} cols[] = {
	{ EXM_F_NPROCS, "processes", "processes" },
	{ EXM_F_UNMEASURED, "unmeasured_processes",
	  "processes left out of a sum of the group (not readable); 0: every "
	  "sum covers every process" },
	{ EXM_F_ERSS, "effective_resident",
	  "resident bytes divided among the processes mapping them" },
	{ EXM_F_RSS, "resident", "resident bytes" },
	{ EXM_F_ESWAP, "effective_swap",
	  "swapped bytes divided among the processes mapping them" },
	{ EXM_F_SOLE, "sole", "resident bytes on pages mapped once (the USS)" },
	{ EXM_F_ZERO, "zero", "bytes mapped to the zero page (not resident)" },
	{ EXM_F_HUGETLB, "hugetlb", "hugetlb bytes mapped (not resident)" },
	{ EXM_F_EHUGETLB, "effective_hugetlb",
	  "hugetlb bytes divided among the processes mapping them" },
	{ EXM_F_KSM, "ksm", "resident bytes in KSM pages" },
	{ EXM_F_KSM_SAVED, "ksm_saved",
	  "what KSM saves: its bytes unmerged less their effective share" },
	{ EXM_F_FREED, "freed",
	  "exclusive anonymous pages, private copies and swap: freed when the "
	  "process or group stops" },
	{ EXM_F_CACHED, "cached",
	  "exclusive file pages: stay in the page cache when the process or "
	  "group stops" },
	{ EXM_F_SHMEM_EXCL, "shmem_exclusive",
	  "exclusive shared memory, memfd and /dev/shm pages: freed only if "
	  "nothing else holds the file" },
	{ EXM_F_CG_CURRENT, "charge",
	  "groups per cgroup only: cgroup v2 memory.current, what the "
	  "kernel charges the cgroup" },
	{ EXM_F_CG_ANON, "charge_anon",
	  "groups per cgroup only: memory.stat anon" },
	{ EXM_F_CG_FILE, "charge_file",
	  "groups per cgroup only: memory.stat file (page cache, shmem "
	  "included)" },
	{ EXM_F_CG_SHMEM, "charge_shmem",
	  "groups per cgroup only: memory.stat shmem" },
	{ EXM_F_CG_KERNEL, "charge_kernel",
	  "groups per cgroup only: memory.stat kernel" },
	{ EXM_F_CG_OTHERS, "charged_mapped_by_others",
	  "groups per cgroup only: of the frames charged to the cgroup, "
	  "the share other cgroups' processes map" },
	{ EXM_F_CG_ELSEWHERE, "mapped_charged_elsewhere",
	  "groups per cgroup only: the cgroup's effective resident on "
	  "frames charged to another cgroup" },
	{ EXM_F_CG_UNMAPPED, "charged_unmapped_cache",
	  "groups per cgroup only: page cache charged to the cgroup that "
	  "no scanned process maps" },
	{ EXM_F_PSS, "kernel_pss", "the kernel's Pss (smaps_rollup)" },
};

#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static bool col_is_size(const struct om_col *c)
{
	enum exm_ftype t = exm_fields[c->f].type;

	return t == EXM_FT_SIZE || t == EXM_FT_ESIZE;
}

unsigned exm_om_needs(void)
{
	/* the groups per cgroup; the system view's swap-cache row */
	unsigned needs = EXM_NEED_CGROUP | EXM_NEED_SWAPCACHE;

	for (size_t i = 0; i < NCOLS; i++)
		needs |= exm_fields[cols[i].f].needs;
	return needs;
}

/* What kind of rows a family holds, and the table of its rows. */
enum set_kind { S_PROCESS, S_GROUP, S_FILE, S_SECTION, S_SYMBOL };

static const struct {
	const char *prefix, *what;
	enum exm_table table;
} kinds[] = {
	[S_PROCESS] = { "process",
			"Per process (top N by effective "
			"resident)",
			EXM_T_PROCS },
	[S_GROUP] = { "group",
		      "Per program, user and cgroup (top N of "
		      "each by effective resident)",
		      EXM_T_GROUPS },
	[S_FILE] = { "file",
		     "Per file or anonymous kind across processes "
		     "(top N by effective resident)",
		     EXM_T_FILES },
	[S_SECTION] = { "section",
			"Per ELF section of the file (and the "
			"gaps between them), of one process or across "
			"processes",
			EXM_T_SECTIONS },
	[S_SYMBOL] = { "symbol",
		       "Per symbol of the file, of one process "
		       "or across processes",
		       EXM_T_SYMBOLS },
};

struct set {
	struct exm_row *v;
	size_t n;
	const char *by;	  /* groups: the grouping's name */
	const char *file; /* sections, symbols: the ELF file */
	pid_t pid;	  /* sections, symbols: of this process, or 0 */
};

static double erss_key(const struct exm_row *r)
{
	return (r->sz.has & EXM_HAS_ERSS) ? r->sz.erss : -1.0;
}

/* Effective resident descending, then pid (processes) or name. */
static int cmp_row(const void *a, const void *b)
{
	const struct exm_row *x = a, *y = b;
	double ex = erss_key(x), ey = erss_key(y);

	if (ex != ey)
		return ex > ey ? -1 : 1;
	if (x->proc && y->proc && x->proc->pid != y->proc->pid)
		return x->proc->pid < y->proc->pid ? -1 : 1;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* Keep the top rows that have an effective resident; with unmeasured,
 * also every row that has none after them (a group none of whose
 * members could be read: its processes and unmeasured_processes still
 * count them). */
static void top_rows(struct set *s, size_t top, bool unmeasured)
{
	size_t k = 0, n;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].sz.has & EXM_HAS_ERSS) {
			struct exm_row t = s->v[k];

			s->v[k++] = s->v[i];
			s->v[i] = t;
		}
	qsort(s->v, k, sizeof(*s->v), cmp_row);
	n = k < top ? k : top;
	if (unmeasured) {
		qsort(s->v + k, s->n - k, sizeof(*s->v), cmp_row);
		memmove(s->v + n, s->v + k, (s->n - k) * sizeof(*s->v));
		n += s->n - k;
	}
	s->n = n;
}

/* A section's or symbol's: its file, process (when of one), name (a gap
 * between sections has none) and address, which tells apart the rows of
 * one name. */
static void elf_labels(FILE *out, enum set_kind k, const struct set *s,
		       const struct exm_row *r)
{
	enum exm_field_id name = k == S_SECTION ? EXM_F_SECTION : EXM_F_SYMBOL;
	struct exm_value v;

	fputs("{file=\"", out);
	exm_om_label_value(out, s->file);
	if (s->pid)
		fprintf(out, "\",pid=\"%d", (int)s->pid);
	exm_field_value(name, kinds[k].table, r, &v);
	if (v.type == EXM_V_STR && !(r->flags & EXM_ROW_GAP)) {
		fprintf(out, "\",%s=\"", exm_fields[name].key);
		exm_om_label_value(out, v.s);
	}
	exm_field_value(EXM_F_ADDR, kinds[k].table, r, &v);
	fprintf(out, "\",addr=\"0x%llx", (unsigned long long)v.u);
}

static void labels(FILE *out, enum set_kind k, const struct set *s,
		   const struct exm_row *r)
{
	switch (k) {
	case S_PROCESS:
		fprintf(out, "{pid=\"%d\",comm=\"", (int)r->proc->pid);
		exm_om_label_value(out, r->proc->comm);
		fputs("\",user=\"", out);
		exm_om_label_value(out, r->proc->user);
		break;
	case S_GROUP:
		fprintf(out, "{by=\"%s\",name=\"", s->by);
		exm_om_label_value(out, r->name);
		break;
	case S_FILE:
		fprintf(out, "{kind=\"%s\",file=\"",
			exm_kind_name(r->file->kind));
		exm_om_label_value(out, r->name);
		break;
	case S_SECTION:
	case S_SYMBOL:
		elf_labels(out, k, s, r);
		break;
	}
	fputs("\"} ", out);
}

/* Every family of kind k, each over all the sets. */
static void write_sets(FILE *out, enum set_kind k, const struct set *sets,
		       size_t nsets)
{
	enum exm_table t = kinds[k].table;

	for (size_t c = 0; c < NCOLS; c++) {
		const struct om_col *col = &cols[c];
		char name[128], help[256];

		if (!(exm_fields[col->f].tables & EXM_TBIT(t)))
			continue;
		snprintf(name, sizeof(name), "exmtop_%s_%s%s", kinds[k].prefix,
			 col->metric, col_is_size(col) ? "_bytes" : "");
		snprintf(help, sizeof(help), "%s: %s.", kinds[k].what,
			 col->help);
		exm_om_family(out, name, "gauge",
			      col_is_size(col) ? "bytes" : NULL, help);
		for (size_t si = 0; si < nsets; si++)
			for (size_t i = 0; i < sets[si].n; i++) {
				struct exm_value v;

				exm_field_value(col->f, t, &sets[si].v[i], &v);
				if (v.type != EXM_V_INT && v.type != EXM_V_DBL)
					continue; /* not measured */
				fputs(name, out);
				labels(out, k, &sets[si], &sets[si].v[i]);
				exm_om_value(out, v.type == EXM_V_INT
							  ? (double)v.u
							  : v.d);
			}
	}
}

/* Only the processes f selects. */
static void keep_procs(const struct exm_proc_filter *f, struct set *procs)
{
	size_t k = 0;

	for (size_t i = 0; i < procs->n; i++)
		if (exm_proc_filter_match(f, procs->v[i].proc))
			procs->v[k++] = procs->v[i];
	procs->n = k;
}

/* Only the files a process of f maps. 0 or -ENOMEM. */
static int keep_files(const struct exm_snapshot *snap,
		      const struct exm_proc_filter *f, struct set *files)
{
	bool *in = exm_files_mapped_by(snap, f);
	size_t k = 0;

	if (!in)
		return -ENOMEM;
	for (size_t i = 0; i < files->n; i++)
		if (in[files->v[i].file->index])
			files->v[k++] = files->v[i];
	files->n = k;
	free(in);
	return 0;
}

static int write_rows(FILE *out, const struct exm_snapshot *snap,
		      const struct exm_om_opts *o, size_t top)
{
	static const enum exm_group_by bys[] = { EXM_GROUP_PROGRAM,
						 EXM_GROUP_USER,
						 EXM_GROUP_CGROUP };
	struct set procs = { 0 }, files = { 0 }, groups[3] = { { 0 } };
	int r = -ENOMEM;

	procs.v = exm_table_procs(snap, &procs.n);
	if (!procs.v)
		goto out;
	keep_procs(o->filter, &procs);
	top_rows(&procs, top, false);
	if (o->groups)
		for (int g = 0; g < 3; g++) {
			groups[g].by = exm_group_name(bys[g]);
			groups[g].v = exm_table_groups(snap, bys[g], o->filter,
						       &groups[g].n);
			if (!groups[g].v)
				goto out;
			top_rows(&groups[g], top, true);
		}
	if (o->files) {
		files.v = exm_table_files(snap, &files.n);
		if (!files.v ||
		    (o->filter && keep_files(snap, o->filter, &files)))
			goto out;
		top_rows(&files, top, false);
	}
	write_sets(out, S_PROCESS, &procs, 1);
	if (o->groups)
		write_sets(out, S_GROUP, groups, 3);
	if (o->files)
		write_sets(out, S_FILE, &files, 1);
	r = 0;
out:
	free(procs.v);
	free(files.v);
	for (int g = 0; g < 3; g++)
		free(groups[g].v);
	return r;
}

void exm_om_write_mem_total(FILE *out, uint64_t bytes)
{
	exm_om_family(out, "exmtop_memory_total_bytes", "gauge", "bytes",
		      "MemTotal from /proc/meminfo.");
	fprintf(out, "exmtop_memory_total_bytes %llu\n",
		(unsigned long long)bytes);
}

static void write_system(FILE *out, const struct exm_sysview *sv)
{
	exm_om_write_mem_total(out, sv->mem_total);
	exm_om_family(out, "exmtop_system_bytes", "gauge", "bytes",
		      "All of RAM by use; the rows add up to MemTotal "
		      "(unexplained may be negative).");
	for (size_t i = 0; i < sv->nrows; i++) /* unknown: no sample */
		if (sv->rows[i].known)
			fprintf(out, "exmtop_system_bytes{row=\"%s\"} %lld\n",
				sv->rows[i].name, (long long)sv->rows[i].bytes);
}

void exm_om_write_scan(FILE *out, const struct exm_snapshot *snap)
{
	size_t scanned = 0;

	/* as JSON's scanned: those whose pages could be read */
	for (size_t i = 0; i < snap->nprocs; i++)
		scanned += snap->procs[i].state != EXM_PROC_DENIED;
	exm_om_family(out, "exmtop_scan_processes", "gauge", NULL,
		      "Processes scanned.");
	fprintf(out, "exmtop_scan_processes %zu\n", scanned);
	exm_om_family(out, "exmtop_scan_duration_seconds", "gauge", "seconds",
		      "Time taken by the snapshot.");
	fputs("exmtop_scan_duration_seconds ", out);
	exm_om_value(out, snap->sys.time_taken);
	exm_om_family(out, "exmtop_user_space_bytes", "gauge", "bytes",
		      "Distinct resident pages mapped by scanned processes.");
	if (snap->sys.caps & EXM_CAP_PFN) /* else unknown: no sample */
		fprintf(out, "exmtop_user_space_bytes %llu\n",
			(unsigned long long)(snap->distinct_pages *
					     snap->sys.page_size));
}

int exm_om_end(FILE *out)
{
	fputs("# EOF\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

int exm_om_write(FILE *out, const struct exm_snapshot *snap,
		 const struct exm_om_opts *o)
{
	size_t top = o->top ? o->top : 20;
	int r;

	exm_om_write_scan(out, snap);
	r = write_rows(out, snap, o, top);
	if (!r && o->sys)
		write_system(out, o->sys);
	return r ? r : exm_om_end(out);
}

int exm_om_write_elf(FILE *out, const struct exm_snapshot *snap,
		     enum exm_table t, const char *file, pid_t pid,
		     const struct exm_row *rows, size_t n)
{
	struct set s = {
		.v = (struct exm_row *)rows, .n = n, .file = file, .pid = pid
	};

	exm_om_write_scan(out, snap);
	write_sets(out, t == EXM_T_SECTIONS ? S_SECTION : S_SYMBOL, &s, 1);
	return exm_om_end(out);
}
