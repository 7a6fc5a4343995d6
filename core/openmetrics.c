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

#include "core/group.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80;
		unsigned char hi = c == 0xed ? 0x9f : 0xbf; /* no surrogates */

		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3
									 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80;
		unsigned char hi = c == 0xf4 ? 0x8f : 0xbf; /* <= U+10FFFF */

		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 &&
				       (s[3] & 0xc0) == 0x80
			       ? 4
			       : 0;
	}
	return 0;
}

void exm_om_label_value(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = utf8_len(s);

		if (!n) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD */
			s++;
		} else if (*s == '\\') {
			fputs("\\\\", out);
			s++;
		} else if (*s == '"') {
			fputs("\\\"", out);
			s++;
		} else if (*s == '\n') {
			fputs("\\n", out);
			s++;
		} else {
			fwrite(s, 1, n, out);
			s += n;
		}
	}
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

/* A number as OpenMetrics reads it, exact for integers. */
static void put_num(FILE *out, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(out, "%.0f\n", v);
	else
		fprintf(out, "%.17g\n", v);
}

/* ---- processes ---- */

enum val { V_ERSS, V_RSS, V_ESWAP, V_SOLE, V_PSS, V__COUNT };

static const struct {
	const char *key, *help;
	unsigned has; /* EXM_HAS_* needed (EXM_KPSS_PSS for pss) */
} vals[V__COUNT] = {
	[V_ERSS] = { "effective_resident",
		     "resident bytes divided among the processes mapping them",
		     EXM_HAS_ERSS },
	[V_RSS] = { "resident", "resident bytes", EXM_HAS_RSS },
	[V_ESWAP] = { "effective_swap",
		      "swapped bytes divided among the processes mapping them",
		      EXM_HAS_ESWAP },
	[V_SOLE] = { "sole", "resident bytes no other scanned process maps",
		     EXM_HAS_SOLE },
	[V_PSS] = { "kernel_pss", "the kernel's Pss (smaps_rollup)",
		    EXM_KPSS_PSS },
};

/* Value v of sizes sz (and kernel figures k); false: not measured. */
static bool get_val(enum val v, const struct exm_sizes *sz,
		    const struct exm_kpss *k, double *out)
{
	if (v == V_PSS) {
		if (!k || !(k->has & EXM_KPSS_PSS))
			return false;
		*out = (double)k->pss;
		return true;
	}
	if (!(sz->has & vals[v].has))
		return false;
	switch (v) {
	case V_ERSS:
		*out = sz->erss;
		break;
	case V_RSS:
		*out = (double)sz->rss;
		break;
	case V_ESWAP:
		*out = sz->eswap;
		break;
	default:
		*out = (double)sz->sole;
		break;
	}
	return true;
}

static double erss_key(const struct exm_sizes *sz)
{
	return (sz->has & EXM_HAS_ERSS) ? sz->erss : -1.0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct exm_proc *x = *(const struct exm_proc *const *)a;
	const struct exm_proc *y = *(const struct exm_proc *const *)b;
	double ex = erss_key(&x->sz), ey = erss_key(&y->sz);

	if (ex != ey)
		return ex > ey ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void proc_labels(FILE *out, const struct exm_proc *p)
{
	fprintf(out, "{pid=\"%d\",comm=\"", (int)p->pid);
	exm_om_label_value(out, p->comm);
	fputs("\",user=\"", out);
	exm_om_label_value(out, p->user);
	fputs("\"}", out);
}

static int write_procs(FILE *out, const struct exm_snapshot *snap,
		       size_t top)
{
	const struct exm_proc **v = malloc((snap->nprocs + 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nprocs; i++)
		if (snap->procs[i].sz.has & EXM_HAS_ERSS)
			v[n++] = &snap->procs[i];
	qsort(v, n, sizeof(*v), cmp_proc);
	if (n > top)
		n = top;
	for (int k = 0; k < V__COUNT; k++) {
		char name[128], help[160];

		snprintf(name, sizeof(name), "exmtop_process_%s_bytes",
			 vals[k].key);
		snprintf(help, sizeof(help), "Per process (top %zu by "
			 "effective resident): %s.", top, vals[k].help);
		exm_om_family(out, name, "gauge", "bytes", help);
		for (size_t i = 0; i < n; i++) {
			double x;

			if (!get_val(k, &v[i]->sz, &v[i]->kpss, &x))
				continue;
			fputs(name, out);
			proc_labels(out, v[i]);
			fputc(' ', out);
			put_num(out, x);
		}
	}
	free(v);
	return 0;
}

/* ---- groups and files ---- */

static int cmp_row(const void *a, const void *b)
{
	const struct exm_row *x = a, *y = b;
	double ex = erss_key(&x->sz), ey = erss_key(&y->sz);

	if (ex != ey)
		return ex > ey ? -1 : 1;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static int write_groups(FILE *out, const struct exm_snapshot *snap,
			size_t top)
{
	static const enum exm_group_by bys[] = {
		EXM_GROUP_PROGRAM, EXM_GROUP_USER, EXM_GROUP_CGROUP
	};
	struct exm_row *rows[3];
	size_t n[3];
	int r = 0;

	for (int g = 0; g < 3; g++) {
		rows[g] = exm_table_groups(snap, bys[g], NULL, &n[g]);
		if (!rows[g]) {
			while (g--)
				free(rows[g]);
			return -ENOMEM;
		}
		qsort(rows[g], n[g], sizeof(*rows[g]), cmp_row);
		if (n[g] > top)
			n[g] = top;
	}
	exm_om_family(out, "exmtop_group_processes", "gauge", NULL,
		      "Processes per program, user and cgroup (top N by "
		      "effective resident of each grouping).");
	for (int g = 0; g < 3; g++)
		for (size_t i = 0; i < n[g]; i++) {
			fprintf(out, "exmtop_group_processes{by=\"%s\",name=\"",
				exm_group_name(bys[g]));
			exm_om_label_value(out, rows[g][i].name);
			fprintf(out, "\"} %u\n", rows[g][i].nprocs);
		}
	for (int k = 0; k < V__COUNT; k++) {
		char name[128], help[200];

		snprintf(name, sizeof(name), "exmtop_group_%s_bytes",
			 vals[k].key);
		snprintf(help, sizeof(help), "Per program, user and cgroup "
			 "(top N of each): %s.", vals[k].help);
		exm_om_family(out, name, "gauge", "bytes", help);
		for (int g = 0; g < 3; g++)
			for (size_t i = 0; i < n[g]; i++) {
				double x;

				if (!get_val(k, &rows[g][i].sz,
					     &rows[g][i].kpss, &x))
					continue;
				fprintf(out, "%s{by=\"%s\",name=\"", name,
					exm_group_name(bys[g]));
				exm_om_label_value(out, rows[g][i].name);
				fputs("\"} ", out);
				put_num(out, x);
			}
	}
	for (int g = 0; g < 3; g++)
		free(rows[g]);
	return r;
}

static int cmp_file(const void *a, const void *b)
{
	const struct exm_file *x = *(const struct exm_file *const *)a;
	const struct exm_file *y = *(const struct exm_file *const *)b;
	double ex = erss_key(&x->sz), ey = erss_key(&y->sz);

	if (ex != ey)
		return ex > ey ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int write_files(FILE *out, const struct exm_snapshot *snap,
		       size_t top)
{
	const struct exm_file **v = malloc((snap->nfiles + 1) * sizeof(*v));
	size_t n = snap->nfiles;

	if (!v)
		return -ENOMEM;
	memcpy(v, snap->files, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_file);
	if (n > top)
		n = top;
	exm_om_family(out, "exmtop_file_processes", "gauge", NULL,
		      "Processes mapping the file or anonymous kind (top N by "
		      "effective resident).");
	for (size_t i = 0; i < n; i++) {
		fputs("exmtop_file_processes{kind=\"", out);
		fputs(exm_kind_name(v[i]->kind), out);
		fputs("\",file=\"", out);
		exm_om_label_value(out, v[i]->name);
		fprintf(out, "\"} %u\n", v[i]->nprocs);
	}
	for (int k = V_ERSS; k <= V_SOLE; k++) {
		char name[128], help[200];

		snprintf(name, sizeof(name), "exmtop_file_%s_bytes",
			 vals[k].key);
		snprintf(help, sizeof(help), "Per file or anonymous kind "
			 "across processes (top N): %s.", vals[k].help);
		exm_om_family(out, name, "gauge", "bytes", help);
		for (size_t i = 0; i < n; i++) {
			double x;

			if (!get_val(k, &v[i]->sz, NULL, &x))
				continue;
			fprintf(out, "%s{kind=\"%s\",file=\"", name,
				exm_kind_name(v[i]->kind));
			exm_om_label_value(out, v[i]->name);
			fputs("\"} ", out);
			put_num(out, x);
		}
	}
	free(v);
	return 0;
}

static void write_system(FILE *out, const struct exm_sysview *sv)
{
	exm_om_family(out, "exmtop_memory_total_bytes", "gauge", "bytes",
		      "MemTotal from /proc/meminfo.");
	fprintf(out, "exmtop_memory_total_bytes %llu\n",
		(unsigned long long)sv->mem_total);
	exm_om_family(out, "exmtop_system_bytes", "gauge", "bytes",
		      "All of RAM by use; the rows add up to MemTotal "
		      "(unexplained may be negative).");
	for (size_t i = 0; i < sv->nrows; i++)
		fprintf(out, "exmtop_system_bytes{row=\"%s\"} %lld\n",
			sv->rows[i].name, (long long)sv->rows[i].bytes);
}

int exm_om_write(FILE *out, const struct exm_snapshot *snap,
		 const struct exm_om_opts *o)
{
	size_t top = o->top ? o->top : 20;
	int r;

	exm_om_family(out, "exmtop_scan_processes", "gauge", NULL,
		      "Processes scanned.");
	fprintf(out, "exmtop_scan_processes %zu\n", snap->nprocs);
	exm_om_family(out, "exmtop_scan_duration_seconds", "gauge", "seconds",
		      "Time taken by the snapshot.");
	fputs("exmtop_scan_duration_seconds ", out);
	put_num(out, snap->sys.time_taken);
	exm_om_family(out, "exmtop_user_space_bytes", "gauge", "bytes",
		      "Distinct resident pages mapped by scanned processes.");
	fprintf(out, "exmtop_user_space_bytes %llu\n",
		(unsigned long long)(snap->distinct_pages *
				     snap->sys.page_size));
	r = write_procs(out, snap, top);
	if (!r && o->groups)
		r = write_groups(out, snap, top);
	if (!r && o->files)
		r = write_files(out, snap, top);
	if (!r && o->sys)
		write_system(out, o->sys);
	if (!r)
		fputs("# EOF\n", out);
	if (!r && (fflush(out) || ferror(out)))
		r = -EIO;
	return r;
}

int exm_om_write_file(const char *path, const struct exm_snapshot *snap,
		      const struct exm_om_opts *o)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 16);
	FILE *f;
	int fd, r;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len + 16, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		return r;
	}
	r = exm_om_write(f, snap, o);
	if (fchmod(fd, 0644) && !r)
		r = -errno;
	if (fclose(f) && !r)
		r = -EIO;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r)
		unlink(tmp);
	free(tmp);
	return r;
}
