# tests/: Criterion unit tests, live integration tests (root), UI tests (tmux).
if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_core
tests_unit_test_core_SOURCES = \
	tests/unit/snapgen.h \
	tests/unit/test_procfs.c \
	tests/unit/test_pagecount.c \
	tests/unit/test_account.c \
	tests/unit/test_fields.c \
	tests/unit/test_outfile.c
tests_unit_test_core_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_core_LDADD = $(CORE_LIBS) $(CRITERION_LIBS)
TESTS += tests/unit/test_core
endif
# Builder protocol, recording and replay (tests/unit/test_record.c).
if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_record
tests_unit_test_record_SOURCES = \
	tests/unit/snapcmp.h tests/unit/snapgen.h \
	tests/unit/test_record.c \
	tests/unit/test_diff.c \
	tests/unit/elfgen.h tests/unit/test_sysroot.c
tests_unit_test_record_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS) \
	$(SQLITE3_CFLAGS) -DEXM_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_record_LDADD = $(CORE_LIBS) $(CRITERION_LIBS)
TESTS += tests/unit/test_record
endif
# The recording reader's fuzz corpus, replayed (tests/fuzz/run.sh fuzzes).
check_PROGRAMS += tests/fuzz/replay_record
tests_fuzz_replay_record_SOURCES = tests/fuzz/fuzz_record.c tests/fuzz/replay.c
tests_fuzz_replay_record_CPPFLAGS = $(AM_CPPFLAGS) \
	-DEXM_CORPUS_DIR='"$(abs_top_srcdir)/tests/fuzz/corpus_record"'
tests_fuzz_replay_record_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/replay_record
EXTRA_DIST += tests/fuzz/corpus_record
# Live recording, replay and diff (root; SKIP otherwise): compiles
# tests/live/sharer.c and tests/live/grower.c with plain flags at run time.
check_PROGRAMS += tests/live/test_record
tests_live_test_record_SOURCES = tests/live/test_record.c tests/unit/snapcmp.h
tests_live_test_record_CPPFLAGS = $(AM_CPPFLAGS) \
	-DEXM_SRCDIR='"$(abs_top_srcdir)"'
tests_live_test_record_LDADD = $(CORE_LIBS)
TESTS += tests/live/test_record
EXTRA_DIST += tests/live/grower.c
CLEANFILES += tests/live/grower-plain
