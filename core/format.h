/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * format.h - turning values into text safely: human sizes, terminal-safe
 * escaping of attacker-controlled names, JSON and CSV quoting.
 */
#ifndef EXM_FORMAT_H
#define EXM_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/fields.h"

/* Human size: "0", "812K", "1.5M", "23G" (binary units, at most 5 chars
 * plus unit). Writes at most len bytes including the NUL. */
void exm_fmt_human(char *buf, size_t len, double bytes);

/*
 * Make untrusted text safe for a terminal: valid UTF-8 printable characters
 * pass through; control characters become \n, \t, \e, \xNN; invalid UTF-8
 * bytes become \xNN; a backslash becomes \\, so that no two texts escape
 * alike (a newline, and a backslash and an n). The one escaping of names
 * in text and CSV output, on the live screen and in OpenMetrics labels.
 * Always NUL-terminates within len (len >= 1), cut before an escape that
 * does not fit. Returns buf.
 */
char *exm_escape(char *buf, size_t len, const char *in);

/* The same for a message of one line (tui_error), with a backslash kept:
 * escaping what it escaped changes nothing, so a message may repeat text
 * escaped already. */
char *exm_escape_line(char *buf, size_t len, const char *in);

/* The most bytes exm_escape makes of n bytes, with the NUL (\xNN a
 * byte). */
#define EXM_ESCAPE_MAX(n) (4 * (size_t)(n) + 1)

/* exm_escape of the whole of in, never cut: at buf when it fits in len
 * bytes, else in memory of its own that the caller frees (the result is
 * not buf); cut at buf only when that memory cannot be had. */
char *exm_escape_all(char *buf, size_t len, const char *in);

/* Decimal digits of v at buf (at least 21 bytes, not NUL-terminated);
 * returns their number. */
size_t exm_fmt_u64(char *buf, uint64_t v);

/*
 * A size to a thousandth of a byte, trailing zeros dropped: exactly what
 * snprintf "%.3f" prints, less its trailing zeros and point, "-0" as "0"
 * (e.g. 28, 1.5, -0.333, inf). At buf (at least EXM_FMT_THOU_LEN bytes),
 * NUL-terminated; returns the length.
 */
#define EXM_FMT_THOU_LEN 64
size_t exm_fmt_thou(char *buf, double d);

/*
 * The number the user typed, in decimal only: digits, and with frac a
 * point and more digits; no sign, space, "0x", exponent or "inf". true with
 * *v set when s is one (an unsigned one at most max), else false.
 */
bool exm_parse_decimal(const char *s, bool frac, double *v);
bool exm_parse_unsigned(const char *s, unsigned long long max,
			unsigned long long *v);

/* Write s as a JSON string literal (with quotes) to f. */
void exm_json_str(FILE *f, const char *s);
/* Write s as one CSV field (quoted when needed) to f. */
void exm_csv_str(FILE *f, const char *s);

/*
 * Format value v of field f for display in a table cell: sizes human unless
 * exact_bytes, "-" for unmeasured. Text is escaped. Returns buf.
 */
char *exm_fmt_value(char *buf, size_t len, enum exm_field_id f,
		    const struct exm_value *v, bool exact_bytes);

#endif
