# tui/: the exmtop program (live ncursesw UI and batch output).
bin_PROGRAMS += exmtop
exmtop_CPPFLAGS = $(AM_CPPFLAGS) $(NCURSESW_CFLAGS)
exmtop_SOURCES = \
	tui/main.c \
	tui/opts.c tui/opts.h \
	tui/query.c tui/query.h \
	tui/drive.c tui/drive.h \
	tui/batch.c tui/batch.h \
	tui/print.c tui/print.h \
	tui/batch_strip.c \
	tui/report.c tui/report.h \
	tui/keys.c tui/keys.h \
	tui/ui.c tui/ui.h tui/termcaps.c tui/termcaps.h
exmtop_LDADD = $(CORE_LIBS) $(NCURSESW_LIBS)
exmtop_SOURCES += tui/man.c tui/man.h tui/completion.c tui/completion.h

# The manual page comes from the program, so its field list is the field
# table's.
man_MANS = exmtop.1
CLEANFILES += exmtop.1
exmtop.1: exmtop$(EXEEXT)
	$(AM_V_GEN)./exmtop$(EXEEXT) --man > $@.tmp && mv $@.tmp $@
# Recordings: --record, --replay's snapshot choice, --diff.
exmtop_SOURCES += tui/replay.c tui/replay.h tui/diff.c tui/diff.h
