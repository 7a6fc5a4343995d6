# tests/: Criterion unit tests, live integration tests (root), UI tests (tmux).
if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_core
tests_unit_test_core_SOURCES = \
	tests/unit/snapgen.h \
	tests/unit/test_procfs.c \
	tests/unit/test_pagecount.c \
	tests/unit/test_account.c \
	tests/unit/test_fields.c \
	tests/unit/test_account_bounds.c \
	tests/unit/test_exclusive.c \
	tests/unit/test_cgcharge.c tests/unit/fsput.h \
	tests/unit/test_reuse.c \
	tests/unit/test_outfile.c
tests_unit_test_core_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_core_LDADD = $(CORE_LIBS) $(CRITERION_LIBS)
TESTS += tests/unit/test_core
endif
# Builder protocol, recording and replay (tests/unit/test_record.c), and
# the identity and growth engine of --diff and delta mode (test_diff.c).
if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_record
tests_unit_test_record_SOURCES = \
	tests/unit/snapcmp.h tests/unit/snapgen.h \
	tests/unit/test_record.c \
	tests/unit/test_diff.c \
	tests/unit/elfgen.h tests/unit/test_sysroot.c \
	tests/unit/test_record_words.c
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
# Without Criterion (configured without --enable-tests) the unit programs
# above are not built: this test says so and skips, so that their absence
# shows in the totals (scripts/test fails on any skip) instead of nowhere.
if !HAVE_CRITERION
TESTS += tests/unit/no_criterion.sh
endif
EXTRA_DIST += tests/unit/no_criterion.sh
# `make list-tests`: every test program this build's `make check` runs, one
# a line; scripts/test checks that each of them left a result, and that
# every build ran the same list.
list-tests:
	@for t in $(TESTS); do echo "$$t"; done
.PHONY: list-tests
