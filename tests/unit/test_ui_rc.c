// SPDX-License-Identifier: GPL-2.0-or-later
/* Settings: field lists, the exmtoprc file. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/rc.h"

Test(ui_rc, fields_parse)
{
	int f[TUI_MAX_COLS + 1];
	char err[128], buf[256];

	cr_assert_eq(exm_fields_parse("pid,erss,cmd", EXM_T_PROCS, f,
				      TUI_MAX_COLS + 1, err, sizeof(err)),
		     0);
	cr_assert_eq(f[0], EXM_F_PID);
	cr_assert_eq(f[1], EXM_F_ERSS);
	cr_assert_eq(f[2], EXM_F_CMD);
	cr_assert_eq(f[3], -1);
	tui_fields_format(f, buf, sizeof(buf));
	cr_assert_str_eq(buf, "pid,erss,cmd");

	cr_assert_eq(exm_fields_parse("pid,bogus", EXM_T_PROCS, f,
				      TUI_MAX_COLS + 1, err, sizeof(err)),
		     -EINVAL);
	cr_assert_str_eq(err, "unknown field 'bogus'");
	cr_assert_eq(exm_fields_parse("file", EXM_T_PROCS, f, TUI_MAX_COLS + 1,
				      err, sizeof(err)),
		     -EINVAL);
	cr_assert_str_eq(err, "field 'file' does not apply to processes");
	cr_assert_eq(exm_fields_parse("", EXM_T_PROCS, f, TUI_MAX_COLS + 1, err,
				      sizeof(err)),
		     -EINVAL);
	cr_assert_eq(exm_fields_parse("pid,,erss", EXM_T_PROCS, f,
				      TUI_MAX_COLS + 1, err, sizeof(err)),
		     -EINVAL);
	cr_assert_eq(exm_fields_parse("pid,erss", EXM_T_PROCS, f, 2, err,
				      sizeof(err)),
		     -EINVAL); /* no room */
}

Test(ui_rc, defaults_come_from_the_field_table)
{
	struct tui_settings s;

	tui_settings_init(&s);
	cr_assert_float_eq(s.delay, 2.0, 1e-9);
	for (int t = 0; t < EXM_T__COUNT; t++) {
		const int *def = exm_table_default_fields(t);
		size_t i = 0, k = 0;

		/* the same columns in the same order, except that pss
		 * follows erss */
		for (; def[i] >= 0; i++) {
			if (def[i] == EXM_F_PSS)
				continue;
			cr_assert_eq(s.fields[t][k], def[i]);
			k++;
			if (def[i] == EXM_F_ERSS && s.fields[t][k] == EXM_F_PSS)
				k++;
		}
		cr_assert_eq(tui_fields_count(s.fields[t]),
			     tui_fields_count(def));
		cr_assert_eq(s.sort[t], -1);
	}
	/* the processes pane shows PSS right after EFF.RES */
	for (size_t i = 0; s.fields[EXM_T_PROCS][i] >= 0; i++)
		if (s.fields[EXM_T_PROCS][i] == EXM_F_ERSS)
			cr_assert_eq(s.fields[EXM_T_PROCS][i + 1], EXM_F_PSS);
}

static char dir[64];

static void mkdir_tmp(void)
{
	strcpy(dir, "/tmp/exmtop-rc-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void rm_tmp(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(ui_rc, save_and_load_round_trip, .init = mkdir_tmp, .fini = rm_tmp)
{
	struct tui_settings s, t;
	char path[256], warn[256];

	snprintf(path, sizeof(path), "%s/a/b/exmtoprc", dir);
	tui_settings_init(&s);
	s.delay = 0.5;
	s.group_by = EXM_GROUP_CGROUP;
	s.full_cmd = true;
	s.exact_bytes = true;
	s.sort[EXM_T_FILES] = EXM_F_NPROCS;
	s.sort_desc[EXM_T_FILES] = true;
	s.sort[EXM_T_PROCS] = EXM_F_PID;
	s.sort_desc[EXM_T_PROCS] = false;
	s.fields[EXM_T_PROCS][0] = EXM_F_PID;
	s.fields[EXM_T_PROCS][1] = EXM_F_PSS;
	s.fields[EXM_T_PROCS][2] = -1;
	cr_assert_eq(tui_settings_save(&s, path), 0);

	tui_settings_init(&t);
	cr_assert_eq(tui_settings_load(&t, path, warn, sizeof(warn)), 0);
	cr_assert_str_eq(warn, "");
	cr_assert_float_eq(t.delay, 0.5, 1e-9);
	cr_assert_eq(t.group_by, EXM_GROUP_CGROUP);
	cr_assert(t.full_cmd);
	cr_assert(t.exact_bytes);
	cr_assert_eq(t.sort[EXM_T_FILES], EXM_F_NPROCS);
	cr_assert(t.sort_desc[EXM_T_FILES]);
	cr_assert_eq(t.sort[EXM_T_PROCS], EXM_F_PID);
	cr_assert_not(t.sort_desc[EXM_T_PROCS]);
	cr_assert_eq(t.sort[EXM_T_MAPPINGS], -1);
	for (int k = 0; k < EXM_T__COUNT; k++)
		for (size_t i = 0; i == 0 || s.fields[k][i - 1] >= 0; i++)
			cr_assert_eq(t.fields[k][i], s.fields[k][i]);
}

Test(ui_rc, bad_lines_are_skipped, .init = mkdir_tmp, .fini = rm_tmp)
{
	struct tui_settings s;
	char path[256], warn[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/exmtoprc", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("# comment\n\nfrobnicate = 1\ndelay = 5\n"
	      "fields.procs = pid,nope\ngroup = user\n"
	      "sort.procs = -file\nnonsense\n  full_cmd = yes  \n",
	      f);
	fclose(f);
	tui_settings_init(&s);
	cr_assert_eq(tui_settings_load(&s, path, warn, sizeof(warn)), 0);
	cr_assert(strstr(warn, ":3: unknown key"), "%s", warn);
	cr_assert_float_eq(s.delay, 5.0, 1e-9);
	cr_assert_eq(s.group_by, EXM_GROUP_USER);
	cr_assert(s.full_cmd);
	/* the bad field list and sort left the defaults alone */
	cr_assert_eq(s.fields[EXM_T_PROCS][0],
		     exm_table_default_fields(EXM_T_PROCS)[0]);
	cr_assert_eq(s.sort[EXM_T_PROCS], -1);
	cr_assert_eq(tui_settings_load(&s, "/nonexistent/exmtoprc", NULL, 0),
		     -ENOENT);
}

Test(ui_rc, path_from_environment)
{
	char p[256];

	setenv("XDG_CONFIG_HOME", "/x/cfg", 1);
	setenv("HOME", "/home/u", 1);
	cr_assert_eq(tui_settings_path(p, sizeof(p)), 0);
	cr_assert_str_eq(p, "/x/cfg/exmtop/exmtoprc");
	unsetenv("XDG_CONFIG_HOME");
	cr_assert_eq(tui_settings_path(p, sizeof(p)), 0);
	cr_assert_str_eq(p, "/home/u/.config/exmtop/exmtoprc");
	unsetenv("HOME");
	cr_assert_eq(tui_settings_path(p, sizeof(p)), -ENOENT);
}

/* Values of setting st (of table t) for the table-driven tests: the valid
 * ones (at the ends of a range too) into ok, the refused into bad;
 * NULL-terminated. A new type fails here until it has its samples. */
static void samples(const struct tui_setting *st, int t, char ok[][64],
		    char bad[][64])
{
	int k = 0, j = 0;
	const int *def = exm_table_default_fields(t < 0 ? 0 : t);

	switch (st->type) {
	case TUI_SET_SECONDS:
		snprintf(ok[k++], 64, "%g", st->min);
		snprintf(ok[k++], 64, "%g", st->max);
		snprintf(ok[k++], 64, "%.2f", st->max - 0.05);
		snprintf(ok[k++], 64, "%.3f", (st->min + st->max) / 7);
		/* below the range (a range from 0: below 0) */
		snprintf(bad[j++], 64, "%g",
			 st->min > 0 ? st->min / 2 : st->min - 0.5);
		snprintf(bad[j++], 64, "%.1f", st->max + 0.1);
		snprintf(bad[j++], 64, "1e1");
		snprintf(bad[j++], 64, "-1");
		break;
	case TUI_SET_BOOL:
		snprintf(ok[k++], 64, "1");
		snprintf(ok[k++], 64, "0");
		snprintf(bad[j++], 64, "2");
		break;
	case TUI_SET_GROUP:
		for (int g = 0; g < EXM_GROUP__COUNT; g++)
			snprintf(ok[k++], 64, "%s", exm_group_name(g));
		snprintf(bad[j++], 64, "nope");
		break;
	case TUI_SET_FIELDS:
		snprintf(ok[k++], 64, "%s,%s", exm_fields[def[0]].key,
			 exm_fields[def[1]].key);
		snprintf(bad[j++], 64, "%s,nope", exm_fields[def[0]].key);
		break;
	case TUI_SET_SORT:
		snprintf(ok[k++], 64, "+%s", exm_fields[def[0]].key);
		snprintf(ok[k++], 64, "-%s", exm_fields[def[1]].key);
		snprintf(bad[j++], 64, "+nope");
		break;
	default:
		cr_assert_fail("setting %s: a type without samples", st->key);
	}
	ok[k][0] = bad[j][0] = 0;
	bad[j + 1][0] = 0;
}

/* Whether a and b hold the same value of every setting, as the file
 * writes them. */
static bool same(const struct tui_settings *a, const struct tui_settings *b)
{
	for (const struct tui_setting *st = tui_settings_table; st->key; st++)
		for (int t = st->per_table ? 0 : -1;
		     t < (st->per_table ? EXM_T__COUNT : 0); t++) {
			char x[1024] = "", y[1024] = "";

			if (tui_setting_format(st, t, a, x, sizeof(x)) !=
				    tui_setting_format(st, t, b, y,
						       sizeof(y)) ||
			    strcmp(x, y))
				return false;
		}
	return true;
}

/* Every setting of the table, at the ends of its range: what its parser
 * takes is written by the file (W) and read back the same with no
 * warning; what it refuses, the file refuses too (a warning naming the
 * key, the value left alone), with the same words. */
Test(ui_rc, every_setting_round_trips, .init = mkdir_tmp, .fini = rm_tmp)
{
	char path[256], warn[512];
	int n = 0;

	snprintf(path, sizeof(path), "%s/exmtoprc", dir);
	for (const struct tui_setting *st = tui_settings_table; st->key; st++)
		for (int t = st->per_table ? 0 : -1;
		     t < (st->per_table ? EXM_T__COUNT : 0); t++) {
			char ok[16][64], bad[16][64], name[64], a[1024],
				b[1024], why[256];

			snprintf(name, sizeof(name), "%s%s%s", st->key,
				 t < 0 ? "" : ".",
				 t < 0 ? "" : exm_tables[t].key);
			samples(st, t, ok, bad);
			for (int i = 0; ok[i][0]; i++, n++) {
				struct tui_settings s, r;
				int tt;

				cr_assert_eq(tui_setting_find(name, &tt), st);
				cr_assert_eq(tt, t);
				tui_settings_init(&s);
				cr_assert_eq(tui_setting_parse(st, t, &s, ok[i],
							       why,
							       sizeof(why)),
					     0, "%s = %s: %s", name, ok[i],
					     why);
				cr_assert_eq(tui_settings_save(&s, path), 0);
				tui_settings_init(&r);
				cr_assert_eq(tui_settings_load(&r, path, warn,
							       sizeof(warn)),
					     0);
				cr_assert_str_eq(warn, "", "%s = %s: %s", name,
						 ok[i], warn);
				cr_assert(tui_setting_format(st, t, &s, a,
							     sizeof(a)));
				cr_assert(tui_setting_format(st, t, &r, b,
							     sizeof(b)));
				cr_assert_str_eq(a, b, "%s = %s", name, ok[i]);
				cr_assert(same(&s, &r),
					  "%s = %s: read back "
					  "other",
					  name, ok[i]);
			}
			for (int i = 0; bad[i][0]; i++, n++) {
				struct tui_settings s, r;
				FILE *f;

				tui_settings_init(&s);
				cr_assert_eq(tui_setting_parse(st, t, &s,
							       bad[i], why,
							       sizeof(why)),
					     -EINVAL, "%s = %s taken", name,
					     bad[i]);
				f = fopen(path, "w");
				cr_assert_not_null(f);
				fprintf(f, "%s = %s\n", name, bad[i]);
				fclose(f);
				tui_settings_init(&r);
				tui_settings_load(&r, path, warn, sizeof(warn));
				cr_assert(strstr(warn, name) &&
						  strstr(warn, why),
					  "%s = %s: %s (%s)", name, bad[i],
					  warn, why);
				cr_assert(same(&s, &r), "%s = %s: changed",
					  name, bad[i]);
			}
		}
	cr_assert_gt(n, 40, "%d values", n);
}
