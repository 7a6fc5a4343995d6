# tests/: Criterion unit tests, live integration tests (root), UI tests (tmux).
if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_core
tests_unit_test_core_SOURCES = \
	tests/unit/snapgen.h \
	tests/unit/test_procfs.c \
	tests/unit/test_pagecount.c \
	tests/unit/test_account.c \
	tests/unit/test_fields.c
tests_unit_test_core_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_core_LDADD = $(CORE_LIBS) $(CRITERION_LIBS)
TESTS += tests/unit/test_core
endif
