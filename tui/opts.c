// SPDX-License-Identifier: GPL-2.0-or-later
/* opts.c - the option table and its parser; see opts.h. */
#include "tui/opts.h"

#include "core/fields.h"
#include "core/format.h"
#include "core/group.h"
#include "core/source.h"
#include "core/procset.h"
#include "tui/batch/batch.h"
#include "tui/rc.h"
#include "tui/report.h"
#include "tui/text.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

static int bad(const char *opt, const char *val, const char *why)
{
	tui_error("invalid value '%.64s' for %s: %s", val, opt, why);
	return 2;
}

/* The value of a choice among names, or -1 after the message, which
 * lists the names ("expected auto, scan or read"). */
static int choice(const char *opt, const char *val, const char *const *names)
{
	char list[128], why[160];
	size_t n = 0;

	for (; names[n]; n++)
		if (!strcmp(val, names[n]))
			return (int)n;
	snprintf(why, sizeof(why), "expected %s",
		 tui_text_or(list, sizeof(list), names, n));
	bad(opt, val, why);
	return -1;
}

static int set_batch(struct tui_opts *o, const char *v)
{
	o->batch = true;
	return 0;
}

static int set_iterations(struct tui_opts *o, const char *v)
{
	unsigned long long n;

	if (!exm_parse_unsigned(v, LONG_MAX, &n) || n < 1)
		return bad("-n", v, "expected a positive count");
	o->iterations = (long)n;
	return 0;
}

/* The settings table's parser (rc.h): the file and the prompt take the
 * same values. */
static int set_delay(struct tui_opts *o, const char *v)
{
	struct tui_settings s;
	char why[128];

	if (tui_setting_parse(tui_setting_find("delay", NULL), -1, &s, v, why,
			      sizeof(why)))
		return bad("-d", v, why);
	o->delay = s.delay;
	return 0;
}

/* The settings table's "group" (rc.h): the live screen's words. */
static int set_group(struct tui_opts *o, const char *v)
{
	struct tui_settings s;
	char why[128];

	if (tui_setting_parse(tui_setting_find("group", NULL), -1, &s, v, why,
			      sizeof(why)))
		return bad("--group", v, why);
	o->group_by = (int)s.group_by;
	return 0;
}

/* --group's help: its words are the setting's. */
static void group_help(char *buf, size_t len)
{
	char e[128];

	tui_setting_expects(tui_setting_find("group", NULL), e, sizeof(e));
	snprintf(buf, len,
		 "one row per group of processes, BY %s (the live "
		 "screen's group view, key g); --fields and -o are then the "
		 "groups table's",
		 e);
}

static int set_full_walk(struct tui_opts *o, const char *v)
{
	struct tui_settings s;
	char why[128];

	if (tui_setting_parse(tui_setting_find("full_walk", NULL), -1, &s, v,
			      why, sizeof(why)))
		return bad("--full-walk", v, why);
	o->full_walk = s.full_walk;
	return 0;
}

/* The key is checked against the listed table in query.c. */
static int set_sort(struct tui_opts *o, const char *v)
{
	if (!v[0] || ((v[0] == '-' || v[0] == '+') && !v[1]))
		return bad("-o", v, "expected a field key");
	o->sort_key = v;
	return 0;
}

/* A list PID[,PID...] appended to *pids (owned, realloc'd). */
static int parse_pids(const char *opt, const char *s, pid_t **pids,
		      size_t *npids)
{
	char one[32];

	for (const char *p = s; *p;) {
		size_t len = strcspn(p, ",");
		unsigned long long v;
		pid_t *np;

		if (len >= sizeof(one) || (p[len] == ',' && !p[len + 1]))
			return bad(opt, s, "expected PID[,PID...]");
		memcpy(one, p, len);
		one[len] = '\0';
		if (!exm_parse_unsigned(one, INT_MAX, &v) || !v)
			return bad(opt, s, "expected PID[,PID...]");
		np = realloc(*pids, (*npids + 1) * sizeof(*np));
		if (!np)
			return bad(opt, s, "out of memory");
		*pids = np;
		(*pids)[(*npids)++] = (pid_t)v;
		p += len + (p[len] == ',');
	}
	if (!*npids)
		return bad(opt, s, "expected PID[,PID...]");
	return 0;
}

static int set_pids(struct tui_opts *o, const char *s)
{
	return parse_pids("-p", s, &o->pids, &o->npids);
}

static int set_scan_pids(struct tui_opts *o, const char *s)
{
	return parse_pids("--scan-pids", s, &o->scan_pids, &o->nscan_pids);
}

/* A user name, or a numeric uid, that the system knows. */
static int set_user(struct tui_opts *o, const char *u)
{
	struct passwd pwd, *res = NULL;
	unsigned long long uid;
	char buf[1024];

	if (!*u)
		return bad("-u", u, "empty user");
	if (exm_parse_unsigned(u, UINT_MAX - 1, &uid)) {
		if (getpwuid_r((uid_t)uid, &pwd, buf, sizeof(buf), &res) ||
		    !res)
			return bad("-u", u, "no such user id");
	} else if (u[0] >= '0' && u[0] <= '9') {
		return bad("-u", u, "expected a user name or a decimal uid");
	} else if (getpwnam_r(u, &pwd, buf, sizeof(buf), &res) || !res) {
		return bad("-u", u, "no such user");
	}
	o->user = u;
	return 0;
}

static int set_full_cmd(struct tui_opts *o, const char *v)
{
	o->full_cmd = true;
	return 0;
}

static int set_files(struct tui_opts *o, const char *v)
{
	o->files = true;
	return 0;
}

static int set_format(struct tui_opts *o, const char *v)
{
	for (int i = 0; i < TUI_FMT__COUNT; i++)
		if (!strcmp(v, tui_formats[i].name)) {
			o->format = (enum tui_format)i;
			o->format_given = true;
			return 0;
		}
	{
		char names[128], why[160];

		tui_format_names(~0u, names, sizeof(names));
		snprintf(why, sizeof(why), "expected %s", names);
		return bad("--format", v, why);
	}
}

static int set_bytes(struct tui_opts *o, const char *v)
{
	o->bytes = true;
	return 0;
}

/* The list is checked against the listed table in query.c. */
static int set_fields(struct tui_opts *o, const char *v)
{
	o->fields = v;
	return 0;
}

static int replay_and_source(void)
{
	tui_error("--replay and --source cannot be combined "
		  "(a recording is its own source)");
	return 2;
}

static int set_source(struct tui_opts *o, const char *v)
{
	if (o->replay_src)
		return replay_and_source();
	o->source = v;
	return 0;
}

/* A source's own setting: one of its words (source.h). */
static int set_knob(struct tui_opts *o, const struct tui_option *op,
		    const char *v)
{
	char name[64];
	int i;

	snprintf(name, sizeof(name), "--%s", op->name);
	i = choice(name, v, op->knob->words);
	if (i < 0)
		return 2;
	o->knob = i;
	o->knob_opt = op;
	return 0;
}

static int set_include_self(struct tui_opts *o, const char *v)
{
	o->include_self = true;
	return 0;
}

static int set_sections(struct tui_opts *o, const char *v)
{
	o->sections = v;
	return 0;
}

static int set_symbols(struct tui_opts *o, const char *v)
{
	o->symbols = v;
	return 0;
}

static int set_pagemap(struct tui_opts *o, const char *v)
{
	o->pagemap = v;
	return 0;
}

static int set_record(struct tui_opts *o, const char *v)
{
	if (!*v)
		return bad("--record", v, "expected a file");
	o->record = v;
	return 0;
}

/* A number (decimal point allowed with frac) and a suffix among units
 * (one character each, scale[i] its factor; none: *bare set). */
static bool number_unit(const char *v, bool frac, const char *units,
			const double *scale, double *out, bool *bare)
{
	char num[32];
	size_t len = strlen(v);
	const char *u = NULL;
	double x;

	*bare = len && v[len - 1] >= '0' && v[len - 1] <= '9';
	if (!len || len >= sizeof(num) ||
	    (!*bare && !(u = strchr(units, v[len - 1]))))
		return false;
	memcpy(num, v, len);
	num[len - !*bare] = '\0';
	if (!exm_parse_decimal(num, frac, &x))
		return false;
	*out = u ? x * scale[u - units] : x;
	return true;
}

static int set_keep(struct tui_opts *o, const char *v)
{
	static const double secs[] = { 1, 60, 3600, 86400, 604800 };
	double x;
	bool bare;

	if (!number_unit(v, true, "smhdw", secs, &x, &bare) || x <= 0 ||
	    x > 1e12 || (bare && x != floor(x)))
		return bad("--keep", v,
			   "expected a count of snapshots or a "
			   "duration (30m, 12h, 7d, 2w)");
	if (bare)
		o->keep.n = (uint64_t)x;
	else
		o->keep.secs = x;
	return 0;
}

static int set_keep_size(struct tui_opts *o, const char *v)
{
	static const double mult[] = { 1024.0, 1048576.0, 1073741824.0,
				       1099511627776.0 };
	double x;
	bool bare;

	if (!number_unit(v, true, "KMGT", mult, &x, &bare) || x < 65536 ||
	    x > 1e18)
		return bad("--keep-size", v,
			   "expected a size of 64K or more "
			   "(bytes, or K, M, G, T)");
	o->keep.bytes = (uint64_t)x;
	return 0;
}

static int set_watch(struct tui_opts *o, const char *v)
{
	o->watch = true;
	return 0;
}

static int set_verbose(struct tui_opts *o, const char *v)
{
	o->verbose = true;
	return 0;
}

static int set_replay(struct tui_opts *o, const char *v)
{
	size_t n = strlen(v) + sizeof("replay:");

	if (!*v)
		return bad("--replay", v, "expected a file");
	if (o->source && o->source != o->replay_src)
		return replay_and_source();
	free(o->replay_src);
	o->replay_src = malloc(n);
	if (!o->replay_src)
		return bad("--replay", v, "out of memory");
	snprintf(o->replay_src, n, "replay:%s", v);
	o->source = o->replay_src;
	return 0;
}

static int set_sysroot(struct tui_opts *o, const char *v)
{
	if (!*v)
		return bad("--sysroot", v, "expected a directory");
	o->sysroot = v;
	return 0;
}

static int set_diff(struct tui_opts *o, const char *v)
{
	o->diff_a = v;
	return 0;
}

/* An index (1 = first) or a time; checked against the recording. */
static int set_from(struct tui_opts *o, const char *v)
{
	if (!*v)
		return bad("--from", v, "expected a snapshot index or time");
	o->from = v;
	return 0;
}

static int set_to(struct tui_opts *o, const char *v)
{
	if (!*v)
		return bad("--to", v, "expected a snapshot index or time");
	o->to = v;
	return 0;
}

/* The analyses: each option points at its report (report.h), whose
 * name the option bears. */
static int set_report(struct tui_opts *o, const struct tui_report_ops *r)
{
	if (o->report && strcmp(o->report, r->name)) {
		tui_error("--%s and --%s cannot be combined", o->report,
			  r->name);
		return 2;
	}
	o->report = r->name;
	return 0;
}

static int set_alerts(struct tui_opts *o, const char *v)
{
	return set_report(o, &tui_reports[TUI_REPORT_ALERTS]);
}

static int set_system(struct tui_opts *o, const char *v)
{
	return set_report(o, &tui_reports[TUI_REPORT_SYSTEM]);
}

static int set_units(struct tui_opts *o, const char *v)
{
	return set_report(o, &tui_reports[TUI_REPORT_UNITS]);
}

static int set_breakdown(struct tui_opts *o, const char *v)
{
	return set_report(o, &tui_reports[TUI_REPORT_BREAKDOWN]);
}

/* The set is parsed again where the report is built (procset.h). */
static int set_freed(struct tui_opts *o, const char *v)
{
	struct exm_procset s;
	char err[128];
	int ret = exm_procset_parse(v, &s, err, sizeof(err));

	exm_procset_fini(&s);
	if (ret)
		return bad("--freed", v,
			   ret == -ENOMEM ? "out of memory" : err);
	o->freed_set = v;
	o->batch = true; /* a batch report: no key opens it on the screen */
	return set_report(o, &tui_reports[TUI_REPORT_FREED]);
}

static int set_top(struct tui_opts *o, const char *v)
{
	unsigned long long n;

	if (!exm_parse_unsigned(v, 1000000, &n) || n < 1)
		return bad("--top", v, "expected a count, 1 to 1000000");
	o->top = (long)n;
	return 0;
}

static int set_output(struct tui_opts *o, const char *v)
{
	if (!*v)
		return bad("--output", v, "expected a file name");
	o->output = v;
	return 0;
}

static int set_no_color(struct tui_opts *o, const char *v)
{
	o->no_color = true;
	return 0;
}

static int act_list_fields(struct tui_opts *o, const char *v)
{
	o->action = TUI_LIST_FIELDS;
	return 0;
}

static int act_man(struct tui_opts *o, const char *v)
{
	o->action = TUI_MAN;
	return 0;
}

static const char *const completion_shells[] = { "bash", NULL };

static int act_completion(struct tui_opts *o, const char *v)
{
	if (choice("--completion", v, completion_shells) < 0)
		return 2;
	o->action = TUI_COMPLETION;
	return 0;
}

static int act_list_modes(struct tui_opts *o, const char *v)
{
	o->action = TUI_LIST_MODES;
	return 0;
}

static int act_help(struct tui_opts *o, const char *v)
{
	o->action = TUI_HELP;
	return 0;
}

static int act_version(struct tui_opts *o, const char *v)
{
	o->action = TUI_VERSION;
	return 0;
}

/* clang-format off */
const struct tui_option tui_options[] = {
	{ .name = "batch", .short_name = 'b', .set = set_batch,
	  .help = "print and exit instead of the live screen" },
	{ .name = "iterations", .short_name = 'n', .arg = "N",
	  .set = set_iterations, .help = "number of snapshots (batch: 1)" },
	{ .name = "delay", .short_name = 'd', .arg = "SECS",
	  .set = set_delay, .help = "seconds between snapshots (2)" },
	{ .name = "full-walk", .arg = "SECS", .set = set_full_walk,
	  .help = "pagemap and kmod sources: later snapshots re-read only "
		  "the processes that changed, and every process at least "
		  "every SECS seconds (30; 0: every snapshot)" },
	{ .name = "sort", .short_name = 'o', .arg = "KEY", .set = set_sort,
	  .complete = TUI_COMP_KEY,
	  .help = "sort by field KEY: -KEY ascending, +KEY descending, KEY "
		  "the field's own order (sizes descending; default erss)" },
	{ .name = "pid", .short_name = 'p', .arg = "PID,...",
	  .set = set_pids, .help = "only these processes' rows (every "
		  "process is scanned, so their figures are those of a full "
		  "scan)" },
	{ .name = "scan-pids", .arg = "PID,...", .set = set_scan_pids,
	  .help = "scan only these processes (faster): sharing is then "
		  "counted among them only, as the header and JSON say" },
	{ .name = "user", .short_name = 'u', .arg = "USER", .set = set_user,
	  .complete = TUI_COMP_USER,
	  .help = "only processes of USER (name or uid)" },
	{ .name = "full-command", .short_name = 'c', .set = set_full_cmd,
	  .help = "full command lines: on the live screen; in batch text "
		  "on a terminal, not cut at its width" },
	{ .name = "group", .arg = "BY", .set = set_group,
	  .complete = TUI_COMP_WORDS, .words = exm_group_names,
	  .help_from = group_help },
	{ .name = "files", .set = set_files,
	  .help = "list files and anonymous kinds instead of processes" },
	{ .name = "format", .arg = "FMT", .set = set_format,
	  .complete = TUI_COMP_FORMAT, .help_from = tui_format_help },
	{ .name = "bytes", .set = set_bytes,
	  .help = "exact byte counts instead of K/M/G" },
	{ .name = "fields", .arg = "A,B,...", .set = set_fields,
	  .complete = TUI_COMP_KEYS,
	  .help = "columns to show (see --list-fields; JSON: every "
		  "column unless given)" },
	{ .name = "sections", .arg = "FILE", .set = set_sections,
	  .complete = TUI_COMP_FILE,
	  .help = "ELF sections of a mapped file (with -p: one process)" },
	{ .name = "symbols", .arg = "FILE:SEC", .set = set_symbols,
	  .help = "symbols of a section of a mapped file" },
	{ .name = "pagemap", .arg = "PID:ADDR|FILE", .set = set_pagemap,
	  .help = "the pages of the mapping of PID at ADDR, one character a "
		  "page: . not resident, 1-9 processes mapping it, # ten or "
		  "more, s swapped; or of FILE (an absolute path) across "
		  "processes, by file offset" },
	{ .name = "record", .arg = "FILE", .set = set_record,
	  .complete = TUI_COMP_FILE,
	  .help = "append each snapshot to the SQLite recording FILE (no "
		  "screen, prints nothing but errors unless --format or "
		  "--watch; until stopped unless -n; -b: one)" },
	{ .name = "keep", .arg = "N|DURATION", .set = set_keep,
	  .help = "with --record: keep the last N snapshots, or those "
		  "taken within DURATION (30m, 12h, 7d, 2w) of the newest, "
		  "dropping the oldest as new ones are written" },
	{ .name = "keep-size", .arg = "SIZE", .set = set_keep_size,
	  .help = "with --record: drop the oldest snapshots so that the "
		  "file stays within SIZE (K, M, G, T); with replays beside "
		  "it, the file and its -wal within 5 x SIZE" },
	{ .name = "watch", .set = set_watch,
	  .help = "with --record: the live screen too (record what you "
		  "watch)" },
	{ .name = "verbose", .set = set_verbose,
	  .help = "with --record (no screen): a line on stderr for each "
		  "snapshot written, with its id in the file" },
	{ .name = "replay", .arg = "FILE", .set = set_replay,
	  .complete = TUI_COMP_FILE,
	  .help = "the snapshots of a recording instead of the system "
		  "(-b: all of them, or -n; keys [ ] { } step in time)" },
	{ .name = "sysroot", .arg = "DIR", .set = set_sysroot,
	  .complete = TUI_COMP_DIR,
	  .help = "ELF files of a replay under DIR (the target's root "
		  "filesystem); a build-id that differs is reported" },
	{ .name = "diff", .arg = "FILE", .set = set_diff,
	  .complete = TUI_COMP_FILE,
	  .help = "growth of every size per process and file between two "
		  "snapshots of FILE (--diff A B: of two recordings), new and "
		  "gone processes, sorted by growth of effective resident; "
		  "with --system the change of each row of the system view" },
	{ .name = "from", .arg = "K", .set = set_from,
	  .help = "with --diff or --replay: start at snapshot K (1 = first) "
		  "or the last one taken at or before a time (@UNIXSECS, "
		  "YYYY-MM-DDTHH:MM:SS[Z] or HH:MM:SS)" },
	{ .name = "to", .arg = "K", .set = set_to,
	  .help = "with --diff: the later snapshot (default: the last)" },
	{ .name = "alerts", .set = set_alerts,
	  .help = "memory wasted or suspicious: text relocations, "
		  "copy-on-write data, anonymous growth (needs -n 2 or "
		  "more), Pss mismatch" },
	{ .name = "system", .set = set_system,
	  .help = "all of RAM: rows adding up to MemTotal, user space "
		  "exact, kernel rows from the snapshot's /proc/meminfo "
		  "(recorded with it)" },
	{ .name = "units", .set = set_units,
	  .help = "programs and libraries across processes: text, data "
		  "and bss" },
	{ .name = "breakdown", .set = set_breakdown,
	  .help = "each process by kind: stack, heap, program and library "
		  "text/data/bss" },
	{ .name = "freed", .arg = "SET", .set = set_freed,
	  .help = "what stopping a set of processes gives back (SET: "
		  "PID,PID..., user:NAME, cgroup:PATH or comm:NAME): its "
		  "exclusive memory, freed, cached and shmem, beside its "
		  "effective resident and sole (batch)" },
	{ .name = "top", .arg = "N", .set = set_top,
	  .help = "openmetrics: the N largest processes, groups and files "
		  "(20)" },
	{ .name = "output", .arg = "FILE", .set = set_output,
	  .complete = TUI_COMP_FILE,
	  .help = "batch: write each snapshot to FILE (a file, or the "
		  "one a link names: a temporary file renamed over it; a "
		  "device or FIFO: written into)" },
	{ .name = "source", .arg = "NAME", .set = set_source,
	  .complete = TUI_COMP_SOURCE,
	  .help_from = exm_source_help },
	{ .name = "pagemap-mode", .arg = "M", .complete = TUI_COMP_WORDS,
	  .knob = &exm_pagemap_knob },
	{ .name = "include-self", .set = set_include_self,
	  .help = "also scan exmtop's own process" },
	{ .name = "no-color", .set = set_no_color,
	  .help = "no colours (also NO_COLOR=1)" },
	{ .name = "list-fields", .set = act_list_fields,
	  .help = "print every field key, title and tables (letters "
		  "below), and exit" },
	{ .name = "man", .set = act_man,
	  .help = "print this manual page in roff and exit" },
	{ .name = "completion", .arg = "SHELL", .set = act_completion,
	  .complete = TUI_COMP_WORDS, .words = completion_shells,
	  .help = "print a completion script for SHELL (bash) made from "
		  "this table and exit" },
	{ .name = "list-modes", .set = act_list_modes,
	  .help = "print each mode (what the options select: live, listing, "
		  "report, sections, symbols, pagemap, diff), the formats it "
		  "prints and the options it takes, and exit" },
	{ .name = "help", .short_name = 'h', .set = act_help,
	  .help = "this help" },
	{ .name = "version", .short_name = 'V', .set = act_version,
	  .help = "version" },
	{ .name = NULL },
};
/* clang-format on */

const struct tui_doc_item tui_environ[] = {
	{ "EXMTOP_THREADS",
	  "threads for reading processes and accounting "
	  "(default: one per CPU, at most 4); set, the count is fixed" },
	{ "EXMTOP_DEBUG_DIR", "where separate debug files are looked up "
			      "(an absolute path; default /usr/lib/debug)" },
	{ "EXMTOP_CHECK_WALK",
	  "a test's switch: each snapshot that re-read "
	  "only what changed is also compared with a full walk taken right "
	  "after it, and one line on stderr says how it went; =step: batch "
	  "runs take each snapshot after a line read on stdin, not after "
	  "the delay" },
	{ "NO_COLOR", "set and not empty: no colours (as --no-color)" },
	{ "XDG_CONFIG_HOME", "the settings file is "
			     "$XDG_CONFIG_HOME/exmtop/exmtoprc (else "
			     "$HOME/.config/exmtop/exmtoprc)" },
	{ "HOME", "where the settings file is without XDG_CONFIG_HOME" },
	{ "TERM",
	  "the live screen's terminal type (unset: vt100); one that "
	  "cannot address the cursor (dumb) or is unknown is refused: use -b "
	  "(exit status 2)" },
	{ "LANG",
	  "(or LC_ALL, LC_CTYPE) the live screen's character set: "
	  "with UTF-8 its marks (sort arrows, ellipses) are drawn in Unicode, "
	  "else in ASCII" },
	{ NULL, NULL },
};

const struct tui_doc_item tui_exits[] = {
	{ "0", "success" },
	{ "1", "a run-time failure: a snapshot failed, output could not be "
	       "written, a report needs what the source cannot give" },
	{ "2",
	  "bad options or values, an option refused in the mode given, "
	  "a source this machine cannot give, a file that is not a recording "
	  "or lacks what was asked of it" },
	{ NULL, NULL },
};

const struct tui_doc_item tui_examples[] = {
	{ "exmtop -b -o -pid -u root", "root's processes, ascending by pid" },
	{ "exmtop -b --format json -n 3 -d 5", "three snapshots as JSON Lines, "
					       "one object a line" },
	{ "exmtop -b --system", "all of RAM, rows adding up to MemTotal" },
	{ "exmtop -b --record rec.exmrec -n 3 -d 1", "record three snapshots" },
	{ "exmtop --record rec.exmrec -d 60 --keep 7d --keep-size 512M",
	  "a recorder left running: the last week, within 512 MiB" },
	{ "exmtop --diff rec.exmrec --from 1 --to 2",
	  "what grew between the first two" },
	{ NULL, NULL },
};

void tui_table_letters(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int t = 0; t < EXM_T__COUNT && o < len; t++) {
		int k = snprintf(buf + o, len - o, "%s%c %s", t ? ", " : "",
				 exm_tables[t].letter, exm_tables[t].help);

		if (k < 0)
			break;
		o += (size_t)k;
	}
}

#define NOPTS (sizeof(tui_options) / sizeof(tui_options[0]) - 1)
_Static_assert(NOPTS <= 64, "struct tui_opts.given has 64 bits");

/* text wrapped at 79 columns: the first line after a left column of
 * 26, the rest under it */
static void wrapped(FILE *f, const char *left, const char *h)
{
	fprintf(f, "  %-24s", left);
	if (strlen(left) > 24)
		fputs("\n                          ", f);
	for (const char *s = h; *s;) {
		size_t n = strlen(s), cut = n;

		if (n > 52) {
			cut = 52;
			while (cut && s[cut] != ' ')
				cut--;
			if (!cut)
				cut = 52;
		}
		fprintf(f, "%s%.*s\n",
			s == h ? " "
			       : "   "
				 "                        ",
			(int)cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

const char *tui_option_help(const struct tui_option *op, char *buf, size_t len)
{
	if (op->knob)
		return op->knob->help;
	if (!op->help_from)
		return op->help;
	op->help_from(buf, len);
	return buf;
}

void tui_opts_usage(FILE *f)
{
	char letters[512];

	fputs("Usage: exmtop [options]\n"
	      "Show what each process really costs in memory: every "
	      "physical page's\ncost divided among the processes that map "
	      "it (effective resident).\n\n",
	      f);
	for (const struct tui_option *op = tui_options; op->name; op++) {
		char left[64], help[512];

		snprintf(left, sizeof(left), "%c%c%c --%s%s%s",
			 op->short_name ? '-' : ' ',
			 op->short_name ? op->short_name : ' ',
			 op->short_name ? ',' : ' ', op->name,
			 op->arg ? " " : "", op->arg ? op->arg : "");
		wrapped(f, left, tui_option_help(op, help, sizeof(help)));
	}
	tui_table_letters(letters, sizeof(letters));
	fputs("\n--list-fields prints each field's key, title, the tables it "
	      "is a column of\n",
	      f);
	wrapped(f, "", letters);
	fputs("\nEnvironment:\n", f);
	for (const struct tui_doc_item *e = tui_environ; e->name; e++)
		wrapped(f, e->name, e->help);
	fputs("\nSettings file (key W on the live screen writes it; the "
	      "options win over it):\n",
	      f);
	for (const struct tui_setting *st = tui_settings_table; st->key; st++) {
		char name[64], line[512];

		tui_setting_doc(st, name, sizeof(name), line, sizeof(line));
		wrapped(f, name, line);
	}
	fputs("\nExit status:\n", f);
	for (const struct tui_doc_item *e = tui_exits; e->name; e++)
		wrapped(f, e->name, e->help);
}

int tui_opts_parse(struct tui_opts *o, int argc, char **argv)
{
	struct option longs[NOPTS + 1];
	char shorts[3 * NOPTS + 2], *s = shorts;
	int c, idx, ret;

	o->full_walk = -1; /* not given */
	*s++ = ':';	   /* a missing value is ':', not '?' */
	for (size_t i = 0; i < NOPTS; i++) {
		const struct tui_option *op = &tui_options[i];

		longs[i] = (struct option){ op->name,
					    op->arg ? required_argument
						    : no_argument,
					    NULL, 256 + (int)i };
		if (op->short_name) {
			*s++ = op->short_name;
			if (op->arg)
				*s++ = ':';
		}
	}
	*s = 0;
	memset(&longs[NOPTS], 0, sizeof(longs[NOPTS]));
	opterr = 0; /* our own one-line messages */
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, longs, &idx)) != -1) {
		const struct tui_option *op = NULL;

		if (c >= 256 && c < 256 + (int)NOPTS)
			op = &tui_options[c - 256];
		for (size_t i = 0; !op && c > 0 && c < 256 && i < NOPTS; i++)
			if (c != ':' && c != '?' &&
			    tui_options[i].short_name == c)
				op = &tui_options[i];
		if (c == ':') {
			tui_error("option '%s' needs a value "
				  "(see --help)",
				  argv[optind - 1]);
			return 2;
		}
		if (!op) {
			char o1[2] = { (char)optopt, 0 };

			tui_error("unknown option '%s%s' "
				  "(see --help)",
				  optopt > 0 && optopt < 256 ? "-" : "",
				  optopt > 0 && optopt < 256
					  ? o1
					  : argv[optind - 1]);
			return 2;
		}
		o->given |= 1ull << (op - tui_options);
		ret = op->knob ? set_knob(o, op, optarg)
			       : op->set(o, op->arg ? optarg : NULL);
		if (ret)
			return ret;
	}
	/* --diff A B: the second recording is the one argument left */
	if (o->diff_a && !o->diff_b && optind == argc - 1)
		o->diff_b = argv[optind++];
	if (optind < argc) {
		tui_error("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	/* a source's own setting goes with that source only (with --replay
	 * it changes nothing: the snapshots were taken already) */
	if (o->knob_opt && o->source && !o->replay_src) {
		const struct exm_source_ops *src = exm_source_find(o->source);

		if (src && src->knob != o->knob_opt->knob) {
			tui_error("--%s is a setting of source %s, not of %s",
				  o->knob_opt->name, o->knob_opt->knob->source,
				  src->name);
			return 2;
		}
	}
	return 0;
}

void tui_opts_fini(struct tui_opts *o)
{
	free(o->pids);
	o->pids = NULL;
	free(o->scan_pids);
	o->scan_pids = NULL;
	o->nscan_pids = 0;
	free(o->replay_src);
	o->replay_src = NULL;
	o->npids = 0;
}
