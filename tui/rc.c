// SPDX-License-Identifier: GPL-2.0-or-later
/* rc.c - settings and the exmtoprc file (no curses). */
#include "tui/rc.h"

#include "core/format.h"
#include "core/outfile.h"

#include <errno.h>
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

static bool parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true"))
		*out = true;
	else if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false"))
		*out = false;
	else
		return false;
	return true;
}

/* Apply one "key = value"; false with *why set when it is bad. */
static bool apply(struct tui_settings *s, const char *key, const char *val,
		  char *why, size_t whylen)
{
	int t, f;

	if (!strcmp(key, "delay")) {
		double d;

		if (!exm_parse_decimal(val, true, &d) ||
		    !(d >= 0.1 && d <= 3600))
			return snprintf(why, whylen, "bad delay"), false;
		s->delay = d;
		return true;
	}
	if (!strcmp(key, "group")) {
		int g = exm_group_by_name(val);

		if (g < 0)
			return snprintf(why, whylen, "bad group"), false;
		s->group_by = (enum exm_group_by)g;
		return true;
	}
	if (!strcmp(key, "full_cmd"))
		return parse_bool(val, &s->full_cmd) ||
		       (snprintf(why, whylen, "bad full_cmd"), false);
	if (!strcmp(key, "bytes"))
		return parse_bool(val, &s->exact_bytes) ||
		       (snprintf(why, whylen, "bad bytes"), false);
	if (!strncmp(key, "fields.", 7) && (t = exm_table_by_key(key + 7)) >= 0) {
		int tmp[TUI_MAX_COLS + 1];

		if (exm_fields_parse(val, t, tmp, TUI_MAX_COLS + 1, why,
				     whylen))
			return false;
		memcpy(s->fields[t], tmp, sizeof(tmp));
		return true;
	}
	if (!strncmp(key, "sort.", 5) && (t = exm_table_by_key(key + 5)) >= 0) {
		bool desc;

		if (exm_sort_parse(val, t, &f, &desc, why, whylen))
			return false;
		s->sort[t] = f;
		s->sort_desc[t] = desc;
		return true;
	}
	snprintf(why, whylen, "unknown key");
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
	fprintf(fp, "delay = %g\n", s->delay);
	fprintf(fp, "group = %s\n", exm_group_name(s->group_by));
	fprintf(fp, "full_cmd = %d\n", s->full_cmd);
	fprintf(fp, "bytes = %d\n", s->exact_bytes);
	for (int t = 0; t < EXM_T__COUNT; t++) {
		tui_fields_format(s->fields[t], list, sizeof(list));
		if (*list)
			fprintf(fp, "fields.%s = %s\n", exm_tables[t].key, list);
		if (s->sort[t] >= 0) {
			exm_sort_format(s->sort[t], s->sort_desc[t], list,
					sizeof(list));
			fprintf(fp, "sort.%s = %s\n", exm_tables[t].key, list);
		}
	}
	err = exm_outfile_end(&of, true);
	exm_outfile_fini(&of);
	return err;
}
