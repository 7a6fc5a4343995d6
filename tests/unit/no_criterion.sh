#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run by `make check` in place of the Criterion unit programs when the build
# was configured without Criterion (see configure.ac, --enable-tests).
echo "SKIP: configured without Criterion: the unit test programs" \
	"(tests/unit/test_*) were not built; install libcriterion-dev and" \
	"reconfigure (scripts/test configures with --enable-tests)"
exit 77
