// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * man.c - exmtop's manual page, written by the program itself so that its
 * column list always comes from the one field table (core/fields.c).
 */
#include <stdio.h>
#include <string.h>

#include "core/fields.h"
#include "tui/man.h"
#include "tui/ui.h"

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
		static const char *const names[EXM_T__COUNT] = {
			[EXM_T_PROCS] = "processes",
			[EXM_T_FILES] = "files",
			[EXM_T_PFILES] = "files of a process",
			[EXM_T_FPROCS] = "processes of a file",
			[EXM_T_MAPPINGS] = "mappings",
			[EXM_T_SECTIONS] = "sections",
			[EXM_T_SYMBOLS] = "symbols",
			[EXM_T_GROUPS] = "groups",
		};

		if (!(tables & EXM_TBIT(t)))
			continue;
		fprintf(f, "%s%s", first ? "" : ", ", names[t]);
		first = false;
	}
}

/*
 * The live screen's keys, from the help screen's own text: a line that
 * starts with a space names keys in its first 28 columns and says what they
 * do after them; a line of spaces before column 28 continues the one above.
 */
static void keys(FILE *f)
{
	size_t n;
	const char *const *lines = tui_help_text(&n);
	bool open = false;

	fputs(".SH KEYS\nIn the live screen:\n", f);
	for (size_t i = 0; i < n; i++) {
		const char *l = lines[i], *what;
		size_t len = strlen(l), klen;

		if (len <= 29 || l[0] != ' ')
			continue;
		what = l + 29;
		while (*what == ' ')
			what++;
		klen = strspn(l, " ") >= 29 ? 0 : 28;
		if (klen) {
			char key[32];
			size_t k = 1, e = klen;

			while (e > k && l[e - 1] == ' ')
				e--;
			snprintf(key, sizeof(key), "%.*s", (int)(e - k), l + k);
			fputs(".TP\n.B ", f);
			roff(f, key);
			fputs("\n", f);
			open = true;
		} else if (!open) {
			continue;
		} else {
			fputs(" ", f);
		}
		/* a run of spaces inside the text separates two notes */
		for (const char *w = what; *w;) {
			size_t sp = strspn(w, " "), run = strcspn(w + sp, " ");
			char word[128];

			if (sp > 1)
				fputs(";", f);
			if (sp)
				fputs(" ", f);
			snprintf(word, sizeof(word), "%.*s", (int)run, w + sp);
			roff(f, word);
			w += sp + run;
		}
		if (i + 1 < n && strspn(lines[i + 1], " ") < 29)
			fputs("\n", f);
	}
	if (open)
		fputs("\n", f);
}

void tui_print_man(FILE *f)
{
	fputs(".TH EXMTOP 1 \"\" \"exmtop " PACKAGE_VERSION "\" \"User Commands\"\n"
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
	      "figures from /proc/PID/smaps.\n"
	      ".SH OPTIONS\n"
	      ".TP\n.B \\-b, \\-\\-batch\nPrint and exit instead of the live "
	      "screen.\n"
	      ".TP\n.BI \\-n \" N\"\nNumber of snapshots.\n"
	      ".TP\n.BI \\-d \" SECS\"\nSeconds between snapshots (2).\n"
	      ".TP\n.BI \\-o \" KEY\"\nSort by field KEY; \\-KEY sorts "
	      "ascending.\n"
	      ".TP\n.BI \\-p \" PID,...\"\nOnly these processes.\n"
	      ".TP\n.BI \\-u \" USER\"\nOnly processes of USER.\n"
	      ".TP\n.B \\-c\nFull command lines.\n"
	      ".TP\n.B \\-\\-files\nList files and anonymous kinds instead "
	      "of processes.\n"
	      ".TP\n.BI \\-\\-format \" text|csv|json\"\nBatch output format. "
	      "JSON sizes are bytes; a size that could not be measured is "
	      "null.\n"
	      ".TP\n.B \\-\\-bytes\nExact byte counts.\n"
	      ".TP\n.BI \\-\\-fields \" KEY,...\"\nColumns to show.\n"
	      ".TP\n.BI \\-\\-sections \" FILE\"\nELF sections of a mapped "
	      "file.\n"
	      ".TP\n.BI \\-\\-symbols \" FILE:SECTION\"\nSymbols of a section.\n"
	      ".TP\n.BI \\-\\-source \" NAME\"\nauto, pagemap, smaps or "
	      "fixture:NAME.\n"
	      ".TP\n.BI \\-\\-pagemap\\-mode \" auto|scan|read\"\n"
	      "PAGEMAP_SCAN ioctl (Linux 6.7+) or plain reads.\n"
	      ".TP\n.B \\-\\-include\\-self\nAlso scan exmtop itself.\n"
	      ".TP\n.B \\-\\-no\\-color\nNo colours (also NO_COLOR).\n"
	      ".TP\n.B \\-\\-list\\-fields\nList the field keys.\n"
	      ".SH FIELDS\n"
	      "Keys are stable: they name columns in \\-o, \\-\\-fields, CSV "
	      "headers, JSON and the settings file.\n",
	      f);
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
	fputs(".SH EXIT STATUS\n0 on success, 1 when a snapshot fails, 2 for "
	      "bad options or values.\n"
	      ".SH FILES\n~/.config/exmtop/exmtoprc: settings saved from the "
	      "live screen.\n"
	      ".SH SEE ALSO\n.BR top (1),\n.BR smem (8),\n.BR pmap (1),\n"
	      ".BR proc (5)\n",
	      f);
}
