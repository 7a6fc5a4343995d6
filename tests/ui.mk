# tests/ui.mk: the live UI's curses-free logic (Criterion) and tmux screen
# tests of the real exmtop binary against the fixture source.
if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_ui
tests_unit_test_ui_SOURCES = \
	tests/unit/test_ui_view.c \
	tests/unit/test_ui_text.c \
	tests/unit/test_ui_rc.c \
	tests/unit/test_ui_scan.c \
	tests/unit/test_ui_policy.c \
	tui/screen/view.c tui/screen/view.h \
	tui/screen/views.c tui/screen/views.h \
	tui/screen/view_elf.c tui/screen/view_elf.h \
	tui/screen/view_strip.c tui/screen/view_strip.h \
	tui/screen/view_report.c tui/screen/view_report.h tui/report.c tui/report.h \
	tui/print.c tui/print.h \
	tui/screen/keys.c tui/screen/keys.h \
	tui/screen/policy.c tui/screen/policy.h \
	tui/text.c tui/text.h \
	tui/rc.c tui/rc.h \
	tui/screen/scan.c tui/screen/scan.h
tests_unit_test_ui_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_ui_LDADD = $(CORE_LIBS) $(CRITERION_LIBS) -lpthread
TESTS += tests/unit/test_ui
endif
# tmux screen tests of the real binary, one case a file (skipped, status
# 77, without tmux); tests/ui/lib.sh is their shared helper.
UI_TESTS = \
	tests/ui/default_screen.sh tests/ui/sort.sh tests/ui/sort_option.sh \
	tests/ui/sort_natural.sh tests/ui/drill_down.sh \
	tests/ui/files_pane.sh tests/ui/files_option.sh tests/ui/filter.sh \
	tests/ui/search.sh tests/ui/user_filter.sh tests/ui/group.sh \
	tests/ui/help.sh tests/ui/full_command.sh tests/ui/columns.sh \
	tests/ui/fields_option.sh tests/ui/save.sh tests/ui/delay_pause.sh \
	tests/ui/iterations.sh tests/ui/hostile_names.sh tests/ui/resize.sh \
	tests/ui/tiny_start.sh tests/ui/signals.sh tests/ui/terms.sh \
	tests/ui/no_color.sh tests/ui/bad_source.sh tests/ui/scroll_many.sh \
	tests/ui/typeahead.sh tests/ui/idle_cpu.sh tests/ui/mouse.sh \
	tests/ui/responsive.sh tests/ui/page_strip.sh \
	tests/ui/delta_column.sh tests/ui/file_strip.sh tests/ui/report_keys.sh \
	tests/ui/report_hscroll.sh tests/ui/dumb_term.sh tests/ui/first_keys.sh
# every setting of the settings table: command line, file (W), prompt
UI_TESTS += tests/ui/settings_roundtrip.sh
# recordings: stepping through a replay, delta mode, the system view
UI_TESTS += tests/ui/replay_step.sh tests/ui/delta_mode.sh \
	tests/ui/replay_system.sh
# every alias of the key table, b, a replay playing on (p), --record
# --watch
UI_TESTS += tests/ui/key_aliases.sh tests/ui/bytes_key.sh \
	tests/ui/replay_play.sh tests/ui/record_watch.sh
# tagging processes (t, T) and the summary against batch --freed
UI_TESTS += tests/ui/tag_summary.sh
# views that need page words, opened while the snapshot on screen keeps
# only its sizes (the live screen's memory)
UI_TESTS += tests/ui/slim_views.sh
# the terminal closed under a running exmtop (a dropped SSH connection)
UI_TESTS += tests/ui/hangup.sh
TESTS += $(UI_TESTS)
EXTRA_DIST += $(UI_TESTS) tests/ui/lib.sh tests/tmux.sh
# Golden batch output (text, CSV, JSON of the fixtures) and exit statuses;
# the golden JSON checked against the figures tests/golden/expect.py
# computes from the fixtures itself; test_modes.py: every batch mode with
# every option its entry of the table of modes takes, and every option it
# refuses (--list-modes drives it)
TESTS += tests/golden/test_golden.sh tests/golden/test_cli.sh \
	tests/golden/test_modes.py
EXTRA_DIST += tests/golden
# The directory is distributed whole, and automake copies the build tree's
# copy of it too: a build that ran the golden tests has their logs there,
# which would make the distribution's own check fail. They are not source.
dist-hook: dist-drop-test-logs
dist-drop-test-logs:
	rm -f $(distdir)/tests/golden/*.log $(distdir)/tests/golden/*.trs
.PHONY: dist-drop-test-logs
