// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Alerts (core/analysis.c) and the ELF dynamic facts they use
 * (core/elfdyn.c), on hand-built snapshots and ELF images.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis.h"
#include "core/elfdyn.h"
#include "tests/unit/anagen.h"

/* ---- elfdyn ---- */

struct dynimg {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[3];
	Elf64_Dyn dyn[4];
};

/* An ELF64 image with a PT_DYNAMIC holding tag (0: none) = val and a
 * PT_GNU_RELRO at offset 0x2e10, size 0x1f0. */
static void dynimg(struct dynimg *d, int64_t tag, uint64_t val)
{
	memset(d, 0, sizeof(*d));
	memcpy(d->eh.e_ident, ELFMAG, SELFMAG);
	d->eh.e_ident[EI_CLASS] = ELFCLASS64;
	d->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	d->eh.e_ident[EI_VERSION] = EV_CURRENT;
	d->eh.e_type = ET_DYN;
	d->eh.e_machine = EM_X86_64;
	d->eh.e_version = EV_CURRENT;
	d->eh.e_phoff = offsetof(struct dynimg, ph);
	d->eh.e_ehsize = sizeof(Elf64_Ehdr);
	d->eh.e_phentsize = sizeof(Elf64_Phdr);
	d->eh.e_phnum = 3;
	d->ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD,
				 .p_flags = PF_R,
				 .p_filesz = sizeof(*d),
				 .p_memsz = sizeof(*d) };
	d->ph[1] = (Elf64_Phdr){ .p_type = PT_DYNAMIC,
				 .p_flags = PF_R,
				 .p_offset = offsetof(struct dynimg, dyn),
				 .p_filesz = sizeof(d->dyn),
				 .p_memsz = sizeof(d->dyn) };
	d->ph[2] = (Elf64_Phdr){ .p_type = PT_GNU_RELRO,
				 .p_flags = PF_R,
				 .p_offset = 0x2e10,
				 .p_memsz = 0x1f0 };
	d->dyn[0] = (Elf64_Dyn){ .d_tag = DT_SONAME, .d_un.d_val = 1 };
	d->dyn[1] = (Elf64_Dyn){ .d_tag = tag, .d_un.d_val = val };
	/* dyn[2] DT_NULL; dyn[3] DT_TEXTREL after it must not count */
	d->dyn[3] = (Elf64_Dyn){ .d_tag = DT_TEXTREL };
}

Test(elfdyn, textrel_tag)
{
	struct dynimg d;
	struct exm_elfdyn x;

	dynimg(&d, DT_TEXTREL, 0);
	cr_assert_eq(exm_elfdyn_parse_mem(&d, sizeof(d), &x), 0);
	cr_assert(x.ok && x.textrel && x.has_relro);
	cr_assert_eq(x.relro_offset, 0x2e10);
	cr_assert_eq(x.relro_size, 0x1f0);
}

Test(elfdyn, textrel_flag_and_none)
{
	struct dynimg d;
	struct exm_elfdyn x;

	dynimg(&d, DT_FLAGS, DF_TEXTREL | DF_BIND_NOW);
	cr_assert_eq(exm_elfdyn_parse_mem(&d, sizeof(d), &x), 0);
	cr_assert(x.textrel);
	dynimg(&d, DT_FLAGS, DF_BIND_NOW);
	cr_assert_eq(exm_elfdyn_parse_mem(&d, sizeof(d), &x), 0);
	cr_assert(x.ok && !x.textrel);
	/* the DT_TEXTREL after DT_NULL does not count */
	dynimg(&d, DT_NULL, 0);
	cr_assert_eq(exm_elfdyn_parse_mem(&d, sizeof(d), &x), 0);
	cr_assert(!x.textrel);
}

Test(elfdyn, relro_pages)
{
	struct dynimg d;
	struct exm_elfdyn x;

	dynimg(&d, 0, 0);
	cr_assert_eq(exm_elfdyn_parse_mem(&d, sizeof(d), &x), 0);
	cr_assert(!exm_elfdyn_in_relro(&x, 0x1000, PS));
	cr_assert(exm_elfdyn_in_relro(&x, 0x2000, PS)); /* page of 0x2e10 */
	cr_assert(exm_elfdyn_in_relro(&x, 0x2fff, PS));
	cr_assert(!exm_elfdyn_in_relro(&x, 0x3000, PS)); /* 0x2e10+0x1f0 */
}

Test(elfdyn, not_elf_and_truncated)
{
	struct dynimg d;
	struct exm_elfdyn x;

	cr_assert_eq(exm_elfdyn_parse_mem("hello", 5, &x), -EINVAL);
	cr_assert(!x.ok);
	dynimg(&d, DT_TEXTREL, 0);
	/* program headers cut off: parsed as far as it goes, no crash */
	exm_elfdyn_parse_mem(&d, sizeof(Elf64_Ehdr) + 10, &x);
	cr_assert(!x.textrel);
	d.ph[1].p_offset = 1u << 30; /* PT_DYNAMIC past the end */
	cr_assert_eq(exm_elfdyn_parse_mem(&d, sizeof(d), &x), 0);
	cr_assert(!x.textrel);
}

/* ---- alerts ---- */

#define LIB "/lib/libt.so"
#define LIB_INO 77

static struct exm_elfdyn fake_dyn;
static int fake_dyn_err;
static int fake_dyn_calls;

static int fake_get(void *ctx, const struct exm_snapshot *snap,
		    const struct exm_file *f, struct exm_elfdyn *out)
{
	(void)ctx;
	(void)snap;
	(void)f;
	fake_dyn_calls++;
	*out = fake_dyn;
	return fake_dyn_err;
}

static void opts(struct exm_alert_opts *o)
{
	exm_alert_opts_init(o);
	o->min_saved = 0;
	o->cow_min_saved = 0;
	o->dyn.get = fake_get;
	fake_dyn = (struct exm_elfdyn){ .ok = true };
	fake_dyn_err = 0;
	fake_dyn_calls = 0;
}

/*
 * nprocs processes map LIB r-xp (4 pages at offset 0): pages 0 and 1 are
 * private copies (frame 1000 + 10 * process + page, or shared with the
 * previous process when forked), pages 2 and 3 the file's pages 50, 51.
 * Each also maps an r--p page at file offset 0x4000 (a private copy) and
 * an rw-p page at 0x5000 (a private copy).
 */
static struct exm_snapshot *textrel_snap(int nprocs, bool last_forked)
{
	struct exm_snapshot *s = ag_snap();

	for (int i = 0; i < nprocs; i++) {
		struct exm_proc *p = ag_proc(s, 100 + i);
		struct exm_mapping *m;
		int who = last_forked && i == nprocs - 1 ? i - 1 : i;

		m = ag_map(p, 0x10000, 4, RX, LIB, LIB_INO, 0, EXM_KIND_FILE);
		ag_page(m, 0, PG(1000 + 10 * who, 0));
		ag_page(m, 1, PG(1001 + 10 * who, 0));
		ag_page(m, 2, PG(50, EXM_PM_FILE));
		ag_page(m, 3, PG(51, EXM_PM_FILE));
		m = ag_map(p, 0x14000, 1, RO, LIB, LIB_INO, 0x4000,
			   EXM_KIND_FILE);
		ag_page(m, 0, PG(2000 + i, EXM_PM_EXCLUSIVE));
		m = ag_map(p, 0x15000, 1, RW, LIB, LIB_INO, 0x5000,
			   EXM_KIND_FILE);
		ag_page(m, 0, PG(3000 + i, EXM_PM_EXCLUSIVE));
	}
	ag_account(s);
	return s;
}

static const struct exm_alert *find(const struct exm_alerts *a,
				    enum exm_alert_kind k)
{
	const struct exm_alert *r = NULL;

	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].kind == k) {
			cr_assert_null(r, "two alerts of kind %d", k);
			r = &a->v[i];
		}
	return r;
}

/* The one alert of kind k of s (prev: the snapshot before) into *out;
 * false when there is none. */
static bool one_alert(const struct exm_snapshot *s,
		      const struct exm_snapshot *prev,
		      const struct exm_alert_opts *o, enum exm_alert_kind k,
		      struct exm_alert *out)
{
	struct exm_alerts a;
	const struct exm_alert *t;

	cr_assert_eq(exm_alerts_find(s, prev, o, &a), 0);
	t = find(&a, k);
	if (t)
		*out = *t;
	exm_alerts_fini(&a);
	return t != NULL;
}

/* The r--p page at 0x4000 of textrel_snap() is RELRO. */
static void relro_at_0x4000(void)
{
	fake_dyn.has_relro = true;
	fake_dyn.relro_offset = 0x4000;
	fake_dyn.relro_size = 0x1000;
}

Test(alerts, text_relocations_in_three_processes)
{
	struct exm_snapshot *s = textrel_snap(3, false);
	struct exm_alert_opts o;
	struct exm_alerts a;
	const struct exm_alert *t;

	opts(&o);
	fake_dyn.textrel = true;
	relro_at_0x4000(); /* never a text alert */
	cr_assert_eq(exm_alerts_find(s, NULL, &o, &a), 0);
	t = find(&a, EXM_ALERT_TEXT_COPIES);
	cr_assert_not_null(t);
	cr_assert_str_eq(t->file->name, LIB);
	cr_assert_eq(t->nprocs, 3);
	cr_assert_eq(t->npages, 2);
	cr_assert_eq(t->copies, 6);
	/* two pages, three copies each, one copy would do */
	cr_assert_eq(t->bytes, 2 * 2 * PS);
	cr_assert(t->textrel);
	cr_assert(strstr(t->text, "DT_TEXTREL"), "%s", t->text);
	cr_assert_eq(fake_dyn_calls, 1, "dyn info read once per file");
	cr_assert(a.checked & (1u << EXM_ALERT_TEXT_COPIES));
	cr_assert_null(find(&a, EXM_ALERT_ANON_GROWTH));
	cr_assert_not_null(a.why_not[EXM_ALERT_ANON_GROWTH]);
	exm_alerts_fini(&a);
	exm_snapshot_free(s);
}

Test(alerts, fork_shared_copy_counts_once)
{
	struct exm_snapshot *s = textrel_snap(3, true);
	struct exm_alert_opts o;
	struct exm_alert t;

	opts(&o);
	relro_at_0x4000();
	cr_assert(one_alert(s, NULL, &o, EXM_ALERT_TEXT_COPIES, &t));
	cr_assert_eq(t.copies, 4); /* processes 1 and 2 share frames */
	cr_assert_eq(t.bytes, 2 * PS);
	cr_assert(!t.textrel);
	cr_assert(strstr(t.text, "not from DT_TEXTREL"), "%s", t.text);
	exm_snapshot_free(s);
}

Test(alerts, read_only_copies_outside_relro)
{
	struct exm_snapshot *s = textrel_snap(2, false);
	struct exm_alert_opts o;
	struct exm_alert t;

	/* no RELRO: the r--p copies at 0x4000 count too */
	opts(&o);
	cr_assert(one_alert(s, NULL, &o, EXM_ALERT_TEXT_COPIES, &t));
	cr_assert_eq(t.npages, 3);
	cr_assert_eq(t.bytes, 3 * PS);
	/* the file cannot be read: only the executable copies count */
	fake_dyn_err = -ENOENT;
	fake_dyn.ok = false;
	cr_assert(one_alert(s, NULL, &o, EXM_ALERT_TEXT_COPIES, &t));
	cr_assert_eq(t.npages, 2);
	cr_assert(!t.textrel);
	exm_snapshot_free(s);
}

Test(alerts, thresholds)
{
	struct exm_snapshot *s = textrel_snap(2, false);
	struct exm_alert_opts o;
	struct exm_alert t;

	opts(&o);
	o.text_min_procs = 3;
	cr_assert(!one_alert(s, NULL, &o, EXM_ALERT_TEXT_COPIES, &t));
	opts(&o);
	o.min_saved = 3 * PS + 1;
	cr_assert(!one_alert(s, NULL, &o, EXM_ALERT_TEXT_COPIES, &t));
	o.min_saved = 3 * PS;
	cr_assert(one_alert(s, NULL, &o, EXM_ALERT_TEXT_COPIES, &t));
	exm_snapshot_free(s);
}

Test(alerts, position_independent_file_pages_raise_nothing)
{
	struct exm_snapshot *s = ag_snap();
	struct exm_alert_opts o;
	struct exm_alerts a;

	for (int i = 0; i < 4; i++) {
		struct exm_proc *p = ag_proc(s, 100 + i);
		struct exm_mapping *m = ag_map(p, 0x10000, 2, RX, LIB, LIB_INO,
					       0, EXM_KIND_FILE);

		ag_page(m, 0, PG(50, EXM_PM_FILE));
		ag_page(m, 1, PG(51, EXM_PM_FILE));
	}
	ag_account(s);
	opts(&o);
	cr_assert_eq(exm_alerts_find(s, NULL, &o, &a), 0);
	cr_assert_eq(a.n, 0);
	cr_assert_eq(fake_dyn_calls, 0, "no copies: file never opened");
	exm_alerts_fini(&a);
	exm_snapshot_free(s);
}

Test(alerts, data_cow_in_many_processes)
{
	struct exm_snapshot *s = textrel_snap(3, false);
	struct exm_alert_opts o;
	struct exm_alerts a;
	struct exm_alert t;

	opts(&o);
	cr_assert(one_alert(s, NULL, &o, EXM_ALERT_DATA_COW, &t));
	cr_assert_str_eq(t.file->name, LIB);
	cr_assert_eq(t.nprocs, 3);
	cr_assert_eq(t.npages, 1);
	cr_assert_eq(t.bytes, 2 * PS);
	/* sorted: the text alert comes first */
	cr_assert_eq(exm_alerts_find(s, NULL, &o, &a), 0);
	cr_assert_eq(a.v[0].kind, EXM_ALERT_TEXT_COPIES);
	exm_alerts_fini(&a);
	exm_snapshot_free(s);
	s = textrel_snap(2, false); /* 2 < cow_min_procs */
	cr_assert(!one_alert(s, NULL, &o, EXM_ALERT_DATA_COW, &t));
	exm_snapshot_free(s);
}

Test(alerts, without_page_facts_copies_are_not_checked)
{
	struct exm_snapshot *s = textrel_snap(3, false);
	struct exm_alert_opts o;
	struct exm_alerts a;

	s->sys.caps &= ~(EXM_CAP_PAGES | EXM_CAP_PFN);
	opts(&o);
	cr_assert_eq(exm_alerts_find(s, NULL, &o, &a), 0);
	cr_assert_eq(a.n, 0);
	cr_assert(!(a.checked & (1u << EXM_ALERT_TEXT_COPIES)));
	cr_assert_not_null(a.why_not[EXM_ALERT_TEXT_COPIES]);
	cr_assert_not_null(a.why_not[EXM_ALERT_PSS_MISMATCH]);
	exm_alerts_fini(&a);
	exm_snapshot_free(s);
}

/* One process pid: a heap of heap_pages pages, a 1-page stack and one
 * page of a file, taken at time at. */
static struct exm_snapshot *heap_snap(pid_t pid, uint64_t start_time,
				      int heap_pages, time_t at)
{
	struct exm_snapshot *s = ag_snap();
	struct exm_proc *p = ag_proc(s, pid);
	struct exm_mapping *m;

	p->start_time = start_time;
	m = ag_map(p, 0x100000, 128, RW, "[heap]", 0, 0, EXM_KIND_HEAP);
	for (int i = 0; i < heap_pages; i++)
		ag_page(m, i, PG(500 + i, EXM_PM_EXCLUSIVE));
	m = ag_map(p, 0x7f000000, 1, RW, "[stack]", 0, 0, EXM_KIND_STACK);
	ag_page(m, 0, PG(9000, EXM_PM_EXCLUSIVE));
	m = ag_map(p, 0x20000, 1, RX, LIB, LIB_INO, 0, EXM_KIND_FILE);
	ag_page(m, 0, PG(50, EXM_PM_FILE));
	s->sys.taken_at.tv_sec = at;
	ag_account(s);
	return s;
}

Test(alerts, anonymous_growth)
{
	struct exm_snapshot *prev = heap_snap(42, 7, 2, 1000);
	struct exm_snapshot *cur = heap_snap(42, 7, 10, 1030);
	struct exm_alert_opts o;
	struct exm_alerts a;
	struct exm_alert t;
	uint64_t anon;

	cr_assert(exm_proc_anon_bytes(&prev->procs[0], &anon));
	cr_assert_eq(anon, 3 * PS); /* heap 2 + stack 1, not the file */
	opts(&o);
	o.min_growth = 8 * PS;
	cr_assert(one_alert(cur, prev, &o, EXM_ALERT_ANON_GROWTH, &t));
	cr_assert_eq(t.proc, &cur->procs[0]);
	cr_assert_eq(t.bytes, 8 * PS);
	cr_assert_eq(t.before, 3 * PS);
	cr_assert_eq(t.after, 11 * PS);
	cr_assert_float_eq(t.seconds, 30.0, 1e-9);
	cr_assert_eq(exm_alerts_find(cur, prev, &o, &a), 0);
	cr_assert(a.checked & (1u << EXM_ALERT_ANON_GROWTH));
	exm_alerts_fini(&a);
	o.min_growth = 8 * PS + 1;
	cr_assert(!one_alert(cur, prev, &o, EXM_ALERT_ANON_GROWTH, &t));
	/* shrinking is not growth */
	o.min_growth = 1;
	cr_assert(!one_alert(prev, cur, &o, EXM_ALERT_ANON_GROWTH, &t));
	exm_snapshot_free(prev);
	exm_snapshot_free(cur);
}

Test(alerts, growth_needs_the_same_process)
{
	struct exm_snapshot *prev = heap_snap(42, 7, 2, 1000);
	struct exm_snapshot *cur = heap_snap(42, 8, 10, 1030); /* pid reused */
	struct exm_alert_opts o;
	struct exm_alert t;

	opts(&o);
	o.min_growth = 1;
	cr_assert(!one_alert(cur, prev, &o, EXM_ALERT_ANON_GROWTH, &t));
	exm_snapshot_free(prev);
	exm_snapshot_free(cur);
}

Test(alerts, pss_mismatch_beyond_tolerance)
{
	struct exm_snapshot *s = heap_snap(42, 7, 100, 0);
	struct exm_alert_opts o;
	struct exm_alert t;
	struct exm_proc *p = &s->procs[0];
	int64_t erss = (int64_t)llround(p->sz.erss);

	cr_assert_eq(erss, 102 * PS); /* heap, stack, the file's page */
	opts(&o);
	o.pss_abs = 10 * PS;
	o.pss_frac = 0.01;
	p->kpss.has = EXM_KPSS_PSS;
	p->kpss.pss = 92 * PS; /* exactly the tolerance: no alert */
	cr_assert(!one_alert(s, NULL, &o, EXM_ALERT_PSS_MISMATCH, &t));
	p->kpss.pss = 92 * PS - 1;
	cr_assert(one_alert(s, NULL, &o, EXM_ALERT_PSS_MISMATCH, &t));
	cr_assert_eq(t.bytes, 10 * PS + 1);
	cr_assert_eq(t.before, 92 * PS - 1);
	cr_assert_eq(t.after, 102 * PS);
	/* the fraction wins when larger: 20% of 92 PS is over 10 PS */
	o.pss_frac = 0.2;
	cr_assert(!one_alert(s, NULL, &o, EXM_ALERT_PSS_MISMATCH, &t));
	/* kernel Pss larger than erss: negative bytes */
	o.pss_frac = 0.0;
	p->kpss.pss = 200 * PS;
	cr_assert(one_alert(s, NULL, &o, EXM_ALERT_PSS_MISMATCH, &t));
	cr_assert_eq(t.bytes, -98 * (int64_t)PS);
	cr_assert_not_null(strstr(t.text, "not scanned?"));
	/* a kernel that averages mapcounts (kconfig.h): the note says so */
	s->sys.caps |= EXM_CAP_AVG_MAPCOUNT;
	cr_assert(one_alert(s, NULL, &o, EXM_ALERT_PSS_MISMATCH, &t));
	cr_assert_not_null(strstr(t.text, "CONFIG_NO_PAGE_MAPCOUNT"));
	s->sys.caps &= ~EXM_CAP_AVG_MAPCOUNT;
	/* a scan of some processes only: not checked */
	o.partial_scan = true;
	cr_assert(!one_alert(s, NULL, &o, EXM_ALERT_PSS_MISMATCH, &t));
	o.partial_scan = false;
	/* no kernel figure: nothing to compare */
	p->kpss.has = 0;
	cr_assert(!one_alert(s, NULL, &o, EXM_ALERT_PSS_MISMATCH, &t));
	exm_snapshot_free(s);
}

Test(alerts, kind_names)
{
	cr_assert_str_eq(exm_alert_kind_name(EXM_ALERT_TEXT_COPIES),
			 "text-copies");
	cr_assert_str_eq(exm_alert_kind_name(EXM_ALERT_PSS_MISMATCH),
			 "pss-mismatch");
	for (int k = 0; k < EXM_ALERT__COUNT; k++)
		cr_assert_str_neq(exm_alert_kind_name(k), "?");
}
