# tui/ui.mk: the live UI (ui.c draws; the other files are curses-free and
# unit-tested in tests/ui.mk) and core/group.c (grouping of processes).
core_libexmcore_a_SOURCES += core/group.c core/group.h \
	core/strip.c core/strip.h
exmtop_SOURCES += \
	tui/view.c tui/view.h \
	tui/views.c tui/views.h \
	tui/view_strip.c tui/view_strip.h \
	tui/view_report.c tui/view_report.h \
	tui/policy.c tui/policy.h \
	tui/live.c tui/live.h \
	tui/tags.c tui/tags.h \
	tui/menu.c tui/menu.h \
	tui/prompt.c tui/prompt.h \
	tui/text.c tui/text.h \
	tui/rc.c tui/rc.h \
	tui/scan.c tui/scan.h
exmtop_LDADD += -lpthread
