// SPDX-License-Identifier: GPL-2.0-or-later
/* Display widths, fitting text into cells and column layout. */
#include <criterion/criterion.h>
#include <locale.h>
#include <string.h>

#include "core/fields.h"
#include "tui/rc.h"
#include "tui/text.h"

static void utf8(void)
{
	cr_assert_not_null(setlocale(LC_CTYPE, "C.UTF-8"));
}

Test(ui_text, widths, .init = utf8)
{
	cr_assert_eq(tui_text_width(""), 0);
	cr_assert_eq(tui_text_width("abc"), 3);
	cr_assert_eq(tui_text_width("na\xc3\xafve"), 5); /* naïve */
	cr_assert_eq(tui_text_width("\xe6\xbc\xa2\xe5\xad\x97"), 4); /* 漢字 */
	cr_assert_eq(tui_text_width("\xff"), 1); /* invalid byte: 1 cell */
}

Test(ui_text, fit_pads_and_cuts, .init = utf8)
{
	char b[64];

	cr_assert_str_eq(tui_text_fit(b, sizeof(b), "ab", 5, false, false),
			 "ab   ");
	cr_assert_str_eq(tui_text_fit(b, sizeof(b), "ab", 5, true, false),
			 "   ab");
	cr_assert_str_eq(tui_text_fit(b, sizeof(b), "abcdef", 3, false, false),
			 "abc");
	cr_assert_str_eq(tui_text_fit(b, sizeof(b), "abc", 0, false, false),
			 "");
	/* a wide character never straddles the edge */
	cr_assert_str_eq(tui_text_fit(b, sizeof(b),
				      "a\xe6\xbc\xa2"
				      "b",
				      2, false, false),
			 "a ");
	cr_assert_str_eq(tui_text_fit(b, sizeof(b),
				      "a\xe6\xbc\xa2"
				      "b",
				      3, false, false),
			 "a\xe6\xbc\xa2");
	cr_assert_eq(tui_text_width(tui_text_fit(b, sizeof(b),
						 "\xe6\xbc\xa2\xe5\xad\x97", 3,
						 false, false)),
		     3);
	/* no multibyte sequence is cut in half */
	tui_text_fit(b, sizeof(b), "\xc3\xaf\xc3\xaf", 1, false, false);
	cr_assert_str_eq(b, "\xc3\xaf");
	/* a small buffer is never overrun */
	tui_text_fit(b, 4, "abcdef", 10, false, false);
	cr_assert_str_eq(b, "abc");
}

Test(ui_text, ascii_only_for_other_locales, .init = utf8)
{
	char b[64];

	tui_text_fit(b, sizeof(b), "na\xc3\xafve", 8, false, true);
	cr_assert_str_eq(b, "na??ve  ");
	for (const char *p = b; *p; p++)
		cr_assert_lt((unsigned char)*p, 0x80);
}

static int width_of(const struct tui_col *c, size_t n)
{
	return (int)(c[n - 1].x + c[n - 1].w);
}

Test(ui_text, layout_fills_the_screen_with_the_name_column)
{
	const int *def = exm_table_default_fields(EXM_T_PROCS);
	size_t n = tui_fields_count(def), nc;
	struct tui_col c[TUI_MAX_COLS];

	nc = tui_layout(def, n, 200, 0, c);
	cr_assert_eq(nc, n);
	cr_assert_eq(width_of(c, nc), 200);
	cr_assert_eq(c[nc - 1].field, EXM_F_CMD);
	for (size_t i = 1; i < nc; i++)
		cr_assert_eq(c[i].x, c[i - 1].x + c[i - 1].w + 1);
	/* every column has room for its title and the sort mark */
	for (size_t i = 0; i < nc; i++)
		cr_assert_gt(c[i].w, (int)strlen(exm_fields[c[i].field].title));

	nc = tui_layout(def, n, 80, 0, c);
	cr_assert_eq(c[nc - 1].field, EXM_F_CMD);
	cr_assert_leq(width_of(c, nc), 80);
	cr_assert_geq(c[nc - 1].w, 4);
}

Test(ui_text, layout_drops_what_does_not_fit)
{
	const int *def = exm_table_default_fields(EXM_T_PROCS);
	size_t n = tui_fields_count(def), nc;
	struct tui_col c[TUI_MAX_COLS];

	nc = tui_layout(def, n, 20, 0, c);
	cr_assert_geq(nc, 1);
	cr_assert_lt(nc, n);
	cr_assert_leq(width_of(c, nc), 20);
	cr_assert_eq(tui_layout(def, n, 3, 0, c), 0);
	/* exact byte counts widen size columns */
	nc = tui_layout(def, n, 300, 13, c);
	for (size_t i = 0; i < nc; i++)
		if (c[i].field == EXM_F_RSS)
			cr_assert_eq(c[i].w, 13);
}

Test(ui_text, paths_keep_their_end, .init = utf8)
{
	char b[64];

	cr_assert_str_eq(tui_text_fit_tail(b, sizeof(b), "/a/b", 6, false),
			 "/a/b  ");
	cr_assert_str_eq(tui_text_fit_tail(b, sizeof(b), "/usr/lib/libc.so.6",
					   10, false),
			 "\xe2\x80\xa6libc.so.6");
	cr_assert_eq(tui_text_width(b), 10);
	cr_assert_str_eq(tui_text_fit_tail(b, sizeof(b), "/usr/lib/libc.so.6",
					   10, true),
			 "<libc.so.6");
	/* wide characters at the cut */
	tui_text_fit_tail(b, sizeof(b), "/\xe6\xbc\xa2\xe5\xad\x97/x", 4,
			  false);
	cr_assert_eq(tui_text_width(b), 4);
	cr_assert_str_eq(b, "\xe2\x80\xa6/x ");
}

Test(ui_text, skip_columns_from_the_left, .init = utf8)
{
	int pad;

	cr_assert_str_eq(tui_text_skip("abcdef", 2, &pad), "cdef");
	cr_assert_eq(pad, 0);
	cr_assert_str_eq(tui_text_skip("abc", 0, &pad), "abc");
	cr_assert_str_eq(tui_text_skip("abc", -3, &pad), "abc");
	cr_assert_str_eq(tui_text_skip("abc", 9, &pad), "");
	/* é is one column; 中 is two: cut in two, skipped, one space left */
	cr_assert_str_eq(tui_text_skip("\xc3\xa9x", 1, &pad), "x");
	cr_assert_str_eq(tui_text_skip("a\xe4\xb8\xad"
				       "b",
				       2, &pad),
			 "b");
	cr_assert_eq(pad, 1);
	cr_assert_str_eq(tui_text_skip("a\xe4\xb8\xad"
				       "b",
				       3, &pad),
			 "b");
	cr_assert_eq(pad, 0);
	cr_assert_str_eq(tui_text_skip("\xff"
				       "ab",
				       1, NULL),
			 "ab");
}

Test(ui_text, or_lists_a_choice)
{
	const char *const w[] = { "text", "csv", "json", "openmetrics" };
	char b[64], small[8];

	cr_assert_str_eq(tui_text_or(b, sizeof(b), w, 0), "");
	cr_assert_str_eq(tui_text_or(b, sizeof(b), w, 1), "text");
	cr_assert_str_eq(tui_text_or(b, sizeof(b), w, 2), "text or csv");
	cr_assert_str_eq(tui_text_or(b, sizeof(b), w, 4),
			 "text, csv, json or openmetrics");
	/* cut to fit, still a string */
	cr_assert_str_eq(tui_text_or(small, sizeof(small), w, 4), "text, c");
}
