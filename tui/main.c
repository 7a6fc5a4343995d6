// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - exmtop's entry: parse the options (opts.c), check them against
 * the mode they select and run it (drive.c's table of modes).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/fields.h"
#include "core/source.h"
#include "kernel/exmap_abi.h"
#include "tui/completion.h"
#include "tui/batch/drive.h"
#include "tui/man.h"
#include "tui/opts.h"

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
	const struct tui_mode *mode = NULL;
	const char *nc = getenv("NO_COLOR");
	int ret;

	/*
	 * Blocks of 128 KiB or more are mapped for themselves and given back
	 * when freed, always: glibc raises that threshold to the size of the
	 * biggest such block freed (a walk's buffer of a dense mapping, a
	 * process's page words), after which they come from its heaps, whose
	 * freed parts stay resident. A live screen's memory then grew with
	 * every refresh (on bench/workload.c's resident: 96 to 127 MiB in
	 * 15 s; 88 to 96 with the threshold fixed).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	ret = tui_opts_parse(&o, argc, argv);
	if (ret) {
		tui_opts_fini(&o);
		return ret;
	}
	if (nc && *nc)
		o.no_color = true;
	if (o.action == TUI_RUN) {
		mode = tui_mode_of(&o);
		ret = tui_mode_check(mode, &o);
	}
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
	case TUI_LIST_MODES:
		tui_modes_list(stdout);
		break;
	case TUI_RUN:
		exm_raise_nofile();
		ret = tui_mode_run(mode, &o);
		break;
	}
	tui_opts_fini(&o);
	return ret;
}
