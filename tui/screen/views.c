// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * views.c - the live screen's views and what opens what: the one place the
 * drill-down tree is written down (each view's .enter and .alt).
 */
#include "tui/screen/views.h"

#include <stdio.h>

#include "core/account.h"
#include "core/group.h"
#include "tui/screen/view_elf.h"
#include "tui/screen/view_strip.h"

static struct exm_row *build_procs(struct tui_view *v,
				   const struct tui_build *b, size_t *n,
				   const char **why)
{
	return exm_table_procs(b->snap, n);
}

/* Grouped per cgroup, a snapshot taken before the grouping has no cgroup
 * paths: none of its rows until the one asked for is in (tui_live_rescan). */
static bool no_cgroups(const struct tui_build *b, const char **why)
{
	if (b->group_by != EXM_GROUP_CGROUP ||
	    (b->snap->sys.caps & EXM_CAP_CGROUP))
		return false;
	*why = "(reading cgroups)";
	return true;
}

static struct exm_row *build_groups(struct tui_view *v,
				    const struct tui_build *b, size_t *n,
				    const char **why)
{
	if (no_cgroups(b, why))
		return NULL;
	struct exm_proc_filter f = { .user = b->user,
				     .pids = b->pids,
				     .npids = b->npids };

	return exm_table_groups(b->snap, b->group_by, &f, n);
}

static struct exm_row *build_group_procs(struct tui_view *v,
					 const struct tui_build *b, size_t *n,
					 const char **why)
{
	if (no_cgroups(b, why))
		return NULL;
	return exm_table_group_procs(b->snap, b->group_by,
				     v->ctx.id.name ? v->ctx.id.name : "", n);
}

static struct exm_row *build_files(struct tui_view *v,
				   const struct tui_build *b, size_t *n,
				   const char **why)
{
	return exm_table_files(b->snap, n);
}

static const struct exm_proc *ctx_proc(struct tui_view *v,
				       const struct tui_build *b,
				       const char **why)
{
	const struct exm_proc *p = tui_ident_proc(b->snap, &v->ctx);

	if (!p) {
		snprintf(v->why_buf, sizeof(v->why_buf),
			 "(process %d has exited)", (int)v->ctx.id.pid);
		*why = v->why_buf;
	}
	return p;
}

static const struct exm_file *ctx_file(struct tui_view *v,
				       const struct tui_build *b,
				       const char **why)
{
	const struct exm_file *f = tui_ident_file(b->snap, &v->ctx);

	if (!f)
		*why = "(no process maps this file any more)";
	return f;
}

static struct exm_row *build_pfiles(struct tui_view *v,
				    const struct tui_build *b, size_t *n,
				    const char **why)
{
	const struct exm_proc *p = ctx_proc(v, b, why);

	return p ? exm_table_pfiles(b->snap, p, n) : NULL;
}

static struct exm_row *build_fprocs(struct tui_view *v,
				    const struct tui_build *b, size_t *n,
				    const char **why)
{
	const struct exm_file *f = ctx_file(v, b, why);

	return f ? exm_table_fprocs(b->snap, f, n) : NULL;
}

static struct exm_row *build_mappings(struct tui_view *v,
				      const struct tui_build *b, size_t *n,
				      const char **why)
{
	const struct exm_proc *p = ctx_proc(v, b, why);
	const struct exm_file *f;

	if (!p)
		return NULL;
	f = ctx_file(v, b, why);
	if (!f)
		return NULL;
	if (!exm_proc_find_pfile(p, f)) {
		*why = "(the process no longer maps this file)";
		return NULL;
	}
	return exm_table_mappings(b->snap, p, f, n);
}

/* Enter on a file: its page strip; on an anonymous kind: its processes. */
static const struct tui_view_ops *files_child(const struct tui_view *v,
					      const struct exm_row *r)
{
	if (r->file &&
	    (r->file->kind == EXM_KIND_FILE || r->file->kind == EXM_KIND_SHMEM))
		return NULL;
	return &tui_view_fprocs;
}

static void crumb_procs(const struct tui_view *v, char *buf, size_t len)
{
	snprintf(buf, len, "Processes");
}

static void crumb_groups(const struct tui_view *v, char *buf, size_t len)
{
	snprintf(buf, len, "Groups");
}

static void crumb_files(const struct tui_view *v, char *buf, size_t len)
{
	snprintf(buf, len, "Files");
}

static void crumb_mappings(const struct tui_view *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s: mappings", v->ctx.label ? v->ctx.label : "?");
}

const struct tui_view_ops tui_view_procs = {
	.name = "procs",
	.table = EXM_T_PROCS,
	.build = build_procs,
	.crumb = crumb_procs,
	.enter = &tui_view_pfiles,
	.sizes_only = true,
};
const struct tui_view_ops tui_view_groups = {
	.name = "groups",
	.table = EXM_T_GROUPS,
	.build = build_groups,
	.crumb = crumb_groups,
	.enter = &tui_view_group_procs,
};
const struct tui_view_ops tui_view_group_procs = {
	.name = "group",
	.table = EXM_T_PROCS,
	.build = build_group_procs,
	.crumb = tui_view_crumb_label,
	.enter = &tui_view_pfiles,
	.sizes_only = true,
};
const struct tui_view_ops tui_view_files = {
	.name = "files",
	.table = EXM_T_FILES,
	.build = build_files,
	.crumb = crumb_files,
	.child = files_child,
	.enter = &tui_view_fstrip,
	.alt = &tui_view_sections,
	.sizes_only = true,
};
const struct tui_view_ops tui_view_pfiles = {
	.name = "pfiles",
	.table = EXM_T_PFILES,
	.build = build_pfiles,
	.crumb = tui_view_crumb_label,
	.enter = &tui_view_mappings,
	.alt = &tui_view_sections,
	.sizes_only = true,
};
const struct tui_view_ops tui_view_fprocs = {
	.name = "fprocs",
	.table = EXM_T_FPROCS,
	.build = build_fprocs,
	.crumb = tui_view_crumb_label,
	.enter = &tui_view_mappings,
	.alt = &tui_view_sections,
	.sizes_only = true,
};
const struct tui_view_ops tui_view_mappings = {
	.name = "mappings",
	.table = EXM_T_MAPPINGS,
	.build = build_mappings,
	.crumb = crumb_mappings,
	.enter = &tui_view_strip,
	.alt = &tui_view_sections,
	.sizes_only = true,
};
const struct tui_view_ops tui_view_sections = {
	.name = "sections",
	.table = EXM_T_SECTIONS,
	.build = tui_elf_build_sections,
	.crumb = tui_elf_crumb_sections,
	.child = tui_elf_section_child,
	.fini = tui_elf_fini_view,
	.enter = &tui_view_symbols,
	.alt = &tui_view_section_procs,
};
const struct tui_view_ops tui_view_symbols = {
	.name = "symbols",
	.table = EXM_T_SYMBOLS,
	.build = tui_elf_build_symbols,
	.crumb = tui_elf_crumb_symbols,
	.fini = tui_elf_fini_view,
};
const struct tui_view_ops tui_view_section_procs = {
	.name = "section_procs",
	.table = EXM_T_FPROCS,
	.build = tui_elf_build_section_procs,
	.crumb = tui_elf_crumb_section_procs,
	.enter = &tui_view_mappings,
	.alt = &tui_view_sections,
};
const struct tui_view_ops tui_view_strip = {
	.name = "strip",
	.table = EXM_T_MAPPINGS,
	.build = tui_strip_build,
	.crumb = tui_strip_crumb,
	.draw = tui_strip_draw,
	.key = tui_strip_key,
	.fini = tui_strip_fini,
	.needs_all = tui_strip_needs_all,
};
const struct tui_view_ops tui_view_fstrip = {
	.name = "fstrip",
	.table = EXM_T_FILES,
	.build = tui_fstrip_build,
	.crumb = tui_fstrip_crumb,
	.draw = tui_fstrip_draw,
	.key = tui_fstrip_key,
	.fini = tui_fstrip_fini,
	.needs_all = tui_strip_needs_all,
	.enter = &tui_view_fprocs,
	.alt = &tui_view_sections,
};
