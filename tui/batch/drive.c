// SPDX-License-Identifier: GPL-2.0-or-later
/* drive.c - the table of modes, its one check and the one batch driver;
 * see drive.h. */
#include "tui/batch/drive.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "core/format.h"
#include "core/outfile.h"
#include "core/record.h"
#include "tui/batch/batch.h"
#include "tui/batch/diff.h"
#include "tui/replay.h"
#include "tui/text.h"
#include "tui/screen/ui.h"

#define ALL_FMT                                                 \
	(TUI_FMT_BIT(TUI_FMT_TEXT) | TUI_FMT_BIT(TUI_FMT_CSV) | \
	 TUI_FMT_BIT(TUI_FMT_JSON) | TUI_FMT_BIT(TUI_FMT_OPENMETRICS))
#define TABLE_FMT                                               \
	(TUI_FMT_BIT(TUI_FMT_TEXT) | TUI_FMT_BIT(TUI_FMT_CSV) | \
	 TUI_FMT_BIT(TUI_FMT_JSON))
/* what every batch mode taking snapshots takes */
#define SNAPS                                                          \
	"batch iterations delay full-walk format source pagemap-mode " \
	"include-self "                                                \
	"no-color replay from record keep keep-size verbose output "
/* the reports the live screen opens (a key each); a batch report, any */
#define LIVE_REPORTS                         \
	(TUI_REPORT_BIT(TUI_REPORT_ALERTS) | \
	 TUI_REPORT_BIT(TUI_REPORT_SYSTEM) | \
	 TUI_REPORT_BIT(TUI_REPORT_UNITS) |  \
	 TUI_REPORT_BIT(TUI_REPORT_BREAKDOWN))
#define ALL_REPORTS (TUI_REPORT_BIT(TUI_REPORT__COUNT) - 1)

/* In the order they are chosen: the first whose option is given. */
const struct tui_mode tui_modes[] = {
	{ .name = "diff",
	  .what = "--diff",
	  .accepts = "batch diff from to format fields sort files pid user "
		     "bytes no-color output",
	  .reports = TUI_REPORT_BIT(TUI_REPORT_SYSTEM), /* its change */
	  .formats = TABLE_FMT,
	  .run = tui_batch_diff },
	{ .name = "sections",
	  .what = "--sections",
	  .accepts = SNAPS "sections pid fields sort bytes sysroot",
	  .formats = ALL_FMT,
	  .batch = &tui_elf_ops },
	{ .name = "symbols",
	  .what = "--symbols",
	  .accepts = SNAPS "symbols pid fields sort bytes sysroot",
	  .formats = ALL_FMT,
	  .batch = &tui_elf_ops },
	{ .name = "pagemap",
	  .what = "--pagemap",
	  .accepts = SNAPS "pagemap",
	  .formats = TUI_FMT_BIT(TUI_FMT_TEXT) | TUI_FMT_BIT(TUI_FMT_JSON),
	  .batch = &tui_strip_ops },
	{ .name = "report",
	  .what = "a report",
	  .accepts = SNAPS "pid scan-pids user full-command bytes sysroot",
	  .reports = ALL_REPORTS,
	  .formats = ALL_FMT,
	  .batch = &tui_report_ops },
	{ .name = "listing",
	  .what = "a listing",
	  .accepts = SNAPS "sort pid scan-pids user full-command files bytes "
			   "fields top group",
	  .formats = ALL_FMT,
	  .batch = &tui_listing_ops },
	{ .name = "live",
	  .what = "the live screen",
	  .accepts =
		  "iterations delay full-walk sort pid scan-pids user full-command files "
		  "bytes fields source pagemap-mode include-self no-color "
		  "record keep keep-size watch replay sysroot from",
	  .reports = LIVE_REPORTS,
	  .run = tui_live },
	{ .name = NULL },
};

const struct tui_mode *tui_mode_of(const struct tui_opts *o)
{
	const char *name = "live";

	if (o->diff_a)
		name = "diff";
	else if (o->sections)
		name = "sections";
	else if (o->symbols)
		name = "symbols";
	else if (o->pagemap)
		name = "pagemap";
	else if (o->batch || (o->record && !o->watch))
		name = o->report ? "report" : "listing";
	for (const struct tui_mode *m = tui_modes; m->name; m++)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

/* Whether the space-separated list has the word w. */
static bool has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

/* What an option needs beyond its mode: one line when it lacks it. */
static const char *needs(const struct tui_opts *o, const char *name)
{
	if (!strcmp(name, "watch") && !o->record)
		return "--watch goes with --record";
	if ((!strcmp(name, "keep") || !strcmp(name, "keep-size")) && !o->record)
		return "--keep and --keep-size go with --record";
	if (!strcmp(name, "verbose") && !o->record)
		return "--verbose goes with --record, without --watch";
	if (!strcmp(name, "from") && !o->diff_a && !o->replay_src)
		return "--from goes with --diff or --replay";
	if (!strcmp(name, "group") && o->format == TUI_FMT_OPENMETRICS)
		return "--group goes with --format text, csv or json "
		       "(openmetrics prints every grouping)";
	if (!strcmp(name, "group") && o->files)
		return "--group lists processes grouped, --files files: "
		       "one of them";
	if (!strcmp(name, "top") && o->format != TUI_FMT_OPENMETRICS)
		return "--top goes with --format openmetrics";
	if (!strcmp(name, "sysroot") && !o->replay_src)
		return "--sysroot goes with --replay and what opens ELF files: "
		       "the live screen, --sections, --symbols, --units, "
		       "--alerts, --breakdown";
	return NULL;
}

/* Whether m takes the option called name: one of its accepts, or the
 * option of one of its reports. */
static bool takes(const struct tui_mode *m, const char *name)
{
	const struct tui_report_ops *r = tui_report_find(name);

	return has_word(m->accepts, name) ||
	       (r && (m->reports & TUI_REPORT_BIT(r - tui_reports)));
}

int tui_mode_check(const struct tui_mode *m, const struct tui_opts *o)
{
	const char *why;

	for (size_t i = 0; tui_options[i].name; i++) {
		const char *name = tui_options[i].name;

		if (!(o->given & (1ull << i)))
			continue;
		if (!takes(m, name)) {
			char sh[8] = "";

			if (tui_options[i].short_name)
				snprintf(sh, sizeof(sh), " (-%c)",
					 tui_options[i].short_name);
			tui_error("--%s%s is not an option of %s", name, sh,
				  m->what);
			return 2;
		}
		why = needs(o, name);
		if (why) {
			tui_error("%s", why);
			return 2;
		}
	}
	if (o->format_given && !(m->formats & TUI_FMT_BIT(o->format))) {
		char names[128];

		tui_format_names(m->formats, names, sizeof(names));
		tui_error("%s prints %s, not %s", m->what, names,
			  tui_formats[o->format].name);
		return 2;
	}
	return 0;
}

void tui_modes_list(FILE *f)
{
	for (const struct tui_mode *m = tui_modes; m->name; m++) {
		fprintf(f, "%s\t", m->name);
		for (int k = 0, n = 0; k < TUI_FMT__COUNT; k++)
			if (m->formats & TUI_FMT_BIT(k))
				fprintf(f, "%s%s", n++ ? "," : "",
					tui_formats[k].name);
		fprintf(f, "\t%s", m->accepts);
		for (int r = 0; r < TUI_REPORT__COUNT; r++)
			if (m->reports & TUI_REPORT_BIT(r))
				fprintf(f, " %s", tui_reports[r].name);
		fputc('\n', f);
	}
}

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* Sleep d seconds, or until SIGINT or SIGTERM. */
static void sleep_secs(double d)
{
	struct timespec ts = { .tv_sec = (time_t)d };

	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	while (!stop_flag && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

long tui_batch_iterations(const struct tui_opts *o, struct exm_source *src,
			  int *status)
{
	size_t first = 0, n = exm_source_count(src);

	if (n && o->from) {
		*status = tui_replay_pick(src, "--from", o->from, &first);
		if (*status)
			return 0;
		exm_source_seek(src, first);
	}
	if (o->iterations > 0)
		return o->iterations;
	if (n)
		return (long)(n - first);
	return o->record && !o->batch ? LONG_MAX : 1;
}

/* The loop of a batch run: 0 or the exit status. */
static int drive_loop(struct tui_run *r, const struct tui_batch_ops *ops,
		      struct exm_source *src, struct exm_recorder *rec,
		      long iters)
{
	const struct tui_opts *o = r->o;
	bool print = !o->record || o->format_given;
	struct exm_snapshot *prev = NULL;
	size_t replay = exm_source_count(src);
	struct exm_outfile of;
	int ret, status = 0;

	tui_out_init(o, &of);
	for (long i = 0; i < iters && !stop_flag; i++) {
		struct exm_snapshot *snap;
		size_t number;
		FILE *out;

		if (i && !replay && tui_check_step()) {
			char line[64];

			if (!fgets(line, sizeof(line), stdin))
				break;
		} else if (i && !replay) { /* a replay does not wait */
			sleep_secs(r->q.set.delay);
		}
		if (stop_flag)
			break;
		number = replay ? exm_source_tell(src) + 1 : (size_t)i + 1;
		if (i == iters - 1)
			exm_source_last(src);
		ret = exm_source_snapshot(src, &r->scan, &snap);
		if (ret) {
			tui_error("snapshot failed: %s",
				  src->errmsg[0] ? src->errmsg
						 : strerror(-ret));
			/* a damaged recording is a bad value */
			status = ret == -EINVAL && replay ? 2 : 1;
			break;
		}
		tui_check_said(src, number);
		if (rec && exm_record_snapshot(rec, snap)) {
			tui_error("--record: %s", exm_record_errmsg(rec));
			exm_snapshot_free(snap);
			status = 1;
			break;
		}
		if (rec && o->verbose)
			fprintf(stderr,
				"exmtop: --record: snapshot %" PRId64
				" written\n",
				exm_record_last_id(rec));
		ret = 0;
		if (print) {
			int e;

			out = tui_out_begin(o, &of, &status);
			if (!out) {
				exm_snapshot_free(snap);
				break;
			}
			ret = ops->emit(out, r, snap, prev, i, number);
			e = tui_out_end(o, &of, !ret);
			if (e < 0) { /* the reader left (the emit may have
				      * failed for it): stop quietly */
				exm_snapshot_free(snap);
				break;
			}
			if (e && !ret) {
				exm_snapshot_free(snap);
				status = e;
				break;
			}
		}
		if (prev)
			exm_snapshot_free(prev);
		/* the deltas of the next one: of the processes' and files'
		 * sizes only, unless groups' (their exclusive memory reads
		 * the members' page words): the words and share tables go
		 * before the next snapshot is taken, and for a listing the
		 * mappings too */
		if (r->q.table != EXM_T_GROUPS) {
			if (ops->prev_rows)
				exm_snapshot_keep_rows(snap);
			else
				exm_snapshot_keep_sizes(snap);
		}
		prev = snap;
		if (ret == 2 && replay) {
			/* a replayed snapshot older than the report (recorded
			 * before its facts were kept): the later ones may
			 * have them, so go on; exit status 2 at the end */
			status = 2;
			continue;
		}
		if (ret) {
			if (ret < 0)
				tui_error("%s", strerror(-ret));
			status = ret > 0 ? ret : 1;
			break;
		}
	}
	if (prev)
		exm_snapshot_free(prev);
	tui_out_fini(&of);
	return status;
}

static int drive(const struct tui_batch_ops *ops, const struct tui_opts *o)
{
	struct exm_recorder *rec = NULL;
	struct exm_source *src = NULL;
	struct tui_run r = { .o = o };
	bool print = !o->record || o->format_given;
	long iters = 0;
	int status;

	status = tui_query_from_opts(&r.q, o, false);
	if (status)
		return status;
	/* read only what the printed columns need; the mode may ask more */
	tui_query_scan(&r.q, tui_query_needs(&r.q, r.q.table), &r.scan);
	status = ops->begin(&r);
	if (!status && ops->elf &&
	    (!(r.cache = exm_elfcache_new(0)) ||
	     exm_elfcache_set_sysroot(r.cache, o->sysroot)))
		status = 1;
	if (!status)
		status = tui_open_source(o, &src);
	if (!status)
		status = tui_source_reuse(src, &r.q);
	if (!status)
		iters = tui_batch_iterations(o, src, &status);
	if (!status && o->format == TUI_FMT_OPENMETRICS && print &&
	    !o->output && iters > 1) {
		/* an exposition is one snapshot: two on stdout are not one */
		tui_error("openmetrics prints one snapshot: -n 1, or "
			  "--output FILE (each snapshot replaces it)");
		status = 2;
	}
	/* Before the recording's open: it may wait up to 30 s for another
	 * recorder's write, and a stop asked meanwhile ends the run with
	 * the recording whole, not the process by the signal. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	if (!status && o->record && o->output &&
	    exm_outfile_names_recording(o->output, o->record)) {
		char esc[160];

		tui_error("--output %s: it is the recording this run writes",
			  exm_escape_line(esc, sizeof(esc), o->output));
		status = 2;
	}
	if (!status && o->record)
		status = tui_record_open(o, &rec);
	if (!status && o->output && exm_outfile_is_own(o->output)) {
		char esc[160];

		tui_error("--output %s: it is the recording this run %s",
			  exm_escape_line(esc, sizeof(esc), o->output),
			  rec ? "writes" : "reads");
		status = 2;
	}
	if (!status) {
		if (rec) { /* a recording holds every column of what the
			    * mode scans */
			struct exm_scan_opts keep = r.scan;

			tui_query_scan(&r.q, ~0u, &r.scan);
			r.scan.pids = keep.pids;
			r.scan.npids = keep.npids;
		}
		status = drive_loop(&r, ops, src, rec, iters);
	}
	if (rec)
		exm_record_close(rec);
	if (src)
		exm_source_close(src);
	if (ops->end)
		ops->end(&r);
	exm_elfcache_free(r.cache);
	tui_query_fini(&r.q);
	return status;
}

int tui_mode_run(const struct tui_mode *m, const struct tui_opts *o)
{
	return m->batch ? drive(m->batch, o) : m->run(o);
}
