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
	cr_assert_eq(exm_fields_parse("", EXM_T_PROCS, f, TUI_MAX_COLS + 1,
				      err, sizeof(err)),
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
			if (def[i] == EXM_F_ERSS &&
			    s.fields[t][k] == EXM_F_PSS)
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
