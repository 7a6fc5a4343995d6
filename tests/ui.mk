# tests/ui.mk: the live UI's curses-free logic (Criterion) and tmux screen
# tests of the real exmtop binary against the fixture source.
if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_ui
tests_unit_test_ui_SOURCES = \
	tests/unit/test_ui_view.c \
	tests/unit/test_ui_text.c \
	tests/unit/test_ui_rc.c \
	tests/unit/test_ui_scan.c \
	tui/view.c tui/view.h \
	tui/text.c tui/text.h \
	tui/rc.c tui/rc.h \
	tui/scan.c tui/scan.h
tests_unit_test_ui_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_ui_LDADD = $(CORE_LIBS) $(CRITERION_LIBS) -lpthread
TESTS += tests/unit/test_ui
endif
# tmux screen tests of the real binary (skipped, status 77, without tmux)
TESTS += tests/ui/test_ui.sh
EXTRA_DIST += tests/ui/test_ui.sh tests/tmux.sh
