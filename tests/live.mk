# tests/live/: live integration tests against the running kernel.
# test_sharing.py, test_swap.py (makes a temporary swap file when no swap is
# on), test_churn.py and test_pss.py need root (they exit 77, SKIP, otherwise);
# test_names.py runs as anyone; test_unpriv.py runs exmtop as an unprivileged user (as root it creates and
# uses the user exmtop-test). They run ./exmtop and ./tests/live/sharer from
# the build directory (override with EXMTOP= and SHARER=).
check_PROGRAMS += tests/live/sharer
tests_live_sharer_SOURCES = tests/live/sharer.c
TESTS += \
	tests/live/test_sharing.py \
	tests/live/test_swap.py \
	tests/live/test_churn.py \
	tests/live/test_names.py \
	tests/live/test_pss.py \
	tests/live/test_unpriv.py
EXTRA_DIST += \
	tests/live/exmlive.py \
	tests/live/test_sharing.py \
	tests/live/test_swap.py \
	tests/live/test_churn.py \
	tests/live/test_names.py \
	tests/live/test_pss.py \
	tests/live/test_unpriv.py
