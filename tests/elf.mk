# tests/elf.mk: ELF parser and attribution unit tests, fuzz corpus replay,
# live ELF tests (root).
if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_elf
tests_unit_test_elf_SOURCES = \
	tests/unit/elfgen.h tests/unit/snapgen.h \
	tests/unit/test_elf.c \
	tests/unit/test_elf_table.c \
	tests/unit/test_elfcache.c
tests_unit_test_elf_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_elf_CPPFLAGS = $(AM_CPPFLAGS) \
	-DEXM_CORPUS_DIR='"$(abs_top_srcdir)/tests/fuzz/corpus"'
tests_unit_test_elf_LDADD = $(CORE_LIBS) $(CRITERION_LIBS)
TESTS += tests/unit/test_elf
# The ELF views of the live UI, without curses.
check_PROGRAMS += tests/unit/test_view_elf
tests_unit_test_view_elf_SOURCES = \
	tests/unit/elfgen.h tests/unit/snapgen.h \
	tests/unit/test_view_elf.c \
	tui/screen/view.c tui/screen/view.h \
	tui/screen/views.c tui/screen/views.h \
	tui/screen/view_strip.c tui/screen/view_strip.h \
	tui/screen/view_elf.c tui/screen/view_elf.h
tests_unit_test_view_elf_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_view_elf_LDADD = $(CORE_LIBS) $(CRITERION_LIBS)
TESTS += tests/unit/test_view_elf
endif

# Live (root; SKIP otherwise): builds test libraries with cc/c++ at test time.
TESTS += tests/live/test_elf.py tests/live/test_elf_ui.sh
EXTRA_DIST += \
	tests/live/test_elf.py \
	tests/live/test_elf_ui.sh \
	tests/live/elf/libelft.c \
	tests/live/elf/libelfcxx.cc \
	tests/live/elf/elfload.c

# Fuzz corpus replay: every input of tests/fuzz/corpus through the fuzz
# target (tests/fuzz/run.sh runs the fuzzer itself, with clang).
check_PROGRAMS += tests/fuzz/replay
tests_fuzz_replay_SOURCES = tests/fuzz/fuzz_elf.c tests/fuzz/replay.c \
	tests/unit/snapgen.h
tests_fuzz_replay_CPPFLAGS = $(AM_CPPFLAGS) \
	-DEXM_CORPUS_DIR='"$(abs_top_srcdir)/tests/fuzz/corpus"'
tests_fuzz_replay_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/replay
EXTRA_DIST += \
	tests/fuzz/run.sh \
	tests/fuzz/gen_seeds.c \
	tests/fuzz/corpus
