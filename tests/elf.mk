# tests/elf.mk: ELF parser and attribution unit tests, fuzz corpus replay,
# live ELF tests (root).
if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_elf
tests_unit_test_elf_SOURCES = \
	tests/unit/elfgen.h \
	tests/unit/test_elf.c \
	tests/unit/test_elf_table.c
tests_unit_test_elf_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_elf_LDADD = $(CORE_LIBS) $(CRITERION_LIBS)
TESTS += tests/unit/test_elf
endif

# Live (root; SKIP otherwise): builds test libraries with cc/c++ at test time.
TESTS += tests/live/test_elf.py
EXTRA_DIST += \
	tests/live/test_elf.py \
	tests/live/elf/libelft.c \
	tests/live/elf/libelfcxx.cc \
	tests/live/elf/elfload.c
