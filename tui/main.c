// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - exmtop's entry: parse the options (opts.c) and hand over to
 * batch output (-b), the ELF tables, the page strip or the live UI.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/fields.h"
#include "kernel/exmap_abi.h"
#include "tui/batch.h"
#include "tui/batch_elf.h"
#include "tui/completion.h"
#include "tui/diff.h"
#include "tui/man.h"
#include "tui/opts.h"
#include "tui/text.h"
#include "tui/ui.h"

/* Options that only mean something together: 0, or 2 after one line. */
static int check_combinations(const struct tui_opts *o)
{
	const char *why = NULL;

	if (o->watch && !o->record)
		why = "--watch goes with --record";
	else if (o->verbose && (!o->record || o->watch))
		why = "--verbose goes with --record, without --watch";
	else if (o->diff_a && (o->record || o->source))
		why = "--diff reads recordings: no --record, --replay or "
		      "--source";
	else if (o->from && !o->diff_a && !o->replay_src)
		why = "--from goes with --diff or --replay";
	else if (o->to && !o->diff_a)
		why = "--to goes with --diff";
	else if (o->top && o->format != TUI_FMT_OPENMETRICS)
		why = "--top goes with --format openmetrics";
	else if (o->sysroot &&
		 (!o->replay_src || o->pagemap ||
		  (o->batch && !o->sections && !o->symbols && !o->report)))
		why = "--sysroot goes with --replay and what opens ELF files: "
		      "the live screen, --sections, --symbols, --units, "
		      "--alerts, --breakdown";
	else if (o->output && !o->batch && !(o->record && !o->watch) &&
		 !o->diff_a && !o->sections && !o->symbols && !o->pagemap)
		why = "--output goes with -b (the live screen writes no file)";
	if (!why)
		return 0;
	tui_error("%s", why);
	return 2;
}

static void list_fields(void)
{
	for (int i = 0; i < EXM_F__COUNT; i++) {
		printf("%-10s %-9s ", exm_fields[i].key, exm_fields[i].title);
		for (int t = 0; t < EXM_T__COUNT; t++)
			if (exm_fields[i].tables & EXM_TBIT(t))
				putchar(exm_tables[t].letter);
		printf("\t%s\n", exm_fields[i].help);
	}
}

int main(int argc, char **argv)
{
	struct tui_opts o = { 0 };
	const char *nc = getenv("NO_COLOR");
	int ret;

	ret = tui_opts_parse(&o, argc, argv);
	if (ret) {
		tui_opts_fini(&o);
		return ret;
	}
	if (nc && *nc)
		o.no_color = true;
	if (o.action == TUI_RUN)
		ret = check_combinations(&o);
	if (ret) {
		tui_opts_fini(&o);
		return ret;
	}
	switch (o.action) {
	case TUI_HELP:
		tui_opts_usage(stdout);
		break;
	case TUI_VERSION:
		/* the module this exmtop talks to: exmap-dkms of the same
		 * version (kernel/exmap_abi.h) */
		printf("exmtop %s (exmap module ABI %d)\n", PACKAGE_VERSION,
		       EXMAP_ABI_VERSION);
		break;
	case TUI_LIST_FIELDS:
		list_fields();
		break;
	case TUI_MAN:
		tui_print_man(stdout);
		break;
	case TUI_COMPLETION:
		tui_print_completion(stdout);
		break;
	case TUI_RUN:
		if (o.diff_a)
			ret = tui_batch_diff(&o);
		else if (o.sections || o.symbols)
			ret = tui_batch_elf(&o);
		else if (o.pagemap)
			ret = tui_batch_pagemap(&o);
		else if (o.batch || (o.record && !o.watch))
			ret = tui_batch(&o);
		else
			ret = tui_live(&o);
		break;
	}
	tui_opts_fini(&o);
	return ret;
}
