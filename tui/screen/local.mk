# tui/screen/: the live screen. ui.c draws (ncursesw) and runs the loop;
# termcaps.c asks terminfo before curses starts; every other file is
# curses-free and unit-tested (tests/ui.mk, tests/elf.mk): live.c the
# state and what keys do, keys.c the key table, views.c and view*.c the
# lists and drill-downs, policy.c and scan.c what snapshots read and when,
# menu.c, prompt.c and tags.c the overlays, bottom line and tagged rows.
exmtop_SOURCES += \
	tui/screen/keys.c tui/screen/keys.h \
	tui/screen/ui.c tui/screen/ui.h \
	tui/screen/termcaps.c tui/screen/termcaps.h \
	tui/screen/view_elf.c tui/screen/view_elf.h \
	tui/screen/view.c tui/screen/view.h \
	tui/screen/views.c tui/screen/views.h \
	tui/screen/view_strip.c tui/screen/view_strip.h \
	tui/screen/view_report.c tui/screen/view_report.h \
	tui/screen/policy.c tui/screen/policy.h \
	tui/screen/live.c tui/screen/live.h \
	tui/screen/tags.c tui/screen/tags.h \
	tui/screen/menu.c tui/screen/menu.h \
	tui/screen/prompt.c tui/screen/prompt.h \
	tui/screen/scan.c tui/screen/scan.h
exmtop_LDADD += -lpthread
