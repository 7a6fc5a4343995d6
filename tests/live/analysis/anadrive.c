// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * anadrive - a test driver for the analyses of core/ (alerts, executable
 * units, per-process breakdown, system view, OpenMetrics) against real
 * processes, before the exmtop CLI offers them. Takes a pagemap snapshot
 * (with the kernel's Pss) and prints one analysis as tab-separated lines
 * for tests/live/test_analysis.py, or OpenMetrics text.
 *
 *   anadrive alerts [-p PIDS] [--min-saved N] [--min-growth N] [--step]
 *   anadrive units|breakdown|system [-p PIDS]
 *   anadrive openmetrics [-p PIDS] [--top N]
 *   anadrive strip --file PATH [-p PIDS]
 *
 * --step takes a first snapshot, prints "snap1", waits for a line on
 * stdin and takes the second: growth alerts compare the two.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"
#include "core/analysis.h"
#include "core/openmetrics.h"
#include "core/source.h"
#include "core/filestrip.h"
#include "core/sysview.h"
#include "core/units.h"

static pid_t pids[256];
static size_t npids;

static int take(struct exm_source *src, struct exm_snapshot **out)
{
	struct exm_scan_opts o = {
		.pids = npids ? pids : NULL,
		.npids = npids,
		.want_kpss = true,
		.proc_root = "/proc",
	};
	int r = exm_source_snapshot(src, &o, out);

	if (r)
		fprintf(stderr, "anadrive: snapshot: %s\n", strerror(-r));
	return r;
}

/* A name with every byte outside printable ASCII (and tab, backslash)
 * as \xNN: one field of one line. */
static void put_name(const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c >= 0x7f || *c == '\\')
			printf("\\x%02x", *c);
		else
			putchar(*c);
}

static void put_sizes(const struct exm_sizes *z)
{
	printf("\t%llu\t%llu\t%.3f", (unsigned long long)z->vm,
	       (unsigned long long)z->rss, z->erss);
}

static int do_alerts(struct exm_snapshot *cur, struct exm_snapshot *prev,
		     struct exm_alert_opts *o)
{
	struct exm_alerts a;
	int r = exm_alerts_find(cur, prev, o, &a);

	if (r)
		return r;
	for (int k = 0; k < EXM_ALERT__COUNT; k++)
		if (a.checked & (1u << k))
			printf("checked\t%s\n", exm_alert_kind_name(k));
	for (size_t i = 0; i < a.n; i++) {
		const struct exm_alert *x = &a.v[i];

		printf("alert\t%s\t", exm_alert_kind_name(x->kind));
		if (x->file)
			put_name(x->file->name);
		else
			printf("%d", (int)x->proc->pid);
		printf("\t%lld\t%u\t%llu\t%llu\t%d\t%llu\t%llu\t%.3f\t%s\n",
		       (long long)x->bytes, x->nprocs,
		       (unsigned long long)x->npages,
		       (unsigned long long)x->copies, x->textrel,
		       (unsigned long long)x->before,
		       (unsigned long long)x->after, x->seconds, x->text);
	}
	exm_alerts_fini(&a);
	return 0;
}

static int do_units(const struct exm_snapshot *s,
		    const struct exm_elf_lookup *lk)
{
	struct exm_unit *u;
	size_t n;
	int r = exm_units_table(s, lk, &u, &n);

	if (r)
		return r;
	for (size_t i = 0; i < n; i++) {
		printf("unit\t");
		put_name(u[i].file->name);
		printf("\t%u\t%d", u[i].nprocs, (int)u[i].elf_state);
		for (int g = 0; g < EXM_SEG__COUNT; g++)
			put_sizes(&u[i].seg[g]);
		putchar('\n');
	}
	free(u);
	return 0;
}

static int do_breakdown(const struct exm_snapshot *s,
			const struct exm_elf_lookup *lk)
{
	struct exm_breakdown *b;
	size_t n;
	int r = exm_breakdown_table(s, lk, &b, &n);

	if (r)
		return r;
	for (size_t i = 0; i < n; i++) {
		printf("proc\t%d", (int)b[i].proc->pid);
		put_sizes(&b[i].proc->sz);
		printf("\t%llu\t%llu\n", (unsigned long long)b[i].sole,
		       (unsigned long long)b[i].shared);
		for (int k = 0; k < EXM_BD__COUNT; k++) {
			printf("part\t%d\t%s", (int)b[i].proc->pid,
			       exm_bd_key(k));
			put_sizes(&b[i].part[k]);
			putchar('\n');
		}
	}
	free(b);
	return 0;
}

static int do_system(const struct exm_snapshot *s)
{
	struct exm_sysview v;
	char err[256];
	double erss = 0;
	int r = exm_sysview_build(s, &v, err, sizeof(err));

	if (r) {
		fprintf(stderr, "anadrive: %s\n", err);
		return r;
	}
	for (size_t i = 0; i < s->nprocs; i++)
		erss += s->procs[i].sz.erss;
	printf("mem_total\t%llu\n", (unsigned long long)v.mem_total);
	printf("sum_erss\t%.3f\n", erss);
	for (size_t i = 0; i < v.nrows; i++)
		printf("row\t%s\t%lld\n", v.rows[i].name,
		       (long long)v.rows[i].bytes);
	return 0;
}

static int do_openmetrics(const struct exm_snapshot *s, size_t top)
{
	struct exm_sysview v;
	struct exm_om_opts o = { .top = top, .groups = true, .files = true };
	char err[256];

	if (!exm_sysview_build(s, &v, err, sizeof(err)))
		o.sys = &v;
	return exm_om_write(stdout, s, &o);
}

static int do_strip(const struct exm_snapshot *s, const char *path)
{
	const struct exm_file *f = path ? exm_snapshot_find_file(s, path)
					: NULL;
	struct exm_file_strip st;
	int r;

	if (!f)
		return -ENOENT;
	r = exm_strip_file(s, f, &st);
	if (r)
		return r;
	printf("strip\t%llu\t%u\t%llu\t%llu\t", (unsigned long long)st.npages,
	       st.nprocs, (unsigned long long)st.vm_pages,
	       (unsigned long long)st.res_pages);
	for (uint64_t i = 0; i < st.npages; i++)
		putchar(exm_strip_count_char(st.procs[i]));
	putchar('\n');
	for (size_t i = 0; i < st.nsegs; i++)
		printf("seg\t%llu\t%llu\t%c%c%c%c\n",
		       (unsigned long long)st.segs[i].first,
		       (unsigned long long)st.segs[i].end,
		       st.segs[i].perms & EXM_PERM_R ? 'r' : '-',
		       st.segs[i].perms & EXM_PERM_W ? 'w' : '-',
		       st.segs[i].perms & EXM_PERM_X ? 'x' : '-',
		       st.segs[i].perms & EXM_PERM_S ? 's' : 'p');
	exm_file_strip_fini(&st);
	return 0;
}

static int parse_pids(char *arg)
{
	for (char *t = strtok(arg, ","); t; t = strtok(NULL, ",")) {
		char *end;
		long v = strtol(t, &end, 10);

		if (*end || v <= 0 || npids == sizeof(pids) / sizeof(pids[0]))
			return -1;
		pids[npids++] = (pid_t)v;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: anadrive alerts|units|breakdown|system|"
		"openmetrics|strip [-p PIDS] [--min-saved N] [--min-growth N] "
		"[--step] [--top N] [--file PATH]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct exm_snapshot *cur = NULL, *prev = NULL;
	struct exm_elfcache *cache = exm_elfcache_new(256);
	struct exm_elf_lookup_cache lc = { .cache = cache };
	struct exm_elf_lookup lk = { .get = exm_elf_lookup_cached, .ctx = &lc };
	struct exm_alert_opts ao;
	struct exm_source *src;
	const char *cmd, *file = NULL;
	size_t top = 20;
	bool step = false;
	char err[256];
	int r;

	if (argc < 2 || !cache)
		return usage();
	cmd = argv[1];
	exm_alert_opts_init(&ao);
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--step")) {
			step = true;
			continue;
		}
		if (!v)
			return usage();
		i++;
		if (!strcmp(a, "-p")) {
			if (parse_pids(argv[i]))
				return usage();
			ao.partial_scan = true;
		} else if (!strcmp(a, "--min-saved")) {
			ao.min_saved = strtoull(v, NULL, 10);
		} else if (!strcmp(a, "--min-growth")) {
			ao.min_growth = strtoull(v, NULL, 10);
		} else if (!strcmp(a, "--file")) {
			file = v;
		} else if (!strcmp(a, "--top")) {
			top = strtoull(v, NULL, 10);
		} else {
			return usage();
		}
	}
	r = exm_source_open("pagemap", &src, err, sizeof(err));
	if (r) {
		fprintf(stderr, "anadrive: %s\n", err);
		return 1;
	}
	if (step) {
		char line[16];

		r = take(src, &prev);
		if (r)
			goto out;
		printf("snap1\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin)) {
			r = -EIO;
			goto out;
		}
	}
	r = take(src, &cur);
	if (r)
		goto out;
	if (!strcmp(cmd, "alerts"))
		r = do_alerts(cur, prev, &ao);
	else if (!strcmp(cmd, "units"))
		r = do_units(cur, &lk);
	else if (!strcmp(cmd, "breakdown"))
		r = do_breakdown(cur, &lk);
	else if (!strcmp(cmd, "system"))
		r = do_system(cur);
	else if (!strcmp(cmd, "openmetrics"))
		r = do_openmetrics(cur, top);
	else if (!strcmp(cmd, "strip"))
		r = do_strip(cur, file);
	else
		r = -EINVAL;
out:
	if (r)
		fprintf(stderr, "anadrive: %s: %s\n", cmd, strerror(-r));
	exm_snapshot_free(cur);
	exm_snapshot_free(prev);
	exm_source_close(src);
	exm_elfcache_free(cache);
	return r ? 1 : 0;
}
