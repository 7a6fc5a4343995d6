# tests/analysis.mk: the paper's analyses (alerts, executable units, the
# system view, OpenMetrics) on hand-built snapshots, and live tests of them
# through tests/live/anadrive (root).
if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_analysis
tests_unit_test_analysis_SOURCES = \
	tests/unit/snapgen.h tests/unit/anagen.h tests/unit/elfgen.h \
	tests/unit/test_analysis.c \
	tests/unit/test_analysis_units.c \
	tests/unit/test_analysis_sys.c
tests_unit_test_analysis_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_analysis_LDADD = $(CORE_LIBS) $(CRITERION_LIBS)
TESTS += tests/unit/test_analysis
endif

# The live tests' driver: core's analyses on a real pagemap snapshot.
check_PROGRAMS += tests/live/analysis/anadrive
tests_live_analysis_anadrive_SOURCES = tests/live/analysis/anadrive.c
tests_live_analysis_anadrive_LDADD = $(CORE_LIBS)
TESTS += tests/live/test_analysis.py tests/live/test_analysis_cli.py
EXTRA_DIST += \
	tests/live/test_analysis.py tests/live/test_analysis_cli.py \
	tests/live/analysis/libtr.c \
	tests/live/analysis/anaload.c \
	tests/live/analysis/anagrow.c
