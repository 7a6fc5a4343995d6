# tui/: the exmtop program (live ncursesw UI and batch output).
bin_PROGRAMS += exmtop
exmtop_CPPFLAGS = $(AM_CPPFLAGS) $(NCURSESW_CFLAGS)
exmtop_SOURCES = \
	tui/main.c tui/opts.h \
	tui/batch.c tui/batch.h \
	tui/ui.c tui/ui.h
exmtop_LDADD = $(CORE_LIBS) $(NCURSESW_LIBS)
