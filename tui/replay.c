// SPDX-License-Identifier: GPL-2.0-or-later
/* replay.c - recordings in the program; see replay.h. */
#include "tui/replay.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/format.h"
#include "tui/text.h"

int tui_record_open(const struct tui_opts *o, struct exm_recorder **out)
{
	char err[512] = "";
	int ret = exm_record_open(o->record, out, err, sizeof(err));

	if (!ret && (ret = exm_record_set_retention(*out, &o->keep))) {
		snprintf(err, sizeof(err), "%s", exm_record_errmsg(*out));
		exm_record_close(*out);
		*out = NULL;
	}
	if (!ret)
		return 0;
	tui_error("--record: %s", err[0] ? err : strerror(-ret));
	return 2;
}

/* s has the shape of pat: each 'd' a digit, every other byte itself. */
static bool shaped(const char *s, const char *pat)
{
	for (; *pat; s++, pat++)
		if (*pat == 'd' ? !(*s >= '0' && *s <= '9') : *s != *pat)
			return false;
	return !*s;
}

/* t (made by timegm or mktime from want) names want's very time: no field
 * out of range (February 30th, 25:00) or a local time that does not exist
 * (in a daylight-saving gap), which mktime would quietly move. */
static bool same_time(time_t t, const struct tm *want, bool utc)
{
	struct tm got;

	if (!(utc ? gmtime_r(&t, &got) : localtime_r(&t, &got)))
		return false;
	return got.tm_year == want->tm_year && got.tm_mon == want->tm_mon &&
	       got.tm_mday == want->tm_mday && got.tm_hour == want->tm_hour &&
	       got.tm_min == want->tm_min && got.tm_sec == want->tm_sec;
}

/* The time spec names (one that exists, in decimal), or false. */
static bool parse_time(struct exm_source *src, const char *spec,
		       struct timespec *t)
{
	struct timespec first;
	struct tm tm, day;
	unsigned long long secs;
	bool utc;
	time_t s;

	memset(t, 0, sizeof(*t));
	memset(&tm, 0, sizeof(tm));
	if (spec[0] == '@') {
		if (!exm_parse_unsigned(spec + 1, INT64_MAX, &secs))
			return false;
		t->tv_sec = (time_t)secs;
		return true;
	}
	utc = shaped(spec, "dddd-dd-ddTdd:dd:ddZ");
	if (utc || shaped(spec, "dddd-dd-ddTdd:dd:dd")) {
		if (!strptime(spec, "%Y-%m-%dT%H:%M:%S", &tm))
			return false;
		day = tm;
		tm.tm_isdst = -1;
		t->tv_sec = utc ? timegm(&tm) : mktime(&tm);
		return same_time(t->tv_sec, &day, utc);
	}
	if (!shaped(spec, "dd:dd:dd") || !strptime(spec, "%H:%M:%S", &tm) ||
	    exm_source_time(src, 0, &first))
		return false;
	/* on the day of the first snapshot, local time */
	s = first.tv_sec;
	localtime_r(&s, &day);
	day.tm_hour = tm.tm_hour;
	day.tm_min = tm.tm_min;
	day.tm_sec = tm.tm_sec;
	day.tm_isdst = -1;
	tm = day;
	t->tv_sec = mktime(&day);
	return same_time(t->tv_sec, &tm, false);
}

int tui_replay_pick(struct exm_source *src, const char *opt, const char *spec,
		    size_t *idx)
{
	size_t n = exm_source_count(src);
	unsigned long long k;
	struct timespec t, first;

	if (exm_parse_unsigned(spec, SIZE_MAX, &k)) {
		if (k < 1 || k > n) {
			tui_error("invalid value '%.64s' for %s: "
				  "the recording holds snapshots 1 to %zu",
				  spec, opt, n);
			return 2;
		}
		*idx = (size_t)k - 1;
		return 0;
	}
	if (!parse_time(src, spec, &t)) {
		tui_error("invalid value '%.64s' for %s: "
			  "expected a snapshot index or a time that "
			  "exists: @UNIXSECS, "
			  "YYYY-MM-DDTHH:MM:SS[Z] or HH:MM:SS",
			  spec, opt);
		return 2;
	}
	if (!exm_source_time(src, 0, &first) &&
	    (t.tv_sec < first.tv_sec ||
	     (t.tv_sec == first.tv_sec && t.tv_nsec < first.tv_nsec))) {
		/* no snapshot was taken at or before it */
		char when[32] = "?";
		struct tm tm;

		if (localtime_r(&first.tv_sec, &tm))
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		tui_error("invalid value '%.64s' for %s: before the first "
			  "snapshot (taken %s)",
			  spec, opt, when);
		return 2;
	}
	exm_source_seek_time(src, &t);
	*idx = exm_source_tell(src);
	return 0;
}
