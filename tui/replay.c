// SPDX-License-Identifier: GPL-2.0-or-later
/* replay.c - recordings in the program; see replay.h. */
#include "tui/replay.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/source_replay.h"

int tui_record_open(const struct tui_opts *o, struct exm_recorder **out)
{
	char err[512] = "";
	int ret = exm_record_open(o->record, out, err, sizeof(err));

	if (!ret)
		return 0;
	fprintf(stderr, "exmtop: --record: %s\n",
		err[0] ? err : strerror(-ret));
	return 2;
}

/* The time spec names, or false. */
static bool parse_time(struct exm_source *src, const char *spec,
		       struct timespec *t)
{
	struct timespec first;
	struct tm tm, day;
	time_t s;
	char *end;
	const char *p;

	memset(t, 0, sizeof(*t));
	memset(&tm, 0, sizeof(tm));
	if (spec[0] == '@') {
		errno = 0;
		t->tv_sec = (time_t)strtoll(spec + 1, &end, 10);
		return end != spec + 1 && !*end && !errno;
	}
	p = strptime(spec, "%Y-%m-%dT%H:%M:%S", &tm);
	if (p && (!*p || !strcmp(p, "Z"))) {
		tm.tm_isdst = -1;
		t->tv_sec = *p ? timegm(&tm) : mktime(&tm);
		return true;
	}
	memset(&tm, 0, sizeof(tm));
	p = strptime(spec, "%H:%M:%S", &tm);
	if (!p || *p || exm_replay_time(src, 0, &first))
		return false;
	/* on the day of the first snapshot, local time */
	s = first.tv_sec;
	localtime_r(&s, &day);
	day.tm_hour = tm.tm_hour;
	day.tm_min = tm.tm_min;
	day.tm_sec = tm.tm_sec;
	day.tm_isdst = -1;
	t->tv_sec = mktime(&day);
	return true;
}

int tui_replay_pick(struct exm_source *src, const char *opt,
		    const char *spec, size_t *idx)
{
	size_t n = exm_replay_count(src);
	struct timespec t, first;
	char *end;
	long k;

	errno = 0;
	k = strtol(spec, &end, 10);
	if (end != spec && !*end && !errno) {
		if (k < 1 || (size_t)k > n) {
			fprintf(stderr, "exmtop: invalid value '%.64s' for %s: "
				"the recording holds snapshots 1 to %zu\n",
				spec, opt, n);
			return 2;
		}
		*idx = (size_t)k - 1;
		return 0;
	}
	if (!parse_time(src, spec, &t)) {
		fprintf(stderr, "exmtop: invalid value '%.64s' for %s: "
			"expected a snapshot index, @UNIXSECS, "
			"YYYY-MM-DDTHH:MM:SS[Z] or HH:MM:SS\n", spec, opt);
		return 2;
	}
	if (!exm_replay_time(src, 0, &first) &&
	    (t.tv_sec < first.tv_sec ||
	     (t.tv_sec == first.tv_sec && t.tv_nsec < first.tv_nsec))) {
		/* no snapshot was taken at or before it */
		char when[32] = "?";
		struct tm tm;

		if (localtime_r(&first.tv_sec, &tm))
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(stderr, "exmtop: invalid value '%.64s' for %s: before "
			"the first snapshot (taken %s)\n", spec, opt, when);
		return 2;
	}
	exm_replay_seek_time(src, &t);
	*idx = exm_replay_tell(src);
	return 0;
}
