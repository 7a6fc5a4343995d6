# bench/: benchmarks, run by hand (not by make check): see bench/snapshot.sh.
EXTRA_DIST += bench/snapshot.sh bench/workload.c
