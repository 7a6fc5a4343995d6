// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * batch_strip.c - exmtop -b --pagemap PID:ADDRESS: the page strip of the
 * mapping of PID that holds ADDRESS (hexadecimal), in text or JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/strip.h"
#include "tui/batch.h"
#include "tui/query.h"

static int parse_target(const char *arg, pid_t *pid, uint64_t *addr)
{
	char *end;
	long p;

	errno = 0;
	p = strtol(arg, &end, 10);
	if (end == arg || *end != ':' || errno || p <= 0 || p > INT_MAX)
		return -EINVAL;
	arg = end + 1;
	errno = 0;
	*addr = strtoull(arg, &end, 16);
	if (end == arg || *end || errno || *arg == '-')
		return -EINVAL;
	*pid = (pid_t)p;
	return 0;
}

static void print_text(FILE *out, const struct exm_snapshot *snap,
		       const struct exm_proc *p, const struct exm_mapping *m,
		       const struct exm_strip *s)
{
	char name[512], comm[128], line[EXM_STRIP_LINE + 1];

	tui_print_summary(out, snap);
	exm_escape(comm, sizeof(comm), p->comm ? p->comm : "?");
	exm_escape(name, sizeof(name), m->name);
	fprintf(out, "%s (%d) %" PRIx64 "-%" PRIx64 " %s: %zu pages of %u "
		"bytes (. not resident, 1-9 processes mapping the page, # "
		"ten or more, s swapped)\n",
		comm, (int)p->pid, m->start, m->end,
		name[0] ? name : "[anon]", s->npages, s->page_size);
	for (size_t k = 0; k < exm_strip_lines(s); k++) {
		uint64_t a = exm_strip_line(s, k, line, sizeof(line));

		fprintf(out, "%16" PRIx64 " %s\n", a, line);
	}
}

static void print_json(FILE *out, const struct exm_snapshot *snap,
		       const struct exm_proc *p, const struct exm_mapping *m,
		       const struct exm_strip *s)
{
	fputc('{', out);
	tui_print_json_header(out, snap);
	fprintf(out, "\"pid\":%d,\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%"
		PRIx64 "\",\"file\":", (int)p->pid, m->start, m->end);
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
	fputs("]}\n", out);
}

int tui_batch_pagemap(const struct tui_opts *o)
{
	struct exm_scan_opts scan;
	struct exm_source *src = NULL;
	struct exm_snapshot *snap = NULL;
	const struct exm_proc *p;
	const struct exm_mapping *m;
	struct exm_strip s;
	uint64_t addr;
	pid_t pid;
	int ret;

	if (parse_target(o->pagemap, &pid, &addr)) {
		fprintf(stderr, "exmtop: invalid value '%.64s' for --pagemap: "
			"expected PID:ADDRESS (address in hex)\n", o->pagemap);
		return 2;
	}
	if (o->format == TUI_FMT_CSV) {
		fprintf(stderr, "exmtop: --pagemap prints text or json\n");
		return 2;
	}
	ret = tui_open_source(o, &src);
	if (ret)
		return ret;
	/* every process: they decide how many map each page */
	memset(&scan, 0, sizeof(scan));
	scan.include_self = o->include_self;
	scan.pagemap_mode = o->pagemap_mode;
	ret = exm_source_snapshot(src, &scan, &snap);
	if (ret) {
		fprintf(stderr, "exmtop: snapshot failed: %s\n",
			src->errmsg[0] ? src->errmsg : strerror(-ret));
		exm_source_close(src);
		return 1;
	}
	ret = 1;
	p = exm_snapshot_find_pid(snap, pid);
	m = p ? exm_proc_mapping_at(p, addr) : NULL;
	if (!p)
		fprintf(stderr, "exmtop: process %d not found\n", (int)pid);
	else if (!m)
		fprintf(stderr, "exmtop: process %d maps nothing at %" PRIx64
			"\n", (int)pid, addr);
	else if ((ret = exm_strip_mapping(snap, p, m, &s)))
		fprintf(stderr, "exmtop: %s\n",
			ret == -ENODATA ? "this source has no per-page facts "
					  "(use --source pagemap)"
					: strerror(-ret));
	else if (o->format == TUI_FMT_JSON)
		print_json(stdout, snap, p, m, &s);
	else
		print_text(stdout, snap, p, m, &s);
	if (!ret)
		exm_strip_fini(&s);
	exm_snapshot_free(snap);
	exm_source_close(src);
	return ret ? 1 : 0;
}
