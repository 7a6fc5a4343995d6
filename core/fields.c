// SPDX-License-Identifier: GPL-2.0-or-later
/* fields.c - the column table and row comparison; see fields.h. */
#include "core/fields.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T(x) EXM_TBIT(EXM_T_##x)
#define T_PROCLIKE (T(PROCS) | T(FPROCS))
#define T_FILELIKE (T(FILES) | T(PFILES))
#define T_ALL ((1u << EXM_T__COUNT) - 1)
#define T_SIZES T_ALL
#define T_KPSS (T(PROCS) | T(GROUPS))
/* exclusive memory: of a process, a group, or the part of a process's
 * that a file or mapping of it holds (not summed across processes) */
#define T_EXCL (T(PROCS) | T(GROUPS) | T(PFILES) | T(FPROCS) | T(MAPPINGS))

/* clang-format off */
const struct exm_field exm_fields[EXM_F__COUNT] = {
	[EXM_F_PID] = { .key = "pid", .title = "PID", .width = 7,
			.type = EXM_FT_INT, .tables = T_PROCLIKE,
			.help = "process id" },
	[EXM_F_PPID] = { .key = "ppid", .title = "PPID", .width = 7,
			 .type = EXM_FT_INT, .tables = T_PROCLIKE,
			 .help = "parent process id" },
	[EXM_F_USER] = { .key = "user", .title = "USER", .width = 9,
			 .type = EXM_FT_STR, .tables = T_PROCLIKE,
			 .help = "owner of the process" },
	[EXM_F_COMM] = { .key = "comm", .title = "COMM", .width = 15,
			 .type = EXM_FT_STR, .tables = T_PROCLIKE,
			 .help = "command name (kernel comm)" },
	[EXM_F_CMD] = { .key = "cmd", .title = "COMMAND", .width = 30,
			.type = EXM_FT_STR, .tables = T_PROCLIKE,
			.needs = EXM_NEED_CMDLINE,
			.help = "full command line" },
	[EXM_F_GROUP] = { .key = "group", .title = "GROUP", .width = 24,
			  .type = EXM_FT_STR, .tables = T(GROUPS),
			  .help = "program, user or cgroup of the group" },
	[EXM_F_FILE] = { .key = "file", .title = "FILE", .width = 40,
			 .type = EXM_FT_STR,
			 .tables = T_FILELIKE | T(MAPPINGS),
			 .help = "mapped file or anonymous kind" },
	[EXM_F_KIND] = { .key = "kind", .title = "KIND", .width = 8,
			 .type = EXM_FT_STR,
			 .tables = T_FILELIKE | T(MAPPINGS),
			 .help = "file, shmem, heap, stack, anon, vdso, ..." },
	[EXM_F_NPROCS] = { .key = "nprocs", .title = "NPROC", .width = 5,
			   .type = EXM_FT_INT,
			   .tables = T_FILELIKE | T(GROUPS) | T(FPROCS),
			   .desc = true,
			   .help = "number of processes mapping it" },
	[EXM_F_UNMEASURED] = { .key = "unmeasured", .title = "UNMEAS",
			       .width = 6, .type = EXM_FT_INT,
			       .tables = T(GROUPS), .desc = true,
			       .help = "processes of the group left out of "
				       "a sum (not readable): 0 when every "
				       "sum is complete" },
	[EXM_F_NMAPS] = { .key = "nmaps", .title = "NMAP", .width = 5,
			  .type = EXM_FT_INT,
			  .tables = T(PROCS) | T(PFILES) | T(FPROCS),
			  .desc = true, .help = "number of mappings" },
	[EXM_F_SECTION] = { .key = "section", .title = "SECTION",
			    .width = 20, .type = EXM_FT_STR,
			    .tables = T(SECTIONS),
			    .help = "ELF section (or gap)" },
	[EXM_F_SYMBOL] = { .key = "symbol", .title = "SYMBOL", .width = 32,
			   .type = EXM_FT_STR, .tables = T(SYMBOLS),
			   .help = "ELF symbol" },
	[EXM_F_ADDR] = { .key = "addr", .title = "ADDRESS", .width = 16,
			 .type = EXM_FT_ADDR,
			 .tables = T(MAPPINGS) | T(SECTIONS) | T(SYMBOLS),
			 .help = "start address (ELF address for sections "
				 "and symbols)" },
	[EXM_F_SIZE] = { .key = "size", .title = "SIZE", .width = 8,
			 .type = EXM_FT_SIZE,
			 .tables = T(SECTIONS) | T(SYMBOLS), .desc = true,
			 .nogrow = true, .help = "size in the ELF file" },
	[EXM_F_PERMS] = { .key = "perms", .title = "PERM", .width = 4,
			  .type = EXM_FT_STR, .tables = T(MAPPINGS),
			  .help = "mapping permissions" },
	[EXM_F_OFFSET] = { .key = "offset", .title = "OFFSET", .width = 10,
			   .type = EXM_FT_ADDR, .tables = T(MAPPINGS),
			   .help = "file offset of the mapping" },
	[EXM_F_VM] = { .key = "vm", .title = "VM", .width = 7,
		       .type = EXM_FT_SIZE, .tables = T_SIZES, .desc = true,
		       .help = "virtual size" },
	[EXM_F_RSS] = { .key = "rss", .title = "RES", .width = 7,
			.type = EXM_FT_SIZE, .tables = T_SIZES, .desc = true,
			.needs = EXM_NEED_PAGES,
			.help = "resident: bytes on present pages" },
	[EXM_F_ERSS] = { .key = "erss", .title = "EFF.RES", .width = 7,
			 .type = EXM_FT_ESIZE, .tables = T_SIZES,
			 .desc = true, .needs = EXM_NEED_PAGES,
			 .help = "effective resident: each page divided "
				 "among its mappers" },
	[EXM_F_SWAP] = { .key = "swap", .title = "SWAP", .width = 7,
			 .type = EXM_FT_SIZE, .tables = T_SIZES, .desc = true,
			 .needs = EXM_NEED_PAGES,
			 .help = "bytes on swapped-out pages" },
	[EXM_F_ESWAP] = { .key = "eswap", .title = "EFF.SWP", .width = 7,
			  .type = EXM_FT_ESIZE, .tables = T_SIZES,
			  .desc = true, .needs = EXM_NEED_PAGES,
			  .help = "effective swap: each swap entry divided "
				  "among its mappers" },
	[EXM_F_MAPPED] = { .key = "mapped", .title = "MAPPED", .width = 7,
			   .type = EXM_FT_SIZE, .tables = T_SIZES,
			   .desc = true, .needs = EXM_NEED_PAGES,
			   .help = "resident + swap" },
	[EXM_F_EMAPPED] = { .key = "emapped", .title = "EFF.MAP", .width = 7,
			    .type = EXM_FT_ESIZE, .tables = T_SIZES,
			    .desc = true, .needs = EXM_NEED_PAGES,
			    .help = "effective resident + effective swap" },
	[EXM_F_SOLE] = { .key = "sole", .title = "SOLE", .width = 7,
			 .type = EXM_FT_SIZE, .tables = T_SIZES, .desc = true,
			 .needs = EXM_NEED_PAGES,
			 .help = "resident pages mapped once (the kernel's "
				 "USS)" },
	[EXM_F_WRITABLE] = { .key = "writable", .title = "WRITE",
			     .width = 7, .type = EXM_FT_SIZE,
			     .tables = T_SIZES, .desc = true,
			     .needs = EXM_NEED_PAGES,
			     .help = "resident pages writable without a "
				     "copy (private, exclusive anon)" },
	[EXM_F_ZERO] = { .key = "zero", .title = "ZERO", .width = 7,
			 .type = EXM_FT_SIZE, .tables = T_SIZES, .desc = true,
			 .needs = EXM_NEED_PAGES,
			 .help = "mapped to the zero page (read, never "
				 "written): not resident" },
	[EXM_F_HUGETLB] = { .key = "hugetlb", .title = "HUGETLB",
			    .width = 7, .type = EXM_FT_SIZE,
			    .tables = T_SIZES, .desc = true,
			    .needs = EXM_NEED_PAGES,
			    .help = "hugetlb pages mapped (not in resident, "
				    "as in the kernel's Rss)" },
	[EXM_F_EHUGETLB] = { .key = "ehugetlb", .title = "EFF.HUGE",
			     .width = 8, .type = EXM_FT_ESIZE,
			     .tables = T_SIZES, .desc = true,
			     .needs = EXM_NEED_PAGES,
			     .help = "effective hugetlb: each huge page "
				     "divided among its mappers" },
	[EXM_F_KSM] = { .key = "ksm", .title = "KSM", .width = 7,
			.type = EXM_FT_SIZE, .tables = T_SIZES, .desc = true,
			.needs = EXM_NEED_PAGES,
			.help = "resident in KSM (merged) pages, each mapping "
				"counted" },
	[EXM_F_KSM_SAVED] = { .key = "ksm_saved", .title = "KSM.SAV",
			      .width = 7, .type = EXM_FT_ESIZE,
			      .tables = T_SIZES, .desc = true,
			      .needs = EXM_NEED_PAGES,
			      .help = "what KSM saves: its pages as they "
				      "would cost unmerged less their "
				      "effective share" },
	[EXM_F_FREED] = { .key = "freed", .title = "FREED", .width = 7,
			  .type = EXM_FT_SIZE, .tables = T_EXCL, .desc = true,
			  .needs = EXM_NEED_PAGES,
			  .help = "exclusive anonymous pages, private copies "
				  "and swap: what stopping the process or "
				  "group frees" },
	[EXM_F_CACHED] = { .key = "cached", .title = "CACHED", .width = 7,
			   .type = EXM_FT_SIZE, .tables = T_EXCL,
			   .desc = true, .needs = EXM_NEED_PAGES,
			   .help = "exclusive file pages: stay in the page "
				   "cache when it stops" },
	[EXM_F_SHMEM_EXCL] = { .key = "shmem_excl", .title = "SHM.EXCL",
			       .width = 8, .type = EXM_FT_SIZE,
			       .tables = T_EXCL, .desc = true,
			       .needs = EXM_NEED_PAGES,
			       .help = "exclusive shared memory, memfd and "
				       "/dev/shm pages: freed only if nothing "
				       "else holds the file" },
	[EXM_F_PSS] = { .key = "pss", .title = "PSS", .width = 7,
			.type = EXM_FT_SIZE, .tables = T_KPSS, .desc = true,
			.needs = EXM_NEED_KPSS,
			.help = "kernel's Pss" },
	[EXM_F_PSS_ANON] = { .key = "pss_anon", .title = "PSS.ANON",
			     .width = 8, .type = EXM_FT_SIZE,
			     .tables = T_KPSS, .desc = true,
			     .needs = EXM_NEED_KPSS,
			     .help = "kernel's Pss_Anon" },
	[EXM_F_PSS_FILE] = { .key = "pss_file", .title = "PSS.FILE",
			     .width = 8, .type = EXM_FT_SIZE,
			     .tables = T_KPSS, .desc = true,
			     .needs = EXM_NEED_KPSS,
			     .help = "kernel's Pss_File" },
	[EXM_F_PSS_SHMEM] = { .key = "pss_shmem", .title = "PSS.SHM",
			      .width = 8, .type = EXM_FT_SIZE,
			      .tables = T_KPSS, .desc = true,
			      .needs = EXM_NEED_KPSS,
			      .help = "kernel's Pss_Shmem" },
	[EXM_F_PSS_DIRTY] = { .key = "pss_dirty", .title = "PSS.DRT",
			      .width = 8, .type = EXM_FT_SIZE,
			      .tables = T_KPSS, .desc = true,
			      .needs = EXM_NEED_KPSS | EXM_NEED_ROLLUP,
			      .help = "kernel's Pss_Dirty" },
	[EXM_F_SWAP_PSS] = { .key = "swap_pss", .title = "SWAPPSS",
			     .width = 8, .type = EXM_FT_SIZE,
			     .tables = T_KPSS, .desc = true,
			     .needs = EXM_NEED_KPSS | EXM_NEED_ROLLUP,
			     .help = "kernel's SwapPss" },
	[EXM_F_OOM] = { .key = "oom", .title = "OOM", .width = 5,
			.type = EXM_FT_INT, .tables = T_PROCLIKE,
			.desc = true, .needs = EXM_NEED_OOM,
			.help = "the kernel's OOM score (/proc/PID/oom_score): "
				"the highest is killed first" },
	[EXM_F_OOM_ADJ] = { .key = "oom_adj", .title = "OOM.ADJ", .width = 7,
			    .type = EXM_FT_SINT, .tables = T_PROCLIKE,
			    .desc = true, .needs = EXM_NEED_OOM,
			    .help = "oom_score_adj: -1000 (never killed) to "
				    "1000, added to the score" },
	/* a cgroup's charge: the kernel's, whoever's members are shown */
#define CG(id, k, t, w, ty, h)                                              \
	[EXM_F_CG_##id] = { .key = k, .title = t, .width = w, .type = ty,  \
			    .tables = T(GROUPS), .desc = true,              \
			    .nogrow = true,                                 \
			    .needs = EXM_NEED_CGROUP | EXM_NEED_CGCHARGE,  \
			    .help = h }
	CG(CURRENT, "cg_current", "CG.CUR", 7, EXM_FT_SIZE,
	   "cgroup v2 memory.current: what the kernel charges the cgroup"),
	CG(ANON, "cg_anon", "CG.ANON", 7, EXM_FT_SIZE,
	   "memory.stat anon of the cgroup"),
	CG(FILE, "cg_file", "CG.FILE", 7, EXM_FT_SIZE,
	   "memory.stat file of the cgroup (page cache, shmem included)"),
	CG(SHMEM, "cg_shmem", "CG.SHM", 7, EXM_FT_SIZE,
	   "memory.stat shmem of the cgroup"),
	CG(KERNEL, "cg_kernel", "CG.KERN", 7, EXM_FT_SIZE,
	   "memory.stat kernel of the cgroup (Linux 5.18+; else -)"),
	CG(OTHERS, "cg_others", "CG.OTHR", 7, EXM_FT_ESIZE,
	   "charged to the cgroup, mapped by other cgroups: their share "
	   "of its frames"),
	CG(ELSEWHERE, "cg_elsewhere", "CG.ELSW", 7, EXM_FT_ESIZE,
	   "the cgroup's effective resident on frames charged elsewhere"),
	CG(UNMAPPED, "cg_unmapped", "CG.UNMP", 7, EXM_FT_SIZE,
	   "page cache charged to the cgroup that no scanned process maps"),
#undef CG
	[EXM_F_DERSS] = { .key = "derss", .title = "+EFF.RES", .width = 8,
			  .type = EXM_FT_ESIZE, .tables = T_SIZES,
			  .desc = true, .needs = EXM_NEED_PAGES,
			  .nogrow = true,
			  .help = "growth of effective resident since the "
				  "previous refresh" },
	[EXM_F_CHANGE] = { .key = "change", .title = "CHANGE", .width = 6,
			   .type = EXM_FT_STR,
			   .tables = T_ALL,
			   .help = "in delta mode and --diff: same, new "
				   "(since the baseline) or gone" },
};
/* clang-format on */

unsigned exm_fields_needs(void)
{
	unsigned needs = 0;

	for (int f = 0; f < EXM_F__COUNT; f++)
		needs |= exm_fields[f].needs;
	return needs;
}

int exm_field_by_key(const char *key)
{
	for (int i = 0; i < EXM_F__COUNT; i++)
		if (!strcmp(exm_fields[i].key, key))
			return i;
	return -1;
}

static const char *const perm_strs[16] = {
	"---p", "r--p", "-w-p", "rw-p", "--xp", "r-xp", "-wxp", "rwxp",
	"---s", "r--s", "-w-s", "rw-s", "--xs", "r-xs", "-wxs", "rwxs",
};

const char *exm_perms_str(unsigned perms)
{
	return perm_strs[perms & 15];
}

static void v_int(struct exm_value *v, uint64_t u)
{
	v->type = EXM_V_INT;
	v->u = u;
}

static void v_str(struct exm_value *v, const char *s)
{
	v->type = s ? EXM_V_STR : EXM_V_NONE;
	v->s = s;
}

static void v_size(struct exm_value *v, const struct exm_sizes *s,
		   unsigned need, uint64_t u)
{
	if ((s->has & need) == need)
		v_int(v, u);
}

static void v_esize(struct exm_value *v, const struct exm_sizes *s,
		    unsigned need, double d)
{
	if ((s->has & need) == need) {
		v->type = EXM_V_DBL;
		v->d = d;
	}
}

static void v_kpss(struct exm_value *v, const struct exm_kpss *k, unsigned bit,
		   uint64_t u)
{
	if (k->has & bit)
		v_int(v, u);
}

/* A cgroup's charge figure f (EXM_F_CG_*), when c has it. */
static void v_cg(struct exm_value *v, const struct exm_cgcharge *c,
		 enum exm_field_id f)
{
#define AT(id, bit, m)                           \
	[EXM_F_CG_##id - EXM_F_CG_CURRENT] = {   \
		bit,                             \
		offsetof(struct exm_cgcharge, m) \
	}
	static const struct {
		unsigned bit;
		size_t off;
	} at[] = {
		AT(CURRENT, EXM_CG_CURRENT, current),
		AT(ANON, EXM_CG_ANON, anon),
		AT(FILE, EXM_CG_FILE, file),
		AT(SHMEM, EXM_CG_SHMEM, shmem),
		AT(KERNEL, EXM_CG_KERNEL, kernel),
		AT(OTHERS, EXM_CG_FRAMES, others),
		AT(ELSEWHERE, EXM_CG_FRAMES, elsewhere),
		AT(UNMAPPED, EXM_CG_UNMAPPED, unmapped),
	};
#undef AT
	const void *p;

	if (!c || !(c->has & at[f - EXM_F_CG_CURRENT].bit))
		return;
	p = (const char *)c + at[f - EXM_F_CG_CURRENT].off;
	if (exm_fields[f].type == EXM_FT_ESIZE) {
		v->type = EXM_V_DBL;
		v->d = *(const double *)p;
	} else {
		v_int(v, *(const uint64_t *)p);
	}
}

static void field_value(enum exm_field_id f, enum exm_table t,
			const struct exm_row *r, struct exm_value *v);

bool exm_field_grows(enum exm_field_id f)
{
	const struct exm_field *d = &exm_fields[f];

	return (d->type == EXM_FT_SIZE || d->type == EXM_FT_ESIZE) &&
	       !d->nogrow;
}

void exm_field_value(enum exm_field_id f, enum exm_table t,
		     const struct exm_row *r, struct exm_value *v)
{
	struct exm_row before;
	struct exm_value b;

	field_value(f, t, r, v);
	if (!(r->flags & EXM_ROW_DELTA) || v->type == EXM_V_NONE ||
	    !exm_field_grows(f))
		return;
	before = *r;
	before.sz = r->prev;
	before.kpss = r->prev_kpss;
	field_value(f, t, &before, &b);
	exm_value_growth(v, &b);
}

void exm_value_growth(struct exm_value *after, const struct exm_value *before)
{
	if (after->type == EXM_V_NONE || before->type == EXM_V_NONE) {
		after->type = EXM_V_NONE;
		return;
	}
	after->d = (after->type == EXM_V_INT ? (double)after->u : after->d) -
		   (before->type == EXM_V_INT ? (double)before->u : before->d);
	after->type = EXM_V_DELTA;
}

static void field_value(enum exm_field_id f, enum exm_table t,
			const struct exm_row *r, struct exm_value *v)
{
	const struct exm_proc *p = r->proc;
	const struct exm_sizes *s = &r->sz;
	const struct exm_kpss *k = &r->kpss;

	memset(v, 0, sizeof(*v));
	if ((unsigned)f >= EXM_F__COUNT ||
	    !(exm_fields[f].tables & EXM_TBIT(t)))
		return;
	switch (f) {
	case EXM_F_PID:
		if (p)
			v_int(v, (uint64_t)p->pid);
		break;
	case EXM_F_PPID:
		if (p)
			v_int(v, (uint64_t)p->ppid);
		break;
	case EXM_F_USER:
		v_str(v, p ? p->user : NULL);
		break;
	case EXM_F_COMM:
		v_str(v, p ? p->comm : NULL);
		break;
	case EXM_F_CMD:
		if (p)
			v_str(v, p->cmdline && p->cmdline[0] ? p->cmdline
							     : p->comm);
		break;
	case EXM_F_GROUP:
	case EXM_F_SECTION:
	case EXM_F_SYMBOL:
		v_str(v, r->name);
		break;
	case EXM_F_FILE:
		v_str(v, r->file ? r->file->name : r->name);
		break;
	case EXM_F_KIND:
		if (r->map)
			v_str(v, exm_kind_name(r->map->kind));
		else if (r->file)
			v_str(v, exm_kind_name(r->file->kind));
		break;
	case EXM_F_NPROCS:
		v_int(v, r->nprocs);
		break;
	case EXM_F_UNMEASURED:
		v_int(v, r->unmeasured);
		break;
	case EXM_F_NMAPS:
		/* a process whose maps could not be read: not known */
		if (t != EXM_T_PROCS || !p || p->state != EXM_PROC_DENIED)
			v_int(v, r->nmaps);
		break;
	case EXM_F_ADDR:
		v_int(v, r->addr);
		break;
	case EXM_F_SIZE:
		v_int(v, r->size);
		break;
	case EXM_F_PERMS:
		if (r->map)
			v_str(v, perm_strs[r->map->perms & 15]);
		break;
	case EXM_F_OFFSET:
		if (r->map)
			v_int(v, r->map->offset);
		break;
	case EXM_F_VM:
		v_size(v, s, EXM_HAS_VM, s->vm);
		break;
	case EXM_F_RSS:
		v_size(v, s, EXM_HAS_RSS, s->rss);
		break;
	case EXM_F_ERSS:
		v_esize(v, s, EXM_HAS_ERSS, s->erss);
		break;
	case EXM_F_SWAP:
		v_size(v, s, EXM_HAS_SWAP, s->swap);
		break;
	case EXM_F_ESWAP:
		v_esize(v, s, EXM_HAS_ESWAP, s->eswap);
		break;
	case EXM_F_MAPPED:
		v_size(v, s, EXM_HAS_RSS | EXM_HAS_SWAP, exm_sizes_mapped(s));
		break;
	case EXM_F_EMAPPED:
		v_esize(v, s, EXM_HAS_ERSS | EXM_HAS_ESWAP,
			exm_sizes_emapped(s));
		break;
	case EXM_F_SOLE:
		v_size(v, s, EXM_HAS_SOLE, s->sole);
		break;
	case EXM_F_WRITABLE:
		v_size(v, s, EXM_HAS_WRITABLE, s->writable);
		break;
	case EXM_F_ZERO:
		v_size(v, s, EXM_HAS_ZERO, s->zero);
		break;
	case EXM_F_HUGETLB:
		v_size(v, s, EXM_HAS_HUGETLB, s->hugetlb);
		break;
	case EXM_F_EHUGETLB:
		v_esize(v, s, EXM_HAS_EHUGETLB, s->ehugetlb);
		break;
	case EXM_F_KSM:
		v_size(v, s, EXM_HAS_KSM, s->ksm);
		break;
	case EXM_F_KSM_SAVED:
		v_esize(v, s, EXM_HAS_KSM, (double)s->ksm - s->eksm);
		break;
	case EXM_F_FREED:
		v_size(v, s, EXM_HAS_EXCL, s->freed);
		break;
	case EXM_F_CACHED:
		v_size(v, s, EXM_HAS_EXCL, s->cached);
		break;
	case EXM_F_SHMEM_EXCL:
		v_size(v, s, EXM_HAS_EXCL, s->shmem_excl);
		break;
	case EXM_F_PSS:
		v_kpss(v, k, EXM_KPSS_PSS, k->pss);
		break;
	case EXM_F_PSS_ANON:
		v_kpss(v, k, EXM_KPSS_PSS_ANON, k->pss_anon);
		break;
	case EXM_F_PSS_FILE:
		v_kpss(v, k, EXM_KPSS_PSS_FILE, k->pss_file);
		break;
	case EXM_F_PSS_SHMEM:
		v_kpss(v, k, EXM_KPSS_PSS_SHMEM, k->pss_shmem);
		break;
	case EXM_F_PSS_DIRTY:
		v_kpss(v, k, EXM_KPSS_PSS_DIRTY, k->pss_dirty);
		break;
	case EXM_F_SWAP_PSS:
		v_kpss(v, k, EXM_KPSS_SWAP_PSS, k->swap_pss);
		break;
	case EXM_F_OOM:
		if (p && p->has_oom)
			v_int(v, (uint64_t)p->oom_score);
		break;
	case EXM_F_OOM_ADJ:
		if (p && p->has_oom)
			v_int(v, (uint64_t)(int64_t)p->oom_adj);
		break;
	case EXM_F_CG_CURRENT:
	case EXM_F_CG_ANON:
	case EXM_F_CG_FILE:
	case EXM_F_CG_SHMEM:
	case EXM_F_CG_KERNEL:
	case EXM_F_CG_OTHERS:
	case EXM_F_CG_ELSEWHERE:
	case EXM_F_CG_UNMAPPED:
		v_cg(v, r->cg, f);
		break;
	case EXM_F_DERSS: {
		/* effective resident's growth, as a delta row has it */
		struct exm_row d = *r;

		d.flags |= EXM_ROW_DELTA;
		exm_field_value(EXM_F_ERSS, t, &d, v);
		break;
	}
	case EXM_F_CHANGE:
		if (r->flags & EXM_ROW_DELTA)
			v_str(v, r->flags & EXM_ROW_NEW	   ? "new"
				 : r->flags & EXM_ROW_GONE ? "gone"
							   : "same");
		break;
	case EXM_F__COUNT:
		break;
	}
}

static int cmp_u(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_val(const struct exm_value *a, const struct exm_value *b,
		   bool sint)
{
	if (a->type == EXM_V_NONE || b->type == EXM_V_NONE)
		return (a->type != EXM_V_NONE) - (b->type != EXM_V_NONE);
	switch (a->type) {
	case EXM_V_INT:
		if (sint)
			return ((int64_t)a->u > (int64_t)b->u) -
			       ((int64_t)a->u < (int64_t)b->u);
		return cmp_u(a->u, b->u);
	case EXM_V_DBL:
	case EXM_V_DELTA:
		return (a->d > b->d) - (a->d < b->d);
	case EXM_V_STR:
		return strcmp(a->s, b->s);
	case EXM_V_NONE:
		break;
	}
	return 0;
}

int exm_row_cmp(enum exm_field_id f, enum exm_table t, const struct exm_row *a,
		const struct exm_row *b)
{
	struct exm_value va, vb;
	int c;

	exm_field_value(f, t, a, &va);
	exm_field_value(f, t, b, &vb);
	c = cmp_val(&va, &vb, exm_fields[f].type == EXM_FT_SINT);
	if (c)
		return c;
	if (a->proc && b->proc && a->proc->pid != b->proc->pid)
		return cmp_u((uint64_t)a->proc->pid, (uint64_t)b->proc->pid);
	if (a->name && b->name && (c = strcmp(a->name, b->name)))
		return c;
	if (a->file && b->file && a->file != b->file)
		return cmp_u(a->file->index, b->file->index);
	return cmp_u(a->addr, b->addr);
}

struct sort_ctx {
	enum exm_field_id f;
	enum exm_table t;
	bool desc;
};

static int sort_cb(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	int r = exm_row_cmp(c->f, c->t, a, b);

	return c->desc ? -r : r;
}

void exm_rows_sort(struct exm_row *rows, size_t n, enum exm_field_id f,
		   enum exm_table t, bool desc)
{
	struct sort_ctx c = { .f = f, .t = t, .desc = desc };

	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), sort_cb, &c);
}

#define END -1
static const int def_procs[] = { EXM_F_PID,   EXM_F_USER, EXM_F_VM,
				 EXM_F_RSS,   EXM_F_ERSS, EXM_F_SWAP,
				 EXM_F_ESWAP, EXM_F_SOLE, EXM_F_WRITABLE,
				 EXM_F_PSS,   EXM_F_CMD,  END };
static const int def_files[] = { EXM_F_KIND,  EXM_F_NPROCS, EXM_F_VM,
				 EXM_F_RSS,   EXM_F_ERSS,   EXM_F_SWAP,
				 EXM_F_ESWAP, EXM_F_SOLE,   EXM_F_WRITABLE,
				 EXM_F_FILE,  END };
static const int def_pfiles[] = { EXM_F_KIND, EXM_F_NMAPS, EXM_F_NPROCS,
				  EXM_F_VM,   EXM_F_RSS,   EXM_F_ERSS,
				  EXM_F_SWAP, EXM_F_SOLE,  EXM_F_WRITABLE,
				  EXM_F_FILE, END };
static const int def_fprocs[] = { EXM_F_PID,  EXM_F_USER, EXM_F_NMAPS,
				  EXM_F_VM,   EXM_F_RSS,  EXM_F_ERSS,
				  EXM_F_SWAP, EXM_F_SOLE, EXM_F_WRITABLE,
				  EXM_F_CMD,  END };
static const int def_mappings[] = { EXM_F_ADDR, EXM_F_PERMS, EXM_F_OFFSET,
				    EXM_F_VM,	EXM_F_RSS,   EXM_F_ERSS,
				    EXM_F_SWAP, EXM_F_SOLE,  EXM_F_WRITABLE,
				    EXM_F_FILE, END };
static const int def_sections[] = { EXM_F_ADDR, EXM_F_SIZE,	EXM_F_VM,
				    EXM_F_RSS,	EXM_F_ERSS,	EXM_F_SWAP,
				    EXM_F_SOLE, EXM_F_WRITABLE, EXM_F_SECTION,
				    END };
static const int def_symbols[] = { EXM_F_ADDR,	 EXM_F_SIZE, EXM_F_RSS,
				   EXM_F_ERSS,	 EXM_F_SOLE, EXM_F_WRITABLE,
				   EXM_F_SYMBOL, END };
static const int def_groups[] = {
	EXM_F_NPROCS,	EXM_F_UNMEASURED, EXM_F_VM,    EXM_F_RSS,
	EXM_F_ERSS,	EXM_F_SWAP,	  EXM_F_SOLE,  EXM_F_FREED,
	EXM_F_WRITABLE, EXM_F_PSS,	  EXM_F_GROUP, END
};

const int *exm_table_default_fields(enum exm_table t)
{
	static const int *const defs[EXM_T__COUNT] = {
		[EXM_T_PROCS] = def_procs,
		[EXM_T_FILES] = def_files,
		[EXM_T_PFILES] = def_pfiles,
		[EXM_T_FPROCS] = def_fprocs,
		[EXM_T_MAPPINGS] = def_mappings,
		[EXM_T_SECTIONS] = def_sections,
		[EXM_T_SYMBOLS] = def_symbols,
		[EXM_T_GROUPS] = def_groups,
	};

	return (unsigned)t < EXM_T__COUNT ? defs[t] : def_procs;
}

int exm_fields_parse(const char *list, enum exm_table t, int *out, size_t max,
		     char *err, size_t errlen)
{
	const int *def = exm_table_default_fields(t);
	size_t k = 0;

	if (!list) {
		for (; def[k] >= 0 && k + 1 < max; k++)
			out[k] = def[k];
		out[k] = -1;
		return 0;
	}
	while (*list) {
		size_t n = strcspn(list, ",");
		char key[32];
		int f;

		if (n == 0 || n >= sizeof(key)) {
			snprintf(err, errlen, "bad field list near '%.20s'",
				 list);
			return -EINVAL;
		}
		memcpy(key, list, n);
		key[n] = '\0';
		f = exm_field_by_key(key);
		if (f < 0) {
			snprintf(err, errlen, "unknown field '%s'", key);
			return -EINVAL;
		}
		if (!(exm_fields[f].tables & EXM_TBIT(t))) {
			snprintf(err, errlen, "field '%s' does not apply to %s",
				 key, exm_table_name(t));
			return -EINVAL;
		}
		if (k + 1 >= max) {
			snprintf(err, errlen, "too many fields");
			return -EINVAL;
		}
		out[k++] = f;
		list += n;
		if (*list == ',' && !*++list) {
			snprintf(err, errlen, "empty field name at the end");
			return -EINVAL;
		}
	}
	out[k] = -1;
	if (!k) {
		snprintf(err, errlen, "empty field list");
		return -EINVAL;
	}
	return 0;
}

void exm_table_natural_sort(enum exm_table t, int *field, bool *desc)
{
	const int *def = exm_table_default_fields(t);

	*field = EXM_F_ERSS;
	if ((unsigned)t < EXM_T__COUNT &&
	    !(exm_fields[EXM_F_ERSS].tables & EXM_TBIT(t)))
		*field = def[0] >= 0 ? def[0] : EXM_F_ERSS;
	*desc = exm_fields[*field].desc;
}

int exm_sort_parse(const char *text, enum exm_table t, int *field, bool *desc,
		   char *err, size_t errlen)
{
	char sign = *text == '-' || *text == '+' ? *text : 0;
	int f = exm_field_by_key(text + !!sign);

	if (f < 0 || !(exm_fields[f].tables & EXM_TBIT(t))) {
		snprintf(err, errlen, "unknown sort field '%.32s' for %s",
			 text + !!sign, exm_table_name(t));
		return -EINVAL;
	}
	*field = f;
	*desc = sign ? sign == '+' : exm_fields[f].desc;
	return 0;
}

void exm_sort_format(int field, bool desc, char *buf, size_t len)
{
	snprintf(buf, len, "%c%s", desc ? '+' : '-', exm_fields[field].key);
}

/* clang-format off */
const struct exm_table_info exm_tables[EXM_T__COUNT] = {
	[EXM_T_PROCS] = { .key = "procs", .name = "processes", .letter = 'p',
			  .help = "processes" },
	[EXM_T_FILES] = { .key = "files", .name = "files", .letter = 'f',
			  .help = "files" },
	[EXM_T_PFILES] = { .key = "pfiles", .name = "files", .letter = 'F',
			   .help = "files of a process" },
	[EXM_T_FPROCS] = { .key = "fprocs", .name = "processes",
			   .letter = 'P', .help = "processes of a file" },
	[EXM_T_MAPPINGS] = { .key = "mappings", .name = "mappings",
			     .letter = 'm', .help = "mappings" },
	[EXM_T_SECTIONS] = { .key = "sections", .name = "sections",
			     .letter = 's', .help = "sections" },
	[EXM_T_SYMBOLS] = { .key = "symbols", .name = "symbols",
			    .letter = 'y', .help = "symbols" },
	[EXM_T_GROUPS] = { .key = "groups", .name = "groups", .letter = 'g',
			   .help = "groups" },
};
/* clang-format on */

const char *exm_table_name(enum exm_table t)
{
	return (unsigned)t < EXM_T__COUNT ? exm_tables[t].name : "?";
}

int exm_table_by_key(const char *key)
{
	for (int t = 0; t < EXM_T__COUNT; t++)
		if (!strcmp(key, exm_tables[t].key))
			return t;
	return -1;
}
