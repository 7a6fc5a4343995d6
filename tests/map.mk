# tests/map/check.sh: tests/README maps every source file of core/, tui/ and
# kernel/ to the tests that cover it; a file without an entry, an entry
# without a test and a test named that does not exist fail.
TESTS += tests/map/check.sh
EXTRA_DIST += tests/map/check.sh tests/README
