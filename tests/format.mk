# tests/format/check.sh: every C file of core/, tui/ and tests/ is laid out
# as the top .clang-format says (kernel/ is checkpatch's: tests/kmod/run).
# `make format` rewrites the files that are not.
TESTS += tests/format/check.sh
EXTRA_DIST += tests/format/check.sh .clang-format kernel/.clang-format
format:
	srcdir=$(srcdir) $(SHELL) $(srcdir)/tests/format/check.sh --fix
.PHONY: format
