# core/: the engine library. No curses here: the flags below carry no
# ncurses include path, so a stray #include <curses.h> fails the build.
noinst_LIBRARIES += core/libexmcore.a
core_libexmcore_a_CPPFLAGS = $(AM_CPPFLAGS) $(LIBELF_CFLAGS) $(SQLITE3_CFLAGS) \
	$(ZLIB_CFLAGS)
core_libexmcore_a_SOURCES = \
	core/snapshot.c core/snapshot.h \
	core/meminfo.c core/meminfo.h \
	core/pagemap.h \
	core/pagecount.c core/pagecount.h \
	core/kpageflags.c core/kpageflags.h \
	core/kconfig.c core/kconfig.h \
	core/parallel.c core/parallel.h \
	core/hugemem.c core/hugemem.h \
	core/procfs.c core/procfs.h \
	core/account.c core/account.h \
	core/exclusive.c core/exclusive.h \
	core/cgcharge.c core/cgcharge.h \
	core/procset.c core/procset.h \
	core/builder.c core/builder.h \
	core/source.c core/source.h \
	core/source_priv.h core/procwalk.c \
	core/reuse.c core/reuse.h \
	core/source_kmod.c kernel/exmap_abi.h \
	core/source_pagemap.c \
	core/source_smaps.c \
	core/source_fixture.c \
	core/source_replay.c core/source_replay.h \
	core/record.h core/record_schema.c core/record_schema.h \
	core/record_write.c core/record_read.c \
	core/ownfiles.c core/ownfiles.h \
	core/diff.c core/diff.h \
	core/table.c core/table.h \
	core/fields.c core/fields.h \
	core/format.c core/format.h \
	core/outfile.c core/outfile.h
CORE_LIBS = core/libexmcore.a $(LIBELF_LIBS) $(SQLITE3_LIBS) $(ZLIB_LIBS) \
	-lm -lpthread
# The paper's analyses: alerts, executable units, the system view, the
# OpenMetrics export and the per-file page strip.
core_libexmcore_a_SOURCES += \
	core/elfdyn.c core/elfdyn.h \
	core/analysis.c core/analysis.h \
	core/units.c core/units.h \
	core/sysview.c core/sysview.h \
	core/openmetrics.c core/openmetrics.h \
	core/filestrip.c core/filestrip.h
# Grouping of processes (core/group.c) and the page strip of a mapping
# or a file (core/strip.c).
core_libexmcore_a_SOURCES += core/group.c core/group.h \
	core/strip.c core/strip.h
