# tui/: the exmtop program. Here what both rooms use: main.c, the command
# line (opts.c), the settings (rc.c), what to list (query.c), recordings
# (replay.c), the reports (report.c), text layout (text.c), the manual and
# the completion; the live screen is in tui/screen/, batch output in
# tui/batch/, each with its own local.mk.
bin_PROGRAMS += exmtop
exmtop_CPPFLAGS = $(AM_CPPFLAGS) $(NCURSESW_CFLAGS)
exmtop_SOURCES = \
	tui/main.c \
	tui/opts.c tui/opts.h \
	tui/query.c tui/query.h \
	tui/print.c tui/print.h \
	tui/report.c tui/report.h
exmtop_LDADD = $(CORE_LIBS) $(NCURSESW_LIBS)
exmtop_SOURCES += \
	tui/man.c tui/man.h \
	tui/completion.c tui/completion.h

# The manual page comes from the program, so its field list is the field
# table's.
man_MANS = exmtop.1
CLEANFILES += exmtop.1
exmtop.1: exmtop$(EXEEXT)
	$(AM_V_GEN)./exmtop$(EXEEXT) --man > $@.tmp && mv $@.tmp $@
# Recordings: --record, --replay's snapshot choice.
exmtop_SOURCES += \
	tui/replay.c tui/replay.h
exmtop_SOURCES += \
	tui/text.c tui/text.h \
	tui/rc.c tui/rc.h
