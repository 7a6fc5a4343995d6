// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * completion.c - `exmtop --completion bash`: a bash completion script
 * written from the option table (opts.c), so that every option, and the
 * values of those that name what they take (.complete), complete without
 * a second list to keep in step. The package installs its output as
 * $(datadir)/bash-completion/completions/exmtop.
 */
#include <stdio.h>

#include "core/fields.h"
#include "core/source.h"
#include "tui/batch/batch.h"
#include "tui/completion.h"
#include "tui/opts.h"

/* An option's names as a case pattern: "-o|--sort". */
static void names_of(FILE *f, const struct tui_option *op)
{
	if (op->short_name)
		fprintf(f, "-%c|", op->short_name);
	fprintf(f, "--%s", op->name);
}

/* Open a case branch for the options taking a value of kind c
 * ("-o|--sort)"); false, printing nothing, when no option does. */
static bool branch(FILE *f, enum tui_complete c)
{
	bool any = false;

	for (const struct tui_option *op = tui_options; op->name; op++) {
		if (!op->arg || op->complete != c)
			continue;
		fputs(any ? "|" : "\t", f);
		names_of(f, op);
		any = true;
	}
	if (any)
		fputs(")\n", f);
	return any;
}

/* The body of a branch offering the NULL-terminated words w. */
static void words_body(FILE *f, const char *const *w)
{
	fputs("\t\tCOMPREPLY=($(compgen -W \"", f);
	for (const char *const *p = w; *p; p++)
		fprintf(f, "%s%s", p == w ? "" : " ", *p);
	fputs("\" -- \"$cur\"))\n\t\treturn ;;\n", f);
}

/* One branch per TUI_COMP_WORDS option: its own words. */
static void word_branches(FILE *f)
{
	for (const struct tui_option *op = tui_options; op->name; op++) {
		const char *const *w = op->knob ? op->knob->words : op->words;

		if (!op->arg || op->complete != TUI_COMP_WORDS || !w)
			continue;
		fputs("\t", f);
		names_of(f, op);
		fputs(")\n", f);
		words_body(f, w);
	}
}

/* The kinds completed by a fixed piece of shell. */
static const struct {
	enum tui_complete kind;
	const char *body;
} shell_kinds[] = {
	/* free text: offer nothing rather than the options */
	{ TUI_COMP_NONE, "" },
	{ TUI_COMP_FILE, "\t\tcompopt -o filenames 2>/dev/null\n"
			 "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n" },
	{ TUI_COMP_DIR, "\t\tcompopt -o filenames 2>/dev/null\n"
			"\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n" },
	{ TUI_COMP_USER, "\t\tCOMPREPLY=($(compgen -u -- \"$cur\"))\n" },
	/* -o KEY, -o -KEY, -o +KEY */
	{ TUI_COMP_KEY, "\t\tlocal sign=\n"
			"\t\tcase $cur in [-+]*) sign=${cur:0:1} "
			"cur=${cur:1} ;; esac\n"
			"\t\tCOMPREPLY=($(compgen -P \"$sign\" -W "
			"\"$_exmtop_keys\" -- \"$cur\"))\n" },
	/* A,B,...: the key after the last comma */
	{ TUI_COMP_KEYS, "\t\tlocal head=${cur%\"${cur##*,}\"}\n"
			 "\t\tCOMPREPLY=($(compgen -P \"$head\" -W "
			 "\"$_exmtop_keys\" -- \"${cur##*,}\"))\n"
			 "\t\tcompopt -o nospace 2>/dev/null\n" },
};

void tui_print_completion(FILE *f)
{
	const char *names[TUI_FMT__COUNT + 1] = { NULL };
	bool arg;
	const char *s;

	fputs("# bash completion for exmtop(1), written by `exmtop --completion "
	      "bash` (exmtop " PACKAGE_VERSION ")\n"
	      "# from its option table: do not edit.\n"
	      "_exmtop()\n{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= i=$COMP_CWORD\n"
	      "\t[ \"$i\" -gt 0 ] && prev=${COMP_WORDS[i-1]}\n"
	      "\t# --opt=value: bash splits the word at the '='\n"
	      "\tif [ \"$cur\" = = ]; then\n\t\tcur=\n"
	      "\telif [ \"$prev\" = = ] && [ \"$i\" -gt 1 ]; then\n"
	      "\t\tprev=${COMP_WORDS[i-2]}\n\tfi\n"
	      "\tCOMPREPLY=()\n"
	      "\tcase $prev in\n",
	      f);
	word_branches(f);
	for (size_t i = 0; i < sizeof(shell_kinds) / sizeof(shell_kinds[0]);
	     i++)
		if (branch(f, shell_kinds[i].kind))
			fprintf(f, "%s\t\treturn ;;\n", shell_kinds[i].body);
	if (branch(f, TUI_COMP_FORMAT)) {
		for (int i = 0; i < TUI_FMT__COUNT; i++)
			names[i] = tui_formats[i].name;
		words_body(f, names);
	}
	if (branch(f, TUI_COMP_SOURCE)) {
		/* a source taking an argument is offered as NAME:, no space */
		fputs("\t\tCOMPREPLY=($(compgen -W \"auto", f);
		for (size_t i = 0; (s = exm_source_name(i, &arg)); i++)
			fprintf(f, " %s%s", s, arg ? ":" : "");
		fputs("\" -- \"$cur\"))\n"
		      "\t\t[[ ${COMPREPLY[0]} == *: ]] && "
		      "compopt -o nospace 2>/dev/null\n\t\treturn ;;\n",
		      f);
	}
	fputs("\tesac\n"
	      "\tcase $cur in\n"
	      "\t-*)\n"
	      "\t\tCOMPREPLY=($(compgen -W \"",
	      f);
	for (const struct tui_option *op = tui_options; op->name; op++) {
		if (op->short_name)
			fprintf(f, "-%c ", op->short_name);
		fprintf(f, "--%s%s", op->name, op[1].name ? " " : "");
	}
	fputs("\" -- \"$cur\")) ;;\n"
	      "\tesac\n"
	      "}\n"
	      "_exmtop_keys=\"",
	      f);
	for (int i = 0; i < EXM_F__COUNT; i++)
		fprintf(f, "%s%s", i ? " " : "", exm_fields[i].key);
	fputs("\"\n"
	      "complete -F _exmtop exmtop\n",
	      f);
}
