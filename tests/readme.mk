# tests/readme/: the documents' examples are tests. Every command in a code
# block of README.md and kernel/README.md, and every example of the manual,
# is run (root; SKIP otherwise) and what its text says is checked; an
# example without a check, or a check without its example, fails.
# test_claims.py checks what the README says in prose where issue 25 found
# it untrue (OpenMetrics counts, --from, refusals, names, --help).
TESTS += tests/readme/test_examples.py tests/readme/test_claims.py
EXTRA_DIST += tests/readme/test_examples.py tests/readme/test_claims.py
