// SPDX-License-Identifier: GPL-2.0-or-later
/* rc.c - settings and the exmtoprc file (no curses). */
#include "tui/rc.h"

#include "core/format.h"
#include "core/outfile.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void copy_fields(int *dst, const int *src)
{
	size_t i = 0;

	for (; src && src[i] >= 0 && i < TUI_MAX_COLS; i++)
		dst[i] = src[i];
	dst[i] = -1;
}

/* Move field f to just after field after, when both are in the list. */
static void move_after(int *fields, int f, int after)
{
	size_t n = tui_fields_count(fields), from = n, to = n;

	for (size_t i = 0; i < n; i++) {
		if (fields[i] == f)
			from = i;
		if (fields[i] == after)
			to = i;
	}
	if (from == n || to == n || from == to + 1)
		return;
	if (from > to) {
		memmove(fields + to + 2, fields + to + 1,
			(from - to - 1) * sizeof(*fields));
		fields[to + 1] = f;
	} else {
		memmove(fields + from, fields + from + 1,
			(to - from) * sizeof(*fields));
		fields[to] = f;
	}
}

void tui_settings_init(struct tui_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->delay = 2.0;
	s->full_walk = 30.0;
	s->group_by = EXM_GROUP_NONE;
	for (int t = 0; t < EXM_T__COUNT; t++) {
		copy_fields(s->fields[t], exm_table_default_fields(t));
		/* on screen the kernel's Pss stands beside our effective
		 * resident, so both survive a narrow terminal */
		move_after(s->fields[t], EXM_F_PSS, EXM_F_ERSS);
		s->sort[t] = -1;
	}
}

size_t tui_fields_count(const int *fields)
{
	size_t n = 0;

	while (fields[n] >= 0)
		n++;
	return n;
}

void tui_fields_format(const int *fields, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (size_t i = 0; fields[i] >= 0 && used + 1 < len; i++) {
		int k = snprintf(buf + used, len - used, "%s%s", i ? "," : "",
				 exm_fields[fields[i]].key);

		if (k < 0)
			break;
		used += (size_t)k;
	}
}

int tui_settings_path(char *buf, size_t len)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	int k;

	if (x && *x == '/')
		k = snprintf(buf, len, "%s/exmtop/exmtoprc", x);
	else if (h && *h)
		k = snprintf(buf, len, "%s/.config/exmtop/exmtoprc", h);
	else
		return -ENOENT;
	return k < 0 || (size_t)k >= len ? -ENAMETOOLONG : 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = 0;
	return s;
}

#define MEMBER(m) offsetof(struct tui_settings, m)

const struct tui_setting tui_settings_table[] = {
	{ .key = "delay",
	  .type = TUI_SET_SECONDS,
	  .min = 0.1,
	  .max = 86400,
	  .off = MEMBER(delay),
	  .option = "-d, key d",
	  .help = "between snapshots" },
	{ .key = "full_walk",
	  .type = TUI_SET_SECONDS,
	  .min = 0,
	  .max = 86400,
	  .off = MEMBER(full_walk),
	  .option = "--full-walk",
	  .help = "every process read again at least this often; between, "
		  "only those that changed (pagemap, kmod; 0: always)" },
	{ .key = "group",
	  .type = TUI_SET_GROUP,
	  .off = MEMBER(group_by),
	  .option = "--group, key g",
	  .help = "grouping of the processes pane" },
	{ .key = "full_cmd",
	  .type = TUI_SET_BOOL,
	  .off = MEMBER(full_cmd),
	  .option = "-c, key c",
	  .help = "full command lines" },
	{ .key = "bytes",
	  .type = TUI_SET_BOOL,
	  .off = MEMBER(exact_bytes),
	  .option = "--bytes, key b",
	  .help = "exact byte counts" },
	{ .key = "fields",
	  .type = TUI_SET_FIELDS,
	  .per_table = true,
	  .option = "--fields, key f",
	  .help = "the columns of a table (TABLE: procs, files, ...)" },
	{ .key = "sort",
	  .type = TUI_SET_SORT,
	  .per_table = true,
	  .option = "-o, keys < >",
	  .help = "the sort of a table" },
	{ .key = NULL },
};

const struct tui_setting *tui_setting_find(const char *key, int *t)
{
	if (t)
		*t = -1;
	for (const struct tui_setting *st = tui_settings_table; st->key; st++) {
		size_t n = strlen(st->key);

		if (strncmp(key, st->key, n))
			continue;
		if (!key[n] && (!st->per_table || !t))
			return st;
		if (st->per_table && t && key[n] == '.' &&
		    (*t = exm_table_by_key(key + n + 1)) >= 0)
			return st;
		if (t)
			*t = -1;
	}
	return NULL;
}

void tui_setting_expects(const struct tui_setting *st, char *buf, size_t len)
{
	size_t used;

	switch (st->type) {
	case TUI_SET_SECONDS:
		snprintf(buf, len, "seconds, %g to %g", st->min, st->max);
		break;
	case TUI_SET_BOOL:
		snprintf(buf, len, "1 or 0");
		break;
	case TUI_SET_GROUP:
		used = (size_t)snprintf(buf, len, "one of");
		for (int g = 0; g < EXM_GROUP__COUNT && used < len; g++)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s %s", g ? "," : "",
						 exm_group_name(g));
		break;
	case TUI_SET_FIELDS:
		snprintf(buf, len, "field keys, KEY,KEY,...");
		break;
	case TUI_SET_SORT:
		snprintf(buf, len, "a field key, as -o");
		break;
	}
}

void tui_setting_doc(const struct tui_setting *st, char *name, size_t namelen,
		     char *line, size_t linelen)
{
	char e[128];

	tui_setting_expects(st, e, sizeof(e));
	snprintf(name, namelen, "%s%s", st->key, st->per_table ? ".TABLE" : "");
	snprintf(line, linelen, "%s: %s (also %s)", st->help, e, st->option);
}

static int expected(const struct tui_setting *st, char *why, size_t whylen)
{
	char e[128];

	tui_setting_expects(st, e, sizeof(e));
	snprintf(why, whylen, "expected %s", e);
	return -EINVAL;
}

int tui_setting_parse(const struct tui_setting *st, int t,
		      struct tui_settings *s, const char *val, char *why,
		      size_t whylen)
{
	char *m = (char *)s + st->off;
	double d;
	int f;
	bool desc;

	switch (st->type) {
	case TUI_SET_SECONDS:
		if (!exm_parse_decimal(val, true, &d) || !(d >= st->min) ||
		    !(d <= st->max))
			return expected(st, why, whylen);
		memcpy(m, &d, sizeof(d));
		return 0;
	case TUI_SET_BOOL:
		if (!strcmp(val, "1") || !strcmp(val, "yes") ||
		    !strcmp(val, "true"))
			*(bool *)(void *)m = true;
		else if (!strcmp(val, "0") || !strcmp(val, "no") ||
			 !strcmp(val, "false"))
			*(bool *)(void *)m = false;
		else
			return expected(st, why, whylen);
		return 0;
	case TUI_SET_GROUP:
		f = exm_group_by_name(val);
		if (f < 0)
			return expected(st, why, whylen);
		*(enum exm_group_by *)(void *)m = (enum exm_group_by)f;
		return 0;
	case TUI_SET_FIELDS: {
		int tmp[TUI_MAX_COLS + 1];

		if (exm_fields_parse(val, t, tmp, TUI_MAX_COLS + 1, why,
				     whylen))
			return -EINVAL;
		memcpy(s->fields[t], tmp, sizeof(tmp));
		return 0;
	}
	case TUI_SET_SORT:
		if (exm_sort_parse(val, t, &f, &desc, why, whylen))
			return -EINVAL;
		s->sort[t] = f;
		s->sort_desc[t] = desc;
		return 0;
	}
	return expected(st, why, whylen);
}

/* The fewest decimals that read back as d. */
static void fmt_seconds(char *buf, size_t len, double d)
{
	for (int dec = 0; dec < 17; dec++) {
		snprintf(buf, len, "%.*f", dec, d);
		if (strtod(buf, NULL) == d)
			return;
	}
}

bool tui_setting_format(const struct tui_setting *st, int t,
			const struct tui_settings *s, char *buf, size_t len)
{
	const char *m = (const char *)s + st->off;
	double d;

	switch (st->type) {
	case TUI_SET_SECONDS:
		memcpy(&d, m, sizeof(d));
		fmt_seconds(buf, len, d);
		return true;
	case TUI_SET_BOOL:
		snprintf(buf, len, "%d", *(const bool *)(const void *)m);
		return true;
	case TUI_SET_GROUP:
		snprintf(buf, len, "%s",
			 exm_group_name(
				 *(const enum exm_group_by *)(const void *)m));
		return true;
	case TUI_SET_FIELDS:
		tui_fields_format(s->fields[t], buf, len);
		return *buf;
	case TUI_SET_SORT:
		if (s->sort[t] < 0)
			return false;
		exm_sort_format(s->sort[t], s->sort_desc[t], buf, len);
		return true;
	}
	return false;
}

/* Apply one "key = value"; false with *why set when it is bad. */
static bool apply(struct tui_settings *s, const char *key, const char *val,
		  char *why, size_t whylen)
{
	int t;
	const struct tui_setting *st = tui_setting_find(key, &t);
	char e[128];

	if (!st) {
		snprintf(why, whylen, "unknown key");
		return false;
	}
	if (!tui_setting_parse(st, t, s, val, e, sizeof(e)))
		return true;
	snprintf(why, whylen, "bad %.32s: %.80s", key, e);
	return false;
}

int tui_settings_load(struct tui_settings *s, const char *path, char *warn,
		      size_t warnlen)
{
	FILE *fp = fopen(path, "re");
	char line[1024];
	unsigned lineno = 0;
	bool warned = false;

	if (warn && warnlen)
		warn[0] = 0;
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		char *k = trim(line), *eq, why[128] = "";

		lineno++;
		if (!*k || *k == '#')
			continue;
		eq = strchr(k, '=');
		if (eq) {
			*eq = 0;
			if (apply(s, trim(k), trim(eq + 1), why, sizeof(why)))
				continue;
		} else {
			snprintf(why, sizeof(why), "no '='");
		}
		if (!warned && warn && warnlen) {
			snprintf(warn, warnlen, "%s:%u: %s (ignored)", path,
				 lineno, why);
			warned = true;
		}
	}
	fclose(fp);
	return 0;
}

static int mkdir_parents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			int e = errno;

			*p = '/';
			return -e;
		}
		*p = '/';
	}
	return 0;
}

int tui_settings_save(const struct tui_settings *s, const char *path)
{
	char tmp[4096], list[1024];
	struct exm_outfile of;
	FILE *fp;
	int err;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	err = mkdir_parents(tmp);
	if (err)
		return err;
	exm_outfile_init(&of, path, 0644);
	fp = exm_outfile_begin(&of);
	if (!fp)
		return -of.err;
	fprintf(fp, "# exmtop settings, written by exmtop (key W)\n");
	for (const struct tui_setting *st = tui_settings_table; st->key; st++)
		for (int t = st->per_table ? 0 : -1;
		     t < (st->per_table ? EXM_T__COUNT : 0); t++)
			if (tui_setting_format(st, t, s, list, sizeof(list)))
				fprintf(fp, "%s%s%s = %s\n", st->key,
					t < 0 ? "" : ".",
					t < 0 ? "" : exm_tables[t].key, list);
	err = exm_outfile_end(&of, true);
	exm_outfile_fini(&of);
	return err;
}
