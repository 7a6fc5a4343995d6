// SPDX-License-Identifier: GPL-2.0-or-later
/* keys.c - the table of keys; see keys.h. */
#include "tui/screen/keys.h"

#include "tui/report.h"

#define F(n) TUI_KEY_F(n)

/* clang-format off */
const struct tui_key tui_keys[] = {
	{ .keys = { TUI_KEY_UP, 'k' }, .names = "Up k", .act = TUI_A_UP,
	  .help = "move up (mouse: click, wheel, header sorts)" },
	{ .keys = { TUI_KEY_DOWN, 'j' }, .names = "Down j",
	  .act = TUI_A_DOWN, .help = "move down" },
	{ .keys = { TUI_KEY_PPAGE }, .names = "PgUp", .act = TUI_A_PGUP,
	  .help = "page up" },
	{ .keys = { TUI_KEY_NPAGE }, .names = "PgDn", .act = TUI_A_PGDN,
	  .help = "page down" },
	{ .keys = { TUI_KEY_HOME }, .names = "Home", .act = TUI_A_HOME,
	  .help = "first row" },
	{ .keys = { TUI_KEY_END }, .names = "End", .act = TUI_A_END,
	  .help = "last row" },
	{ .keys = { '\n', '\r', TUI_KEY_ENTER, TUI_KEY_RIGHT, 'l' },
	  .names = "Enter Right l", .act = TUI_A_ENTER,
	  .help = "drill down: process > files > mappings > page strip\n"
		  "(Enter on an ELF section: its symbols)",
	  .bar = "In", .bar_key = "Enter", .bar_pos = 8 },
	{ .keys = { TUI_KEY_BACKSPACE, TUI_KEY_LEFT, TUI_KEY_ESC, 127, 8 },
	  .names = "Backspace Esc Left", .act = TUI_A_BACK,
	  .help = "back up the breadcrumb", .bar = "Out", .bar_key = "Bksp",
	  .bar_pos = 9 },
	{ .keys = { '\t' }, .names = "Tab", .act = TUI_A_PANE,
	  .help = "switch Processes / Files pane", .bar = "Files",
	  .bar_alt = "Procs", .bar_key = "Tab", .bar_pos = 7 },
	{ .keys = { 'e' }, .names = "e", .act = TUI_A_ELF,
	  .help = "ELF sections of the file or mapping (when available)\n"
		  "(e on a section: the processes behind it)" },
	{ .keys = { 'm' }, .names = "m", .act = TUI_A_DEMANGLE,
	  .help = "C++ demangling of symbols on / off" },
	{ .keys = { F(6), 'o' }, .names = "F6 o", .act = TUI_A_SORT_MENU,
	  .help = "choose the sort column", .bar = "SortBy", .bar_key = "F6",
	  .bar_pos = 6 },
	{ .keys = { '<', ',' }, .names = "< ,", .act = TUI_A_SORT_LEFT,
	  .help = "sort by the column to the left" },
	{ .keys = { '>', '.' }, .names = "> .", .act = TUI_A_SORT_RIGHT,
	  .help = "sort by the column to the right" },
	{ .keys = { 'r', 'I' }, .names = "r I", .act = TUI_A_SORT_REV,
	  .help = "reverse the sort order" },
	{ .keys = { F(3), '/' }, .names = "F3 /", .act = TUI_A_SEARCH,
	  .help = "search (F3 in the search line: next match)",
	  .bar = "Search", .bar_key = "F3", .bar_pos = 3 },
	{ .keys = { 'n' }, .names = "n", .act = TUI_A_NEXT,
	  .help = "next match" },
	{ .keys = { 'N' }, .names = "N", .act = TUI_A_PREV,
	  .help = "previous match" },
	{ .keys = { F(4), '\\' }, .names = "F4 \\", .act = TUI_A_FILTER,
	  .help = "filter rows (name, command, user, file);\n"
		  "Esc in the filter line clears it",
	  .bar = "Filter", .bar_key = "F4", .bar_pos = 4 },
	{ .keys = { 'u' }, .names = "u", .act = TUI_A_USER,
	  .help = "show only one user's processes" },
	{ .keys = { F(5), 'g' }, .names = "F5 g", .act = TUI_A_GROUP,
	  .help = "group: process / program / user / cgroup", .bar = "Group",
	  .bar_key = "F5", .bar_pos = 5 },
	{ .keys = { 'c' }, .names = "c", .act = TUI_A_FULL_CMD,
	  .help = "full command lines on / off" },
	{ .keys = { 'b' }, .names = "b", .act = TUI_A_BYTES,
	  .help = "exact byte counts on / off" },
	{ .keys = { F(2), 'f' }, .names = "F2 f", .act = TUI_A_COLUMNS,
	  .help = "choose columns ([ ] move, space toggles)", .bar = "Cols",
	  .bar_key = "F2", .bar_pos = 2 },
	{ .keys = { 'W' }, .names = "W", .act = TUI_A_SAVE,
	  .help = "save settings to ~/.config/exmtop/exmtoprc" },
	{ .keys = { 'd', 's' }, .names = "d s", .act = TUI_A_DELAY,
	  .help = "change the refresh interval" },
	{ .keys = { 'A' }, .names = "A", .act = TUI_A_REPORT,
	  .report = &tui_reports[TUI_REPORT_ALERTS],
	  .help = "alerts: text relocations, copy-on-write data, growth, "
		  "Pss" },
	{ .keys = { 'S' }, .names = "S", .act = TUI_A_REPORT,
	  .report = &tui_reports[TUI_REPORT_SYSTEM],
	  .help = "system view: all of RAM, rows adding up to MemTotal" },
	{ .keys = { 'U' }, .names = "U", .act = TUI_A_REPORT,
	  .report = &tui_reports[TUI_REPORT_UNITS],
	  .help = "programs and libraries: text, data and bss" },
	{ .keys = { 'K' }, .names = "K", .act = TUI_A_REPORT,
	  .report = &tui_reports[TUI_REPORT_BREAKDOWN],
	  .help = "each process by kind: stack, heap, text, data, bss" },
	{ .keys = { TUI_KEY_SLEFT, 'H' }, .names = "Shift-Left H",
	  .act = TUI_A_SCROLL_LEFT,
	  .help = "scroll a wide report left (Left too, then out)" },
	{ .keys = { TUI_KEY_SRIGHT, 'L' }, .names = "Shift-Right L",
	  .act = TUI_A_SCROLL_RIGHT,
	  .help = "scroll a wide report right (Right too)" },
	{ .keys = { 't' }, .names = "t", .act = TUI_A_TAG,
	  .help = "tag or untag the process (a group: its processes); the "
		  "bottom\nline sums what stopping the tagged ones gives back" },
	{ .keys = { 'T' }, .names = "T", .act = TUI_A_UNTAG_ALL,
	  .help = "untag every process" },
	{ .keys = { ' ' }, .names = "Space", .act = TUI_A_REFRESH,
	  .help = "refresh now" },
	{ .keys = { 'p', 'Z' }, .names = "p Z", .act = TUI_A_PAUSE,
	  .help = "pause / resume refreshing" },
	{ .keys = { '[' }, .names = "[", .act = TUI_A_REPLAY_PREV,
	  .help = "replay: the snapshot before" },
	{ .keys = { ']' }, .names = "]", .act = TUI_A_REPLAY_NEXT,
	  .help = "replay: the snapshot after (p plays on)" },
	{ .keys = { '{' }, .names = "{", .act = TUI_A_REPLAY_FIRST,
	  .help = "replay: the first snapshot" },
	{ .keys = { '}' }, .names = "}", .act = TUI_A_REPLAY_LAST,
	  .help = "replay: the last snapshot" },
	{ .keys = { 'D' }, .names = "D", .act = TUI_A_DELTA,
	  .help = "delta mode on / off: every size as its growth since the "
		  "baseline\n(new rows grow by all they have)" },
	{ .keys = { 'B' }, .names = "B", .act = TUI_A_BASELINE,
	  .help = "make the snapshot on screen the baseline (delta mode on)" },
	{ .keys = { TUI_KEY_CTRL('l') }, .names = "Ctrl-L",
	  .act = TUI_A_REDRAW, .help = "redraw the screen" },
	{ .keys = { F(1), 'h', '?' }, .names = "F1 h ?", .act = TUI_A_HELP,
	  .help = "this help", .bar = "Help", .bar_key = "F1",
	  .bar_pos = 1 },
	{ .keys = { F(10), 'q' }, .names = "F10 q", .act = TUI_A_QUIT,
	  .help = "quit", .bar = "Quit", .bar_key = "F10", .bar_pos = 10 },
};
/* clang-format on */
const size_t tui_nkeys = sizeof(tui_keys) / sizeof(tui_keys[0]);

const char *const tui_help_intro[] = {
	"exmtop - what each process really costs in memory",
	"",
	"Effective resident (EFF.RES): each resident page's size divided among",
	"the processes mapping it, so the column adds up to the RAM in use.",
	"RES counts every page fully; SOLE what is mapped only once; WRITE",
	"is private memory the process could write without a copy; PSS is the",
	"kernel's own figure (smaps_rollup). '-' means it could not be measured.",
	"",
	NULL,
};

const char *const tui_help_outro[] = {
	"",
	"Colours: EFF.RES in cyan when pages are shared, green when private.",
	"Page strip: . not resident, 1-9 processes mapping the page, # ten or",
	"more, s swapped out.",
	"Press any key to return.",
	NULL,
};

const struct tui_key *tui_key_find(int k)
{
	for (size_t i = 0; i < tui_nkeys; i++)
		for (const int *c = tui_keys[i].keys; *c; c++)
			if (*c == k)
				return &tui_keys[i];
	return NULL;
}

enum tui_act tui_key_action(int k)
{
	const struct tui_key *e = tui_key_find(k);

	return e ? e->act : TUI_A_NONE;
}

const struct tui_key *tui_key_bar(int pos)
{
	for (size_t i = 0; i < tui_nkeys; i++)
		if (tui_keys[i].bar_pos == pos)
			return &tui_keys[i];
	return NULL;
}
