// SPDX-License-Identifier: GPL-2.0-or-later
/* text.c - display widths and column layout (no curses). */
#include "tui/text.h"

#include "core/format.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

/* Decode one character at s: bytes used (>= 1) and its width (>= 0). */
static size_t next_char(const char *s, size_t left, int *w)
{
	mbstate_t st;
	wchar_t wc;
	size_t k;

	memset(&st, 0, sizeof(st));
	k = mbrtowc(&wc, s, left, &st);
	if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
		*w = 1;
		return 1;
	}
	*w = wcwidth(wc);
	if (*w < 0)
		*w = 1;
	return k;
}

int tui_text_width(const char *s)
{
	size_t left = strlen(s);
	int total = 0;

	while (left) {
		int w;
		size_t k = next_char(s, left, &w);

		total += w;
		s += k;
		left -= k;
	}
	return total;
}

const char *tui_text_skip(const char *s, int cols, int *pad)
{
	size_t left = strlen(s);

	if (pad)
		*pad = 0;
	while (left && cols > 0) {
		int w;
		size_t k = next_char(s, left, &w);

		if (w > cols && pad)
			*pad = w - cols;
		cols -= w;
		s += k;
		left -= k;
	}
	return s;
}

char *tui_text_fit(char *out, size_t outlen, const char *s, int width,
		   bool right_align, bool ascii_only)
{
	size_t left = strlen(s), o = 0;
	int used = 0, pad;

	if (!outlen)
		return out;
	if (width < 0)
		width = 0;
	/* measure what fits */
	while (left) {
		int w;
		size_t k = next_char(s, left, &w);

		if (ascii_only)
			w = (int)k; /* each byte shows as one '?' */
		if (used + w > width)
			break;
		if (o + k + 1 > outlen)
			break;
		for (size_t i = 0; i < k; i++)
			out[o + i] = ascii_only && (unsigned char)s[i] >= 0x80
					     ? '?'
					     : s[i];
		o += k;
		used += w;
		s += k;
		left -= k;
	}
	pad = width - used;
	if (right_align && pad > 0 && o + (size_t)pad + 1 <= outlen) {
		memmove(out + pad, out, o);
		memset(out, ' ', (size_t)pad);
		o += (size_t)pad;
		pad = 0;
	}
	while (pad-- > 0 && o + 1 < outlen)
		out[o++] = ' ';
	out[o] = 0;
	return out;
}

char *tui_text_fit_tail(char *out, size_t outlen, const char *s, int width,
			bool ascii_only)
{
	const char *mark = ascii_only ? "<" : "\u2026"; /* … */
	size_t left = strlen(s), k;
	int total = tui_text_width(s), w;
	char tmp[2048];

	if (total <= width || width < 2)
		return tui_text_fit(out, outlen, s, width, false, ascii_only);
	/* drop characters from the front until the rest and the mark fit */
	while (left && total > width - 1) {
		k = next_char(s, left, &w);
		if (ascii_only)
			w = (int)k;
		total -= w;
		s += k;
		left -= k;
	}
	snprintf(tmp, sizeof(tmp), "%s%s", mark, s);
	return tui_text_fit(out, outlen, tmp, width, false, ascii_only);
}

bool tui_field_is_name(int f)
{
	switch (f) {
	case EXM_F_COMM:
	case EXM_F_CMD:
	case EXM_F_FILE:
	case EXM_F_GROUP:
	case EXM_F_SECTION:
	case EXM_F_SYMBOL:
		return true;
	default:
		return false;
	}
}

static int field_width(int f, int size_width)
{
	const struct exm_field *fd = &exm_fields[f];
	int w = fd->width;

	if (size_width &&
	    (fd->type == EXM_FT_SIZE || fd->type == EXM_FT_ESIZE) &&
	    w < size_width)
		w = size_width;
	/* room for the title and the sort mark after it */
	if (w < (int)strlen(fd->title) + 1)
		w = (int)strlen(fd->title) + 1;
	return w;
}

/* Width kept for the name column while other columns are placed. */
#define NAME_RESERVE 12

size_t tui_layout(const int *fields, size_t n, int width, int size_width,
		  struct tui_col *cols)
{
	size_t nc = 0;
	int used = 0, reserve = 0, stretch = -1, x = 0;

	/* the first name column keeps a minimum width: other columns are
	 * dropped from the right before it is squeezed out */
	for (size_t i = 0; i < n; i++) {
		int f = fields[i];

		if (f >= 0 && f < EXM_F__COUNT && tui_field_is_name(f)) {
			reserve = field_width(f, 0);
			if (reserve > NAME_RESERVE)
				reserve = NAME_RESERVE;
			break;
		}
	}
	for (size_t i = 0; i < n; i++) {
		int f = fields[i], w, need;
		bool name;

		if (f < 0 || f >= EXM_F__COUNT)
			continue;
		w = field_width(f, size_width);
		name = stretch < 0 && tui_field_is_name(f);
		need = used + (nc ? 1 : 0) + w;
		if (name) {
			if (need > width) {
				w = width - used - (nc ? 1 : 0);
				if (w < 4)
					continue;
			}
			reserve = 0;
			stretch = (int)nc;
		} else if (need + (reserve ? reserve + 1 : 0) > width) {
			continue;
		}
		cols[nc].field = f;
		cols[nc].w = w;
		nc++;
		used += (nc > 1 ? 1 : 0) + w;
	}
	if (stretch >= 0 && used < width)
		cols[stretch].w += width - used;
	for (size_t i = 0; i < nc; i++) {
		cols[i].x = x;
		x += cols[i].w + 1;
	}
	return nc;
}

void tui_error(const char *fmt, ...)
{
	char raw[1024], esc[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	fprintf(stderr, "exmtop: %s\n", exm_escape_line(esc, sizeof(esc), raw));
}

char *tui_text_or(char *buf, size_t len, const char *const *words, size_t n)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s",
				 !i	      ? ""
				 : i == n - 1 ? " or "
					      : ", ",
				 words[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return buf;
}
