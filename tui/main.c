// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - exmtop's command line: parse options into struct tui_opts and
 * hand over to batch output (-b) or the live UI.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fields.h"
#include "tui/batch.h"
#include "tui/man.h"
#include "tui/batch_elf.h"
#include "tui/opts.h"
#include "tui/ui.h"

enum {
	OPT_FILES = 256,
	OPT_FORMAT,
	OPT_BYTES,
	OPT_FIELDS,
	OPT_SOURCE,
	OPT_PAGEMAP_MODE,
	OPT_INCLUDE_SELF,
	OPT_SECTIONS,
	OPT_SYMBOLS,
	OPT_NO_COLOR,
	OPT_LIST_FIELDS,
	OPT_MAN,
	OPT_HELP,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "batch", no_argument, NULL, 'b' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "delay", required_argument, NULL, 'd' },
	{ "sort", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "user", required_argument, NULL, 'u' },
	{ "full-command", no_argument, NULL, 'c' },
	{ "files", no_argument, NULL, OPT_FILES },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "bytes", no_argument, NULL, OPT_BYTES },
	{ "fields", required_argument, NULL, OPT_FIELDS },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "pagemap-mode", required_argument, NULL, OPT_PAGEMAP_MODE },
	{ "include-self", no_argument, NULL, OPT_INCLUDE_SELF },
	{ "sections", required_argument, NULL, OPT_SECTIONS },
	{ "symbols", required_argument, NULL, OPT_SYMBOLS },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "list-fields", no_argument, NULL, OPT_LIST_FIELDS },
	{ "man", no_argument, NULL, OPT_MAN },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("Usage: exmtop [options]\n"
	      "Show what each process really costs in memory: every "
	      "physical page's\ncost divided among the processes that map "
	      "it (effective resident).\n\n"
	      "  -b, --batch            print and exit instead of the live "
	      "screen\n"
	      "  -n, --iterations N     number of snapshots (batch: 1)\n"
	      "  -d, --delay SECS       seconds between snapshots (2)\n"
	      "  -o, --sort KEY         sort by field KEY (-KEY ascending; "
	      "default erss)\n"
	      "  -p, --pid PID,...      only these processes\n"
	      "  -u, --user USER        only processes of USER (name or uid)\n"
	      "  -c, --full-command     show full command lines\n"
	      "      --files            list files instead of processes\n"
	      "      --format FMT       text, csv or json (batch)\n"
	      "      --bytes            exact byte counts instead of K/M/G\n"
	      "      --fields A,B,...   columns to show (see --list-fields)\n"
	      "      --sections FILE    ELF sections of a mapped file "
	      "(with -p: one process)\n"
	      "      --symbols FILE:SEC symbols of a section of a mapped file\n"
	      "      --source NAME      auto, pagemap (root), smaps, "
	      "fixture:NAME\n"
	      "      --pagemap-mode M   auto, scan (PAGEMAP_SCAN) or read\n"
	      "      --include-self     also scan exmtop's own process\n"
	      "      --no-color         no colours (also NO_COLOR=1)\n"
	      "      --list-fields      print every field key and exit\n"
	      "  -h, --help             this help\n"
	      "  -V, --version          version\n",
	      f);
}

static int bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "exmtop: invalid value '%.64s' for %s: %s\n", val, opt,
		why);
	return 2;
}

static int parse_pids(struct tui_opts *o, const char *s)
{
	const char *p = s;

	while (*p) {
		char *end;
		long v;
		pid_t *np;

		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > INT_MAX ||
		    (*end && *end != ','))
			return bad("-p", s, "expected PID[,PID...]");
		np = realloc(o->pids, (o->npids + 1) * sizeof(*np));
		if (!np)
			return 1;
		o->pids = np;
		o->pids[o->npids++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	if (!o->npids)
		return bad("-p", s, "expected PID[,PID...]");
	return 0;
}

/* A user name known to the system, or any numeric uid. */
static bool user_exists(const char *u)
{
	struct passwd pwd, *res = NULL;
	char buf[1024], *end;

	strtoul(u, &end, 10);
	if (!*end)
		return true;
	return !getpwnam_r(u, &pwd, buf, sizeof(buf), &res) && res;
}

static void list_fields(void)
{
	for (int i = 0; i < EXM_F__COUNT; i++) {
		printf("%-10s %-9s ", exm_fields[i].key, exm_fields[i].title);
		for (int t = 0; t < EXM_T__COUNT; t++)
			if (exm_fields[i].tables & EXM_TBIT(t))
				printf("%c", "pfFPmsyg"[t]);
		printf("\t%s\n", exm_fields[i].help);
	}
}

void tui_opts_scan(const struct tui_opts *o, struct exm_scan_opts *scan)
{
	memset(scan, 0, sizeof(*scan));
	scan->pids = o->pids;
	scan->npids = o->npids;
	scan->include_self = o->include_self;
	scan->want_kpss = true;
	scan->want_cmdline = true;
	scan->pagemap_mode = o->pagemap_mode;
}

static int parse(struct tui_opts *o, int argc, char **argv)
{
	int c, ret;

	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":bn:d:o:p:u:chV", long_opts,
				NULL)) != -1) {
		char *end;

		switch (c) {
		case 'b':
			o->batch = true;
			break;
		case 'n':
			errno = 0;
			o->iterations = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno ||
			    o->iterations < 1)
				return bad("-n", optarg,
					   "expected a positive count");
			break;
		case 'd':
			errno = 0;
			o->delay = strtod(optarg, &end);
			if (end == optarg || *end || errno ||
			    !isfinite(o->delay) || o->delay < 0.1 ||
			    o->delay > 86400)
				return bad("-d", optarg,
					   "expected seconds, 0.1 to 86400");
			break;
		case 'o':
			o->sort_asc = optarg[0] == '-';
			o->sort_key = optarg + (optarg[0] == '-' ||
						optarg[0] == '+');
			if (exm_field_by_key(o->sort_key) < 0)
				return bad("-o", optarg,
					   "unknown field (see --list-fields)");
			break;
		case 'p':
			ret = parse_pids(o, optarg);
			if (ret)
				return ret;
			break;
		case 'u':
			if (!*optarg)
				return bad("-u", optarg, "empty user");
			if (!user_exists(optarg))
				return bad("-u", optarg, "no such user");
			o->user = optarg;
			break;
		case 'c':
			o->full_cmd = true;
			break;
		case OPT_FILES:
			o->files = true;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				o->format = TUI_FMT_TEXT;
			else if (!strcmp(optarg, "csv"))
				o->format = TUI_FMT_CSV;
			else if (!strcmp(optarg, "json"))
				o->format = TUI_FMT_JSON;
			else
				return bad("--format", optarg,
					   "expected text, csv or json");
			break;
		case OPT_BYTES:
			o->bytes = true;
			break;
		case OPT_FIELDS:
			o->fields = optarg;
			break;
		case OPT_SOURCE:
			o->source = optarg;
			break;
		case OPT_PAGEMAP_MODE:
			if (!strcmp(optarg, "auto"))
				o->pagemap_mode = 0;
			else if (!strcmp(optarg, "scan"))
				o->pagemap_mode = 1;
			else if (!strcmp(optarg, "read"))
				o->pagemap_mode = 2;
			else
				return bad("--pagemap-mode", optarg,
					   "expected auto, scan or read");
			break;
		case OPT_INCLUDE_SELF:
			o->include_self = true;
			break;
		case OPT_SECTIONS:
			o->sections = optarg;
			break;
		case OPT_SYMBOLS:
			o->symbols = optarg;
			break;
		case OPT_NO_COLOR:
			o->no_color = true;
			break;
		case OPT_LIST_FIELDS:
			list_fields();
			return -1;
		case OPT_MAN:
			tui_print_man(stdout);
			return -1;
		case OPT_HELP:
		case 'h':
			usage(stdout);
			return -1;
		case 'V':
		case OPT_VERSION:
			puts("exmtop " PACKAGE_VERSION);
			return -1;
		case ':':
			fprintf(stderr, "exmtop: option '%.64s' needs a value "
				"(see --help)\n", argv[optind - 1]);
			return 2;
		default:
			if (optopt && optopt < 256)
				fprintf(stderr, "exmtop: unknown option '-%c' "
					"(see --help)\n", optopt);
			else
				fprintf(stderr, "exmtop: unknown option "
					"'%.64s' (see --help)\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "exmtop: unexpected argument '%.64s'\n",
			argv[optind]);
		return 2;
	}
	if (o->fields) {
		int fields[TUI_MAX_FIELDS + 1];
		char err[256];

		if (tui_parse_fields(o->fields,
				     o->files ? EXM_T_FILES : EXM_T_PROCS,
				     fields, err, sizeof(err)) &&
		    !o->sections && !o->symbols) {
			fprintf(stderr, "exmtop: %s\n", err);
			return 2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tui_opts o = { .delay = 2.0 };
	const char *nc = getenv("NO_COLOR");
	int ret;

	ret = parse(&o, argc, argv);
	if (ret) {
		free(o.pids);
		return ret < 0 ? 0 : ret;
	}
	if (nc && *nc)
		o.no_color = true;
	if (o.sections || o.symbols) {
		ret = tui_batch_elf(&o);
	} else if (o.batch) {
		ret = tui_batch(&o);
	} else {
		ret = tui_live(&o);
	}
	free(o.pids);
	return ret;
}
