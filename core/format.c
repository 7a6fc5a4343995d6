// SPDX-License-Identifier: GPL-2.0-or-later
/* format.c - sizes, escaping, JSON/CSV quoting; see format.h. */
#include "core/format.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void exm_fmt_human(char *buf, size_t len, double bytes)
{
	static const char units[] = "KMGTPE";
	double v = bytes;
	int u = -1;

	if (v < 0)
		v = 0;
	if (v < 1024) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	do {
		v /= 1024;
		u++;
	} while (v >= 999.5 && u < 5);
	if (v < 9.95)
		snprintf(buf, len, "%.1f%c", v, units[u]);
	else
		snprintf(buf, len, "%.0f%c", v, units[u]);
}

size_t exm_fmt_u64(char *buf, uint64_t v)
{
	char tmp[20];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/* snprintf's way, for what the exact way below does not cover. */
static size_t thou_printf(char *buf, double d)
{
	int n = snprintf(buf, EXM_FMT_THOU_LEN, "%.3f", d);

	if (n < 0 || n >= EXM_FMT_THOU_LEN) /* cannot happen below 1e60 */
		return strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = 0;
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = 0;
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
	return (size_t)n;
}

size_t exm_fmt_thou(char *buf, double d)
{
#if LDBL_MANT_DIG >= 64
	long double a = fabs(d), r, rem;
	uint64_t ip, q;
	size_t n = 0;

	/*
	 * Exact, as printf rounds: the fraction of a double below 2^50 is
	 * exact, and a thousand times it (at most 53 + 10 significant bits)
	 * is exact in a 64-bit mantissa; then round half to even.
	 */
	if (!(a < 0x1p50L))
		return thou_printf(buf, d);
	ip = (uint64_t)a;
	r = (a - (long double)ip) * 1000;
	q = (uint64_t)r;
	rem = r - (long double)q;
	if (rem > 0.5L || (rem == 0.5L && (q & 1)))
		q++;
	if (q == 1000) {
		ip++;
		q = 0;
	}
	if (d < 0 && (ip || q))
		buf[n++] = '-';
	n += exm_fmt_u64(buf + n, ip);
	if (q) {
		buf[n++] = '.';
		buf[n++] = (char)('0' + q / 100);
		q %= 100;
		if (q) {
			buf[n++] = (char)('0' + q / 10);
			if (q % 10)
				buf[n++] = (char)('0' + q % 10);
		}
	}
	buf[n] = 0;
	return n;
#else
	return thou_printf(buf, d);
#endif
}

/* Length of the valid UTF-8 sequence at s (1-4) and its code point, or 0
 * when s does not start a valid, shortest-form sequence. */
static int utf8_seq(const unsigned char *s, size_t avail, uint32_t *cp)
{
	uint32_t c;
	int n;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	if ((size_t)n > avail)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Code points that must not reach a terminal raw: C0, DEL, C1, and the
 * bidirectional overrides and line separators that reorder display. */
static bool cp_unsafe(uint32_t c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) ||
	       c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0x200e || c == 0x200f;
}

/* exm_escape (exact: a backslash doubled) and exm_escape_line (a
 * backslash kept) in one place. */
static char *escape(char *buf, size_t len, const char *in, bool exact)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t slen = strlen(in), o = 0;

	if (!len)
		return buf;
	for (size_t i = 0; i < slen;) {
		char tmp[16];
		size_t tl;
		uint32_t cp;
		int n = utf8_seq(s + i, slen - i, &cp);

		if (exact && n == 1 && cp == '\\') {
			tl = (size_t)snprintf(tmp, sizeof(tmp), "\\\\");
		} else if (n && !cp_unsafe(cp)) {
			memcpy(tmp, s + i, (size_t)n);
			tl = (size_t)n;
		} else if (n == 1 && cp == '\n') {
			tl = (size_t)snprintf(tmp, sizeof(tmp), "\\n");
		} else if (n == 1 && cp == '\t') {
			tl = (size_t)snprintf(tmp, sizeof(tmp), "\\t");
		} else if (n == 1 && cp == 0x1b) {
			tl = (size_t)snprintf(tmp, sizeof(tmp), "\\e");
		} else if (n > 1) {
			tl = (size_t)snprintf(tmp, sizeof(tmp), "\\u%04x",
					      (unsigned)cp);
		} else {
			n = 1;
			tl = (size_t)snprintf(tmp, sizeof(tmp), "\\x%02x",
					      s[i]);
		}
		if (o + tl >= len)
			break;
		memcpy(buf + o, tmp, tl);
		o += tl;
		i += (size_t)n;
	}
	buf[o] = '\0';
	return buf;
}

char *exm_escape(char *buf, size_t len, const char *in)
{
	return escape(buf, len, in, true);
}

char *exm_escape_line(char *buf, size_t len, const char *in)
{
	return escape(buf, len, in, false);
}

char *exm_escape_all(char *buf, size_t len, const char *in)
{
	size_t need = EXM_ESCAPE_MAX(strlen(in));
	char *big;

	if (need <= len)
		return escape(buf, len, in, true);
	big = malloc(need);
	return escape(big ? big : buf, big ? need : len, in, true);
}

bool exm_parse_decimal(const char *s, bool frac, double *v)
{
	const char *p = s;
	char *end;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == s)
		return false;
	if (frac && *p == '.') {
		const char *q = ++p;

		while (*p >= '0' && *p <= '9')
			p++;
		if (p == q)
			return false;
	}
	if (*p)
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return !errno && end == p;
}

bool exm_parse_unsigned(const char *s, unsigned long long max,
			unsigned long long *v)
{
	char *end;

	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	if (!*s)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end && *v <= max;
}

void exm_json_str(FILE *f, const char *s)
{
	static const char json_short[] = "\b\f\n\r\t";
	const unsigned char *p = (const unsigned char *)s;
	size_t slen = strlen(s), run = 0; /* p[run, i): plain, unwritten */

	fputc('"', f);
	for (size_t i = 0; i < slen;) {
		const char *e;
		uint32_t cp;
		int n;

		/* plain ASCII, the common case, goes out in one write */
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' &&
		    p[i] != '\\') {
			i++;
			continue;
		}
		n = utf8_seq(p + i, slen - i, &cp);
		if (n && cp >= 0x80) {
			i += (size_t)n;
			continue;
		}
		fwrite(p + run, 1, i - run, f);
		if (!n) {
			/* Invalid UTF-8 stays visible as text: \xNN. */
			fprintf(f, "\\\\x%02x", p[i]);
			n = 1;
		} else if (cp == '"' || cp == '\\') {
			fprintf(f, "\\%c", (int)cp);
		} else if (cp && (e = strchr(json_short, (int)cp))) {
			/* JSON's own escapes where it has them */
			fprintf(f, "\\%c", "bfnrt"[e - json_short]);
		} else {
			fprintf(f, "\\u%04x", (unsigned)cp);
		}
		i += (size_t)n;
		run = i;
	}
	fwrite(p + run, 1, slen - run, f);
	fputc('"', f);
}

void exm_csv_str(FILE *f, const char *s)
{
	char buf[1024];
	char *e = exm_escape_all(buf, sizeof(buf), s);

	if (!strpbrk(e, ",\"") && e[0] != ' ' &&
	    (!e[0] || e[strlen(e) - 1] != ' ')) {
		fputs(e, f);
	} else {
		fputc('"', f);
		for (const char *p = e; *p; p++) {
			if (*p == '"')
				fputc('"', f);
			fputc(*p, f);
		}
		fputc('"', f);
	}
	if (e != buf)
		free(e);
}

char *exm_fmt_value(char *buf, size_t len, enum exm_field_id f,
		    const struct exm_value *v, bool exact_bytes)
{
	enum exm_ftype t = (unsigned)f < EXM_F__COUNT ? exm_fields[f].type
						      : EXM_FT_STR;

	switch (v->type) {
	case EXM_V_NONE:
		snprintf(buf, len, "-");
		break;
	case EXM_V_STR:
		exm_escape(buf, len, v->s);
		break;
	case EXM_V_INT:
		if (t == EXM_FT_ADDR)
			snprintf(buf, len, "%" PRIx64, v->u);
		else if (t == EXM_FT_SIZE && !exact_bytes)
			exm_fmt_human(buf, len, (double)v->u);
		else if (t == EXM_FT_SINT)
			snprintf(buf, len, "%" PRId64, (int64_t)v->u);
		else
			snprintf(buf, len, "%" PRIu64, v->u);
		break;
	case EXM_V_DBL:
		if (!exact_bytes)
			exm_fmt_human(buf, len, v->d);
		else if (v->d == floor(v->d))
			snprintf(buf, len, "%.0f", v->d);
		else
			snprintf(buf, len, "%.2f", v->d);
		break;
	case EXM_V_DELTA:
		if (exact_bytes) {
			snprintf(buf, len,
				 v->d == floor(v->d) ? "%+.0f" : "%+.2f", v->d);
		} else if (fabs(v->d) < 0.5) {
			snprintf(buf, len, "0");
		} else {
			char h[16];

			exm_fmt_human(h, sizeof(h), fabs(v->d));
			snprintf(buf, len, "%c%s", v->d < 0 ? '-' : '+', h);
		}
		break;
	}
	return buf;
}
