// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * batch_strip.c - exmtop -b --pagemap PID:ADDRESS: the page strip of the
 * mapping of PID that holds ADDRESS (hexadecimal), in text or JSON; and
 * exmtop -b --pagemap FILE (an absolute path): the strip of the file
 * across processes, by file offset.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fields.h"
#include "core/filestrip.h"
#include "core/format.h"
#include "core/source.h"
#include "core/strip.h"
#include "tui/batch/batch.h"
#include "tui/batch/drive.h"
#include "tui/query.h"
#include "tui/text.h"

static int parse_target(const char *arg, pid_t *pid, uint64_t *addr)
{
	const char *colon = strchr(arg, ':');
	unsigned long long p;
	char num[32], *end;

	/* the PID in decimal, the address in hex (digits, 0x allowed) */
	if (!colon || (size_t)(colon - arg) >= sizeof(num))
		return -EINVAL;
	memcpy(num, arg, (size_t)(colon - arg));
	num[colon - arg] = '\0';
	if (!exm_parse_unsigned(num, INT_MAX, &p) || !p)
		return -EINVAL;
	arg = colon + 1;
	if (arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X'))
		arg += 2;
	if (!*arg || strspn(arg, "0123456789abcdefABCDEF") != strlen(arg))
		return -EINVAL;
	errno = 0;
	*addr = strtoull(arg, &end, 16);
	if (*end || errno)
		return -EINVAL;
	*pid = (pid_t)p;
	return 0;
}

static void print_text(FILE *out, const struct exm_snapshot *snap,
		       const struct exm_proc *p, const struct exm_mapping *m,
		       const struct exm_strip *s)
{
	char buf[512], comm[128], line[EXM_STRIP_LINE + 1];
	char *name = exm_escape_all(buf, sizeof(buf), m->name);

	tui_print_summary(out, snap);
	exm_escape(comm, sizeof(comm), p->comm ? p->comm : "?");
	fprintf(out,
		"%s (%d) %" PRIx64 "-%" PRIx64 " %s: %zu pages of %u "
		"bytes (. not resident, 1-9 processes mapping the page, # "
		"ten or more, s swapped)\n",
		comm, (int)p->pid, m->start, m->end, name[0] ? name : "[anon]",
		s->npages, s->page_size);
	if (name != buf)
		free(name);
	for (size_t k = 0; k < exm_strip_lines(s); k++) {
		uint64_t a = exm_strip_line(s, k, line, sizeof(line));

		fprintf(out, "%16" PRIx64 " %s\n", a, line);
	}
}

static void print_json(FILE *out, const struct exm_snapshot *snap,
		       const struct exm_proc *p, const struct exm_mapping *m,
		       const struct exm_strip *s)
{
	tui_json_doc_begin(out, snap, NULL);
	fprintf(out,
		"\"pid\":%d,\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64
		"\",\"file\":",
		(int)p->pid, m->start, m->end);
	exm_json_str(out, m->name);
	fputs(",\"pages\":[", out);
	for (size_t i = 0; i < s->npages; i++) {
		const struct exm_cell *c = &s->cells[i];

		if (i)
			fputc(',', out);
		if (c->state == EXM_CELL_PRESENT && c->nprocs)
			fprintf(out, "%u", c->nprocs);
		else if (c->state == EXM_CELL_PRESENT)
			fputs("null", out);
		else
			fputs(c->state == EXM_CELL_SWAPPED ? "\"s\"" : "0",
			      out);
	}
	fputc(']', out);
	tui_json_doc_end(out);
}

/* The file named path that most processes map (a name can stand for
 * several files: one replaced on disk, one in another mount namespace). */
static const struct exm_file *file_named(const struct exm_snapshot *snap,
					 const char *path)
{
	const struct exm_file *best = NULL;

	for (size_t i = 0; i < snap->nfiles; i++) {
		const struct exm_file *f = snap->files[i];

		if ((f->kind == EXM_KIND_FILE || f->kind == EXM_KIND_SHMEM) &&
		    !strcmp(f->name, path) &&
		    (!best || f->nprocs > best->nprocs))
			best = f;
	}
	return best;
}

static void print_file_text(FILE *out, const struct exm_snapshot *snap,
			    const struct exm_file *f,
			    const struct exm_file_strip *s)
{
	char buf[512], line[512];
	char *name = exm_escape_all(buf, sizeof(buf), f->name);
	uint64_t ps = snap->sys.page_size;

	tui_print_summary(out, snap);
	exm_file_strip_head(s, line, sizeof(line));
	fprintf(out, "%s: %s\n", name, line);
	if (name != buf)
		free(name);
	for (size_t i = 0; i < s->nsegs; i++)
		fprintf(out, "segment %" PRIx64 "-%" PRIx64 " %s\n",
			s->segs[i].first * ps, s->segs[i].end * ps,
			exm_perms_str(s->segs[i].perms));
	for (size_t k = 0; k < exm_file_strip_lines(s); k++) {
		char cells[EXM_STRIP_LINE + 1];
		uint64_t first = exm_file_strip_line(s, k, cells);

		fprintf(out, "%16" PRIx64 " %s\n", first * ps, cells);
	}
}

static void print_file_json(FILE *out, const struct exm_snapshot *snap,
			    const struct exm_file *f,
			    const struct exm_file_strip *s)
{
	uint64_t ps = snap->sys.page_size;

	tui_json_doc_begin(out, snap, NULL);
	fputs("\"file\":", out);
	exm_json_str(out, f->name);
	fprintf(out,
		",\"processes\":%" PRIu32 ",\"pages\":%" PRIu64
		",\"mapped_pages\":%" PRIu64 ",\"resident_pages\":%" PRIu64
		",\"segments\":[",
		s->nprocs, s->npages, s->vm_pages, s->res_pages);
	for (size_t i = 0; i < s->nsegs; i++)
		fprintf(out,
			"%s{\"offset\":%" PRIu64 ",\"end\":%" PRIu64
			",\"perms\":\"%s\"}",
			i ? "," : "", s->segs[i].first * ps,
			s->segs[i].end * ps, exm_perms_str(s->segs[i].perms));
	fputs("],\"procs_per_page\":[", out);
	for (uint64_t i = 0; i < s->npages; i++)
		fprintf(out, "%s%" PRIu32, i ? "," : "", s->procs[i]);
	fputc(']', out);
	tui_json_doc_end(out);
}

static int file_strip(FILE *out, const struct exm_snapshot *snap,
		      const char *path, enum tui_format fmt)
{
	const struct exm_file *f = file_named(snap, path);
	struct exm_file_strip s;
	int ret;

	if (!f) {
		tui_error("no scanned process maps %.200s", path);
		return 1;
	}
	ret = exm_strip_file(snap, f, &s);
	if (ret) {
		tui_error("%s", ret == -EFBIG
					? "mapped too far into the file for a "
					  "page strip"
					: strerror(-ret));
		return 1;
	}
	if (!s.has_pages)
		tui_error("this source has no per-page facts "
			  "(use --source pagemap)");
	else if (fmt == TUI_FMT_JSON)
		print_file_json(out, snap, f, &s);
	else
		print_file_text(out, snap, f, &s);
	ret = s.has_pages ? 0 : 1;
	exm_file_strip_fini(&s);
	return ret;
}

/* One snapshot's strip of PID:ADDR or of a file into out: 0, or 1 after
 * a line. */
static int strip_one(FILE *out, const struct tui_opts *o,
		     const struct exm_snapshot *snap, bool by_file, pid_t pid,
		     uint64_t addr)
{
	const struct exm_proc *p;
	const struct exm_mapping *m;
	struct exm_strip s;
	int ret = 1;

	if (by_file)
		return file_strip(out, snap, o->pagemap, o->format);
	p = exm_snapshot_find_pid(snap, pid);
	m = p ? exm_proc_mapping_at(p, addr) : NULL;
	if (!p)
		tui_error("process %d not found", (int)pid);
	else if (p->state == EXM_PROC_DENIED)
		tui_error("process %d could not be read (permission denied): "
			  "its mappings are unknown",
			  (int)pid);
	else if (!m)
		tui_error("process %d maps nothing at %" PRIx64, (int)pid,
			  addr);
	else if ((ret = exm_strip_mapping(snap, p, m, &s)))
		tui_error("%s", ret == -ENODATA
					? "this source has no per-page facts "
					  "(use --source pagemap)"
					: strerror(-ret));
	else if (o->format == TUI_FMT_JSON)
		print_json(out, snap, p, m, &s);
	else
		print_text(out, snap, p, m, &s);
	if (!ret)
		exm_strip_fini(&s);
	return ret ? 1 : 0;
}

struct target {
	bool by_file;
	pid_t pid;
	uint64_t addr;
};

static void strip_end(struct tui_run *r)
{
	free(r->priv);
	r->priv = NULL;
}

static int strip_begin(struct tui_run *r)
{
	const struct tui_opts *o = r->o;
	struct target *t = calloc(1, sizeof(*t));

	if (!t)
		return 1;
	r->priv = t;
	t->by_file = o->pagemap[0] == '/';
	if (!t->by_file && parse_target(o->pagemap, &t->pid, &t->addr)) {
		tui_error("invalid value '%.64s' for --pagemap: "
			  "expected PID:ADDRESS (address in hex) or an absolute "
			  "file name",
			  o->pagemap);
		return 2;
	}
	/* every process: they decide how many map each page */
	memset(&r->scan, 0, sizeof(r->scan));
	r->scan.include_self = o->include_self;
	r->scan.knob = o->knob;
	r->scan.want_places = true; /* the strip shows where pages lie */
	return 0;
}

static int strip_emit(FILE *out, struct tui_run *r,
		      const struct exm_snapshot *snap,
		      const struct exm_snapshot *prev, long iter, size_t number)
{
	const struct target *t = r->priv;

	(void)prev;
	(void)iter;
	(void)number;
	return strip_one(out, r->o, snap, t->by_file, t->pid, t->addr);
}

const struct tui_batch_ops tui_strip_ops = {
	.begin = strip_begin,
	.emit = strip_emit,
	.end = strip_end,
};
