// SPDX-License-Identifier: GPL-2.0-or-later
/* query.c - options and settings resolved into one query; see query.h. */
#include "tui/query.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/group.h"
#include "core/reuse.h"
#include "tui/text.h"

static enum exm_table listed_table(const struct tui_opts *o)
{
	if (o->sections)
		return EXM_T_SECTIONS;
	if (o->symbols)
		return EXM_T_SYMBOLS;
	if (o->pagemap)
		return EXM_T_MAPPINGS;
	if (o->files)
		return EXM_T_FILES;
	return o->group_by != EXM_GROUP_NONE ? EXM_T_GROUPS : EXM_T_PROCS;
}

int tui_query_build(struct tui_query *q, const struct tui_opts *o, bool use_rc,
		    char *err, size_t errlen)
{
	enum exm_table t = listed_table(o);
	bool elf = t == EXM_T_SECTIONS || t == EXM_T_SYMBOLS;

	memset(q, 0, sizeof(*q));
	q->table = t;
	tui_settings_init(&q->set);
	if (!use_rc) {
		/* batch: the field table's defaults exactly, no file */
		for (int k = 0; k < EXM_T__COUNT; k++)
			exm_fields_parse(NULL, k, q->set.fields[k],
					 TUI_MAX_COLS + 1, err, errlen);
	} else if (!tui_settings_path(q->rc_path, sizeof(q->rc_path))) {
		tui_settings_load(&q->set, q->rc_path, q->warn,
				  sizeof(q->warn));
	} else {
		q->rc_path[0] = 0;
	}
	if (o->delay > 0)
		q->set.delay = o->delay;
	if (o->full_walk >= 0)
		q->set.full_walk = o->full_walk;
	if (o->group_by != EXM_GROUP_NONE)
		q->set.group_by = (enum exm_group_by)o->group_by;
	if (o->full_cmd)
		q->set.full_cmd = true;
	if (o->bytes)
		q->set.exact_bytes = true;
	if (o->fields) {
		/* the settings table's parser: the file reads the same */
		if (tui_setting_parse(tui_setting_find("fields", NULL), t,
				      &q->set, o->fields, err, errlen))
			return -EINVAL;
		q->fields_given = true;
	} else if (!use_rc && elf && o->format != TUI_FMT_TEXT) {
		/* machine-readable ELF tables: every column */
		size_t k = 0;

		for (int f = 0; f < EXM_F__COUNT; f++)
			if (exm_fields[f].tables & EXM_TBIT(t))
				q->set.fields[t][k++] = f;
		q->set.fields[t][k] = -1;
	}
	if (o->sort_key) {
		if (tui_setting_parse(tui_setting_find("sort", NULL), t,
				      &q->set, o->sort_key, err, errlen))
			return -EINVAL;
		q->sort_given = true;
	}
	if (o->user && !(q->user = strdup(o->user)))
		return -ENOMEM;
	q->pids = o->pids;
	q->npids = o->npids;
	q->scan_pids = o->scan_pids;
	q->nscan_pids = o->nscan_pids;
	q->include_self = o->include_self;
	q->top = o->top > 0 ? (size_t)o->top : 0;
	q->knob = o->knob;
	return 0;
}

int tui_query_from_opts(struct tui_query *q, const struct tui_opts *o,
			bool use_rc)
{
	char err[256];
	int ret = tui_query_build(q, o, use_rc, err, sizeof(err));

	if (!ret)
		return 0;
	tui_error("%s", ret == -EINVAL ? err : strerror(-ret));
	tui_query_fini(q);
	return ret == -EINVAL ? 2 : 1;
}

void tui_query_fini(struct tui_query *q)
{
	free(q->user);
	q->user = NULL;
}

void tui_query_sort(const struct tui_query *q, enum exm_table t, int *field,
		    bool *desc)
{
	if (q->set.sort[t] >= 0) {
		*field = q->set.sort[t];
		*desc = q->set.sort_desc[t];
	} else {
		exm_table_natural_sort(t, field, desc);
	}
}

struct exm_proc_filter tui_query_filter(const struct tui_query *q)
{
	return (struct exm_proc_filter){ .user = q->user,
					 .pids = q->pids,
					 .npids = q->npids };
}

bool tui_query_proc_match(const struct tui_query *q, const struct exm_proc *p)
{
	struct exm_proc_filter f = tui_query_filter(q);

	return exm_proc_filter_match(&f, p);
}

unsigned tui_query_needs(const struct tui_query *q, enum exm_table t)
{
	unsigned needs = 0;
	int f;
	bool desc;

	for (const int *k = q->set.fields[t]; *k >= 0; k++)
		needs |= exm_fields[*k].needs;
	tui_query_sort(q, t, &f, &desc);
	return needs | exm_fields[f].needs;
}

void tui_query_scan(const struct tui_query *q, unsigned needs,
		    struct exm_scan_opts *scan)
{
	memset(scan, 0, sizeof(*scan));
	scan->pids = q->scan_pids;
	scan->npids = q->nscan_pids;
	scan->include_self = q->include_self;
	scan->knob = q->knob;
	scan->want_kpss = needs & (EXM_NEED_KPSS | EXM_NEED_ROLLUP);
	scan->want_rollup = needs & EXM_NEED_ROLLUP;
	scan->want_cmdline = needs & EXM_NEED_CMDLINE;
	scan->want_cgroup = needs & EXM_NEED_CGROUP;
	scan->want_places = needs & EXM_NEED_PLACES;
	scan->want_swapcache = needs & EXM_NEED_SWAPCACHE;
	scan->want_oom = needs & EXM_NEED_OOM;
	scan->want_cgcharge = needs & EXM_NEED_CGCHARGE;
}

int tui_open_source(const struct tui_opts *o, struct exm_source **src)
{
	int ret = tui_open_source_named(o->source ? o->source : "auto", src);

	/* a setting this source cannot work with here (--pagemap-mode scan
	 * where PAGEMAP_SCAN is refused) is a bad value: 2 */
	if (!ret && o->knob_opt &&
	    exm_source_knob_check(*src, o->knob_opt->knob, o->knob)) {
		tui_error("--%s %s: %s", o->knob_opt->name,
			  o->knob_opt->knob->words[o->knob], (*src)->errmsg);
		exm_source_close(*src);
		*src = NULL;
		return 2;
	}
	return ret;
}

int tui_source_reuse(struct exm_source *src, const struct tui_query *q)
{
	const char *check = getenv("EXMTOP_CHECK_WALK");

	if (!(q->set.full_walk > 0) || exm_source_count(src))
		return 0;
	if (!exm_source_set_reuse(src, q->set.full_walk, check && *check))
		return 0;
	tui_error("out of memory");
	return 1;
}

bool tui_check_step(void)
{
	const char *check = getenv("EXMTOP_CHECK_WALK");

	return check && !strcmp(check, "step");
}

void tui_check_said(const struct exm_source *src, size_t number)
{
	const struct exm_reuse_stats *st = exm_source_reuse_stats(src);

	if (!st || !st->checked)
		return;
	fprintf(stderr,
		"exmtop: check %zu: %s%s (%s%s, walked %zu of %zu, "
		"oldest %.1f s, kernel Pss kept %zu, again %zu, sizes kept %zu%s)"
		"%s%s\n",
		number, st->diff[0] ? "differs: " : "equal", st->diff,
		st->full ? "full walk: " : "incremental",
		st->full ? st->why : "", st->nwalked, st->nprocs, st->oldest,
		st->nkpss_kept, st->nkpss_again, st->nsz_kept,
		st->tables_kept ? ", share tables kept" : "",
		st->unsettled[0] ? ", unsettled: " : "", st->unsettled);
	fflush(stderr);
}

int tui_open_source_named(const char *name, struct exm_source **src)
{
	char err[256] = "";
	int ret = exm_source_open(name, src, err, sizeof(err));

	if (!ret)
		return 0;
	tui_error("%s", err[0] ? err : strerror(-ret));
	/* a source asked for by name that this machine cannot give (no
	 * module, not root, no such recording) is a bad --source: 2 */
	return ret == -EINVAL || (strcmp(name, "auto") && ret != -ENOMEM) ? 2
									  : 1;
}
