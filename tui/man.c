// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * man.c - exmtop's manual page, written by the program itself from the
 * tables: options (opts.c), fields (core/fields.c), keys (keys.c).
 */
#include <stdio.h>
#include <string.h>

#include "core/fields.h"
#include "tui/man.h"
#include "tui/screen/keys.h"
#include "tui/opts.h"
#include "tui/rc.h"

/* Write s escaped for roff: backslashes doubled, a leading dot or quote
 * guarded. */
static void roff(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

static void tables_of(FILE *f, unsigned tables)
{
	bool first = true;

	for (int t = 0; t < EXM_T__COUNT; t++) {
		if (!(tables & EXM_TBIT(t)))
			continue;
		fprintf(f, "%s%s", first ? "" : ", ", exm_tables[t].help);
		first = false;
	}
}

/* OPTIONS, from the option table. */
static void options(FILE *f)
{
	fputs(".SH OPTIONS\n", f);
	for (const struct tui_option *op = tui_options; op->name; op++) {
		char help[512];

		fputs(".TP\n.B ", f);
		if (op->short_name)
			fprintf(f, "\\-%c, ", op->short_name);
		fputs("\\-\\-", f);
		roff(f, op->name);
		if (op->arg) {
			fputs(" \\fI", f);
			roff(f, op->arg);
			fputs("\\fR", f);
		}
		fputs("\n", f);
		roff(f, tui_option_help(op, help, sizeof(help)));
		fputs("\n", f);
	}
}

/* KEYS, from the key table: its help lines joined. */
static void keys(FILE *f)
{
	fputs(".SH KEYS\nIn the live screen:\n", f);
	for (size_t i = 0; i < tui_nkeys; i++) {
		const char *h = tui_keys[i].help;

		fputs(".TP\n.B ", f);
		roff(f, tui_keys[i].names);
		fputs("\n", f);
		while (*h) {
			char part[256];
			size_t n = strcspn(h, "\n");

			snprintf(part, sizeof(part), "%.*s", (int)n, h);
			roff(f, part);
			h += n;
			if (*h) {
				fputs("; ", f);
				h++;
			}
		}
		fputs("\n", f);
	}
}

/* A section of name, help items. */
static void items(FILE *f, const char *section, const struct tui_doc_item *it)
{
	fprintf(f, ".SH %s\n", section);
	for (; it->name; it++) {
		fputs(".TP\n.B ", f);
		roff(f, it->name);
		fputs("\n", f);
		roff(f, it->help);
		fputs("\n", f);
	}
}

void tui_print_man(FILE *f)
{
	char letters[512];

	fputs(".TH EXMTOP 1 \"\" \"exmtop " PACKAGE_VERSION
	      "\" \"User Commands\"\n"
	      ".SH NAME\n"
	      "exmtop \\- what each process really costs in memory\n"
	      ".SH SYNOPSIS\n"
	      ".B exmtop\n[\\fIoptions\\fR]\n"
	      ".SH DESCRIPTION\n"
	      "Most pages of a Linux system are shared: libraries, fork "
	      "copy\\-on\\-write, shared memory. exmtop divides the cost of "
	      "each physical page among the processes that map it "
	      "(\\fIeffective resident\\fR), shows it live like top, and "
	      "drills from a process into its files, from a library into its "
	      "ELF sections and symbols.\n"
	      ".PP\nAs root it reads /proc/PID/pagemap (page identity, exact "
	      "sharing); otherwise it falls back to the kernel's per\\-mapping "
	      "figures from /proc/PID/smaps.\n",
	      f);
	options(f);
	fputs(".SH FIELDS\n"
	      "Keys are stable: they name columns in \\-o, \\-\\-fields, CSV "
	      "headers, JSON and the settings file. \\-\\-list\\-fields "
	      "prints each key, its title and the letters of the tables it "
	      "is a column of: ",
	      f);
	tui_table_letters(letters, sizeof(letters));
	roff(f, letters);
	fputs(".\n", f);
	for (int i = 0; i < EXM_F__COUNT; i++) {
		const struct exm_field *fl = &exm_fields[i];

		fputs(".TP\n.B ", f);
		roff(f, fl->key);
		fputs("\n", f);
		roff(f, fl->help);
		fprintf(f, " (column %s; in ", fl->title);
		tables_of(f, fl->tables);
		fputs(")\n", f);
	}
	keys(f);
	items(f, "ENVIRONMENT", tui_environ);
	items(f, "EXIT STATUS", tui_exits);
	items(f, "EXAMPLES", tui_examples);
	fputs(".SH FILES\n~/.config/exmtop/exmtoprc: settings saved from the "
	      "live screen (key W), lines KEY = VALUE:\n",
	      f);
	for (const struct tui_setting *st = tui_settings_table; st->key; st++) {
		char name[64], line[512];

		tui_setting_doc(st, name, sizeof(name), line, sizeof(line));
		fputs(".TP\n.B ", f);
		roff(f, name);
		fputs("\n", f);
		roff(f, line);
		fputs("\n", f);
	}
	fputs(".SH SEE ALSO\n.BR top (1),\n.BR smem (8),\n.BR pmap (1),\n"
	      ".BR proc (5)\n",
	      f);
}
